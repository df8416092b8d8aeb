// Every page and where it lives. A project page is one entry of `projectPages`: its path under
// /project/{projectId}/, its nav label, and its component, loaded when first visited so the
// sign-in page stays small however many pages there are.

import { lazy, type ComponentType, type LazyExoticComponent } from "react";

type Load = () => Promise<{ default: ComponentType }>;

export interface ProjectPage {
  /** Under /project/{projectId}/. */
  path: string;
  /** In the header's nav; pages without one are reached from other pages. */
  label?: string;
  component: LazyExoticComponent<ComponentType>;
  load: Load;
}

function page(path: string, label: string | undefined, load: Load): ProjectPage {
  return { path, ...(label ? { label } : {}), component: lazy(load), load };
}

export const projectPages: readonly ProjectPage[] = [
  page("observations", "Observations", () => import("../features/observations/ObservationsPage")),
  page("sessions", "Sessions", () => import("../features/sessions/SessionsPage")),
  // The v3 Traces tab (reached from the Observations page's tabs in the v3 views).
  page("traces", undefined, () => import("../features/legacy/TracesPage")),
  // One trace, full-width (deep links; the sessions page links here). Ranks above `traces/*`.
  page("traces/:traceId", undefined, () => import("../features/trace/TracePage")),
  page("settings", "Settings", () => import("../features/settings/ProjectSettingsPage")),
];

/** Fetches every project page's code while the browser is idle, once someone is signed in, so
 * moving between pages never waits for the network. */
export function preloadProjectPages(): void {
  const load = () => projectPages.forEach((p) => void p.load().catch(() => undefined));
  if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: 2000 });
  else setTimeout(load, 200);
}

/** The page a project opens on. */
export const PROJECT_HOME = "observations";

export function projectPath(projectId: string, page: string = PROJECT_HOME): string {
  return `/project/${encodeURIComponent(projectId)}/${page}`;
}

export const BackgroundMigrationsPage = lazy(() => import("../features/migrations/BackgroundMigrationsPage"));
export const AdminUsersPage = lazy(() => import("../features/admin/AdminUsersPage"));
export const OrganizationSettingsPage = lazy(() => import("../features/settings/OrganizationSettingsPage"));
export const SetupPage = lazy(() => import("../features/projects/SetupPage"));
