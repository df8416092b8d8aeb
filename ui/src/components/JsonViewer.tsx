// A value from a trace as people read it: a conversation as one (the common SDK shapes, see
// value/chat.ts), a string as markdown (never HTML), anything else as a collapsible JSON tree that
// opens a page of entries at a time. Long strings show their first `previewChars` characters and
// more on request. For values fetched in full from the server (megabytes), the trace panel's
// ValueView parses them off the main thread (value/json.worker.ts).

import { useMemo } from "react";

import { ChatView } from "./value/ChatView";
import { detectChat } from "./value/chat";
import { localDoc } from "./value/jsonDoc";
import { JsonTree } from "./value/JsonTree";
import { TextBlock } from "./value/TextBlock";

interface JsonViewerProps {
  value: unknown;
  /** Its accessible name ("Input", "Output", "Metadata"). */
  label: string;
  /** Characters of a long string shown before "Show more". */
  previewChars?: number;
}

export function JsonViewer({ value, label, previewChars = 20_000 }: JsonViewerProps) {
  const chat = useMemo(() => detectChat(value), [value]);
  const doc = useMemo(() => localDoc(value), [value]);
  return (
    <figure className="json-viewer" aria-label={label}>
      {chat ? (
        <ChatView messages={chat} />
      ) : typeof value === "string" ? (
        <TextBlock text={value.slice(0, previewChars)} length={value.length} loadMore={(offset, length) => Promise.resolve(value.slice(offset, offset + length))} />
      ) : (
        <JsonTree doc={doc} label={label} />
      )}
    </figure>
  );
}
