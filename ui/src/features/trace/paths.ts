// Where a trace opens on its own page.

/** `/project/{projectId}/traces/{traceId}`, with `?observation=` when one is selected. */
export function tracePath(projectId: string, traceId: string, observationId?: string): string {
  const base = `/project/${encodeURIComponent(projectId)}/traces/${encodeURIComponent(traceId)}`;
  return observationId ? `${base}?observation=${encodeURIComponent(observationId)}` : base;
}
