// A modal dialog on the native <dialog>: the browser traps focus, Escape closes it, and focus goes
// back to where it was. jsdom has no showModal, so tests get an open, non-modal dialog.

import { useEffect, useId, useRef, type ReactNode } from "react";

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
