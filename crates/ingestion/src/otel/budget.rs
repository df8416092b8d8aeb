//! The byte budget of resource attributes. Conversion copies a resource's attributes into the
//! metadata of every one of its spans (`resourceAttributes.*`, reference/public-api.md §3), so a
//! large resource over many spans multiplies into far more than the body that carried it: 64 KiB
//! of attributes over the 250 000 smallest spans a 16 MiB body holds would be 16 GB of rows. Web
//! refuses such an export before accepting it, so the worker never converts one
//! (docs/limits.md, `LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES`).

use prost::Message;

use super::ExportTraceServiceRequest;
use super::error::DecodeError;

/// The bytes of resource attributes converting `request` copies into its spans: each resource's
/// attributes (their protobuf encoding, whatever the request was sent as) times its spans, summed.
/// Refused above `max_copied_bytes`, naming the resource that weighs most.
pub fn check_resource_budget(
    request: &ExportTraceServiceRequest,
    max_copied_bytes: usize,
) -> Result<(), DecodeError> {
    let (copied, heaviest) = copied_resource_bytes(request.resource_spans.iter().map(|resource_spans| {
        let attributes = resource_spans
            .resource
            .as_ref()
            .map_or(0, |resource| resource.attributes.iter().map(Message::encoded_len).sum());
        let spans = resource_spans.scope_spans.iter().map(|scope| scope.spans.len()).sum::<usize>();
        (attributes, spans)
    }));
    match heaviest {
        Some((index, attributes, spans)) if copied > max_copied_bytes => {
            Err(DecodeError::ResourceAttributesOverBudget {
                copied,
                limit: max_copied_bytes,
                index,
                attributes,
                spans,
            })
        }
        _ => Ok(()),
    }
}

/// From each resource's (attribute bytes, spans): the bytes copied in all, and the resource that
/// weighs most (index, attribute bytes, spans). Shared with web's check of an export it does not
/// build (`check`).
pub(super) fn copied_resource_bytes(
    resources: impl Iterator<Item = (usize, usize)>,
) -> (usize, Option<(usize, usize, usize)>) {
    let mut copied = 0usize;
    let mut heaviest: Option<(usize, usize, usize)> = None;
    for (index, (attributes, spans)) in resources.enumerate() {
        let weight = attributes.saturating_mul(spans);
        copied = copied.saturating_add(weight);
        if heaviest.is_none_or(|(_, bytes, count)| bytes.saturating_mul(count) < weight) {
            heaviest = Some((index, attributes, spans));
        }
    }
    (copied, heaviest)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use opentelemetry_proto::tonic::trace::v1::ResourceSpans;

    use super::*;
    use crate::otel::tests::build::{request, s, span};

    fn export(resource_value_bytes: usize, spans: usize) -> ExportTraceServiceRequest {
        let resource = vec![s("service.name", "svc"), s("host.blob", &"x".repeat(resource_value_bytes))];
        request(resource, "scope", (0..spans).map(|_| span("s", vec![])).collect())
    }

    fn attribute_bytes(request: &ExportTraceServiceRequest) -> usize {
        request.resource_spans[0].resource.as_ref().unwrap().attributes.iter().map(Message::encoded_len).sum()
    }

    #[test]
    fn the_budget_counts_each_resource_once_per_span() {
        let request = export(1000, 10);
        let copied = attribute_bytes(&request) * 10;
        assert!(check_resource_budget(&request, copied).is_ok(), "exactly the budget is allowed");
        let error = check_resource_budget(&request, copied - 1).unwrap_err();
        assert_eq!(
            error,
            DecodeError::ResourceAttributesOverBudget {
                copied,
                limit: copied - 1,
                index: 0,
                attributes: attribute_bytes(&request),
                spans: 10
            }
        );
        let message = error.to_string();
        assert!(message.contains("LANGFUSE_OTEL_RESOURCE_ATTRIBUTES_MAX_COPIED_BYTES"), "{message}");
        assert!(message.contains("resourceSpans[0]"), "{message}");
    }

    #[test]
    fn resources_add_up_and_the_heaviest_is_named() {
        let mut request = export(10, 1);
        let heavy: ResourceSpans = export(5000, 3).resource_spans.remove(0);
        request.resource_spans.push(heavy);
        let light = attribute_bytes(&request);
        let heavy_bytes = attribute_bytes(&ExportTraceServiceRequest {
            resource_spans: vec![request.resource_spans[1].clone()],
        });
        let total = light + heavy_bytes * 3;
        assert!(check_resource_budget(&request, total).is_ok());
        match check_resource_budget(&request, total - 1).unwrap_err() {
            DecodeError::ResourceAttributesOverBudget { copied, index, spans, .. } => {
                assert_eq!((copied, index, spans), (total, 1, 3));
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_resource_without_spans_or_spans_without_a_resource_copy_nothing() {
        assert!(check_resource_budget(&export(100_000, 0), 1).is_ok());
        let mut request = export(0, 5);
        request.resource_spans[0].resource = None;
        assert!(check_resource_budget(&request, 1).is_ok());
        assert!(check_resource_budget(&ExportTraceServiceRequest::default(), 1).is_ok());
    }
}
