// A large value fetched whole and parsed in the JSON worker, and how it reads: a conversation as
// one, a string as markdown (or raw text), anything else as a collapsible JSON tree. The trace
// panel's values and the session page's previews both open their full value through it.

import { useEffect, useState } from "react";

import { ChatView } from "./ChatView";
import type { ChatMessage } from "./chat";
import { openFullValue, type FullValue, type JsonDoc } from "./jsonDoc";
import { JsonTree } from "./JsonTree";
import { TextBlock } from "./TextBlock";

export type Full = { status: "idle" } | { status: "loading" } | { status: "done"; value: FullValue } | { status: "error"; message: string };

export function useFullValue(url: string): [Full, () => void] {
  const [full, setFull] = useState<Full>({ status: "idle" });
  useEffect(() => {
    if (full.status !== "done") return;
    const doc = full.value.doc;
    return () => doc.close();
  }, [full]);
  const load = () => {
    setFull({ status: "loading" });
    openFullValue(url).then(
      (value) => setFull({ status: "done", value }),
      (error: unknown) => setFull({ status: "error", message: error instanceof Error ? error.message : String(error) }),
    );
  };
  return [full, load];
}

export type View = "formatted" | "json";

export function Rendered({ doc, chat, view, label }: { doc: JsonDoc; chat: ChatMessage[] | null; view: View; label: string }) {
  if (chat && view === "formatted") return <ChatView messages={chat} />;
  if (doc.root.kind === "string") {
    return (
      <TextBlock
        text={doc.root.text ?? ""}
        {...(doc.root.length !== undefined ? { length: doc.root.length } : {})}
        loadMore={(offset, length) => doc.string([], offset, length)}
        markdown={view === "formatted"}
      />
    );
  }
  return <JsonTree doc={doc} label={label} />;
}
