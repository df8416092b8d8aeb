// The evaluator and rule forms' rules, apart from the components so they are tested on their own:
// a prompt's `{{variables}}` (found as the server finds them, `evaluation::definition::variables_in`),
// and what each form sends, checked field by field before it is sent (the server checks again and
// its message is shown when it refuses).

import type { ViewFilter } from "../observations/filters";
import type { Checked, Problems } from "../settings/forms";
import type { ChatMessage, DataType, Evaluator, FilterCondition, Rule, Source, Target, VariableMapping } from "./api";
import { ruleConditions, ruleFilterRows } from "./ruleFilter";

export const SOURCES: readonly Source[] = ["input", "output", "metadata", "tool_calls", "expected_output", "experiment_item_metadata"];
export const DATA_TYPES: readonly DataType[] = ["NUMERIC", "BOOLEAN", "CATEGORICAL"];
export const ROLES: readonly ChatMessage["role"][] = ["system", "user", "assistant"];
export const NAME_MAX = 255;
export const DELAY_MAX = 86_400;

const VARIABLE_NAME = /^[\p{L}\p{N}_.-]+$/u;

/** One piece of a prompt's text: plain, or a `{{variable}}` (with its name). */
export interface Part {
  text: string;
  variable?: string;
}

/** The text cut into plain pieces and `{{name}}` placeholders, for highlighting. Whitespace inside
 * the braces is allowed; a placeholder whose name has other characters stays plain, as on the server. */
export function promptParts(text: string): Part[] {
  const parts: Part[] = [];
  let rest = text;
  let plain = "";
  for (;;) {
    const start = rest.indexOf("{{");
    if (start < 0) break;
    const end = rest.indexOf("}}", start + 2);
    if (end < 0) break;
    const name = rest.slice(start + 2, end).trim();
    if (name && VARIABLE_NAME.test(name)) {
      plain += rest.slice(0, start);
      if (plain) parts.push({ text: plain });
      plain = "";
      parts.push({ text: rest.slice(start, end + 2), variable: name });
    } else {
      plain += rest.slice(0, end + 2);
    }
    rest = rest.slice(end + 2);
  }
  plain += rest;
  if (plain) parts.push({ text: plain });
  return parts;
}

/** The variables of a chat prompt, each once, in order of first use. */
export function promptVariables(messages: readonly ChatMessage[]): string[] {
  const seen: string[] = [];
  for (const message of messages) {
    for (const part of promptParts(message.content)) {
      if (part.variable && !seen.includes(part.variable)) seen.push(part.variable);
    }
  }
  return seen;
}

export interface MappingRow {
  source: Source | "";
  jsonPath: string;
}

/** The source a variable takes when none is chosen: its own name when that is a source. */
export function defaultSource(variable: string): Source | "" {
  return (SOURCES as readonly string[]).includes(variable) ? (variable as Source) : "";
}

/** A JSONPath the server accepts: `$`, `.name`, `['name']`, `[index]`, `[*]` (no filters, no `..`). */
export function jsonPathProblem(path: string): string | null {
  const text = path.trim();
  if (!text) return null;
  if (!text.startsWith("$")) return "A JSONPath starts with $";
  if (text.includes("..")) return "Recursive descent (..) is not supported";
  if (text.includes("?(")) return "Filters are not supported";
  return null;
}

/** The mapping sent for the prompt's variables (variables without a row use the defaults). */
function mappingOf(variables: readonly string[], rows: Record<string, MappingRow>, problems: Record<string, string>): VariableMapping[] {
  const out: VariableMapping[] = [];
  for (const variable of variables) {
    const row = rows[variable] ?? { source: defaultSource(variable), jsonPath: "" };
    const bad = jsonPathProblem(row.jsonPath);
    if (bad) problems[variable] = bad;
    if (!row.source && row.jsonPath.trim()) problems[variable] = "Choose where the value comes from";
    if (!row.source) continue;
    out.push({ variable, source: row.source, ...(row.jsonPath.trim() ? { jsonPath: row.jsonPath.trim() } : {}) });
  }
  return out;
}

export interface EvaluatorForm {
  /** Code evaluators are sent as such; this server answers 501 until it has a sandbox. */
  kind: "llm_as_judge" | "code";
  language: "PYTHON" | "TYPESCRIPT";
  code: string;
  name: string;
  description: string;
  messages: ChatMessage[];
  /** `provider|model`, or "" for the project's default evaluation model. */
  model: string;
  dataType: DataType;
  minValue: string;
  maxValue: string;
  /** Categorical: one category per line. */
  categories: string;
  allowMultiple: boolean;
  reasoningInstructions: string;
  valueInstructions: string;
  mapping: Record<string, MappingRow>;
}

