// A create form checked in the browser before it is sent: its fields, the problems `check` found
// (shown at each field), and `submit`, which sends only a form that passes, then empties it.

import { useState, type FormEvent } from "react";

import type { Checked, Problems } from "./forms";
import { useAction } from "./useAction";

export function useCheckedForm<F, V, K extends string>(empty: F, check: (form: F) => Checked<V, K>, send: (value: V) => Promise<unknown>, onSent: () => void) {
  const [form, setForm] = useState<F>(empty);
  const [problems, setProblems] = useState<Problems<K>>({});
  const action = useAction();
  const set = (patch: Partial<F>) => setForm((current) => ({ ...current, ...patch }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = check(form);
    if (!checked.ok) {
      setProblems(checked.problems);
      return;
    }
    setProblems({});
    const sent = await action.run(() => send(checked.value));
    if (sent !== undefined) {
      setForm(empty);
      onSent();
    }
  };
  return { form, set, problems, action, submit };
}
