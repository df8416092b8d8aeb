// A JSON value, pretty-printed, with a bounded preview: a large value shows its first characters at
// once and the rest on request. The trace engineer replaces the body (collapsible tree, chat
// messages, markdown, parsing off the main thread); the props stay.

import { useMemo, useState } from "react";

import { Button } from "./Button";

interface JsonViewerProps {
  value: unknown;
  /** Its accessible name ("Input", "Output", "Metadata"). */
  label: string;
  /** Characters shown before "Show all". */
  previewChars?: number;
}

export function JsonViewer({ value, label, previewChars = 20_000 }: JsonViewerProps) {
  const [full, setFull] = useState(false);
  const text = useMemo(() => (typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? "undefined"), [value]);
  const cut = !full && text.length > previewChars;
  return (
    <figure className="json-viewer" aria-label={label}>
      <pre className="json-viewer__text">{cut ? `${text.slice(0, previewChars)}…` : text}</pre>
      {cut && (
        <Button size="sm" onClick={() => setFull(true)}>
          Show all ({text.length.toLocaleString()} characters)
        </Button>
      )}
    </figure>
  );
}
