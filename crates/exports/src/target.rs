//! The customer's bucket: S3 (AWS), S3-compatible (an endpoint, path-style when asked) or an
//! Azure Blob container, through object_store; and the streamed upload of one file as a multipart
//! upload (S3) or block list (Azure), which becomes visible only when completed — a crashed run
//! leaves no partial object behind.

use std::sync::Arc;

use domain::outbound::OutboundPolicy;
use object_store::aws::AmazonS3Builder;
use object_store::azure::MicrosoftAzureBuilder;
use object_store::path::Path;
use object_store::{
    Attribute, Attributes, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutPayload, WriteMultipart,
};

use outbound::GuardedConnector;

use crate::model::TargetType;
use crate::{Error, Result};

/// Bytes per uploaded part (S3 wants at least 5 MiB for every part but the last).
pub const PART_BYTES: usize = 8 * 1024 * 1024;
/// Parts in flight at once; with the part being filled this bounds an upload's memory to about
/// three parts.
const PARTS_IN_FLIGHT: usize = 2;

/// Where to write, with the secret decrypted.
#[derive(Clone)]
pub struct TargetSettings {
    pub kind: TargetType,
    pub bucket: String,
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: Option<String>,
    pub secret: Option<String>,
    pub force_path_style: bool,
}

impl std::fmt::Debug for TargetSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TargetSettings")
            .field("kind", &self.kind)
            .field("bucket", &self.bucket)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

/// The store for a target, through a client that keeps to the outbound policy
/// (`LANGFUSE_OUTBOUND_ALLOWED_HOSTS`, docs/outbound.md): an address written in the endpoint is
/// refused here, every address a name resolves to at each connection, and each redirect.
pub fn connect(settings: &TargetSettings, policy: &OutboundPolicy) -> Result<Arc<dyn ObjectStore>> {
    let invalid = |e: object_store::Error| Error::bad_request(format!("Invalid blob storage settings: {e}"));
    if let Some(endpoint) = &settings.endpoint {
        outbound::check_url(policy, endpoint).map_err(|e| Error::bad_request(format!("endpoint: {e}")))?;
    }
    let connector = GuardedConnector::new(policy.clone());
    let plain_http = settings.endpoint.as_deref().is_some_and(|e| e.starts_with("http://"));
    match settings.kind {
        TargetType::S3 | TargetType::S3Compatible => {
            let mut builder = AmazonS3Builder::new()
                .with_bucket_name(&settings.bucket)
                .with_region(&settings.region)
                .with_virtual_hosted_style_request(!settings.force_path_style)
                .with_http_connector(connector);
            if let Some(endpoint) = &settings.endpoint {
                builder = builder.with_endpoint(endpoint).with_allow_http(plain_http);
            }
            if let (Some(key), Some(secret)) = (&settings.access_key_id, &settings.secret) {
                builder = builder.with_access_key_id(key).with_secret_access_key(secret);
            }
            Ok(Arc::new(builder.build().map_err(invalid)?))
        }
        TargetType::AzureBlobStorage => {
            // Langfuse's convention: the access key id is the storage account's name, the secret
            // its account key; an endpoint (Azurite, a sovereign cloud) replaces the public one.
            let mut builder = MicrosoftAzureBuilder::new()
                .with_container_name(&settings.bucket)
                .with_http_connector(connector);
            if let Some(account) = &settings.access_key_id {
                builder = builder.with_account(account);
            }
            if let Some(secret) = &settings.secret {
                builder = builder.with_access_key(secret);
            }
            if let Some(endpoint) = &settings.endpoint {
                builder = builder.with_endpoint(endpoint.clone()).with_allow_http(plain_http);
            }
            Ok(Arc::new(builder.build().map_err(invalid)?))
        }
        TargetType::GoogleCloudStorage => Err(Error::bad_request(
            "GOOGLE_CLOUD_STORAGE is not supported; use S3, S3_COMPATIBLE or AZURE_BLOB_STORAGE",
        )),
    }
}

/// The check a PUT makes before saving: a small object written under the prefix, so wrong
/// credentials or a missing bucket are a 400 now rather than an error at the first export.
pub async fn check(store: &dyn ObjectStore, prefix: &str) -> Result<()> {
    let path = Path::from(format!("{prefix}loupe-connection-check.txt"));
    store.put(&path, PutPayload::from_static(b"Loupe can write here.\n")).await.map_err(|e| {
        Error::bad_request(format!("Could not write to the bucket: {}", outbound::describe_chain(&e)))
    })?;
    Ok(())
}

/// One file being uploaded: bytes go in as the writer produces them and leave in parts.
pub struct Upload {
    inner: WriteMultipart,
}

impl Upload {
    pub async fn start(store: &dyn ObjectStore, name: &str, content_type: &'static str) -> Result<Self> {
        let options = PutMultipartOptions {
            attributes: Attributes::from_iter([(
                Attribute::ContentType,
                object_store::AttributeValue::from(content_type),
            )]),
            ..Default::default()
        };
        let upload = store.put_multipart_opts(&Path::from(name), options).await?;
        Ok(Self { inner: WriteMultipart::new_with_chunk_size(upload, PART_BYTES) })
    }

    /// Queues bytes; waits while too many parts are in flight, so memory stays bounded whatever
    /// the file's size.
    pub async fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.inner.wait_for_capacity(PARTS_IN_FLIGHT).await?;
        self.inner.write(bytes);
        Ok(())
    }

    /// Completes the upload: only now does the object exist under its name.
    pub async fn finish(self) -> Result<()> {
        self.inner.finish().await?;
        Ok(())
    }

    pub async fn abort(self) {
        if let Err(error) = self.inner.abort().await {
            tracing::debug!(%error, "aborting an export upload");
        }
    }
}
