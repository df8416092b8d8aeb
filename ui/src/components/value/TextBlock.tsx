// A string from a trace: markdown when short enough to render at once, otherwise plain text shown
// a piece at a time, so a multi-megabyte string never becomes one giant DOM node.

import { useState } from "react";

import { Markdown } from "./Markdown";
import "./value.css";

/** Longer strings are shown as plain text. */
const MARKDOWN_LIMIT = 50_000;
/** Characters of plain text shown per step. */
const TEXT_STEP = 100_000;

interface TextBlockProps {
  text: string;
  /** The whole length when `text` is only the beginning (more comes from `loadMore`). */
  length?: number;
  loadMore?(offset: number, length: number): Promise<string>;
  /** Render markdown (a "Raw" toggle turns it off). */
  markdown?: boolean;
}

export function TextBlock({ text, length, loadMore, markdown = true }: TextBlockProps) {
  const [shown, setShown] = useState(() => text.slice(0, TEXT_STEP));
  const [busy, setBusy] = useState(false);
  const total = Math.max(length ?? text.length, text.length);
  if (markdown && total <= MARKDOWN_LIMIT && text.length === total) return <Markdown text={text} />;
  const more = async () => {
    setBusy(true);
    const next = shown.length < text.length ? text.slice(shown.length, shown.length + TEXT_STEP) : ((await loadMore?.(shown.length, TEXT_STEP)) ?? "");
    setShown((current) => current + next);
    setBusy(false);
  };
  return (
    <div className="text-block">
      <pre className="text-block__text">{shown}</pre>
      {shown.length < total && (
        <button type="button" className="link-button" onClick={() => void more()} disabled={busy}>
          Show more ({(total - shown.length).toLocaleString()} more characters)
        </button>
      )}
    </div>
  );
}
