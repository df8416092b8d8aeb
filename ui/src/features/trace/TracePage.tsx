// `/project/{projectId}/traces/{traceId}?observation=<id>`: the trace panel full-width, for deep
// links (the Sessions page links here).

import { useCallback } from "react";
import { useNavigate, useParams, useSearchParams } from "react-router";

import { projectPath } from "../../app/routes";
import { useProject } from "../../app/project";
import { TracePanel } from "./TracePanel";

export default function TracePage() {
  const { project } = useProject();
  // `traces/:traceId`: an id holding a slash arrives encoded (%2F) and is decoded here.
  const { traceId = "" } = useParams();
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
