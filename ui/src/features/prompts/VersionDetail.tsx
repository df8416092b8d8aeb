// The selected version: its labels (moved here by a MEMBER or above), tags, commit message,
// author, then its body resolved (references replaced by the texts they point at, with the
// versions they pulled in) or raw (the references as written), and its config.

import { useState, type FormEvent } from "react";
import { Link } from "react-router";

import { describeError } from "../../api/client";
import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { getVersion, setLabels, type PromptVersion } from "./api";
import { formatWhen, Labels, Tags } from "./common";
import { labelsProblem, splitList } from "./editor";
import { promptPath } from "./folders";
import { hasReferences, PromptBody } from "./PromptBody";

interface VersionDetailProps {
  name: string;
  version: number;
  /** Who made it: a person's name, or `API` for a key. */
  author: string;
  resolved: boolean;
  writer: boolean;
  /** From the prompt page back to the prompts page. */
  toPrompts: string;
  onLabelsMoved(): void;
}

function MoveLabels({ name, version, onMoved }: { name: string; version: number; onMoved(answer: PromptVersion): void }) {
  const { api } = useProject();
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const labels = splitList(text);
    const local = labels.length === 0 ? "Name at least one label" : labelsProblem(labels);
    if (local) return setProblem(local);
    setBusy(true);
    setProblem(null);
    try {
      onMoved(await setLabels(api, name, version, labels));
      setText("");
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="prompts__move" onSubmit={submit} noValidate>
      <label className="prompts__field">
        <span className="prompts__field-label">Move labels to version {version}</span>
        <input className="field__input" placeholder="production" value={text} onChange={(e) => setText(e.target.value)} aria-invalid={problem ? true : undefined} />
      </label>
      <Button type="submit" size="sm" busy={busy}>
        Move here
      </Button>
      {problem && <InlineError>{problem}</InlineError>}
    </form>
  );
}

export function VersionDetail({ name, version, author, resolved, writer, toPrompts, onLabelsMoved }: VersionDetailProps) {
  const { api } = useProject();
  const result = useLoad((signal) => getVersion(api, name, version, resolved, signal), [api, name, version, resolved]);
  const v = result.data;
  if (result.error && !v) return <ErrorState error={result.error} onRetry={result.reload} />;
  if (!v) return <Loading label={`Loading version ${version}…`} />;
  const dependencies = Object.values(v.resolutionGraph?.dependencies ?? {}).flat();

  return (
    <div className="prompts__version" aria-busy={result.loading}>
      <dl className="prompts__meta">
        <dt>Labels</dt>
        <dd>
          <Labels labels={v.labels} />
        </dd>
        <dt>Tags</dt>
        <dd>
          <Tags tags={v.tags} />
        </dd>
        <dt>Commit message</dt>
        <dd>{v.commitMessage ?? <span className="muted">–</span>}</dd>
        <dt>Created</dt>
        <dd>
          {formatWhen(v.createdAt)} <span className="muted">by {author}</span>
        </dd>
      </dl>
      {writer && (
        <MoveLabels
          name={name}
          version={version}
          onMoved={() => {
            result.reload();
            onLabelsMoved();
          }}
        />
      )}

      {resolved && dependencies.length > 0 && (
        <p className="prompts__resolved-note">
          Resolved: references replaced by{" "}
          {dependencies.map((d, i) => (
            <span key={d.id}>
              {i > 0 && ", "}
              <Link to={`${toPrompts}/${promptPath(d.name)}?version=${d.version}`}>
                {d.name} v{d.version}
              </Link>
            </span>
          ))}
          .
        </p>
      )}
      {!resolved && !hasReferences(v.prompt) && <p className="muted">This version references no other prompt: raw and resolved are the same.</p>}
      <h2 className="prompts__heading">{v.type === "chat" ? "Messages" : "Text"}</h2>
      <PromptBody prompt={v.prompt} toPrompts={toPrompts} />
      <h2 className="prompts__heading">Config</h2>
      <pre className="prompts__text mono" aria-label="Config">
        {JSON.stringify(v.config ?? {}, null, 2)}
      </pre>
    </div>
  );
}
