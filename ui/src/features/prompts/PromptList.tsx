// The project's prompts, one folder at a time: its subfolders first, then its prompts with their
// type, latest version, labels, tags and last update; a search over full names lists matching
// prompts under the folder at any depth. The folder, search and page are in the URL.

import { useCallback, useMemo } from "react";
import { Link, useNavigate } from "react-router";

import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { DataTable, type Column } from "../../components/DataTable";
import { EmptyState } from "../../components/States";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { useListParams, useTypedSearch } from "../../components/useListParams";
import { useLoad } from "../../components/useLoad";
import { FOLDER_PAGE_SIZE, uiPrompts, type FolderEntry } from "./api";
import { canWrite, formatShort, formatWhen, Labels, Tags } from "./common";
import { breadcrumb, leafOf, normalizeFolder, promptPath } from "./folders";

const MAX_SEARCH_CHARS = 200;

function href(entry: FolderEntry): string {
  return entry.kind === "folder" ? `?folder=${encodeURIComponent(entry.name)}` : promptPath(entry.name);
}

function columns(folder: string, searching: boolean): Column<FolderEntry>[] {
  const shown = (entry: FolderEntry) => (searching ? entry.name : folder ? entry.name.slice(folder.length + 1) : entry.name);
  return [
    {
      id: "name",
      header: "Name",
      width: "minmax(14rem, 2fr)",
      render: (e) => (
        <Link to={href(e)} className="prompts__name" onClick={(event) => event.stopPropagation()} title={e.name}>
          <span aria-hidden="true" className="prompts__icon">
            {e.kind === "folder" ? "▸" : "¶"}
          </span>
          {e.kind === "folder" ? `${leafOf(e.name)}/` : shown(e)}
        </Link>
      ),
    },
    {
      id: "type",
      header: "Type",
      width: "5rem",
      render: (e) => (e.kind === "folder" ? <span className="muted">{e.prompts === 1 ? "1 prompt" : `${e.prompts} prompts`}</span> : e.type),
    },
    { id: "latest", header: "Latest", width: "5rem", align: "end", render: (e) => (e.latestVersion ? `v${e.latestVersion}` : "") },
    { id: "versions", header: "Versions", width: "6rem", align: "end", render: (e) => (e.kind === "prompt" ? e.versions : "") },
    { id: "labels", header: "Labels", width: "minmax(10rem, 1.5fr)", render: (e) => (e.kind === "prompt" ? <Labels labels={e.labels} /> : null) },
    { id: "tags", header: "Tags", width: "minmax(8rem, 1fr)", render: (e) => (e.kind === "prompt" ? <Tags tags={e.tags} /> : null) },
    {
      id: "updated",
      header: "Last updated",
      width: "9rem",
      render: (e) => <span title={formatWhen(e.lastUpdatedAt)}>{formatShort(e.lastUpdatedAt)}</span>,
    },
  ];
}

export function PromptList() {
  const { project } = useProject();
  const navigate = useNavigate();
  const { params, page, update } = useListParams();
  const folder = normalizeFolder(params.get("folder"));
  const search = params.get("q") ?? "";

  const commitSearch = useCallback((text: string) => update({ q: text }), [update]);
  const [typed, setTyped] = useTypedSearch(search, commitSearch);

  const result = useLoad(
    (signal) => uiPrompts.folder(project.id, { folder, page, limit: FOLDER_PAGE_SIZE, ...(search ? { search } : {}) }, signal),
    [project.id, folder, search, page],
  );
  const table = useMemo(() => columns(folder, !!search), [folder, search]);
  const data = result.data;
  const totalPages = data?.meta.totalPages ?? 0;
  const writer = canWrite(project.role);
  const newHref = folder ? `new?folder=${encodeURIComponent(folder)}` : "new";

  return (
    <div className="page prompts">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Prompts</h1>
        </div>
        <div className="prompts__actions">
          <Button variant="ghost" onClick={result.reload} busy={result.loading && !!data}>
            Refresh
          </Button>
          {writer && (
            <Button variant="primary" onClick={() => navigate(newHref)}>
              New prompt
            </Button>
          )}
        </div>
      </header>

      <nav className="prompts__breadcrumb" aria-label="Folder">
        {breadcrumb(folder).map((crumb, i, all) => (
          <span key={crumb.folder}>
            {i > 0 && <span className="muted"> / </span>}
            {i === all.length - 1 ? (
              <span aria-current="page">{crumb.label}</span>
            ) : (
              <Link to={crumb.folder ? `?folder=${encodeURIComponent(crumb.folder)}` : "."}>{crumb.label}</Link>
            )}
          </span>
        ))}
      </nav>

      <div className="prompts__toolbar" role="search">
        <label className="prompts__field">
          <span className="prompts__field-label">Search</span>
          <input
            type="search"
            className="field__input prompts__search"
            placeholder={folder ? `Names under ${folder}/` : "Prompt names"}
            value={typed}
            maxLength={MAX_SEARCH_CHARS}
            onChange={(event) => setTyped(event.target.value)}
          />
        </label>
        <span className="prompts__spacer" />
        {data && (
          <span className="muted" aria-live="polite">
            {data.meta.totalItems} {data.meta.totalItems === 1 ? "entry" : "entries"}
          </span>
        )}
      </div>

      <LoadedView result={result} loadingLabel="Loading prompts…">
        {(data) => (
          <>
            <div className="table-frame" aria-busy={result.loading}>
              <DataTable
                label="Prompts"
                columns={table}
                rows={data.data}
                rowKey={(e) => `${e.kind}:${e.name}`}
                onRowClick={(e) => navigate(href(e))}
                empty={
                  <EmptyState title={search ? "No prompt matches" : folder ? "This folder is empty" : "No prompts yet"}>
                    {search ? (
                      <p>No prompt name under this folder contains “{search}”.</p>
                    ) : (
                      <p>
                        Prompts are versioned templates your application fetches by name and label (<code>production</code> by
                        default). A <code>/</code> in a name puts the prompt in a folder.
                      </p>
                    )}
                  </EmptyState>
                }
              />
            </div>
            <Pager page={page} totalPages={totalPages} onPage={(p) => update({ page: String(p) })} />
          </>
        )}
      </LoadedView>
    </div>
  );
}
