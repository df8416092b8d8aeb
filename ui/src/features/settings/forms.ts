// The settings forms' rules, apart from the components so they are tested on their own: what a
// score config or a custom model form sends (the public API's shapes, langfuse.api.score_configs
// and models), and the environment snippet a new key is shown with.

import type { Role } from "../../api/types";

export type Problems<K extends string> = Partial<Record<K, string>>;

export type Checked<T, K extends string> = { ok: true; value: T } | { ok: false; problems: Problems<K> };

/** The roles a person can be given, most powerful first. */
export const ROLES: readonly Role[] = ["OWNER", "ADMIN", "MEMBER", "VIEWER", "NONE"];

/** OWNER and ADMIN manage keys, members and the project's settings (docs/identity.md). */
export function canManage(role: Role | undefined): boolean {
  return role === "OWNER" || role === "ADMIN";
}

/** MEMBER and above write a project's data (score configs, models). */
export function canWrite(role: Role | undefined): boolean {
  return canManage(role) || role === "MEMBER";
}

/** The lines a new project key is used with, for a `.env` file. */
export function envSnippet(publicKey: string, secretKey: string, origin: string): string {
  return `LANGFUSE_PUBLIC_KEY=${publicKey}\nLANGFUSE_SECRET_KEY=${secretKey}\nLANGFUSE_BASE_URL=${origin}`;
}

export const EMAIL_MAX = 320;

/** A project name's length, as the server allows it. */
export const PROJECT_NAME_MAX = 60;

export function checkEmail(text: string): string | null {
  const email = text.trim();
  if (!email) return "Enter an email address";
  if (email.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+$/.test(email)) return "Enter a valid email address";
  return null;
}

export type ScoreDataType = "NUMERIC" | "CATEGORICAL" | "BOOLEAN";

export interface ScoreConfigForm {
  name: string;
  dataType: ScoreDataType;
  /** Numeric: empty means unbounded. */
  minValue: string;
  maxValue: string;
  /** Categorical: one `label` or `label=value` per line. */
  categories: string;
  description: string;
}

export interface ScoreConfigRequest {
  name: string;
  dataType: ScoreDataType;
  minValue?: number;
  maxValue?: number;
  categories?: { label: string; value: number }[];
  description?: string;
}

/** The upstream limits: a name of at most 35 of these characters. */
export const SCORE_NAME_MAX = 35;
const SCORE_NAME = /^[A-Za-z0-9_ .()-]+$/;
export const CATEGORIES_MAX = 100;
export const DESCRIPTION_MAX = 1000;

function number(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

export function scoreConfigRequest(
  form: ScoreConfigForm,
): Checked<ScoreConfigRequest, keyof ScoreConfigForm> {
  const problems: Problems<keyof ScoreConfigForm> = {};
  const name = form.name.trim();
  if (!name) problems.name = "Enter a name";
  else if (name.length > SCORE_NAME_MAX) problems.name = `At most ${SCORE_NAME_MAX} characters`;
  else if (!SCORE_NAME.test(name)) problems.name = "Letters, numbers, spaces and _ . ( ) - only";
  const request: ScoreConfigRequest = { name, dataType: form.dataType };
  if (form.dataType === "NUMERIC") {
    const min = number(form.minValue);
    const max = number(form.maxValue);
    if (min === null) problems.minValue = "Enter a number or leave empty";
    if (max === null) problems.maxValue = "Enter a number or leave empty";
    if (typeof min === "number" && typeof max === "number" && min > max) problems.maxValue = "Must not be below the minimum";
    if (typeof min === "number") request.minValue = min;
    if (typeof max === "number") request.maxValue = max;
  }
  if (form.dataType === "CATEGORICAL") {
    const lines = form.categories.split("\n").map((l) => l.trim()).filter(Boolean);
    const categories = lines.map((line, index) => {
      const at = line.lastIndexOf("=");
      if (at < 0) return { label: line, value: index };
      return { label: line.slice(0, at).trim(), value: Number(line.slice(at + 1).trim()) };
    });
    const labels = new Set(categories.map((c) => c.label));
    const values = new Set(categories.map((c) => c.value));
    if (categories.length === 0) problems.categories = "Enter at least one category, one per line";
    else if (categories.length > CATEGORIES_MAX) problems.categories = `At most ${CATEGORIES_MAX} categories`;
    else if (categories.some((c) => !c.label || !Number.isFinite(c.value)))
      problems.categories = "Each line is a label, or label=number";
    else if (labels.size !== categories.length || values.size !== categories.length)
      problems.categories = "Labels and values must be unique";
    request.categories = categories;
  }
  const description = form.description.trim();
  if (description.length > DESCRIPTION_MAX) problems.description = `At most ${DESCRIPTION_MAX} characters`;
  if (description) request.description = description;
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, value: request };
}

