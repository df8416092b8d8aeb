// Project settings → Exports: the project's scheduled export to a bucket (Langfuse's blob storage
// integration, docs/exports.md) — where (S3, S3-compatible, Azure), what (source, field groups, file
// type), when (frequency, mode) and whether it runs — with its status: last sync, next run, last
// error, followed live while a run is due or under way. Only OWNER and ADMIN manage it (the server answers 403 to anyone else, reads included).

import { useState, type FormEvent, type ReactNode } from "react";

import { describeError } from "../../api/client";
import type { WriteMode } from "../../api/types";
import { useMe } from "../../app/session";
import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { formatDateTime } from "../../components/format";
import { LoadedView } from "../../components/LoadedView";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { useLoad } from "../../components/useLoad";
import { usePollWhile } from "../../components/usePollWhile";
import type { Problems } from "../settings/forms";
import { useAction } from "../settings/useAction";
import { exportsApi, FIELD_GROUPS, FILE_TYPES, FREQUENCIES, MODES, SOURCES, TARGET_TYPES, type ExportSource, type Integration, type IntegrationStatus } from "./api";
import {
  emptyIntegration,
  FREQUENCY_LABELS,
  integrationForm,
  integrationRequest,
  MODE_LABELS,
  SOURCE_LABELS,
  TARGET_LABELS,
  type IntegrationField,
  type IntegrationForm,
} from "./form";
import "./exports.css";

/** The sources a write mode can serve (others are refused with 400, never exported empty). */
export function sourcesFor(mode: WriteMode | undefined): ExportSource[] {
  if (mode === "legacy") return ["LEGACY_TRACES_OBSERVATIONS"];
  if (mode === "events_only") return ["OBSERVATIONS_V2"];
  return [...SOURCES];
}

const STATUS_TEXT: Record<IntegrationStatus["syncStatus"], string> = {
  idle: "Waiting for its first run",
  queued: "Due now",
  running: "Exporting now",
  up_to_date: "Up to date",
  disabled: "Turned off",
  error: "The last run failed",
};

