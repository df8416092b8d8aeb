// The export settings form as typed, checked with the server's rules (docs/exports.md, "Settings")
// before it is sent, so most mistakes show at their field rather than as one 400.

import type { Checked, Problems } from "../settings/forms";
import type { ExportMode, ExportSource, FieldGroup, FileType, Frequency, Integration, IntegrationRequest, TargetType } from "./api";
import { FIELD_GROUPS } from "./api";

export interface IntegrationForm {
  type: TargetType;
  bucketName: string;
  endpoint: string;
  region: string;
  accessKeyId: string;
  /** Empty on an update keeps the stored secret. */
  secretAccessKey: string;
  prefix: string;
  forcePathStyle: boolean;
  exportFrequency: Frequency;
  enabled: boolean;
  fileType: FileType;
  compressed: boolean;
  exportMode: ExportMode;
  /** `YYYY-MM-DD`, for FROM_CUSTOM_DATE (midnight UTC). */
  exportStartDate: string;
  exportSource: ExportSource;
  exportFieldGroups: FieldGroup[];
}

export type IntegrationField = keyof IntegrationForm;

export function emptyIntegration(source: ExportSource): IntegrationForm {
  return {
    type: "S3",
    bucketName: "",
    endpoint: "",
    region: "us-east-1",
    accessKeyId: "",
    secretAccessKey: "",
    prefix: "",
    forcePathStyle: false,
    exportFrequency: "daily",
    enabled: true,
    fileType: "JSONL",
    compressed: true,
    exportMode: "FROM_TODAY",
    exportStartDate: "",
    exportSource: source,
    exportFieldGroups: [...FIELD_GROUPS],
  };
}

export function integrationForm(saved: Integration): IntegrationForm {
  return {
    type: saved.type,
    bucketName: saved.bucketName,
    endpoint: saved.endpoint ?? "",
    region: saved.region,
    accessKeyId: saved.accessKeyId ?? "",
    secretAccessKey: "",
    prefix: saved.prefix,
    forcePathStyle: saved.forcePathStyle,
    exportFrequency: saved.exportFrequency,
    enabled: saved.enabled,
    fileType: saved.fileType,
    compressed: saved.compressed,
    exportMode: saved.exportMode,
    exportStartDate: saved.exportStartDate ? saved.exportStartDate.slice(0, 10) : "",
    exportSource: saved.exportSource,
    exportFieldGroups: saved.exportFieldGroups,
  };
}

const REGION = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

function badPrefix(prefix: string): string | null {
  if (!prefix) return null;
  if (!prefix.endsWith("/")) return "End the prefix with /";
  const segments = prefix.slice(0, -1).split("/");
  return segments.some((s) => s === "" || s === "." || s === "..") ? "No empty, . or .. folders" : null;
}

/** The PUT body, or the problems per field. `stored`: an integration already saved (its secret kept). */
export function integrationRequest(projectId: string, form: IntegrationForm, stored: boolean): Checked<IntegrationRequest, IntegrationField> {
  const problems: Problems<IntegrationField> = {};
  const bucketName = form.bucketName.trim();
  if (!bucketName) problems.bucketName = form.type === "AZURE_BLOB_STORAGE" ? "Enter the container" : "Enter the bucket";
  const region = form.region.trim();
  if (!REGION.test(region)) problems.region = "1 to 63 letters, digits or hyphens (not at either end)";
  const endpoint = form.endpoint.trim();
  if (form.type === "S3_COMPATIBLE" && !endpoint) problems.endpoint = "An S3-compatible store needs its endpoint";
  else if (endpoint && !/^https?:\/\/./.test(endpoint)) problems.endpoint = "Start with http:// or https://";
  const needsKeys = form.type !== "S3";
  if (needsKeys && !form.accessKeyId.trim()) problems.accessKeyId = form.type === "AZURE_BLOB_STORAGE" ? "Enter the storage account name" : "Enter the access key id";
  if (needsKeys && !stored && !form.secretAccessKey) problems.secretAccessKey = form.type === "AZURE_BLOB_STORAGE" ? "Enter the account key" : "Enter the secret";
  const prefixProblem = badPrefix(form.prefix.trim());
  if (prefixProblem) problems.prefix = prefixProblem;
  if (form.exportMode === "FROM_CUSTOM_DATE" && !/^\d{4}-\d{2}-\d{2}$/.test(form.exportStartDate)) problems.exportStartDate = "Choose the first day to export";
  if (!form.exportFieldGroups.includes("core")) problems.exportFieldGroups = "The core fields are always exported";
  if (Object.keys(problems).length) return { ok: false, problems };
  return {
    ok: true,
    value: {
      projectId,
      type: form.type,
      bucketName,
      region,
      ...(endpoint ? { endpoint } : {}),
      ...(form.accessKeyId.trim() ? { accessKeyId: form.accessKeyId.trim() } : {}),
      ...(form.secretAccessKey ? { secretAccessKey: form.secretAccessKey } : {}),
      ...(form.prefix.trim() ? { prefix: form.prefix.trim() } : {}),
      forcePathStyle: form.forcePathStyle,
      exportFrequency: form.exportFrequency,
      enabled: form.enabled,
      fileType: form.fileType,
      compressed: form.compressed,
      exportMode: form.exportMode,
      ...(form.exportMode === "FROM_CUSTOM_DATE" ? { exportStartDate: `${form.exportStartDate}T00:00:00Z` } : {}),
      exportSource: form.exportSource,
      exportFieldGroups: form.exportFieldGroups,
    },
  };
}

export const FREQUENCY_LABELS: Record<Frequency, string> = {
  every_20_minutes: "Every 20 minutes",
  hourly: "Hourly",
  daily: "Daily",
  weekly: "Weekly",
};

export const SOURCE_LABELS: Record<ExportSource, string> = {
  OBSERVATIONS_V2: "Observations (v4 events)",
  LEGACY_TRACES_OBSERVATIONS: "Traces and observations (v3 tables)",
  LEGACY_TRACES_AND_ENRICHED_OBSERVATIONS: "v3 traces and observations, plus v4 observations",
};

export const MODE_LABELS: Record<ExportMode, string> = {
  FULL_HISTORY: "Full history",
  FROM_TODAY: "From today",
  FROM_CUSTOM_DATE: "From a date",
};

export const TARGET_LABELS: Record<TargetType, string> = {
  S3: "Amazon S3",
  S3_COMPATIBLE: "S3-compatible (MinIO, R2, …)",
  AZURE_BLOB_STORAGE: "Azure Blob Storage",
};
