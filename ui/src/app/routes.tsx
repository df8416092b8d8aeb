// Every page and where it lives. A project page is one entry of `projectPages`: its path under
// /project/{projectId}/, its nav label, and its component, loaded when first visited so the
// sign-in page stays small however many pages there are.

import { lazy, type ComponentType, type LazyExoticComponent } from "react";

export interface ProjectPage {
  /** Under /project/{projectId}/. */
  path: string;
  /** In the header's nav; pages without one are reached from other pages. */
  label?: string;
  component: LazyExoticComponent<ComponentType>;
}

export const projectPages: readonly ProjectPage[] = [
  {
    path: "observations",
    label: "Observations",
    component: lazy(() => import("../features/observations/ObservationsPage")),
  },
  {
    path: "sessions",
    label: "Sessions",
    component: lazy(() => import("../features/sessions/SessionsPage")),
  },
];

/** The page a project opens on. */
export const PROJECT_HOME = "observations";

export function projectPath(projectId: string, page: string = PROJECT_HOME): string {
  return `/project/${encodeURIComponent(projectId)}/${page}`;
}

export const BackgroundMigrationsPage = lazy(() => import("../features/migrations/BackgroundMigrationsPage"));
export const SetupPage = lazy(() => import("../features/projects/SetupPage"));
