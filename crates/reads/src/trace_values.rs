//! The trace-level values of the events model, resolved across a trace's rows. Each row carries
//! what its own span said about the trace, and the spans arrive in any order, so the reads that
//! show a trace's name or tags (v2 observations' `trace_context`, the trace of a score in the v2
//! metrics) combine the rows with one spelling of the rule, written here.
//!
//! The name is the newest one a span stated, else the root's own. A root span without
//! `langfuse.trace.name` stores its own name as the trace name (the trace is named after its
//! root), so a root row whose trace name is its span name counts as unstated: either the root named
//! the trace after itself, or it stated the name it has anyway, and then a child's stated name
//! wins, as the later span does in upstream's v3 merge. The tags are the union of every row's,
//! sorted (upstream keeps a trace's tags as a sorted set).

/// The trace's name over the rows aggregated, `NULL` when no row names it; `$over` is `""` in a
/// `GROUP BY trace_id`, or a window (`" OVER w"`).
macro_rules! resolved_trace_name {
    ($over:literal) => {
        concat!(
            "coalesce(nullIf(argMaxIf(trace_name, event_ts, trace_name != '' AND NOT (parent_span_id = '' AND \
             trace_name = name))",
            $over,
            ", ''), nullIf(argMaxIf(trace_name, event_ts, trace_name != '')",
            $over,
            ", ''))"
        )
    };
}

/// The union of the trace's tags, sorted; `$over` as for [`resolved_trace_name`].
macro_rules! trace_tags {
    ($over:literal) => {
        concat!("arraySort(groupUniqArrayArray(tags)", $over, ")")
    };
}
