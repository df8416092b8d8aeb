import { describe, expect, it } from "vitest";

import { storedMonitor } from "./fixture";
import { describeRule, EMPTY_FORM, emptyChannel, formOf, monitorRequest, newSecret, type MonitorForm } from "./form";

const filled: MonitorForm = {
  ...EMPTY_FORM,
  name: "  LLM errors ",
  filters: [{ column: "level", operator: "any of", value: ["ERROR"] }],
  threshold: "3",
  channels: [{ ...emptyChannel("webhook"), url: "http://127.0.0.1:9/hook" }],
};

describe("monitor form", () => {
  it("sends the query, the rule and the channels with their secrets", () => {
    const checked = monitorRequest(filled);
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toMatchObject({
      name: "LLM errors",
      query: { view: "observations", measure: "count", aggregation: "count", filters: [{ type: "stringOptions", column: "level", operator: "any of", value: ["ERROR"] }] },
      windowSeconds: 300,
      comparison: ">",
      threshold: 3,
      intervalSeconds: 60,
    });
    expect(checked.value.channels).toEqual([{ type: "webhook", url: "http://127.0.0.1:9/hook", secret: filled.channels[0]?.secret }]);
  });

  it("names each field the server would refuse", () => {
    const checked = monitorRequest({
      ...EMPTY_FORM,
      measure: "value",
      filtersJson: "{",
      windowSeconds: "30",
      intervalSeconds: "5",
      threshold: "many",
      channels: [
        { ...emptyChannel("webhook"), url: "ftp://x", secret: "short" },
        { ...emptyChannel("github"), owner: "a b", repo: "r", token: "t" },
        { ...emptyChannel("slack"), url: "not a url" },
      ],
    });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(Object.keys(checked.problems).sort()).toEqual(
      ["channel0", "channel1", "channel2", "filters", "intervalSeconds", "measure", "name", "threshold", "windowSeconds"].sort(),
    );
  });

  it("keeps stored channels on an edit unless they are replaced", () => {
    const monitor = storedMonitor({
      name: "Slow",
      query: { view: "observations", measure: "latency", aggregation: "p95", filters: [] },
      windowSeconds: 600,
      threshold: 2.5,
      channels: [{ type: "slack", displaySecret: "...abcd" }],
    });
    const kept = monitorRequest(formOf(monitor));
    expect(kept.ok && "channels" in kept.value).toBe(false);
    expect(kept.ok && kept.value.threshold).toBe(2.5);
    const replaced = monitorRequest({ ...formOf(monitor), replaceChannels: true });
    expect(replaced.ok && replaced.value.channels).toEqual([]);
    expect(describeRule(monitor)).toBe("p95(latency) of observations >= 2.5 over 10 min");
  });

  it("generates a fresh secret long enough for the server", () => {
    const a = newSecret();
    expect(a.length).toBeGreaterThanOrEqual(16);
    expect(a).not.toBe(newSecret());
  });
});
