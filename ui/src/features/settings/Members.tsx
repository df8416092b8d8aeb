// People: an organization's members (invite by email, change the role, remove) and a project's
// (invite to the project, set or clear the project role that overrides the organization's). An
// address without an account is invited all the same: its person claims it by signing up.

import { useState } from "react";

import { describeError } from "../../api/client";
import type { Role } from "../../api/types";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { settings, type Invited, type OrgMember, type ProjectMember } from "./api";
import { RemovalDialog, useRemoval } from "./Dialog";
import { checkEmail, EMAIL_MAX, ROLES } from "./forms";
import { ListTable } from "./ListTable";
import { useAction } from "./useAction";

function RoleSelect({ label, value, onChange, disabled, allowInherit }: {
  label: string;
  value: Role | "";
  onChange(role: Role | ""): void;
  disabled?: boolean;
  /** Offers "" : no project role, the organization's counts. */
  allowInherit?: string;
}) {
  return (
    <select className="field__input settings-select" aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as Role | "")}>
      {allowInherit !== undefined && <option value="">{allowInherit}</option>}
      {ROLES.map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

/** Invites someone as MEMBER unless another role is picked; `onInvited` refreshes the list. */
function InviteForm({ invite, onInvited }: { invite(email: string, role: Role): Promise<Invited>; onInvited(): void }) {
  const defaultRole: Role = "MEMBER";
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>(defaultRole);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<Invited | null>(null);
  const action = useAction();
  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const bad = checkEmail(email);
    setProblem(bad);
    if (bad) return;
    const invited = await action.run(() => invite(email.trim(), role));
    if (invited) {
      setEmail("");
      setDone(invited);
      onInvited();
    }
  };
  return (
    <form className="settings-inline-form" onSubmit={(e) => void submit(e)} noValidate>
      <TextField label="Invite by email" type="email" value={email} maxLength={EMAIL_MAX} error={problem} onChange={(e) => setEmail(e.target.value)} />
      <div className="field">
        <span className="field__label">Role</span>
        <RoleSelect label="Role of the invited person" value={role} onChange={(r) => setRole((r || defaultRole) as Role)} />
      </div>
      <Button type="submit" variant="primary" busy={action.busy}>
        Invite
      </Button>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
      {done && (
        <p className="muted" role="status">
          {done.email} is in as {done.role}
          {done.newAccount ? "; they get access when they sign up with this address." : "."}
        </p>
      )}
    </form>
  );
}

function who(member: { name: string; email: string; pending?: boolean }) {
  return (
    <>
      {member.name || <span className="muted">–</span>}
      {member.pending && <span className="badge">invited</span>}
    </>
  );
}

export function ProjectMembers({ projectId, canRead, canManage }: { projectId: string; canRead: boolean; canManage: boolean }) {
  const loaded = useLoad((signal) => (canRead ? settings.projectPeople(projectId, signal) : Promise.resolve([])), [projectId, canRead]);
  const change = useAction();
  if (!canRead) return <p className="muted">Viewers do not see the project's members.</p>;
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading members…" />;
  const members = loaded.data;

  const setRole = async (member: ProjectMember, role: Role | "") => {
    const ok = await change.run(() =>
      role ? settings.setProjectRole(projectId, member.userId, role) : settings.clearProjectRole(projectId, member.userId),
    );
    if (ok !== undefined) loaded.reload();
  };

  return (
    <div className="settings-block">
      <ListTable label="Project members" columns={["Name", "Email", "Organization role", "Project role", "Role here"]}>
        {members.map((member) => (
          <tr key={member.userId}>
            <td>{who(member)}</td>
            <td>{member.email}</td>
            <td>{member.organizationRole}</td>
            <td>
              {canManage ? (
                <RoleSelect
                  label={`Project role of ${member.email}`}
                  value={member.projectRole ?? ""}
                  allowInherit="As in the organization"
                  disabled={change.busy}
                  onChange={(role) => void setRole(member, role)}
                />
              ) : (
                member.projectRole ?? <span className="muted">as in the organization</span>
              )}
            </td>
            <td>
              <strong>{member.effectiveRole}</strong>
            </td>
          </tr>
        ))}
      </ListTable>
      {change.error !== undefined && <InlineError>{describeError(change.error)}</InlineError>}
      {canManage && <InviteForm invite={(email, role) => settings.inviteToProject(projectId, email, role)} onInvited={loaded.reload} />}
    </div>
  );
}

export function OrganizationMembers({ orgId, canRead, canManage, selfId }: { orgId: string; canRead: boolean; canManage: boolean; selfId: string }) {
  const loaded = useLoad((signal) => (canRead ? settings.orgMembers(orgId, signal) : Promise.resolve([])), [orgId, canRead]);
  const change = useAction();
  const removal = useRemoval(
    (member: OrgMember) => settings.removeOrgMember(orgId, member.userId),
    (member) => loaded.set((loaded.data ?? []).filter((m) => m.userId !== member.userId)),
  );
  if (!canRead) return <p className="muted">Viewers do not see the organization's members.</p>;
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading members…" />;
  const members = loaded.data;

  const setRole = async (member: OrgMember, role: Role) => {
    const answer = await change.run(() => settings.setOrgRole(orgId, member.userId, role));
    if (answer) loaded.set(members.map((m) => (m.userId === member.userId ? { ...m, role: answer.role } : m)));
  };

  return (
    <div className="settings-block">
      <ListTable label="Organization members" columns={["Name", "Email", "Role"]} actions={canManage}>
        {members.map((member) => (
          <tr key={member.userId}>
            <td>
              {who(member)}
              {member.userId === selfId && <span className="muted"> (you)</span>}
            </td>
            <td>{member.email}</td>
            <td>
              {canManage ? (
                <RoleSelect
                  label={`Role of ${member.email}`}
                  value={member.role}
                  disabled={change.busy}
                  onChange={(role) => role && void setRole(member, role)}
                />
              ) : (
                member.role
              )}
            </td>
            {canManage && (
              <td className="settings-actions">
                <Button size="sm" variant="ghost" onClick={() => removal.ask(member)} aria-label={`Remove ${member.email}`}>
                  Remove
                </Button>
              </td>
            )}
          </tr>
        ))}
      </ListTable>
      {change.error !== undefined && <InlineError>{describeError(change.error)}</InlineError>}
      {canManage && <InviteForm invite={(email, role) => settings.inviteToOrganization(orgId, email, role)} onInvited={loaded.reload} />}
      <RemovalDialog removal={removal} title="Remove member?" confirmLabel="Remove">
        {(member) => <p>{member.email} loses access to the organization and its projects.</p>}
      </RemovalDialog>
    </div>
  );
}
