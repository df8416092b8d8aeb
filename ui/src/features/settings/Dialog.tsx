// A modal dialog on the native <dialog>: the browser traps focus, Escape closes it, and focus goes
// back to where it was. jsdom has no showModal, so tests get an open, non-modal dialog.

import { useEffect, useId, useRef, useState, type ReactNode } from "react";

import { describeError } from "../../api/client";
import { InlineError } from "../../components/States";
import { useAction } from "./useAction";

interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  /** Buttons at the bottom. */
  actions?: ReactNode;
}

export function Dialog({ title, onClose, children, actions }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement as HTMLElement | null;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    const cancel = (event: Event) => {
      event.preventDefault();
      close.current();
    };
    dialog.addEventListener("cancel", cancel);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open && typeof dialog.close === "function") dialog.close();
      before?.focus?.();
    };
  }, []);

  return (
    <dialog ref={ref} className="dialog" aria-labelledby={id}>
      <h2 id={id} className="dialog__title">
        {title}
      </h2>
      <div className="dialog__body">{children}</div>
      {actions && <div className="dialog__actions">{actions}</div>}
    </dialog>
  );
}

/** Asks before something that cannot be undone; the confirm button runs `onConfirm`. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy: boolean;
  error?: ReactNode;
  onConfirm(): void;
  onClose(): void;
}) {
  return (
    <Dialog
      title={title}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--secondary button--md" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button button--danger button--md" disabled={busy} onClick={onConfirm}>
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
      {error}
    </Dialog>
  );
}

/** Something's removal, asked first: `ask(thing)` opens the dialog, confirming runs `remove(thing)`
 * and, once it worked, closes and calls `onRemoved(thing)`; a failure stays in the dialog. */
export function useRemoval<T>(remove: (thing: T) => Promise<unknown>, onRemoved: (thing: T) => void) {
  const [asked, setAsked] = useState<{ thing: T } | null>(null);
  const action = useAction();
  const confirm = async () => {
    if (!asked) return;
    // `true` rather than the answer, which a 204 leaves undefined, as `run` reports a failure.
    const done = await action.run(async () => {
      await remove(asked.thing);
      return true;
    });
    if (done) {
      setAsked(null);
      onRemoved(asked.thing);
    }
  };
  const close = () => {
    setAsked(null);
    action.reset();
  };
  return { asked, ask: (thing: T) => setAsked({ thing }), confirm, close, busy: action.busy, error: action.error };
}

export type Removal<T> = ReturnType<typeof useRemoval<T>>;

/** The dialog of a `useRemoval`, open while something is asked about; `children` says what goes. */
export function RemovalDialog<T>({
  removal,
  title,
  confirmLabel,
  showError = (error) => <InlineError>{describeError(error)}</InlineError>,
  children,
}: {
  removal: Removal<T>;
  title: string;
  confirmLabel: string;
  /** How the failure reads; the settings pages' one line by default. */
  showError?: (error: unknown) => ReactNode;
  children(thing: T): ReactNode;
}) {
  if (!removal.asked) return null;
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      busy={removal.busy}
      onConfirm={() => void removal.confirm()}
      onClose={removal.close}
      error={removal.error !== undefined ? showError(removal.error) : null}
    >
      {children(removal.asked.thing)}
    </ConfirmDialog>
  );
}
