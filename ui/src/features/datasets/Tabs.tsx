// The tabs between the datasets list and the experiments list.

import { Link } from "react-router";

import { useProject } from "../../app/project";
import { projectPath } from "../../app/routes";

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
