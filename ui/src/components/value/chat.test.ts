import { describe, expect, it } from "vitest";

import { detectChat } from "./chat";

describe("detectChat", () => {
  it("reads OpenAI messages, content parts and tool calls", () => {
    const chat = detectChat([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "What is in this image?" }, { type: "image_url", image_url: { url: "https://x/y.png" } }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":"cats"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "3 cats" },
    ]);
    expect(chat?.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(chat?.[1]?.parts).toEqual([
      { kind: "text", text: "What is in this image?" },
      { kind: "image", url: "https://x/y.png" },
    ]);
    expect(chat?.[2]?.parts).toEqual([{ kind: "tool-call", name: "lookup", id: "c1", arguments: { q: "cats" } }]);
    expect(chat?.[3]?.parts).toEqual([{ kind: "tool-result", id: "c1", content: "3 cats" }]);
  });

  it("reads the wrappers: {messages}, {system, messages}, {choices}, one message", () => {
    expect(detectChat({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })?.[0]?.role).toBe("user");
    const anthropic = detectChat({
      system: "You are terse.",
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "search", input: { q: 1 } }] }],
    });
    expect(anthropic?.map((m) => m.role)).toEqual(["system", "assistant"]);
    expect(anthropic?.[1]?.parts[0]).toEqual({ kind: "tool-call", name: "search", id: "t1", arguments: { q: 1 } });
    const completion = detectChat({ id: "x", choices: [{ index: 0, message: { role: "assistant", content: "Hello" } }] });
    expect(completion).toEqual([{ role: "assistant", parts: [{ kind: "text", text: "Hello" }] }]);
    expect(detectChat({ role: "assistant", content: "Hi" })).toEqual([{ role: "assistant", parts: [{ kind: "text", text: "Hi" }] }]);
  });

  it("reads Gemini, LangChain and the Vercel AI SDK", () => {
    expect(detectChat({ contents: [{ role: "model", parts: [{ text: "ok" }] }] })).toEqual([
      { role: "assistant", parts: [{ kind: "text", text: "ok" }] },
    ]);
    expect(detectChat([[{ type: "human", content: "hey" }, { type: "ai", content: "yo" }]])?.map((m) => m.role)).toEqual([
      "user",
      "assistant",
    ]);
    const serialized = detectChat([{ lc: 1, type: "constructor", id: ["langchain", "schema", "HumanMessage"], kwargs: { content: "q" } }]);
    expect(serialized).toEqual([{ role: "user", parts: [{ kind: "text", text: "q" }] }]);
    const vercel = detectChat([{ role: "assistant", content: [{ type: "tool-call", toolCallId: "a", toolName: "weather", args: { city: "Oslo" } }] }]);
    expect(vercel?.[0]?.parts[0]).toEqual({ kind: "tool-call", name: "weather", id: "a", arguments: { city: "Oslo" } });
  });

  it("says no to what is not a conversation", () => {
    expect(detectChat("hello")).toBeNull();
    expect(detectChat([1, 2, 3])).toBeNull();
    expect(detectChat([])).toBeNull();
    expect(detectChat({ query: "x", role: "admin" })).toBeNull();
    expect(detectChat([{ role: "user", content: "a" }, { other: true }])).toBeNull();
    expect(detectChat(null)).toBeNull();
  });
});
