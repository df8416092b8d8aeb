"""Evaluators and evaluation rules with the real Langfuse Python SDK 5 (`langfuse.api.evaluators`,
`langfuse.api.evaluation_rules`, whose pydantic models parse every answer): create, read, page,
update (metadata, then a new version), list versions; a code evaluator refused with 501, a bad
body with 400 and its issues; rules created, paged, updated, refused, deleted. Prints what it saw
as JSON.

Usage: python evaluators.py  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
"""
import json
import os

from langfuse import Langfuse
from langfuse.api.core.api_error import ApiError
from langfuse.api.evaluation_commons import (
    EvaluationRuleFilter_StringOptions,
    EvaluationRuleOptionsFilterOperator,
    EvaluatorOutputDefinition_Categorical,
    EvaluatorOutputDefinition_Numeric,
    PromptVariableMappingInput,
    PromptVariableMappingSource,
)
from langfuse.api.evaluation_rules import EvaluationRuleEvaluatorAssignmentInput
from langfuse.api.evaluators import (
    CreateEvaluatorRequest_Code,
    CreateEvaluatorRequest_LlmAsJudge,
    EvaluatorChatMessage,
    EvaluatorChatMessageRole,
    EvaluatorModelConfig,
    UpdateEvaluatorMetadataRequest,
    UpdateLlmAsJudgeEvaluatorRequest,
)

langfuse = Langfuse(
    public_key=os.environ["LOUPE_PUBLIC_KEY"],
    secret_key=os.environ["LOUPE_SECRET_KEY"],
    base_url=os.environ["LOUPE_URL"],
)
api = langfuse.api
seen = {}


def refusal(call):
    try:
        call()
    except ApiError as error:
        body = error.body
        if not isinstance(body, dict):
            body = body.dict() if hasattr(body, "dict") else {"message": str(body)}
        issues = (body.get("details") or {}).get("issues") or []
        return [error.status_code, str(body.get("code")), body.get("message", ""), [i["path"] for i in issues]]
    return [200, "", "", []]


def numeric():
    return EvaluatorOutputDefinition_Numeric(min_value=0.0, max_value=1.0, score_reasoning_instructions="Say why")


created = api.evaluators.create(
    request=CreateEvaluatorRequest_LlmAsJudge(
        name="Helpfulness",
        description="Is the answer helpful?",
        prompt="Question: {{input}}\nAnswer: {{output}}\nRate the answer.",
        model_config_=EvaluatorModelConfig(provider="stub", model="judge-1"),
        variable_mapping=[
            PromptVariableMappingInput(variable="input", source=PromptVariableMappingSource.INPUT),
            PromptVariableMappingInput(variable="output", source=PromptVariableMappingSource.OUTPUT, json_path="$.text"),
        ],
        output_definition=numeric(),
    )
)
seen["created"] = [created.type, created.version, created.status, created.variables, created.prompt[0].role.value,
                   created.output_definition.data_type, created.model_config_.provider]
second = api.evaluators.create(
    request=CreateEvaluatorRequest_LlmAsJudge(
        name="Tone",
        prompt=[EvaluatorChatMessage(role=EvaluatorChatMessageRole.SYSTEM, content="You judge tone."),
                EvaluatorChatMessage(role=EvaluatorChatMessageRole.USER, content="{{output}}")],
        output_definition=EvaluatorOutputDefinition_Categorical(categories=["calm", "rude"], should_allow_multiple_matches=False),
    )
)
seen["default_model"] = second.model_config_ is None
fetched = api.evaluators.get(created.id)
seen["fetched"] = [fetched.name, fetched.description, fetched.variable_mapping[1].json_path]
first_page = api.evaluators.list(limit=1)
next_page = api.evaluators.list(limit=1, cursor=first_page.meta.cursor)
last_page = api.evaluators.list(limit=5)
seen["pages"] = [[e.name for e in first_page.data], [e.name for e in next_page.data], first_page.meta.cursor is not None,
                 last_page.meta.cursor is None]
