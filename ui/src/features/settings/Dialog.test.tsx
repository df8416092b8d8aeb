import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { RemovalDialog, useRemoval } from "./Dialog";

function Things({ remove, onRemoved }: { remove(thing: string): Promise<unknown>; onRemoved(thing: string): void }) {
  const removal = useRemoval(remove, onRemoved);
  return (
    <>
      <button type="button" onClick={() => removal.ask("alpha")}>
        Delete alpha
      </button>
      <RemovalDialog removal={removal} title="Delete thing?" confirmLabel="Delete it">
        {(thing) => <p>{thing} goes.</p>}
      </RemovalDialog>
    </>
  );
}

describe("useRemoval", () => {
  it("asks about the thing, keeps a failure in the dialog, and closes once removed (an empty 204 answer included)", async () => {
    let fail = true;
    const remove = vi.fn(async () => {
      if (fail) throw new Error("the server said no");
      return undefined;
    });
    const onRemoved = vi.fn();
    render(<Things remove={remove} onRemoved={onRemoved} />);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole("button", { name: "Delete alpha" }));
    const dialog = screen.getByRole("dialog", { name: "Delete thing?" });
    expect(dialog).toHaveTextContent("alpha goes.");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete it" }));
    expect(await within(dialog).findByText(/the server said no/)).toBeInTheDocument();
    expect(onRemoved).not.toHaveBeenCalled();

    fail = false;
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete it" }));
    await vi.waitFor(() => expect(onRemoved).toHaveBeenCalledWith("alpha"));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(remove).toHaveBeenCalledTimes(2);
  });

  it("forgets the failure when the dialog is cancelled", async () => {
    render(<Things remove={() => Promise.reject(new Error("refused"))} onRemoved={() => undefined} />);
    await userEvent.click(screen.getByRole("button", { name: "Delete alpha" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete it" }));
    expect(await screen.findByText(/refused/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await userEvent.click(screen.getByRole("button", { name: "Delete alpha" }));
    expect(screen.getByRole("dialog", { name: "Delete thing?" })).not.toHaveTextContent("refused");
  });
});
