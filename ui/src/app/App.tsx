// Providers and routes. Pages are in src/features/<feature>/; project pages are listed in routes.tsx.

import { Suspense } from "react";
import { BrowserRouter, Route, Routes } from "react-router";

import { EmptyState, Loading } from "../components/States";
import { SignInPage } from "../features/auth/SignInPage";
import { SignUpPage } from "../features/auth/SignUpPage";
import { Home, RequireSession, SignedOutOnly } from "./guards";
import { ProjectLayout } from "./project";
import { AdminUsersPage, BackgroundMigrationsPage, OrganizationSettingsPage, homePage, projectPages, PublicPage, SetupPage } from "./routes";
import { SessionProvider } from "./session";
import { Shell } from "./Shell";
import { ThemeProvider } from "./theme";

function NotFound() {
  return (
    <EmptyState title="Page not found">
      <p>There is no page at this address.</p>
    </EmptyState>
  );
}

export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<Home signedOut={<SignInPage />} />} />
      <Route path="/sign-in" element={<SignedOutOnly><SignInPage /></SignedOutOnly>} />
      <Route path="/sign-up" element={<SignedOutOnly><SignUpPage /></SignedOutOnly>} />
      {/* For anyone holding the link, signed in or not. */}
      <Route path="/public/:token" element={<PublicPage />} />
      <Route element={<RequireSession><Shell /></RequireSession>}>
        <Route path="/setup" element={<SetupPage />} />
        <Route path="/background-migrations" element={<BackgroundMigrationsPage />} />
        <Route path="/admin/users" element={<AdminUsersPage />} />
        <Route path="/organization/:orgId/settings" element={<OrganizationSettingsPage />} />
        <Route path="/project/:projectId" element={<ProjectLayout />}>
          <Route index element={<homePage.component />} />
          {projectPages.map(({ path, component: Page }) => (
            <Route key={path} path={`${path}/*`} element={<Page />} />
          ))}
          <Route path="*" element={<NotFound />} />
        </Route>
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}

export function App() {
  return (
    <ThemeProvider>
      <SessionProvider>
        <BrowserRouter>
          <Suspense fallback={<Loading />}>
            <AppRoutes />
          </Suspense>
        </BrowserRouter>
      </SessionProvider>
    </ThemeProvider>
  );
}
