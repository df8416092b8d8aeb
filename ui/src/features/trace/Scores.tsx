// The scores shown on an observation (on the root, its trace's too), and the person's own: add one
// from a score config of the project (numeric within its range, a category, true/false, text),
// edit or delete theirs. The server stores a score asynchronously, so a change shows at once as
// "saving…" and the panel reloads the detail until the stored score says the same.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import type { NewScore, ObservationDetail, Score, ScoreConfig, TraceApi } from "../../api/trace";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";

export interface People {
  /** The signed-in person. */
  me: string;
  /** Names of the organization's members by id, when the person may see them. */
  names: ReadonlyMap<string, string>;
}

export function authorName(people: People, id: string | null | undefined): string {
  if (!id) return "API";
  if (id === people.me) return "You";
  return people.names.get(id) ?? "A teammate";
}

export function scoreText(score: Pick<Score, "dataType" | "value">): string {
  if (typeof score.value === "boolean") return score.value ? "True" : "False";
  if (score.value === null || score.value === undefined) return "—";
  if (typeof score.value === "number") return Number.isInteger(score.value) ? String(score.value) : score.value.toPrecision(4);
  return score.value;
}

/** The value a config's input holds, as sent: a number, or a label. */
export function sentValue(config: ScoreConfig, raw: string): number | string | null {
  switch (config.dataType) {
    case "NUMERIC": {
      const number = Number(raw);
      return raw.trim() === "" || !Number.isFinite(number) ? null : number;
    }
    case "BOOLEAN":
      return raw === "1" ? 1 : raw === "0" ? 0 : null;
    default:
      return raw.trim() === "" ? null : raw;
  }
}

function initialRaw(config: ScoreConfig | undefined, score?: Score): string {
  if (score) {
    if (typeof score.value === "boolean") return score.value ? "1" : "0";
    return score.value === null || score.value === undefined ? "" : String(score.value);
  }
  if (config?.dataType === "CATEGORICAL") return config.categories?.[0]?.label ?? "";
  if (config?.dataType === "BOOLEAN") return "1";
  return "";
}

