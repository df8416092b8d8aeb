import { render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ProjectLayout } from "../../app/project";
import { SessionProvider, useSession } from "../../app/session";
import { fakeServer, json } from "../../test/server";
import DashboardsPage from "./DashboardsPage";

const me = (role: string) => ({
  user: { id: "u1", email: "ada@example.com", name: "Ada" },
  csrfToken: "csrf",
  instanceAdmin: false,
  organizations: [{ id: "o1", name: "Org", role, projects: [{ id: "p1", name: "Project", role }] }],
});

const DASHBOARD = {
  id: "d1",
  createdAt: "2026-11-26T10:00:00Z",
  updatedAt: "2026-11-26T10:00:00Z",
  name: "Costs",
  description: "",
  definition: { widgets: [{ type: "widget", id: "pl1", widgetId: "w1", x: 0, y: 0, width: 6, height: 4 }] },
  filters: [],
};
const WIDGET = {
  id: "w1",
  createdAt: "",
  updatedAt: "",
  name: "Tokens",
  description: "",
  view: "observations",
  dimensions: [],
  metrics: [{ measure: "totalTokens", agg: "sum" }],
  filters: [],
  chartType: "NUMBER",
  chartConfig: { type: "NUMBER" },
};

function Signed() {
  const { state } = useSession();
  return state.status === "signed-in" ? (
    <Routes>
      <Route path="/project/:projectId" element={<ProjectLayout />}>
        <Route path="dashboards/*" element={<DashboardsPage />} />
      </Route>
    </Routes>
  ) : (
    <p>Waiting</p>
  );
}

function renderAs(role: string) {
  const server = fakeServer({
    "GET /api/ui/me": () => json(200, me(role)),
    "GET /api/public/unstable/dashboards/d1": () => json(200, DASHBOARD),
    "GET /api/public/unstable/dashboard-widgets/w1": () => json(200, WIDGET),
    "GET /api/public/v2/metrics": () => json(200, { data: [{ sum_totalTokens: "1234" }] }),
  });
  render(
    <SessionProvider>
      <MemoryRouter initialEntries={["/project/p1/dashboards/d1"]}>
        <Signed />
      </MemoryRouter>
    </SessionProvider>,
  );
  return server;
}

afterEach(() => vi.unstubAllGlobals());

describe("a dashboard", () => {
  it("shows a VIEWER its widgets and nothing to change them with", async () => {
    const server = renderAs("VIEWER");
    expect(await screen.findByLabelText("Tokens value")).toHaveTextContent("1.23k");
    expect(screen.queryByRole("button", { name: "Add widget" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Remove/ })).toBeNull();
    expect(screen.queryByRole("button", { name: "Delete dashboard" })).toBeNull();
    // The widget's query is the one the server checked on save, over the page's range.
    const metrics = server.seen.find((s) => s.route === "GET /api/public/v2/metrics");
    expect(metrics?.headers.get("X-Loupe-Project")).toBe("p1");
  });

  it("gives a MEMBER the editing buttons", async () => {
    renderAs("MEMBER");
    expect(await screen.findByLabelText("Tokens value")).toHaveTextContent("1.23k");
    expect(screen.getByRole("button", { name: "Add widget" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Remove Tokens" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Edit" })).toBeInTheDocument();
  });
});
