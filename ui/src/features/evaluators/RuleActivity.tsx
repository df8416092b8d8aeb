// What a rule did: a run over a time range of existing observations, with its progress polled while
// the page is visible, and the rule's executions newest first (pending, running, completed, error
// with the provider's message), each linked to the judged observation and to the judge's own trace.

import { useState } from "react";
import { Link } from "react-router";

import { Button } from "../../components/Button";
import { TextField } from "../../components/TextField";
import { formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { usePolling } from "../migrations/usePolling";
import { useAction } from "../settings/useAction";
import { useEvaluators } from "./access";
import type { ExecutionStatus, Rule, Run } from "./api";
import { ErrorMessage } from "./common";
import { CursorList } from "./CursorList";
import { localInput, runRange } from "./forms";
import { useCursorList } from "./useCursorList";

const POLL_MS = 1000;

function RunProgress({ rule, started }: { rule: Rule; started: Run }) {
  const { api } = useEvaluators();
  const [run, setRun] = useState(started);
  const finished = run.status === "completed" || run.status === "failed";
  usePolling(() => {
    if (finished) return;
    void api.run(rule.id, run.id).then(setRun, () => undefined);
  }, POLL_MS);
  const { pending, running, completed, error } = run.executions;
  return (
    <div className="ev-run" role="status" aria-label="Run progress">
      <progress max={1} value={run.progress} aria-label="Run progress bar" />
      <p>
        <strong>{run.status}</strong> · {Math.round(run.progress * 100)} % · scanned {run.scanned}
        {run.total !== null ? ` of ${run.total}` : ""} observations · executions: {pending} pending, {running} running, {completed} completed, {error} error
      </p>
      {run.error && <p className="field__error">{run.error}</p>}
    </div>
  );
}

export function RunPanel({ rule, writer }: { rule: Rule; writer: boolean }) {
  const { api } = useEvaluators();
  const now = Date.now();
  const [from, setFrom] = useState(localInput(new Date(now - 24 * 3600_000)));
  const [to, setTo] = useState(localInput(new Date(now + 60_000)));
  const [problem, setProblem] = useState<string | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const action = useAction();
  if (rule.target !== "observation") return <p className="muted">Only observation rules run over a time range.</p>;
  const start = async () => {
    const range = runRange(from, to);
    if (typeof range === "string") {
      setProblem(range);
      return;
    }
    setProblem(null);
    const started = await action.run(() => api.startRun(rule.id, range.from, range.to));
    if (started) setRun(started);
  };
  return (
    <div className="settings-form">
      <p className="muted">Judges the observations that started in the range and match the filter (those this rule judged already are skipped).</p>
      {writer && (
        <div className="settings-row">
          <TextField label="From" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
          <TextField label="To" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
          <Button variant="primary" busy={action.busy} onClick={() => void start()}>
            Run over this range
          </Button>
        </div>
      )}
      {problem && <p className="field__error">{problem}</p>}
      {action.error !== undefined && <ErrorMessage error={action.error} />}
      {run && <RunProgress key={run.id} rule={rule} started={run} />}
    </div>
  );
}

const STATUSES: readonly ExecutionStatus[] = ["pending", "running", "completed", "error", "cancelled"];

export function Executions({ rule }: { rule: Rule }) {
  const { api, traceHref } = useEvaluators();
  const names = useLoad((signal) => api.evaluators(undefined, signal), [api]);
  const [round, setRound] = useState(0);
  const list = useCursorList((cursor, signal) => api.executions(rule.id, cursor, signal), [api, rule.id, round]);
  // New executions and their outcomes show up while the page is looked at (only the first page
  // reloads; a person who paged further keeps what they read).
  usePolling(() => {
    if (!list.more) setRound((r) => r + 1);
  }, 2 * POLL_MS);
  const evaluatorName = (id: string | null) => names.data?.data.find((e) => e.id === id)?.name ?? id ?? "–";
  return (
    <CursorList
      list={list}
      label="Executions"
      columns={["Created", "Status", "Evaluator", "Scored", "Judge", "Attempts"]}
      loadingLabel="Loading executions…"
      empty={<p className="muted">No execution yet: new matching observations are judged as they arrive (after the rule&apos;s delay).</p>}
      row={(x) => (
        <tr key={x.id} data-status={x.status}>
          <td>{formatDateTime(x.createdAt)}</td>
          <td>
            <span className={`ev-status ev-status--${STATUSES.includes(x.status) ? x.status : "inactive"}`}>{x.status}</span>
            {x.runId && <span className="muted"> · run</span>}
            {x.error && <p className="field__error ev-exec-error">{x.error}</p>}
          </td>
          <td>{evaluatorName(x.evaluatorId)}</td>
          <td>
            <Link to={traceHref(x.traceId, x.objectKind === "observation" ? x.observationId : undefined)}>
              {x.objectKind === "observation" ? `observation ${x.observationId.slice(0, 8)}` : `trace ${x.traceId.slice(0, 8)}`}
            </Link>
          </td>
          <td>{x.executionTraceId ? <Link to={traceHref(x.executionTraceId)}>judge trace</Link> : <span className="muted">–</span>}</td>
          <td>{x.attempts}</td>
        </tr>
      )}
    />
  );
}
