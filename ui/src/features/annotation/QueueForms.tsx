// The list page's two forms: a new queue (name, description, score configs) and a new item of a
// queue by object type and id.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import type { ScoreConfig } from "../../api/trace";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS, MAX_SCORE_CONFIGS, type AnnotationApi, type ObjectType } from "./api";

export function NewQueueForm({ api, configs, onCreated, onCancel }: { api: AnnotationApi; configs: readonly ScoreConfig[]; onCreated(): void; onCancel(): void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const usable = configs.filter((c) => !c.isArchived);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (chosen.length === 0) {
      setError(new Error("Choose at least one score config"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.create({ name: name.trim(), scoreConfigIds: [...chosen], ...(description.trim() ? { description: description.trim() } : {}) });
      onCreated();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };

  return (
    <form className="card queue-form" aria-label="New queue" onSubmit={(event) => void submit(event)}>
      <h2 className="section-title">New queue</h2>
      <TextField label="Name" required maxLength={MAX_NAME_CHARS} value={name} onChange={(event) => setName(event.target.value)} />
      <div className="field">
        <label className="field__label" htmlFor="queue-description">
          Description
        </label>
        <textarea id="queue-description" className="field__input" rows={2} maxLength={MAX_DESCRIPTION_CHARS} value={description} onChange={(event) => setDescription(event.target.value)} />
      </div>
      <fieldset className="queue-form__configs">
        <legend className="field__label">Score configs</legend>
        {usable.length === 0 ? (
          <p className="muted">This project has no score configs yet. Create one in the project's settings first.</p>
        ) : (
          usable.map((config) => (
            <label key={config.id} className="queue-form__config">
              <input
                type="checkbox"
                checked={chosen.includes(config.id)}
                disabled={!chosen.includes(config.id) && chosen.length >= MAX_SCORE_CONFIGS}
                onChange={(event) => setChosen((current) => (event.target.checked ? [...current, config.id] : current.filter((id) => id !== config.id)))}
              />
              <span>{config.name}</span>
              <span className="muted">{config.dataType.toLowerCase()}</span>
            </label>
          ))
        )}
      </fieldset>
      <div className="queue-form__actions">
        <Button type="submit" variant="primary" busy={busy}>
          Create queue
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
      {error !== null && <InlineError>{describeError(error)}</InlineError>}
    </form>
  );
}

export function AddItemForm({ api, queueId, queueName, onAdded }: { api: AnnotationApi; queueId: string; queueName: string; onAdded(): void }) {
  const [objectType, setObjectType] = useState<ObjectType>("OBSERVATION");
  const [objectId, setObjectId] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [added, setAdded] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setAdded(null);
    try {
      await api.addItem(queueId, objectType, objectId.trim());
      setAdded(objectId.trim());
      setObjectId("");
      onAdded();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="add-item" aria-label={`Add an item to ${queueName}`} onSubmit={(event) => void submit(event)}>
      <select className="field__input" aria-label="Object type" value={objectType} onChange={(event) => setObjectType(event.target.value as ObjectType)}>
        <option value="OBSERVATION">Observation</option>
        <option value="TRACE">Trace</option>
        <option value="SESSION">Session</option>
      </select>
      <input className="field__input mono" aria-label="Object id" placeholder="Id" required maxLength={255} value={objectId} onChange={(event) => setObjectId(event.target.value)} />
      <Button type="submit" size="sm" busy={busy}>
        Add
      </Button>
      {added && <span className="muted">Added {added}</span>}
      {error !== null && <InlineError>{describeError(error)}</InlineError>}
    </form>
  );
}
