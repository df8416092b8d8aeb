// The score inputs of a queue's configs, one row each (the trace panel's inputs, so ranges,
// categories and booleans are respected the same way); the focused row takes the number keys and
// arrows (keys.ts).

import type { ScoreConfig } from "../../api/trace";
import { rangeHint, ValueInput } from "../trace/Scores";

interface ScorePadProps {
  configs: readonly ScoreConfig[];
  values: Readonly<Record<string, string>>;
  focus: number;
  onFocus(index: number): void;
  onChange(configId: string, raw: string): void;
}

/** Keys shown beside a config: what the number keys do for it. */
function keyHint(config: ScoreConfig): string {
  switch (config.dataType) {
    case "CATEGORICAL":
      return (config.categories ?? []).slice(0, 9).map((c, i) => `${i + 1} ${c.label}`).join(" · ");
    case "BOOLEAN":
      return "1 true · 0 false";
    case "NUMERIC":
      return "0–9 or ←/→";
    default:
      return "";
  }
}

export function ScorePad({ configs, values, focus, onFocus, onChange }: ScorePadProps) {
  return (
    <ol className="score-pad" aria-label="Scores to give">
      {configs.map((config, index) => {
        const id = `pad-${config.id}`;
        const hint = rangeHint(config);
        const raw = values[config.id] ?? "";
        return (
          <li key={config.id} className={`score-pad__row${index === focus ? " score-pad__row--focus" : ""}`} aria-current={index === focus || undefined} onClick={() => onFocus(index)}>
            <label className="field__label" htmlFor={id}>
              {config.name}
              {hint && <span className="muted"> ({hint})</span>}
            </label>
            {config.dataType === "NUMERIC" || config.dataType === "TEXT" ? (
              <ValueInput id={id} config={config} value={raw} onChange={(value) => onChange(config.id, value)} />
            ) : (
              <select id={id} className="field__input" value={raw} onChange={(event) => onChange(config.id, event.target.value)}>
                <option value="">—</option>
                {config.dataType === "BOOLEAN" ? (
                  <>
                    <option value="1">True</option>
                    <option value="0">False</option>
                  </>
                ) : (
                  (config.categories ?? []).map((category) => (
                    <option key={category.label} value={category.label}>
                      {category.label} ({category.value})
                    </option>
                  ))
                )}
              </select>
            )}
            <span className="muted score-pad__keys">{keyHint(config)}</span>
          </li>
        );
      })}
    </ol>
  );
}
