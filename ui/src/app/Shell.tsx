// The frame of every signed-in page: a skip link, the header (product, project switcher, the
// project's pages, theme, account), and the page itself.

import { Suspense, useEffect } from "react";
import { Link, NavLink, Outlet, useMatch } from "react-router";

import { Loading } from "../components/States";
import { PreviewToggle } from "../features/legacy/PreviewToggle";
import { ProjectSwitcher } from "./ProjectSwitcher";
import { homePage, preloadProjectPages, projectPages, projectPath } from "./routes";
import { ThemeToggle } from "./ThemeToggle";
import { UserMenu } from "./UserMenu";
import { useMe } from "./session";

export function Shell() {
  const me = useMe();
  const match = useMatch("/project/:projectId/*");
  const projectId = match?.params.projectId;
  useEffect(preloadProjectPages, []);

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="shell__header">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Loupe
        </Link>
        <ProjectSwitcher />
        {projectId && (
          <nav className="shell__nav" aria-label="Project">
            <NavLink to={`/project/${encodeURIComponent(projectId)}`} end className="nav-link">
              {homePage.label}
            </NavLink>
            {projectPages
              .filter((page) => page.label)
              .map((page) => (
                <NavLink key={page.path} to={projectPath(projectId, page.path)} className="nav-link">
                  {page.label}
                </NavLink>
              ))}
          </nav>
        )}
        <div className="shell__spacer" />
        {me.instanceAdmin && (
          <NavLink to="/background-migrations" className="nav-link">
            Background migrations
          </NavLink>
        )}
        <PreviewToggle />
        <ThemeToggle />
        <UserMenu />
      </header>
      <main id="main" className="shell__main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
