// An evaluation rule's filter in the Observations view's filter builder: the columns the rules API
// takes (`evaluation::filter::COLUMNS`), each with the one filter type it takes, and its operators
// where they are not the builder's for that kind. What is saved is the SDK's `EvaluationRuleFilter`
// conditions, as the rules API checks them.

import { fromApiFilter, LEVELS, OBSERVATION_TYPES, toApiFilter, type ApiFilter, type FilterColumn, type ViewFilter } from "../observations/filters";
import type { FilterCondition } from "./api";

const list = (id: string, label: string): FilterColumn => ({ id, label, kind: "list" });
const text = (id: string, label: string): FilterColumn => ({ id, label, kind: "text" });
const bool = (id: string, label: string): FilterColumn => ({ id, label, kind: "bool", operators: ["=", "<>"] });

/** Most filters a rule's form offers (the server has no bound; a form of more is not one to read). */
export const RULE_FILTERS_MAX = 20;

export const RULE_COLUMNS: readonly FilterColumn[] = [
  { id: "type", label: "Type", kind: "options", options: OBSERVATION_TYPES },
  list("name", "Name"),
  list("environment", "Environment"),
  { id: "level", label: "Level", kind: "options", options: LEVELS },
  text("version", "Version"),
  list("traceName", "Trace name"),
  text("userId", "User ID"),
  text("sessionId", "Session ID"),
  { id: "tags", label: "Tags", kind: "tags" },
  { id: "metadata", label: "Metadata", kind: "metadata", operators: ["=", "contains", "does not contain", "starts with", "ends with", "is set", "is not set"] },
  bool("isRootObservation", "Root observation"),
  { id: "parentObservationId", label: "Parent observation ID", kind: "null" },
  list("experimentId", "Experiment ID"),
  bool("isExperimentItemRootSpan", "Experiment item root span"),
  { id: "calledToolNames", label: "Called tool names", kind: "tags" },
  { id: "toolCalls", label: "Tool calls", kind: "number", operators: ["=", ">", "<", ">=", "<="] },
  list("datasetId", "Dataset ID"),
];

/** A stored filter in the builder: the rows it can show, and the conditions it cannot (an empty
 * text the server took), which are kept and sent back as they are. */
export function ruleFilterRows(stored: readonly FilterCondition[]): { filter: ViewFilter[]; keptFilter: FilterCondition[] } {
  const filter: ViewFilter[] = [];
  const keptFilter: FilterCondition[] = [];
  for (const condition of stored) {
    const row = fromApiFilter(condition as ApiFilter, RULE_COLUMNS);
    if (row) filter.push(row);
    else keptFilter.push(condition);
  }
  return { filter, keptFilter };
}

/** The conditions of the builder's rows, or the 1-based number of the first that is not complete. */
export function ruleConditions(rows: readonly ViewFilter[]): FilterCondition[] | number {
  const conditions: FilterCondition[] = [];
  for (const [i, row] of rows.entries()) {
    const condition = toApiFilter(row, RULE_COLUMNS);
    if (!condition) return i + 1;
    conditions.push(condition);
  }
  return conditions;
}
