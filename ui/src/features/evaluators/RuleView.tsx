// One rule: what it judges (filter, sampling, delay, evaluator) and its status with the reason it
// does not run; editing (observation rules; the v3 trace and dataset rules can only be enabled,
// disabled or deleted, as the SDK documents), a run over a time range, and its executions.

import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Button } from "../../components/Button";
import { LoadedView } from "../../components/LoadedView";
import { useLoad } from "../../components/useLoad";
import { useAction } from "../settings/useAction";
import { useEvaluators } from "./access";
import type { Rule } from "./api";
import { ErrorMessage, filterSummary, RuleStatus } from "./common";
import { EMPTY_RULE, ruleForm } from "./forms";
import { ItemHeader, NewItemPage } from "./ItemPage";
import { Executions, RunPanel } from "./RuleActivity";
import { RuleEditor } from "./RuleEditor";

export function NewRule() {
  const { api, href } = useEvaluators();
  const navigate = useNavigate();
  return (
    <NewItemPage kind="rule">
      <RuleEditor
        initial={EMPTY_RULE}
        submitLabel="Create rule"
        send={async (body) => {
          const created = await api.createRule(body);
          navigate(href(`rules/${encodeURIComponent(created.id)}`));
        }}
        onCancel={() => navigate(href())}
      />
    </NewItemPage>
  );
}

function Facts({ rule }: { rule: Rule }) {
  const { api, href } = useEvaluators();
  const evaluators = useLoad((signal) => api.evaluators(undefined, signal), [api]);
  const name = (id: string) => evaluators.data?.data.find((e) => e.id === id)?.name ?? id;
  return (
    <dl className="ev-facts">
      <dt>Target</dt>
      <dd>{rule.target}</dd>
      <dt>Evaluator</dt>
      <dd>
        {rule.evaluatorAssignments.map((a) => (
          <Link key={a.evaluatorId} to={href(encodeURIComponent(a.evaluatorId))}>
            {name(a.evaluatorId)}
          </Link>
        ))}
      </dd>
      <dt>Filter</dt>
      <dd>{filterSummary(rule.filter)}</dd>
      <dt>Sampling</dt>
      <dd>{Math.round(rule.sampling * 100)} %</dd>
      <dt>Delay</dt>
      <dd>{rule.delaySeconds} s</dd>
      <dt>Status</dt>
      <dd>
        <RuleStatus rule={rule} />
      </dd>
    </dl>
  );
}

export function RuleView() {
  const { ruleId = "" } = useParams();
  const { api, writer } = useEvaluators();
  const loaded = useLoad((signal) => api.rule(ruleId, signal), [api, ruleId]);
  const [editing, setEditing] = useState(false);
  const toggle = useAction();
  return (
    <div className="page ev">
      <LoadedView result={loaded} loadingLabel="Loading the rule…">
        {(rule) => (
          <>
            <ItemHeader
              kind="rule"
              title={rule.name}
              acting={writer && !editing}
              actions={
                <>
                  {rule.target === "observation" && (
                    <Button variant="primary" onClick={() => setEditing(true)}>
                      Edit
                    </Button>
                  )}
                  <Button
                    busy={toggle.busy}
                    onClick={() =>
                      void toggle.run(() => api.updateRule(rule.id, { enabled: !rule.enabled })).then((updated) => {
                        if (updated) loaded.set(updated);
                      })
                    }
                  >
                    {rule.enabled ? "Disable" : "Enable"}
                  </Button>
                </>
              }
              remove={() => api.deleteRule(rule.id)}
              consequence="Its pending executions are cancelled; the scores it wrote stay."
            />
            {toggle.error !== undefined && <ErrorMessage error={toggle.error} />}
            <section className="ev-card" aria-label="Rule">
              {editing ? (
                <RuleEditor
                  initial={ruleForm(rule)}
                  submitLabel="Save"
                  send={async (body) => {
                    const { target: _target, ...patch } = body;
                    loaded.set(await api.updateRule(rule.id, patch));
                    setEditing(false);
                  }}
                  onCancel={() => setEditing(false)}
                />
              ) : (
                <Facts rule={rule} />
              )}
            </section>
            <section className="ev-card" aria-labelledby="rule-run">
              <h2 id="rule-run">Run over existing data</h2>
              <RunPanel rule={rule} writer={writer} />
            </section>
            <section className="ev-card" aria-labelledby="rule-executions">
              <h2 id="rule-executions">Executions</h2>
              <Executions rule={rule} />
            </section>
          </>
        )}
      </LoadedView>
    </div>
  );
}
