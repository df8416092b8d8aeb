// The JSON worker: fetches a large value in full, parses it and keeps it, answering the viewer's
// questions about it a page at a time, so a 20 MB value is parsed and held off the main thread and
// the page never freezes (see jsonModel.ts and jsonDoc.ts).

import { detectChat } from "./chat";
import { childrenAt, entryOf, parseStored, stringAt } from "./jsonModel";
import type { WorkerReply, WorkerRequest } from "./jsonProtocol";

const docs = new Map<number, unknown>();

function reply(message: WorkerReply): void {
  postMessage(message);
}

async function open(id: number, url: string): Promise<void> {
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "text/plain, application/json" } });
    const text = await response.text();
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`;
      try {
        const body = JSON.parse(text) as { message?: unknown };
        if (typeof body.message === "string") message = body.message;
      } catch {
        // The status line says enough.
      }
      reply({ type: "failed", id, message });
      return;
    }
    const value = parseStored(text);
    docs.set(id, value);
    reply({ type: "opened", id, chars: text.length, root: entryOf("", value), chat: detectChat(value) });
  } catch (error) {
    reply({ type: "failed", id, message: error instanceof Error ? error.message : String(error) });
  }
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case "open":
      void open(request.id, request.url);
      break;
    case "children":
      reply({ type: "children", request: request.request, page: childrenAt(docs.get(request.id), request.path, request.offset, request.limit) });
      break;
    case "string":
      reply({ type: "string", request: request.request, text: stringAt(docs.get(request.id), request.path, request.offset, request.length) });
      break;
    case "close":
      docs.delete(request.id);
      break;
  }
};
