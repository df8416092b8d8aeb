// One observation in detail: what it is and how long it took, its input and output, scores and
// comments, metadata, usage and cost by key, model parameters and the rest of its attributes.

import { useMemo, type ReactNode } from "react";

import type { DataModel, ObservationDetail, ScoreConfig, TraceApi } from "../../api/trace";
import { Comments } from "./Comments";
import { localDoc } from "../../components/value/jsonDoc";
import { JsonTree } from "../../components/value/JsonTree";
import { formatCost, formatDuration } from "./preview";
import { Scores, type Pending, type People } from "./Scores";
import { typeLabel } from "./TraceTreeView";
import { MetadataView, ValueView } from "./ValueView";
import "./detail.css";

/** What the public page reads values with: no scores or comments there. */
export type ReadOnlyTraceApi = Pick<TraceApi, "valueUrl">;

interface DetailProps {
  /** Scores and comments are shown with the signed-in API only. */
  api: TraceApi | ReadOnlyTraceApi;
  detail: ObservationDetail;
  model: DataModel;
  configs: readonly ScoreConfig[] | null;
  people: People;
  canWrite: boolean;
  pending: readonly Pending[];
  onPending(change: Pending): void;
  /** The duration the tree knows, for a node stored without an end (the v3 trace node). */
  durationMicros?: number | null;
}

function micros(iso: string | null): number | null {
  if (!iso) return null;
  const match = /\.(\d+)Z$/.exec(iso);
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  // Date.parse keeps milliseconds; the server sends microseconds.
  const fraction = match ? Number(((match[1] as string) + "000000").slice(3, 6)) : 0;
  return ms * 1000 + fraction;
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="facts__item">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function ObservationDetailView({ api, detail, model, configs, people, canWrite, pending, onPending, durationMicros }: DetailProps) {
  const start = micros(detail.startTime);
  const end = micros(detail.endTime);
  const duration = start !== null && end !== null ? end - start : (durationMicros ?? null);
  const firstToken = start !== null ? micros(detail.completionStartTime) : null;
  const usageKeys = Object.keys(detail.usageDetails);
  const costKeys = Object.keys(detail.costDetails);
  const parameters = useMemo(() => {
    const value = detail.modelParameters;
    const empty = value === null || (typeof value === "object" && Object.keys(value as object).length === 0);
    return empty ? null : localDoc(value);
  }, [detail.modelParameters]);
  const url = (field: "input" | "output" | "metadata") => api.valueUrl(detail.traceId, detail.id, model, field);

  return (
    <article className="observation-detail" aria-label={`Observation ${detail.name}`}>
      <header className="observation-detail__header">
        <div className="observation-detail__title">
          <span className={`type-badge type-badge--${detail.type.toLowerCase()}`}>{typeLabel(detail.type)}</span>
          <h2>{detail.name || "(unnamed)"}</h2>
          {detail.level !== "DEFAULT" && <span className={`level level--${detail.level.toLowerCase()}`}>{detail.level}</span>}
        </div>
        <dl className="facts">
          <Field label="Started">{new Date(detail.startTime).toLocaleString()}</Field>
          <Field label="Latency">{duration !== null ? formatDuration(duration) : "—"}</Field>
          {firstToken !== null && start !== null && <Field label="Time to first token">{formatDuration(firstToken - start)}</Field>}
          {detail.model && <Field label="Model">{detail.model}</Field>}
          {detail.usageDetails.total !== undefined && <Field label="Tokens">{detail.usageDetails.total.toLocaleString()}</Field>}
          {detail.totalCost !== null && <Field label="Cost">{formatCost(detail.totalCost)}</Field>}
          <Field label="Id">
            <span className="mono">{detail.id}</span>
          </Field>
        </dl>
        {detail.statusMessage && <p className={`status-message status-message--${detail.level.toLowerCase()}`}>{detail.statusMessage}</p>}
      </header>

      <ValueView key={`${detail.id}-input`} label="Input" preview={detail.input} fullUrl={url("input")} />
      <ValueView key={`${detail.id}-output`} label="Output" preview={detail.output} fullUrl={url("output")} />

      {"createScore" in api && (
        <>
          <Scores api={api} detail={detail} configs={configs} people={people} canWrite={canWrite} pending={pending} onPending={onPending} />
          <Comments api={api} detail={detail} people={people} canWrite={canWrite} />
        </>
      )}

      <MetadataView key={`${detail.id}-metadata`} metadata={detail.metadata} fullUrl={url("metadata")} />

      {(usageKeys.length > 0 || costKeys.length > 0) && (
        <section className="detail-section" aria-label="Usage and cost">
          <h3 className="section-title">Usage and cost</h3>
          <table className="kv-table">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Units</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {Array.from(new Set([...usageKeys, ...costKeys])).map((key) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{detail.usageDetails[key]?.toLocaleString() ?? "—"}</td>
                  <td>{detail.costDetails[key] !== undefined ? formatCost(Number(detail.costDetails[key])) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      {parameters && (
        <section className="detail-section" aria-label="Model parameters">
          <h3 className="section-title">Model parameters</h3>
          <JsonTree doc={parameters} label="Model parameters" />
        </section>
      )}

      <section className="detail-section" aria-label="Attributes">
        <h3 className="section-title">Attributes</h3>
        <dl className="facts facts--grid">
          <Field label="Trace">
            <span className="mono">{detail.traceId}</span>
          </Field>
          {detail.parentObservationId && (
            <Field label="Parent">
              <span className="mono">{detail.parentObservationId}</span>
            </Field>
          )}
          <Field label="Environment">{detail.environment}</Field>
          {detail.endTime && <Field label="Ended">{new Date(detail.endTime).toLocaleString()}</Field>}
          {detail.version && <Field label="Version">{detail.version}</Field>}
          {detail.release && <Field label="Release">{detail.release}</Field>}
          {detail.userId && <Field label="User">{detail.userId}</Field>}
          {detail.sessionId && <Field label="Session">{detail.sessionId}</Field>}
          {detail.promptName && (
            <Field label="Prompt">
              {detail.promptName}
              {detail.promptVersion !== null && ` v${detail.promptVersion}`}
            </Field>
          )}
          {detail.tags.length > 0 && <Field label="Tags">{detail.tags.join(", ")}</Field>}
        </dl>
      </section>
    </article>
  );
}
