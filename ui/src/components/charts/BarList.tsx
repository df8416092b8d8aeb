// Horizontal bars, one row a group (a name, a model…), one bar a metric: the label and the value
// stay readable text, the bars are SVG. A row is a button when `onOpen` is given, so a person can
// go from a bar to what it counts.

import { formatNumber, niceTicks } from "./scale";

export interface BarRow {
  label: string;
  values: number[];
}

interface BarListProps {
  rows: readonly BarRow[];
  /** One name per value of a row. */
  metrics: readonly string[];
  format?: (v: number, metric: number) => string;
  onOpen?: (row: BarRow) => void;
  label: string;
}

export function BarList({ rows, metrics, format = formatNumber, onOpen, label }: BarListProps) {
  if (!rows.length) {
    return (
      <div className="chart chart--empty" role="img" aria-label={`${label}: no data in this range`}>
        No data in this range
      </div>
    );
  }
  // Each metric has its own scale: latency percentiles share one, but cost and tokens do not.
  const tops = metrics.map((_, m) => niceTicks(0, Math.max(...rows.map((r) => r.values[m] ?? 0))).at(-1) ?? 1);
  return (
    <div className="chart">
      <table className="bar-list" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {metrics.map((m) => (
              <th scope="col" key={m}>
                {m}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.label}>
              <th scope="row">
                {onOpen ? (
                  <button type="button" className="bar-list__open" onClick={() => onOpen(row)} title={`Open the observations of ${row.label}`}>
                    {row.label || "(none)"}
                  </button>
                ) : (
                  row.label || "(none)"
                )}
              </th>
              {metrics.map((m, i) => {
                const v = row.values[i] ?? 0;
                return (
                  <td key={m}>
                    <span className="bar-list__cell">
                      <svg viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" className="bar-list__bar">
                        <rect className={`chart__series--${i % 6}`} width={Math.max(0, (v / (tops[i] ?? 1)) * 100)} height="8" rx="1" />
                      </svg>
                      <span className="bar-list__value">{format(v, i)}</span>
                    </span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
