//! What a media upload announces: its content type (the SDKs' enum), its SHA-256 and the id
//! derived from it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::{Error, Result};

/// The content types the SDKs may announce (`MediaContentType`).
pub const CONTENT_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/jpg",
    "image/webp",
    "image/gif",
    "image/svg+xml",
    "image/tiff",
    "image/bmp",
    "image/avif",
    "image/heic",
    "audio/mpeg",
    "audio/mp3",
    "audio/wav",
    "audio/ogg",
    "audio/oga",
    "audio/aac",
    "audio/mp4",
    "audio/flac",
    "audio/opus",
    "audio/webm",
    "video/mp4",
    "video/webm",
    "video/ogg",
    "video/mpeg",
    "video/quicktime",
    "video/x-msvideo",
    "video/x-matroska",
    "text/plain",
    "text/html",
    "text/css",
    "text/csv",
    "text/markdown",
    "text/x-python",
    "application/javascript",
    "text/x-typescript",
    "application/x-yaml",
    "application/pdf",
    "application/msword",
    "application/vnd.ms-excel",
    "application/zip",
    "application/json",
    "application/xml",
    "application/octet-stream",
    "application/rtf",
    "application/x-ndjson",
    "application/vnd.apache.parquet",
    "application/gzip",
    "application/x-tar",
    "application/x-7z-compressed",
];

pub fn check_content_type(content_type: &str) -> Result<()> {
    if CONTENT_TYPES.contains(&content_type) {
        Ok(())
    } else {
        Err(Error::bad_request(format!("Unsupported content type `{content_type}`")))
    }
}

/// The media id the SDKs compute and compare: the first 22 characters of the URL-safe base64
/// SHA-256. Refuses a hash that is not base64 of 32 bytes.
pub fn media_id(sha256_base64: &str) -> Result<String> {
    let digest =
        STANDARD.decode(sha256_base64).ok().filter(|digest| digest.len() == 32).ok_or_else(|| {
            Error::bad_request("`sha256Hash` must be the base64 SHA-256 of the content (32 bytes)")
        })?;
    let url_safe = STANDARD.encode(digest).replace('+', "-").replace('/', "_");
    Ok(url_safe[..22].to_owned())
}

/// The blob key of a media object: per project, named by id, with an extension for people
/// browsing the bucket.
pub fn blob_key(project: &str, media_id: &str, content_type: &str) -> String {
    let subtype = content_type.rsplit('/').next().unwrap_or("bin");
    let extension: String =
        subtype.split('+').next().unwrap_or(subtype).chars().filter(char::is_ascii_alphanumeric).collect();
    format!("media/{project}/{media_id}.{extension}")
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn the_id_is_the_first_22_url_safe_characters_of_the_hash() {
        let hash = STANDARD.encode(Sha256::digest(b"hello media"));
        let id = media_id(&hash).unwrap();
        assert_eq!(id.len(), 22);
        assert_eq!(id, hash.replace('+', "-").replace('/', "_")[..22]);
        assert!(media_id("not base64").is_err());
        assert!(media_id(&STANDARD.encode(b"short")).is_err());
    }

    #[test]
    fn keys_and_types() {
        assert_eq!(blob_key("p", "abc", "image/svg+xml"), "media/p/abc.svg");
        assert_eq!(blob_key("p", "abc", "application/vnd.apache.parquet"), "media/p/abc.vndapacheparquet");
        assert!(check_content_type("image/png").is_ok());
        assert!(check_content_type("image/x-unknown").is_err());
    }
}
