// The project's evaluators (how to score) and rules (what to score, with which evaluator), newest
// first. A rule's status says why it does not run: disabled, stopped by the write mode, or paused.

import type { ReactNode } from "react";
import { Link } from "react-router";

import { EmptyState } from "../../components/States";
import { projectPath } from "../../app/routes";
import { useEvaluators } from "./access";
import { filterSummary, RuleStatus, EvaluatorStatus, outputSummary, modelSummary } from "./common";
import { CursorList } from "./CursorList";
import { useCursorList } from "./useCursorList";

/** One of the overview's cards: a title, the "New …" link for people who write, and its list. */
function Card({ id, title, newPath, newLabel, children }: { id: string; title: string; newPath: string; newLabel: string; children: ReactNode }) {
  const { writer, href } = useEvaluators();
  return (
    <section className="ev-card" aria-labelledby={id}>
      <div className="ev-card__head">
        <h2 id={id}>{title}</h2>
        {writer && (
          <Link className="button button--primary button--md" to={href(newPath)}>
            {newLabel}
          </Link>
        )}
      </div>
      {children}
    </section>
  );
}

export function Overview() {
  const { project, api, href } = useEvaluators();
  const evaluators = useCursorList((cursor, signal) => api.evaluators(cursor, signal), [api]);
  const rules = useCursorList((cursor, signal) => api.rules(cursor, signal), [api]);
  const names = new Map((evaluators.result.data ?? []).map((e) => [e.id, e.name]));
  return (
    <div className="page ev">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{project.name}</p>
          <h1>Evaluators</h1>
          <p className="muted">
            LLM-as-a-judge evaluators score new observations that a rule selects; each score is named after its evaluator, with source EVAL. Judges call the
            project&apos;s <Link to={`${projectPath(project.id, "settings")}#llm-connections`}>LLM connections</Link>.
          </p>
        </div>
      </header>
      <Card id="ev-evaluators" title="Evaluators" newPath="new" newLabel="New evaluator">
        <CursorList
          list={evaluators}
          label="Evaluators"
          columns={["Name (score)", "Output", "Model", "Version", "Rules", "Status"]}
          loadingLabel="Loading evaluators…"
          empty={
            <EmptyState title="No evaluators yet">
              <p>An evaluator is a judge&apos;s prompt with {"{{variables}}"}, a model and the score it returns.</p>
            </EmptyState>
          }
          row={(e) => (
            <tr key={e.id}>
              <td>
                <Link to={href(encodeURIComponent(e.id))}>{e.name}</Link>
              </td>
              <td>{outputSummary(e.outputDefinition)}</td>
              <td>{modelSummary(e.modelConfig)}</td>
              <td>v{e.version}</td>
              <td>{e.evaluationRuleAssignments.length}</td>
              <td>
                <EvaluatorStatus evaluator={e} />
              </td>
            </tr>
          )}
        />
      </Card>
      <Card id="ev-rules" title="Rules" newPath="rules/new" newLabel="New rule">
        <CursorList
          list={rules}
          label="Evaluation rules"
          columns={["Rule", "Target", "Evaluator", "Filter", "Sampling", "Delay", "Status"]}
          loadingLabel="Loading rules…"
          empty={
            <EmptyState title="No rules yet">
              <p>A rule picks observations by a filter, samples them, and runs an evaluator on each.</p>
            </EmptyState>
          }
          row={(r) => (
            <tr key={r.id}>
              <td>
                <Link to={href(`rules/${encodeURIComponent(r.id)}`)}>{r.name}</Link>
              </td>
              <td>{r.target}</td>
              <td>{r.evaluatorAssignments.map((a) => names.get(a.evaluatorId) ?? a.evaluatorId).join(", ") || <span className="muted">none</span>}</td>
              <td className="ev-filter-cell">{filterSummary(r.filter)}</td>
              <td>{Math.round(r.sampling * 100)} %</td>
              <td>{r.delaySeconds ? `${r.delaySeconds} s` : "–"}</td>
              <td>
                <RuleStatus rule={r} />
              </td>
            </tr>
          )}
        />
      </Card>
    </div>
  );
}