export function ValueInput({ config, value, onChange, id }: { config: ScoreConfig; value: string; onChange(value: string): void; id: string }) {
  switch (config.dataType) {
    case "NUMERIC":
      return (
        <input
          id={id}
          className="field__input"
          type="number"
          step="any"
          required
          {...(config.minValue !== null && config.minValue !== undefined ? { min: config.minValue } : {})}
          {...(config.maxValue !== null && config.maxValue !== undefined ? { max: config.maxValue } : {})}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case "CATEGORICAL":
      return (
        <select id={id} className="field__input" value={value} onChange={(event) => onChange(event.target.value)}>
          {(config.categories ?? []).map((category) => (
            <option key={category.label} value={category.label}>
              {category.label} ({category.value})
            </option>
          ))}
        </select>
      );
    case "BOOLEAN":
      return (
        <select id={id} className="field__input" value={value} onChange={(event) => onChange(event.target.value)}>
          <option value="1">True</option>
          <option value="0">False</option>
        </select>
      );
    default:
      return <input id={id} className="field__input" type="text" required maxLength={500} value={value} onChange={(event) => onChange(event.target.value)} />;
  }
}

export function rangeHint(config: ScoreConfig): string | null {
  if (config.dataType !== "NUMERIC") return null;
  const { minValue: min, maxValue: max } = config;
  if (min !== null && min !== undefined && max !== null && max !== undefined) return `${min} to ${max}`;
  if (min !== null && min !== undefined) return `at least ${min}`;
  if (max !== null && max !== undefined) return `at most ${max}`;
  return null;
}

/** A change the server has accepted but the detail does not show yet. */
export type Pending =
  | { kind: "create"; score: Score }
  | { kind: "update"; id: string; value: Score["value"]; comment: string | null }
  | { kind: "delete"; id: string };

/** The scores as they will be once the pending changes are stored. */
export function withPending(scores: readonly Score[], pending: readonly Pending[]): (Score & { saving?: boolean })[] {
  let out: (Score & { saving?: boolean })[] = [...scores];
  for (const change of pending) {
    if (change.kind === "create" && !out.some((s) => s.id === change.score.id)) out = [{ ...change.score, saving: true }, ...out];
    if (change.kind === "update") out = out.map((s) => (s.id === change.id ? { ...s, value: change.value, comment: change.comment, saving: true } : s));
    if (change.kind === "delete") out = out.filter((s) => s.id !== change.id);
  }
  return out;
}

/** Whether the detail shows a pending change as stored. */
export function isStored(change: Pending, scores: readonly Score[]): boolean {
  const found = scores.find((s) => s.id === (change.kind === "create" ? change.score.id : change.id));
  switch (change.kind) {
    case "create":
      return found !== undefined;
    case "update":
      return found !== undefined && scoreText(found) === scoreText({ dataType: found.dataType, value: change.value }) && (found.comment ?? null) === change.comment;
    case "delete":
      return found === undefined;
  }
}

interface ScoresProps {
  api: TraceApi;
  detail: ObservationDetail;
  configs: readonly ScoreConfig[] | null;
  people: People;
  canWrite: boolean;
  pending: readonly Pending[];
  /** A change the server accepted: shown now, stored soon. */
  onPending(change: Pending): void;
}

export function Scores({ api, detail, configs, people, canWrite, pending, onPending }: ScoresProps) {
  const scores = withPending(detail.scores, pending);
  const usable = (configs ?? []).filter((c) => !c.isArchived);
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <section className="detail-section" aria-label="Scores">
      <h3 className="section-title">
        Scores {detail.isRoot && <span className="muted">(of the trace and this observation)</span>}
      </h3>
      {scores.length === 0 ? (
        <p className="muted">No scores yet.</p>
      ) : (
        <ul className="score-list">
          {scores.map((score) => {
            const config = configs?.find((c) => c.id === score.configId);
            const own = canWrite && score.authorUserId === people.me && !score.saving;
            if (editing === score.id && config) {
              return (
                <li key={score.id} className="score-list__item">
                  <ScoreForm
                    api={api}
                    detail={detail}
                    configs={[config]}
                    score={score}
                    onDone={(change) => {
                      setEditing(null);
                      if (change) onPending(change);
                    }}
                  />
                </li>
              );
            }
            return (
              <li key={score.id} className="score-list__item">
                <span className="score-chip">
                  <span className="score-chip__name">{score.name}</span>
                  <span className="score-chip__value">{scoreText(score)}</span>
                </span>
                <span className="muted score-list__meta">
                  {authorName(people, score.authorUserId)} · {score.source.toLowerCase()}
                  {score.subject?.kind === "trace" && detail.isRoot ? " · on the trace" : ""}
                  {score.saving ? " · saving…" : ""}
                </span>
                {score.comment && <p className="score-list__comment">{score.comment}</p>}
                {own && (
                  <span className="score-list__actions">
                    {config && (
                      <Button size="sm" variant="ghost" onClick={() => setEditing(score.id)} aria-label={`Edit score ${score.name}`}>
                        Edit
                      </Button>
                    )}
                    <DeleteButton
                      label={`Delete score ${score.name}`}
                      onDelete={async () => {
                        await api.deleteScore(score.id);
                        onPending({ kind: "delete", id: score.id });
                      }}
                    />
                  </span>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {canWrite &&
        (configs === null ? null : usable.length === 0 ? (
          <p className="muted">To add scores, create a score config in the project's settings.</p>
        ) : (
          <ScoreForm
            api={api}
            detail={detail}
            configs={usable}
            onDone={(change) => {
              if (change?.kind === "create") onPending({ ...change, score: { ...change.score, authorUserId: people.me } });
              else if (change) onPending(change);
            }}
          />
        ))}
    </section>
  );
}

/** Deleting takes a second click, so a slip of the mouse deletes nothing. */
export function DeleteButton({ label, onDelete }: { label: string; onDelete(): Promise<void> }) {
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <>
      <Button
        size="sm"
        variant={armed ? "danger" : "ghost"}
        busy={busy}
        aria-label={armed ? `Confirm: ${label}` : label}
        onBlur={() => setArmed(false)}
        onClick={async () => {
          if (!armed) {
            setArmed(true);
            return;
          }
          setBusy(true);
          setError(null);
          try {
            await onDelete();
          } catch (caught) {
            setError(caught);
            setBusy(false);
            setArmed(false);
          }
        }}
      >
        {armed ? "Confirm delete" : "Delete"}
      </Button>
      {error !== null && <InlineError>{describeError(error)}</InlineError>}
    </>
  );
}

interface ScoreFormProps {
  api: TraceApi;
  detail: ObservationDetail;
  configs: readonly ScoreConfig[];
  /** Edits this score (its config is `configs[0]`); adds one otherwise. */
  score?: Score;
  onDone(change: Pending | null): void;
}

function ScoreForm({ api, detail, configs, score, onDone }: ScoreFormProps) {
  const [configId, setConfigId] = useState(score?.configId ?? configs[0]?.id ?? "");
  const config = configs.find((c) => c.id === configId) ?? configs[0];
  const [raw, setRaw] = useState(() => initialRaw(config, score));
  const [comment, setComment] = useState(score?.comment ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  if (!config) return null;
  const prefix = score ? `edit-${score.id}` : `new-score-${detail.id}`;
  const hint = rangeHint(config);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = sentValue(config, raw);
    if (value === null) {
      setError(new Error("Enter a value"));
      return;
    }
    setBusy(true);
    setError(null);
    const text = comment.trim() === "" ? null : comment.trim();
    try {
      if (score) {
        await api.updateScore(score.id, value, text);
        const stored = config.dataType === "BOOLEAN" ? value === 1 : value;
        onDone({ kind: "update", id: score.id, value: stored, comment: text });
      } else {
        const request: NewScore = { traceId: detail.traceId, configId: config.id, value, environment: detail.environment };
        if (!detail.isRoot) request.observationId = detail.id;
        if (text) request.comment = text;
        const { id } = await api.createScore(request);
        const stored = config.dataType === "BOOLEAN" ? value === 1 : value;
        onDone({
          kind: "create",
          score: { id, name: config.name, source: "ANNOTATION", timestamp: new Date().toISOString(), dataType: config.dataType, value: stored, comment: text, configId: config.id, authorUserId: null },
        });
        setRaw(initialRaw(config));
        setComment("");
      }
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="score-form" onSubmit={(event) => void submit(event)} aria-label={score ? `Edit score ${score.name}` : "Add a score"}>
      {!score && (
        <label className="field">
          <span className="field__label">Score config</span>
          <select
            className="field__input"
            value={config.id}
            onChange={(event) => {
              setConfigId(event.target.value);
              setRaw(initialRaw(configs.find((c) => c.id === event.target.value)));
            }}
          >
            {configs.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="field">
        <label className="field__label" htmlFor={`${prefix}-value`}>
          {score ? `Value of ${score.name}` : "Value"}
          {hint && <span className="muted"> ({hint})</span>}
        </label>
        <ValueInput id={`${prefix}-value`} config={config} value={raw} onChange={setRaw} />
      </div>
      <div className="field">
        <label className="field__label" htmlFor={`${prefix}-comment`}>
          Score comment
        </label>
        <input id={`${prefix}-comment`} className="field__input" type="text" maxLength={5000} value={comment} onChange={(event) => setComment(event.target.value)} />
      </div>
      <div className="score-form__actions">
        <Button type="submit" variant="primary" size="sm" busy={busy}>
          {score ? "Save score" : "Add score"}
        </Button>
        {score && (
          <Button size="sm" variant="ghost" onClick={() => onDone(null)}>
            Cancel
          </Button>
        )}
      </div>
      {error !== null && <InlineError>{describeError(error)}</InlineError>}
    </form>
  );
}
