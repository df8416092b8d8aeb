// The monitor form's fields as typed, checked in the browser with the server's bounds
// (docs/monitors.md, "Bounds") before a request is sent, so most mistakes show at their field.

import { MEASURES, VIEWS } from "../dashboards/query";
import type { Checked, Problems } from "../settings/forms";
import type { ViewFilter } from "../observations/filters";
import type { ChannelInput, Comparison, Monitor, MonitorRequest } from "./api";
import { filtersState, stateFilters } from "../dashboards/filters";

export const COMPARISONS: readonly Comparison[] = [">", ">=", "<", "<="];
/** Every Metrics v2 aggregation that is one number (`histogram` is refused for monitors). */
export const AGGREGATIONS = ["count", "sum", "avg", "min", "max", "p50", "p75", "p90", "p95", "p99", "uniq"] as const;
export { MEASURES, VIEWS };

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 2000;
export const WINDOW_SECONDS = { min: 60, max: 604_800 };
export const INTERVAL_SECONDS = { min: 10, max: 86_400 };
export const CHANNELS_MAX = 5;
export const FILTERS_MAX = 20;
export const SECRET_MIN = 16;
const GITHUB_NAME = /^[A-Za-z0-9._-]{1,100}$/;

export type ChannelType = ChannelInput["type"];

export interface ChannelForm {
  type: ChannelType;
  url: string;
  /** The webhook's signing secret (generated for a new channel). */
  secret: string;
  owner: string;
  repo: string;
  token: string;
  eventType: string;
}

export interface MonitorForm {
  name: string;
  description: string;
  view: string;
  measure: string;
  aggregation: string;
  /** The filter builder's rows (over the Metrics columns of `view`). */
  filters: ViewFilter[];
  /** The Metrics filter JSON instead of the rows, when they cannot show the stored filters or the
   * person chose to type JSON; `null` while the builder is used. */
  filtersJson: string | null;
  windowSeconds: string;
  comparison: Comparison;
  threshold: string;
  intervalSeconds: string;
  /** When editing: false keeps the stored channels (their secrets are not shown again). */
  replaceChannels: boolean;
  channels: ChannelForm[];
}

export type MonitorField = Exclude<keyof MonitorForm, "replaceChannels" | "filtersJson"> | `channel${number}`;

