// The datasets pages' calls: the public dataset routes as the signed-in person (writes need MEMBER
// or above; the server refuses a VIEWER), and the two session reads of `/api/ui` that the public
// API has no cheap answer for (the list's counts, the runs side by side).

import { api } from "../../api/client";
import type { ProjectApi } from "../../api/public";

export interface PageMeta {
  page: number;
  limit: number;
  totalItems: number;
  totalPages: number;
}

export interface Paged<T> {
  data: T[];
  meta: PageMeta;
}

export interface Dataset {
  id: string;
  name: string;
  description: string | null;
  metadata: unknown;
  inputSchema: unknown;
  expectedOutputSchema: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface DatasetOverview extends Dataset {
  itemCount: number;
  runCount: number;
  lastRunAt: string | null;
}

export type ItemStatus = "ACTIVE" | "ARCHIVED";

export interface DatasetItem {
  id: string;
  status: ItemStatus;
  input: unknown;
  expectedOutput: unknown;
  metadata: unknown;
  sourceTraceId: string | null;
  sourceObservationId: string | null;
  datasetName: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewDataset {
  name: string;
  description?: string | null;
  metadata?: unknown;
  inputSchema?: unknown;
  expectedOutputSchema?: unknown;
}

export interface ItemWrite {
  datasetName: string;
  id?: string;
  input?: unknown;
  expectedOutput?: unknown;
  metadata?: unknown;
  status?: ItemStatus;
}

export interface DatasetRun {
  id: string;
  name: string;
  description: string | null;
  createdAt: string;
}

export interface CellScore {
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
}

export interface RunCell {
  runId: string;
  itemId: string;
  traceId: string;
  observationId: string | null;
  output: unknown;
  outputTruncated: boolean;
  latency: number | null;
  totalCost: number | null;
  scores: CellScore[];
}

export interface RunSummary {
  runId: string;
  itemCount: number;
  avgLatency: number | null;
  avgTotalCost: number | null;
  avgScores: { name: string; value: number; count: number }[];
}

export interface Comparison {
  items: Paged<DatasetItem>;
  runs: RunSummary[];
  cells: RunCell[];
}

export interface Experiment {
  id: string;
  name: string;
  description: string | null;
  startTime: string;
  endTime: string;
  itemCount: number;
  datasetId: string | null;
}

/** Items per page of the items list and of the comparison (the server allows up to 100). */
export const ITEMS_PAGE_SIZE = 50;
/** The most runs side by side (the server's bound). */
export const MAX_COMPARED_RUNS = 5;

const name = (dataset: string) => encodeURIComponent(dataset);

export function datasetsApi(project: ProjectApi) {
  const ui = `/api/ui/projects/${encodeURIComponent(project.projectId)}/datasets`;
  return {
    list(page: number, signal?: AbortSignal, limit = ITEMS_PAGE_SIZE): Promise<Paged<DatasetOverview>> {
      return api.get(ui, { query: { page, limit }, ...(signal ? { signal } : {}) });
    },
    get(dataset: string, signal?: AbortSignal): Promise<Dataset> {
      return project.get(`v2/datasets/${name(dataset)}`, undefined, signal);
    },
    /** Creates, or updates by name. */
    save(body: NewDataset): Promise<Dataset> {
      return project.post("v2/datasets", body);
    },
    items(dataset: string, page: number, signal?: AbortSignal): Promise<Paged<DatasetItem>> {
      return project.get("dataset-items", { datasetName: dataset, page, limit: ITEMS_PAGE_SIZE }, signal);
    },
    /** Creates an item, or a new version of it (`id` set). */
    saveItem(body: ItemWrite): Promise<DatasetItem> {
      return project.post("dataset-items", body);
    },
    runs(dataset: string, signal?: AbortSignal): Promise<Paged<DatasetRun>> {
      return project.get(`datasets/${name(dataset)}/runs`, { limit: 100 }, signal);
    },
    compare(dataset: string, runIds: readonly string[], page: number, signal?: AbortSignal): Promise<Comparison> {
      return api.get(`${ui}/${name(dataset)}/compare`, {
        query: { runId: runIds, page, limit: ITEMS_PAGE_SIZE },
        ...(signal ? { signal } : {}),
      });
    },
    experiments(fromStartTime: string, cursor: string | null, signal?: AbortSignal): Promise<{ data: Experiment[]; meta: { cursor?: string | null } }> {
      return project.get("experiments", { fromStartTime, limit: 50, ...(cursor ? { cursor } : {}) }, signal);
    },
  };
}

export type DatasetsApi = ReturnType<typeof datasetsApi>;
