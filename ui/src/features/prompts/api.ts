// The prompts pages' calls: a folder's entries and a prompt's versions from `/api/ui` (the reads
// the public list does not give cheaply), and everything else through the public prompts routes
// as the signed-in person (`/api/public/v2/prompts…`), where a VIEWER's writes are refused.

import { api, type ApiClient } from "../../api/client";
import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";
import type { NewPromptBody } from "./editor";

export interface FolderEntry {
  kind: "folder" | "prompt";
  /** Full name or folder path from the root. */
  name: string;
  /** Prompts under a folder at any depth; 1 for a prompt. */
  prompts: number;
  type?: "text" | "chat";
  latestVersion?: number;
  versions: number;
  labels: string[];
  tags: string[];
  lastUpdatedAt: string;
}

export interface VersionSummary {
  version: number;
  type: "text" | "chat";
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  /** `API` (a key) or the user id of the person who made it. */
  createdBy: string;
  /** That person's name or email; null for `API`. */
  author: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PromptNode {
  id: string;
  name: string;
  version: number;
}

/** `GET /api/public/v2/prompts/{name}` (the SDKs' Prompt). */
export interface PromptVersion {
  id: string;
  name: string;
  version: number;
  type: "text" | "chat";
  prompt: unknown;
  config: unknown;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  resolutionGraph?: { root: PromptNode; dependencies: Record<string, PromptNode[]> };
}

/** Entries per page of a folder (the server allows up to 100). */
export const FOLDER_PAGE_SIZE = 50;
/** Versions per request of a prompt's page (the server allows up to 1000). */
export const VERSIONS_PAGE_SIZE = 500;

export function uiPromptsApi(client: ApiClient = api) {
  const base = (projectId: string) => `/api/ui/projects/${encodeURIComponent(projectId)}/prompts`;
  return {
    folder(
      projectId: string,
      query: { folder?: string; search?: string; page?: number; limit?: number },
      signal?: AbortSignal,
    ): Promise<Paginated<FolderEntry>> {
      return client.get(base(projectId), { query, ...(signal ? { signal } : {}) });
    },
    versions(projectId: string, name: string, page: number, signal?: AbortSignal): Promise<Paginated<VersionSummary>> {
      return client.get(`${base(projectId)}/versions`, {
        query: { name, page, limit: VERSIONS_PAGE_SIZE },
        ...(signal ? { signal } : {}),
      });
    },
  };
}

export const uiPrompts = uiPromptsApi();

const promptUrl = (name: string) => `v2/prompts/${encodeURIComponent(name)}`;

/** One version's body; `resolve` replaces references by the texts they point at. */
export function getVersion(project: ProjectApi, name: string, version: number, resolve: boolean, signal?: AbortSignal): Promise<PromptVersion> {
  return project.get(promptUrl(name), { version, resolve }, signal);
}

export function createVersion(project: ProjectApi, body: NewPromptBody): Promise<PromptVersion> {
  return project.post("v2/prompts", body);
}

/** Adds `labels` to `version`, taking them off whichever version had them. */
export function setLabels(project: ProjectApi, name: string, version: number, labels: string[]): Promise<PromptVersion> {
  return project.patch(`${promptUrl(name)}/versions/${version}`, { newLabels: labels });
}
