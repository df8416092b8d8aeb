// Placeholder: the background migrations page (issue 19) is built here by its own engineer.

import { EmptyState } from "../../components/States";

export default function BackgroundMigrationsPage() {
  return (
    <div className="page">
      <header className="page__header">
        <h1>Background migrations</h1>
      </header>
      <EmptyState title="Background migrations">
        <p>The progress of every v3 → v4 migration step will be shown here.</p>
      </EmptyState>
    </div>
  );
}
