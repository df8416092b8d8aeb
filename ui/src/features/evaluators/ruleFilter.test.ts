import { describe, expect, it } from "vitest";

import type { ViewFilter } from "../observations/filters";
import type { FilterCondition, Rule } from "./api";
import { ruleForm, ruleRequest } from "./forms";
import { RULE_COLUMNS, ruleConditions, ruleFilterRows } from "./ruleFilter";

const rule = (filter: FilterCondition[]): Rule => ({
  id: "r1",
  name: "judge",
  enabled: true,
  sampling: 1,
  filter,
  evaluatorAssignments: [{ evaluatorId: "ev1", variableMapping: null }],
  target: "observation",
  delaySeconds: 0,
  status: "active",
  inactiveReason: null,
  createdAt: "",
  updatedAt: "",
});

/** A stored condition on every column the rules API takes, in the one type each takes, with every
 * operator the column offers (as evaluation::filter checks them). */
const STORED: FilterCondition[] = [
  { type: "stringOptions", column: "type", operator: "any of", value: ["GENERATION", "SPAN"] },
  { type: "stringOptions", column: "name", operator: "none of", value: ["chat", "embed"] },
  { type: "stringOptions", column: "environment", operator: "any of", value: ["production"] },
  { type: "stringOptions", column: "level", operator: "none of", value: ["DEBUG"] },
  { type: "string", column: "version", operator: "starts with", value: "v2" },
  { type: "stringOptions", column: "traceName", operator: "any of", value: ["support"] },
  { type: "string", column: "userId", operator: "=", value: "u-1" },
  { type: "string", column: "sessionId", operator: "does not contain", value: "test" },
  { type: "arrayOptions", column: "tags", operator: "all of", value: ["prod", "eu"] },
  { type: "stringObject", column: "metadata", operator: "ends with", key: "tier", value: "pro" },
  { type: "stringObject", column: "metadata", operator: "is not set", key: "internal", value: "" },
  { type: "boolean", column: "isRootObservation", operator: "<>", value: true },
  { type: "null", column: "parentObservationId", operator: "is not null", value: "" },
  { type: "stringOptions", column: "experimentId", operator: "any of", value: ["exp-1"] },
  { type: "boolean", column: "isExperimentItemRootSpan", operator: "=", value: false },
  { type: "arrayOptions", column: "calledToolNames", operator: "none of", value: ["search"] },
  { type: "number", column: "toolCalls", operator: ">=", value: 2 },
  { type: "stringOptions", column: "datasetId", operator: "any of", value: ["ds-1"] },
];

const saved = (form: ReturnType<typeof ruleForm>) => {
  const checked = ruleRequest(form, []);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.value.filter;
};

describe("a rule's filter in the builder", () => {
  it("offers every column the rules API takes", () => {
    expect(new Set(STORED.map((c) => c.column))).toEqual(new Set(RULE_COLUMNS.map((c) => c.id)));
  });

  it.each(STORED.map((c) => [`${c.column} ${c.operator}`, c] as const))("reopens %s in the builder and saves it unchanged", (_, condition) => {
    const form = ruleForm(rule([condition]));
    expect(form.filter).toHaveLength(1);
    expect(form.keptFilter).toEqual([]);
    expect(saved(form)).toEqual([condition]);
  });

  it("sends typed rows in the SDK's filter types", () => {
    const rows: ViewFilter[] = [
      { column: "name", operator: "any of", value: " chat , embed," },
      { column: "toolCalls", operator: ">", value: " 2 " },
      { column: "isRootObservation", operator: "=", value: "true" },
      { column: "metadata", operator: "is set", key: " tier ", value: "ignored" },
      { column: "parentObservationId", operator: "is null", value: "" },
    ];
    expect(ruleConditions(rows)).toEqual([
      { type: "stringOptions", column: "name", operator: "any of", value: ["chat", "embed"] },
      { type: "number", column: "toolCalls", operator: ">", value: 2 },
      { type: "boolean", column: "isRootObservation", operator: "=", value: true },
      { type: "stringObject", column: "metadata", operator: "is set", key: "tier", value: "" },
      { type: "null", column: "parentObservationId", operator: "is null", value: "" },
    ]);
  });

  it("names the first incomplete row instead of dropping it", () => {
    expect(ruleConditions([{ column: "type", operator: "any of", value: ["SPAN"] }, { column: "name", operator: "any of", value: " , " }])).toBe(2);
    expect(ruleConditions([{ column: "metadata", operator: "is set", key: "", value: "" }])).toBe(1);
    const form = { ...ruleForm(rule([])), filter: [{ column: "toolCalls", operator: ">", value: "many" }] };
    const checked = ruleRequest(form, []);
    expect(!checked.ok && checked.problems.filter).toBe("Filter 1 is not complete: give it a value");
  });

  it("keeps a stored condition the rows cannot show and sends it back unchanged", () => {
    const odd: FilterCondition = { type: "string", column: "userId", operator: "=", value: "" };
    const shown: FilterCondition = { type: "stringOptions", column: "type", operator: "any of", value: ["TOOL"] };
    expect(ruleFilterRows([odd, shown])).toEqual({ filter: [{ column: "type", operator: "any of", value: ["TOOL"] }], keptFilter: [odd] });
    expect(saved(ruleForm(rule([odd, shown])))).toEqual([shown, odd]);
  });
});
