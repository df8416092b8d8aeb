// The Evaluators page's calls, through the public API as the signed-in person: LLM-as-a-judge
// evaluators with their versions and evaluation rules (`/api/public/v2/…`, the Python SDK 5's
// shapes), and Loupe's own routes of a rule: runs over a time range and executions
// (docs/evaluators.md). LLM connections are read here for the model picker.

import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";

export type DataType = "NUMERIC" | "BOOLEAN" | "CATEGORICAL";
export type Source = "input" | "output" | "metadata" | "tool_calls" | "expected_output" | "experiment_item_metadata";

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface VariableMapping {
  variable: string;
  source: Source | null;
  jsonPath?: string | null;
}

export interface OutputDefinition {
  dataType: DataType;
  minValue?: number;
  maxValue?: number;
  categories?: string[];
  shouldAllowMultipleMatches?: boolean;
  scoreReasoningInstructions?: string;
  scoreValueInstructions?: string;
}

export interface ModelConfig {
  provider: string;
  model: string;
}

interface Definition {
  prompt: ChatMessage[];
  variables: string[];
  variableMapping: VariableMapping[] | null;
  modelConfig: ModelConfig | null;
  outputDefinition: OutputDefinition;
}

export interface Evaluator extends Definition {
  type: "llm_as_judge";
  id: string;
  name: string;
  description: string | null;
  status: "active" | "paused";
  pausedReason: string | null;
  pausedMessage: string | null;
  evaluationRuleAssignments: { evaluationRuleId: string }[];
  createdAt: string;
  updatedAt: string;
  version: number;
  versionId: string;
}

export interface EvaluatorVersion extends Definition {
  id: string;
  version: number;
  createdAt: string;
  createdBy: { id: string; name: string | null } | null;
}

export interface FilterCondition {
  type: string;
  column: string;
  operator: string;
  value?: unknown;
  key?: string;
}

export type Target = "observation" | "trace" | "dataset";

export interface Rule {
  id: string;
  name: string;
  enabled: boolean;
  sampling: number;
  filter: FilterCondition[];
  evaluatorAssignments: { evaluatorId: string; variableMapping: VariableMapping[] | null }[];
  target: Target;
  delaySeconds: number;
  /** `active`, `inactive` (the write mode stops it: see `inactiveReason`), or `paused`. */
  status: string;
  inactiveReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Run {
  id: string;
  evaluationRuleId: string;
  fromTimestamp: string;
  toTimestamp: string;
  status: "scanning" | "running" | "completed" | "failed";
  total: number | null;
  scanned: number;
  executions: { pending: number; running: number; completed: number; error: number };
  progress: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export type ExecutionStatus = "pending" | "running" | "completed" | "error" | "cancelled";

export interface Execution {
  id: string;
  evaluatorId: string | null;
  runId: string | null;
  objectKind: "observation" | "trace";
  traceId: string;
  observationId: string;
  status: ExecutionStatus;
  attempts: number;
  error: string | null;
  scoreId: string | null;
  executionTraceId: string | null;
  notBefore: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface Connection {
  id: string;
  provider: string;
  adapter: string;
  displaySecretKey: string;
  baseURL: string | null;
  customModels: string[];
  withDefaultModels: boolean;
  extraHeaderKeys: string[];
  createdAt: string;
  updatedAt: string;
}

export interface CursorPage<T> {
  data: T[];
  meta: { cursor?: string };
}

const enc = encodeURIComponent;
/** The largest page the v2 routes answer: a project's evaluators and rules fit in one or two. */
export const PAGE_LIMIT = 100;

export function evaluatorsApi(api: ProjectApi) {
  const page = (cursor: string | undefined) => ({ limit: PAGE_LIMIT, ...(cursor ? { cursor } : {}) });
  return {
    evaluators: (cursor: string | undefined, signal?: AbortSignal) => api.get<CursorPage<Evaluator>>("v2/evaluators", page(cursor), signal),
    evaluator: (id: string, signal?: AbortSignal) => api.get<Evaluator>(`v2/evaluators/${enc(id)}`, undefined, signal),
    versions: (id: string, signal?: AbortSignal) => api.get<CursorPage<EvaluatorVersion>>(`v2/evaluators/${enc(id)}/versions`, { limit: PAGE_LIMIT }, signal),
    createEvaluator: (body: unknown) => api.post<Evaluator>("v2/evaluators", body),
    updateEvaluator: (id: string, body: unknown) => api.patch<Evaluator>(`v2/evaluators/${enc(id)}`, body),
    deleteEvaluator: (id: string) => api.delete<unknown>(`v2/evaluators/${enc(id)}`),

    rules: (cursor: string | undefined, signal?: AbortSignal) => api.get<CursorPage<Rule>>("v2/evaluation-rules", page(cursor), signal),
    rule: (id: string, signal?: AbortSignal) => api.get<Rule>(`v2/evaluation-rules/${enc(id)}`, undefined, signal),
    createRule: (body: unknown) => api.post<Rule>("v2/evaluation-rules", body),
    updateRule: (id: string, body: unknown) => api.patch<Rule>(`v2/evaluation-rules/${enc(id)}`, body),
    deleteRule: (id: string) => api.delete<unknown>(`v2/evaluation-rules/${enc(id)}`),

    startRun: (ruleId: string, fromTimestamp: string, toTimestamp: string) =>
      api.post<Run>(`v2/evaluation-rules/${enc(ruleId)}/runs`, { fromTimestamp, toTimestamp }),
    run: (ruleId: string, runId: string, signal?: AbortSignal) => api.get<Run>(`v2/evaluation-rules/${enc(ruleId)}/runs/${enc(runId)}`, undefined, signal),
    executions: (ruleId: string, cursor: string | undefined, signal?: AbortSignal) =>
      api.get<CursorPage<Execution>>(`v2/evaluation-rules/${enc(ruleId)}/executions`, { limit: 50, ...(cursor ? { cursor } : {}) }, signal),

    connections: (signal?: AbortSignal) => api.get<Paginated<Connection>>("llm-connections", { limit: 100 }, signal),
  };
}

export type EvaluatorsApi = ReturnType<typeof evaluatorsApi>;
