// Where the trace panel (ui/src/features/trace, built by its own engineer) opens. Until that lands
// on main this is a minimal stand-in with the same props; the page imports only this file, so the
// swap is one line.

import { Button } from "../../components/Button";

export interface TracePanelProps {
  projectId: string;
  traceId: string;
  observationId?: string;
  onSelectObservation(id: string): void;
  onClose(): void;
}

export function TracePanel({ traceId, observationId, onClose }: TracePanelProps) {
  return (
    <section className="trace-panel" aria-label={`Trace ${traceId}`}>
      <header className="trace-panel__header">
        <h2>Trace {traceId}</h2>
        <Button variant="ghost" onClick={onClose} aria-label="Close">
          ×
        </Button>
      </header>
      {observationId && (
        <p className="muted">
          Observation <code>{observationId}</code>
        </p>
      )}
    </section>
  );
}
