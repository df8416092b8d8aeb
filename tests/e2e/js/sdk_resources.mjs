// The real Langfuse JS SDK (langfuse 3.x, legacy batch ingestion) against Loupe: create, fetch and
// compile prompts; create a dataset and an item, run over it with a generation that reports usage
// only and names its prompt, link the trace to a run and read the run back. Prints what it saw as JSON.
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
  const trace = langfuse.trace({ name: "js-run-trace", input: item.input });
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
  }),
);
