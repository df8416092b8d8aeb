import { render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ProjectLayout } from "../../app/project";
import { SessionProvider, useSession } from "../../app/session";
import { fakeServer, json } from "../../test/server";
import type { FilterCondition } from "./api";
import { EMPTY_RULE, type RuleForm } from "./forms";
import { RuleEditor } from "./RuleEditor";
import { ruleFilterRows } from "./ruleFilter";

const me = {
  user: { id: "u1", email: "ada@example.com", name: "Ada" },
  csrfToken: "csrf",
  instanceAdmin: false,
  organizations: [{ id: "o1", name: "Org", role: "MEMBER", projects: [{ id: "p1", name: "Project", role: "MEMBER" }] }],
};

function renderEditor(initial: RuleForm) {
  fakeServer({
    "GET /api/ui/me": () => json(200, me),
    "GET /api/public/v2/evaluators": () => json(200, { data: [], meta: { cursor: null } }),
  });
  const send = vi.fn(async (_body: Record<string, unknown>) => undefined);
  function Signed() {
    const { state } = useSession();
    return state.status === "signed-in" ? (
      <Routes>
        <Route path="/project/:projectId" element={<ProjectLayout />}>
          <Route path="rule" element={<RuleEditor initial={initial} submitLabel="Save rule" send={send} onCancel={() => undefined} />} />
        </Route>
      </Routes>
    ) : (
      <p>Waiting</p>
    );
  }
  render(
    <SessionProvider>
      <MemoryRouter initialEntries={["/project/p1/rule"]}>
        <Signed />
      </MemoryRouter>
    </SessionProvider>,
  );
  return send;
}

afterEach(() => vi.unstubAllGlobals());

describe("the rule editor's filter", () => {
  it("shows a stored filter in the builder's rows and saves what it shows", async () => {
    const stored: FilterCondition[] = [
      { type: "stringObject", column: "metadata", operator: "is set", key: "tier", value: "" },
      { type: "null", column: "parentObservationId", operator: "is null", value: "" },
    ];
    const send = renderEditor({ ...EMPTY_RULE, name: "judge", evaluatorId: "ev1", ...ruleFilterRows(stored) });
    const filter = await screen.findByRole("group", { name: "Filter (all conditions must match)" });
    // Neither row has a value to type: the key being there, the parent being empty.
    expect(within(filter).getByLabelText("Filter 1 metadata key")).toHaveValue("tier");
    expect(within(filter).queryByLabelText("Filter 1 value")).toBeNull();
    expect(within(filter).getByLabelText("Filter 2 operator")).toHaveValue("is null");
    expect(within(filter).queryByLabelText("Filter 2 value")).toBeNull();
    await userEvent.click(within(filter).getByRole("button", { name: "+ Add filter" }));
    await userEvent.selectOptions(within(filter).getByLabelText("Filter 3 column"), "name");
    await userEvent.click(screen.getByRole("button", { name: "Save rule" }));
    expect(screen.getByText("Filter 3 is not complete: give it a value")).toBeInTheDocument();
    await userEvent.type(within(filter).getByLabelText("Filter 3 value"), "chat, embed");
    await userEvent.click(screen.getByRole("button", { name: "Save rule" }));
    await waitFor(() => expect(send).toHaveBeenCalled());
    expect(send.mock.calls[0]![0].filter).toEqual([...stored, { type: "stringOptions", column: "name", operator: "any of", value: ["chat", "embed"] }]);
  });
});