/** 32 random bytes as hex: a signing secret nobody has to invent. */
export function newSecret(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return `whsec_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export function emptyChannel(type: ChannelType): ChannelForm {
  return { type, url: "", secret: type === "webhook" ? newSecret() : "", owner: "", repo: "", token: "", eventType: "loupe-monitor" };
}

export const EMPTY_FORM: MonitorForm = {
  name: "",
  description: "",
  view: "observations",
  measure: "count",
  aggregation: "count",
  filters: [],
  filtersJson: null,
  windowSeconds: "300",
  comparison: ">",
  threshold: "",
  intervalSeconds: "60",
  replaceChannels: true,
  channels: [],
};


/** The form showing a stored monitor; its channels stay unless the person replaces them. */
export function formOf(monitor: Monitor): MonitorForm {
  return {
    name: monitor.name,
    description: monitor.description,
    view: monitor.query.view,
    measure: monitor.query.measure,
    aggregation: monitor.query.aggregation,
    ...filtersState(monitor.query.filters, monitor.query.view),
    windowSeconds: String(monitor.windowSeconds),
    comparison: monitor.comparison,
    threshold: String(monitor.threshold),
    intervalSeconds: String(monitor.intervalSeconds),
    replaceChannels: false,
    channels: [],
  };
}

function wholeIn(text: string, { min, max }: { min: number; max: number }): number | null {
  const n = Number(text.trim());
  return text.trim() !== "" && Number.isInteger(n) && n >= min && n <= max ? n : null;
}

function checkUrl(text: string): string | null {
  try {
    const url = new URL(text.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? null : "Use an http or https URL";
  } catch {
    return "Enter a URL";
  }
}

function channelInput(channel: ChannelForm): ChannelInput | string {
  switch (channel.type) {
    case "webhook": {
      const bad = checkUrl(channel.url);
      if (bad) return bad;
      if (channel.secret.length < SECRET_MIN || channel.secret.length > 256) return `The secret needs ${SECRET_MIN} to 256 characters`;
      return { type: "webhook", url: channel.url.trim(), secret: channel.secret };
    }
    case "slack": {
      const bad = checkUrl(channel.url);
      return bad ?? { type: "slack", url: channel.url.trim() };
    }
    case "github": {
      if (!GITHUB_NAME.test(channel.owner.trim()) || !GITHUB_NAME.test(channel.repo.trim()))
        return "Owner and repository are 1 to 100 letters, digits, -, _ or .";
      if (!channel.token || channel.token.length > 512) return "Enter a token (at most 512 characters)";
      const eventType = channel.eventType.trim();
      if (!eventType || eventType.length > 100) return "The event type is 1 to 100 characters";
      return { type: "github", owner: channel.owner.trim(), repo: channel.repo.trim(), token: channel.token, eventType };
    }
  }
}

export function monitorRequest(form: MonitorForm): Checked<MonitorRequest, MonitorField> {
  const problems: Problems<MonitorField> = {};
  const name = form.name.trim();
  if (!name || name.length > NAME_MAX) problems.name = `Enter a name of at most ${NAME_MAX} characters`;
  if (form.description.length > DESCRIPTION_MAX) problems.description = `At most ${DESCRIPTION_MAX} characters`;
  if (!(MEASURES[form.view] ?? []).includes(form.measure)) problems.measure = `Choose a measure of ${form.view}`;
  const filters = stateFilters(form, form.view, FILTERS_MAX);
  if (typeof filters === "string") problems.filters = filters;
  const windowSeconds = wholeIn(form.windowSeconds, WINDOW_SECONDS);
  if (windowSeconds === null) problems.windowSeconds = `Whole seconds from ${WINDOW_SECONDS.min} to ${WINDOW_SECONDS.max}`;
  const intervalSeconds = wholeIn(form.intervalSeconds, INTERVAL_SECONDS);
  if (intervalSeconds === null) problems.intervalSeconds = `Whole seconds from ${INTERVAL_SECONDS.min} to ${INTERVAL_SECONDS.max}`;
  const threshold = Number(form.threshold.trim());
  if (form.threshold.trim() === "" || !Number.isFinite(threshold)) problems.threshold = "Enter a number";
  const channels: ChannelInput[] = [];
  if (form.replaceChannels) {
    if (form.channels.length > CHANNELS_MAX) problems.channels = `At most ${CHANNELS_MAX} channels`;
    form.channels.forEach((channel, i) => {
      const input = channelInput(channel);
      if (typeof input === "string") problems[`channel${i}`] = input;
      else channels.push(input);
    });
  }
  if (Object.keys(problems).length || windowSeconds === null || intervalSeconds === null || !Array.isArray(filters)) return { ok: false, problems };
  return {
    ok: true,
    value: {
      name,
      description: form.description,
      query: { view: form.view, measure: form.measure, aggregation: form.aggregation, filters },
      windowSeconds,
      comparison: form.comparison,
      threshold,
      intervalSeconds,
      ...(form.replaceChannels ? { channels } : {}),
    },
  };
}

/** "300 s" as people say it: "5 min", "2 h", "1 d"; odd values stay in seconds. */
export function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The rule in one line: "count of observations (count) > 5 over 5 min". */
export function describeRule(m: Pick<Monitor, "query" | "comparison" | "threshold" | "windowSeconds">): string {
  const filters = m.query.filters.length ? `, ${m.query.filters.length} filter${m.query.filters.length === 1 ? "" : "s"}` : "";
  return `${m.query.aggregation}(${m.query.measure}) of ${m.query.view}${filters} ${m.comparison} ${m.threshold} over ${describeSeconds(m.windowSeconds)}`;
}
