// Who may change datasets: MEMBER and above (a VIEWER reads only; the server refuses them too).

import type { Role } from "../../api/types";
import { projectPath } from "../../app/routes";

const WRITERS: ReadonlySet<Role> = new Set(["OWNER", "ADMIN", "MEMBER"]);

export function canWrite(role: Role): boolean {
  return WRITERS.has(role);
}

/** The path of a dataset's page under the project (`datasets/<name>`). */
export function datasetHref(name: string): string {
  return encodeURIComponent(name);
}

/** Where a trace opens: the Observations view's trace panel (`?trace=`) in the v4 views; the trace
 * page in the v3 views, whose Observations tab has no panel. */
export function traceHref(projectId: string, traceId: string, model: "v3" | "v4"): string {
  const id = encodeURIComponent(traceId);
  return model === "v4" ? `${projectPath(projectId, "observations")}?trace=${id}` : projectPath(projectId, `traces/${id}`);
}
