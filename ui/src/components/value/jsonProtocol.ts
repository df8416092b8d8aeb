// The messages between the page and the JSON worker.

import type { ChatMessage } from "./chat";
import type { JsonEntry, JsonPage, JsonPath } from "./jsonModel";

export type WorkerRequest =
  | { type: "open"; id: number; url: string }
  | { type: "children"; id: number; request: number; path: JsonPath; offset: number; limit: number }
  | { type: "string"; id: number; request: number; path: JsonPath; offset: number; length: number }
  | { type: "close"; id: number };

export type WorkerReply =
  | { type: "opened"; id: number; chars: number; root: JsonEntry; chat: ChatMessage[] | null }
  | { type: "failed"; id: number; message: string }
  | { type: "children"; request: number; page: JsonPage }
  | { type: "string"; request: number; text: string };
