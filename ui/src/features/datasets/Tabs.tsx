// The tabs between the datasets list and the experiments list, and the pager every list here uses.

import { Link } from "react-router";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";
import { Button } from "../../components/Button";
import { formatCount } from "../sessions/format";

export function Tabs({ current }: { current: "datasets" | "experiments" }) {
  const { project } = useProject();
  const tab = (id: "datasets" | "experiments", label: string) => (
    <Link to={projectPath(project.id, id)} className="ds-tabs__tab" aria-current={current === id ? "page" : undefined}>
      {label}
    </Link>
  );
  return (
    <nav className="ds-tabs" aria-label="Datasets and experiments">
      {tab("datasets", "Datasets")}
      {tab("experiments", "Experiments")}
    </nav>
  );
}

export function Pager({ page, totalPages, onPage }: { page: number; totalPages: number; onPage(page: number): void }) {
  if (totalPages <= 1) return null;
  return (
    <nav className="ds-pager" aria-label="Pages">
      <Button size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span>
        Page {formatCount(page)} of {formatCount(totalPages)}
      </span>
      <Button size="sm" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}
