// The built-in views every project has, applied like saved ones (`?view=preset:<id>`).

import { DEFAULT_STATE, type ViewState } from "./state";

export interface Preset {
  id: string;
  name: string;
  state: ViewState;
}

function preset(id: string, name: string, filters: ViewState["filters"]): Preset {
  return { id: `preset:${id}`, name, state: { ...DEFAULT_STATE, filters } };
}

export const PRESETS: readonly Preset[] = [
  preset("roots", "Root observations only", [{ column: "isRootObservation", operator: "=", value: "true" }]),
  preset("errors", "Errors only", [{ column: "level", operator: "any of", value: ["ERROR"] }]),
  preset("slow", "Slower than 10 s", [{ column: "latency", operator: ">", value: "10" }]),
  preset("costly", "Cost over $1", [{ column: "totalCost", operator: ">", value: "1" }]),
];

export function findPreset(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}
