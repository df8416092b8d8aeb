// One prompt: its versions (newest first, virtualized, more loaded as the list scrolls), and the
// selected version resolved or raw, a diff against another version, or the editor of a new
// version. What is shown is in the URL: `?version=`, `?label=` (a reference's link), `?view=`
// (`resolved`, `raw`, `diff`), `?against=` and `?edit=1`.

import { useCallback, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";

import type { Paginated } from "../../api/types";
import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { ErrorState, Loading } from "../../components/States";
import { useLoad } from "../../components/useLoad";
import { createVersion, getVersion, uiPrompts, type VersionSummary } from "./api";
import { canWrite, formatShort, formatWhen, Labels } from "./common";
import { DiffView } from "./DiffView";
import { draftFrom } from "./editor";
import { breadcrumb, folderOf, nameFromPath } from "./folders";
import { PromptEditor } from "./PromptEditor";
import { VersionDetail } from "./VersionDetail";

type View = "resolved" | "raw" | "diff";

const versionColumns: Column<VersionSummary>[] = [
  { id: "version", header: "Version", width: "5.5rem", render: (v) => <strong>v{v.version}</strong> },
  { id: "labels", header: "Labels", width: "minmax(9rem, 1.5fr)", render: (v) => <Labels labels={v.labels} /> },
  {
    id: "commit",
    header: "Commit message",
    width: "minmax(6rem, 1fr)",
    render: (v) => <span title={v.commitMessage ?? ""}>{v.commitMessage ?? <span className="muted">–</span>}</span>,
  },
  {
    id: "created",
    header: "Created",
    width: "8.5rem",
    render: (v) => <span title={`${formatWhen(v.createdAt)} by ${v.author ?? v.createdBy}`}>{formatShort(v.createdAt)}</span>,
  },
];

/** Every version loaded so far; the next page arrives when the list's end comes into view. */
function useVersions(projectId: string, name: string) {
  const [more, setMore] = useState<{ key: string; pages: Paginated<VersionSummary>[] }>({ key: "", pages: [] });
  const key = `${projectId}\n${name}`;
  const first = useLoad((signal) => uiPrompts.versions(projectId, name, 1, signal), [projectId, name]);
  const extra = more.key === key ? more.pages : [];
  const all = useMemo(() => [...(first.data?.data ?? []), ...extra.flatMap((p) => p.data)], [first.data, extra]);
  const loaded = 1 + extra.length;
  const totalPages = first.data?.meta.totalPages ?? 1;
  const loadMore = useCallback(() => {
    if (loaded >= totalPages) return;
    void uiPrompts.versions(projectId, name, loaded + 1).then((page) =>
      setMore((m) => (m.key === key && m.pages.length === loaded - 1 ? { key, pages: [...m.pages, page] } : m.key === key ? m : { key, pages: [page] })),
    );
  }, [projectId, name, key, loaded, totalPages]);
  const reload = useCallback(() => {
    setMore({ key, pages: [] });
    first.reload();
  }, [first, key]);
  return { versions: all, error: first.error, loading: first.loading, total: first.data?.meta.totalItems ?? 0, loadMore, reload, ready: !!first.data };
}

export function PromptPage() {
  const { project, api } = useProject();
  const name = nameFromPath(useParams()["*"] ?? "");
  const [params, setParams] = useSearchParams();
  const writer = canWrite(project.role);
  // Absolute: the name's segments are path segments under one splat route.
  const toPrompts = projectPath(project.id, "prompts");

  const { versions, error, total, loadMore, reload, ready } = useVersions(project.id, name);
  const set = useCallback(
    (changes: Record<string, string | null>) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(changes)) {
          if (value === null) next.delete(key);
          else next.set(key, value);
        }
        return next;
      }),
    [setParams],
  );

  const asked = Number.parseInt(params.get("version") ?? "", 10);
  const byLabel = params.get("label");
  const selected =
    versions.find((v) => v.version === asked) ??
    (byLabel ? versions.find((v) => v.labels.includes(byLabel)) : undefined) ??
    versions.find((v) => v.labels.includes("production")) ??
    versions[0];
  const view: View = params.get("view") === "raw" ? "raw" : params.get("view") === "diff" ? "diff" : "resolved";
  const editing = params.get("edit") === "1" && writer;
  const older = selected ? versions.find((v) => v.version < selected.version) : undefined;
  const againstAsked = Number.parseInt(params.get("against") ?? "", 10);
  const against =
    versions.find((v) => v.version === againstAsked && v.version !== selected?.version)?.version ??
    older?.version ??
    versions.find((v) => v.version !== selected?.version)?.version;

  const draft = useLoad(
    (signal) => (editing && selected ? getVersion(api, name, selected.version, false, signal).then(draftFrom) : Promise.resolve(null)),
    [api, name, editing, selected?.version],
  );

  const folder = folderOf(name);
  const crumbs = breadcrumb(folder);

  if (error && !ready) return <ErrorState error={error} onRetry={reload} title={`Prompt “${name}”`} />;
  if (!ready) return <Loading label="Loading the prompt…" />;

  return (
    <div className="page prompts prompts--detail">
      <header className="page__header">
        <div>
          <nav className="page__eyebrow prompts__breadcrumb" aria-label="Folder">
            {crumbs.map((c, i) => (
              <span key={c.folder}>
                {i > 0 && " / "}
                <Link to={c.folder ? `${toPrompts}?folder=${encodeURIComponent(c.folder)}` : toPrompts}>{c.label}</Link>
              </span>
            ))}
          </nav>
          <h1 title={name}>{name.slice(folder ? folder.length + 1 : 0)}</h1>
        </div>
        <div className="prompts__actions">
          <span className="muted">{total === 1 ? "1 version" : `${total} versions`}</span>
          {writer && !editing && (
            <Button variant="primary" onClick={() => set({ edit: "1" })}>
              New version
            </Button>
          )}
        </div>
      </header>

      <div className="prompts__split">
        {/* As tall as its rows up to 15 (the table scrolls past that); never less than 3. */}
        <div className="prompts__versions" style={{ height: `${Math.max(3, Math.min(versions.length, 15)) * 36 + 44}px` }}>
          <DataTable
            label="Versions"
            columns={versionColumns}
            rows={versions}
            rowKey={(v) => String(v.version)}
            selectedKey={selected ? String(selected.version) : null}
            onRowClick={(v) => set({ version: String(v.version), label: null, edit: null })}
            onEndReached={loadMore}
          />
        </div>

        <section className="prompts__pane" aria-label={selected ? `Version ${selected.version}` : "Version"}>
          {editing ? (
            draft.error ? (
              <ErrorState error={draft.error} onRetry={draft.reload} />
            ) : !draft.data ? (
              <Loading label="Loading the version to start from…" />
            ) : (
              <>
                <h2 className="prompts__heading">New version of {name}</h2>
                <p className="muted">Starts from version {selected?.version}. The new version gets the “latest” label.</p>
                <PromptEditor
                  key={selected?.version}
                  initial={draft.data}
                  nameEditable={false}
                  submitLabel="Save version"
                  onCancel={() => set({ edit: null })}
                  onSubmit={async (body) => {
                    const created = await createVersion(api, body);
                    reload();
                    set({ edit: null, version: String(created.version), view: null });
                  }}
                />
              </>
            )
          ) : !selected ? (
            <p className="muted">No versions.</p>
          ) : (
            <>
              <div className="prompts__tabs" role="tablist" aria-label="Show">
                {(
                  [
                    ["resolved", "Resolved"],
                    ["raw", "Raw"],
                    ["diff", "Diff"],
                  ] as const
                ).map(([value, label]) => (
                  <button
                    key={value}
                    type="button"
                    role="tab"
                    aria-selected={view === value}
                    className="prompts__tab"
                    disabled={value === "diff" && against === undefined}
                    onClick={() => set({ view: value === "resolved" ? null : value })}
                  >
                    {label}
                  </button>
                ))}
                <span className="prompts__spacer" />
                <h2 className="prompts__version-title">Version {selected.version}</h2>
              </div>
              {view === "diff" && against !== undefined ? (
                <DiffView name={name} version={selected.version} against={against} versions={versions} onAgainst={(v) => set({ against: String(v) })} />
              ) : (
                <VersionDetail
                  name={name}
                  version={selected.version}
                  author={selected.author ?? selected.createdBy}
                  resolved={view === "resolved"}
                  writer={writer}
                  toPrompts={toPrompts}
                  onLabelsMoved={reload}
                />
              )}
            </>
          )}
        </section>
      </div>
    </div>
  );
}
