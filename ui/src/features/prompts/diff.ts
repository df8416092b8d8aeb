// A line diff of two texts (longest common subsequence over lines), and of two prompt versions:
// the text, or each chat message by position, and the config as indented JSON. Written by hand
// because prompts are small: after the common head and tail are set aside, the LCS table is at most
// MAX_CELLS cells; beyond that the changed middle shows as removed then added, which is still true.

export type LineKind = "same" | "added" | "removed";

export interface DiffLine {
  kind: LineKind;
  text: string;
  /** Line number in the old text (absent for an added line). */
  oldNo?: number;
  /** Line number in the new text (absent for a removed line). */
  newNo?: number;
}

/** The most cells of the LCS table (old lines × new lines of the changed middle). */
export const MAX_CELLS = 4_000_000;

function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/\r?\n/);
}

export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;

  const out: DiffLine[] = [];
  for (let i = 0; i < head; i++) out.push({ kind: "same", text: a[i]!, oldNo: i + 1, newNo: i + 1 });
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  out.push(...middle(midA, midB, head));
  for (let k = tail; k > 0; k--) {
    const i = a.length - k;
    const j = b.length - k;
    out.push({ kind: "same", text: a[i]!, oldNo: i + 1, newNo: j + 1 });
  }
  return out;
}

/** The diff of the changed middle; `offset` lines precede it in both texts. */
function middle(a: string[], b: string[], offset: number): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const removed = (i: number): DiffLine => ({ kind: "removed", text: a[i]!, oldNo: offset + i + 1 });
  const added = (j: number): DiffLine => ({ kind: "added", text: b[j]!, newNo: offset + j + 1 });
  if (n * m > MAX_CELLS || n === 0 || m === 0) {
    return [...a.map((_, i) => removed(i)), ...b.map((_, j) => added(j))];
  }
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]!, oldNo: offset + i + 1, newNo: offset + j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      out.push(removed(i++));
    } else {
      out.push(added(j++));
    }
  }
  while (i < n) out.push(removed(i++));
  while (j < m) out.push(added(j++));
  return out;
}

export function changed(lines: readonly DiffLine[]): boolean {
  return lines.some((line) => line.kind !== "same");
}

/** A prompt version's body as the pages read it (the public API's `prompt` and `config`). */
export interface Comparable {
  type: string;
  prompt: unknown;
  config: unknown;
}

export interface DiffSection {
  title: string;
  lines: DiffLine[];
  changed: boolean;
}

/** How one chat entry reads in a diff: a message's content, or a placeholder's name. */
function entry(message: unknown): { head: string; text: string } {
  if (typeof message !== "object" || message === null) return { head: "message", text: JSON.stringify(message) };
  const m = message as Record<string, unknown>;
  if (m.type === "placeholder") return { head: `placeholder`, text: `{{${String(m.name ?? "")}}}` };
  return { head: String(m.role ?? "message"), text: typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2) };
}

/** Keys sorted, so a config whose keys moved is not a change. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : typeof v === "object" && v !== null
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]))
        : v;
  return JSON.stringify(sort(value ?? {}), null, 2);
}

function section(title: string, before: string, after: string): DiffSection {
  const lines = diffLines(before, after);
  return { title, lines, changed: changed(lines) };
}

/** The sections of a diff from `before` to `after`: the text (or each message by position), then the config. */
export function diffVersions(before: Comparable, after: Comparable): DiffSection[] {
  const sections: DiffSection[] = [];
  const asMessages = (v: Comparable) => (Array.isArray(v.prompt) ? v.prompt : null);
  const oldMessages = asMessages(before);
  const newMessages = asMessages(after);
  if (oldMessages && newMessages) {
    const count = Math.max(oldMessages.length, newMessages.length);
    for (let i = 0; i < count; i++) {
      const a = i < oldMessages.length ? entry(oldMessages[i]) : null;
      const b = i < newMessages.length ? entry(newMessages[i]) : null;
      const head = a && b && a.head !== b.head ? `${a.head} → ${b.head}` : (b ?? a)!.head;
      const s = section(`Message ${i + 1} · ${head}`, a?.text ?? "", b?.text ?? "");
      if (a && b && a.head !== b.head) s.changed = true;
      sections.push(s);
    }
  } else {
    const text = (v: Comparable) =>
      typeof v.prompt === "string" ? v.prompt : (v.prompt as unknown[]).map((m) => `[${entry(m).head}]\n${entry(m).text}`).join("\n");
    sections.push(section(before.type === after.type ? "Prompt" : `Prompt (${before.type} → ${after.type})`, text(before), text(after)));
  }
  sections.push(section("Config", canonicalJson(before.config), canonicalJson(after.config)));
  return sections;
}
