// Route guards: signed-out visits to app pages go to sign-in (and come back after); signed-in
// visits to the sign-in pages go to the app.

import type { ReactNode } from "react";
import { Navigate, useLocation } from "react-router";

import { ErrorState, Loading } from "../components/States";
import { safeNext, signInPath } from "../features/auth/next";
import { projectPath } from "./routes";
import { homeProject, useSession } from "./session";

function Waiting() {
  return (
    <div className="page-center">
      <Loading />
    </div>
  );
}

function Unreachable({ error }: { error: unknown }) {
  return (
    <div className="page-center">
      <ErrorState error={error} onRetry={() => location.reload()} />
    </div>
  );
}

export function RequireSession({ children }: { children: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === "loading") return <Waiting />;
  if (state.status === "error") return <Unreachable error={state.error} />;
  if (state.status === "signed-out") {
    // After "Sign out" the page left behind is not where the next person wants to go.
    if (state.ended) return <Navigate to="/sign-in" replace />;
    return <Navigate to={signInPath(location.pathname + location.search + location.hash)} replace />;
  }
  return children;
}

export function SignedOutOnly({ children }: { children: ReactNode }) {
  const { state } = useSession();
  const location = useLocation();
  if (state.status === "loading") return <Waiting />;
  if (state.status === "signed-in") {
    const next = safeNext(new URLSearchParams(location.search).get("next"));
    return <Navigate to={next ?? "/"} replace />;
  }
  return children;
}

/** `/`: the sign-in page for a visitor, the last-used project for a signed-in person. */
export function Home({ signedOut }: { signedOut: ReactNode }) {
  const { state } = useSession();
  if (state.status === "loading") return <Waiting />;
  if (state.status === "error") return <Unreachable error={state.error} />;
  if (state.status === "signed-out") return signedOut;
  const project = homeProject(state.me);
  return <Navigate to={project ? projectPath(project.id) : "/setup"} replace />;
}
