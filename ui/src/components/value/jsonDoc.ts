// A JSON value the viewer reads a page at a time: held on the main thread when small, in the JSON
// worker when it was fetched in full (json.worker.ts).

import { detectChat, type ChatMessage } from "./chat";
import { childrenAt, entryOf, stringAt, type JsonEntry, type JsonPage, type JsonPath } from "./jsonModel";
import type { WorkerReply, WorkerRequest } from "./jsonProtocol";

export interface JsonDoc {
  root: JsonEntry;
  children(path: JsonPath, offset: number, limit: number): Promise<JsonPage>;
  string(path: JsonPath, offset: number, length: number): Promise<string>;
  /** Frees what the worker holds. */
  close(): void;
}

/** A value already parsed on the main thread (a preview that was the whole value). */
export function localDoc(value: unknown): JsonDoc {
  return {
    root: entryOf("", value),
    children: (path, offset, limit) => Promise.resolve(childrenAt(value, path, offset, limit)),
    string: (path, offset, length) => Promise.resolve(stringAt(value, path, offset, length)),
    close: () => undefined,
  };
}

export interface FullValue {
  doc: JsonDoc;
  chat: ChatMessage[] | null;
  /** The whole value's length in characters. */
  chars: number;
}

let worker: Worker | null = null;
let nextId = 1;
const opening = new Map<number, { resolve(value: FullValue): void; reject(error: Error): void }>();
const waiting = new Map<number, (reply: WorkerReply) => void>();

function theWorker(): Worker {
  if (worker) return worker;
  worker = new Worker(new URL("./json.worker.ts", import.meta.url), { type: "module" });
  worker.onmessage = (event: MessageEvent<WorkerReply>) => {
    const reply = event.data;
    if (reply.type === "opened" || reply.type === "failed") {
      const pending = opening.get(reply.id);
      opening.delete(reply.id);
      if (!pending) return;
      if (reply.type === "failed") pending.reject(new Error(reply.message));
      else pending.resolve({ doc: workerDoc(reply.id, reply.root), chat: reply.chat, chars: reply.chars });
    } else {
      waiting.get(reply.request)?.(reply);
      waiting.delete(reply.request);
    }
  };
  return worker;
}

function ask<T>(request: (id: number) => WorkerRequest, read: (reply: WorkerReply) => T): Promise<T> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, (reply) => resolve(read(reply)));
    theWorker().postMessage(request(id));
  });
}

function workerDoc(id: number, root: JsonEntry): JsonDoc {
  return {
    root,
    children: (path, offset, limit) =>
      ask(
        (request) => ({ type: "children", id, request, path, offset, limit }),
        (reply) => (reply.type === "children" ? reply.page : { entries: [], total: 0 }),
      ),
    string: (path, offset, length) =>
      ask(
        (request) => ({ type: "string", id, request, path, offset, length }),
        (reply) => (reply.type === "string" ? reply.text : ""),
      ),
    close: () => theWorker().postMessage({ type: "close", id } satisfies WorkerRequest),
  };
}

/** Fetches `url` in full in the worker, parses it there, and answers with a document over it. */
export function openFullValue(url: string): Promise<FullValue> {
  if (typeof Worker === "undefined") {
    // No worker (tests): parse here.
    return fetch(url, { credentials: "same-origin" })
      .then(async (response) => {
        const text = await response.text();
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
        return text;
      })
      .then((text) => {
        let value: unknown = text;
        try {
          value = JSON.parse(text) as unknown;
        } catch {
          // Plain text.
        }
        return { doc: localDoc(value), chat: detectChat(value), chars: text.length };
      });
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    opening.set(id, { resolve, reject });
    theWorker().postMessage({ type: "open", id, url } satisfies WorkerRequest);
  });
}
