// Where the trace panel opens beside the table: the trace feature's panel, re-exported so the page
// depends on one local name.
export { TracePanel, type TracePanelProps } from "../trace";
