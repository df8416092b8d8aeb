import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { BackgroundMigration } from "../../api/admin";
import { SessionProvider, useSession } from "../../app/session";
import { fakeServer, json, type Handler } from "../../test/server";
import BackgroundMigrationsPage from "./BackgroundMigrationsPage";

const ME = {
  user: { id: "u1", email: "ada@example.com", name: "Ada" },
  csrfToken: "csrf",
  organizations: [],
};

function step(overrides: Partial<BackgroundMigration>): BackgroundMigration {
  return {
    name: "m1_traces",
    position: 1,
    description: "Copies the traces",
    status: "succeeded",
    unit: "traces",
    rowsDone: 100,
    rowsEstimated: 100,
    percent: 100,
    rowsPerSecond: 50,
    etaSeconds: null,
    startedAt: "2026-11-26T10:00:00Z",
    finishedAt: "2026-11-26T10:00:02Z",
    lastError: null,
    worker: "host-1",
    updatedAt: "2026-11-26T10:00:02Z",
    ...overrides,
  };
}

function renderPage(instanceAdmin: boolean, routes: Record<string, Handler>) {
  const server = fakeServer({ "GET /api/ui/me": () => json(200, { ...ME, instanceAdmin }), ...routes });
  render(
    <SessionProvider>
      <MemoryRouter>
        <BackgroundMigrationsPageWhenSignedIn />
      </MemoryRouter>
    </SessionProvider>,
  );
  return server;
}

// The page needs a signed-in person, as under the app's RequireSession.
function BackgroundMigrationsPageWhenSignedIn() {
  const { state } = useSession();
  return state.status === "signed-in" ? <BackgroundMigrationsPage /> : <p>Waiting</p>;
}

afterEach(() => vi.unstubAllGlobals());

describe("BackgroundMigrationsPage", () => {
  it("shows each step's progress, rate, time left and error, and retries a failed one", async () => {
    const running = step({
      name: "m3_observations",
      position: 3,
      status: "running",
      unit: "observations",
      rowsDone: 12_400,
      rowsEstimated: 50_000,
      percent: 24.8,
      rowsPerSecond: 2_000,
      etaSeconds: 95,
      finishedAt: null,
    });
    const failed = step({ name: "m2_flags", position: 2, status: "failed", lastError: "ClickHouse said no", percent: 40 });
    const retried = { ...failed, status: "pending" as const };
    const server = renderPage(true, {
      "GET /api/ui/background-migrations": () => json(200, { data: [running, failed, step({})] }),
      "POST /api/ui/background-migrations/m2_flags/retry": () => json(200, { data: [running, retried, step({})] }),
    });

    const bar = await screen.findByRole("progressbar", { name: "Progress of m3_observations" });
    expect(bar).toHaveAttribute("aria-valuenow", "24.8");
    expect(screen.getByText("12,400 of 50,000 observations")).toBeInTheDocument();
    expect(screen.getByText("2K observations/s")).toBeInTheDocument();
    expect(screen.getByText("about 2 min left")).toBeInTheDocument();
    expect(screen.getByText("1 of 3 steps done")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("ClickHouse said no");

    await userEvent.setup().click(screen.getByRole("button", { name: "Retry m2_flags" }));
    expect(await screen.findAllByText("Pending")).toHaveLength(1);
    expect(screen.queryByRole("button", { name: "Retry m2_flags" })).toBeNull();
    const retry = server.seen.find((s) => s.route.startsWith("POST"));
    expect(retry?.headers.get("X-CSRF-Token")).toBe("csrf");
  });

  it("tells a person who is not an instance admin that it is not for them, and asks nothing", async () => {
    const server = renderPage(false, {});
    expect(await screen.findByRole("heading", { name: "Not allowed" })).toBeInTheDocument();
    expect(server.seen.map((s) => s.route)).not.toContain("GET /api/ui/background-migrations");
  });
});
