// A widget on its dashboard: its Metrics v2 query over the dashboard's time range, drawn as its
// chart type asks — time series as lines or bars, a single number, a pivot table, and every other
// type (bars, pie, histogram) as labelled bars, which read the same numbers.

import { BarList } from "../../components/charts/BarList";
import { formatNumber, granularityFor } from "../../components/charts/scale";
import { TimeChart } from "../../components/charts/TimeChart";
import { ErrorState, Loading } from "../../components/States";
import { useProject } from "../../app/project";
import { num, runMetrics, toSeries, toSeriesBy, type MetricRow } from "../home/queries";
import { useLoad } from "../../components/useLoad";
import type { Widget, WidgetFilter } from "./api";
import { isTimeSeries, metricKey, widgetQuery } from "./query";

interface WidgetTileProps {
  widget: Widget;
  from: number;
  to: number;
  filters: readonly WidgetFilter[];
}

export function WidgetTile({ widget, from, to, filters }: WidgetTileProps) {
  const { api } = useProject();
  const query = widgetQuery(widget, new Date(from).toISOString(), new Date(to).toISOString(), filters);
  const key = JSON.stringify(query);
  const rows = useLoad((signal) => runMetrics(api, query, signal), [api, key]);
  if (rows.error !== undefined && !rows.data) return <ErrorState error={rows.error} title="This widget's query failed" onRetry={rows.reload} />;
  if (!rows.data) return <Loading />;
  return <WidgetChart widget={widget} rows={rows.data} from={from} to={to} />;
}

const dimensionLabel = (widget: Widget, row: MetricRow) => widget.dimensions.map((d) => String(row[d.field] ?? "")).join(" · ");

export function WidgetChart({ widget, rows, from, to }: { widget: Widget; rows: MetricRow[]; from: number; to: number }) {
  const keys = widget.metrics.map(metricKey);
  const first = keys[0] ?? "";
  if (isTimeSeries(widget.chartType)) {
    const span = { from, to, granularity: granularityFor(from, to) };
    const dimension = widget.dimensions[0]?.field;
    const series = dimension
      ? toSeriesBy(rows, dimension, first)
      : keys.map((k) => ({ name: k, points: toSeries(rows, k, span) }));
    return <TimeChart series={series} from={from} to={to} kind={widget.chartType === "BAR_TIME_SERIES" ? "bar" : "line"} label={widget.name} />;
  }
  if (widget.chartType === "NUMBER") {
    return (
      <div className="widget-number" aria-label={`${widget.name} value`}>
        {formatNumber(num(rows[0]?.[first]))}
      </div>
    );
  }
  if (widget.chartType === "PIVOT_TABLE") {
    return (
      <div className="widget-table">
        <table className="bar-list" aria-label={widget.name}>
          <thead>
            <tr>
              {[...widget.dimensions.map((d) => d.field), ...keys].map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                {widget.dimensions.map((d) => (
                  <td key={d.field}>{String(row[d.field] ?? "")}</td>
                ))}
                {keys.map((k) => (
                  <td key={k}>{formatNumber(num(row[k]))}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  if (widget.chartType === "HISTOGRAM") {
    // ClickHouse's histogram: [[lower, upper, height], …] in the first row.
    const bins = Array.isArray(rows[0]?.[first]) ? (rows[0]?.[first] as unknown[][]) : [];
    const barRows = bins.map((b) => ({ label: `${formatNumber(num(b[0]))}–${formatNumber(num(b[1]))}`, values: [num(b[2])] }));
    return <BarList rows={barRows} metrics={["count"]} label={widget.name} />;
  }
  const barRows = rows.map((row) => ({ label: dimensionLabel(widget, row) || widget.name, values: keys.map((k) => num(row[k])) }));
  return <BarList rows={barRows} metrics={keys} label={widget.name} />;
}
