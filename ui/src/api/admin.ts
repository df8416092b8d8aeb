// The instance admin's routes (docs/identity.md, "The UI's JSON API"): the background migrations
// with their retry, and the people of the instance with their instance admin mark. Everyone else
// gets 403 from both.

import { api, type ApiClient } from "./client";
import type { Paginated } from "./types";

export type MigrationStatus = "pending" | "running" | "succeeded" | "failed" | "skipped";

/** One step of the v3 → v4 backfill (`GET /api/ui/background-migrations`). */
export interface BackgroundMigration {
  name: string;
  position: number;
  description: string;
  status: MigrationStatus;
  /** What `rowsDone` counts: traces, observations, experiment traces, tables. */
  unit: string;
  rowsDone: number;
  /** Source rows found when the step planned its chunks. */
  rowsEstimated: number | null;
  percent: number | null;
  /** Average since the step first started. */
  rowsPerSecond: number | null;
  /** While running, when the estimate allows it. */
  etaSeconds: number | null;
  startedAt: string | null;
  finishedAt: string | null;
  lastError: string | null;
  worker: string | null;
  updatedAt: string;
}

export interface BackgroundMigrations {
  data: BackgroundMigration[];
}

export interface Person {
  id: string;
  email: string;
  name: string | null;
  instanceAdmin: boolean;
  createdAt: string;
}

/** People per page of the admin list (the server allows up to 100). */
export const PEOPLE_PAGE_SIZE = 100;

export function adminApi(client: ApiClient = api) {
  return {
    migrations(signal?: AbortSignal): Promise<BackgroundMigrations> {
      return client.get("/api/ui/background-migrations", signal ? { signal } : {});
    },

    /** Puts a failed step back to pending; answers every step as it now stands. */
    retry(name: string): Promise<BackgroundMigrations> {
      return client.post(`/api/ui/background-migrations/${encodeURIComponent(name)}/retry`);
    },

    people(page: number, signal?: AbortSignal): Promise<Paginated<Person>> {
      return client.get("/api/ui/admin/users", {
        query: { page, limit: PEOPLE_PAGE_SIZE },
        ...(signal ? { signal } : {}),
      });
    },

    setInstanceAdmin(userId: string, instanceAdmin: boolean): Promise<{ id: string; instanceAdmin: boolean }> {
      return client.put(`/api/ui/admin/users/${encodeURIComponent(userId)}`, { instanceAdmin });
    },
  };
}

export const admin = adminApi();