function Choice<T extends string>({ label, value, options, names, onChange }: { label: string; value: T; options: readonly T[]; names?: Record<T, string>; onChange(v: T): void }) {
  const id = `export-${label.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className="field__input" value={value} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {names?.[o] ?? o}
          </option>
        ))}
      </select>
    </div>
  );
}

function Status({ status }: { status: IntegrationStatus }) {
  const facts: [string, ReactNode][] = [
    ["Status", <span className={`export-status export-status--${status.syncStatus}`}>{STATUS_TEXT[status.syncStatus]}</span>],
    ["Exported up to", status.lastSyncAt ? formatDateTime(status.lastSyncAt, { year: true }) : "nothing yet"],
    ["Next run", status.nextSyncAt ? formatDateTime(status.nextSyncAt, { year: true }) : "—"],
  ];
  if (status.lastError) facts.push(["Last error", <span className="field__error">{`${status.lastError}${status.lastErrorAt ? ` (${formatDateTime(status.lastErrorAt)})` : ""}`}</span>]);
  return (
    <dl className="export-facts" aria-label="Export status">
      {facts.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

interface EditorProps {
  saved: Integration | null;
  sources: ExportSource[];
  /** Whether the last save succeeded (kept above the editor, which a first save remounts). */
  done: boolean;
  onSaved(i: Integration): void;
  onChanged(): void;
  onRemoved(): void;
}

function IntegrationEditor({ saved, sources, done, onSaved, onChanged, onRemoved }: EditorProps) {
  const { project, api } = useProject();
  const client = exportsApi(api);
  const [form, setForm] = useState<IntegrationForm>(() => (saved ? integrationForm(saved) : emptyIntegration(sources[0] ?? "OBSERVATIONS_V2")));
  const [problems, setProblems] = useState<Problems<IntegrationField>>({});
  const action = useAction();
  const removal = useAction();
  const set = (patch: Partial<IntegrationForm>) => {
    onChanged();
    setForm((f) => ({ ...f, ...patch }));
  };
  const azure = form.type === "AZURE_BLOB_STORAGE";

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = integrationRequest(project.id, form, saved !== null);
    if (!checked.ok) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    const answer = await action.run(() => client.save(checked.value));
    if (answer) {
      setForm(integrationForm(answer));
      onSaved(answer);
    }
  };

  const toggleGroup = (group: (typeof FIELD_GROUPS)[number], on: boolean) =>
    set({ exportFieldGroups: on ? FIELD_GROUPS.filter((g) => g === group || form.exportFieldGroups.includes(g)) : form.exportFieldGroups.filter((g) => g !== group) });

  return (
    <form className="settings-form" aria-label="Scheduled export" onSubmit={(e) => void submit(e)} noValidate>
      <h3 className="export-form__title">Destination</h3>
      <div className="settings-row">
        <Choice label="Storage" value={form.type} options={TARGET_TYPES} names={TARGET_LABELS} onChange={(type) => set({ type })} />
        <TextField label={azure ? "Container" : "Bucket"} value={form.bucketName} error={problems.bucketName} onChange={(e) => set({ bucketName: e.target.value })} />
        <TextField label="Region" value={form.region} error={problems.region} onChange={(e) => set({ region: e.target.value })} />
        <TextField label="Endpoint" type="url" value={form.endpoint} placeholder={azure ? "optional, e.g. Azurite" : form.type === "S3" ? "optional" : "https://…"} error={problems.endpoint} onChange={(e) => set({ endpoint: e.target.value })} />
      </div>
      <div className="settings-row">
        <TextField label={azure ? "Storage account" : "Access key id"} autoComplete="off" value={form.accessKeyId} error={problems.accessKeyId} onChange={(e) => set({ accessKeyId: e.target.value })} />
        <TextField
          label={azure ? "Account key" : "Secret access key"}
          type="password"
          autoComplete="new-password"
          value={form.secretAccessKey}
          placeholder={saved ? "kept as saved" : form.type === "S3" ? "optional: the server's credentials" : ""}
          hint="Stored encrypted, never shown again."
          error={problems.secretAccessKey}
          onChange={(e) => set({ secretAccessKey: e.target.value })}
        />
        <TextField label="Prefix" value={form.prefix} placeholder="exports/" error={problems.prefix} onChange={(e) => set({ prefix: e.target.value })} />
        {!azure && (
          <label className="check export-check">
            <input type="checkbox" checked={form.forcePathStyle} onChange={(e) => set({ forcePathStyle: e.target.checked })} />
            Path-style URLs
          </label>
        )}
      </div>
      <h3 className="export-form__title">What and when</h3>
      <div className="settings-row">
        <Choice label="Source" value={form.exportSource} options={sources.includes(form.exportSource) ? sources : [form.exportSource, ...sources]} names={SOURCE_LABELS} onChange={(exportSource) => set({ exportSource })} />
        <Choice label="File type" value={form.fileType} options={FILE_TYPES} onChange={(fileType) => set({ fileType })} />
        <Choice label="Frequency" value={form.exportFrequency} options={FREQUENCIES} names={FREQUENCY_LABELS} onChange={(exportFrequency) => set({ exportFrequency })} />
        <Choice label="Mode" value={form.exportMode} options={MODES} names={MODE_LABELS} onChange={(exportMode) => set({ exportMode })} />
        {form.exportMode === "FROM_CUSTOM_DATE" && (
          <TextField label="Export from" type="date" value={form.exportStartDate} error={problems.exportStartDate} onChange={(e) => set({ exportStartDate: e.target.value })} />
        )}
      </div>
      <fieldset className="export-groups">
        <legend>Observation fields</legend>
        {FIELD_GROUPS.map((group) => (
          <label key={group} className="check">
            <input type="checkbox" checked={form.exportFieldGroups.includes(group)} disabled={group === "core"} onChange={(e) => toggleGroup(group, e.target.checked)} />
            {group}
          </label>
        ))}
      </fieldset>
      {problems.exportFieldGroups && <InlineError>{problems.exportFieldGroups}</InlineError>}
      <div className="settings-row">
        <label className="check">
          <input type="checkbox" checked={form.compressed} disabled={form.fileType === "PARQUET"} onChange={(e) => set({ compressed: e.target.checked })} />
          gzip the files {form.fileType === "PARQUET" ? "(Parquet compresses itself)" : ""}
        </label>
        <label className="check">
          <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
          Enabled
        </label>
      </div>
      <p className="muted">
        Saving writes a small test file to the bucket first, so wrong credentials show here. Each run exports a closed window up to 20 minutes ago; the
        first starts within two minutes.
      </p>
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
      {removal.error !== undefined && <InlineError>{describeError(removal.error)}</InlineError>}
      <div className="settings-row">
        <Button type="submit" variant="primary" busy={action.busy}>
          {saved ? "Save export" : "Set up export"}
        </Button>
        {saved && (
          <Button variant="danger" busy={removal.busy} onClick={() => void removal.run(() => client.remove()).then((r) => r !== undefined && onRemoved())}>
            Remove export
          </Button>
        )}
        {done && (
          <span className="muted" role="status">
            Saved
          </span>
        )}
      </div>
    </form>
  );
}

export function ExportSettings({ manage }: { manage: boolean }) {
  const { api } = useProject();
  const me = useMe();
  const client = exportsApi(api);
  const [round, setRound] = useState(0);
  const [done, setDone] = useState(false);
  const loaded = useLoad((signal) => (manage ? client.integration(signal) : Promise.resolve(null)), [api, manage, round]);
  const status = useLoad((signal) => (manage && loaded.data ? client.status(signal) : Promise.resolve(null)), [api, manage, loaded.data]);
  // A run due or under way is followed until it ends; an idle, finished or turned-off export is not polled.
  const pollError = usePollWhile(status.data, (s) => s.syncStatus === "queued" || s.syncStatus === "running", (signal) => client.status(signal), status.set);
  if (!manage) return <p className="muted">Only owners and admins see and manage this project's scheduled export.</p>;
  const sources = sourcesFor(me.instance?.writeMode);
  // `null` (no export yet) is an answer here, which LoadedView would take for "not loaded".
  if (loaded.data === undefined)
    return (
      <LoadedView result={loaded} loadingLabel="Loading the export…">
        {() => null}
      </LoadedView>
    );
  const saved = loaded.data;
  return (
    <div className="settings-block">
      <p className="muted">Copies this project's observations, traces and scores to your own bucket as files, on a schedule.</p>
      {saved && status.data && (
        <div className="settings-row">
          <Status status={status.data} />
          <Button size="sm" variant="ghost" busy={status.loading} onClick={status.reload}>
            Refresh status
          </Button>
        </div>
      )}
      {status.error !== undefined && <InlineError>{describeError(status.error)}</InlineError>}
      {pollError !== undefined && <p className="muted">The status could not be read ({describeError(pollError)}); trying again.</p>}
      <IntegrationEditor
        key={saved ? "saved" : "new"}
        saved={saved}
        sources={sources}
        done={done}
        onSaved={(i) => {
          setDone(true);
          loaded.set(i);
        }}
        onChanged={() => setDone(false)}
        onRemoved={() => {
          setDone(false);
          setRound((r) => r + 1);
        }}
      />
    </div>
  );
}
