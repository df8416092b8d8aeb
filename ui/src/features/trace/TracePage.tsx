// `/project/{projectId}/traces/{traceId}?observation=<id>`: the trace panel full-width, for deep
// links (the Sessions page links here).

import { useCallback } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";

import { projectPath } from "../../app/routes";
import { useProject } from "../../app/project";
import { TracePanel } from "./TracePanel";

export default function TracePage() {
  const { project } = useProject();
  const params = useParams();
  // The route is `traces/*`: the rest of the path is the trace id (ids may hold any character).
  const traceId = params["*"] ?? "";
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const observationId = search.get("observation") ?? undefined;
  const select = useCallback(
    (id: string) =>
      setSearch(
        (current) => {
          const next = new URLSearchParams(current);
          next.set("observation", id);
          return next;
        },
        { replace: true },
      ),
    [setSearch],
  );
  const close = useCallback(() => navigate(projectPath(project.id)), [navigate, project.id]);
  return (
    <div className="page page--full trace-page">
      <TracePanel
        key={traceId}
        projectId={project.id}
        traceId={traceId}
        {...(observationId ? { observationId } : {})}
        onSelectObservation={select}
        onClose={close}
      />
    </div>
  );
}
