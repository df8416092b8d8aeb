// Recognising a conversation in an input or output, in the shapes the common SDKs log, so it can be
// shown as one: OpenAI chat messages (`[{role, content}]`, content parts, tool calls, `{messages}`
// and `{choices: [{message}]}`), Anthropic (`{system, messages}`, text / tool_use / tool_result
// blocks), Gemini (`{contents: [{role, parts}]}`), LangChain (`{type: "human", content}` and
// serialized `HumanMessage` constructors) and the Vercel AI SDK (`tool-call` / `tool-result` parts).

export type ChatPart =
  | { kind: "text"; text: string }
  | { kind: "image"; url: string }
  | { kind: "tool-call"; name: string; id?: string; arguments: unknown }
  | { kind: "tool-result"; id?: string; name?: string; content: unknown }
  | { kind: "json"; value: unknown };

export interface ChatMessage {
  role: string;
  name?: string;
  parts: ChatPart[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const LANGCHAIN_ROLES: Record<string, string> = {
  human: "user",
  HumanMessage: "user",
  ai: "assistant",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  system: "system",
  SystemMessage: "system",
  tool: "tool",
  ToolMessage: "tool",
  function: "tool",
  FunctionMessage: "tool",
  chat: "user",
  ChatMessage: "user",
};

/** Tool call arguments are JSON text in OpenAI's shape; shown parsed when they parse. */
function parsedArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function part(value: unknown): ChatPart | null {
  if (typeof value === "string") return { kind: "text", text: value };
  if (!isObject(value)) return value === null || value === undefined ? null : { kind: "json", value };
  const type = value.type;
  if ((type === "text" || type === "input_text" || type === "output_text") && typeof value.text === "string") {
    return { kind: "text", text: value.text };
  }
  if (type === undefined && typeof value.text === "string" && Object.keys(value).length === 1) {
    return { kind: "text", text: value.text }; // Gemini's `{text}` part
  }
  if (type === "image_url") {
    const image = value.image_url;
    const url = typeof image === "string" ? image : isObject(image) && typeof image.url === "string" ? image.url : null;
    if (url) return { kind: "image", url };
  }
  if (type === "image" && isObject(value.source) && typeof value.source.url === "string") {
    return { kind: "image", url: value.source.url };
  }
  if (type === "tool_use" && typeof value.name === "string") {
    return { kind: "tool-call", name: value.name, ...(typeof value.id === "string" ? { id: value.id } : {}), arguments: value.input };
  }
  if (type === "tool-call" && typeof value.toolName === "string") {
    const id = typeof value.toolCallId === "string" ? { id: value.toolCallId } : {};
    return { kind: "tool-call", name: value.toolName, ...id, arguments: value.args ?? value.input };
  }
  if (type === "tool_result" || type === "tool-result") {
    const id = value.tool_use_id ?? value.toolCallId;
    return {
      kind: "tool-result",
      ...(typeof id === "string" ? { id } : {}),
      ...(typeof value.toolName === "string" ? { name: value.toolName } : {}),
      content: value.content ?? value.result ?? value.output,
    };
  }
  if (isObject(value.functionCall) && typeof value.functionCall.name === "string") {
    return { kind: "tool-call", name: value.functionCall.name, arguments: value.functionCall.args };
  }
  return { kind: "json", value };
}

function parts(content: unknown): ChatPart[] {
  if (content === null || content === undefined) return [];
  const list = Array.isArray(content) ? content : [content];
  return list.map(part).filter((p): p is ChatPart => p !== null);
}

/** One message, or null when `value` is not one. */
function message(raw: unknown): ChatMessage | null {
  if (!isObject(raw)) return null;
  let value: Json = raw;
  let role: string | null = null;
  let content: unknown;
  if (typeof value.role === "string") {
    role = value.role === "model" ? "assistant" : value.role;
    content = "content" in value ? value.content : value.parts;
    if (!("content" in value) && !("parts" in value) && !("tool_calls" in value) && !("function_call" in value)) return null;
  } else if (typeof value.type === "string" && LANGCHAIN_ROLES[value.type] && "content" in value) {
    role = LANGCHAIN_ROLES[value.type] as string;
    content = value.content;
  } else if (value.lc === 1 && Array.isArray(value.id) && isObject(value.kwargs)) {
    const kind = value.id[value.id.length - 1];
    if (typeof kind !== "string" || !LANGCHAIN_ROLES[kind]) return null;
    role = LANGCHAIN_ROLES[kind] as string;
    content = value.kwargs.content;
    value = { ...value.kwargs, role };
  } else {
    return null;
  }
  const out: ChatMessage = { role, parts: parts(content) };
  if (typeof value.name === "string") out.name = value.name;
  const calls = Array.isArray(value.tool_calls) ? value.tool_calls : [];
  for (const call of calls) {
    if (!isObject(call)) continue;
    const fn = isObject(call.function) ? call.function : call;
    const name = typeof fn.name === "string" ? fn.name : "tool";
    const id = typeof call.id === "string" ? { id: call.id } : {};
    out.parts.push({ kind: "tool-call", name, ...id, arguments: parsedArguments(fn.arguments ?? fn.args) });
  }
  if (isObject(value.function_call) && typeof value.function_call.name === "string") {
    out.parts.push({ kind: "tool-call", name: value.function_call.name, arguments: parsedArguments(value.function_call.arguments) });
  }
  if (role === "tool" && typeof value.tool_call_id === "string") {
    out.parts = [{ kind: "tool-result", id: value.tool_call_id, content: content }];
  }
  return out;
}

function messages(list: unknown[]): ChatMessage[] | null {
  if (list.length === 0) return null;
  const out: ChatMessage[] = [];
  for (const item of list) {
    const m = message(item);
    if (!m) return null;
    out.push(m);
  }
  return out;
}

/** The conversation `value` holds, or null when it holds none. */
export function detectChat(value: unknown): ChatMessage[] | null {
  if (Array.isArray(value)) {
    // LangChain batches: `[[messages]]`.
    if (value.length === 1 && Array.isArray(value[0])) return detectChat(value[0]);
    return messages(value);
  }
  if (!isObject(value)) return null;
  if (Array.isArray(value.messages)) {
    const found = messages(value.messages);
    if (!found) return null;
    if (typeof value.system === "string" || Array.isArray(value.system)) {
      return [{ role: "system", parts: parts(value.system) }, ...found];
    }
    return found;
  }
  if (Array.isArray(value.contents)) return messages(value.contents);
  if (Array.isArray(value.choices)) {
    const found = value.choices.map((choice) => (isObject(choice) ? message(choice.message ?? choice.delta) : null));
    return found.length > 0 && found.every((m) => m !== null) ? (found as ChatMessage[]) : null;
  }
  const one = message(value);
  return one ? [one] : null;
}
