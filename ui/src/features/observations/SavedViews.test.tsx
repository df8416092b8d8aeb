import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";

import type { SavedView } from "./api";
import { SavedViews } from "./SavedViews";

const VIEW: SavedView = {
  id: "v1",
  name: "Slow checkouts",
  state: {},
  createdBy: "u1",
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
};

function renderViews(canWrite: boolean, onSave = vi.fn(async () => undefined)) {
  render(
    <MemoryRouter>
      <SavedViews
        views={[VIEW]}
        loadError={null}
        activeId="v1"
        linkTo={(id) => `/project/p1/observations?view=${id}`}
        canWrite={canWrite}
        onSave={onSave}
        onRename={vi.fn(async () => undefined)}
        onDelete={vi.fn(async () => undefined)}
      />
    </MemoryRouter>,
  );
  return onSave;
}

describe("saved views", () => {
  it("lists presets and saved views as permalinks, and names the one applied", () => {
    renderViews(true);
    expect(screen.getByText("Views: Slow checkouts")).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Slow checkouts" })).toHaveAttribute("href", "/project/p1/observations?view=v1");
    expect(screen.getByRole("link", { name: "Errors only" })).toHaveAttribute("href", "/project/p1/observations?view=preset:errors");
  });

  it("saves the current view under a trimmed name", async () => {
    const onSave = renderViews(true);
    await userEvent.click(screen.getByText("Views: Slow checkouts"));
    await userEvent.type(screen.getByLabelText("View name"), "  Errors today  ");
    await userEvent.click(screen.getByRole("button", { name: "Save view" }));
    expect(onSave).toHaveBeenCalledWith("Errors today");
  });

  it("offers a VIEWER no save, rename or delete", () => {
    renderViews(false);
    expect(screen.queryByRole("button", { name: "Save view" })).toBeNull();
    expect(screen.queryByLabelText("View name")).toBeNull();
    expect(screen.queryByRole("button", { name: /Rename|Delete/ })).toBeNull();
    expect(screen.getByRole("link", { name: "Slow checkouts" })).toBeInTheDocument();
  });
});
