// One large value of an observation (input, output, metadata): its bounded preview at once, and on
// "Show full value" the whole of it, fetched and parsed in the JSON worker. A conversation is shown
// as one (with a JSON view a click away), a string as markdown (or raw), anything else as a
// collapsible JSON tree.

import { useMemo, useState, type ReactNode } from "react";

import type { MetadataPreview, ValuePreview } from "../../api/trace";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { detectChat, type ChatMessage } from "../../components/value/chat";
import { Rendered, useFullValue, type Full, type View } from "../../components/value/FullValue";
import { localDoc, type JsonDoc } from "../../components/value/jsonDoc";
import { JsonTree } from "../../components/value/JsonTree";
import { formatBytes, readPreview } from "./preview";

interface FrameProps {
  label: string;
  bytes: number;
  /** Formatted / JSON (or Raw) switch, when the value has two faces. */
  toggle?: { view: View; alternative: string; onChange(view: View): void } | undefined;
  children: ReactNode;
}

function Frame({ label, bytes, toggle, children }: FrameProps) {
  return (
    <section className="value-view" aria-label={label}>
      <header className="value-view__header">
        <h3 className="section-title">{label}</h3>
        <span className="muted value-view__size">{bytes > 0 ? formatBytes(bytes) : ""}</span>
        {toggle && (
          <div className="segmented" role="group" aria-label={`${label} view`}>
            <button type="button" aria-pressed={toggle.view === "formatted"} onClick={() => toggle.onChange("formatted")}>
              Formatted
            </button>
            <button type="button" aria-pressed={toggle.view === "json"} onClick={() => toggle.onChange("json")}>
              {toggle.alternative}
            </button>
          </div>
        )}
      </header>
      <div className="value-view__body">{children}</div>
    </section>
  );
}

function FullValueButton({ full, load, bytes }: { full: Full; load(): void; bytes: number }) {
  return (
    <div className="value-view__more">
      <Button size="sm" onClick={load} busy={full.status === "loading"}>
        Show full value ({formatBytes(bytes)})
      </Button>
      {full.status === "error" && <InlineError>Could not load the full value: {full.message}</InlineError>}
    </div>
  );
}

function toggleFor(doc: JsonDoc, chat: ChatMessage[] | null, view: View, setView: (view: View) => void) {
  if (chat) return { view, alternative: "JSON", onChange: setView };
  if (doc.root.kind === "string") return { view, alternative: "Raw", onChange: setView };
  return undefined;
}

/** Input or output. */
export function ValueView({ label, preview, fullUrl }: { label: string; preview: ValuePreview; fullUrl: string }) {
  const [full, load] = useFullValue(fullUrl);
  const [view, setView] = useState<View>("formatted");
  const shown = useMemo(() => readPreview(preview), [preview]);
  const local = useMemo(() => (shown.kind === "value" ? { doc: localDoc(shown.value), chat: detectChat(shown.value) } : null), [shown]);

  if (full.status === "done") {
    const { doc, chat } = full.value;
    return (
      <Frame label={label} bytes={preview.bytes} toggle={toggleFor(doc, chat, view, setView)}>
        <Rendered doc={doc} chat={chat} view={view} label={label} />
      </Frame>
    );
  }
  if (shown.kind === "empty") {
    return (
      <Frame label={label} bytes={0}>
        <p className="muted">No {label.toLowerCase()}.</p>
      </Frame>
    );
  }
  if (shown.kind === "truncated") {
    return (
      <Frame label={label} bytes={preview.bytes}>
        <p className="value-view__note">
          Showing the first {shown.text.length.toLocaleString()} characters of {formatBytes(shown.bytes)}.
        </p>
        <pre className="text-block__text value-view__preview">{shown.text}…</pre>
        <FullValueButton full={full} load={load} bytes={shown.bytes} />
      </Frame>
    );
  }
  const { doc, chat } = local as { doc: JsonDoc; chat: ChatMessage[] | null };
  return (
    <Frame label={label} bytes={preview.bytes} toggle={toggleFor(doc, chat, view, setView)}>
      <Rendered doc={doc} chat={chat} view={view} label={label} />
    </Frame>
  );
}

/** The metadata: its values at once (long ones cut), all of it on request. */
export function MetadataView({ metadata, fullUrl }: { metadata: MetadataPreview; fullUrl: string }) {
  const [full, load] = useFullValue(fullUrl);
  const doc = useMemo(() => localDoc(metadata.values), [metadata]);
  const empty = Object.keys(metadata.values).length === 0;
  return (
    <Frame label="Metadata" bytes={metadata.bytes}>
      {full.status === "done" ? (
        <JsonTree doc={full.value.doc} label="Metadata" />
      ) : empty ? (
        <p className="muted">No metadata.</p>
      ) : (
        <>
          {metadata.truncated && <p className="value-view__note">Long values are cut here.</p>}
          <JsonTree doc={doc} label="Metadata" />
          {metadata.truncated && <FullValueButton full={full} load={load} bytes={metadata.bytes} />}
        </>
      )}
    </Frame>
  );
}
