// A new prompt version as the editor holds it, and what it checks before sending (the server's
// rules: reference/public-api.md §4.10 and crates/resources/src/prompts/validate.rs), so a mistake
// shows at its field instead of as a refused request. Bounds: MAX_PROMPT_CHARS of text (all
// messages together), MAX_MESSAGES messages, MAX_CONFIG_CHARS of config JSON, MAX_LABELS labels.

export type PromptType = "text" | "chat";

export interface DraftMessage {
  /** `system`, `user`, `assistant`…, or `placeholder` (a slot filled at compile time by `content` as its name). */
  role: string;
  content: string;
}

export interface Draft {
  name: string;
  type: PromptType;
  text: string;
  messages: DraftMessage[];
  /** JSON text of an object; empty is `{}`. */
  config: string;
  /** Comma- or space-separated. */
  labels: string;
  /** Comma-separated (a tag may hold spaces); empty keeps the prompt's tags. */
  tags: string;
  commitMessage: string;
}

export const MAX_PROMPT_CHARS = 200_000;
export const MAX_MESSAGES = 200;
export const MAX_CONFIG_CHARS = 50_000;
export const MAX_LABELS = 20;
export const MAX_TAGS = 20;
export const MAX_COMMIT_CHARS = 1_000;
export const MAX_NAME_CHARS = 500;
export const PLACEHOLDER = "placeholder";
const LABEL = /^[a-z0-9_.-]{1,36}$/;

export type DraftErrors = Partial<Record<"name" | "text" | "messages" | "config" | "labels" | "tags" | "commitMessage", string>> & {
  /** By message index. */
  message?: Record<number, string>;
};

export interface NewPromptBody {
  name: string;
  type: PromptType;
  prompt: string | Array<{ role: string; content: string } | { type: "placeholder"; name: string }>;
  config: Record<string, unknown>;
  labels: string[];
  tags?: string[];
  commitMessage?: string;
}

export function emptyDraft(name = ""): Draft {
  return { name, type: "text", text: "", messages: [{ role: "system", content: "" }], config: "{}", labels: "", tags: "", commitMessage: "" };
}

export function splitList(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean))];
}

export function nameProblem(name: string): string | null {
  if (!name.trim()) return "A name is required";
  if (name.length > MAX_NAME_CHARS) return `At most ${MAX_NAME_CHARS} characters`;
  if (name.includes("|")) return "A name must not contain '|'";
  if (name.startsWith("/") || name.endsWith("/") || name.includes("//")) return "Folders are separated by single '/', not at the start or end";
  if (name === "new") return "'new' is reserved";
  return null;
}

export function labelsProblem(labels: string[]): string | null {
  if (labels.length > MAX_LABELS) return `At most ${MAX_LABELS} labels`;
  const bad = labels.find((l) => !LABEL.test(l));
  if (bad !== undefined) return `“${bad}”: labels are 1 to 36 lowercase letters, digits, '_', '-' or '.'`;
  if (labels.includes("latest")) return "“latest” is always on the newest version; it cannot be set";
  return null;
}

/** Reads the config text: an object, or the reason it is not one. */
export function parseConfig(text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.length > MAX_CONFIG_CHARS) return { error: `At most ${MAX_CONFIG_CHARS.toLocaleString("en")} characters` };
  if (!text.trim()) return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "The config must be a JSON object ({…})" };
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The body to send, or the problems at their fields. */
export function validateDraft(draft: Draft): { body: NewPromptBody; errors: null } | { body: null; errors: DraftErrors } {
  const errors: DraftErrors = {};
  const name = draft.name.trim();
  const nameError = nameProblem(name);
  if (nameError) errors.name = nameError;

  let prompt: NewPromptBody["prompt"] = draft.text;
  if (draft.type === "text") {
    if (!draft.text.trim()) errors.text = "The prompt is empty";
    else if (draft.text.length > MAX_PROMPT_CHARS) errors.text = `At most ${MAX_PROMPT_CHARS.toLocaleString("en")} characters`;
  } else {
    const perMessage: Record<number, string> = {};
    if (draft.messages.length === 0) errors.messages = "A chat prompt needs at least one message";
    else if (draft.messages.length > MAX_MESSAGES) errors.messages = `At most ${MAX_MESSAGES} messages`;
    const total = draft.messages.reduce((sum, m) => sum + m.content.length, 0);
    if (total > MAX_PROMPT_CHARS) errors.messages = `At most ${MAX_PROMPT_CHARS.toLocaleString("en")} characters in all`;
    draft.messages.forEach((m, i) => {
      if (!m.role.trim()) perMessage[i] = "A role is required";
      else if (m.role === PLACEHOLDER && !m.content.trim()) perMessage[i] = "A placeholder needs a name";
    });
    if (Object.keys(perMessage).length > 0) errors.message = perMessage;
    prompt = draft.messages.map((m) =>
      m.role === PLACEHOLDER ? { type: "placeholder" as const, name: m.content.trim() } : { role: m.role.trim(), content: m.content },
    );
  }

  const config = parseConfig(draft.config);
  if ("error" in config) errors.config = config.error;
  const labels = splitList(draft.labels);
  const labelError = labelsProblem(labels);
  if (labelError) errors.labels = labelError;
  const tags = [...new Set(draft.tags.split(",").map((t) => t.trim()).filter(Boolean))];
  if (tags.length > MAX_TAGS) errors.tags = `At most ${MAX_TAGS} tags`;
  if (draft.commitMessage.length > MAX_COMMIT_CHARS) errors.commitMessage = `At most ${MAX_COMMIT_CHARS} characters`;

  if (Object.keys(errors).length > 0 || "error" in config) return { body: null, errors };
  return {
    body: {
      name,
      type: draft.type,
      prompt,
      config: config.value,
      labels,
      ...(tags.length > 0 ? { tags } : {}),
      ...(draft.commitMessage.trim() ? { commitMessage: draft.commitMessage.trim() } : {}),
    },
    errors: null,
  };
}

/** A draft that starts from an existing version (the "New version" editor). */
export function draftFrom(version: { name: string; type: string; prompt: unknown; config: unknown; tags: string[] }): Draft {
  const draft = emptyDraft(version.name);
  draft.type = version.type === "chat" ? "chat" : "text";
  if (typeof version.prompt === "string") draft.text = version.prompt;
  if (Array.isArray(version.prompt)) {
    draft.messages = version.prompt.map((m: Record<string, unknown>) =>
      m.type === "placeholder" ? { role: PLACEHOLDER, content: String(m.name ?? "") } : { role: String(m.role ?? ""), content: String(m.content ?? "") },
    );
  }
  draft.config = JSON.stringify(version.config ?? {}, null, 2);
  draft.tags = version.tags.join(", ");
  return draft;
}
