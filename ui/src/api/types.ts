// The server's JSON shapes the UI reads and sends, as the server defines them (docs/identity.md,
// "The UI's JSON API"; the public API in /api/public/openapi.json). Add a type here when a page
// starts using a route, next to the route's owner module (ui.ts, public.ts).

/** The body of every 4xx/5xx answer: `error` names the class (absent on 401s, as upstream). */
export interface ErrorBody {
  message: string;
  error?: string | null;
  /** Where a body is wrong, per field (dataset items that do not match their schemas). */
  fields?: FieldError[];
}

/** One mismatch: the body key, the JSON Pointer inside its value ("" for the value itself), why. */
export interface FieldError {
  field: string;
  path: string;
  message: string;
}

export type Role = "OWNER" | "ADMIN" | "MEMBER" | "VIEWER" | "NONE";

export interface User {
  id: string;
  email: string;
  name: string | null;
}

/** `POST /api/ui/auth/sign-in`, `/sign-up`, `PUT /api/ui/me/password`. */
export interface SessionBody {
  user: User;
  csrfToken: string;
}

export interface ProjectAccess {
  id: string;
  name: string;
  role: Role;
}

export interface OrganizationAccess {
  id: string;
  name: string;
  role: Role;
  projects: ProjectAccess[];
}

/** What the person chose last, kept on the server (lead: `PUT /api/ui/me/preferences`). */
export interface Preferences {
  lastProjectId?: string | null;
  v4Preview?: boolean | null;
}

/** `GET /api/ui/me`. `preferences` and `instanceAdmin` are being added by the server; until then
 * they are absent. */
export interface Me {
  user: User;
  csrfToken: string;
  organizations: OrganizationAccess[];
  preferences?: Preferences;
  instanceAdmin?: boolean;
  /** Which data model this person's views read: the one Observations view (`v4`) or the Traces and
   * Observations tabs over the legacy tables (`v3`). */
  views?: "v4" | "v3";
  instance?: InstanceInfo;
}

export type WriteMode = "legacy" | "dual" | "events_only";

/** `me.instance`: how the deployment is set up. */
export interface InstanceInfo {
  writeMode: WriteMode;
  /** Whether the **v4 preview** toggle is offered (`dual` with the preview opt-in). */
  previewToggle: boolean;
  signUpEnabled: boolean;
}

/** `GET /api/ui/auth/config`. */
export interface AuthConfig {
  signUpEnabled: boolean;
}

export interface SignInRequest {
  email: string;
  password: string;
}

export interface SignUpRequest extends SignInRequest {
  name?: string;
}

export interface OrganizationRequest {
  name: string;
  metadata?: Record<string, unknown>;
}

export interface Organization {
  id: string;
  name: string;
  createdAt: string;
  metadata: Record<string, unknown>;
}

export interface CreateProjectRequest {
  name: string;
  /** Days of data kept: 0 (forever) or at least 3. */
  retention: number;
  metadata?: Record<string, unknown>;
}

export interface Project {
  id: string;
  name: string;
  organization: { id: string; name: string };
  metadata: Record<string, unknown>;
  retentionDays?: number;
}

/** The public API's page-numbered envelope (`{data, meta}`). */
export interface Paginated<T> {
  data: T[];
  meta: { page: number; limit: number; totalItems: number; totalPages: number };
}

/** The public API's cursor envelope (v2 reads). */
export interface CursorPage<T> {
  data: T[];
  meta: { cursor?: string | null };
}
