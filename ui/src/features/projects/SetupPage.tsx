// For a person without a project (new sign-ups) and from the account menu: create an organization
// (or pick one they administer) and a project in it, then open the project.

import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";

import { describeError } from "../../api/client";
import { ui } from "../../api/ui";
import { projectPath } from "../../app/routes";
import { useMe, useSession } from "../../app/session";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";

const NEW = "";

export default function SetupPage() {
  const me = useMe();
  const { refresh } = useSession();
  const navigate = useNavigate();
  const administered = me.organizations.filter((o) => o.role === "OWNER" || o.role === "ADMIN");
  const hasProject = me.organizations.some((o) => o.projects.length > 0);
  const [organizationId, setOrganizationId] = useState<string>(administered[0]?.id ?? NEW);
  const [organizationName, setOrganizationName] = useState("");
  const [projectName, setProjectName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const creatingOrganization = organizationId === NEW;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if ((creatingOrganization && !organizationName.trim()) || !projectName.trim()) {
      setError(creatingOrganization ? "Name the organization and the project." : "Name the project.");
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // One at a time: if the project fails, the organization exists and is picked on the retry.
      let orgId = organizationId;
      if (creatingOrganization) {
        orgId = (await ui.createOrganization({ name: organizationName.trim() })).id;
        setOrganizationId(orgId);
      }
      const project = await ui.createProject(orgId, { name: projectName.trim(), retention: 0 });
      await refresh();
      navigate(projectPath(project.id), { replace: true });
    } catch (caught) {
      await refresh();
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <div className="page page--narrow">
      <section className="card" aria-labelledby="setup-title">
        <h1 id="setup-title">{hasProject ? "New project" : "Create your first project"}</h1>
        <p className="card__lead">
          {hasProject
            ? "A project holds its own traces, prompts, datasets and API keys."
            : "You are not in any project yet. Create an organization and a project to send traces to, or ask a colleague to add you to theirs."}
        </p>
        <form className="form" onSubmit={submit} noValidate>
          {administered.length > 0 && (
            <div className="field">
              <label className="field__label" htmlFor="setup-org">
                Organization
              </label>
              <select id="setup-org" className="field__input" value={organizationId} onChange={(e) => setOrganizationId(e.target.value)}>
                {administered.map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
                <option value={NEW}>New organization…</option>
              </select>
            </div>
          )}
          {creatingOrganization && (
            <TextField label="Organization name" name="organization" autoComplete="organization" value={organizationName} onChange={(e) => setOrganizationName(e.target.value)} />
          )}
          <TextField label="Project name" name="project" value={projectName} onChange={(e) => setProjectName(e.target.value)} />
          {error && <InlineError>{error}</InlineError>}
          <Button type="submit" variant="primary" busy={busy}>
            Create project
          </Button>
        </form>
      </section>
    </div>
  );
}
