// The project's model definitions (public API `models`): built-in and custom ones with their prices
// per usage key, a new custom model (match pattern, unit, one price per usage key), and deleting a
// custom one. MEMBER and above write; built-in definitions are read-only (override one by creating
// a custom model with the same pattern).

import { useState } from "react";

import { describeError } from "../../api/client";
import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { Pager } from "../../components/Pager";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { RemovalDialog, useRemoval } from "./Dialog";
import { ListTable } from "./ListTable";
import { MODEL_NAME_MAX, modelRequest, PATTERN_MAX, UNITS, type ModelForm, type UsageUnit } from "./forms";
import { useCheckedForm } from "./useCheckedForm";

interface Model {
  id: string;
  modelName: string;
  matchPattern: string;
  unit?: UsageUnit | null;
  isLangfuseManaged: boolean;
  prices: Record<string, { price: number }>;
}

/** Models per page: built-in definitions are about a hundred. */
const MODELS_LIMIT = 100;

const EMPTY: ModelForm = { modelName: "", matchPattern: "", unit: "TOKENS", prices: [{ key: "input", price: "" }, { key: "output", price: "" }] };

function prices(model: Model): string {
  const entries = Object.entries(model.prices ?? {});
  if (entries.length === 0) return "–";
  return entries.map(([key, { price }]) => `${key} $${price}`).join(", ");
}

function NewModel({ api, onCreated }: { api: ProjectApi; onCreated(): void }) {
  const { form, set, problems, action, submit } = useCheckedForm(EMPTY, modelRequest, (value) => api.post<Model>("models", value), onCreated);
  const setPrice = (index: number, patch: Partial<{ key: string; price: string }>) =>
    set({ prices: form.prices.map((row, i) => (i === index ? { ...row, ...patch } : row)) });
  return (
    <form className="settings-form" aria-label="New model" onSubmit={(e) => void submit(e)} noValidate>
      <div className="settings-row">
        <TextField label="Model name" value={form.modelName} maxLength={MODEL_NAME_MAX} error={problems.modelName} onChange={(e) => set({ modelName: e.target.value })} />
        <TextField
          label="Match pattern"
          value={form.matchPattern}
          maxLength={PATTERN_MAX}
          placeholder="(?i)^my-model$"
          error={problems.matchPattern}
          onChange={(e) => set({ matchPattern: e.target.value })}
        />
        <div className="field">
          <label className="field__label" htmlFor="model-unit">
            Unit
          </label>
          <select id="model-unit" className="field__input" value={form.unit} onChange={(e) => set({ unit: e.target.value as UsageUnit })}>
            {UNITS.map((unit) => (
              <option key={unit} value={unit}>
                {unit}
              </option>
            ))}
          </select>
        </div>
      </div>
      <fieldset className="settings-prices">
        <legend className="field__label">Prices (USD per unit)</legend>
        {form.prices.map((row, index) => (
          <div className="settings-row" key={index}>
            <TextField label={`Usage key ${index + 1}`} value={row.key} maxLength={100} onChange={(e) => setPrice(index, { key: e.target.value })} />
            <TextField label={`Price ${index + 1}`} inputMode="decimal" value={row.price} onChange={(e) => setPrice(index, { price: e.target.value })} />
          </div>
        ))}
        {problems.prices && <p className="field__error">{problems.prices}</p>}
        <div>
          <Button size="sm" onClick={() => set({ prices: [...form.prices, { key: "", price: "" }] })}>
            Add a usage key
          </Button>
        </div>
      </fieldset>
      <div>
        <Button type="submit" variant="primary" busy={action.busy}>
          Create model
        </Button>
      </div>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
    </form>
  );
}

export function Models({ api, canWrite }: { api: ProjectApi; canWrite: boolean }) {
  const [page, setPage] = useState(1);
  const loaded = useLoad((signal) => api.get<Paginated<Model>>("models", { page, limit: MODELS_LIMIT }, signal), [api, page]);
  const removal = useRemoval((model: Model) => api.delete<unknown>(`models/${encodeURIComponent(model.id)}`), loaded.reload);
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading models…" />;
  const { data: models, meta } = loaded.data;
  // Custom definitions first: they are the ones a person came to change.
  const sorted = [...models].sort((a, b) => Number(a.isLangfuseManaged) - Number(b.isLangfuseManaged));

  return (
    <div className="settings-block">
      <ListTable label="Models" columns={["Model", "Match pattern", "Unit", "Prices", "Source"]} actions={canWrite} scroll>
        {sorted.map((model) => (
          <tr key={model.id}>
            <td>{model.modelName}</td>
            <td>
              <code>{model.matchPattern}</code>
            </td>
            <td>{model.unit ?? "–"}</td>
            <td>{prices(model)}</td>
            <td>{model.isLangfuseManaged ? <span className="muted">built-in</span> : <span className="badge">custom</span>}</td>
            {canWrite && (
              <td className="settings-actions">
                {!model.isLangfuseManaged && (
                  <Button size="sm" variant="ghost" onClick={() => removal.ask(model)} aria-label={`Delete model ${model.modelName}`}>
                    Delete
                  </Button>
                )}
              </td>
            )}
          </tr>
        ))}
      </ListTable>
      <Pager page={page} totalPages={meta.totalPages} onPage={setPage} label="Model pages" />
      {canWrite && <NewModel api={api} onCreated={loaded.reload} />}
      <RemovalDialog removal={removal} title="Delete model?" confirmLabel="Delete model">
        {(model) => (
          <p>
            New generations matching <code>{model.matchPattern}</code> are priced by the built-in definitions again.
          </p>
        )}
      </RemovalDialog>
    </div>
  );
}
