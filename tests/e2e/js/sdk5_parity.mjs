// The real Langfuse JS SDK 5 (@langfuse/tracing + @langfuse/otel + @langfuse/client, OTLP export)
// against Loupe, for the SDK-parity items of issue 17 it exposes:
// - a generation whose usage details use OpenAI's key names and a custom key (kept as sent);
// - the experiment runner over a dataset: it posts each item's run item AND marks the item's spans
//   with experiment attributes, which must still be one run item per (run, item, trace);
// - a dataset item holding media, read back through `dataset.get`, which puts the media back at
//   the JSONPath the server reports (`$['gallery'][0]`) only when that path is in the normalized
//   form the SDK parses.
// Prints what it saw as JSON; the black-box test checks the stored rows after the worker drained.
//
// Usage: node sdk5_parity.mjs  (reads LOUPE_URL, LOUPE_PUBLIC_KEY, LOUPE_SECRET_KEY)
import { LangfuseClient, LangfuseMedia } from "@langfuse/client";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { startObservation } from "@langfuse/tracing";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

const credentials = {
  publicKey: process.env.LOUPE_PUBLIC_KEY,
  secretKey: process.env.LOUPE_SECRET_KEY,
  baseUrl: process.env.LOUPE_URL,
};
const spans = new LangfuseSpanProcessor({ ...credentials, exportMode: "immediate" });
const provider = new NodeTracerProvider({ spanProcessors: [spans] });
provider.register();
const langfuse = new LangfuseClient(credentials);

// Item 4: usage details as an OpenAI-style client reports them, plus a key of the caller's own.
const generation = startObservation(
  "js-usage",
  {
    model: "js-parity-model",
    input: [{ role: "user", content: "2+2?" }],
    usageDetails: { prompt_tokens: 10, completion_tokens: 5, cached_reads: 2 },
  },
  { asType: "generation" },
);
generation.update({ output: "4" }).end();

// Item 5: the experiment runner over a dataset of two items.
await langfuse.api.datasets.create({ name: "js-exp" });
for (const [id, question] of [["js-exp-1", "2+2"], ["js-exp-2", "3+3"]]) {
  await langfuse.api.datasetItems.create({ datasetName: "js-exp", id, input: { question } });
}
const dataset = await langfuse.dataset.get("js-exp");
const experiment = await dataset.runExperiment({
  name: "js-exp",
  runName: "js-exp-run",
  description: "from the JS SDK 5 runner",
  task: async (item) => `answer to ${item.input.question}`,
});

// Item 6: a dataset item whose input holds an image in a list.
const IMAGE = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 512 }, (_, i) => i % 256)]);
await langfuse.api.datasets.create({ name: "js-media" });
await langfuse.dataset.createItem({
  datasetName: "js-media",
  id: "js-media-1",
  input: {
    caption: "a picture",
    gallery: [new LangfuseMedia({ source: "bytes", contentBytes: IMAGE, contentType: "image/png" })],
  },
});
const raw = await langfuse.api.datasetItems.get("js-media-1");
const mediaDataset = await langfuse.dataset.get("js-media");
const hydrated = mediaDataset.items[0].input.gallery[0];
const downloaded = hydrated?.url ? new Uint8Array(await (await fetch(hydrated.url)).arrayBuffer()) : null;

await spans.forceFlush();
await provider.shutdown();

console.log(
  JSON.stringify({
    generation: { traceId: generation.traceId, id: generation.id },
    experiment: {
      datasetRunId: experiment.datasetRunId,
      items: experiment.itemResults.map((r) => ({ datasetItemId: r.item.id, traceId: r.traceId })),
    },
    media: {
      jsonPaths: (raw.mediaReferences ?? []).map((r) => [r.field, r.jsonPath]),
      // The SDK replaced the reference string at that path by a resolved reference object.
      hydrated: typeof hydrated === "object" && hydrated !== null && typeof hydrated.mediaId === "string",
      sameBytes: downloaded !== null && Buffer.from(downloaded).equals(Buffer.from(IMAGE)),
      caption: mediaDataset.items[0].input.caption,
    },
  }),
);
