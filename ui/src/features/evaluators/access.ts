// Where the Evaluators pages live, and who may change them.

import { useMemo } from "react";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { canWrite } from "../settings/forms";
import { evaluatorsApi } from "./api";

/** The page's calls, the project, links, and whether the person writes (MEMBER and above). */
export function useEvaluators() {
  const { project, api } = useProject();
  const calls = useMemo(() => evaluatorsApi(api), [api]);
  return {
    project,
    api: calls,
    writer: canWrite(project.role),
    href: (rest = "") => projectPath(project.id, rest ? `evaluators/${rest}` : "evaluators"),
    traceHref: (traceId: string, observationId?: string) =>
      projectPath(project.id, `traces/${encodeURIComponent(traceId)}${observationId ? `?observation=${encodeURIComponent(observationId)}` : ""}`),
  };
}
