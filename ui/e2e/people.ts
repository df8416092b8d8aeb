// People the specs sign up, each in a browser context of their own so the spec's page keeps
// its session.

import { request as http, type APIRequestContext, type Page } from "@playwright/test";

import { expect, freshEmail } from "./support";

export const PASSWORD = "a long enough password";

/** Signs a new person up; returns their address. */
export async function someoneNew(label: string, baseURL: string): Promise<string> {
  const email = freshEmail(label);
  const context = await http.newContext({ baseURL });
  const answer = await context.post("/api/ui/auth/sign-up", { data: { email, password: PASSWORD, name: "Grace" } });
  expect(answer.status()).toBe(201);
  await context.dispose();
  return email;
}

/** Signs someone new up and makes them a VIEWER of the bootstrap project's organization (as the
 * owner signed in on `owner`: a page, or a request context of its own); returns their address. */
export async function newViewer(owner: Page | APIRequestContext, label: string, baseURL: string, projectId: string): Promise<string> {
  const requests = "request" in owner ? owner.request : owner;
  const email = freshEmail(label);
  const context = await http.newContext({ baseURL });
  const created = await context.post("/api/ui/auth/sign-up", { data: { email, password: PASSWORD, name: "Vera" } });
  expect(created.status()).toBe(201);
  const viewerId: string = (await created.json()).user.id;
  await context.dispose();
  const me = await (await requests.get("/api/ui/me")).json();
  const organization = me.organizations.find((o: { projects: { id: string }[] }) => o.projects.some((p) => p.id === projectId));
  const membership = await requests.put(`/api/ui/organizations/${organization.id}/members`, {
    headers: { "X-CSRF-Token": me.csrfToken },
    data: { userId: viewerId, role: "VIEWER" },
  });
  expect(membership.status(), await membership.text()).toBe(200);
  return email;
}
