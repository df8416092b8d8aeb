// The real Langfuse JS SDK (langfuse 3.x, legacy batch ingestion) against Loupe: create, fetch and
// compile prompts; create a dataset and an item, run over it with a generation that reports usage
// only and names its prompt, link the trace to a run and read the run back, and read the trace,
// observations and sessions back through the SDK's legacy fetch methods. Prints what it saw as JSON.
//
// Usage: node sdk_resources.mjs  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
import { Langfuse } from "langfuse";

const langfuse = new Langfuse({
  publicKey: process.env.LOUPE_PUBLIC_KEY,
  secretKey: process.env.LOUPE_SECRET_KEY,
  baseUrl: process.env.LOUPE_URL,
  flushAt: 1,
});

await langfuse.createPrompt({ name: "js/greet", prompt: "Hello {{name}}", labels: ["production"], config: { temperature: 0 } });
await langfuse.createPrompt({
  name: "js/chat",
  type: "chat",
  labels: ["production"],
  prompt: [{ role: "system", content: "Be {{tone}}" }],
});
const text = await langfuse.getPrompt("js/greet", undefined, { cacheTtlSeconds: 0 });
const chat = await langfuse.getPrompt("js/chat", undefined, { type: "chat", cacheTtlSeconds: 0 });

await langfuse.createDataset({ name: "js-set", description: "from the JS SDK" });
await langfuse.createDatasetItem({ datasetName: "js-set", id: "js-item-1", input: { question: "2+2" }, expectedOutput: "4" });
const dataset = await langfuse.getDataset("js-set");
let traceId;
for (const item of dataset.items) {
  const trace = langfuse.trace({ name: "js-run-trace", input: item.input, sessionId: "js-session" });
  const generation = trace.generation({
    id: "js-generation",
    name: "answer",
    model: "gpt-4o-mini",
    usage: { input: 1000, output: 500 },
    prompt: text,
  });
  generation.end({ output: "4" });
  await item.link(trace, "js-run", { description: "run from the JS SDK" });
  traceId = trace.id;
}
await langfuse.flushAsync();
const run = await langfuse.getDatasetRun({ datasetName: "js-set", runName: "js-run" });

// Legacy reads (v1 traces, observations, sessions) once the worker has written the trace.
const deadline = Date.now() + 60_000;
let fetched;
for (;;) {
  try {
    fetched = (await langfuse.fetchTrace(traceId)).data;
    if (fetched.observations?.length === 1) break;
  } catch (error) {
    // 404 until the worker has written the trace
  }
  if (Date.now() > deadline) throw new Error(`trace ${traceId} never readable with its generation`);
  await new Promise((resolve) => setTimeout(resolve, 200));
}
const observations = await langfuse.fetchObservations({ traceId, type: "GENERATION" });
const generation = (await langfuse.fetchObservation("js-generation")).data;
const sessions = await langfuse.fetchSessions({ limit: 10 });
await langfuse.shutdownAsync();

console.log(
  JSON.stringify({
    text: text.compile({ name: "Ada" }),
    textConfig: text.config,
    textId: text.promptResponse.id,
    chat: chat.compile({ tone: "brief" }),
    datasetItems: dataset.items.length,
    runName: run.name,
    runItems: run.datasetRunItems.map((runItem) => ({ datasetItemId: runItem.datasetItemId, traceId: runItem.traceId })),
    traceId,
    fetchedTrace: { name: fetched.name, sessionId: fetched.sessionId, observations: fetched.observations.map((o) => o.id) },
    fetchedObservations: observations.data.map((o) => o.id),
    fetchedGeneration: { model: generation.model, promptName: generation.promptName, promptVersion: generation.promptVersion },
    sessions: sessions.data.map((s) => s.id),
  }),
);
