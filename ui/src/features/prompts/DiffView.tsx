// Two versions side by side as a line diff: the text (or each message by position) and the config,
// unchanged sections folded. Both are read raw (references as written), as they were committed.

import { useProject } from "../../app/project";
import { ErrorState, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { getVersion, type VersionSummary } from "./api";
import { diffVersions, type DiffLine } from "./diff";

interface DiffViewProps {
  name: string;
  version: number;
  against: number;
  versions: readonly VersionSummary[];
  onAgainst(version: number): void;
}

function Line({ line }: { line: DiffLine }) {
  const sign = line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " ";
  return (
    <tr className={`prompts__diff-line prompts__diff-line--${line.kind}`}>
      <td className="prompts__diff-no">{line.oldNo ?? ""}</td>
      <td className="prompts__diff-no">{line.newNo ?? ""}</td>
      <td className="prompts__diff-sign" aria-label={line.kind === "same" ? undefined : line.kind}>
        {sign}
      </td>
      <td className="prompts__diff-text">{line.text || " "}</td>
    </tr>
  );
}

export function DiffView({ name, version, against, versions, onAgainst }: DiffViewProps) {
  const { api } = useProject();
  const result = useLoad(
    (signal) => Promise.all([getVersion(api, name, against, false, signal), getVersion(api, name, version, false, signal)]),
    [api, name, version, against],
  );
  const sections = result.data ? diffVersions(result.data[0], result.data[1]) : [];
  const changes = sections.filter((s) => s.changed).length;

  return (
    <section className="prompts__diff" aria-label="Diff">
      <div className="prompts__toolbar">
        <label className="prompts__field">
          <span className="prompts__field-label">Compare with</span>
          <select className="field__input" value={against} onChange={(e) => onAgainst(Number(e.target.value))}>
            {versions
              .filter((v) => v.version !== version)
              .map((v) => (
                <option key={v.version} value={v.version}>
                  Version {v.version}
                  {v.labels.length ? ` (${v.labels.join(", ")})` : ""}
                </option>
              ))}
          </select>
        </label>
        <span className="muted">
          from version {against} to version {version}
          {result.data && ` · ${changes === 0 ? "no changes" : changes === 1 ? "1 part changed" : `${changes} parts changed`}`}
        </span>
      </div>
      {result.error ? (
        <ErrorState error={result.error} onRetry={result.reload} />
      ) : !result.data ? (
        <Loading label="Loading both versions…" />
      ) : (
        sections.map((section) => (
          <details key={section.title} className="prompts__diff-section" open={section.changed}>
            <summary>
              {section.title} {section.changed ? <span className="prompts__chip prompts__chip--changed">changed</span> : <span className="muted">unchanged</span>}
            </summary>
            <table className="prompts__diff-table">
              <tbody>
                {section.lines.map((line, i) => (
                  <Line key={i} line={line} />
                ))}
              </tbody>
            </table>
          </details>
        ))
      )}
    </section>
  );
}
