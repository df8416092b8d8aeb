// Organization settings at /organization/{orgId}/settings: its projects (and a new one), members,
// organization API keys and, for owners, the audit log. Buttons follow the person's organization
// role (docs/identity.md); the server refuses the rest.

import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { describeError } from "../../api/client";
import { ui } from "../../api/ui";
import { projectPath } from "../../app/routes";
import { useMe, useSession } from "../../app/session";
import { Button } from "../../components/Button";
import { EmptyState, InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { ApiKeys } from "./ApiKeys";
import { AuditLog } from "./AuditLog";
import { canManage, canWrite, PROJECT_NAME_MAX } from "./forms";
import { OrganizationMembers } from "./Members";
import { Section, SettingsNav } from "./Section";
import { useAction } from "./useAction";
import "./settings.css";

function NewProject({ orgId }: { orgId: string }) {
  const [name, setName] = useState("");
  const { refresh } = useSession();
  const navigate = useNavigate();
  const action = useAction();
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return;
    const project = await action.run(() => ui.createProject(orgId, { name: name.trim(), retention: 0 }));
    if (project) {
      await refresh();
      navigate(projectPath(project.id, "settings"));
    }
  };
  return (
    <form className="settings-inline-form" onSubmit={(e) => void submit(e)}>
      <TextField label="New project name" value={name} maxLength={PROJECT_NAME_MAX} onChange={(e) => setName(e.target.value)} />
      <Button type="submit" variant="primary" busy={action.busy} disabled={!name.trim()}>
        Create project
      </Button>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
    </form>
  );
}

export default function OrganizationSettingsPage() {
  const { orgId = "" } = useParams();
  const me = useMe();
  const organization = me.organizations.find((o) => o.id === orgId);
  if (!organization) {
    return (
      <EmptyState title="Organization not found">
        <p>There is no organization {orgId ? <code>{orgId}</code> : null} that you belong to.</p>
      </EmptyState>
    );
  }
  const manage = canManage(organization.role);
  const owner = organization.role === "OWNER";
  const sections: [string, string][] = [
    ["projects", "Projects"],
    ["members", "Members"],
    ["api-keys", "API keys"],
    ...(owner ? ([["audit-log", "Audit log"]] as [string, string][]) : []),
  ];
  return (
    <div className="page settings-page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">Organization</p>
          <h1>{organization.name}</h1>
          <p className="muted">
            Organization settings · your role: {organization.role} · id <code>{organization.id}</code>
          </p>
        </div>
      </header>
      <div className="settings-layout">
        <SettingsNav sections={sections} />
        <div className="settings-sections">
          <Section id="projects" title="Projects">
            <ul className="settings-list" aria-label="Projects">
              {organization.projects.length === 0 && <li className="muted">No project you can open.</li>}
              {organization.projects.map((project) => (
                <li key={project.id}>
                  <Link to={projectPath(project.id)}>{project.name}</Link> <span className="muted">{project.role}</span>
                  {canManage(project.role) && (
                    <>
                      {" · "}
                      <Link to={projectPath(project.id, "settings")} aria-label={`Settings of ${project.name}`}>
                        settings
                      </Link>
                    </>
                  )}
                </li>
              ))}
            </ul>
            {manage && <NewProject orgId={organization.id} />}
          </Section>
          <Section id="members" title="Members">
            <OrganizationMembers orgId={organization.id} canRead={canWrite(organization.role)} canManage={manage} selfId={me.user.id} />
          </Section>
          <Section id="api-keys" title="API keys">
            <ApiKeys owner={{ kind: "organization", id: organization.id }} canManage={manage} />
          </Section>
          {owner && (
            <Section id="audit-log" title="Audit log">
              <AuditLog orgId={organization.id} />
            </Section>
          )}
        </div>
      </div>
    </div>
  );
}
