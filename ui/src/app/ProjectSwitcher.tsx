// Organizations → projects, as a native select (keyboard and screen readers know it); switching
// keeps the page: from one project's Sessions to the other's.

import { useMatch, useNavigate } from "react-router";

import { PROJECT_HOME, projectPath } from "./routes";
import { useMe } from "./session";

export function ProjectSwitcher() {
  const me = useMe();
  const navigate = useNavigate();
  const match = useMatch("/project/:projectId/*");
  const current = match?.params.projectId ?? "";
  const page = match?.params["*"]?.split("/")[0] || PROJECT_HOME;
  const withProjects = me.organizations.filter((o) => o.projects.length > 0);
  if (withProjects.length === 0) return null;

  return (
    <label className="project-switcher">
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
        {withProjects.map((organization) => (
          <optgroup key={organization.id} label={organization.name}>
            {organization.projects.map((project) => (
              <option key={project.id} value={project.id}>
                {project.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}
