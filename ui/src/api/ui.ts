// The session-authenticated JSON API under /api/ui/ (docs/identity.md, "The UI's JSON API").

import { api, isApiError, type ApiClient } from "./client";
import type {
  AuthConfig,
  CreateProjectRequest,
  Me,
  Organization,
  OrganizationRequest,
  Preferences,
  Project,
  SessionBody,
  SignInRequest,
  SignUpRequest,
} from "./types";

export function uiApi(client: ApiClient = api) {
  return {
    /** Whether sign-up is on. A server without the route (older than the UI) allows it. */
    async authConfig(): Promise<AuthConfig> {
      try {
        return await client.get<AuthConfig>("/api/ui/auth/config");
      } catch (error) {
        if (isApiError(error, "not-found")) return { signUpEnabled: true };
        throw error;
      }
    },

    async signIn(request: SignInRequest): Promise<SessionBody> {
      const session = await client.post<SessionBody>("/api/ui/auth/sign-in", request);
      client.setCsrfToken(session.csrfToken);
      return session;
    },

    async signUp(request: SignUpRequest): Promise<SessionBody> {
      const session = await client.post<SessionBody>("/api/ui/auth/sign-up", request);
      client.setCsrfToken(session.csrfToken);
      return session;
    },

    async signOut(): Promise<void> {
      try {
        await client.post<unknown>("/api/ui/auth/sign-out");
      } finally {
        client.setCsrfToken(null);
      }
    },

    /** The signed-in person; an `ApiError` of kind `unauthorized` when nobody is. */
    async me(): Promise<Me> {
      const me = await client.get<Me>("/api/ui/me");
      client.setCsrfToken(me.csrfToken);
      return me;
    },

    /** Saves preferences; `false` when the server does not keep them yet (404). */
    async savePreferences(preferences: Preferences): Promise<boolean> {
      try {
        await client.put<unknown>("/api/ui/me/preferences", preferences);
        return true;
      } catch (error) {
        if (isApiError(error, "not-found")) return false;
        throw error;
      }
    },

    createOrganization(request: OrganizationRequest): Promise<Organization> {
      return client.post<Organization>("/api/ui/organizations", request);
    },

    createProject(organizationId: string, request: CreateProjectRequest): Promise<Project> {
      return client.post<Project>(`/api/ui/organizations/${encodeURIComponent(organizationId)}/projects`, request);
    },
  };
}

export const ui = uiApi();
