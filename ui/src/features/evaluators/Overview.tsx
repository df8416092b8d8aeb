// The project's evaluators (how to score) and rules (what to score, with which evaluator), newest
// first. A rule's status says why it does not run: disabled, stopped by the write mode, or paused.

import { Link } from "react-router";

import { Button } from "../../components/Button";
import { LoadedView } from "../../components/LoadedView";
import { EmptyState } from "../../components/States";
import { projectPath } from "../../app/routes";
import type { Evaluator, Rule } from "./api";
import { useEvaluators } from "./access";
import { filterSummary, RuleStatus, EvaluatorStatus, outputSummary, modelSummary } from "./common";
import { useCursorList } from "./useCursorList";

function EvaluatorsTable({ evaluators }: { evaluators: Evaluator[] }) {
  const { href } = useEvaluators();
  return (
    <table className="people" aria-label="Evaluators">
      <thead>
        <tr>
          <th scope="col">Name (score)</th>
          <th scope="col">Output</th>
          <th scope="col">Model</th>
          <th scope="col">Version</th>
          <th scope="col">Rules</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {evaluators.map((e) => (
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
        ))}
      </tbody>
    </table>
  );
}

function RulesTable({ rules, names }: { rules: Rule[]; names: Map<string, string> }) {
  const { href } = useEvaluators();
  return (
    <table className="people" aria-label="Evaluation rules">
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Target</th>
          <th scope="col">Evaluator</th>
          <th scope="col">Filter</th>
          <th scope="col">Sampling</th>
          <th scope="col">Delay</th>
          <th scope="col">Status</th>
        </tr>
      </thead>
      <tbody>
        {rules.map((r) => (
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
        ))}
      </tbody>
    </table>
  );
}

export function Overview() {
  const { project, api, writer, href } = useEvaluators();
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
      <section className="ev-card" aria-labelledby="ev-evaluators">
        <div className="ev-card__head">
          <h2 id="ev-evaluators">Evaluators</h2>
          {writer && (
            <Link className="button button--primary button--md" to={href("new")}>
              New evaluator
            </Link>
          )}
        </div>
        <LoadedView result={evaluators.result} loadingLabel="Loading evaluators…">
          {(list) =>
            list.length === 0 ? (
              <EmptyState title="No evaluators yet">
                <p>An evaluator is a judge&apos;s prompt with {"{{variables}}"}, a model and the score it returns.</p>
              </EmptyState>
            ) : (
              <div className="settings-scroll">
                <EvaluatorsTable evaluators={list} />
              </div>
            )
          }
        </LoadedView>
        {evaluators.more && <Button onClick={evaluators.loadMore}>Show more evaluators</Button>}
      </section>
      <section className="ev-card" aria-labelledby="ev-rules">
        <div className="ev-card__head">
          <h2 id="ev-rules">Rules</h2>
          {writer && (
            <Link className="button button--primary button--md" to={href("rules/new")}>
              New rule
            </Link>
          )}
        </div>
        <LoadedView result={rules.result} loadingLabel="Loading rules…">
          {(list) =>
            list.length === 0 ? (
              <EmptyState title="No rules yet">
                <p>A rule picks observations by a filter, samples them, and runs an evaluator on each.</p>
              </EmptyState>
            ) : (
              <div className="settings-scroll">
                <RulesTable rules={list} names={names} />
              </div>
            )
          }
        </LoadedView>
        {rules.more && <Button onClick={rules.loadMore}>Show more rules</Button>}
      </section>
    </div>
  );
}
