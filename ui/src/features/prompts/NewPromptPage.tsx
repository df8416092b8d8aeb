// A new prompt: its first version, in the folder the list was showing.

import { Link, useNavigate, useSearchParams } from "react-router";

import { useProject } from "../../app/project";
import { EmptyState } from "../../components/States";
import { createVersion } from "./api";
import { canWrite } from "./common";
import { emptyDraft } from "./editor";
import { normalizeFolder, promptPath } from "./folders";
import { PromptEditor } from "./PromptEditor";

export function NewPromptPage() {
  const { project, api } = useProject();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const folder = normalizeFolder(params.get("folder"));
  const back = folder ? `..?folder=${encodeURIComponent(folder)}` : "..";

  if (!canWrite(project.role)) {
    return (
      <EmptyState title="You can read this project's prompts only" actions={<Link to={back}>Back to the prompts</Link>}>
        <p>Creating prompts needs the MEMBER role or above.</p>
      </EmptyState>
    );
  }
  return (
    <div className="page page--narrow prompts">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">
            <Link to={back}>Prompts{folder ? ` / ${folder}` : ""}</Link>
          </p>
          <h1>New prompt</h1>
        </div>
      </header>
      <PromptEditor
        initial={{ ...emptyDraft(folder ? `${folder}/` : ""), labels: "production" }}
        nameEditable
        submitLabel="Create prompt"
        onCancel={() => navigate(back)}
        onSubmit={async (body) => {
          const created = await createVersion(api, body);
          navigate(`../${promptPath(created.name)}`);
        }}
      />
    </div>
  );
}
