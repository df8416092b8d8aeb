//! The payloads of a read of stream entries: carried in the entries, or read from blob storage.
//!
//! web writes payloads accepted together into one blob (`accept::group_commit`), so entries read
//! together often share one. Each blob is read once per read of entries, and only the span of it
//! those entries need, so memory stays bounded by the entries at hand, not by the blob's size.

use std::collections::HashMap;

use bytes::Bytes;
use futures::StreamExt;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use storage::blob::BlobStore;
use storage::queue::{BlobPart, Delivery, IngestionJob};

use super::ProcessError;

/// Each delivery's job with its payload, in the deliveries' order; a delivery whose job did not
/// decode gets that as a permanent error.
pub async fn payloads(
    blobs: &BlobStore,
    deliveries: &[Delivery],
    concurrency: usize,
) -> Vec<Result<(IngestionJob, Bytes), ProcessError>> {
    let mut wanted: HashMap<String, Vec<(usize, Option<BlobPart>)>> = HashMap::new();
    for (index, delivery) in deliveries.iter().enumerate() {
        if let (Ok(job), None) = (&delivery.job, &delivery.payload) {
            wanted.entry(job.blob_key.clone()).or_default().push((index, job.part));
        }
    }
    let mut read: HashMap<usize, Result<Bytes, ProcessError>> = futures::stream::iter(wanted)
        .map(|(key, parts)| async move {
            let ranges: Vec<Option<BlobPart>> = parts.iter().map(|(_, part)| *part).collect();
            let results = read_parts(blobs, &key, &ranges).await;
            parts.into_iter().map(|(index, _)| index).zip(results).collect::<Vec<_>>()
        })
        .buffer_unordered(concurrency)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .flatten()
        .collect();
    deliveries
        .iter()
        .enumerate()
        .map(|(index, delivery)| {
            let job =
                delivery.job.clone().map_err(|unreadable| ProcessError::Permanent(unreadable.reason))?;
            if let Some(payload) = &delivery.payload {
                return Ok((job, payload.clone()));
            }
            // Every decoded job's blob was asked for above; a miss would be a bug here, retried.
            let payload = read
                .remove(&index)
                .unwrap_or_else(|| Err(ProcessError::Transient(format!("{} was not read", job.blob_key))))?;
            Ok((job, payload))
        })
        .collect()
}

/// Reads the given parts of one blob with one request: the whole blob when some entry wants all
/// of it (entries from before group commit), else the range from the first part to the last.
async fn read_parts(
    blobs: &BlobStore,
    key: &str,
    parts: &[Option<BlobPart>],
) -> Vec<Result<Bytes, ProcessError>> {
    let location = Path::from(key);
    let ranges: Option<Vec<BlobPart>> = parts.iter().copied().collect();
    let span = ranges.as_ref().map(|ranges| {
        let start = ranges.iter().map(|p| p.offset).min().unwrap_or(0);
        let end = ranges.iter().map(BlobPart::end).max().unwrap_or(0);
        start..end
    });
    let read = match &span {
        Some(span) => blobs.store().get_range(&location, span.clone()).await,
        None => match blobs.store().get(&location).await {
            Ok(object) => object.bytes().await,
            Err(e) => Err(e),
        },
    };
    let bytes = match read {
        Ok(bytes) => bytes,
        Err(object_store::Error::NotFound { .. }) => {
            let reason = format!("payload {key} is missing from blob storage");
            return parts.iter().map(|_| Err(ProcessError::Permanent(reason.clone()))).collect();
        }
        Err(e) => {
            let reason = format!("blob read: {e}");
            return parts.iter().map(|_| Err(ProcessError::Transient(reason.clone()))).collect();
        }
    };
    let base = span.map_or(0, |span| span.start);
    parts.iter().map(|part| slice(&bytes, base, *part, key)).collect()
}

/// The part of `bytes` (which starts at blob offset `base`) that `part` names.
fn slice(bytes: &Bytes, base: u64, part: Option<BlobPart>, key: &str) -> Result<Bytes, ProcessError> {
    let Some(part) = part else { return Ok(bytes.clone()) };
    let start = (part.offset - base) as usize;
    let end = start + part.len as usize;
    if end > bytes.len() {
        return Err(ProcessError::Permanent(format!(
            "payload {key} is shorter than its stream entry says ({} bytes, part ends at {})",
            base as usize + bytes.len(),
            part.end()
        )));
    }
    Ok(bytes.slice(start..end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_cut_relative_to_the_range_read() {
        let read = Bytes::from_static(b"bbbccc");
        let part = |offset, len| Some(BlobPart { offset, len });
        assert_eq!(slice(&read, 10, part(13, 3), "k").unwrap().as_ref(), b"ccc");
        assert_eq!(slice(&read, 10, part(10, 3), "k").unwrap().as_ref(), b"bbb");
        assert_eq!(slice(&read, 0, None, "k").unwrap().as_ref(), b"bbbccc");
        let short = slice(&read, 10, part(14, 3), "k").unwrap_err();
        assert!(matches!(short, ProcessError::Permanent(ref m) if m.contains("shorter")), "{short:?}");
    }
}