renamed = api.evaluators.update(created.id, request=UpdateEvaluatorMetadataRequest(name="Helpfulness v2"))
seen["renamed"] = [renamed.name, renamed.version]
redefined = api.evaluators.update(
    created.id,
    request=UpdateLlmAsJudgeEvaluatorRequest(prompt="Is {{output}} helpful?", output_definition=numeric(),
                                             variable_mapping=[PromptVariableMappingInput(variable="output", source=PromptVariableMappingSource.OUTPUT)]),
)
seen["redefined"] = [redefined.version, redefined.variables, redefined.model_config_ is None]
versions = api.evaluators.list_versions(created.id)
seen["versions"] = [v.version for v in versions.data]

seen["code"] = refusal(lambda: api.evaluators.create(request=CreateEvaluatorRequest_Code(
    name="code", source_code="def evaluate(): return 1", source_code_language="PYTHON")))
seen["bad_categories"] = refusal(lambda: api.evaluators.create(request=CreateEvaluatorRequest_LlmAsJudge(
    name="bad", prompt="{{input}}", output_definition=EvaluatorOutputDefinition_Categorical(categories=["only"], should_allow_multiple_matches=False))))
seen["unmapped"] = refusal(lambda: api.evaluators.create(request=CreateEvaluatorRequest_LlmAsJudge(
    name="bad", prompt="{{input}} {{other}}", output_definition=numeric(),
    variable_mapping=[PromptVariableMappingInput(variable="input", source=PromptVariableMappingSource.INPUT)])))
seen["missing"] = refusal(lambda: api.evaluators.get("no-such-evaluator"))

rule = api.evaluation_rules.create(
    name="Generations",
    enabled=True,
    sampling=0.5,
    filter=[EvaluationRuleFilter_StringOptions(column="type", operator=EvaluationRuleOptionsFilterOperator.ANY_OF, value=["GENERATION"])],
    evaluator_assignments=[EvaluationRuleEvaluatorAssignmentInput(evaluator_id=created.id)],
)
seen["rule"] = [rule.name, rule.enabled, rule.sampling, rule.filter[0].column, rule.filter[0].operator,
                rule.evaluator_assignments[0].evaluator_id == created.id]
draft = api.evaluation_rules.create(name="Draft", enabled=False, evaluator_assignments=[])
seen["draft"] = [draft.enabled, draft.sampling, draft.filter]
listed = api.evaluation_rules.list(limit=1)
seen["rules_page"] = [[r.name for r in listed.data], listed.meta.cursor is not None]
updated = api.evaluation_rules.update(rule.id, sampling=1.0, name="All generations")
seen["rule_updated"] = [updated.name, updated.sampling]
emptied = api.evaluation_rules.update(rule.id, evaluator_assignments=[])
seen["emptied"] = emptied.enabled
assigned = api.evaluators.get(created.id).evaluation_rule_assignments
seen["assignments"] = len(assigned)
seen["enable_empty"] = refusal(lambda: api.evaluation_rules.update(draft.id, enabled=True))
seen["unknown_evaluator"] = refusal(lambda: api.evaluation_rules.create(
    name="x", enabled=True, evaluator_assignments=[EvaluationRuleEvaluatorAssignmentInput(evaluator_id="nope")]))
seen["bad_filter"] = refusal(lambda: api.evaluation_rules.create(name="x", enabled=False, evaluator_assignments=[], filter=[
    EvaluationRuleFilter_StringOptions(column="colour", operator=EvaluationRuleOptionsFilterOperator.ANY_OF, value=["x"])]))
seen["rule_deleted"] = api.evaluation_rules.delete(draft.id).id == draft.id
seen["rule_gone"] = refusal(lambda: api.evaluation_rules.get(draft.id))
seen["evaluator_deleted"] = api.evaluators.delete(second.id).id == second.id
seen["evaluator_gone"] = refusal(lambda: api.evaluators.get(second.id))
print(json.dumps(seen))
