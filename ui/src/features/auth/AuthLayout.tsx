import type { ReactNode } from "react";

import { ThemeToggle } from "../../app/ThemeToggle";

/** The frame of the signed-out pages: the product name, one card, the theme toggle. */
export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="auth">
      <div className="auth__theme">
        <ThemeToggle />
      </div>
      <main className="auth__card" id="main">
        <p className="auth__brand" aria-hidden="true">
          <span className="brand-mark" /> Loupe
        </p>
        <h1 className="auth__title">{title}</h1>
        {children}
      </main>
    </div>
  );
}
