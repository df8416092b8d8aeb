// A conversation: one block per message with its role, text as markdown, tool calls and results
// with their arguments as JSON trees. Long conversations show their first 100 messages and the rest
// on request.

import { useMemo, useState } from "react";

import type { ChatMessage, ChatPart } from "./chat";
import { localDoc } from "./jsonDoc";
import { JsonTree } from "./JsonTree";
import { TextBlock } from "./TextBlock";
import "./value.css";

const FIRST_MESSAGES = 100;

function Json({ value, label }: { value: unknown; label: string }) {
  const doc = useMemo(() => localDoc(value), [value]);
  return <JsonTree doc={doc} label={label} openDepth={1} />;
}

function Part({ part, markdown }: { part: ChatPart; markdown: boolean }) {
  switch (part.kind) {
    case "text":
      return <TextBlock text={part.text} markdown={markdown} />;
    case "image":
      return (
        <p className="chat__media">
          Image: <span className="mono">{part.url.startsWith("data:") ? `${part.url.slice(0, 40)}…` : part.url}</span>
        </p>
      );
    case "tool-call":
      return (
        <div className="chat__tool">
          <div className="chat__tool-name">
            Tool call <strong>{part.name}</strong>
            {part.id && <span className="mono muted"> {part.id}</span>}
          </div>
          <Json value={part.arguments} label={`Arguments of ${part.name}`} />
        </div>
      );
    case "tool-result":
      return (
        <div className="chat__tool">
          <div className="chat__tool-name">
            Tool result{part.name && <strong> {part.name}</strong>}
            {part.id && <span className="mono muted"> {part.id}</span>}
          </div>
          {typeof part.content === "string" ? <TextBlock text={part.content} markdown={markdown} /> : <Json value={part.content} label="Tool result" />}
        </div>
      );
    case "json":
      return <Json value={part.value} label="Message part" />;
  }
}

export function ChatView({ messages, markdown = true }: { messages: ChatMessage[]; markdown?: boolean }) {
  const [all, setAll] = useState(messages.length <= FIRST_MESSAGES);
  const shown = all ? messages : messages.slice(0, FIRST_MESSAGES);
  return (
    <ol className="chat" aria-label="Conversation">
      {shown.map((message, index) => (
        <li key={index} className={`chat__message chat__message--${message.role.replace(/[^a-z]/gi, "")}`}>
          <div className="chat__role">
            {message.role}
            {message.name && <span className="muted"> · {message.name}</span>}
          </div>
          {message.parts.length === 0 ? (
            <p className="muted">(empty)</p>
          ) : (
            message.parts.map((part, n) => <Part key={n} part={part} markdown={markdown} />)
          )}
        </li>
      ))}
      {!all && (
        <li>
          <button type="button" className="link-button" onClick={() => setAll(true)}>
            Show all {messages.length.toLocaleString()} messages
          </button>
        </li>
      )}
    </ol>
  );
}
