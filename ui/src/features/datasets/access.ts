// Who may change datasets: MEMBER and above (a VIEWER reads only; the server refuses them too).

import type { Role } from "../../api/types";

const WRITERS: ReadonlySet<Role> = new Set(["OWNER", "ADMIN", "MEMBER"]);

export function canWrite(role: Role): boolean {
  return WRITERS.has(role);
}

/** The path of a dataset's page under the project (`datasets/<name>`). */
export function datasetHref(name: string): string {
  return encodeURIComponent(name);
}
