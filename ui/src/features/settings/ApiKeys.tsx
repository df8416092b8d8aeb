// A project's or an organization's API keys: the list, a new key whose secret is shown once in a
// dialog (with copy buttons and, for a project key, the .env lines), and deletion after a
// confirmation. Only OWNER and ADMIN get here with buttons; the server refuses everyone else.

import { useState } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { TextField } from "../../components/TextField";
import { formatDateTime } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { settings, type ApiKey, type CreatedKey, type KeyOwner } from "./api";
import { Dialog, RemovalDialog, useRemoval } from "./Dialog";
import { ListTable } from "./ListTable";
import { envSnippet } from "./forms";
import { useAction } from "./useAction";

export const NOTE_MAX = 200;

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <Button size="sm" onClick={copy} aria-label={label}>
      {copied ? "Copied" : "Copy"}
    </Button>
  );
}

export function Secret({ label, value }: { label: string; value: string }) {
  return (
    <div className="secret">
      <span className="secret__label">{label}</span>
      <code className="secret__value" aria-label={label}>
        {value}
      </code>
      <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}

function CreatedKeyDialog({ created, owner, onClose }: { created: CreatedKey; owner: KeyOwner; onClose(): void }) {
  const snippet = envSnippet(created.publicKey, created.secretKey, window.location.origin);
  return (
    <Dialog
      title="API key created"
      onClose={onClose}
      actions={
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      <p className="muted">Copy the secret key now: it is shown only this once.</p>
      <Secret label="Public key" value={created.publicKey} />
      <Secret label="Secret key" value={created.secretKey} />
      {owner.kind === "project" && (
        <div className="secret secret--block">
          <span className="secret__label">.env</span>
          <pre className="secret__value" aria-label="Environment variables">
            {snippet}
          </pre>
          <CopyButton text={snippet} label="Copy environment variables" />
        </div>
      )}
    </Dialog>
  );
}

export function ApiKeys({ owner, canManage }: { owner: KeyOwner; canManage: boolean }) {
  const loaded = useLoad((signal) => (canManage ? settings.keys(owner, signal) : Promise.resolve([])), [owner.kind, owner.id, canManage]);
  const [note, setNote] = useState("");
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const create = useAction();
  const removal = useRemoval(
    (key: ApiKey) => settings.deleteKey(owner, key.id),
    (key) => loaded.set((loaded.data ?? []).filter((k) => k.id !== key.id)),
  );

  if (!canManage) {
    return <p className="muted">Only owners and admins see and manage API keys.</p>;
  }
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading API keys…" />;
  const keys = loaded.data;

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const key = await create.run(() => settings.createKey(owner, note.trim()));
    if (key) {
      setNote("");
      setCreated(key);
      loaded.reload();
    }
  };

  return (
    <div className="settings-block">
      <ListTable
        label="API keys"
        columns={["Public key", "Secret key", "Note", "Created", "Last used"]}
        actions
        empty={keys.length === 0 && "No API keys yet."}
      >
        {keys.map((key) => (
          <tr key={key.id}>
            <td>
              <code>{key.publicKey}</code>
            </td>
            <td>
              <code>{key.displaySecretKey}</code>
            </td>
            <td>{key.note ?? <span className="muted">–</span>}</td>
            <td>{formatDateTime(key.createdAt, { year: true })}</td>
            <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt, { year: true }) : <span className="muted">never</span>}</td>
            <td className="settings-actions">
              <Button size="sm" variant="ghost" onClick={() => removal.ask(key)} aria-label={`Delete key ${key.publicKey}`}>
                Delete
              </Button>
            </td>
          </tr>
        ))}
      </ListTable>
      <form className="settings-inline-form" onSubmit={(e) => void submit(e)}>
        <TextField label="Note (optional)" value={note} maxLength={NOTE_MAX} onChange={(e) => setNote(e.target.value)} />
        <Button type="submit" variant="primary" busy={create.busy}>
          Create API key
        </Button>
      </form>
      {create.error !== undefined && <InlineError>{describeError(create.error)}</InlineError>}
      {created && <CreatedKeyDialog created={created} owner={owner} onClose={() => setCreated(null)} />}
      <RemovalDialog removal={removal} title="Delete API key?" confirmLabel="Delete key">
        {(key) => (
          <p>
            Clients using <code>{key.publicKey}</code> are refused at once. This cannot be undone.
          </p>
        )}
      </RemovalDialog>
    </div>
  );
}
