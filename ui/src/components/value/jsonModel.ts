// A parsed JSON value seen a few entries at a time: the collapsible viewer asks for the children of
// one node at a time, in pages, and for long strings piece by piece. The same functions answer on
// the main thread for small values and inside the JSON worker for large ones, where the parsed
// value stays (json.worker.ts), so a 20 MB value is never cloned or rendered whole.

export type JsonKind = "object" | "array" | "string" | "number" | "boolean" | "null";
export type JsonPath = readonly (string | number)[];

/** One node as the viewer shows it. */
export interface JsonEntry {
  key: string | number;
  kind: JsonKind;
  /** Scalars: the text shown (a long string's beginning). */
  text?: string;
  /** Strings: the whole length, in UTF-16 code units. */
  length?: number;
  /** Objects and arrays: how many entries. */
  size?: number;
}

export interface JsonPage {
  entries: JsonEntry[];
  total: number;
}

/** Characters of a string shown before "Show more". */
export const STRING_PREVIEW = 2_000;
/** Entries of an object or array shown per page. */
export const PAGE_SIZE = 100;

export function kindOf(value: unknown): JsonKind {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "object":
      return "object";
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "string";
  }
}

export function entryOf(key: string | number, value: unknown): JsonEntry {
  const kind = kindOf(value);
  switch (kind) {
    case "object":
      return { key, kind, size: Object.keys(value as object).length };
    case "array":
      return { key, kind, size: (value as unknown[]).length };
    case "string": {
      const text = value as string;
      return { key, kind, text: text.length > STRING_PREVIEW ? text.slice(0, STRING_PREVIEW) : text, length: text.length };
    }
    case "null":
      return { key, kind, text: "null" };
    default:
      return { key, kind, text: String(value) };
  }
}

export function valueAt(root: unknown, path: JsonPath): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** Entries `offset .. offset + limit` of the object or array at `path`. */
export function childrenAt(root: unknown, path: JsonPath, offset: number, limit: number): JsonPage {
  const node = valueAt(root, path);
  if (Array.isArray(node)) {
    const entries: JsonEntry[] = [];
    for (let i = offset; i < Math.min(node.length, offset + limit); i++) entries.push(entryOf(i, node[i]));
    return { entries, total: node.length };
  }
  if (node !== null && typeof node === "object") {
    const keys = Object.keys(node);
    const entries = keys.slice(offset, offset + limit).map((key) => entryOf(key, (node as Record<string, unknown>)[key]));
    return { entries, total: keys.length };
  }
  return { entries: [], total: 0 };
}

/** Characters `offset .. offset + length` of the string at `path`. */
export function stringAt(root: unknown, path: JsonPath, offset: number, length: number): string {
  const node = valueAt(root, path);
  return typeof node === "string" ? node.slice(offset, offset + length) : "";
}

/** A stored value as the text it encodes: JSON when it parses, else the text itself. */
export function parseStored(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
