// Who is signed in: loaded once from `GET /api/ui/me`, replaced on sign-in, sign-up and sign-out,
// and dropped when any call answers 401 (the session expired or was revoked elsewhere), which
// sends the person to sign in and back.

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";

import { api, isApiError } from "../api/client";
import type { Me, ProjectAccess, OrganizationAccess, SignInRequest, SignUpRequest } from "../api/types";
import { ui } from "../api/ui";

export type SessionState =
  | { status: "loading" }
  /** `ended`: the person signed out here (rather than never having signed in, or expiring). */
  | { status: "signed-out"; ended?: boolean }
  | { status: "signed-in"; me: Me }
  | { status: "error"; error: unknown };

interface Session {
  state: SessionState;
  signIn(request: SignInRequest): Promise<Me>;
  signUp(request: SignUpRequest): Promise<Me>;
  signOut(): Promise<void>;
  /** Loads `me` again (after creating an organization or project). */
  refresh(): Promise<Me | null>;
  /** Remembers the project the person is looking at, for the next sign-in. */
  rememberProject(projectId: string): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const remembered = useRef<string | null>(null);
  // The preference saves, each sent once the one before has been answered: sent at once, two quick
  // switches could reach the server in either order and leave the project before the last.
  const saving = useRef<Promise<unknown>>(Promise.resolve());

  const load = useCallback(async (): Promise<Me | null> => {
    try {
      const me = await ui.me();
      remembered.current = me.preferences?.lastProjectId ?? null;
      setState({ status: "signed-in", me });
      return me;
    } catch (error) {
      if (isApiError(error, "unauthorized")) {
        setState({ status: "signed-out" });
        return null;
      }
      setState({ status: "error", error });
      return null;
    }
  }, []);

  useEffect(() => {
    api.setUnauthorizedHandler(() => {
      api.setCsrfToken(null);
      setState((current) => (current.status === "signed-in" ? { status: "signed-out" } : current));
    });
    void load();
    return () => api.setUnauthorizedHandler(undefined);
  }, [load]);

  const afterAuth = useCallback(async (): Promise<Me> => {
    const me = await load();
    if (!me) throw new Error("Signed in, but the session was not found; are cookies allowed for this site?");
    return me;
  }, [load]);

  const value = useMemo<Session>(
    () => ({
      state,
      signIn: async (request) => {
        await ui.signIn(request);
        return afterAuth();
      },
      signUp: async (request) => {
        await ui.signUp(request);
        return afterAuth();
      },
      signOut: async () => {
        try {
          await ui.signOut();
        } finally {
          setState({ status: "signed-out", ended: true });
        }
      },
      refresh: load,
      rememberProject: (projectId) => {
        if (remembered.current === projectId) return;
        remembered.current = projectId;
        // Best effort: a server without preferences yet still works, with the first project.
        saving.current = saving.current
          .then(() => ui.savePreferences({ lastProjectId: projectId }))
          .catch(() => undefined);
      },
    }),
    [state, afterAuth, load],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}

/** The signed-in person; only for components under `RequireSession`. */
export function useMe(): Me {
  const { state } = useSession();
  if (state.status !== "signed-in") throw new Error("useMe outside a signed-in page");
  return state.me;
}

export interface ProjectInOrganization {
  project: ProjectAccess;
  organization: OrganizationAccess;
}

export function findProject(me: Me, projectId: string): ProjectInOrganization | null {
  for (const organization of me.organizations) {
    const project = organization.projects.find((p) => p.id === projectId);
    if (project) return { project, organization };
  }
  return null;
}

/** Where a person lands after sign-in: the project they used last, else their first one. */
export function homeProject(me: Me): ProjectAccess | null {
  const last = me.preferences?.lastProjectId;
  const found = last ? findProject(me, last) : null;
  return found?.project ?? me.organizations.flatMap((o) => o.projects)[0] ?? null;
}
