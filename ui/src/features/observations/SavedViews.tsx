// Saved views of the project and the built-in presets: apply one (its permalink is `?view=<id>`),
// save the current view under a name, rename or delete one. People who may not change the project
// (VIEWER) see the views but no save, rename or delete.

import { useState, type FormEvent } from "react";
import { Link } from "react-router";

import { describeError } from "../../api/client";
import { Button } from "../../components/Button";
import { InlineError } from "../../components/States";
import type { SavedView } from "./api";
import { PRESETS } from "./presets";

interface SavedViewsProps {
  views: readonly SavedView[] | null;
  loadError: unknown;
  activeId: string | null;
  /** A link to a view: the page's path with `?view=<id>`. */
  linkTo(id: string): string;
  canWrite: boolean;
  onSave(name: string): Promise<void>;
  onRename(id: string, name: string): Promise<void>;
  onDelete(id: string): Promise<void>;
}

export function SavedViews({ views, loadError, activeId, linkTo, canWrite, onSave, onRename, onDelete }: SavedViewsProps) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const active = activeId ? (PRESETS.find((p) => p.id === activeId) ?? views?.find((v) => v.id === activeId)) : undefined;

  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (e) {
      setError(describeError(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() && (await run(() => onSave(name.trim())))) setName("");
  };
  const rename = async (event: FormEvent) => {
    event.preventDefault();
    if (renaming && renaming.name.trim() && (await run(() => onRename(renaming.id, renaming.name.trim())))) setRenaming(null);
  };

  return (
    <details className="popover">
      <summary className="button button--secondary button--sm">Views{active ? `: ${active.name}` : ""}</summary>
      <div className="popover__body saved-views">
        <h2 className="saved-views__title">Built-in</h2>
        <ul className="saved-views__list" aria-label="Built-in views">
          {PRESETS.map((p) => (
            <li key={p.id}>
              <Link to={linkTo(p.id)} aria-current={p.id === activeId ? "true" : undefined}>
                {p.name}
              </Link>
            </li>
          ))}
        </ul>
        <h2 className="saved-views__title">Saved</h2>
        {loadError ? (
          <InlineError>{describeError(loadError)}</InlineError>
        ) : views === null ? (
          <p className="muted">Loading…</p>
        ) : views.length === 0 ? (
          <p className="muted">No saved views yet.</p>
        ) : (
          <ul className="saved-views__list" aria-label="Saved views">
            {views.map((v) =>
              renaming?.id === v.id ? (
                <li key={v.id}>
                  <form className="saved-views__form" onSubmit={rename}>
                    <input
                      aria-label={`New name for ${v.name}`}
                      className="field__input"
                      maxLength={100}
                      value={renaming.name}
                      autoFocus
                      onChange={(e) => setRenaming({ id: v.id, name: e.target.value })}
                    />
                    <Button size="sm" type="submit" busy={busy}>
                      Save name
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => setRenaming(null)}>
                      Cancel
                    </Button>
                  </form>
                </li>
              ) : (
                <li key={v.id} className="saved-views__item">
                  <Link to={linkTo(v.id)} aria-current={v.id === activeId ? "true" : undefined}>
                    {v.name}
                  </Link>
                  {canWrite && (
                    <span className="saved-views__actions">
                      <Button size="sm" variant="ghost" aria-label={`Rename ${v.name}`} onClick={() => setRenaming({ id: v.id, name: v.name })}>
                        Rename
                      </Button>
                      <Button size="sm" variant="ghost" aria-label={`Delete ${v.name}`} onClick={() => void run(() => onDelete(v.id))}>
                        Delete
                      </Button>
                    </span>
                  )}
                </li>
              ),
            )}
          </ul>
        )}
        {canWrite && (
          <form className="saved-views__form" onSubmit={save}>
            <input
              aria-label="View name"
              className="field__input"
              placeholder="Name this view"
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <Button size="sm" variant="primary" type="submit" busy={busy} disabled={!name.trim()}>
              Save view
            </Button>
          </form>
        )}
        {error && <InlineError>{error}</InlineError>}
      </div>
    </details>
  );
}
