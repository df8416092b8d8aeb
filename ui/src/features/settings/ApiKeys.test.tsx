import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";

import { fakeServer, json } from "../../test/server";
import { ApiKeys } from "./ApiKeys";

const KEY = {
  id: "k1",
  createdAt: "2026-11-26T10:00:00Z",
  expiresAt: null,
  lastUsedAt: null,
  note: "ci",
  name: "ci",
  publicKey: "pk-lf-1",
  displaySecretKey: "sk-lf-...cret",
};
const PATH = "/api/ui/projects/p1/api-keys";

afterEach(() => vi.unstubAllGlobals());

describe("ApiKeys", () => {
  it("shows a new key's secret once, with the .env lines, and deletes a key after asking", async () => {
    let keys: unknown[] = [];
    const server = fakeServer({
      [`GET ${PATH}`]: () => json(200, { apiKeys: keys }),
      [`POST ${PATH}`]: () => {
        keys = [KEY];
        return json(201, { ...KEY, secretKey: "sk-lf-secret" });
      },
      [`DELETE ${PATH}/k1`]: () => json(200, { success: true }),
    });
    render(<ApiKeys owner={{ kind: "project", id: "p1" }} canManage />);
    expect(await screen.findByText("No API keys yet.")).toBeInTheDocument();

    await userEvent.type(screen.getByLabelText("Note (optional)"), "ci");
    await userEvent.click(screen.getByRole("button", { name: "Create API key" }));
    const dialog = await screen.findByRole("dialog", { name: "API key created" });
    expect(within(dialog).getByLabelText("Secret key", { selector: "code" })).toHaveTextContent("sk-lf-secret");
    expect(within(dialog).getByLabelText("Environment variables", { selector: "pre" }).textContent).toBe(
      `LANGFUSE_PUBLIC_KEY=pk-lf-1\nLANGFUSE_SECRET_KEY=sk-lf-secret\nLANGFUSE_BASE_URL=${window.location.origin}`,
    );
    expect(server.seen.find((s) => s.route === `POST ${PATH}`)?.body).toEqual({ note: "ci" });

    await userEvent.click(within(dialog).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(await screen.findByText("pk-lf-1")).toBeInTheDocument();
    expect(document.body.textContent).not.toContain("sk-lf-secret");

    await userEvent.click(screen.getByRole("button", { name: "Delete key pk-lf-1" }));
    const confirm = screen.getByRole("dialog", { name: "Delete API key?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete key" }));
    expect(await screen.findByText("No API keys yet.")).toBeInTheDocument();
    expect(server.seen.map((s) => s.route)).toContain(`DELETE ${PATH}/k1`);
  });

  it("offers nothing, and asks nothing, below ADMIN", () => {
    const server = fakeServer({});
    render(<ApiKeys owner={{ kind: "project", id: "p1" }} canManage={false} />);
    expect(screen.getByText("Only owners and admins see and manage API keys.")).toBeInTheDocument();
    expect(screen.queryByRole("button")).not.toBeInTheDocument();
    expect(server.seen).toEqual([]);
  });
});
