// A labelled JSON text box with its errors under it: the box's own (not JSON) and the server's
// (does not match the dataset's schema), each announced with the box.

import { useId } from "react";

import { MAX_JSON_CHARS } from "./form";

interface JsonFieldProps {
  label: string;
  value: string;
  onChange(value: string): void;
  errors?: readonly string[];
  hint?: string;
  rows?: number;
  disabled?: boolean;
}

export function JsonField({ label, value, onChange, errors = [], hint, rows = 5, disabled }: JsonFieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, errors.length ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      <textarea
        id={id}
        className="field__input ds-json"
        rows={rows}
        spellCheck={false}
        value={value}
        maxLength={MAX_JSON_CHARS}
        disabled={disabled}
        aria-invalid={errors.length ? true : undefined}
        aria-describedby={described || undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {hint && (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      )}
      {errors.length > 0 && (
        <ul id={`${id}-error`} className="field__error ds-errors">
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
