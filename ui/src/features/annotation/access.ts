// Who may change queues and annotate: the roles the server lets write (docs/identity.md).

import type { Role } from "../../api/types";

const WRITERS: ReadonlySet<Role> = new Set(["OWNER", "ADMIN", "MEMBER"]);

export function canAnnotate(role: Role): boolean {
  return WRITERS.has(role);
}
