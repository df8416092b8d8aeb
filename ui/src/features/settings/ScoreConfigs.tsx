// The project's score configs (public API `score-configs`): the list, a new numeric, categorical or
// boolean config, and archiving (a config is never deleted: scores keep pointing at it). MEMBER and
// above write; a VIEWER sees the list only.


import { describeError } from "../../api/client";
import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { DESCRIPTION_MAX, SCORE_NAME_MAX, scoreConfigRequest, type ScoreConfigForm, type ScoreDataType } from "./forms";
import { ListTable } from "./ListTable";
import { useAction } from "./useAction";
import { useCheckedForm } from "./useCheckedForm";

interface ScoreConfig {
  id: string;
  name: string;
  dataType: ScoreDataType;
  isArchived: boolean;
  minValue?: number | null;
  maxValue?: number | null;
  categories?: { label: string; value: number }[] | null;
  description?: string | null;
}

/** The list shows the first page only: a project with more configs than this is rare. */
const CONFIGS_LIMIT = 100;

const EMPTY: ScoreConfigForm = { name: "", dataType: "NUMERIC", minValue: "", maxValue: "", categories: "", description: "" };

function shape(config: ScoreConfig): string {
  if (config.dataType === "NUMERIC") {
    const min = config.minValue ?? "−∞";
    const max = config.maxValue ?? "+∞";
    return `${min} … ${max}`;
  }
  return (config.categories ?? []).map((c) => `${c.label} (${c.value})`).join(", ");
}

function NewScoreConfig({ api, onCreated }: { api: ProjectApi; onCreated(): void }) {
  const { form, set, problems, action, submit } = useCheckedForm(EMPTY, scoreConfigRequest, (value) => api.post<ScoreConfig>("score-configs", value), onCreated);
  return (
    <form className="settings-form" aria-label="New score config" onSubmit={(e) => void submit(e)} noValidate>
      <div className="settings-row">
        <TextField label="Name" value={form.name} maxLength={SCORE_NAME_MAX} error={problems.name} onChange={(e) => set({ name: e.target.value })} />
        <div className="field">
          <label className="field__label" htmlFor="score-config-type">
            Data type
          </label>
          <select id="score-config-type" className="field__input" value={form.dataType} onChange={(e) => set({ dataType: e.target.value as ScoreDataType })}>
            <option value="NUMERIC">Numeric</option>
            <option value="CATEGORICAL">Categorical</option>
            <option value="BOOLEAN">Boolean</option>
          </select>
        </div>
        {form.dataType === "NUMERIC" && (
          <>
            <TextField label="Minimum" inputMode="decimal" value={form.minValue} error={problems.minValue} onChange={(e) => set({ minValue: e.target.value })} />
            <TextField label="Maximum" inputMode="decimal" value={form.maxValue} error={problems.maxValue} onChange={(e) => set({ maxValue: e.target.value })} />
          </>
        )}
      </div>
      {form.dataType === "CATEGORICAL" && (
        <div className="field">
          <label className="field__label" htmlFor="score-config-categories">
            Categories
          </label>
          <textarea
            id="score-config-categories"
            className="field__input"
            rows={3}
            placeholder={"good=1\nbad=0"}
            value={form.categories}
            aria-invalid={problems.categories ? true : undefined}
            onChange={(e) => set({ categories: e.target.value })}
          />
          <p className="field__hint">One per line: a label, or label=value.</p>
          {problems.categories && <p className="field__error">{problems.categories}</p>}
        </div>
      )}
      <TextField label="Description (optional)" value={form.description} maxLength={DESCRIPTION_MAX} error={problems.description} onChange={(e) => set({ description: e.target.value })} />
      <div>
        <Button type="submit" variant="primary" busy={action.busy}>
          Create score config
        </Button>
      </div>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
    </form>
  );
}

export function ScoreConfigs({ api, canWrite }: { api: ProjectApi; canWrite: boolean }) {
  const loaded = useLoad((signal) => api.get<Paginated<ScoreConfig>>("score-configs", { page: 1, limit: CONFIGS_LIMIT }, signal), [api]);
  const archive = useAction();
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading score configs…" />;
  const configs = loaded.data.data;

  const setArchived = async (config: ScoreConfig, isArchived: boolean) => {
    const ok = await archive.run(() => api.patch<ScoreConfig>(`score-configs/${encodeURIComponent(config.id)}`, { isArchived }));
    if (ok) loaded.reload();
  };

  return (
    <div className="settings-block">
      <ListTable
        label="Score configs"
        columns={["Name", "Data type", "Range or categories", "Description"]}
        actions={canWrite}
        empty={configs.length === 0 && "No score configs yet."}
      >
        {configs.map((config) => (
          <tr key={config.id} className={config.isArchived ? "settings-archived" : undefined}>
            <td>
              {config.name}
              {config.isArchived && <span className="badge">archived</span>}
            </td>
            <td>{config.dataType}</td>
            <td>{shape(config)}</td>
            <td>{config.description ?? <span className="muted">–</span>}</td>
            {canWrite && (
              <td className="settings-actions">
                <Button size="sm" variant="ghost" disabled={archive.busy} onClick={() => void setArchived(config, !config.isArchived)}>
                  {config.isArchived ? "Restore" : "Archive"}
                </Button>
              </td>
            )}
          </tr>
        ))}
      </ListTable>
      {archive.error !== undefined && <InlineError>{describeError(archive.error)}</InlineError>}
      {canWrite && <NewScoreConfig api={api} onCreated={loaded.reload} />}
    </div>
  );
}
