// The start of a trace's input or output on the session page: chat messages as a conversation,
// other JSON pretty-printed, text as it is; a few lines at first, the rest of the preview on
// request; a value longer than the preview can be loaded whole (fetched and parsed in the JSON
// worker, as the trace panel does) or read in the trace.

import { useId, useMemo, useState } from "react";
import { Link } from "react-router";

import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { Rendered, useFullValue } from "../../components/value/FullValue";
import { formatCount } from "../../components/format";

/** Characters above which a preview starts folded. */
const FOLD_CHARS = 320;
const FOLD_LINES = 6;

interface Message {
  role: string;
  content: string;
}

export type Rendered = { kind: "messages"; messages: Message[] } | { kind: "text"; text: string };

function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    // OpenAI's parts: [{type: "text", text}, {type: "image_url", …}].
    const parts = content.map((part) =>
      typeof part === "object" && part !== null && typeof (part as { text?: unknown }).text === "string"
        ? (part as { text: string }).text
        : `[${String((part as { type?: unknown })?.type ?? "part")}]`,
    );
    return parts.join("\n");
  }
  return content === null || content === undefined ? "" : null;
}

function asMessages(value: unknown): Message[] | null {
  const list =
    Array.isArray(value) ? value : typeof value === "object" && value !== null ? (value as { messages?: unknown }).messages : null;
  const items = Array.isArray(list) ? list : typeof value === "object" && value !== null && "role" in value ? [value] : null;
  if (!items || items.length === 0) return null;
  const messages: Message[] = [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) return null;
    const { role, content } = item as { role?: unknown; content?: unknown };
    const text = contentText(content);
    if (typeof role !== "string" || text === null) return null;
    messages.push({ role, content: text });
  }
  return messages;
}

/** How a stored value reads best. A cut value is no JSON: it stays text. */
export function render(text: string, complete: boolean): Rendered {
  if (!complete) return { kind: "text", text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "text", text };
  }
  if (typeof value === "string") return { kind: "text", text: value };
  const messages = asMessages(value);
  if (messages) return { kind: "messages", messages };
  return { kind: "text", text: JSON.stringify(value, null, 2) };
}

interface IoPreviewProps {
  label: "Input" | "Output";
  text: string | null;
  /** The whole value's length; more than `text` when the server cut it. */
  chars: number;
  traceHref: string;
  /** Where the whole value is read (the root observation's value route). */
  fullUrl: string;
}

export function IoPreview({ label, text, chars, traceHref, fullUrl }: IoPreviewProps) {
  const [open, setOpen] = useState(false);
  const [full, loadFull] = useFullValue(fullUrl);
  const id = useId();
  const complete = text !== null && [...text].length >= chars;
  const rendered = useMemo(() => (text === null ? null : render(text, complete)), [text, complete]);
  if (text === null || rendered === null) {
    return (
      <section className="io" aria-label={label}>
        <h4 className="io__label">{label}</h4>
        <p className="io__none">No {label.toLowerCase()}</p>
      </section>
    );
  }
  if (full.status === "done") {
    return (
      <section className="io" aria-label={label}>
        <h4 className="io__label">{label}</h4>
        <div className="io__body">
          <Rendered doc={full.value.doc} chat={full.value.chat} view="formatted" label={label} />
        </div>
      </section>
    );
  }
  const shown = rendered.kind === "text" ? rendered.text : rendered.messages.map((m) => m.content).join("\n");
  const long = shown.length > FOLD_CHARS || shown.split("\n").length > FOLD_LINES;
  const folded = long && !open;

  return (
    <section className="io" aria-label={label}>
      <h4 className="io__label">{label}</h4>
      <div id={id} className={`io__body${folded ? " io__body--folded" : ""}`}>
        {rendered.kind === "messages" ? (
          <ol className="io__messages">
            {rendered.messages.map((message, index) => (
              <li key={index} className={`io__message io__message--${message.role}`}>
                <span className="io__role">{message.role}</span>
                <span className="io__content">{message.content}</span>
              </li>
            ))}
          </ol>
        ) : (
          <pre className="io__text">{rendered.text}</pre>
        )}
      </div>
      <div className="io__actions">
        {long && (
          <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
            {open ? `Show less of the ${label.toLowerCase()}` : `Show more of the ${label.toLowerCase()}`}
          </Button>
        )}
        {!complete && (
          <>
            <Button size="sm" onClick={loadFull} busy={full.status === "loading"}>
              Show the whole {label.toLowerCase()}
            </Button>
            <span className="muted">
              First {formatCount([...text].length)} of {formatCount(chars)} characters ·{" "}
              <Link to={traceHref}>open the trace</Link>
            </span>
          </>
        )}
        {full.status === "error" && <InlineError>Could not load the whole {label.toLowerCase()}: {full.message}</InlineError>}
      </div>
    </section>
  );
}
