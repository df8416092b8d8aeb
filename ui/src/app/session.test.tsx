import { render, waitFor } from "@testing-library/react";
import { useEffect } from "react";
import { afterEach, expect, it, vi } from "vitest";

import { fakeServer, json } from "../test/server";
import { SessionProvider, useSession } from "./session";

const ME = {
  user: { id: "u1", email: "ada@example.com", name: "Ada" },
  csrfToken: "csrf",
  organizations: [
    {
      id: "o1",
      name: "Acme",
      role: "OWNER",
      projects: [
        { id: "p1", name: "Prod", role: "OWNER" },
        { id: "p2", name: "Staging", role: "OWNER" },
      ],
    },
  ],
};

afterEach(() => vi.unstubAllGlobals());

/** Looks at each project in turn, at once, as quick switches do. */
function LooksAt({ projects }: { projects: string[] }) {
  const session = useSession();
  const signedIn = session.state.status === "signed-in";
  useEffect(() => {
    if (signedIn) for (const id of projects) session.rememberProject(id);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [signedIn]);
  return null;
}

it("saves the projects looked at one after the other, so the server keeps the last", async () => {
  let answerFirst: () => void = () => undefined;
  let firstAnswered = false;
  let secondSentAfterFirstAnswered: boolean | null = null;
  let puts = 0;
  const server = fakeServer({
    "GET /api/ui/me": () => json(200, ME),
    "PUT /api/ui/me/preferences": () => {
      puts += 1;
      if (puts === 1) {
        // The fake server awaits what a handler returns: the first save is answered only when told.
        const answer = new Promise<Response>((resolve) => {
          answerFirst = () => {
            firstAnswered = true;
            resolve(json(200, {}));
          };
        });
        return answer as unknown as Response;
      }
      secondSentAfterFirstAnswered = firstAnswered;
      return json(200, {});
    },
  });
  render(
    <SessionProvider>
      <LooksAt projects={["p2", "p1"]} />
    </SessionProvider>,
  );
  const saved = () => server.seen.filter((r) => r.route === "PUT /api/ui/me/preferences").map((r) => r.body);
  await waitFor(() => expect(saved()).toEqual([{ lastProjectId: "p2" }]));
  answerFirst();
  await waitFor(() => expect(saved()).toEqual([{ lastProjectId: "p2" }, { lastProjectId: "p1" }]));
  expect(secondSentAfterFirstAnswered).toBe(true);
});
