// The editor of a new prompt or a new version: the name (new prompts only), text or chat messages
// (placeholders included), config JSON, labels, tags and a commit message. Everything is checked
// here first (editor.ts) so a mistake shows at its field; the server's refusal shows above the
// buttons.

import { useState, type FormEvent } from "react";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { MAX_MESSAGES, PLACEHOLDER, validateDraft, type Draft, type DraftErrors, type NewPromptBody } from "./editor";

interface EditorProps {
  initial: Draft;
  /** False on a new version: the name is the prompt's. */
  nameEditable: boolean;
  submitLabel: string;
  onSubmit(body: NewPromptBody): Promise<void>;
  onCancel(): void;
}

const ROLES = ["system", "user", "assistant", PLACEHOLDER];

export function PromptEditor({ initial, nameEditable, submitLabel, onSubmit, onCancel }: EditorProps) {
  const [draft, setDraft] = useState<Draft>(initial);
  const [errors, setErrors] = useState<DraftErrors>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const change = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
  const setMessage = (index: number, changes: Partial<Draft["messages"][number]>) =>
    setDraft((d) => ({ ...d, messages: d.messages.map((m, i) => (i === index ? { ...m, ...changes } : m)) }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const checked = validateDraft(draft);
    if (checked.errors) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setFailure(undefined);
    setBusy(true);
    try {
      await onSubmit(checked.body);
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="prompts__editor form" onSubmit={submit} noValidate aria-label={submitLabel}>
      {nameEditable ? (
        <TextField
          label="Name"
          hint="Use / for folders: team/support/greet"
          value={draft.name}
          error={errors.name ?? null}
          maxLength={500}
          onChange={(e) => change({ name: e.target.value })}
          autoFocus
        />
      ) : null}

      <fieldset className="prompts__type">
        <legend className="field__label">Type</legend>
        {(["text", "chat"] as const).map((type) => (
          <label key={type}>
            <input type="radio" name="type" value={type} checked={draft.type === type} onChange={() => change({ type })} /> {type === "text" ? "Text" : "Chat"}
          </label>
        ))}
      </fieldset>

      {draft.type === "text" ? (
        <div className="field">
          <label className="field__label" htmlFor="prompt-text">
            Prompt
          </label>
          <textarea
            id="prompt-text"
            className="field__input prompts__textarea"
            rows={10}
            value={draft.text}
            aria-invalid={errors.text ? true : undefined}
            onChange={(e) => change({ text: e.target.value })}
            placeholder={"Summarise {{text}} in one sentence.\nReference another prompt with @@@langfusePrompt:name=…|label=production@@@"}
          />
          {errors.text && <p className="field__error">{errors.text}</p>}
        </div>
      ) : (
        <fieldset className="prompts__messages">
          <legend className="field__label">Messages</legend>
          {draft.messages.map((message, index) => (
            <div key={index} className="prompts__message-edit">
              <div className="prompts__message-bar">
                <select
                  aria-label={`Role of message ${index + 1}`}
                  className="field__input"
                  value={ROLES.includes(message.role) ? message.role : ""}
                  onChange={(e) => setMessage(index, { role: e.target.value })}
                >
                  {ROLES.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
                  {!ROLES.includes(message.role) && <option value="">{message.role || "(role)"}</option>}
                </select>
                <Button size="sm" variant="ghost" disabled={index === 0} onClick={() => change({ messages: move(draft.messages, index, -1) })} aria-label={`Move message ${index + 1} up`}>
                  ↑
                </Button>
                <Button
                  size="sm"
                  variant="ghost"
                  disabled={index === draft.messages.length - 1}
                  onClick={() => change({ messages: move(draft.messages, index, 1) })}
                  aria-label={`Move message ${index + 1} down`}
                >
                  ↓
                </Button>
                <Button size="sm" variant="ghost" onClick={() => change({ messages: draft.messages.filter((_, i) => i !== index) })} aria-label={`Remove message ${index + 1}`}>
                  Remove
                </Button>
              </div>
              {message.role === PLACEHOLDER ? (
                <input
                  className="field__input"
                  aria-label={`Placeholder name of message ${index + 1}`}
                  placeholder="history"
                  value={message.content}
                  onChange={(e) => setMessage(index, { content: e.target.value })}
                />
              ) : (
                <textarea
                  className="field__input prompts__textarea"
                  aria-label={`Content of message ${index + 1}`}
                  rows={3}
                  value={message.content}
                  onChange={(e) => setMessage(index, { content: e.target.value })}
                />
              )}
              {errors.message?.[index] && <p className="field__error">{errors.message[index]}</p>}
            </div>
          ))}
          {errors.messages && <p className="field__error">{errors.messages}</p>}
          <Button
            size="sm"
            disabled={draft.messages.length >= MAX_MESSAGES}
            onClick={() => change({ messages: [...draft.messages, { role: draft.messages.length % 2 ? "assistant" : "user", content: "" }] })}
          >
            Add message
          </Button>
        </fieldset>
      )}

      <div className="field">
        <label className="field__label" htmlFor="prompt-config">
          Config (JSON)
        </label>
        <textarea
          id="prompt-config"
          className="field__input prompts__textarea mono"
          rows={4}
          value={draft.config}
          aria-invalid={errors.config ? true : undefined}
          onChange={(e) => change({ config: e.target.value })}
        />
        {errors.config && <p className="field__error">{errors.config}</p>}
      </div>
      <TextField
        label="Labels"
        hint="production, staging… (they move here from the version that has them)"
        value={draft.labels}
        error={errors.labels ?? null}
        onChange={(e) => change({ labels: e.target.value })}
      />
      <TextField label="Tags" hint="Comma-separated; they apply to every version" value={draft.tags} error={errors.tags ?? null} onChange={(e) => change({ tags: e.target.value })} />
      <TextField
        label="Commit message"
        value={draft.commitMessage}
        error={errors.commitMessage ?? null}
        maxLength={1000}
        onChange={(e) => change({ commitMessage: e.target.value })}
      />
      {failure !== undefined && <InlineError>{describeError(failure)}</InlineError>}
      <div className="prompts__actions">
        <Button type="submit" variant="primary" busy={busy}>
          {submitLabel}
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}

function move<T>(items: T[], index: number, by: number): T[] {
  const next = [...items];
  const [item] = next.splice(index, 1);
  next.splice(index + by, 0, item!);
  return next;
}
