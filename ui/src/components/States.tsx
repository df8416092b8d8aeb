// Loading, empty and error states: every page shows one of these instead of a blank area.

import type { ReactNode } from "react";

import { describeError, isApiError } from "../api/client";
import { Button } from "./Button";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div className="state state--loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

interface EmptyStateProps {
  title: string;
  children?: ReactNode;
  /** Buttons or links that get the person going. */
  actions?: ReactNode;
}

export function EmptyState({ title, children, actions }: EmptyStateProps) {
  return (
    <section className="state state--empty" aria-label={title}>
      <h2 className="state__title">{title}</h2>
      {children && <div className="state__body">{children}</div>}
      {actions && <div className="state__actions">{actions}</div>}
    </section>
  );
}

interface ErrorStateProps {
  error: unknown;
  title?: string;
  onRetry?: () => void;
}

export function ErrorState({ error, title, onRetry }: ErrorStateProps) {
  const heading =
    title ?? (isApiError(error, "network") ? "The server does not answer" : isApiError(error, "not-found") ? "Not found" : "Something went wrong");
  return (
    <section className="state state--error" role="alert">
      <h2 className="state__title">{heading}</h2>
      <p className="state__body">{describeError(error)}</p>
      {onRetry && (
        <div className="state__actions">
          <Button onClick={onRetry}>Try again</Button>
        </div>
      )}
    </section>
  );
}

/** An error inside a form, next to what caused it. */
export function InlineError({ children }: { children: ReactNode }) {
  return (
    <div className="inline-error" role="alert">
      {children}
    </div>
  );
}
