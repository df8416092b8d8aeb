// How the sessions and migrations pages write numbers and times: short, unambiguous, and the same
// wherever a figure appears.

/** A length of time: "850 ms", "13.2 s", "2 min 5 s", "1 h 3 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "–";
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 59.5) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  const units: [number, string][] = [
    [86_400, "d"],
    [3_600, "h"],
    [60, "min"],
    [1, "s"],
  ];
  const parts: string[] = [];
  let rest = whole;
  for (const [size, unit] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    // The two largest units say enough: "1 h 3 min", not "1 h 3 min 12 s".
    if (count > 0 || parts.length > 0) parts.push(`${count} ${unit}`);
    if (parts.length === 2) break;
  }
  return parts.filter((p) => !p.startsWith("0 ")).join(" ");
}

/** USD: "$0", "$1.23", "$0.0042", "$0.000012"; small amounts keep three significant digits. */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd)) return "–";
  if (usd === 0) return "$0";
  const abs = Math.abs(usd);
  if (abs >= 1) return `$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  return `$${usd.toLocaleString("en-US", { maximumSignificantDigits: 3 })}`;
}

/** A count with thousands separators: "38,617". */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–";
}

/** A count in little space: "950", "38.6k", "1.2M". */
export function formatCompact(n: number): string {
  if (!Number.isFinite(n)) return "–";
  if (Math.abs(n) < 1000) return String(Math.round(n));
  return n.toLocaleString("en-US", { notation: "compact", maximumFractionDigits: 1 });
}

/** A moment in the reader's time zone: "Nov 26, 14:03:07". With `year`, the year too. */
export function formatDateTime(iso: string, options: { year?: boolean } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, {
    ...(options.year ? { year: "numeric" } : {}),
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hour12: false,
  });
}

/** How long ago, roughly: "just now", "5 min ago", "3 h ago", "2 d ago". */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const seconds = (now - new Date(iso).getTime()) / 1000;
  if (!Number.isFinite(seconds)) return iso;
  if (seconds < 45) return "just now";
  if (seconds < 3_600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3_600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}
