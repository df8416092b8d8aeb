// The trace panel's routes (docs/identity.md, "The UI's JSON API": /api/ui/projects/{projectId}/…)
// and the public routes it reads as the signed-in person (comments, score configs).

import { api, type ApiClient } from "./client";
import type { Paginated } from "./types";

/** Which data model a view reads (`GET /api/ui/me` → `views`). */
export type DataModel = "v3" | "v4";

/** `GET …/traces/{traceId}/tree`: every observation, one array per field (row i of each is one
 * observation), rows in start order. */
export interface TraceTreeBody {
  traceId: string;
  model: DataModel;
  /** The trace's first start, microseconds since the epoch; `starts` and `ends` count from it. */
  originMicros: number;
  count: number;
  /** Distinct names, types, levels and models; `names`, `types`, `levels`, `models` index it. */
  strings: string[];
  ids: string[];
  /** The parent's row; -1 a root, -2 an orphan (its parent id is in `missingParents`). */
  parents: number[];
  missingParents: { index: number; parentId: string }[];
  names: number[];
  types: number[];
  levels: number[];
  /** -1 for none. */
  models: number[];
  starts: number[];
  ends: (number | null)[];
  tokens: (number | null)[];
  costs: (number | null)[];
}

/** The beginning of a large value and its size. */
export interface ValuePreview {
  /** The stored text (JSON or plain), at most the preview length; null when there is none. */
  preview: string | null;
  bytes: number;
  truncated: boolean;
}

export interface MetadataPreview {
  values: Record<string, unknown>;
  bytes: number;
  truncated: boolean;
}

/** A score as the v3 scores API renders it, with its details and author. */
export interface Score {
  id: string;
  name: string;
  source: string;
  timestamp: string;
  dataType: "NUMERIC" | "CATEGORICAL" | "BOOLEAN" | "TEXT" | "CORRECTION" | string;
  value: number | boolean | string | null;
  comment?: string | null;
  configId?: string | null;
  authorUserId?: string | null;
  subject?: { kind: string; id?: string | null; traceId?: string | null };
}

/** `GET …/traces/{traceId}/observations/{observationId}`. */
export interface ObservationDetail {
  id: string;
  traceId: string;
  parentObservationId: string | null;
  /** The node stands for its trace: the trace's scores and comments are shown on it. */
  isRoot: boolean;
  name: string;
  type: string;
  level: string;
  statusMessage: string | null;
  version: string | null;
  environment: string;
  startTime: string;
  endTime: string | null;
  completionStartTime: string | null;
  model: string | null;
  modelId: string | null;
  modelParameters: unknown;
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  totalCost: number | null;
  promptName: string | null;
  promptVersion: number | null;
  userId: string | null;
  sessionId: string | null;
  tags: string[];
  traceName: string | null;
  release: string | null;
  input: ValuePreview;
  output: ValuePreview;
  metadata: MetadataPreview;
  scores: Score[];
}

export type ValueField = "input" | "output" | "metadata";

/** `GET /api/public/score-configs`. */
export interface ScoreConfig {
  id: string;
  name: string;
  dataType: "NUMERIC" | "CATEGORICAL" | "BOOLEAN" | "TEXT";
  isArchived: boolean;
  minValue?: number | null;
  maxValue?: number | null;
  categories?: { label: string; value: number }[] | null;
  description?: string | null;
}

/** `GET /api/public/comments`. */
export interface Comment {
  id: string;
  objectType: "TRACE" | "OBSERVATION" | "SESSION" | "PROMPT";
  objectId: string;
  content: string;
  authorUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface NewScore {
  traceId: string;
  observationId?: string;
  configId: string;
  value: number | string;
  comment?: string;
  environment?: string;
  /** The annotation queue the score is given in. */
  queueId?: string;
}

export function traceApi(projectId: string, client: ApiClient = api) {
  const project = `/api/ui/projects/${encodeURIComponent(projectId)}`;
  const trace = (traceId: string) => `${project}/traces/${encodeURIComponent(traceId)}`;
  const observation = (traceId: string, id: string) => `${trace(traceId)}/observations/${encodeURIComponent(id)}`;
  return {
    tree(traceId: string, model: DataModel, signal?: AbortSignal): Promise<TraceTreeBody> {
      return client.get(`${trace(traceId)}/tree`, { query: { model }, ...(signal ? { signal } : {}) });
    },
    detail(traceId: string, id: string, model: DataModel, signal?: AbortSignal): Promise<ObservationDetail> {
      return client.get(observation(traceId, id), { query: { model }, ...(signal ? { signal } : {}) });
    },
    /** The URL of one large value in full (the JSON worker fetches it itself). */
    valueUrl(traceId: string, id: string, model: DataModel, field: ValueField): string {
      return `${observation(traceId, id)}/value?field=${field}&model=${model}`;
    },
    createScore(score: NewScore): Promise<{ id: string }> {
      return client.post(`${project}/scores`, score);
    },
    updateScore(id: string, value: number | string, comment: string | null): Promise<{ id: string }> {
      return client.put(`${project}/scores/${encodeURIComponent(id)}`, { value, comment });
    },
    deleteScore(id: string): Promise<void> {
      return client.delete(`${project}/scores/${encodeURIComponent(id)}`);
    },
    comments(objectType: "TRACE" | "OBSERVATION", objectId: string): Promise<Paginated<Comment>> {
      return client.get("/api/public/comments", { projectId, query: { objectType, objectId, limit: 100 } });
    },
    createComment(objectType: "TRACE" | "OBSERVATION", objectId: string, content: string): Promise<{ id: string }> {
      return client.post("/api/public/comments", { projectId, objectType, objectId, content }, { projectId });
    },
    updateComment(id: string, content: string): Promise<Comment> {
      return client.put(`${project}/comments/${encodeURIComponent(id)}`, { content });
    },
    deleteComment(id: string): Promise<void> {
      return client.delete(`${project}/comments/${encodeURIComponent(id)}`);
    },
    /** Names of the organization's members by id (for authors); empty when the person may not list them. */
    async memberNames(organizationId: string): Promise<Map<string, string>> {
      try {
        const body = await client.get<{ memberships: { userId: string; name: string; email: string }[] }>(
          `/api/ui/organizations/${encodeURIComponent(organizationId)}/members`,
        );
        return new Map(body.memberships.map((m) => [m.userId, m.name || m.email]));
      } catch {
        return new Map();
      }
    },
    scoreConfigs(): Promise<Paginated<ScoreConfig>> {
      return client.get("/api/public/score-configs", { projectId, query: { limit: 100 } });
    },
  };
}

export type TraceApi = ReturnType<typeof traceApi>;
