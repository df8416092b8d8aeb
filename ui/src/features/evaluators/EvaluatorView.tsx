// One evaluator: its newest definition (prompt with {{variables}} marked, model, output), its
// versions newest first, the rules that run it; editing saves a new version when the definition
// changes (a name or description change does not), deleting keeps the scores it wrote.

import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { Button } from "../../components/Button";
import { LoadedView } from "../../components/LoadedView";
import { formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { useEvaluators } from "./access";
import type { Evaluator, EvaluatorVersion } from "./api";
import { EvaluatorStatus, Highlighted, modelSummary, outputSummary } from "./common";
import { EvaluatorEditor } from "./EvaluatorEditor";
import { EMPTY_EVALUATOR, evaluatorForm } from "./forms";
import { ItemHeader, NewItemPage } from "./ItemPage";

export function NewEvaluator() {
  const { api, href } = useEvaluators();
  const navigate = useNavigate();
  return (
    <NewItemPage kind="evaluator">
      <EvaluatorEditor
        initial={EMPTY_EVALUATOR}
        chooseKind
        submitLabel="Create evaluator"
        send={async (body) => {
          const created = await api.createEvaluator(body);
          navigate(href(encodeURIComponent(created.id)));
        }}
        onCancel={() => navigate(href())}
      />
    </NewItemPage>
  );
}

/** The PATCH body: only the metadata when the definition is unchanged, so no version is added. */
function patchOf(current: Evaluator, body: Record<string, unknown>): Record<string, unknown> {
  const definition = (e: Record<string, unknown>) => JSON.stringify([e.prompt, e.modelConfig ?? null, e.variableMapping ?? [], e.outputDefinition]);
  const same = definition(body) === definition(current as unknown as Record<string, unknown>);
  return same ? { name: body.name, description: body.description ?? null } : { ...body, description: body.description ?? null };
}

function Definition({ definition }: { definition: Pick<EvaluatorVersion, "prompt" | "modelConfig" | "outputDefinition" | "variableMapping"> }) {
  return (
    <div className="ev-definition">
      <ol className="ev-chat" aria-label="Judge prompt">
        {definition.prompt.map((m, i) => (
          <li key={i}>
            <span className="ev-chat__role">{m.role}</span>
            <p className="ev-preview">
              <Highlighted text={m.content} />
            </p>
          </li>
        ))}
      </ol>
      <dl className="ev-facts">
        <dt>Model</dt>
        <dd>{modelSummary(definition.modelConfig)}</dd>
        <dt>Output</dt>
        <dd>{outputSummary(definition.outputDefinition)}</dd>
        <dt>Mapping</dt>
        <dd>
          {(definition.variableMapping ?? []).map((m) => `${m.variable} ← ${m.source ?? "–"}${m.jsonPath ? ` ${m.jsonPath}` : ""}`).join("; ") || "defaults"}
        </dd>
      </dl>
    </div>
  );
}

function Versions({ id, version }: { id: string; version: number }) {
  const { api } = useEvaluators();
  const versions = useLoad((signal) => api.versions(id, signal), [api, id, version]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <LoadedView result={versions} loadingLabel="Loading versions…">
      {(page) => (
        <ul className="ev-versions" aria-label="Versions">
          {page.data.map((v) => (
            <li key={v.id}>
              <button type="button" className="ev-version" aria-expanded={open === v.id} onClick={() => setOpen(open === v.id ? null : v.id)}>
                v{v.version} · {formatDateTime(v.createdAt)}
                {v.createdBy?.name ? ` · ${v.createdBy.name}` : ""}
              </button>
              {open === v.id && <Definition definition={v} />}
            </li>
          ))}
        </ul>
      )}
    </LoadedView>
  );
}

/** The rules that run an evaluator, by name. */
function RuleLinks({ ids }: { ids: string[] }) {
  const { api, href } = useEvaluators();
  const rules = useLoad((signal) => api.rules(undefined, signal), [api]);
  const name = (id: string) => rules.data?.data.find((r) => r.id === id)?.name ?? id;
  return (
    <ul aria-label="Rules running it">
      {ids.map((id) => (
        <li key={id}>
          <Link to={href(`rules/${encodeURIComponent(id)}`)}>{name(id)}</Link>
        </li>
      ))}
    </ul>
  );
}

export function EvaluatorView() {
  const { evaluatorId = "" } = useParams();
  const { api, writer } = useEvaluators();
  const loaded = useLoad((signal) => api.evaluator(evaluatorId, signal), [api, evaluatorId]);
  const [editing, setEditing] = useState(false);
  return (
    <div className="page ev">
      <LoadedView result={loaded} loadingLabel="Loading the evaluator…">
        {(evaluator) => (
          <>
            <ItemHeader
              kind="evaluator"
              title={evaluator.name}
              about={
                <>
                  v{evaluator.version} · <EvaluatorStatus evaluator={evaluator} /> · {evaluator.description ?? "LLM-as-a-judge"}
                </>
              }
              acting={writer && !editing}
              actions={
                <Button variant="primary" onClick={() => setEditing(true)}>
                  Edit
                </Button>
              }
              remove={() => api.deleteEvaluator(evaluator.id)}
              consequence="Its versions and its place in rules go; the scores it wrote stay."
            />
            {editing ? (
              <section className="ev-card">
                <EvaluatorEditor
                  initial={evaluatorForm(evaluator)}
                  submitLabel="Save"
                  send={async (body) => {
                    loaded.set(await api.updateEvaluator(evaluator.id, patchOf(evaluator, body)));
                    setEditing(false);
                  }}
                  onCancel={() => setEditing(false)}
                />
              </section>
            ) : (
              <section className="ev-card" aria-label="Definition">
                <Definition definition={evaluator} />
              </section>
            )}
            <section className="ev-card" aria-labelledby="ev-versions">
              <h2 id="ev-versions">Versions</h2>
              <Versions id={evaluator.id} version={evaluator.version} />
            </section>
            <section className="ev-card" aria-labelledby="ev-used">
              <h2 id="ev-used">Rules</h2>
              {evaluator.evaluationRuleAssignments.length === 0 ? (
                <p className="muted">No rule runs it yet.</p>
              ) : (
                <RuleLinks ids={evaluator.evaluationRuleAssignments.map((a) => a.evaluationRuleId)} />
              )}
            </section>
          </>
        )}
      </LoadedView>
    </div>
  );
}
