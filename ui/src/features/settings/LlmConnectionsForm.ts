// What the LLM connection form sends (`PUT /api/public/llm-connections`, the Python SDK 5's
// `UpsertLlmConnectionRequest`), checked before it is sent. A connection is upserted by its
// `provider` name; the key is always sent again, as the API requires it and never shows it back.

import type { Checked, Problems } from "./forms";

export const ADAPTERS = [
  ["openai", "OpenAI (or an OpenAI-compatible server)"],
  ["anthropic", "Anthropic"],
  ["azure", "Azure OpenAI"],
  ["google-ai-studio", "Google AI Studio"],
  ["google-vertex-ai", "Google Vertex AI"],
] as const;

export type Adapter = (typeof ADAPTERS)[number][0];

export const PROVIDER_MAX = 100;

export interface ConnectionForm {
  provider: string;
  adapter: Adapter;
  secretKey: string;
  baseURL: string;
  /** One model per line (or comma-separated). */
  customModels: string;
  withDefaultModels: boolean;
  /** One `Name: value` per line. */
  extraHeaders: string;
}

export type ConnectionField = "provider" | "secretKey" | "baseURL" | "customModels" | "extraHeaders";

export const EMPTY_CONNECTION: ConnectionForm = {
  provider: "",
  adapter: "openai",
  secretKey: "",
  baseURL: "",
  customModels: "",
  withDefaultModels: true,
  extraHeaders: "",
};

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/;

export function connectionRequest(form: ConnectionForm): Checked<Record<string, unknown>, ConnectionField> {
  const problems: Problems<ConnectionField> = {};
  const provider = form.provider.trim();
  if (!provider) problems.provider = "Name the connection (evaluators refer to it by this name)";
  else if (provider.length > PROVIDER_MAX) problems.provider = `At most ${PROVIDER_MAX} characters`;
  if (!form.secretKey.trim()) problems.secretKey = form.adapter === "google-vertex-ai" ? "Paste the service account key (JSON)" : "Enter the API key";
  const baseURL = form.baseURL.trim();
  if (baseURL) {
    let ok = false;
    try {
      ok = ["http:", "https:"].includes(new URL(baseURL).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.baseURL = "An http(s) URL, e.g. https://api.example.com/v1";
  } else if (form.adapter === "azure") {
    problems.baseURL = "Azure needs its URL: https://<resource>.openai.azure.com/openai/deployments";
  }
  const customModels = [...new Set(form.customModels.split(/[\n,]/).map((m) => m.trim()).filter(Boolean))];
  const extraHeaders: Record<string, string> = {};
  for (const line of form.extraHeaders.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      problems.extraHeaders = `"${name}" is not a header line: write Name: value`;
      break;
    }
    const value = line.slice(colon + 1).trim();
    if (!value) {
      problems.extraHeaders = `Give the value of ${name} (stored values are never shown, and saving replaces them)`;
      break;
    }
    extraHeaders[name] = value;
  }
  if (!form.withDefaultModels && customModels.length === 0) problems.customModels = "Without the default models, list at least one model";
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: {
      provider,
      adapter: form.adapter,
      secretKey: form.secretKey.trim(),
      baseURL: baseURL || null,
      customModels,
      withDefaultModels: form.withDefaultModels,
      ...(Object.keys(extraHeaders).length ? { extraHeaders } : {}),
    },
  };
}
