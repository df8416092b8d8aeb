// Exports through the public API as the signed-in person (docs/exports.md): the project's scheduled
// export to a bucket (`/api/public/integrations/blob-storage`, OWNER and ADMIN only — Langfuse's
// `integrations:CRUD`), and one-off batch exports of a filtered Observations view
// (`/api/public/batch-exports`, MEMBER and above).

import type { ProjectApi } from "../../api/public";

export const TARGET_TYPES = ["S3", "S3_COMPATIBLE", "AZURE_BLOB_STORAGE"] as const;
export const FREQUENCIES = ["every_20_minutes", "hourly", "daily"] as const;
export const FILE_TYPES = ["JSONL", "JSON", "CSV", "PARQUET"] as const;
export const MODES = ["FULL_HISTORY", "FROM_TODAY", "FROM_CUSTOM_DATE"] as const;
export const SOURCES = ["OBSERVATIONS_V2", "LEGACY_TRACES_OBSERVATIONS", "LEGACY_TRACES_AND_ENRICHED_OBSERVATIONS"] as const;
export const FIELD_GROUPS = ["core", "basic", "time", "io", "metadata", "model", "usage", "prompt", "metrics", "tools", "trace_context"] as const;

export type TargetType = (typeof TARGET_TYPES)[number];
export type Frequency = (typeof FREQUENCIES)[number] | "weekly";
export type FileType = (typeof FILE_TYPES)[number];
export type ExportMode = (typeof MODES)[number];
export type ExportSource = (typeof SOURCES)[number];
export type FieldGroup = (typeof FIELD_GROUPS)[number];
export type SyncStatus = "idle" | "running" | "queued" | "up_to_date" | "disabled" | "error";

export interface Integration {
  id: string;
  projectId: string;
  type: TargetType;
  bucketName: string;
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  prefix: string;
  exportFrequency: Frequency;
  enabled: boolean;
  forcePathStyle: boolean;
  fileType: FileType;
  exportMode: ExportMode;
  exportStartDate: string | null;
  compressed: boolean;
  exportSource: ExportSource;
  exportFieldGroups: FieldGroup[];
  nextSyncAt: string | null;
  lastSyncAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface IntegrationRequest {
  projectId: string;
  type: TargetType;
  bucketName: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  /** Omitted on an update: the stored secret is kept. */
  secretAccessKey?: string;
  prefix?: string;
  exportFrequency: Frequency;
  enabled: boolean;
  forcePathStyle: boolean;
  fileType: FileType;
  exportMode: ExportMode;
  exportStartDate?: string;
  compressed: boolean;
  exportSource: ExportSource;
  exportFieldGroups: FieldGroup[];
}

export interface IntegrationStatus {
  id: string;
  projectId: string;
  syncStatus: SyncStatus;
  enabled: boolean;
  lastSyncAt: string | null;
  nextSyncAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

export type BatchStatus = "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";

export interface BatchExport {
  id: string;
  projectId: string;
  name: string;
  status: BatchStatus;
  fileType: FileType;
  compressed: boolean;
  rowsExported: number;
  url: string | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface BatchExportRequest {
  name?: string;
  fileType: FileType;
  compressed?: boolean;
  filter?: unknown[];
  search?: string;
  fromStartTime?: string;
  toStartTime?: string;
}

const INTEGRATIONS = "integrations/blob-storage";
const enc = encodeURIComponent;

export function exportsApi(api: ProjectApi) {
  return {
    /** The project's integration, if it has one (a session sees its own project's only). */
    integration: (signal?: AbortSignal) =>
      api.get<{ data: Integration[] }>(INTEGRATIONS, undefined, signal).then((a) => a.data.find((i) => i.projectId === api.projectId) ?? null),
    status: (signal?: AbortSignal) => api.get<IntegrationStatus>(`${INTEGRATIONS}/${enc(api.projectId)}`, undefined, signal),
    save: (request: IntegrationRequest) => api.put<Integration>(INTEGRATIONS, request),
    remove: () => api.delete<{ message: string }>(`${INTEGRATIONS}/${enc(api.projectId)}`),

    createBatch: (request: BatchExportRequest) => api.post<BatchExport>("batch-exports", request),
    batch: (id: string, signal?: AbortSignal) => api.get<BatchExport>(`batch-exports/${enc(id)}`, undefined, signal),
  };
}

export type ExportsApi = ReturnType<typeof exportsApi>;