export type UsageUnit = "TOKENS" | "CHARACTERS" | "MILLISECONDS" | "SECONDS" | "IMAGES" | "REQUESTS";
export const UNITS: readonly UsageUnit[] = ["TOKENS", "CHARACTERS", "MILLISECONDS", "SECONDS", "IMAGES", "REQUESTS"];

export interface PriceRow {
  key: string;
  /** USD per unit. */
  price: string;
}

export interface ModelForm {
  modelName: string;
  matchPattern: string;
  unit: UsageUnit;
  prices: PriceRow[];
}

export interface ModelRequest {
  modelName: string;
  matchPattern: string;
  unit: UsageUnit;
  pricingTiers: { name: string; isDefault: true; priority: 0; conditions: []; prices: Record<string, number> }[];
}

export const MODEL_NAME_MAX = 200;
export const PATTERN_MAX = 1000;
export const PRICE_KEYS_MAX = 50;
const USAGE_KEY = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Whether the browser's regular expressions take the pattern (the server's take `(?i)` too). */
function validPattern(pattern: string): boolean {
  try {
    new RegExp(pattern.replace(/^\(\?i\)/, ""));
    return true;
  } catch {
    return false;
  }
}

export function modelRequest(form: ModelForm): Checked<ModelRequest, keyof ModelForm> {
  const problems: Problems<keyof ModelForm> = {};
  const modelName = form.modelName.trim();
  if (!modelName) problems.modelName = "Enter the model's name";
  else if (modelName.length > MODEL_NAME_MAX) problems.modelName = `At most ${MODEL_NAME_MAX} characters`;
  const matchPattern = form.matchPattern.trim();
  if (!matchPattern) problems.matchPattern = "Enter a pattern, e.g. (?i)^my-model$";
  else if (matchPattern.length > PATTERN_MAX) problems.matchPattern = `At most ${PATTERN_MAX} characters`;
  else if (!validPattern(matchPattern)) problems.matchPattern = "Not a valid regular expression";
  const rows = form.prices.filter((row) => row.key.trim() || row.price.trim());
  const prices: Record<string, number> = {};
  for (const row of rows) {
    const key = row.key.trim();
    const price = Number(row.price.trim());
    if (!USAGE_KEY.test(key)) problems.prices = `"${key}" is not a usage key (letters, numbers, _ . : -)`;
    else if (!row.price.trim() || !Number.isFinite(price) || price < 0) problems.prices = `The price of ${key} must be a number ≥ 0`;
    else if (key in prices) problems.prices = `${key} is listed twice`;
    else prices[key] = price;
  }
  if (!problems.prices && rows.length === 0) problems.prices = "Enter at least one price, e.g. input and output";
  if (!problems.prices && rows.length > PRICE_KEYS_MAX) problems.prices = `At most ${PRICE_KEYS_MAX} prices`;
  if (Object.keys(problems).length) return { ok: false, problems };
  return {
    ok: true,
    value: {
      modelName,
      matchPattern,
      unit: form.unit,
      pricingTiers: [{ name: "Standard", isDefault: true, priority: 0, conditions: [], prices }],
    },
  };
}

/** Retention: 0 keeps data forever, else at least 3 days (the server's rule). */
export function checkRetention(text: string): { days: number } | { problem: string } {
  const days = Number(text.trim());
  if (!text.trim() || !Number.isInteger(days) || days < 0) return { problem: "Enter a whole number of days (0 keeps data forever)" };
  if (days > 0 && days < 3) return { problem: "At least 3 days, or 0 to keep data forever" };
  if (days > 36500) return { problem: "At most 36 500 days" };
  return { days };
}
