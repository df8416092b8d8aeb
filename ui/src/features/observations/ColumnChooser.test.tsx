import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";

import { ColumnChooser, moveColumn, toggleColumn } from "./ColumnChooser";
import { COLUMN_IDS, type ColumnId } from "./state";

describe("column chooser", () => {
  it("keeps a first toggle when a second comes before the columns re-render", () => {
    const onChange = vi.fn<(columns: ColumnId[]) => void>();
    // The parent never re-renders: the URL has not caught up with either click.
    render(<ColumnChooser columns={COLUMN_IDS} onChange={onChange} />);
    fireEvent.click(screen.getByRole("checkbox", { name: "Model" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "Cost" }));
    expect(onChange).toHaveBeenCalledTimes(2);
    const last = onChange.mock.calls[1]?.[0] ?? [];
    expect(last).not.toContain("model");
    expect(last).not.toContain("cost");
    expect(last).toHaveLength(COLUMN_IDS.length - 2);
  });

  it("starts again from the rendered columns once they move", () => {
    const onChange = vi.fn<(columns: ColumnId[]) => void>();
    const { rerender } = render(<ColumnChooser columns={COLUMN_IDS} onChange={onChange} />);
    fireEvent.click(screen.getByRole("checkbox", { name: "Model" }));
    // Someone else (a saved view, the back button) sets the columns.
    rerender(<ColumnChooser columns={["name", "type"]} onChange={onChange} />);
    fireEvent.click(screen.getByRole("checkbox", { name: "Cost" }));
    expect(onChange.mock.calls[1]?.[0]).toEqual(["name", "type", "cost"]);
  });

  it("shows each toggle at once, and keeps it while the URL catches up one change at a time", () => {
    const onChange = vi.fn<(columns: ColumnId[]) => void>();
    const { rerender } = render(<ColumnChooser columns={COLUMN_IDS} onChange={onChange} />);
    const box = (name: string) => screen.getByRole("checkbox", { name }) as HTMLInputElement;
    fireEvent.click(box("Model"));
    fireEvent.click(box("Cost"));
    // Neither click has reached the URL: both boxes stay as clicked, not as the URL still says.
    expect([box("Model").checked, box("Cost").checked]).toEqual([false, false]);
    const [first, second] = onChange.mock.calls.map((call) => call[0]);
    // The first change comes back alone: the second still shows.
    rerender(<ColumnChooser columns={first ?? []} onChange={onChange} />);
    expect([box("Model").checked, box("Cost").checked]).toEqual([false, false]);
    rerender(<ColumnChooser columns={second ?? []} onChange={onChange} />);
    expect([box("Model").checked, box("Cost").checked]).toEqual([false, false]);
    // Columns that are none of the changes sent (a saved view) replace them.
    rerender(<ColumnChooser columns={["name", "model"]} onChange={onChange} />);
    expect([box("Model").checked, box("Cost").checked]).toEqual([true, false]);
  });

  it("toggles and moves without losing the last column", () => {
    expect(toggleColumn(["name"], "name", false)).toEqual(["name"]);
    expect(toggleColumn(["name"], "cost", true)).toEqual(["name", "cost"]);
    expect(moveColumn(["name", "type"], "type", -1)).toEqual(["type", "name"]);
    expect(moveColumn(["name", "type"], "type", 1)).toEqual(["name", "type"]);
  });
});
