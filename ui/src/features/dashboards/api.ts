// Custom dashboards and widgets through the public API as the signed-in person
// (`/api/public/unstable/dashboards…`, `/api/public/unstable/dashboard-widgets…`; the SDK's shapes).

import type { ProjectApi } from "../../api/public";
import type { MetricsFilter } from "./filters";

export type WidgetFilter = MetricsFilter;

export interface Placement {
  type: "widget" | "preset";
  id: string;
  widgetId?: string;
  presetId?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Dashboard {
  id: string;
  createdAt: string;
  updatedAt: string;
  name: string;
  description: string;
  definition: { widgets: Placement[] };
  filters: WidgetFilter[];
}

export interface ChartConfig {
  type?: string;
  row_limit?: number;
  bins?: number;
  show_value_labels?: boolean;
}

export interface WidgetSpec {
  name: string;
  description: string;
  view: string;
  dimensions: { field: string }[];
  metrics: { measure: string; agg: string }[];
  filters: WidgetFilter[];
  chartType: string;
  chartConfig?: ChartConfig;
}

export interface Widget extends WidgetSpec {
  id: string;
  createdAt: string;
  updatedAt: string;
  chartConfig: ChartConfig;
}

interface Paged<T> {
  data: T[];
  meta: { totalItems: number };
}

const D = "unstable/dashboards";
const W = "unstable/dashboard-widgets";

export function dashboardsApi(api: ProjectApi) {
  return {
    list: (signal?: AbortSignal) => api.get<Paged<Dashboard>>(D, { limit: 100 }, signal),
    get: (id: string, signal?: AbortSignal) => api.get<Dashboard>(`${D}/${encodeURIComponent(id)}`, undefined, signal),
    create: (name: string, description: string) => api.post<Dashboard>(D, { name, description }),
    remove: (id: string) => api.delete<{ message: string }>(`${D}/${encodeURIComponent(id)}`),
    addPlacement: (id: string, widgetId: string) =>
      api.post<Placement>(`${D}/${encodeURIComponent(id)}/placements`, { type: "widget", widgetId }),
    removePlacement: (id: string, placementId: string) =>
      api.delete<{ message: string }>(`${D}/${encodeURIComponent(id)}/placements/${encodeURIComponent(placementId)}`),
    widget: (id: string, signal?: AbortSignal) => api.get<Widget>(`${W}/${encodeURIComponent(id)}`, undefined, signal),
    createWidget: (spec: WidgetSpec) => api.post<Widget>(W, spec),
    updateWidget: (id: string, spec: WidgetSpec) => api.patch<Widget>(`${W}/${encodeURIComponent(id)}`, spec),
    removeWidget: (id: string) => api.delete<{ message: string }>(`${W}/${encodeURIComponent(id)}`),
  };
}

export type DashboardsApi = ReturnType<typeof dashboardsApi>;
