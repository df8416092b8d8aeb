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
  // Custom dashboards: the list, and a dashboard's page under it.
  page("dashboards", "Dashboards", () => import("../features/dashboards/DashboardsPage")),
  page("sessions", "Sessions", () => import("../features/sessions/SessionsPage")),
  page("datasets", "Datasets", () => import("../features/datasets/DatasetsPage")),
  page("experiments", undefined, () => import("../features/datasets/ExperimentsPage")),
  page("prompts", "Prompts", () => import("../features/prompts/PromptsPage")),
  page("annotation-queues", "Annotation", () => import("../features/annotation/AnnotationPage")),
  page("evaluators", "Evaluators", () => import("../features/evaluators/EvaluatorsPage")),
  // The v3 Traces tab (reached from the Observations page's tabs in the v3 views).
  page("traces", undefined, () => import("../features/legacy/TracesPage")),
  // One trace, full-width (deep links; the sessions page links here). Ranks above `traces/*`.
  page("traces/:traceId", undefined, () => import("../features/trace/TracePage")),
  page("monitors", "Monitors", () => import("../features/monitors/MonitorsPage")),
  page("settings", "Settings", () => import("../features/settings/ProjectSettingsPage")),
];

/** Fetches every project page's code while the browser is idle, once someone is signed in, so
 * moving between pages never waits for the network. */
export function preloadProjectPages(): void {
  const load = () => [homePage, ...projectPages].forEach((p) => void p.load().catch(() => undefined));
  if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: 2000 });
  else setTimeout(load, 200);
}

/** Home, the project's index route (/project/{projectId}); first in the header's nav. */
export const homePage: ProjectPage = page("", "Home", () => import("../features/home/HomePage"));

/** The page a project opens on after sign-in. */
export const PROJECT_HOME = "observations";

export function projectPath(projectId: string, page: string = PROJECT_HOME): string {
  return `/project/${encodeURIComponent(projectId)}/${page}`;
}

export const BackgroundMigrationsPage = lazy(() => import("../features/migrations/BackgroundMigrationsPage"));
export const AdminUsersPage = lazy(() => import("../features/admin/AdminUsersPage"));
export const OrganizationSettingsPage = lazy(() => import("../features/settings/OrganizationSettingsPage"));
export const SetupPage = lazy(() => import("../features/projects/SetupPage"));
export const PublicPage = lazy(() => import("../features/public/PublicPage"));
