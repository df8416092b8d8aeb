import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { DataTable, type Column } from "./DataTable";

interface Row {
  id: string;
  name: string;
}

const columns: Column<Row>[] = [
  { id: "name", header: "Name", render: (row) => row.name },
  { id: "id", header: "Id", render: (row) => row.id, align: "end" },
];
const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: `r${i}`, name: `row ${i}` }));

describe("DataTable", () => {
  // jsdom lays nothing out: give the scroll area the size of a laptop's table.
  beforeEach(() => {
    vi.spyOn(Element.prototype, "clientHeight", "get").mockReturnValue(360);
    vi.spyOn(Element.prototype, "clientWidth", "get").mockReturnValue(800);
  });
  afterEach(() => vi.restoreAllMocks());

  it("puts only the rows in view in the DOM", () => {
    render(<DataTable label="Things" columns={columns} rows={rows} rowKey={(r) => r.id} />);
    const table = screen.getByRole("table", { name: "Things" });
    expect(table).toHaveAttribute("aria-rowcount", "10001");
    const shown = within(table).getAllByRole("row").length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(60);
    expect(screen.getByText("row 0")).toBeInTheDocument();
    expect(screen.queryByText("row 9999")).toBeNull();
  });

  it("opens a row by click or keyboard and marks the selected one", async () => {
    const open = vi.fn();
    render(
      <DataTable label="Things" columns={columns} rows={rows.slice(0, 3)} rowKey={(r) => r.id} onRowClick={open} selectedKey="r1" />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByText("row 2"));
    expect(open).toHaveBeenLastCalledWith({ id: "r2", name: "row 2" });
    const second = screen.getByText("row 1").closest("[role=row]") as HTMLElement;
    expect(second).toHaveAttribute("aria-selected", "true");
    second.focus();
    await user.keyboard("{Enter}");
    expect(open).toHaveBeenLastCalledWith({ id: "r1", name: "row 1" });
  });

  it("shows its empty state", () => {
    render(<DataTable label="Things" columns={columns} rows={[]} rowKey={(r) => r.id} empty="No things yet" />);
    expect(screen.getByText("No things yet")).toBeInTheDocument();
  });

  it("asks for the next page only when the end comes into view", () => {
    const more = vi.fn();
    const { unmount } = render(<DataTable label="Things" columns={columns} rows={rows.slice(0, 500)} rowKey={(r) => r.id} onEndReached={more} />);
    expect(more).not.toHaveBeenCalled();
    unmount();
    render(<DataTable label="Things" columns={columns} rows={rows.slice(0, 4)} rowKey={(r) => r.id} onEndReached={more} />);
    expect(more).toHaveBeenCalled();
  });
});
