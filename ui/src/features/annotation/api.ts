// Annotation queues: the public routes (`/api/public/annotation-queues…`, as the signed-in person)
// and the work view's two UI routes (`/api/ui/projects/{projectId}/annotation-queues/…`).

import { api, type ApiClient } from "../../api/client";
import type { Paginated } from "../../api/types";
import type { ScoreConfig } from "../../api/trace";

export type ObjectType = "TRACE" | "OBSERVATION" | "SESSION";
export type ItemStatus = "PENDING" | "COMPLETED";

export interface Queue {
  id: string;
  name: string;
  description: string | null;
  scoreConfigIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface QueueItem {
  id: string;
  queueId: string;
  objectId: string;
  objectType: ObjectType;
  status: ItemStatus;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** `POST …/annotation-queues/{queueId}/next`: the item locked for the person, and the counts. */
export interface Next {
  item: { id: string; objectType: ObjectType; objectId: string; traceId: string | null } | null;
  completed: number;
  total: number;
}

export interface QueueProgress {
  queueId: string;
  total: number;
  completed: number;
  annotators: { userId: string | null; name: string | null; completed: number }[];
  assignees: { userId: string; name: string }[];
}

/** The server's bounds (docs/annotation-queues.md). */
export const MAX_NAME_CHARS = 255;
export const MAX_DESCRIPTION_CHARS = 2000;
export const MAX_SCORE_CONFIGS = 20;
export const QUEUES_PAGE_SIZE = 50;

export function annotationApi(projectId: string, client: ApiClient = api) {
  const queues = "/api/public/annotation-queues";
  const queue = (id: string) => `${queues}/${encodeURIComponent(id)}`;
  const ui = `/api/ui/projects/${encodeURIComponent(projectId)}/annotation-queues`;
  return {
    list(page = 1, signal?: AbortSignal): Promise<Paginated<Queue>> {
      return client.get(queues, { projectId, query: { page, limit: QUEUES_PAGE_SIZE }, ...(signal ? { signal } : {}) });
    },
    get(id: string, signal?: AbortSignal): Promise<Queue> {
      return client.get(queue(id), { projectId, ...(signal ? { signal } : {}) });
    },
    create(body: { name: string; description?: string; scoreConfigIds: string[] }): Promise<Queue> {
      return client.post(queues, body, { projectId });
    },
    addItem(queueId: string, objectType: ObjectType, objectId: string): Promise<QueueItem> {
      return client.post(`${queue(queueId)}/items`, { objectType, objectId }, { projectId });
    },
    setStatus(queueId: string, itemId: string, status: ItemStatus): Promise<QueueItem> {
      return client.patch(`${queue(queueId)}/items/${encodeURIComponent(itemId)}`, { status }, { projectId });
    },
    next(queueId: string, skipped: readonly string[]): Promise<Next> {
      return client.post(`${ui}/${encodeURIComponent(queueId)}/next`, { skipped });
    },
    progress(queueIds: readonly string[], signal?: AbortSignal): Promise<{ data: QueueProgress[] }> {
      return client.get(`${ui}/progress`, { query: { queueIds: queueIds.join(",") }, ...(signal ? { signal } : {}) });
    },
    scoreConfigs(signal?: AbortSignal): Promise<Paginated<ScoreConfig>> {
      return client.get("/api/public/score-configs", { projectId, query: { limit: 100 }, ...(signal ? { signal } : {}) });
    },
  };
}

export type AnnotationApi = ReturnType<typeof annotationApi>;
