import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { LoadedView } from "./LoadedView";
import { Pager } from "./Pager";
import type { Loaded } from "./useLoad";

function loaded<T>(data: T | undefined, error?: unknown): Loaded<T> {
  return { data, error, loading: false, reload: vi.fn(), set: vi.fn() };
}

describe("LoadedView", () => {
  it("shows a spinner until the first answer, then the content", () => {
    const { rerender } = render(<LoadedView result={loaded<string>(undefined)} loadingLabel="Loading things…">{(d) => <p>{d}</p>}</LoadedView>);
    expect(screen.getByRole("status").textContent).toContain("Loading things…");
    rerender(<LoadedView result={loaded("the answer")}>{(d) => <p>{d}</p>}</LoadedView>);
    expect(screen.getByText("the answer")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("shows the error with a retry when nothing loaded, and a notice over the last answer when a reload failed", () => {
    const first = loaded<string>(undefined, new Error("boom"));
    const { rerender } = render(<LoadedView result={first} errorTitle="Things could not be loaded">{(d) => <p>{d}</p>}</LoadedView>);
    expect(screen.getByRole("alert").textContent).toContain("Things could not be loaded");
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(first.reload).toHaveBeenCalledTimes(1);
    rerender(<LoadedView result={loaded("kept", new Error("later"))}>{(d) => <p>{d}</p>}</LoadedView>);
    expect(screen.getByText("kept")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("shows the last answer");
  });
});

describe("Pager", () => {
  it("is hidden on a single page unless asked, and moves one page at a time within bounds", () => {
    const onPage = vi.fn();
    const { container, rerender } = render(<Pager page={1} totalPages={1} onPage={onPage} />);
    expect(container.textContent).toBe("");
    rerender(<Pager page={1} totalPages={1} onPage={onPage} always detail="(3 entries)" />);
    expect(screen.getByRole("navigation", { name: "Pages" }).textContent).toContain("Page 1 of 1 (3 entries)");
    rerender(<Pager page={2} totalPages={3} onPage={onPage} previousLabel="Newer" nextLabel="Older" />);
    fireEvent.click(screen.getByRole("button", { name: "Newer" }));
    fireEvent.click(screen.getByRole("button", { name: "Older" }));
    expect(onPage.mock.calls).toEqual([[1], [3]]);
    rerender(<Pager page={3} totalPages={3} onPage={onPage} />);
    expect((screen.getByRole("button", { name: "Next" }) as HTMLButtonElement).disabled).toBe(true);
  });
});
