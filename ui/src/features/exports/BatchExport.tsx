// The Observations view's "Export" action: a one-off file of the rows the view lists (its filters,
// search and time range) in the chosen format, written by the worker (`/api/public/batch-exports`,
// docs/exports.md). The dialog follows the export's progress until it ends (its download link, or
// why it failed).

import { useState } from "react";

import { describeError } from "../../api/client";
import { useProject } from "../../app/project";
import { Button } from "../../components/Button";
import { formatCount } from "../../components/format";
import { InlineError } from "../../components/States";
import { TextField } from "../../components/TextField";
import { usePollWhile } from "../../components/usePollWhile";
import type { ViewState } from "../observations/state";
import { Dialog } from "../settings/Dialog";
import { useAction } from "../settings/useAction";
import { exportsApi, FILE_TYPES, type BatchExport, type BatchStatus, type FileType } from "./api";
import { batchRequest, cannotExport } from "./batch";
import "./exports.css";

/** The states an export ends in; the dialog stops asking for progress there. */
const ENDED: readonly BatchStatus[] = ["COMPLETED", "FAILED"];

function Progress({ batch }: { batch: BatchExport }) {
  if (batch.status === "FAILED") return <InlineError>The export failed: {batch.error ?? "no reason given"}</InlineError>;
  if (batch.status === "COMPLETED")
    return (
      <div className="export-progress" role="status">
        <span>Done: {formatCount(batch.rowsExported)} observations.</span>
        {batch.url ? (
          <a className="button button--primary button--md" href={batch.url} download>
            Download {batch.fileType}
          </a>
        ) : (
          <span className="muted">This server keeps files on its own disk, so there is no download link.</span>
        )}
      </div>
    );
  return (
    <div className="export-progress" role="status">
      <span className="spinner spinner--inline" aria-hidden="true" />
      {batch.status === "QUEUED" ? "Waiting for the worker…" : `Exporting… ${formatCount(batch.rowsExported)} observations so far`}
    </div>
  );
}

function ExportDialog({ state, onClose }: { state: ViewState; onClose(): void }) {
  const { api } = useProject();
  const client = exportsApi(api);
  const [fileType, setFileType] = useState<FileType>("CSV");
  const [name, setName] = useState("");
  const [compressed, setCompressed] = useState(true);
  const [batch, setBatch] = useState<BatchExport | null>(null);
  const action = useAction();
  const blocked = cannotExport(state);

  // Progress while it runs: often at first, then less and less often (usePollWhile's backoff).
  const pollError = usePollWhile(batch, (b) => !ENDED.includes(b.status), (signal) => client.batch(batch?.id ?? "", signal), setBatch);

  const start = async () => {
    const created = await action.run(() => client.createBatch({ ...batchRequest(state, fileType, name, Date.now()), compressed: compressed && fileType !== "PARQUET" }));
    if (created) setBatch(created);
  };

  return (
    <Dialog
      title="Export observations"
      onClose={onClose}
      actions={
        <>
          <Button onClick={onClose}>{batch ? "Close" : "Cancel"}</Button>
          {!batch && (
            <Button variant="primary" busy={action.busy} disabled={blocked !== null} onClick={() => void start()}>
              Start export
            </Button>
          )}
        </>
      }
    >
      <p className="muted">A file of every observation this view lists — its filters, search and time range — with all their fields.</p>
      {blocked && <InlineError>{blocked}</InlineError>}
      {!batch && (
        <div className="settings-row">
          <div className="field">
            <label className="field__label" htmlFor="batch-export-type">
              File type
            </label>
            <select id="batch-export-type" className="field__input" value={fileType} onChange={(e) => setFileType(e.target.value as FileType)}>
              {FILE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <TextField label="Name (optional)" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          <label className="check export-check">
            <input type="checkbox" checked={compressed && fileType !== "PARQUET"} disabled={fileType === "PARQUET"} onChange={(e) => setCompressed(e.target.checked)} />
            gzip
          </label>
        </div>
      )}
      {action.error !== undefined && <InlineError>{describeError(action.error)}</InlineError>}
      {batch && <Progress batch={batch} />}
      {pollError !== undefined && <p className="muted">Progress could not be read ({describeError(pollError)}); trying again.</p>}
    </Dialog>
  );
}

/** The toolbar button; shown to MEMBER and above (the server refuses a VIEWER with 403). */
export function BatchExportButton({ state }: { state: ViewState }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button size="sm" onClick={() => setOpen(true)}>
        Export
      </Button>
      {open && <ExportDialog state={state} onClose={() => setOpen(false)} />}
    </>
  );
}
