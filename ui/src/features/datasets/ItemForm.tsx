// Creating or editing an item: input, expected output and metadata as JSON. The dataset's schemas
// are checked by the server; its refusal names each mismatch's field and path (`fields` of the
// 400), shown under the box it is about. Editing writes a new version; archiving takes the item out
// of the list (and out of experiments run on the dataset), and can be undone by saving it ACTIVE.

import { useState, type FormEvent } from "react";

import { describeError, isApiError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import type { DatasetItem, DatasetsApi, ItemStatus } from "./api";
import { errorsByField, parseJson, showJson } from "./form";
import { JsonField } from "./JsonField";

interface ItemFormProps {
  api: DatasetsApi;
  datasetName: string;
  /** The item edited; a new one when absent. */
  item?: DatasetItem;
  onSaved(item: DatasetItem): void;
  onClose(): void;
}

const KEYS = ["input", "expectedOutput", "metadata"] as const;
type Key = (typeof KEYS)[number];

export function ItemForm({ api, datasetName, item, onSaved, onClose }: ItemFormProps) {
  const [text, setText] = useState<Record<Key, string>>({
    input: showJson(item?.input),
    expectedOutput: showJson(item?.expectedOutput),
    metadata: showJson(item?.metadata),
  });
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState<"save" | "archive" | null>(null);

  async function save(status?: ItemStatus) {
    const found: Record<string, string[]> = {};
    const values: Partial<Record<Key, unknown>> = {};
    for (const key of KEYS) {
      const parsed = parseJson(text[key]);
      if (parsed.ok) values[key] = parsed.value;
      else found[key] = [parsed.error];
    }
    setErrors(found);
    setFailure(undefined);
    if (Object.keys(found).length > 0) return;
    setBusy(status === "ARCHIVED" ? "archive" : "save");
    try {
      const saved = await api.saveItem({
        datasetName,
        ...(item ? { id: item.id } : {}),
        // An empty box sends nothing, which keeps a stored value: the API has no way to clear one.
        ...Object.fromEntries(KEYS.filter((k) => values[k] !== undefined).map((k) => [k, values[k]])),
        ...(status ? { status } : {}),
      });
      onSaved(saved);
    } catch (error) {
      if (isApiError(error, "invalid") && error.fields.length > 0) setErrors(errorsByField(error.fields));
      setFailure(error);
    } finally {
      setBusy(null);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(item?.status === "ARCHIVED" ? "ACTIVE" : undefined);
  };
  const title = item ? `Item ${item.id}` : "New item";
  return (
    <form className="card ds-form ds-item-form" aria-label={title} onSubmit={submit}>
      <header className="ds-form__header">
        <h2 className={item ? "mono" : undefined}>{title}</h2>
        <Button variant="ghost" size="sm" onClick={onClose} aria-label="Close">
          ✕
        </Button>
      </header>
      <JsonField label="Input" value={text.input} onChange={(v) => setText({ ...text, input: v })} errors={errors.input ?? []} rows={6} />
      <JsonField
        label="Expected output"
        value={text.expectedOutput}
        onChange={(v) => setText({ ...text, expectedOutput: v })}
        errors={errors.expectedOutput ?? []}
        rows={4}
      />
      <JsonField label="Metadata" value={text.metadata} onChange={(v) => setText({ ...text, metadata: v })} errors={errors.metadata ?? []} rows={2} />
      {failure !== undefined && (
        <InlineError>{isApiError(failure, "invalid") && failure.fields.length > 0 ? "The item does not match the dataset's schemas (see the fields above)." : describeError(failure)}</InlineError>
      )}
      <div className="ds-form__actions">
        <Button type="submit" variant="primary" busy={busy === "save"}>
          {item ? (item.status === "ARCHIVED" ? "Save and restore" : "Save") : "Add item"}
        </Button>
        {item && item.status !== "ARCHIVED" && (
          <Button variant="danger" busy={busy === "archive"} onClick={() => void save("ARCHIVED")}>
            Archive
          </Button>
        )}
      </div>
    </form>
  );
}
