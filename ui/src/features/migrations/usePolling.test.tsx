import { act, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { usePolling } from "./usePolling";

let state: DocumentVisibilityState = "visible";

function setVisibility(next: DocumentVisibilityState) {
  state = next;
  document.dispatchEvent(new Event("visibilitychange"));
}

describe("usePolling", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    state = "visible";
    vi.spyOn(document, "visibilityState", "get").mockImplementation(() => state);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("polls on its interval while visible, not at all while hidden, and at once on return", () => {
    const poll = vi.fn();
    const { result, unmount } = renderHook(() => usePolling(poll, 3000));
    expect(result.current).toBe(true);
    act(() => void vi.advanceTimersByTime(9000));
    expect(poll).toHaveBeenCalledTimes(3);

    act(() => setVisibility("hidden"));
    expect(result.current).toBe(false);
    act(() => void vi.advanceTimersByTime(60_000));
    expect(poll).toHaveBeenCalledTimes(3);

    act(() => setVisibility("visible"));
    expect(result.current).toBe(true);
    expect(poll).toHaveBeenCalledTimes(4);
    act(() => void vi.advanceTimersByTime(3000));
    expect(poll).toHaveBeenCalledTimes(5);

    unmount();
    act(() => void vi.advanceTimersByTime(30_000));
    expect(poll).toHaveBeenCalledTimes(5);
  });
});
