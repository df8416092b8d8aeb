// Instance admins at /admin/users (instance admins): every person of the instance, with a switch
// that marks or unmarks them as an instance admin. Nobody unmarks themselves (the server refuses
// it too), so the instance always keeps the admin who acted.

import { useState } from "react";

import { admin, PEOPLE_PAGE_SIZE, type Person } from "../../api/admin";
import { describeError, isApiError } from "../../api/client";
import { useMe } from "../../app/session";
import { InlineError } from "../../components/States";
import { LoadedView } from "../../components/LoadedView";
import { Pager } from "../../components/Pager";
import { NotAllowed } from "./NotAllowed";
import { formatCount, formatDateTime } from "../../components/format";
import "../sessions/sessions.css";
import { useLoad } from "../../components/useLoad";
import "./admin.css";

function AdminSwitch({ person, self, onChange }: { person: Person; self: boolean; onChange(next: boolean): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const locked = self && person.instanceAdmin;
  const toggle = () => {
    setBusy(true);
    setError(undefined);
    onChange(!person.instanceAdmin)
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return (
    <div className="admin-switch">
      <button
        type="button"
        role="switch"
        className="switch"
        aria-checked={person.instanceAdmin}
        aria-label={`Instance admin: ${person.email}`}
        disabled={busy || locked}
        title={locked ? "You cannot remove your own instance admin role" : undefined}
        onClick={toggle}
      >
        <span className="switch__thumb" aria-hidden="true" />
      </button>
      {locked && <span className="muted">you</span>}
      {error !== undefined && <InlineError>{describeError(error)}</InlineError>}
    </div>
  );
}

export default function AdminUsersPage() {
  const me = useMe();
  const [page, setPage] = useState(1);
  const loaded = useLoad(
    (signal) => (me.instanceAdmin ? admin.people(page, signal) : Promise.resolve(undefined)),
    [me.instanceAdmin, page],
  );
  if (!me.instanceAdmin || isApiError(loaded.error, "forbidden")) return <NotAllowed what="the people of this instance" />;

  const change = async (person: Person, instanceAdmin: boolean) => {
    const answer = await admin.setInstanceAdmin(person.id, instanceAdmin);
    const data = loaded.data;
    if (!data) return;
    loaded.set({
      ...data,
      data: data.data.map((p) => (p.id === answer.id ? { ...p, instanceAdmin: answer.instanceAdmin } : p)),
    });
  };
  const data = loaded.data;
  const admins = data?.data.filter((p) => p.instanceAdmin).length ?? 0;

  return (
    <div className="page">
      <header className="page__header">
        <div>
          <p className="page__eyebrow">Instance</p>
          <h1>Instance admins</h1>
          <p className="muted">
            Instance admins see the background migrations and choose who else is one. The first user of the deployment
            always is.
          </p>
        </div>
      </header>
      <LoadedView result={loaded} loadingLabel="Loading people…">
        {(data) => (
          <>
            <p className="muted" aria-live="polite">
              {formatCount(data.meta.totalItems)} {data.meta.totalItems === 1 ? "person" : "people"}, {admins} instance{" "}
              {admins === 1 ? "admin" : "admins"} on this page
            </p>
            <table className="people">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Joined</th>
                  <th scope="col">Instance admin</th>
                </tr>
              </thead>
              <tbody>
                {data.data.map((person) => (
                  <tr key={person.id}>
                    <td>{person.name ?? <span className="muted">–</span>}</td>
                    <td>{person.email}</td>
                    <td>{formatDateTime(person.createdAt, { year: true })}</td>
                    <td>
                      <AdminSwitch person={person} self={person.id === me.user.id} onChange={(next) => change(person, next)} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Pager page={page} totalPages={data.meta.totalPages} onPage={setPage} detail={`(${PEOPLE_PAGE_SIZE} per page)`} />
          </>
        )}
      </LoadedView>
    </div>
  );
}
