// The project a page under /project/{projectId}/ shows: resolved from the person's access, so a
// page never renders for a project they cannot open, and remembered for their next sign-in.

import { createContext, useContext, useEffect, useMemo } from "react";
import { Outlet, useParams } from "react-router";

import { projectApi, type ProjectApi } from "../api/public";
import type { OrganizationAccess, ProjectAccess } from "../api/types";
import { EmptyState } from "../components/States";
import { findProject, useMe, useSession } from "./session";

export interface CurrentProject {
  project: ProjectAccess;
  organization: OrganizationAccess;
  /** The public API, acting on this project as the signed-in person. */
  api: ProjectApi;
}

const ProjectContext = createContext<CurrentProject | null>(null);

export function ProjectLayout() {
  const { projectId = "" } = useParams();
  const me = useMe();
  const { rememberProject } = useSession();
  // `me` changes only when it is loaded again, so this is stable while the person stays here.
  const value = useMemo<CurrentProject | null>(() => {
    const found = findProject(me, projectId);
    return found ? { ...found, api: projectApi(found.project.id) } : null;
  }, [me, projectId]);

  useEffect(() => {
    if (value) rememberProject(value.project.id);
  }, [value, rememberProject]);

  if (!value) {
    return (
      <EmptyState title="Project not found">
        <p>There is no project {projectId ? <code>{projectId}</code> : null} that you can open. Pick one in the project switcher above.</p>
      </EmptyState>
    );
  }
  return (
    <ProjectContext.Provider value={value}>
      <Outlet />
    </ProjectContext.Provider>
  );
}

/** The current project; only for pages under `/project/{projectId}/`. */
export function useProject(): CurrentProject {
  const project = useContext(ProjectContext);
  if (!project) throw new Error("useProject outside a project page");
  return project;
}
