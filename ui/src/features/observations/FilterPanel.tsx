// The Observations view's filter panel: the filter builder's rows edited as a draft and applied
// together, so typing never reloads the table at every key.

import { useEffect, useState, type FormEvent } from "react";

import { traceApi } from "../../api/trace";
import { Button } from "../../components/Button";
import { FilterBuilder } from "./FilterBuilder";
import { FILTER_COLUMNS, blankFilter, toApiFilter, type ViewFilter } from "./filters";
import { MAX_FILTERS } from "./state";

interface FilterPanelProps {
  /** Whose score configs suggest score names. */
  projectId: string;
  filters: readonly ViewFilter[];
  onApply(filters: ViewFilter[]): void;
  onClose(): void;
}

export function FilterPanel({ projectId, filters, onApply, onClose }: FilterPanelProps) {
  const [draft, setDraft] = useState<ViewFilter[]>(() => (filters.length ? [...filters] : [blankFilter("name")]));
  const scoreNames = useScoreNames(projectId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft.filter((f) => toApiFilter(f) !== null));
  };

  return (
    <form className="filter-panel" aria-label="Filters" onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <FilterBuilder
        columns={FILTER_COLUMNS}
        filters={draft}
        onChange={setDraft}
        max={MAX_FILTERS}
        emptyText="No filters: every observation in the time range is shown."
        scoreNames={scoreNames}
        actions={
          <>
            <span className="shell__spacer" />
            <Button size="sm" variant="ghost" onClick={() => onApply([])}>
              Clear all
            </Button>
            <Button size="sm" variant="primary" type="submit">
              Apply filters
            </Button>
          </>
        }
      />
    </form>
  );
}

/** The names of the project's (unarchived) score configs, for suggestions; none when they cannot be
 * read — the name field takes any text, as scores need no config. */
function useScoreNames(projectId: string): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    traceApi(projectId)
      .scoreConfigs()
      .then(
        (page) => live && setNames([...new Set(page.data.filter((c) => !c.isArchived).map((c) => c.name))].sort()),
        () => live && setNames([]),
      );
    return () => {
      live = false;
    };
  }, [projectId]);
  return names;
}

