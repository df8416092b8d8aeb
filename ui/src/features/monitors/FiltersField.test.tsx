import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import type { Monitor, MonitorRequest } from "./api";
import { storedMonitor } from "./fixture";
import { formOf } from "./form";
import { MonitorForm } from "./MonitorForm";

const stored = storedMonitor({
  query: { view: "observations", measure: "count", aggregation: "count", filters: [{ column: "level", operator: "=", value: "ERROR", type: "string" }] },
});

function edit(monitor: Monitor) {
  const onSave = vi.fn(async (request: MonitorRequest) => ({ ...monitor, query: request.query }));
  render(<MonitorForm initial={formOf(monitor)} editing={monitor} onSave={onSave} onSaved={() => undefined} onCancel={() => undefined} />);
  return onSave;
}

describe("a monitor's filters field", () => {
  it("edits stored filters in the builder and saves what it shows", async () => {
    const onSave = edit(stored);
    const filters = screen.getByRole("group", { name: "Filters" });
    const first = within(filters).getByRole("group", { name: "Filter 1" });
    expect(within(first).getByLabelText("Filter 1 column")).toHaveValue("level");
    expect(within(first).getByRole("checkbox", { name: "ERROR" })).toBeChecked();
    await userEvent.click(within(filters).getByRole("button", { name: "+ Add filter" }));
    await userEvent.type(within(filters).getByLabelText("Filter 2 value"), "chat");
    await userEvent.click(screen.getByRole("button", { name: "Save monitor" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0].query.filters).toEqual([
      { type: "stringOptions", column: "level", operator: "any of", value: ["ERROR"] },
      { type: "string", column: "name", operator: "=", value: "chat" },
    ]);
  });

  it("falls back to JSON for what the builder cannot express, and back to the builder when it can", async () => {
    const onSave = edit({ ...stored, query: { ...stored.query, filters: [{ column: "sessionId", operator: "is not null", value: null, type: "null" }] } });
    expect(screen.queryByRole("group", { name: "Filters" })).not.toBeInTheDocument();
    const json = screen.getByLabelText("Filters (JSON)");
    await userEvent.click(screen.getByRole("button", { name: "Use the filter builder" }));
    expect(screen.getByRole("status")).toHaveTextContent("The builder cannot show every one of these filters");

    await userEvent.clear(json);
    await userEvent.click(json);
    await userEvent.paste('[{"column":"name","operator":"=","value":"a","type":"string"}]');
    await userEvent.click(screen.getByRole("button", { name: "Use the filter builder" }));
    expect(within(screen.getByRole("group", { name: "Filter 1" })).getByLabelText("Filter 1 value")).toHaveValue("a");

    await userEvent.click(screen.getByRole("button", { name: "Edit as JSON" }));
    expect(JSON.parse((screen.getByLabelText("Filters (JSON)") as HTMLTextAreaElement).value)).toEqual([{ type: "string", column: "name", operator: "=", value: "a" }]);
    await userEvent.click(screen.getByRole("button", { name: "Save monitor" }));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    expect(onSave.mock.calls[0]![0].query.filters).toEqual([{ type: "string", column: "name", operator: "=", value: "a" }]);
  });
});
