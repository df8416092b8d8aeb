// Placeholder: the Observations view (issue 19) is built here by its own engineer; the shell, the
// project context and the API client are ready for it.

import { useProject } from "../../app/project";
import { EmptyState } from "../../components/States";

export default function ObservationsPage() {
  const { project, organization } = useProject();
  return (
    <div className="page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">{organization.name}</p>
          <h1>{project.name}</h1>
        </div>
      </header>
      <EmptyState title="Observations">
        <p>Every observation of this project will be listed here.</p>
      </EmptyState>
    </div>
  );
}
