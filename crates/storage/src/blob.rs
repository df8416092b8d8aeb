//! Blob storage for raw ingested payloads: S3 (or any S3-compatible server) or a local directory.

use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, ObjectStoreExt};
use secrecy::ExposeSecret;

use domain::config::BlobSettings;

use crate::presign::Presigner;
use crate::{Error, ErrorKind, Result};

#[derive(Clone, Debug)]
pub struct BlobStore {
    store: Arc<dyn ObjectStore>,
    /// Where it points, for logs: `s3://bucket/prefix` or the directory.
    pub location: String,
    /// Signs URLs that reach the bucket directly; `None` for a local directory or an S3 store
    /// without static credentials, where web itself serves uploads and downloads.
    presigner: Option<Presigner>,
}

impl BlobStore {
    pub fn connect(settings: &BlobSettings) -> Result<Self> {
        match settings {
            BlobSettings::S3(s3) => {
                let mut builder = AmazonS3Builder::new()
                    .with_bucket_name(&s3.bucket)
                    .with_region(&s3.region)
                    .with_virtual_hosted_style_request(!s3.force_path_style);
                let plain_http = s3.endpoint.as_deref().is_some_and(|e| e.starts_with("http://"));
                if let Some(endpoint) = &s3.endpoint {
                    builder = builder.with_endpoint(endpoint).with_allow_http(plain_http);
                }
                // Over TLS the body is protected in transit, so requests are signed without
                // hashing it (`UNSIGNED-PAYLOAD`, as the AWS SDKs do over HTTPS): hashing every
                // accepted export cost web about a tenth of its CPU. Over plain HTTP the signature
                // still covers the body.
                builder = builder.with_unsigned_payload(!plain_http);
                if let (Some(key), Some(secret)) = (&s3.access_key_id, &s3.secret_access_key) {
                    builder = builder.with_access_key_id(key).with_secret_access_key(secret.expose_secret());
                }
                let store = builder
                    .build()
                    .map_err(|e| Error::with_source(ErrorKind::Internal, "invalid S3 settings", e))?;
                let location = format!("s3://{}/{}", s3.bucket, s3.prefix);
                let store: Arc<dyn ObjectStore> = if s3.prefix.is_empty() {
                    Arc::new(store)
                } else {
                    Arc::new(PrefixStore::new(store, s3.prefix.trim_end_matches('/')))
                };
                Ok(Self { store, location, presigner: Presigner::from_settings(s3) })
            }
            BlobSettings::LocalDir(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    Error::with_source(ErrorKind::Unavailable, format!("cannot create {}", dir.display()), e)
                })?;
                // Each object and its folder are synced to disk before a write returns: web
                // acknowledges a payload once its write returns, and an acknowledged payload must
                // survive a power loss, not only a crash of the process.
                let store = LocalFileSystem::new_with_prefix(dir)
                    .map_err(|e| Error::with_source(ErrorKind::Internal, "invalid local blob directory", e))?
                    .with_fsync(true);
                Ok(Self { store: Arc::new(store), location: dir.display().to_string(), presigner: None })
            }
        }
    }

    pub fn presigner(&self) -> Option<&Presigner> {
        self.presigner.as_ref()
    }

    pub fn store(&self) -> &Arc<dyn ObjectStore> {
        &self.store
    }

    /// Deletes every object under `prefix` (a folder, without its trailing slash) and returns how
    /// many there were. Deleting what is already gone is not an error, so a repeat is safe.
    pub async fn delete_under(&self, prefix: &str) -> Result<u64> {
        use futures::TryStreamExt;
        let unavailable =
            |e| Error::with_source(ErrorKind::Unavailable, format!("blob storage under {prefix}"), e);
        let prefix = Path::from(prefix);
        let mut listed = self.store.list(Some(&prefix));
        let mut deleted = 0;
        while let Some(object) = listed.try_next().await.map_err(unavailable)? {
            match self.store.delete(&object.location).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => deleted += 1,
                Err(e) => return Err(unavailable(e)),
            }
        }
        Ok(deleted)
    }

    /// Deletes the objects under `prefix` last written before `cutoff` (retention); returns how many.
    /// Payload folders are laid out by time (`<prefix>/<yyyy>/<mm>/<dd>/…`, `ingestion::accept`), so
    /// the walk does not enter a year, month or day after the cutoff's: a pass lists what it may
    /// delete and the cutoff's own day, not the whole window. A folder whose name is not a number
    /// is walked whole. A repeat finds nothing more, so it is safe to run again after a failure.
    pub async fn delete_older_than(
        &self,
        prefix: &str,
        cutoff: chrono::DateTime<chrono::Utc>,
    ) -> Result<u64> {
        use chrono::Datelike;
        let unavailable =
            |e| Error::with_source(ErrorKind::Unavailable, format!("blob storage under {prefix}"), e);
        let last = [cutoff.year().unsigned_abs(), cutoff.month(), cutoff.day()];
        // Each folder to list, with the date its path names so far (`None`: not laid out by date).
        let mut folders = vec![(Path::from(prefix), Some(Vec::<u32>::new()))];
        let mut deleted = 0;
        while let Some((folder, date)) = folders.pop() {
            let listing = self.store.list_with_delimiter(Some(&folder)).await.map_err(unavailable)?;
            for object in listing.objects.iter().filter(|o| o.last_modified < cutoff) {
                match self.store.delete(&object.location).await {
                    Ok(()) | Err(object_store::Error::NotFound { .. }) => deleted += 1,
                    Err(e) => return Err(unavailable(e)),
                }
            }
            for sub in listing.common_prefixes {
                let date = match (&date, sub.filename().map(str::parse::<u32>)) {
                    (Some(date), Some(Ok(part))) if date.len() < last.len() => {
                        let date = [date.as_slice(), &[part]].concat();
                        if date.as_slice() > &last[..date.len()] {
                            continue;
                        }
                        Some(date)
                    }
                    (Some(date), _) if date.len() >= last.len() => Some(date.clone()),
                    _ => None,
                };
                folders.push((sub, date));
            }
        }
        Ok(deleted)
    }

    /// Deletes one object by key; one already gone is not an error.
    pub async fn delete_key(&self, key: &str) -> Result<()> {
        match self.store.delete(&Path::from(key)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(Error::with_source(ErrorKind::Unavailable, format!("blob storage {key}"), e)),
        }
    }

    /// Health: the store answers a metadata request (a missing object is a fine answer).
    pub async fn check(&self) -> Result<()> {
        match self.store.head(&Path::from("loupe-health-check")).await {
            Ok(_) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(Error::with_source(ErrorKind::Unavailable, "blob storage", e)),
        }
    }
}
