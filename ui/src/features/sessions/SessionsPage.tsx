// Placeholder: the Sessions list and session page (issue 19) are built here by their own engineer.

import { useProject } from "../../app/project";
import { EmptyState } from "../../components/States";

export default function SessionsPage() {
  const { project } = useProject();
  return (
    <div className="page">
      <header className="page__header">
        <h1>Sessions</h1>
      </header>
      <EmptyState title={`Sessions of ${project.name}`}>
        <p>The sessions of this project will be listed here.</p>
      </EmptyState>
    </div>
  );
}
