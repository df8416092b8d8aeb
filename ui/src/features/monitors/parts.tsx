// Small pieces the monitors' list and page share: the state badge and the once-only secret dialog.

import { Button } from "../../components/Button";
import { Secret } from "../settings/ApiKeys";
import { Dialog } from "../settings/Dialog";
import type { MonitorState } from "./api";

export function StateBadge({ state, muted }: { state: MonitorState; muted: boolean }) {
  return (
    <span className="monitor-state">
      <span className={`monitor-badge monitor-badge--${state === "ALERTING" ? "alerting" : "ok"}`}>{state}</span>
      {muted && <span className="monitor-badge monitor-badge--muted">muted</span>}
    </span>
  );
}

/** The webhook secrets just saved: the only time they are shown (reads show `...abcd`). */
export function SecretDialog({ secrets, onDone }: { secrets: string[]; onDone(): void }) {
  return (
    <Dialog
      title="Monitor saved"
      onClose={onDone}
      actions={
        <Button variant="primary" onClick={onDone}>
          Done
        </Button>
      }
    >
      <p className="muted">
        Copy the signing secret now: it is stored encrypted and shown only this once. Your receiver checks each delivery's <code>X-Loupe-Signature</code> with it.
      </p>
      {secrets.map((s, i) => (
        <Secret key={s} label={secrets.length > 1 ? `Signing secret ${i + 1}` : "Signing secret"} value={s} />
      ))}
    </Dialog>
  );
}
