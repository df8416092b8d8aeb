// The project's LLM connections (public API `llm-connections`): the providers its evaluators call,
// each with its adapter, base URL and the key in display form only. OWNER and ADMIN add, update
// (by the connection's name; the key is entered again, as it is never shown) and delete; everyone
// else reads. Evaluators name a connection by its `provider` (docs/evaluators.md).

import { useState } from "react";

import { describeError } from "../../api/client";
import type { ProjectApi } from "../../api/public";
import type { Paginated } from "../../api/types";
import { Button } from "../../components/Button";
import { ErrorState, InlineError, Loading } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { RemovalDialog, useRemoval } from "./Dialog";
import { ListTable } from "./ListTable";
import { ADAPTERS, connectionRequest, EMPTY_CONNECTION, PROVIDER_MAX, type Adapter, type ConnectionForm } from "./LlmConnectionsForm";
import { useCheckedForm } from "./useCheckedForm";
import "./LlmConnections.css";

interface Connection {
  id: string;
  provider: string;
  adapter: Adapter;
  displaySecretKey: string;
  baseURL: string | null;
  customModels: string[];
  withDefaultModels: boolean;
  extraHeaderKeys: string[];
}

function formOf(connection: Connection): ConnectionForm {
  return {
    ...EMPTY_CONNECTION,
    provider: connection.provider,
    adapter: connection.adapter,
    baseURL: connection.baseURL ?? "",
    customModels: connection.customModels.join("\n"),
    withDefaultModels: connection.withDefaultModels,
    extraHeaders: connection.extraHeaderKeys.map((name) => `${name}: `).join("\n"),
  };
}

function ConnectionEditor({ api, initial, onSaved, onCancel }: { api: ProjectApi; initial: Connection | null; onSaved(): void; onCancel?(): void }) {
  const { form, set, problems, action, submit } = useCheckedForm(initial ? formOf(initial) : EMPTY_CONNECTION, connectionRequest, (body) => api.put<Connection>("llm-connections", body), onSaved);
  const label = initial ? `Update connection ${initial.provider}` : "New LLM connection";
  return (
    <form className="settings-form" aria-label={label} onSubmit={(e) => void submit(e)} noValidate>
      {initial && <h3 className="settings-subtitle">Update {initial.provider}</h3>}
      <div className="settings-row">
        <TextField
          label="Name (provider)"
          value={form.provider}
          maxLength={PROVIDER_MAX}
          readOnly={initial !== null}
          placeholder="openai"
          error={problems.provider}
          onChange={(e) => set({ provider: e.target.value })}
        />
        <div className="field">
          <label className="field__label" htmlFor={`adapter-${initial?.id ?? "new"}`}>
            Adapter
          </label>
          <select id={`adapter-${initial?.id ?? "new"}`} className="field__input" value={form.adapter} onChange={(e) => set({ adapter: e.target.value as Adapter })}>
            {ADAPTERS.map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <TextField
        label={form.adapter === "google-vertex-ai" ? "Service account key (JSON)" : "API key"}
        type="password"
        autoComplete="off"
        value={form.secretKey}
        hint={initial ? `Stored key ${initial.displaySecretKey}: enter it again (or a new one) to save.` : "Stored encrypted; only its last characters are shown afterwards."}
        error={problems.secretKey}
        onChange={(e) => set({ secretKey: e.target.value })}
      />
      <TextField
        label="Base URL"
        value={form.baseURL}
        placeholder="https://api.openai.com/v1"
        hint="Leave empty for the provider's own API; set it for OpenAI-compatible servers, proxies and Azure."
        error={problems.baseURL}
        onChange={(e) => set({ baseURL: e.target.value })}
      />
      <div className="settings-row">
        <div className="field">
          <label className="field__label" htmlFor={`models-${initial?.id ?? "new"}`}>
            Custom models
          </label>
          <textarea
            id={`models-${initial?.id ?? "new"}`}
            className="field__input"
            rows={3}
            value={form.customModels}
            placeholder="one model per line"
            onChange={(e) => set({ customModels: e.target.value })}
          />
          {problems.customModels && <p className="field__error">{problems.customModels}</p>}
        </div>
        <div className="field">
          <label className="field__label" htmlFor={`headers-${initial?.id ?? "new"}`}>
            Extra headers
          </label>
          <textarea
            id={`headers-${initial?.id ?? "new"}`}
            className="field__input"
            rows={3}
            value={form.extraHeaders}
            placeholder="Name: value (one per line)"
            onChange={(e) => set({ extraHeaders: e.target.value })}
          />
          {problems.extraHeaders && <p className="field__error">{problems.extraHeaders}</p>}
        </div>
      </div>
      <label className="settings-check">
        <input type="checkbox" checked={form.withDefaultModels} onChange={(e) => set({ withDefaultModels: e.target.checked })} /> Offer the provider's default
        models too
      </label>
      <div className="settings-row">
        <Button type="submit" variant="primary" busy={action.busy}>
          {initial ? "Save connection" : "Add connection"}
        </Button>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
      </div>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
    </form>
  );
}

export function LlmConnections({ api, canManage }: { api: ProjectApi; canManage: boolean }) {
  const loaded = useLoad((signal) => api.get<Paginated<Connection>>("llm-connections", { limit: 100 }, signal), [api]);
  const [editing, setEditing] = useState<Connection | null>(null);
  const removal = useRemoval((c: Connection) => api.delete<unknown>(`llm-connections/${encodeURIComponent(c.id)}`), loaded.reload);
  if (loaded.error !== undefined && !loaded.data) return <ErrorState error={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading LLM connections…" />;
  const connections = loaded.data.data;

  return (
    <div className="settings-block">
      <p className="muted">
        The model providers this project&apos;s evaluators call. {canManage ? "" : "Only owners and admins change them."}
      </p>
      {connections.length === 0 ? (
        <p className="muted">No connection yet.</p>
      ) : (
        <ListTable label="LLM connections" columns={["Provider", "Adapter", "Base URL", "Key", "Models"]} actions={canManage} scroll>
          {connections.map((c) => (
            <tr key={c.id}>
              <td>{c.provider}</td>
              <td>{c.adapter}</td>
              <td>{c.baseURL ? <code>{c.baseURL}</code> : <span className="muted">default</span>}</td>
              <td>
                <code>{c.displaySecretKey}</code>
                {c.extraHeaderKeys.length > 0 && <div className="muted">+ headers {c.extraHeaderKeys.join(", ")}</div>}
              </td>
              <td>{[...c.customModels, ...(c.withDefaultModels ? ["defaults"] : [])].join(", ") || "–"}</td>
              {canManage && (
                <td className="settings-actions">
                  <Button size="sm" variant="ghost" onClick={() => setEditing(c)} aria-label={`Edit connection ${c.provider}`}>
                    Edit
                  </Button>
                  <Button size="sm" variant="ghost" onClick={() => removal.ask(c)} aria-label={`Delete connection ${c.provider}`}>
                    Delete
                  </Button>
                </td>
              )}
            </tr>
          ))}
        </ListTable>
      )}
      {canManage && editing && (
        <ConnectionEditor
          key={editing.id}
          api={api}
          initial={editing}
          onCancel={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            loaded.reload();
          }}
        />
      )}
      {canManage && !editing && <ConnectionEditor api={api} initial={null} onSaved={loaded.reload} />}
      <RemovalDialog removal={removal} title="Delete LLM connection?" confirmLabel="Delete connection">
        {(c) => (
          <p>
            Evaluators that call <strong>{c.provider}</strong> cannot judge until a connection with that name exists again.
          </p>
        )}
      </RemovalDialog>
    </div>
  );
}
