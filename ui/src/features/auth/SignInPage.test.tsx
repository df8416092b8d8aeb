import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

import { SessionProvider } from "../../app/session";
import { ThemeProvider } from "../../app/theme";
import { fakeServer, json, type Handler } from "../../test/server";
import { SignInPage } from "./SignInPage";

const USER = { id: "u1", email: "ada@example.com", name: "Ada" };
const ME = {
  user: USER,
  csrfToken: "csrf",
  organizations: [{ id: "o1", name: "Acme", role: "OWNER", projects: [{ id: "p1", name: "Prod", role: "OWNER" }] }],
};

function renderAt(path: string, routes: Record<string, Handler>) {
  const server = fakeServer({ "GET /api/ui/me": () => json(401, { message: "Sign in first" }), ...routes });
  render(
    <ThemeProvider>
      <SessionProvider>
        <MemoryRouter initialEntries={[path]}>
          <Routes>
            <Route path="/sign-in" element={<SignInPage />} />
            <Route path="/sign-up" element={<p>The sign-up page</p>} />
            <Route path="/" element={<p>Home</p>} />
            <Route path="/project/:id/sessions" element={<p>The sessions page</p>} />
          </Routes>
        </MemoryRouter>
      </SessionProvider>
    </ThemeProvider>,
  );
  return server;
}

async function fillIn(email: string, password: string) {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText("Email"), email);
  await user.type(screen.getByLabelText("Password"), password);
  await user.click(screen.getByRole("button", { name: "Sign in" }));
}

afterEach(() => vi.unstubAllGlobals());

describe("SignInPage", () => {
  it("has labelled fields, and a sign-up link when sign-up is on", async () => {
    renderAt("/sign-in", { "GET /api/ui/auth/config": () => json(200, { signUpEnabled: true }) });
    expect(screen.getByLabelText("Email")).toHaveAttribute("type", "email");
    expect(screen.getByLabelText("Password")).toHaveAttribute("type", "password");
    expect(await screen.findByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/sign-up");
  });

  it("offers no sign-up when it is off", async () => {
    const server = renderAt("/sign-in", { "GET /api/ui/auth/config": () => json(200, { signUpEnabled: false }) });
    await vi.waitFor(() => expect(server.seen.map((s) => s.route)).toContain("GET /api/ui/auth/config"));
    expect(screen.queryByRole("link", { name: "Sign up" })).toBeNull();
  });

  it("shows a wrong password inline and keeps the email", async () => {
    renderAt("/sign-in", { "POST /api/ui/auth/sign-in": () => json(401, { message: "Invalid email or password" }) });
    await fillIn("ada@example.com", "wrong");
    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid email or password");
    expect(screen.getByLabelText("Email")).toHaveValue("ada@example.com");
    expect(screen.getByRole("button", { name: "Sign in" })).toBeEnabled();
  });

  it("says how long to wait when sign-in is rate limited", async () => {
    renderAt("/sign-in", {
      "POST /api/ui/auth/sign-in": () =>
        json(429, { message: "Too many failed sign-ins; try again later", error: "TooManyRequestsError" }, { "Retry-After": "30" }),
    });
    await fillIn("ada@example.com", "again");
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many failed sign-ins; try again later (try again in 30 s)");
  });

  it("asks for both fields before sending anything", async () => {
    const server = renderAt("/sign-in", {});
    await userEvent.setup().click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Enter your email and password.");
    expect(server.seen.map((s) => s.route)).not.toContain("POST /api/ui/auth/sign-in");
  });

  it("signs in as JSON and returns to the page the visit came from", async () => {
    let signedIn = false;
    const server = renderAt(`/sign-in?next=${encodeURIComponent("/project/p1/sessions")}`, {
      "POST /api/ui/auth/sign-in": () => {
        signedIn = true;
        return json(200, { user: USER, csrfToken: "csrf" });
      },
      "GET /api/ui/me": () => (signedIn ? json(200, ME) : json(401, { message: "Sign in first" })),
    });
    await fillIn(" ada@example.com ", "right password");
    expect(await screen.findByText("The sessions page")).toBeInTheDocument();
    const sent = server.seen.find((s) => s.route === "POST /api/ui/auth/sign-in");
    expect(sent?.body).toEqual({ email: "ada@example.com", password: "right password" });
    expect(sent?.headers.get("Content-Type")).toBe("application/json");
  });

  it("never follows a next that leaves the app", async () => {
    let signedIn = false;
    renderAt(`/sign-in?next=${encodeURIComponent("//evil.example/")}`, {
      "POST /api/ui/auth/sign-in": () => {
        signedIn = true;
        return json(200, { user: USER, csrfToken: "csrf" });
      },
      "GET /api/ui/me": () => (signedIn ? json(200, ME) : json(401, { message: "Sign in first" })),
    });
    await fillIn("ada@example.com", "right password");
    expect(await screen.findByText("Home")).toBeInTheDocument();
  });
});
