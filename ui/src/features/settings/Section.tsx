// A settings page's sections: each a titled region with an anchor, and a side list of links to them.

import type { ReactNode } from "react";

export function Section({ id, title, danger, children }: { id: string; title: string; danger?: boolean; children: ReactNode }) {
  return (
    <section id={id} className={danger ? "settings-section settings-section--danger" : "settings-section"} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="settings-section__title">
        {title}
      </h2>
      {children}
    </section>
  );
}

export function SettingsNav({ sections }: { sections: readonly (readonly [string, string])[] }) {
  return (
    <nav className="settings-nav" aria-label="Sections">
      {sections.map(([id, label]) => (
        <a key={id} href={`#${id}`} className="nav-link">
          {label}
        </a>
      ))}
    </nav>
  );
}
