// What a page shows for a `useLoad` result: the error when nothing has loaded yet, a spinner until the
// first answer, then the content — with a notice above it when a later reload failed, since the
// content is then the last answer rather than the current one.

import type { ReactNode } from "react";

import { ErrorState, Loading } from "./States";
import type { Loaded } from "./useLoad";

interface LoadedViewProps<T> {
  result: Loaded<T>;
  /** The spinner's words, e.g. "Loading prompts…". */
  loadingLabel?: string;
  /** The error's heading when the first load fails. */
  errorTitle?: string;
  children(data: NonNullable<T>): ReactNode;
}

export function LoadedView<T>({ result, loadingLabel, errorTitle, children }: LoadedViewProps<T>) {
  const data = result.data;
  if (data === undefined || data === null) {
    if (result.error !== undefined) return <ErrorState error={result.error} title={errorTitle} onRetry={result.reload} />;
    return <Loading label={loadingLabel} />;
  }
  return (
    <>
      {result.error !== undefined && (
        <p className="inline-error" role="alert">
          This could not be refreshed; it shows the last answer.
        </p>
      )}
      {children(data)}
    </>
  );
}
