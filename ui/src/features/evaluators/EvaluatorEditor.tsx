// The LLM-as-a-judge form: the chat prompt (its {{variables}} highlighted as typed), the model from
// the project's LLM connections (or the project's default evaluation model), the score's output
// type, and where each variable's value comes from. Used to create an evaluator and to save a new
// version of one; the server's refusal is shown as it says it.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { useAction } from "../settings/useAction";
import { useEvaluators } from "./access";
import type { ChatMessage, DataType } from "./api";
import { evaluatorDefault, FormActions, Highlighted, MappingEditor } from "./common";
import { DATA_TYPES, evaluatorRequest, NAME_MAX, promptVariables, ROLES, type EvaluatorField, type EvaluatorForm } from "./forms";

function ModelPicker({ value, onChange, error }: { value: string; onChange(value: string): void; error?: string | undefined }) {
  const { api } = useEvaluators();
  const connections = useLoad((signal) => api.connections(signal), [api]);
  const options = (connections.data?.data ?? []).flatMap((c) => c.customModels.map((m) => [`${c.provider}|${m}`, `${c.provider} / ${m}`] as const));
  const known = value === "" || options.some(([v]) => v === value);
  return (
    <div className="field">
      <label className="field__label" htmlFor="ev-model">
        Model
      </label>
      <select id="ev-model" className="field__input" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">The project&apos;s default evaluation model</option>
        {options.map(([v, label]) => (
          <option key={v} value={v}>
            {label}
          </option>
        ))}
        {!known && <option value={value}>{value.replace("|", " / ")} (connection missing)</option>}
      </select>
      {connections.data && connections.data.data.length === 0 && (
        <p className="field__hint">No LLM connection yet: add one in the project settings, or judges cannot run.</p>
      )}
      {connections.error !== undefined && <p className="field__error">{describeError(connections.error)}</p>}
      {error && <p className="field__error">{error}</p>}
    </div>
  );
}

function MessagesEditor({ messages, onChange, error }: { messages: ChatMessage[]; onChange(messages: ChatMessage[]): void; error?: string | undefined }) {
  const set = (index: number, patch: Partial<ChatMessage>) => onChange(messages.map((m, i) => (i === index ? { ...m, ...patch } : m)));
  return (
    <fieldset className="ev-messages">
      <legend className="field__label">Prompt</legend>
      {messages.map((message, index) => (
        <div className="ev-message" key={index}>
          <div className="settings-row">
            <select className="field__input ev-role" aria-label={`Role of message ${index + 1}`} value={message.role} onChange={(e) => set(index, { role: e.target.value as ChatMessage["role"] })}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {messages.length > 1 && (
              <Button size="sm" variant="ghost" onClick={() => onChange(messages.filter((_, i) => i !== index))} aria-label={`Remove message ${index + 1}`}>
                Remove
              </Button>
            )}
          </div>
          <textarea className="field__input ev-prompt" aria-label={`Message ${index + 1}`} rows={4} value={message.content} onChange={(e) => set(index, { content: e.target.value })} />
          <p className="ev-preview" aria-label={`Preview of message ${index + 1}`}>
            <Highlighted text={message.content} />
          </p>
        </div>
      ))}
      <div>
        <Button size="sm" onClick={() => onChange([...messages, { role: "user", content: "" }])}>
          Add a message
        </Button>
      </div>
      {error && <p className="field__error">{error}</p>}
    </fieldset>
  );
}

