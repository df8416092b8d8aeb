// `/project/{projectId}/traces`: the v3 Traces tab. The v4 model has no separate traces list (one
// Observations view), so there it leads to the Observations view, filters kept.

import { Navigate, useLocation } from "react-router";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { useMe } from "../../app/session";
import { LegacyPage } from "./LegacyPage";

export default function TracesPage() {
  const me = useMe();
  const { project } = useProject();
  const { search } = useLocation();
  if (me.views === "v3") return <LegacyPage tab="traces" />;
  return <Navigate replace to={`${projectPath(project.id, "observations")}${search}`} />;
}
