//! Presigned S3 URLs (AWS Signature Version 4, query-string form), so SDKs upload media straight
//! to the bucket and readers download it without Loupe in the data path.
//!
//! object_store can presign too, but signs the `host` header only; an upload URL must also sign
//! `content-type` and `x-amz-checksum-sha256`, so the bucket itself refuses bytes that are not
//! the announced content (the SDKs send both headers).

use std::time::Duration;

use chrono::{DateTime, Utc};
use ring::hmac;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use domain::config::S3Settings;

/// Everything needed to sign URLs for one bucket with static credentials.
#[derive(Clone)]
pub struct Presigner {
    scheme: String,
    host: String,
    /// Path before the key: `/bucket` in path style, empty in virtual-hosted style.
    base_path: String,
    prefix: String,
    region: String,
    access_key_id: String,
    secret_access_key: SecretString,
}

impl std::fmt::Debug for Presigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Presigner({}://{}{})", self.scheme, self.host, self.base_path)
    }
}

/// RFC 3986 unreserved characters stay; everything else is %-encoded (SigV4's URI encoding, and a
/// safe query value anywhere).
pub fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Whether a browser that opened content of this type would run it as a page in the origin
/// serving it (HTML, SVG, XML documents), or as script.
pub fn is_active(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "text/html"
            | "image/svg+xml"
            | "application/xhtml+xml"
            | "application/xml"
            | "text/xml"
            | "application/javascript"
            | "text/javascript"
    )
}

fn hmac_sha256(key: &[u8], data: &str) -> Vec<u8> {
    hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data.as_bytes()).as_ref().to_vec()
}

impl Presigner {
    /// `None` without static credentials (the AWS default chain cannot be used to presign here).
    pub fn from_settings(s3: &S3Settings) -> Option<Self> {
        let (access_key_id, secret_access_key) = (s3.access_key_id.clone()?, s3.secret_access_key.clone()?);
        let (scheme, host) = match &s3.endpoint {
            Some(endpoint) => {
                let (scheme, rest) = endpoint.split_once("://").unwrap_or(("https", endpoint));
                (scheme.to_owned(), rest.trim_end_matches('/').to_owned())
            }
            None => ("https".to_owned(), format!("s3.{}.amazonaws.com", s3.region)),
        };
        let (host, base_path) = if s3.force_path_style {
            (host, format!("/{}", encode(&s3.bucket, false)))
        } else {
            (format!("{}.{host}", s3.bucket), String::new())
        };
        let prefix = s3.prefix.trim_end_matches('/');
        Some(Self {
            scheme,
            host,
            base_path,
            prefix: if prefix.is_empty() { String::new() } else { format!("{prefix}/") },
            region: s3.region.clone(),
            access_key_id,
            secret_access_key,
        })
    }

    /// A URL that lets its holder `PUT` exactly this content at `key` until it expires.
    pub fn upload_url(
        &self,
        key: &str,
        content_type: &str,
        sha256_base64: &str,
        expires_in: Duration,
        now: DateTime<Utc>,
    ) -> String {
        let headers = [("content-type", content_type), ("x-amz-checksum-sha256", sha256_base64)];
        self.sign("PUT", key, &headers, &[], expires_in, now)
    }

    /// A URL that lets its holder `GET` `key` until it expires, answered as a download: the
    /// signed `response-content-disposition=attachment` makes the bucket send
    /// `Content-Disposition: attachment`, and `response-content-type` the announced type, or
    /// `application/octet-stream` for a type a browser would run as a page ([`is_active`]). A
    /// bucket's GET cannot be made to send `X-Content-Type-Options: nosniff`; a download is not
    /// rendered, so there is nothing to sniff.
    pub fn download_url(
        &self,
        key: &str,
        content_type: &str,
        expires_in: Duration,
        now: DateTime<Utc>,
    ) -> String {
        let served = if is_active(content_type) { "application/octet-stream" } else { content_type };
        let query = [("response-content-disposition", "attachment"), ("response-content-type", served)];
        self.sign("GET", key, &[], &query, expires_in, now)
    }

