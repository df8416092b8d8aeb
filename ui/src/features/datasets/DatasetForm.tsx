// Creating a dataset: name, description, metadata and the two JSON Schemas its items must match.
// Boxes that are not JSON are refused here, at the box; the server's refusal (an invalid schema,
// a name already taken by nothing — creating by an existing name updates it) is shown above the
// buttons.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import type { Dataset, DatasetsApi } from "./api";
import { parseJson, parseSchema } from "./form";
import { JsonField } from "./JsonField";

const MAX_NAME = 200;
const MAX_DESCRIPTION = 2_000;

interface DatasetFormProps {
  api: DatasetsApi;
  taken: (name: string) => boolean;
  onSaved(dataset: Dataset): void;
  onCancel(): void;
}

export function DatasetForm({ api, taken, onSaved, onCancel }: DatasetFormProps) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [metadata, setMetadata] = useState("");
  const [inputSchema, setInputSchema] = useState("");
  const [outputSchema, setOutputSchema] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!name.trim()) found.name = "A dataset needs a name";
    else if (taken(name.trim())) found.name = "A dataset of this name exists; open it to change it";
    const parsed = { metadata: parseJson(metadata), inputSchema: parseSchema(inputSchema), expectedOutputSchema: parseSchema(outputSchema) };
    for (const [key, p] of Object.entries(parsed)) if (!p.ok) found[key] = p.error;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const value = (p: (typeof parsed)["metadata"]) => (p.ok ? p.value : undefined);
    setBusy(true);
    setFailure(undefined);
    try {
      const saved = await api.save({
        name: name.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(value(parsed.metadata) !== undefined ? { metadata: value(parsed.metadata) } : {}),
        ...(value(parsed.inputSchema) !== undefined ? { inputSchema: value(parsed.inputSchema) } : {}),
        ...(value(parsed.expectedOutputSchema) !== undefined ? { expectedOutputSchema: value(parsed.expectedOutputSchema) } : {}),
      });
      onSaved(saved);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  const one = (key: string) => (errors[key] ? [errors[key]] : []);
  return (
    <form className="card ds-form" aria-label="New dataset" onSubmit={(event) => void submit(event)}>
      <h2>New dataset</h2>
      <TextField label="Name" value={name} maxLength={MAX_NAME} autoFocus error={errors.name ?? null} onChange={(e) => setName(e.target.value)} />
      <TextField label="Description" value={description} maxLength={MAX_DESCRIPTION} onChange={(e) => setDescription(e.target.value)} />
      <JsonField label="Metadata" value={metadata} onChange={setMetadata} errors={one("metadata")} rows={2} hint="JSON, optional" />
      <div className="ds-form__pair">
        <JsonField
          label="Input schema"
          value={inputSchema}
          onChange={setInputSchema}
          errors={one("inputSchema")}
          hint="A JSON Schema every item's input must match; empty for none"
        />
        <JsonField
          label="Expected output schema"
          value={outputSchema}
          onChange={setOutputSchema}
          errors={one("expectedOutputSchema")}
          hint="A JSON Schema every item's expected output must match; empty for none"
        />
      </div>
      {failure !== undefined && <InlineError>{describeError(failure)}</InlineError>}
      <div className="ds-form__actions">
        <Button type="submit" variant="primary" busy={busy}>
          Create dataset
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
