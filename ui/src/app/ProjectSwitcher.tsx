// The organization and project switchers, as native selects (keyboard and screen readers know
// them). Switching project keeps the page: from one project's Sessions to the other's. Switching
// organization opens the same page of its first project, or its settings when it has none (or
// when the person was on the organization settings page).

import { useMatch, useNavigate } from "react-router";

import type { Me } from "../api/types";
import { PROJECT_HOME, projectPath } from "./routes";
import { useMe } from "./session";

export function organizationPath(orgId: string): string {
  return `/organization/${encodeURIComponent(orgId)}/settings`;
}

/** The organization the page is about: the project's, the settings page's, or none. */
export function currentOrganizationId(me: Me, projectId: string | undefined, orgId: string | undefined): string {
  if (orgId) return orgId;
  if (projectId) return me.organizations.find((o) => o.projects.some((p) => p.id === projectId))?.id ?? "";
  return "";
}

export function ProjectSwitcher() {
  const me = useMe();
  const navigate = useNavigate();
  const projectMatch = useMatch("/project/:projectId/*");
  const orgMatch = useMatch("/organization/:orgId/*");
  const current = projectMatch?.params.projectId ?? "";
  const page = projectMatch?.params["*"]?.split("/")[0] || PROJECT_HOME;
  const orgId = currentOrganizationId(me, current, orgMatch?.params.orgId);
  const organization = me.organizations.find((o) => o.id === orgId);
  if (me.organizations.length === 0) return null;

  const switchOrganization = (id: string) => {
    const next = me.organizations.find((o) => o.id === id);
    const first = next?.projects[0];
    navigate(first && !orgMatch ? projectPath(first.id, page) : organizationPath(id));
  };

  return (
    <div className="project-switcher">
      <label>
        <span className="visually-hidden">Organization</span>
        <select className="project-switcher__select" value={orgId} onChange={(event) => switchOrganization(event.target.value)}>
          {!orgId && (
            <option value="" disabled>
              Choose an organization
            </option>
          )}
          {me.organizations.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      {organization && organization.projects.length > 0 && (
        <>
          <span className="project-switcher__slash" aria-hidden="true">
            /
          </span>
          <label>
            <span className="visually-hidden">Project</span>
            <select
              className="project-switcher__select"
              value={current}
              onChange={(event) => navigate(projectPath(event.target.value, page))}
            >
              {!current && (
                <option value="" disabled>
                  Choose a project
                </option>
              )}
              {organization.projects.map((project) => (
                <option key={project.id} value={project.id}>
                  {project.name}
                </option>
              ))}
            </select>
          </label>
        </>
      )}
    </div>
  );
}
