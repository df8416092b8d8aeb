//! Signed, expiring tokens for web's own media upload and download URLs (used when the blob store
//! cannot presign: a local directory, or S3 without static credentials). The URL itself is the
//! credential, as a presigned S3 URL is, so the SDK's plain `PUT` needs no API key.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::hmac;
use secrecy::{ExposeSecret, SecretString};

use reads::Params;

use crate::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Upload,
    Download,
}

impl Access {
    fn as_str(self) -> &'static str {
        match self {
            Self::Upload => "upload",
            Self::Download => "download",
        }
    }
}

pub struct TokenSigner {
    key: hmac::Key,
}

impl TokenSigner {
    /// Keyed by the deployment's `SALT` and its generated media URL key
    /// (`storage::instance_secrets::MEDIA_URL_KEY`): tokens of one deployment mean nothing to
    /// another, and a `SALT` left empty or at a documented placeholder does not make them forgeable.
    pub fn new(salt: &SecretString, instance_key: &[u8]) -> Self {
        let mut key = format!("loupe-media-url\0{}\0", salt.expose_secret()).into_bytes();
        key.extend_from_slice(instance_key);
        Self { key: hmac::Key::new(hmac::HMAC_SHA256, &key) }
    }

    fn message(access: Access, project: &str, media_id: &str, expires: i64) -> String {
        format!("{}\n{project}\n{media_id}\n{expires}", access.as_str())
    }

    pub fn sign(&self, access: Access, project: &str, media_id: &str, expires: i64) -> String {
        let tag = hmac::sign(&self.key, Self::message(access, project, media_id, expires).as_bytes());
        URL_SAFE_NO_PAD.encode(tag.as_ref())
    }

    /// Whether `token` grants `access` now (`now` and `expires` in Unix seconds).
    pub fn verify(
        &self,
        access: Access,
        project: &str,
        media_id: &str,
        expires: i64,
        token: &str,
        now: i64,
    ) -> bool {
        let Ok(tag) = URL_SAFE_NO_PAD.decode(token) else { return false };
        now <= expires
            && hmac::verify(&self.key, Self::message(access, project, media_id, expires).as_bytes(), &tag)
                .is_ok()
    }

    /// The project a content URL's query (`project`, `expires`, `token`) opens for `access` to the
    /// media `media_id` at `now` (Unix seconds), or why it opens nothing.
    pub fn authorise(&self, access: Access, media_id: &str, query: &Params, now: i64) -> Result<String> {
        let project = query.string("project").unwrap_or_default();
        let expires = query.int("expires", 0, 0, i64::MAX)?;
        let token = query.string("token").unwrap_or_default();
        if self.verify(access, &project, media_id, expires, &token, now) {
            Ok(project)
        } else {
            Err(Error::Forbidden(
                "This media URL is invalid or has expired; ask the API for a new one".into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_opens_only_its_media_access_and_time() {
        let signer = TokenSigner::new(&"salt".to_owned().into(), &[7; 32]);
        let token = signer.sign(Access::Upload, "p", "m", 1_000);
        assert!(signer.verify(Access::Upload, "p", "m", 1_000, &token, 999));
        assert!(!signer.verify(Access::Upload, "p", "m", 1_000, &token, 1_001), "expired");
        assert!(!signer.verify(Access::Download, "p", "m", 1_000, &token, 999), "other access");
        assert!(!signer.verify(Access::Upload, "q", "m", 1_000, &token, 999), "other project");
        assert!(!signer.verify(Access::Upload, "p", "n", 1_000, &token, 999), "other media");
        assert!(!signer.verify(Access::Upload, "p", "m", 2_000, &token, 999), "extended expiry");
        let other = TokenSigner::new(&"pepper".to_owned().into(), &[7; 32]);
        assert!(!other.verify(Access::Upload, "p", "m", 1_000, &token, 999), "other salt");
        // The same public SALT (empty, or compose's placeholder) with another generated key: a
        // token made by someone who knows only the SALT opens nothing.
        let same_salt = TokenSigner::new(&"salt".to_owned().into(), &[8; 32]);
        assert!(!same_salt.verify(Access::Upload, "p", "m", 1_000, &token, 999), "other generated key");
        assert!(!signer.verify(Access::Upload, "p", "m", 1_000, "not base64!", 999));
    }

    #[test]
    fn a_content_urls_query_opens_its_project_or_is_forbidden() {
        let signer = TokenSigner::new(&"salt".to_owned().into(), &[7; 32]);
        let token = signer.sign(Access::Download, "p", "m", 1_000);
        let query = Params::from_pairs([("project", "p"), ("expires", "1000"), ("token", token.as_str())]);
        assert_eq!(signer.authorise(Access::Download, "m", &query, 999).unwrap(), "p");
        let refused = signer.authorise(Access::Download, "m", &query, 1_001).unwrap_err();
        assert!(matches!(refused, Error::Forbidden(_)), "{refused:?}");
        let malformed = Params::from_pairs([("expires", "soon")]);
        assert!(matches!(signer.authorise(Access::Upload, "m", &malformed, 0), Err(Error::BadRequest(_))));
    }
}
