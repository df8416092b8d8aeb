// The **v4 preview** toggle in the header: in write mode `dual` with the preview opt-in
// (`me.instance.previewToggle`), each person switches their views between the v3 tabs and the one
// v4 Observations view. Stored per person (`PUT /api/ui/me/preferences {"v4Preview"}`); `me` is
// loaded again so every page follows (`me.views`).

import { useState } from "react";

import "./switch.css";

import { describeError } from "../../api/client";
import { ui } from "../../api/ui";
import { useMe, useSession } from "../../app/session";

export function PreviewToggle() {
  const me = useMe();
  const { refresh } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!me.instance?.previewToggle) return null;
  const on = me.views === "v4";
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      await ui.savePreferences({ v4Preview: !on });
      await refresh();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <label className="switch preview-toggle" title={error ?? "Show the v4 views (one Observations view over the events)"}>
      <input type="checkbox" role="switch" checked={on} disabled={busy} aria-invalid={error ? true : undefined} onChange={() => void toggle()} />
      v4 preview
    </label>
  );
}
