// A button that opens a list of actions: Escape and a click outside close it, arrow keys move
// between items, and focus returns to the button.

import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";

interface MenuProps {
  /** The button's content. */
  label: ReactNode;
  /** Its accessible name, when `label` is not text. */
  ariaLabel?: string;
  children: ReactNode;
  align?: "start" | "end";
}

export function Menu({ label, ariaLabel, children, align = "end" }: MenuProps) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const outside = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    list.current?.querySelector<HTMLElement>("[role=menuitem]")?.focus();
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape" && open) {
      event.stopPropagation();
      setOpen(false);
      button.current?.focus();
      return;
    }
    if (!open || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) return;
    event.preventDefault();
    const items = [...(list.current?.querySelectorAll<HTMLElement>("[role=menuitem]") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = event.key === "ArrowDown" ? (at + 1) % items.length : (at - 1 + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <div className="menu" ref={root} onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        className="button button--ghost button--md menu__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={id}
        aria-label={ariaLabel}
        onClick={() => setOpen((o) => !o)}
      >
        {label}
      </button>
      {open && (
        <div
          id={id}
          ref={list}
          role="menu"
          className={`menu__list menu__list--${align}`}
          onClick={(event) => {
            if ((event.target as HTMLElement).closest("[role=menuitem]")) setOpen(false);
          }}
        >
          {children}
        </div>
      )}
    </div>
  );
}

/** A menu entry that runs an action. For navigation, give a `Link` `role="menuitem"` and `className="menu__item"`. */
export function MenuItem({ onSelect, children }: { onSelect: () => void; children: ReactNode }) {
  return (
    <button type="button" role="menuitem" className="menu__item" onClick={onSelect}>
      {children}
    </button>
  );
}

export function MenuSeparator() {
  return <div role="separator" className="menu__separator" />;
}
