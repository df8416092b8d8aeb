// Creating or editing a monitor: its Metrics v2 query (view, measure, aggregation, and filters in
// the filter builder of FiltersField.tsx), the window, the comparison and threshold, how often it
// runs, and its channels. A new webhook channel gets a generated signing secret, shown once after
// saving (reads only ever show `...abcd`).

import { useState, type FormEvent } from "react";

import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { describeError } from "../../api/client";
import type { Problems } from "../settings/forms";
import { useAction } from "../settings/useAction";
import type { Monitor, MonitorRequest } from "./api";
import {
  AGGREGATIONS,
  CHANNELS_MAX,
  COMPARISONS,
  DESCRIPTION_MAX,
  describeSeconds,
  emptyChannel,
  FILTERS_MAX,
  MEASURES,
  monitorRequest,
  NAME_MAX,
  VIEWS,
  type ChannelForm,
  type ChannelType,
  type MonitorField,
  type MonitorForm as Form,
} from "./form";
import { FiltersField } from "../dashboards/FiltersField";
import { rowsForView } from "../dashboards/filters";

interface MonitorFormProps {
  initial: Form;
  /** Editing a stored monitor (its channels stay unless replaced). */
  editing?: Monitor;
  onSave(request: MonitorRequest): Promise<Monitor>;
  onSaved(monitor: Monitor, secrets: string[]): void;
  onCancel(): void;
}

