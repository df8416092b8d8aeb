// A prompt version's body as people read it: a text, or chat messages as a conversation (one block
// per message with its role; placeholders as the slot they are), references to other prompts
// marked (and linked to their prompt) where the raw body still has them; then the config.

import { Fragment, type ReactNode } from "react";
import { Link } from "react-router";

import { promptPath } from "./folders";

const REFERENCE = /@@@langfusePrompt:([^@]*)@@@/g;

/** The text with each `@@@langfusePrompt:name=…|version=…@@@` tag marked and linked. `toPrompts` is
 * the path from the current page back to the prompts page. */
export function withReferences(text: string, toPrompts: string): ReactNode {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(REFERENCE)) {
    const at = match.index ?? 0;
    parts.push(text.slice(last, at));
    const fields = new URLSearchParams((match[1] ?? "").replace(/\|/g, "&"));
    const name = fields.get("name");
    const version = fields.get("version");
    const label = fields.get("label");
    parts.push(
      <mark key={at} className="prompts__reference" title="A reference to another prompt, replaced by its text when resolved">
        {name ? (
          <Link to={`${toPrompts}/${promptPath(name)}${version ? `?version=${encodeURIComponent(version)}` : label ? `?label=${encodeURIComponent(label)}` : ""}`}>
            {match[0]}
          </Link>
        ) : (
          match[0]
        )}
      </mark>,
    );
    last = at + match[0].length;
  }
  parts.push(text.slice(last));
  return parts.map((p, i) => <Fragment key={i}>{p}</Fragment>);
}

export function hasReferences(prompt: unknown): boolean {
  const test = (s: unknown) => typeof s === "string" && s.includes("@@@langfusePrompt:");
  if (Array.isArray(prompt)) return prompt.some((m: Record<string, unknown>) => test(m?.content));
  return test(prompt);
}

export function PromptBody({ prompt, toPrompts }: { prompt: unknown; toPrompts: string }) {
  if (typeof prompt === "string") {
    return <pre className="prompts__text" aria-label="Prompt text">{withReferences(prompt, toPrompts)}</pre>;
  }
  if (!Array.isArray(prompt)) return <pre className="prompts__text">{JSON.stringify(prompt, null, 2)}</pre>;
  return (
    <ol className="prompts__chat" aria-label="Chat messages">
      {prompt.map((message: Record<string, unknown>, index) =>
        message?.type === "placeholder" ? (
          <li key={index} className="prompts__message prompts__message--placeholder">
            <div className="prompts__role">placeholder</div>
            <code>{`{{${String(message.name ?? "")}}}`}</code>
            <span className="muted"> — filled with a list of messages when the prompt is compiled</span>
          </li>
        ) : (
          <li key={index} className={`prompts__message prompts__message--${String(message?.role ?? "").replace(/[^a-z]/gi, "")}`}>
            <div className="prompts__role">{String(message?.role ?? "")}</div>
            <pre className="prompts__text">
              {typeof message?.content === "string" ? withReferences(message.content, toPrompts) : JSON.stringify(message?.content, null, 2)}
            </pre>
          </li>
        ),
      )}
    </ol>
  );
}
