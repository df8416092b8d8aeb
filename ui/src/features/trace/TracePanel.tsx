// The trace panel (see index.ts for the contract with its hosts).

import { Button } from "../../components/Button";

export interface TracePanelProps {
  projectId: string;
  traceId: string;
  observationId?: string;
  onSelectObservation(id: string): void;
  onClose(): void;
}

export function TracePanel({ traceId, onClose }: TracePanelProps) {
  return (
    <section className="trace-panel" aria-label={`Trace ${traceId}`}>
      <header className="trace-panel__header">
        <h2>Trace {traceId}</h2>
        <Button variant="ghost" onClick={onClose} aria-label="Close">
          ×
        </Button>
      </header>
    </section>
  );
}
