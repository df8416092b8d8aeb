// A JSON value as a collapsible tree, read a page at a time from a `JsonDoc` (main thread or the
// JSON worker): nodes open to depth 2, big objects and arrays show 100 entries and more on request,
// long strings their first 2 000 characters and more on request.

import { useEffect, useState } from "react";

import type { JsonDoc } from "./jsonDoc";
import { PAGE_SIZE, type JsonEntry, type JsonPath } from "./jsonModel";
import "./value.css";

/** Characters of a long string added per "Show more". */
const STRING_STEP = 50_000;

interface JsonTreeProps {
  doc: JsonDoc;
  label: string;
  /** Nodes above this depth start open. */
  openDepth?: number;
}

export function JsonTree({ doc, label, openDepth = 2 }: JsonTreeProps) {
  return (
    <div className="json-tree" role="tree" aria-label={label}>
      <JsonNode doc={doc} entry={doc.root} path={[]} depth={0} openDepth={openDepth} />
    </div>
  );
}

interface NodeProps {
  doc: JsonDoc;
  entry: JsonEntry;
  path: JsonPath;
  depth: number;
  openDepth: number;
  /** The key is shown (not for the root). */
  keyed?: boolean;
}

function Key({ entry }: { entry: JsonEntry }) {
  return typeof entry.key === "number" ? (
    <span className="json-tree__index">{entry.key}: </span>
  ) : (
    <span className="json-tree__key">{JSON.stringify(entry.key)}: </span>
  );
}

function JsonNode({ doc, entry, path, depth, openDepth, keyed = false }: NodeProps) {
  if (entry.kind === "object" || entry.kind === "array") {
    return <Container doc={doc} entry={entry} path={path} depth={depth} openDepth={openDepth} keyed={keyed} />;
  }
  return (
    <div className="json-tree__row" role="treeitem" aria-level={depth + 1} aria-selected={false}>
      <span className="json-tree__spacer" aria-hidden="true" />
      {keyed && <Key entry={entry} />}
      {entry.kind === "string" ? <StringValue doc={doc} entry={entry} path={path} /> : <span className={`json-tree__${entry.kind}`}>{entry.text}</span>}
    </div>
  );
}

function StringValue({ doc, entry, path }: { doc: JsonDoc; entry: JsonEntry; path: JsonPath }) {
  const [text, setText] = useState(entry.text ?? "");
  const [busy, setBusy] = useState(false);
  const length = entry.length ?? text.length;
  const more = async () => {
    setBusy(true);
    const next = await doc.string(path, text.length, STRING_STEP);
    setText((current) => current + next);
    setBusy(false);
  };
  return (
    <span className="json-tree__string">
      {JSON.stringify(text).slice(0, text.length < length ? -1 : undefined)}
      {text.length < length && (
        <>
          …{" "}
          <button type="button" className="link-button" onClick={() => void more()} disabled={busy}>
            Show more ({(length - text.length).toLocaleString()} more characters)
          </button>
        </>
      )}
    </span>
  );
}

function Container({ doc, entry, path, depth, openDepth, keyed }: NodeProps) {
  const size = entry.size ?? 0;
  const [open, setOpen] = useState(depth < openDepth && (depth === 0 || size <= PAGE_SIZE));
  const [children, setChildren] = useState<JsonEntry[] | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open || children !== null || size === 0) return;
    let live = true;
    void doc.children(path, 0, PAGE_SIZE).then((page) => {
      if (live) setChildren(page.entries);
    });
    return () => {
      live = false;
    };
  }, [open, children, doc, path, size]);

  const more = async () => {
    setBusy(true);
    const page = await doc.children(path, children?.length ?? 0, PAGE_SIZE);
    setChildren((current) => [...(current ?? []), ...page.entries]);
    setBusy(false);
  };
  const [openBracket, closeBracket] = entry.kind === "array" ? ["[", "]"] : ["{", "}"];
  const loaded = children?.length ?? 0;
  return (
    <div className="json-tree__node" role="treeitem" aria-level={depth + 1} aria-expanded={size > 0 ? open : undefined} aria-selected={false}>
      <div className="json-tree__row">
        {size > 0 ? (
          <button
            type="button"
            className="json-tree__toggle"
            aria-label={open ? "Collapse" : "Expand"}
            onClick={() => setOpen((o) => !o)}
          >
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="json-tree__spacer" aria-hidden="true" />
        )}
        {keyed && <Key entry={entry} />}
        <span className="json-tree__bracket">
          {openBracket}
          {!open || size === 0 ? (
            <>
              {size > 0 && <span className="json-tree__count"> {size.toLocaleString()} {entry.kind === "array" ? (size === 1 ? "item" : "items") : size === 1 ? "key" : "keys"} </span>}
              {closeBracket}
            </>
          ) : null}
        </span>
      </div>
      {open && size > 0 && (
        <div className="json-tree__children" role="group">
          {children === null ? (
            <div className="json-tree__row json-tree__muted">Loading…</div>
          ) : (
            children.map((child) => (
              <JsonNode
                key={String(child.key)}
                doc={doc}
                entry={child}
                path={[...path, child.key]}
                depth={depth + 1}
                openDepth={openDepth}
                keyed
              />
            ))
          )}
          {children !== null && loaded < size && (
            <div className="json-tree__row">
              <button type="button" className="link-button" onClick={() => void more()} disabled={busy}>
                Show {Math.min(PAGE_SIZE, size - loaded).toLocaleString()} more of {(size - loaded).toLocaleString()}
              </button>
            </div>
          )}
        </div>
      )}
      {open && size > 0 && (
        <div className="json-tree__row json-tree__bracket">
          <span className="json-tree__spacer" aria-hidden="true" />
          {closeBracket}
        </div>
      )}
    </div>
  );
}
