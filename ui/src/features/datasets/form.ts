// What the dataset and item forms share: JSON typed into a text box, read back with where it is
// wrong, and the server's per-field refusals (`fields` of a 400) turned into messages shown at
// the box they belong to.

import type { FieldError } from "../../api/types";

/** The most characters one JSON box takes (the server bounds bodies too; this keeps typing light). */
export const MAX_JSON_CHARS = 200_000;

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** An empty box is "not set" (`undefined`); anything else must be JSON. */
export function parseJson(text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, value: undefined };
  if (text.length > MAX_JSON_CHARS) return { ok: false, error: `At most ${MAX_JSON_CHARS.toLocaleString("en")} characters` };
  try {
    return { ok: true, value: JSON.parse(trimmed) as unknown };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Not valid JSON: ${why}` };
  }
}

/** A value as the box shows it: pretty JSON, empty for none. */
export function showJson(value: unknown): string {
  return value === undefined || value === null ? "" : JSON.stringify(value, null, 2);
}

/** A JSON Schema box: JSON and an object (or `true`/`false`), as the server takes. */
export function parseSchema(text: string): Parsed {
  const parsed = parseJson(text);
  if (!parsed.ok || parsed.value === undefined) return parsed;
  const v = parsed.value;
  if (typeof v === "boolean" || (typeof v === "object" && v !== null && !Array.isArray(v))) return parsed;
  return { ok: false, error: "A JSON Schema is an object, such as {\"type\": \"object\"}" };
}

/** The server's mismatches per body key, each as one line: `at /question: 5 is not of type "string"`. */
export function errorsByField(fields: readonly FieldError[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of fields) {
    const line = f.path ? `at ${f.path}: ${f.message}` : f.message;
    (out[f.field] ??= []).push(line);
  }
  return out;
}

/** A value shortened to one line for a table cell. */
export function preview(value: unknown, max = 120): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
