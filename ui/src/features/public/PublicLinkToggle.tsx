// The "Public link" switch of a trace or a session: MEMBER and above turn it on (the page
// /public/{token} then opens for anyone holding the address) and off (the address answers 404 at
// once). A VIEWER sees the address when there is one, and no switch.

import { useMemo, useState } from "react";

import { describeError } from "../../api/client";
import { linkApi, publicPagePath, type LinkKind, type LinkState } from "../../api/publicLinks";
import { useLoad } from "../trace/useLoad";
import "./public.css";

export interface PublicLinkToggleProps {
  projectId: string;
  kind: LinkKind;
  targetId: string;
  canWrite: boolean;
}

export function PublicLinkToggle({ projectId, kind, targetId, canWrite }: PublicLinkToggleProps) {
  const api = useMemo(() => linkApi(projectId), [projectId]);
  const [loaded] = useLoad(() => api.state(kind, targetId), [api, kind, targetId]);
  const [changed, setChanged] = useState<LinkState | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const state = changed ?? (loaded.status === "done" ? loaded.data : null);
  if (!state) return null;
  const address = state.token ? `${location.origin}${publicPagePath(state.token)}` : null;
  if (!canWrite && !address) return null;

  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      setChanged(state.public ? await api.revoke(kind, targetId) : await api.enable(kind, targetId));
      setCopied(false);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="public-link">
      {canWrite && (
        <label className="public-link__switch">
          <input type="checkbox" role="switch" checked={state.public} disabled={busy} onChange={() => void toggle()} />
          <span>Public link</span>
        </label>
      )}
      {address && (
        <span className="public-link__address">
          <a href={address} target="_blank" rel="noreferrer" className="mono" aria-label="Public address">
            {publicPagePath(state.token as string)}
          </a>
          <button
            type="button"
            className="button button--ghost button--sm"
            onClick={() => void navigator.clipboard?.writeText(address).then(() => setCopied(true))}
          >
            {copied ? "Copied" : "Copy"}
          </button>
        </span>
      )}
      {error && (
        <span className="public-link__error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
