// Pieces the evaluator and rule pages share: one-line summaries, status badges with their reason,
// a prompt with its {{variables}} highlighted, and the variable-mapping editor.

import { Fragment } from "react";

import { describeError, isApiError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";

import type { Evaluator, FilterCondition, ModelConfig, OutputDefinition, Rule } from "./api";
import { defaultSource, promptParts, SOURCES, type MappingRow } from "./forms";

export function outputSummary(output: OutputDefinition): string {
  if (output.dataType === "NUMERIC") {
    const range = output.minValue !== undefined || output.maxValue !== undefined ? ` ${output.minValue ?? "−∞"}…${output.maxValue ?? "∞"}` : "";
    return `numeric${range}`;
  }
  if (output.dataType === "CATEGORICAL") return `categorical: ${(output.categories ?? []).join(", ")}`;
  return "boolean";
}

export function modelSummary(model: ModelConfig | null): string {
  return model ? `${model.provider} / ${model.model}` : "project default";
}

export function filterSummary(filter: readonly FilterCondition[]): string {
  if (filter.length === 0) return "every new observation";
  return filter
    .map((c) => {
      const value = Array.isArray(c.value) ? c.value.join(", ") : c.value === "" || c.value === undefined ? "" : String(c.value);
      return [c.key ? `${c.column}.${c.key}` : c.column, c.operator, value].filter(Boolean).join(" ");
    })
    .join(" and ");
}

export function EvaluatorStatus({ evaluator }: { evaluator: Evaluator }) {
  if (evaluator.status === "paused") {
    return (
      <span className="ev-status ev-status--paused" title={evaluator.pausedMessage ?? undefined}>
        paused{evaluator.pausedReason || evaluator.pausedMessage ? `: ${evaluator.pausedMessage ?? evaluator.pausedReason}` : ""}
      </span>
    );
  }
  return <span className="ev-status ev-status--active">active</span>;
}

export function RuleStatus({ rule }: { rule: Rule }) {
  if (rule.status === "active" && rule.enabled) return <span className="ev-status ev-status--active">active</span>;
  if (rule.status === "active") return <span className="ev-status">disabled</span>;
  const reason = rule.inactiveReason;
  return (
    <span className={`ev-status ev-status--${rule.status === "paused" ? "paused" : "inactive"}`}>
      {rule.status}
      {reason ? `: ${reason}` : ""}
    </span>
  );
}

/** A prompt's text with each {{variable}} marked. */
export function Highlighted({ text }: { text: string }) {
  return (
    <>
      {promptParts(text).map((part, i) =>
        part.variable ? (
          <mark key={i} className="ev-var" data-variable={part.variable}>
            {part.text}
          </mark>
        ) : (
          <Fragment key={i}>{part.text}</Fragment>
        ),
      )}
    </>
  );
}

/** Where each variable's value comes from: a source of the observation and an optional JSONPath. */
export function MappingEditor({
  variables,
  rows,
  onChange,
  problems,
  blankMeans,
}: {
  variables: readonly string[];
  rows: Record<string, MappingRow>;
  onChange(variable: string, row: MappingRow): void;
  problems?: Record<string, string> | undefined;
  /** What an empty source means here (the default, or the evaluator's own mapping). */
  blankMeans: (variable: string) => string;
}) {
  if (variables.length === 0) return <p className="muted">The prompt has no {"{{variables}}"}.</p>;
  return (
    <table className="people ev-mapping" aria-label="Variable mapping">
      <thead>
        <tr>
          <th scope="col">Variable</th>
          <th scope="col">Source</th>
          <th scope="col">JSONPath (optional)</th>
        </tr>
      </thead>
      <tbody>
        {variables.map((variable) => {
          const row = rows[variable] ?? { source: "", jsonPath: "" };
          return (
            <tr key={variable}>
              <td>
                <mark className="ev-var">{`{{${variable}}}`}</mark>
              </td>
              <td>
                <select
                  className="field__input"
                  aria-label={`Source of ${variable}`}
                  value={row.source}
                  onChange={(e) => onChange(variable, { ...row, source: e.target.value as MappingRow["source"] })}
                >
                  <option value="">{blankMeans(variable)}</option>
                  {SOURCES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </td>
              <td>
                <input
                  className="field__input"
                  aria-label={`JSONPath of ${variable}`}
                  value={row.jsonPath}
                  placeholder="$.text"
                  onChange={(e) => onChange(variable, { ...row, jsonPath: e.target.value })}
                />
                {problems?.[variable] && <p className="field__error">{problems[variable]}</p>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The blank choice of an evaluator's own mapping: the source of the variable's name, if any. */
export function evaluatorDefault(variable: string): string {
  const source = defaultSource(variable);
  return source ? `default (${source})` : "none (left empty)";
}

/** A refusal as the server words it, with each problem it lists at its path. */
export function ErrorMessage({ error }: { error: unknown }) {
  const fields = isApiError(error) ? error.fields : [];
  return (
    <InlineError>
      {isApiError(error) && error.status === 501 ? <strong>Not available on this server: </strong> : null}
      {describeError(error)}
      {fields.length > 0 && (
        <ul className="ev-issues">
          {fields.map((f, i) => (
            <li key={i}>
              {f.field ? <code>{`${f.field}${f.path}`}</code> : null} {f.message}
            </li>
          ))}
        </ul>
      )}
    </InlineError>
  );
}

/** The foot of the evaluator and rule forms: submit, cancel, and what the server refused. */
export function FormActions({ submitLabel, busy, error, onCancel }: { submitLabel: string; busy: boolean; error: unknown; onCancel: () => void }) {
  return (
    <>
      <div className="settings-row">
        <Button type="submit" variant="primary" busy={busy}>
          {submitLabel}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
      {error !== undefined && <ErrorMessage error={error} />}
    </>
  );
}
