import { act, renderHook } from "@testing-library/react";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { BACKOFF, usePollWhile, waits } from "./usePollWhile";

interface Job {
  status: "QUEUED" | "PROCESSING" | "COMPLETED" | "FAILED";
  rows: number;
}

const running = (job: Job) => job.status === "QUEUED" || job.status === "PROCESSING";

let visibility: DocumentVisibilityState = "visible";

function setVisibility(next: DocumentVisibilityState) {
  visibility = next;
  document.dispatchEvent(new Event("visibilitychange"));
}

/** The hook over a job held in state, as a page holds it; `read` answers the server's side. */
function follow(first: Job | null, read: (signal: AbortSignal) => Promise<Job>) {
  return renderHook(() => {
    const [job, setJob] = useState(first);
    const failure = usePollWhile(job, running, read, setJob);
    return { job, setJob, failure };
  });
}

/** Lets the timers run `ms` and the reads they started answer. */
async function pass(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe("usePollWhile", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    visibility = "visible";
    vi.spyOn(document, "visibilityState", "get").mockImplementation(() => visibility);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("waits longer between reads while the job runs, up to the cap", () => {
    expect(waits(BACKOFF, 8)).toEqual([1000, 1500, 2250, 3375, 5062.5, 7593.75, 10_000, 10_000]);
  });

  it("reads a running job on the backoff's schedule and stops once it ended", async () => {
    const answers: Job[] = [
      { status: "PROCESSING", rows: 10 },
      { status: "PROCESSING", rows: 20 },
      { status: "COMPLETED", rows: 30 },
    ];
    const read = vi.fn(async () => answers.shift()!);
    const { result } = follow({ status: "QUEUED", rows: 0 }, read);
    await pass(999);
    expect(read).toHaveBeenCalledTimes(0);
    await pass(1);
    expect(read).toHaveBeenCalledTimes(1);
    expect(result.current.job?.rows).toBe(10);
    await pass(1499);
    expect(read).toHaveBeenCalledTimes(1);
    await pass(1);
    expect(read).toHaveBeenCalledTimes(2);
    await pass(2250);
    expect(read).toHaveBeenCalledTimes(3);
    expect(result.current.job).toEqual({ status: "COMPLETED", rows: 30 });
    await pass(120_000);
    expect(read).toHaveBeenCalledTimes(3);
  });

  it("asks nothing about a job that is not running, or when there is none", async () => {
    const read = vi.fn(async (): Promise<Job> => ({ status: "COMPLETED", rows: 1 }));
    follow({ status: "FAILED", rows: 0 }, read);
    follow(null, read);
    await pass(60_000);
    expect(read).not.toHaveBeenCalled();
  });

  it("starts when a job starts, keeps a failed read to show, and tries again", async () => {
    let fail = true;
    const read = vi.fn(async (): Promise<Job> => {
      if (fail) throw new Error("offline");
      return { status: "COMPLETED", rows: 5 };
    });
    const { result } = follow(null, read);
    await pass(5000);
    expect(read).not.toHaveBeenCalled();
    act(() => result.current.setJob({ status: "QUEUED", rows: 0 }));
    await pass(1000);
    expect(read).toHaveBeenCalledTimes(1);
    expect(result.current.failure).toBeInstanceOf(Error);
    expect(result.current.job?.status).toBe("QUEUED");
    fail = false;
    await pass(1500);
    expect(read).toHaveBeenCalledTimes(2);
    expect(result.current.failure).toBeUndefined();
    expect(result.current.job?.status).toBe("COMPLETED");
  });

  it("waits while the tab is hidden and reads at once when it is shown", async () => {
    const read = vi.fn(async (): Promise<Job> => ({ status: "PROCESSING", rows: 1 }));
    const { unmount } = follow({ status: "QUEUED", rows: 0 }, read);
    act(() => setVisibility("hidden"));
    await pass(60_000);
    expect(read).not.toHaveBeenCalled();
    act(() => setVisibility("visible"));
    await pass(0);
    expect(read).toHaveBeenCalledTimes(1);
    unmount();
    await pass(60_000);
    expect(read).toHaveBeenCalledTimes(1);
  });
});
