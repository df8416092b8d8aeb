// The trace panel: the contract with the pages that open it (Observations, Sessions).
//
// `TracePanel` shows one trace: its tree (every observation, virtualized, with a timeline bar per
// node) and the selected observation's detail (input, output, metadata, usage and cost, scores and
// comments). The host owns the selection (keep it in the URL: `?trace=<traceId>&observation=<id>`)
// and closing. While the panel is open it owns the keys j/k (next/previous tree node) and Esc
// (`onClose`), taken in the capture phase so the host's own j/k do not also fire; keys typed into a
// field are left alone.
//
// Deep links: `/project/{projectId}/traces/{traceId}?observation=<id>` shows the same panel full-width.

export { TracePanel, type TracePanelProps } from "./TracePanel";
export { tracePath } from "./paths";
