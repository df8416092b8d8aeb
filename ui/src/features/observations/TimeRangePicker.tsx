// The time range: a preset relative to now (last hour … all time) or a custom span.

import { RANGE_PRESETS, isPreset, type TimeRange } from "./filters";

interface TimeRangePickerProps {
  range: TimeRange;
  onChange(range: TimeRange): void;
}

/** `datetime-local` values are local wall-clock time without a zone; the URL keeps ISO instants. */
function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function TimeRangePicker({ range, onChange }: TimeRangePickerProps) {
  const custom = !("preset" in range);
  return (
    <div className="time-range">
      <select
        aria-label="Time range"
        className="field__input"
        value={custom ? "custom" : range.preset}
        onChange={(e) => {
          const value = e.target.value;
          if (isPreset(value)) onChange({ preset: value });
          else onChange({ from: new Date(Date.now() - 86_400_000).toISOString() });
        }}
      >
        {RANGE_PRESETS.map((p) => (
          <option key={p.id} value={p.id}>
            {p.label}
          </option>
        ))}
        <option value="custom">Custom…</option>
      </select>
      {custom && (
        <>
          <input
            type="datetime-local"
            aria-label="From"
            className="field__input"
            value={toLocalInput(range.from)}
            onChange={(e) => onChange({ ...range, from: fromLocalInput(e.target.value) })}
          />
          <input
            type="datetime-local"
            aria-label="To"
            className="field__input"
            value={toLocalInput(range.to)}
            onChange={(e) => onChange({ ...range, to: fromLocalInput(e.target.value) })}
          />
        </>
      )}
    </div>
  );
}