export type EvaluatorField = "name" | "messages" | "model" | "range" | "categories" | "mapping";

export const EMPTY_EVALUATOR: EvaluatorForm = {
  kind: "llm_as_judge",
  language: "PYTHON",
  code: "",
  name: "",
  description: "",
  messages: [
    { role: "system", content: "You are a strict judge of answers." },
    { role: "user", content: "Question: {{input}}\nAnswer: {{output}}\n\nHow correct is the answer, from 0 to 1?" },
  ],
  model: "",
  dataType: "NUMERIC",
  minValue: "0",
  maxValue: "1",
  categories: "",
  allowMultiple: false,
  reasoningInstructions: "",
  valueInstructions: "",
  mapping: {},
};

function optionalNumber(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

/** The body of `POST /v2/evaluators` (and of a definition change through PATCH). */
export function evaluatorRequest(form: EvaluatorForm): Checked<Record<string, unknown>, EvaluatorField> & { mappingProblems?: Record<string, string> } {
  const problems: Problems<EvaluatorField> = {};
  const name = form.name.trim();
  if (!name) problems.name = "Enter a name: the scores are named after it";
  else if (name.length > NAME_MAX) problems.name = `At most ${NAME_MAX} characters`;
  if (form.kind === "code") {
    if (!form.code.trim()) problems.messages = "Write the evaluator's code";
    if (Object.keys(problems).length > 0) return { ok: false, problems };
    return { ok: true, value: { type: "code", name, sourceCodeLanguage: form.language, sourceCode: form.code } };
  }
  const messages = form.messages.filter((m) => m.content.trim());
  if (messages.length === 0) problems.messages = "Write the judge's prompt";
  const output: Record<string, unknown> = { dataType: form.dataType };
  if (form.dataType === "NUMERIC") {
    const min = optionalNumber(form.minValue);
    const max = optionalNumber(form.maxValue);
    if (min === null || max === null) problems.range = "The range takes numbers";
    else if (min !== undefined && max !== undefined && min > max) problems.range = "The minimum is above the maximum";
    if (typeof min === "number") output.minValue = min;
    if (typeof max === "number") output.maxValue = max;
  }
  if (form.dataType === "CATEGORICAL") {
    const categories = [...new Set(form.categories.split("\n").map((c) => c.trim()).filter(Boolean))];
    if (categories.length < 2) problems.categories = "Give at least two categories, one per line";
    output.categories = categories;
    output.shouldAllowMultipleMatches = form.allowMultiple;
  }
  if (form.reasoningInstructions.trim()) output.scoreReasoningInstructions = form.reasoningInstructions.trim();
  if (form.valueInstructions.trim()) output.scoreValueInstructions = form.valueInstructions.trim();
  let modelConfig: { provider: string; model: string } | null = null;
  if (form.model) {
    const [provider = "", ...model] = form.model.split("|");
    if (!provider || !model.join("|")) problems.model = "Choose a connection and a model";
    else modelConfig = { provider, model: model.join("|") };
  }
  const mappingProblems: Record<string, string> = {};
  const variableMapping = mappingOf(promptVariables(messages), form.mapping, mappingProblems);
  if (Object.keys(mappingProblems).length > 0) problems.mapping = "Check the variable mapping";
  if (Object.keys(problems).length > 0) return { ok: false, problems, mappingProblems };
  return {
    ok: true,
    value: {
      type: "llm_as_judge",
      name,
      ...(form.description.trim() ? { description: form.description.trim() } : {}),
      prompt: messages,
      modelConfig,
      variableMapping,
      outputDefinition: output,
    },
  };
}

/** The form of an evaluator that exists (to edit it into a new version). */
export function evaluatorForm(evaluator: Evaluator): EvaluatorForm {
  const output = evaluator.outputDefinition;
  const mapping: Record<string, MappingRow> = {};
  for (const row of evaluator.variableMapping ?? []) mapping[row.variable] = { source: row.source ?? "", jsonPath: row.jsonPath ?? "" };
  return {
    ...EMPTY_EVALUATOR,
    name: evaluator.name,
    description: evaluator.description ?? "",
    messages: evaluator.prompt.map((m) => ({ ...m })),
    model: evaluator.modelConfig ? `${evaluator.modelConfig.provider}|${evaluator.modelConfig.model}` : "",
    dataType: output.dataType,
    minValue: output.minValue === undefined ? "" : String(output.minValue),
    maxValue: output.maxValue === undefined ? "" : String(output.maxValue),
    categories: (output.categories ?? []).join("\n"),
    allowMultiple: output.shouldAllowMultipleMatches ?? false,
    reasoningInstructions: output.scoreReasoningInstructions ?? "",
    valueInstructions: output.scoreValueInstructions ?? "",
    mapping,
  };
}

export interface RuleForm {
  name: string;
  target: Target;
  evaluatorId: string;
  enabled: boolean;
  /** 0 to 1, as text. */
  sampling: string;
  delaySeconds: string;
  /** The filter builder's rows (over `RULE_COLUMNS`). */
  filter: ViewFilter[];
  /** Stored conditions the builder cannot show, sent back unchanged. */
  keptFilter: FilterCondition[];
  /** Per variable of the chosen evaluator; empty rows keep the evaluator's own mapping. */
  mapping: Record<string, MappingRow>;
}

export type RuleField = "name" | "evaluatorId" | "sampling" | "delaySeconds" | "filter" | "mapping";

export const EMPTY_RULE: RuleForm = {
  name: "",
  target: "observation",
  evaluatorId: "",
  enabled: true,
  sampling: "1",
  delaySeconds: "0",
  filter: [{ column: "type", operator: "any of", value: ["GENERATION"] }],
  keptFilter: [],
  mapping: {},
};

/** The body of `POST /v2/evaluation-rules` (PATCH takes the same fields). `variables` are the chosen
 * evaluator's; a mapping override is sent only when a row differs from nothing. */
export function ruleRequest(form: RuleForm, variables: readonly string[]): Checked<Record<string, unknown>, RuleField> {
  const problems: Problems<RuleField> = {};
  const name = form.name.trim();
  if (!name) problems.name = "Enter a name";
  else if (name.length > NAME_MAX) problems.name = `At most ${NAME_MAX} characters`;
  if (!form.evaluatorId) problems.evaluatorId = "Choose the evaluator to run";
  const sampling = Number(form.sampling.trim());
  if (!form.sampling.trim() || !Number.isFinite(sampling) || sampling < 0 || sampling > 1) problems.sampling = "A share from 0 to 1 (1 judges every match)";
  const delay = Number(form.delaySeconds.trim() || "0");
  if (!Number.isInteger(delay) || delay < 0 || delay > DELAY_MAX) problems.delaySeconds = `Whole seconds from 0 to ${DELAY_MAX}`;
  const conditions = ruleConditions(form.filter);
  if (typeof conditions === "number") problems.filter = `Filter ${conditions} is not complete: give it a value`;
  const filter = [...(typeof conditions === "number" ? [] : conditions), ...form.keptFilter];
  const mappingProblems: Record<string, string> = {};
  const chosen = Object.fromEntries(Object.entries(form.mapping).filter(([, row]) => row.source || row.jsonPath.trim()));
  const overridden = variables.filter((v) => v in chosen);
  const mapping = mappingOf(overridden, chosen, mappingProblems);
  if (Object.keys(mappingProblems).length) problems.mapping = Object.entries(mappingProblems).map(([v, p]) => `${v}: ${p}`).join("; ");
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      name,
      target: form.target,
      enabled: form.enabled,
      sampling,
      delaySeconds: delay,
      filter,
      evaluatorAssignments: [{ evaluatorId: form.evaluatorId, ...(mapping.length ? { variableMapping: mapping } : {}) }],
    },
  };
}

export function ruleForm(rule: Rule): RuleForm {
  const assignment = rule.evaluatorAssignments[0];
  const mapping: Record<string, MappingRow> = {};
  for (const row of assignment?.variableMapping ?? []) mapping[row.variable] = { source: row.source ?? "", jsonPath: row.jsonPath ?? "" };
  return {
    name: rule.name,
    target: rule.target,
    evaluatorId: assignment?.evaluatorId ?? "",
    enabled: rule.enabled || rule.status === "inactive",
    sampling: String(rule.sampling),
    delaySeconds: String(rule.delaySeconds),
    ...ruleFilterRows(rule.filter),
    mapping,
  };
}

/** A time range for a run, from two `datetime-local` values (the browser's time zone). */
export function runRange(from: string, to: string): { from: string; to: string } | string {
  const start = new Date(from);
  const end = new Date(to);
  if (!from || Number.isNaN(start.getTime())) return "Choose when the range starts";
  if (!to || Number.isNaN(end.getTime())) return "Choose when the range ends";
  if (start >= end) return "The range must end after it starts";
  return { from: start.toISOString(), to: end.toISOString() };
}

/** A `datetime-local` value for a time (local time, to the minute). */
export function localInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