function JudgeFields({
  form,
  set,
  problems,
  mappingProblems,
}: {
  form: EvaluatorForm;
  set(patch: Partial<EvaluatorForm>): void;
  problems: Partial<Record<EvaluatorField, string>>;
  mappingProblems: Record<string, string> | undefined;
}) {
  const variables = promptVariables(form.messages);
  return (
    <>
      <MessagesEditor messages={form.messages} onChange={(messages) => set({ messages })} error={problems.messages} />
      <p className="muted">
        Variables: {variables.length ? variables.map((v) => <mark key={v} className="ev-var">{`{{${v}}}`}</mark>) : "none"}
      </p>
      <ModelPicker value={form.model} onChange={(model) => set({ model })} error={problems.model} />
      <fieldset className="ev-output">
        <legend className="field__label">Score</legend>
        <div className="settings-row">
          <div className="field">
            <label className="field__label" htmlFor="ev-type">
              Output type
            </label>
            <select id="ev-type" className="field__input" value={form.dataType} onChange={(e) => set({ dataType: e.target.value as DataType })}>
              {DATA_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t.toLowerCase()}
                </option>
              ))}
            </select>
          </div>
          {form.dataType === "NUMERIC" && (
            <>
              <TextField label="Minimum" inputMode="decimal" value={form.minValue} error={problems.range} onChange={(e) => set({ minValue: e.target.value })} />
              <TextField label="Maximum" inputMode="decimal" value={form.maxValue} onChange={(e) => set({ maxValue: e.target.value })} />
            </>
          )}
        </div>
        {form.dataType === "CATEGORICAL" && (
          <div className="field">
            <label className="field__label" htmlFor="ev-categories">
              Categories (one per line)
            </label>
            <textarea id="ev-categories" className="field__input" rows={3} value={form.categories} onChange={(e) => set({ categories: e.target.value })} />
            {problems.categories && <p className="field__error">{problems.categories}</p>}
            <label className="settings-check">
              <input type="checkbox" checked={form.allowMultiple} onChange={(e) => set({ allowMultiple: e.target.checked })} /> The judge may pick several
            </label>
          </div>
        )}
        <div className="settings-row">
          <TextField label="Reasoning instructions" value={form.reasoningInstructions} placeholder="Explain step by step" onChange={(e) => set({ reasoningInstructions: e.target.value })} />
          <TextField label="Score instructions" value={form.valueInstructions} placeholder="1 when fully correct" onChange={(e) => set({ valueInstructions: e.target.value })} />
        </div>
      </fieldset>
      <fieldset className="ev-output">
        <legend className="field__label">Variable mapping (defaults for rules)</legend>
        <MappingEditor
          variables={variables}
          rows={form.mapping}
          problems={mappingProblems}
          blankMeans={evaluatorDefault}
          onChange={(variable, row) => set({ mapping: { ...form.mapping, [variable]: row } })}
        />
        {problems.mapping && <p className="field__error">{problems.mapping}</p>}
      </fieldset>
    </>
  );
}

function CodeFields({ form, set, chooseKind, problem }: { form: EvaluatorForm; set(patch: Partial<EvaluatorForm>): void; chooseKind: boolean; problem?: string | undefined }) {
  return (
    <>
      {chooseKind && (
        <div className="settings-row">
          <div className="field">
            <label className="field__label" htmlFor="ev-kind">
              Kind
            </label>
            <select id="ev-kind" className="field__input" value={form.kind} onChange={(e) => set({ kind: e.target.value as EvaluatorForm["kind"] })}>
              <option value="llm_as_judge">LLM-as-a-judge</option>
              <option value="code">Code (Python, TypeScript)</option>
            </select>
          </div>
          {form.kind === "code" && (
            <div className="field">
              <label className="field__label" htmlFor="ev-language">
                Language
              </label>
              <select id="ev-language" className="field__input" value={form.language} onChange={(e) => set({ language: e.target.value as EvaluatorForm["language"] })}>
                <option value="PYTHON">Python</option>
                <option value="TYPESCRIPT">TypeScript</option>
              </select>
            </div>
          )}
        </div>
      )}
      {form.kind === "code" && (
        <div className="field">
          <label className="field__label" htmlFor="ev-code">
            Code
          </label>
          <textarea id="ev-code" className="field__input ev-prompt" rows={8} value={form.code} onChange={(e) => set({ code: e.target.value })} />
          {problem && <p className="field__error">{problem}</p>}
        </div>
      )}
    </>
  );
}

interface EditorProps {
  initial: EvaluatorForm;
  submitLabel: string;
  /** A new evaluator may be a code one; an evaluator's kind never changes. */
  chooseKind?: boolean;
  send(body: Record<string, unknown>): Promise<unknown>;
  onCancel(): void;
}

export function EvaluatorEditor({ initial, submitLabel, chooseKind = false, send, onCancel }: EditorProps) {
  const [form, setForm] = useState(initial);
  const [problems, setProblems] = useState<Partial<Record<EvaluatorField, string>>>({});
  const [mappingProblems, setMappingProblems] = useState<Record<string, string> | undefined>(undefined);
  const action = useAction();
  const set = (patch: Partial<EvaluatorForm>) => setForm((f) => ({ ...f, ...patch }));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = evaluatorRequest(form);
    if (!checked.ok) {
      setProblems(checked.problems);
      setMappingProblems(checked.mappingProblems);
      return;
    }
    setProblems({});
    setMappingProblems(undefined);
    await action.run(() => send(checked.value));
  };

  return (
    <form className="settings-form ev-form" aria-label="Evaluator" onSubmit={(e) => void submit(e)} noValidate>
      <div className="settings-row">
        <TextField label="Name" hint="The scores it writes are named after it." value={form.name} maxLength={NAME_MAX} error={problems.name} onChange={(e) => set({ name: e.target.value })} />
        <TextField label="Description" value={form.description} onChange={(e) => set({ description: e.target.value })} />
      </div>
      <CodeFields form={form} set={set} chooseKind={chooseKind} problem={problems.messages} />
      {form.kind === "llm_as_judge" && <JudgeFields form={form} set={set} problems={problems} mappingProblems={mappingProblems} />}
      <FormActions submitLabel={submitLabel} busy={action.busy} error={action.error} onCancel={onCancel} />
    </form>
  );
}
