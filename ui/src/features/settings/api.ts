// The settings pages' calls: keys, people and the audit log under /api/ui/ (docs/identity.md, "The
// UI's JSON API"), and score configs and models through the public API as the signed-in person.

import { api, type ApiClient } from "../../api/client";
import type { ProjectApi } from "../../api/public";
import type { Paginated, Project, Role } from "../../api/types";

export interface ApiKey {
  id: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  note: string | null;
  publicKey: string;
  displaySecretKey: string;
}

/** A key just created: its secret is in this answer only. */
export interface CreatedKey extends ApiKey {
  secretKey: string;
}

export interface OrgMember {
  userId: string;
  role: Role;
  email: string;
  name: string;
}

export interface ProjectMember {
  userId: string;
  email: string;
  name: string;
  organizationRole: Role;
  projectRole: Role | null;
  effectiveRole: Role;
  pending: boolean;
}

export interface AuditEntry {
  id: string;
  createdAt: string;
  projectId: string | null;
  actorType: string;
  actorId: string;
  action: string;
  targetType: string;
  targetId: string;
  details: Record<string, unknown>;
}

export interface Invited extends OrgMember {
  newAccount: boolean;
}

const enc = encodeURIComponent;

/** Where a set of keys lives: a project's or an organization's. */
export interface KeyOwner {
  kind: "project" | "organization";
  id: string;
}

function keysPath(owner: KeyOwner): string {
  return owner.kind === "project" ? `/api/ui/projects/${enc(owner.id)}/api-keys` : `/api/ui/organizations/${enc(owner.id)}/api-keys`;
}

export function settingsApi(client: ApiClient = api) {
  return {
    keys: (owner: KeyOwner, signal?: AbortSignal) =>
      client.get<{ apiKeys: ApiKey[] }>(keysPath(owner), signal ? { signal } : {}).then((a) => a.apiKeys),
    createKey: (owner: KeyOwner, note: string) => client.post<CreatedKey>(keysPath(owner), note ? { note } : {}),
    deleteKey: (owner: KeyOwner, keyId: string) =>
      client.request<unknown>(`${keysPath(owner)}/${enc(keyId)}`, { method: "DELETE" }),

    projectPeople: (projectId: string, signal?: AbortSignal) =>
      client
        .get<{ members: ProjectMember[] }>(`/api/ui/projects/${enc(projectId)}/people`, signal ? { signal } : {})
        .then((a) => a.members),
    inviteToProject: (projectId: string, email: string, role: Role) =>
      client.post<Invited>(`/api/ui/projects/${enc(projectId)}/invitations`, { email, role }),
    setProjectRole: (projectId: string, userId: string, role: Role) =>
      client.put<OrgMember>(`/api/ui/projects/${enc(projectId)}/members`, { userId, role }),
    /** Drops the project's override: the organization role counts again. */
    clearProjectRole: (projectId: string, userId: string) =>
      client.request<unknown>(`/api/ui/projects/${enc(projectId)}/people/${enc(userId)}`, { method: "DELETE" }),

    orgMembers: (orgId: string, signal?: AbortSignal) =>
      client
        .get<{ memberships: OrgMember[] }>(`/api/ui/organizations/${enc(orgId)}/members`, signal ? { signal } : {})
        .then((a) => a.memberships),
    inviteToOrganization: (orgId: string, email: string, role: Role) =>
      client.post<Invited>(`/api/ui/organizations/${enc(orgId)}/invitations`, { email, role }),
    setOrgRole: (orgId: string, userId: string, role: Role) =>
      client.put<OrgMember>(`/api/ui/organizations/${enc(orgId)}/members`, { userId, role }),
    removeOrgMember: (orgId: string, userId: string) =>
      client.request<unknown>(`/api/ui/organizations/${enc(orgId)}/members/${enc(userId)}`, { method: "DELETE" }),

    auditLog: (orgId: string, page: number, signal?: AbortSignal) =>
      client.get<Paginated<AuditEntry>>(`/api/ui/organizations/${enc(orgId)}/audit-log`, {
        query: { page, limit: AUDIT_PAGE_SIZE },
        ...(signal ? { signal } : {}),
      }),

    /** The project as the public API shows it (with `retentionDays`). */
    project: (projectApi: ProjectApi, signal?: AbortSignal) =>
      projectApi.get<{ data: Project[] }>("projects", undefined, signal).then((a) => a.data[0]),
    /** `retention` omitted: kept as it is. */
    updateProject: (projectId: string, name: string, retention?: number) =>
      client.put<Project>(`/api/ui/projects/${enc(projectId)}`, { name, ...(retention === undefined ? {} : { retention }) }),
    deleteProject: (projectId: string) =>
      client.request<unknown>(`/api/ui/projects/${enc(projectId)}`, { method: "DELETE" }),
  };
}

export const AUDIT_PAGE_SIZE = 50;

export const settings = settingsApi();
