import { render as draw, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";

import { IoPreview, render } from "./IoPreview";

describe("render", () => {
  it("shows chat messages as a conversation, in any of the usual shapes", () => {
    const messages = [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Hi" }, { type: "image_url" }] },
    ];
    const expected = { kind: "messages", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi\n[image_url]" }] };
    expect(render(JSON.stringify(messages), true)).toEqual(expected);
    expect(render(JSON.stringify({ messages }), true)).toEqual(expected);
    expect(render(JSON.stringify({ role: "assistant", content: "Yes" }), true)).toEqual({
      kind: "messages",
      messages: [{ role: "assistant", content: "Yes" }],
    });
  });

  it("pretty-prints other JSON, unwraps a JSON string and leaves text and cut values alone", () => {
    expect(render('{"a":1}', true)).toEqual({ kind: "text", text: '{\n  "a": 1\n}' });
    expect(render('"why?"', true)).toEqual({ kind: "text", text: "why?" });
    expect(render("plain words", true)).toEqual({ kind: "text", text: "plain words" });
    expect(render('{"a":', false)).toEqual({ kind: "text", text: '{"a":' });
    expect(render('[{"role":"user","content":"x"}]', false).kind).toBe("text");
  });
});

describe("IoPreview", () => {
  it("folds a long value, unfolds on request, and offers the whole of what was cut", async () => {
    const text = "line\n".repeat(399) + "end!!";
    draw(
      <MemoryRouter>
        <IoPreview label="Input" text={text} chars={5000} traceHref="/project/p/traces/t" fullUrl="/value?field=input" />
      </MemoryRouter>,
    );
    const more = screen.getByRole("button", { name: "Show more of the input" });
    expect(more).toHaveAttribute("aria-expanded", "false");
    await userEvent.setup().click(more);
    expect(screen.getByRole("button", { name: "Show less of the input" })).toHaveAttribute("aria-expanded", "true");
    expect(screen.getByText(/First 2,000 of 5,000 characters/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "open the trace" })).toHaveAttribute("href", "/project/p/traces/t");
    expect(screen.getByRole("button", { name: "Show the whole input" })).toBeInTheDocument();
  });

  it("says when there is nothing, and does not fold a short value", () => {
    draw(
      <MemoryRouter>
        <IoPreview label="Output" text={null} chars={0} traceHref="/t" fullUrl="/v" />
        <IoPreview label="Input" text='"short"' chars={7} traceHref="/t" fullUrl="/v" />
      </MemoryRouter>,
    );
    expect(screen.getByText("No output")).toBeInTheDocument();
    expect(screen.getByText("short")).toBeInTheDocument();
    expect(screen.queryByRole("button")).toBeNull();
  });
});
