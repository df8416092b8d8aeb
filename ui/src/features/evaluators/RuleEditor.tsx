// The rule form: which evaluator runs, on which new observations (the filter builder over the
// columns the rules API takes, ruleFilter.ts), how many of them (sampling), how long after they
// arrive (delay), and where the evaluator's variables come from for this rule.

import { useState, type FormEvent } from "react";

import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { FilterBuilder } from "../observations/FilterBuilder";
import { useAction } from "../settings/useAction";
import { useEvaluators } from "./access";
import { FormActions, MappingEditor } from "./common";
import { DELAY_MAX, NAME_MAX, ruleRequest, type RuleField, type RuleForm } from "./forms";
import { RULE_COLUMNS, RULE_FILTERS_MAX } from "./ruleFilter";

function FilterField({ form, set, error }: { form: RuleForm; set(patch: Partial<RuleForm>): void; error?: string | undefined }) {
  const kept = form.keptFilter.length;
  return (
    <div className="field">
      <span className="field__label" id="rule-filter-label">
        Filter (all conditions must match)
      </span>
      <div className="filter-panel" role="group" aria-labelledby="rule-filter-label">
        <FilterBuilder columns={RULE_COLUMNS} filters={form.filter} onChange={(filter) => set({ filter })} max={RULE_FILTERS_MAX} emptyText="No conditions: every new observation is judged." />
      </div>
      {kept > 0 && (
        <p className="muted">
          {kept} stored condition{kept === 1 ? "" : "s"} the builder cannot show (an empty value) {kept === 1 ? "is" : "are"} kept as {kept === 1 ? "it is" : "they are"}.
        </p>
      )}
      {error && <p className="field__error">{error}</p>}
    </div>
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
      <FilterField form={form} set={set} error={problems.filter} />
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
      <FormActions submitLabel={submitLabel} busy={action.busy} error={action.error} onCancel={onCancel} />
    </form>
  );
}