    /// `extra_headers` must be lowercase and sort after nothing in particular; `host` is added.
    /// `extra_query` joins the signed query string (S3's `response-*` overrides).
    fn sign(
        &self,
        method: &str,
        key: &str,
        extra_headers: &[(&str, &str)],
        extra_query: &[(&str, &str)],
        expires_in: Duration,
        now: DateTime<Utc>,
    ) -> String {
        let date = now.format("%Y%m%d").to_string();
        let timestamp = now.format("%Y%m%dT%H%M%SZ").to_string();
        let scope = format!("{date}/{}/s3/aws4_request", self.region);
        let path = format!("{}/{}", self.base_path, encode(&format!("{}{key}", self.prefix), true));

        let mut headers: Vec<(&str, &str)> = extra_headers.to_vec();
        headers.push(("host", &self.host));
        headers.sort_unstable();
        let signed_headers = headers.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(";");
        let canonical_headers: String =
            headers.iter().map(|(name, value)| format!("{name}:{}\n", value.trim())).collect();

        let credential = format!("{}/{scope}", self.access_key_id);
        let expires = expires_in.as_secs().clamp(1, 604_800).to_string();
        let mut query = [
            ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
            ("X-Amz-Credential", credential.as_str()),
            ("X-Amz-Date", timestamp.as_str()),
            ("X-Amz-Expires", expires.as_str()),
            ("X-Amz-SignedHeaders", signed_headers.as_str()),
        ]
        .iter()
        .chain(extra_query)
        .map(|(name, value)| format!("{}={}", encode(name, false), encode(value, false)))
        .collect::<Vec<_>>();
        query.sort_unstable();
        let query = query.join("&");

        let canonical_request =
            format!("{method}\n{path}\n{query}\n{canonical_headers}\n{signed_headers}\nUNSIGNED-PAYLOAD");
        let string_to_sign = format!(
            "AWS4-HMAC-SHA256\n{timestamp}\n{scope}\n{}",
            hex::encode(Sha256::digest(canonical_request.as_bytes()))
        );
        let secret = format!("AWS4{}", self.secret_access_key.expose_secret());
        let signing_key = ["s3", "aws4_request"]
            .iter()
            .fold(hmac_sha256(&hmac_sha256(secret.as_bytes(), &date), &self.region), |key, part| {
                hmac_sha256(&key, part)
            });
        let signature = hex::encode(hmac_sha256(&signing_key, &string_to_sign));
        format!("{}://{}{path}?{query}&X-Amz-Signature={signature}", self.scheme, self.host)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of AWS's "Authenticating Requests: Using Query Parameters" page: GET
    /// `examplebucket/test.txt`, 24 h, with its published signature.
    #[test]
    fn matches_the_published_aws_example() {
        let settings = S3Settings {
            bucket: "examplebucket".into(),
            region: "us-east-1".into(),
            endpoint: None,
            access_key_id: Some("AKIAIOSFODNN7EXAMPLE".into()),
            secret_access_key: Some("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned().into()),
            force_path_style: false,
            prefix: String::new(),
        };
        let mut presigner = Presigner::from_settings(&settings).unwrap();
        presigner.host = "examplebucket.s3.amazonaws.com".into();
        let now = DateTime::parse_from_rfc3339("2013-05-24T00:00:00Z").unwrap().with_timezone(&Utc);
        let url = presigner.sign("GET", "test.txt", &[], &[], Duration::from_secs(86_400), now);
        assert!(
            url.ends_with("X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"),
            "{url}"
        );
        assert!(
            url.starts_with(
                "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            )
        );
    }

    #[test]
    fn pages_and_scripts_are_active_other_types_are_not() {
        for active in
            ["text/html", "TEXT/HTML; charset=utf-8", "image/svg+xml", "application/xml", "text/javascript"]
        {
            assert!(is_active(active), "{active}");
        }
        for inert in ["image/png", "text/plain", "application/pdf", "application/json", "text/csv"] {
            assert!(!is_active(inert), "{inert}");
        }
    }

    #[test]
    fn path_style_and_prefix_shape_the_path() {
        let settings = S3Settings {
            bucket: "loupe".into(),
            region: "us-east-1".into(),
            endpoint: Some("http://127.0.0.1:9000".into()),
            access_key_id: Some("k".into()),
            secret_access_key: Some("s".to_owned().into()),
            force_path_style: true,
            prefix: "events/".into(),
        };
        let presigner = Presigner::from_settings(&settings).unwrap();
        let url =
            presigner.upload_url("media/p 1/x.png", "image/png", "abc=", Duration::from_secs(60), Utc::now());
        assert!(url.starts_with("http://127.0.0.1:9000/loupe/events/media/p%201/x.png?"), "{url}");
        assert!(url.contains("X-Amz-SignedHeaders=content-type%3Bhost%3Bx-amz-checksum-sha256"), "{url}");
        let download =
            presigner.download_url("media/x.svg", "image/svg+xml", Duration::from_secs(60), Utc::now());
        assert!(
            download.contains(
                "&response-content-disposition=attachment&response-content-type=application%2Foctet-stream&"
            ),
            "{download}"
        );
        let png = presigner.download_url("media/x.png", "image/png", Duration::from_secs(60), Utc::now());
        assert!(png.contains("&response-content-type=image%2Fpng&X-Amz-Signature="), "{png}");
        let no_keys = S3Settings { access_key_id: None, ..settings };
        assert!(Presigner::from_settings(&no_keys).is_none());
    }
}
