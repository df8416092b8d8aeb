// Small pieces the prompts pages share: label and tag chips, the role check, relative dates.

import type { Role } from "../../api/types";

const WRITERS: ReadonlySet<Role> = new Set(["OWNER", "ADMIN", "MEMBER"]);

/** MEMBER and above change prompts; a VIEWER only reads (the server refuses the rest). */
export function canWrite(role: Role): boolean {
  return WRITERS.has(role);
}

export function Labels({ labels, className }: { labels: readonly string[]; className?: string }) {
  if (labels.length === 0) return <span className="muted">–</span>;
  return (
    <span className={["prompts__chips", className].filter(Boolean).join(" ")}>
      {labels.map((label) => (
        <span key={label} className={`prompts__chip prompts__chip--label${label === "production" ? " prompts__chip--production" : ""}`}>
          {label}
        </span>
      ))}
    </span>
  );
}

export function Tags({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return <span className="muted">–</span>;
  return (
    <span className="prompts__chips">
      {tags.map((tag) => (
        <span key={tag} className="prompts__chip">
          #{tag}
        </span>
      ))}
    </span>
  );
}

export function formatWhen(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** Shorter, for table cells: the year only when it is not this one. */
export function formatShort(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const thisYear = at.getFullYear() === new Date().getFullYear();
  return at.toLocaleString(undefined, { ...(thisYear ? {} : { year: "numeric" }), month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}