function Select({ label, value, options, onChange }: { label: string; value: string; options: readonly string[]; onChange(v: string): void }) {
  const id = `monitor-${label.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className="field__input" value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

function ChannelFields({ channel, index, problem, set, remove }: { channel: ChannelForm; index: number; problem?: string; set(patch: Partial<ChannelForm>): void; remove(): void }) {
  const n = index + 1;
  return (
    <fieldset className="monitor-channel">
      <legend>
        Channel {n}: {channel.type === "github" ? "GitHub dispatch" : channel.type === "slack" ? "Slack" : "Webhook"}
      </legend>
      <div className="settings-row">
        {channel.type !== "github" && (
          <TextField
            label={channel.type === "slack" ? `Slack webhook URL ${n}` : `Webhook URL ${n}`}
            type="url"
            value={channel.url}
            placeholder={channel.type === "slack" ? "https://hooks.slack.com/services/…" : "https://alerts.example.com/loupe"}
            onChange={(e) => set({ url: e.target.value })}
          />
        )}
        {channel.type === "webhook" && (
          <TextField
            label={`Signing secret ${n}`}
            value={channel.secret}
            autoComplete="off"
            hint="Generated for you; shown once more after saving. The receiver checks X-Loupe-Signature with it."
            onChange={(e) => set({ secret: e.target.value })}
          />
        )}
        {channel.type === "github" && (
          <>
            <TextField label={`Owner ${n}`} value={channel.owner} onChange={(e) => set({ owner: e.target.value })} />
            <TextField label={`Repository ${n}`} value={channel.repo} onChange={(e) => set({ repo: e.target.value })} />
            <TextField label={`Token ${n}`} type="password" autoComplete="off" value={channel.token} onChange={(e) => set({ token: e.target.value })} />
            <TextField label={`Event type ${n}`} value={channel.eventType} onChange={(e) => set({ eventType: e.target.value })} />
          </>
        )}
        <Button size="sm" variant="ghost" onClick={remove} aria-label={`Remove channel ${n}`}>
          Remove
        </Button>
      </div>
      {problem && <InlineError>{problem}</InlineError>}
    </fieldset>
  );
}

export function MonitorForm({ initial, editing, onSave, onSaved, onCancel }: MonitorFormProps) {
  const [form, setForm] = useState(initial);
  const [problems, setProblems] = useState<Problems<MonitorField>>({});
  const action = useAction();
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const setChannel = (i: number, patch: Partial<ChannelForm>) =>
    setForm((f) => ({ ...f, channels: f.channels.map((c, j) => (j === i ? { ...c, ...patch } : c)) }));
  const addChannel = (type: ChannelType) => setForm((f) => ({ ...f, channels: [...f.channels, emptyChannel(type)] }));
  const measures = MEASURES[form.view] ?? [];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = monitorRequest(form);
    if (!checked.ok) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    const saved = await action.run(() => onSave(checked.value));
    if (saved) {
      const secrets = (checked.value.channels ?? []).flatMap((c) => (c.type === "webhook" ? [c.secret] : []));
      onSaved(saved, secrets);
    }
  };

  const windowHint = Number(form.windowSeconds) > 0 ? `Each evaluation aggregates the last ${describeSeconds(Number(form.windowSeconds))}.` : undefined;
  return (
    <form className="settings-form monitor-form" aria-label={editing ? `Edit ${editing.name}` : "New monitor"} onSubmit={(e) => void submit(e)} noValidate>
      <div className="settings-row">
        <TextField label="Name" value={form.name} maxLength={NAME_MAX} error={problems.name} onChange={(e) => set({ name: e.target.value })} />
        <TextField label="Description" value={form.description} maxLength={DESCRIPTION_MAX} error={problems.description} onChange={(e) => set({ description: e.target.value })} />
      </div>
      <h3 className="monitor-form__title">Query</h3>
      <div className="settings-row">
        <Select label="View" value={form.view} options={VIEWS} onChange={(view) => set({ view, measure: (MEASURES[view] ?? ["count"])[0] ?? "count", filters: rowsForView(form.filters, form.view, view) })} />
        <Select label="Measure" value={form.measure} options={measures} onChange={(measure) => set({ measure })} />
        <Select label="Aggregation" value={form.aggregation} options={AGGREGATIONS} onChange={(aggregation) => set({ aggregation })} />
      </div>
      {problems.measure && <InlineError>{problems.measure}</InlineError>}
      <FiltersField
        view={form.view}
        filters={form.filters}
        filtersJson={form.filtersJson}
        set={set}
        max={FILTERS_MAX}
        emptyText={`No filters: all ${form.view === "observations" ? "observations" : "scores"} in the window count.`}
        problem={problems.filters}
      />
      <h3 className="monitor-form__title">Rule</h3>
      <div className="settings-row">
        <TextField label="Window (seconds)" inputMode="numeric" value={form.windowSeconds} hint={windowHint} error={problems.windowSeconds} onChange={(e) => set({ windowSeconds: e.target.value })} />
        <Select label="Comparison" value={form.comparison} options={COMPARISONS} onChange={(c) => set({ comparison: c as Form["comparison"] })} />
        <TextField label="Threshold" inputMode="decimal" value={form.threshold} error={problems.threshold} onChange={(e) => set({ threshold: e.target.value })} />
        <TextField label="Evaluate every (seconds)" inputMode="numeric" value={form.intervalSeconds} error={problems.intervalSeconds} onChange={(e) => set({ intervalSeconds: e.target.value })} />
      </div>
      <h3 className="monitor-form__title">Channels</h3>
      {editing && !form.replaceChannels ? (
        <div className="settings-row">
          <p className="muted">
            {editing.channels.length ? `${editing.channels.length} channel(s) kept as they are.` : "No channels."} Their secrets are not shown again, so
            replacing them means entering each secret anew.
          </p>
          <Button size="sm" onClick={() => set({ replaceChannels: true, channels: [] })}>
            Replace channels
          </Button>
        </div>
      ) : (
        <>
          {form.channels.length === 0 && <p className="muted">No channels: state changes are only recorded here.</p>}
          {form.channels.map((channel, i) => (
            <ChannelFields
              key={i}
              channel={channel}
              index={i}
              problem={problems[`channel${i}`]}
              set={(patch) => setChannel(i, patch)}
              remove={() => setForm((f) => ({ ...f, channels: f.channels.filter((_, j) => j !== i) }))}
            />
          ))}
          {form.channels.length < CHANNELS_MAX && (
            <div className="settings-row">
              <Button size="sm" onClick={() => addChannel("webhook")}>
                Add webhook
              </Button>
              <Button size="sm" onClick={() => addChannel("slack")}>
                Add Slack
              </Button>
              <Button size="sm" onClick={() => addChannel("github")}>
                Add GitHub dispatch
              </Button>
            </div>
          )}
          {problems.channels && <InlineError>{problems.channels}</InlineError>}
        </>
      )}
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
      <div className="settings-row">
        <Button type="submit" variant="primary" busy={action.busy}>
          {editing ? "Save monitor" : "Create monitor"}
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
