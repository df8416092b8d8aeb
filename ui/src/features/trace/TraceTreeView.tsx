// The trace tree: every observation as an indented row with a timeline bar (its start and duration
// within the trace's span), virtualized so 100 000 nodes cost what 50 do. Arrow keys move and
// fold when the tree has focus; j/k (the panel's) move from anywhere.

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef, type KeyboardEvent } from "react";

import { formatCost, formatDuration } from "./preview";
import { durationOf, levelOf, modelOf, nameOf, typeOf, type TraceModel } from "./tree";

const ROW_HEIGHT = 30;
/** Indentation per level, and the deepest level indented further. */
const INDENT = 14;
const MAX_INDENT_LEVEL = 24;

const TYPE_LABELS: Record<string, string> = {
  GENERATION: "GEN",
  SPAN: "SPAN",
  EVENT: "EVT",
  AGENT: "AGENT",
  TOOL: "TOOL",
  CHAIN: "CHAIN",
  RETRIEVER: "RETR",
  EMBEDDING: "EMB",
  EVALUATOR: "EVAL",
  GUARDRAIL: "GUARD",
  TRACE: "TRACE",
};

export function typeLabel(type: string): string {
  return TYPE_LABELS[type] ?? type.slice(0, 5);
}

interface TraceTreeViewProps {
  model: TraceModel;
  /** The rows shown, in order (collapsed subtrees left out). */
  rows: Int32Array;
  selected: number;
  collapsed: ReadonlySet<number>;
  onSelect(row: number): void;
  onToggle(row: number): void;
  /** For tests (jsdom has no layout). */
  initialRect?: { width: number; height: number };
}

export function TraceTreeView({ model, rows, selected, collapsed, onSelect, onToggle, initialRect }: TraceTreeViewProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
    ...(initialRect ? { initialRect } : {}),
  });
  const selectedIndex = rows.indexOf(selected);

  // When the first rows are on screen, for the timing of `just bench trace` (ui/scripts/trace-open.mjs).
  useEffect(() => {
    performance.mark("loupe:trace-rows", { detail: { rows: model.count } });
  }, [model]);

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  const span = model.span > 0 ? model.span : 1;
  const onKeyDown = (event: KeyboardEvent) => {
    const move = (by: number) => {
      const next = rows[Math.min(Math.max(selectedIndex + by, 0), rows.length - 1)];
      if (next !== undefined) onSelect(next);
    };
    if (event.key === "ArrowDown") move(1);
    else if (event.key === "ArrowUp") move(-1);
    else if (event.key === "Home") move(-rows.length);
    else if (event.key === "End") move(rows.length);
    else if (event.key === "ArrowRight" && selected >= 0 && (model.childCount[selected] as number) > 0 && collapsed.has(selected)) onToggle(selected);
    else if (event.key === "ArrowLeft" && selected >= 0 && (model.childCount[selected] as number) > 0 && !collapsed.has(selected)) onToggle(selected);
    else return;
    event.preventDefault();
  };

  return (
    <div
      ref={scroller}
      className="trace-tree"
      role="tree"
      aria-label="Trace tree"
      tabIndex={0}
      aria-activedescendant={selected >= 0 ? `trace-node-${selected}` : undefined}
      onKeyDown={onKeyDown}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index] as number;
          const depth = model.depth[row] as number;
          const children = model.childCount[row] as number;
          const open = !collapsed.has(row);
          const type = typeOf(model, row);
          const level = levelOf(model, row);
          const start = model.starts[row] as number;
          const duration = durationOf(model, row);
          const reach = duration === null ? (model.reach[row] as number) : start + duration;
          const left = (start / span) * 100;
          const width = Math.max(((reach - start) / span) * 100, 0.4);
          const tokens = model.tokens[row] as number;
          const cost = model.costs[row] as number;
          const llm = modelOf(model, row);
          const name = nameOf(model, row);
          const details = [
            llm,
            Number.isNaN(tokens) ? null : `${tokens.toLocaleString()} tokens`,
            Number.isNaN(cost) ? null : formatCost(cost),
            model.orphan[row] ? `parent ${model.missingParents.get(row) ?? "in a cycle"} not in this trace` : null,
          ].filter(Boolean);
          return (
            <div
              key={row}
              id={`trace-node-${row}`}
              role="treeitem"
              aria-level={depth + 1}
              aria-expanded={children > 0 ? open : undefined}
              aria-selected={row === selected}
              aria-label={`${type} ${name}`}
              data-observation-id={model.ids[row]}
              className={`trace-node${row === selected ? " trace-node--selected" : ""}${level === "ERROR" ? " trace-node--error" : level === "WARNING" ? " trace-node--warning" : ""}`}
              style={{ height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}
              onClick={() => onSelect(row)}
            >
              <div className="trace-node__label" style={{ paddingLeft: Math.min(depth, MAX_INDENT_LEVEL) * INDENT }}>
                {children > 0 ? (
                  <button
                    type="button"
                    tabIndex={-1}
                    className="trace-node__toggle"
                    aria-label={open ? `Collapse ${name}` : `Expand ${name}`}
                    onClick={(event) => {
                      event.stopPropagation();
                      onToggle(row);
                    }}
                  >
                    {open ? "▾" : "▸"}
                  </button>
                ) : (
                  <span className="trace-node__toggle" aria-hidden="true" />
                )}
                <span className={`type-badge type-badge--${type.toLowerCase()}`}>{typeLabel(type)}</span>
                <span className="trace-node__name" title={[name, ...details].join(" · ")}>
                  {name || <span className="muted">(unnamed)</span>}
                </span>
                {model.orphan[row] ? <span className="trace-node__orphan" title={details.at(-1) ?? undefined}>orphan</span> : null}
                {depth > MAX_INDENT_LEVEL && <span className="muted trace-node__depth">L{depth}</span>}
              </div>
              <div className="trace-node__time">
                <span className="trace-node__duration">{duration === null ? "" : formatDuration(duration)}</span>
                <span className="trace-node__track" aria-hidden="true">
                  <span className={`trace-node__bar trace-node__bar--${type.toLowerCase()}`} style={{ left: `${Math.min(left, 99.6)}%`, width: `${Math.min(width, 100 - Math.min(left, 99.6))}%` }} />
                </span>
              </div>
            </div>
          );
        })}
      </div>
    </div>
  );
}
