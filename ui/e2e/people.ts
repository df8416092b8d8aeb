// People the admin specs sign up, each in a browser context of their own so the spec's page keeps
// its session.

import { request as http } from "@playwright/test";

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
