import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { toApiFilter, type ViewFilter } from "../observations/filters";
import type { Widget, WidgetFilter, WidgetSpec } from "./api";
import { filterColumnsOf } from "./filters";
import { VIEWS } from "./query";
import { WidgetEditor } from "./WidgetEditor";

const widget = (view: string, filters: WidgetFilter[]): Widget => ({
  id: "w1",
  createdAt: "",
  updatedAt: "",
  name: "Tokens",
  description: "",
  view,
  dimensions: [],
  metrics: [{ measure: "count", agg: "count" }],
  filters,
  chartType: "NUMBER",
  chartConfig: { type: "NUMBER" },
});

function edit(initial: Widget | null) {
  const onSave = vi.fn(async (_spec: WidgetSpec) => undefined);
  render(<WidgetEditor initial={initial} onSave={onSave} onCancel={() => undefined} />);
  return onSave;
}

/** One stored filter on each column of the view, as the builder sends them. */
function oneFilterPerColumn(view: string): WidgetFilter[] {
  return filterColumnsOf(view).map((column) => {
    const value = column.kind === "options" ? [column.options?.[0] ?? ""] : column.kind === "number" ? "2.5" : column.kind === "tags" ? "a, b" : "x";
    const operator = column.kind === "options" ? "none of" : column.kind === "tags" ? "any of" : "=";
    const row: ViewFilter = { column: column.id, operator, value };
    const sent = toApiFilter(row, filterColumnsOf(view));
    if (!sent) throw new Error(`${view} ${column.id} sends nothing`);
    return sent;
  });
}

describe("a widget's filters", () => {
  it.each(VIEWS)("reopens a filter on every column of %s in the builder and saves it unchanged", async (view) => {
    const stored = oneFilterPerColumn(view);
    const onSave = edit(widget(view, stored));
    const filters = screen.getByRole("group", { name: "Filters" });
    expect(within(filters).getAllByRole("group", { name: /^Filter \d+$/ })).toHaveLength(stored.length);
    expect(screen.queryByLabelText("Filters (JSON)")).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Save widget" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0].filters).toEqual(stored);
  });

  it("builds a new widget's filter in the rows and names an incomplete one", async () => {
    const onSave = edit(null);
    await userEvent.type(screen.getByLabelText("Widget name"), "Errors");
    const filters = screen.getByRole("group", { name: "Filters" });
    await userEvent.click(within(filters).getByRole("button", { name: "+ Add filter" }));
    await userEvent.selectOptions(within(filters).getByLabelText("Filter 1 column"), "providedModelName");
    await userEvent.click(screen.getByRole("button", { name: "Add to dashboard" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Filter 1 is not complete");
    expect(onSave).not.toHaveBeenCalled();
    await userEvent.type(within(filters).getByLabelText("Filter 1 value"), "gpt-4o");
    await userEvent.click(screen.getByRole("button", { name: "Add to dashboard" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0].filters).toEqual([{ type: "string", column: "providedModelName", operator: "=", value: "gpt-4o" }]);
  });

  it("keeps what the builder cannot show as JSON, and sends it unchanged", async () => {
    const stored: WidgetFilter[] = [{ column: "sessionId", operator: "is not null", value: null, type: "null" }];
    const onSave = edit(widget("observations", stored));
    expect(screen.queryByRole("group", { name: "Filters" })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Use the filter builder" }));
    expect(screen.getByRole("status")).toHaveTextContent("The builder cannot show every one of these filters");
    await userEvent.click(screen.getByRole("button", { name: "Save widget" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0].filters).toEqual(stored);
  });

  it("keeps the rows the new view has the same column for", async () => {
    const onSave = edit(widget("observations", [
      { type: "stringOptions", column: "level", operator: "any of", value: ["ERROR"] },
      { type: "string", column: "traceName", operator: "=", value: "chat" },
    ]));
    await userEvent.selectOptions(screen.getByLabelText("View"), "scores-categorical");
    await userEvent.click(screen.getByRole("button", { name: "Save widget" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0]).toMatchObject({ view: "scores-categorical", filters: [{ type: "string", column: "traceName", operator: "=", value: "chat" }] });
  });
});
