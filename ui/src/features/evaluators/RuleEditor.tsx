// The rule form: which evaluator runs, on which new observations (filter conditions, each column
// with the operators its filter type takes), how many of them (sampling), how long after they
// arrive (delay), and where the evaluator's variables come from for this rule.

import { useState, type FormEvent } from "react";

import { Button } from "../../components/Button";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { useAction } from "../settings/useAction";
import { useEvaluators } from "./access";
import { ErrorMessage, MappingEditor } from "./common";
import { DELAY_MAX, FILTER_COLUMNS, filterRow, NAME_MAX, OPERATORS, ruleRequest, typeOf, type FilterRow, type RuleField, type RuleForm } from "./forms";

function valueHint(type: string): string {
  if (type === "stringOptions" || type === "arrayOptions") return "comma-separated";
  if (type === "boolean") return "true or false";
  if (type === "null") return "";
  return "";
}

function FilterEditor({ rows, onChange, error }: { rows: FilterRow[]; onChange(rows: FilterRow[]): void; error?: string | undefined }) {
  const set = (index: number, patch: Partial<FilterRow>) => onChange(rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
  return (
    <fieldset className="ev-output">
      <legend className="field__label">Filter (all conditions must match; none judges every new observation)</legend>
      {rows.map((row, index) => {
        const type = typeOf(row.column);
        return (
          <div className="settings-row ev-condition" key={index}>
            <select className="field__input" aria-label={`Column of condition ${index + 1}`} value={row.column} onChange={(e) => set(index, filterRow(e.target.value))}>
              {FILTER_COLUMNS.map(([column]) => (
                <option key={column} value={column}>
                  {column}
                </option>
              ))}
            </select>
            {type === "stringObject" && (
              <input className="field__input" aria-label={`Metadata key of condition ${index + 1}`} placeholder="key" value={row.key} onChange={(e) => set(index, { key: e.target.value })} />
            )}
            <select className="field__input" aria-label={`Operator of condition ${index + 1}`} value={row.operator} onChange={(e) => set(index, { operator: e.target.value })}>
              {(OPERATORS[type] ?? []).map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
            {type !== "null" && (
              <input
                className="field__input"
                aria-label={`Value of condition ${index + 1}`}
                placeholder={valueHint(type)}
                value={row.value}
                onChange={(e) => set(index, { value: e.target.value })}
              />
            )}
            <Button size="sm" variant="ghost" aria-label={`Remove condition ${index + 1}`} onClick={() => onChange(rows.filter((_, i) => i !== index))}>
              Remove
            </Button>
          </div>
        );
      })}
      <div>
        <Button size="sm" onClick={() => onChange([...rows, filterRow("name")])}>
          Add a condition
        </Button>
      </div>
      {error && <p className="field__error">{error}</p>}
    </fieldset>
  );
}

export function RuleEditor({ initial, submitLabel, send, onCancel }: { initial: RuleForm; submitLabel: string; send(body: Record<string, unknown>): Promise<unknown>; onCancel(): void }) {
  const { api } = useEvaluators();
  const evaluators = useLoad((signal) => api.evaluators(undefined, signal), [api]);
  const [form, setForm] = useState(initial);
  const [problems, setProblems] = useState<Partial<Record<RuleField, string>>>({});
  const action = useAction();
  const set = (patch: Partial<RuleForm>) => setForm((f) => ({ ...f, ...patch }));
  const chosen = evaluators.data?.data.find((e) => e.id === form.evaluatorId);
  const variables = chosen?.variables ?? [];
  const ownMapping = (variable: string) => {
    const own = chosen?.variableMapping?.find((m) => m.variable === variable);
    return own?.source ? `evaluator's (${own.source}${own.jsonPath ? ` ${own.jsonPath}` : ""})` : "evaluator's default";
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = ruleRequest(form, variables);
    if (!checked.ok) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    await action.run(() => send(checked.value));
  };

  return (
    <form className="settings-form ev-form" aria-label="Rule" onSubmit={(e) => void submit(e)} noValidate>
      <div className="settings-row">
        <TextField label="Rule name" value={form.name} maxLength={NAME_MAX} error={problems.name} onChange={(e) => set({ name: e.target.value })} />
        <div className="field">
          <label className="field__label" htmlFor="rule-evaluator">
            Evaluator
          </label>
          <select id="rule-evaluator" className="field__input" value={form.evaluatorId} onChange={(e) => set({ evaluatorId: e.target.value, mapping: {} })}>
            <option value="">Choose…</option>
            {(evaluators.data?.data ?? []).map((e) => (
              <option key={e.id} value={e.id}>
                {e.name}
              </option>
            ))}
          </select>
          {problems.evaluatorId && <p className="field__error">{problems.evaluatorId}</p>}
        </div>
      </div>
      <FilterEditor rows={form.filter} onChange={(filter) => set({ filter })} error={problems.filter} />
      <div className="settings-row">
        <TextField label="Sampling (0 to 1)" inputMode="decimal" value={form.sampling} error={problems.sampling} onChange={(e) => set({ sampling: e.target.value })} />
        <TextField
          label="Delay (seconds)"
          inputMode="numeric"
          value={form.delaySeconds}
          hint={`Wait this long after an observation arrives, so its later updates are judged too (at most ${DELAY_MAX}).`}
          error={problems.delaySeconds}
          onChange={(e) => set({ delaySeconds: e.target.value })}
        />
        <label className="settings-check">
          <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Enabled
        </label>
      </div>
      {chosen && (
        <fieldset className="ev-output">
          <legend className="field__label">Variable mapping for this rule</legend>
          <MappingEditor
            variables={variables}
            rows={form.mapping}
            blankMeans={ownMapping}
            onChange={(variable, row) => set({ mapping: { ...form.mapping, [variable]: row } })}
          />
          {problems.mapping && <p className="field__error">{problems.mapping}</p>}
        </fieldset>
      )}
      <div className="settings-row">
        <Button type="submit" variant="primary" busy={action.busy}>
          {submitLabel}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
      {action.error !== undefined && <ErrorMessage error={action.error} />}
    </form>
  );
}
