import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import type { Monitor, MonitorsApi } from "./api";
import { storedMonitor } from "./fixture";
import { MonitorDetail } from "./MonitorDetail";

const page = <T,>(data: T[]) => ({ data, meta: { page: 1, limit: 20, totalItems: data.length, totalPages: 1 } });

function monitor(patch: Partial<Monitor>): Monitor {
  // Due a second ago, so the page polls for the worker's evaluation.
  return storedMonitor({ intervalSeconds: 3600, nextEvaluationAt: new Date(Date.now() - 1000).toISOString(), ...patch });
}

/** A client answering `answers` in turn (the last one from then on), as the worker evaluates. */
function fakeClient(answers: Monitor[]) {
  let reads = 0;
  const client = {
    get: vi.fn(async () => answers[Math.min(reads++, answers.length - 1)]!),
    evaluations: vi.fn(async () => page([])),
    notifications: vi.fn(async () => page([])),
    evaluateNow: vi.fn(async () => undefined),
    mute: vi.fn(async () => answers[0]!),
  };
  return client as unknown as MonitorsApi & typeof client;
}

describe("a monitor's page", () => {
  it("polls while an evaluation is due, so the new state shows without a reload", async () => {
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const client = fakeClient([
      monitor({}),
      monitor({ state: "ALERTING", lastValue: 3, lastEvaluatedAt: new Date().toISOString(), nextEvaluationAt: later }),
    ]);
    render(<MonitorDetail client={client} id="m1" canWrite onBack={() => undefined} onDeleted={() => undefined} />);
    expect(await screen.findByRole("heading", { level: 1 })).toHaveTextContent("OK");
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("ALERTING"), { timeout: 5_000 });
    // Evaluated, nothing due: the polling stops.
    const reads = client.get.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(client.get.mock.calls.length).toBe(reads);
  });

  it("offers no button that changes the monitor to a reader", async () => {
    const client = fakeClient([monitor({ lastEvaluatedAt: new Date().toISOString(), nextEvaluationAt: new Date(Date.now() + 60_000).toISOString() })]);
    render(<MonitorDetail client={client} id="m1" canWrite={false} onBack={() => undefined} onDeleted={() => undefined} />);
    expect(await screen.findByRole("heading", { level: 1 })).toHaveTextContent("LLM errors");
    for (const name of ["Evaluate now", "Mute", "Edit", "Delete"]) expect(screen.queryByRole("button", { name })).toBeNull();
  });

  it("asks the worker to evaluate now", async () => {
    const client = fakeClient([monitor({ lastEvaluatedAt: new Date().toISOString(), nextEvaluationAt: new Date(Date.now() + 60_000).toISOString() })]);
    render(<MonitorDetail client={client} id="m1" canWrite onBack={() => undefined} onDeleted={() => undefined} />);
    await userEvent.click(await screen.findByRole("button", { name: "Evaluate now" }));
    expect(client.evaluateNow).toHaveBeenCalledWith("m1");
  });
});
