//! API-key secrets: how they are hashed for storage and checked on every request.
//!
//! Secrets are random, high-entropy tokens, so a salted SHA-256 is the right tool: a slow password
//! hash would only add latency to every authenticated request. The comparison is constant-time so
//! response timing reveals nothing about the stored hash.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// The stored form of a secret key: lowercase hex of SHA-256(salt ‖ 0x00 ‖ secret).
pub fn hash_secret(secret: &str, salt: &SecretString) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt.expose_secret().as_bytes());
    hasher.update([0u8]);
    hasher.update(secret.as_bytes());
    hex(&hasher.finalize())
}

/// Whether `secret` matches `stored_hash`, in time independent of where they differ. An imported
/// key's bcrypt hash never matches here: checking one is slow, so callers check it off the async
/// threads with [`imported_secret_matches`] (see [`is_imported_hash`]).
pub fn secret_matches(secret: &str, stored_hash: &str, salt: &SecretString) -> bool {
    hash_secret(secret, salt).as_bytes().ct_eq(stored_hash.as_bytes()).into()
}

/// Whether a stored secret hash is one imported from Langfuse v3 (its bcrypt `hashed_secret_key`,
/// which needs no salt), to be replaced by Loupe's own hash after its first successful use.
pub fn is_imported_hash(stored_hash: &str) -> bool {
    crate::password::is_bcrypt(stored_hash)
}

/// Checks a secret against an imported bcrypt hash: tens of milliseconds, so run it off the async
/// threads, once per key (the caller then stores [`hash_secret`] in its place).
pub fn imported_secret_matches(secret: &str, stored_hash: &str) -> bool {
    is_imported_hash(stored_hash) && bcrypt::verify(secret, stored_hash).unwrap_or(false)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Credentials presented in an `Authorization` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `Basic base64(publicKey:secretKey)`: full project access.
    Basic { public_key: String, secret_key: String },
    /// `Bearer <token>`: a public key (browser SDK) or the instance admin key.
    Bearer(String),
}

/// Why an `Authorization` header was refused; the texts are the ones Langfuse SDK users know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CredentialsError {
    #[error("No authorization header")]
    Missing,
    #[error("Invalid authorization header")]
    UnknownScheme,
    #[error("Invalid authorization header. Confirm that you've configured the correct host.")]
    Malformed,
}

impl Credentials {
    pub fn parse(header: Option<&str>) -> Result<Self, CredentialsError> {
        let header = header.ok_or(CredentialsError::Missing)?;
        if let Some(encoded) = header.strip_prefix("Basic ") {
            let decoded = STANDARD.decode(encoded.trim()).map_err(|_| CredentialsError::Malformed)?;
            let decoded = String::from_utf8(decoded).map_err(|_| CredentialsError::Malformed)?;
            let (public_key, secret_key) = decoded.split_once(':').ok_or(CredentialsError::Malformed)?;
            if public_key.is_empty() || secret_key.is_empty() {
                return Err(CredentialsError::Malformed);
            }
            return Ok(Self::Basic { public_key: public_key.to_owned(), secret_key: secret_key.to_owned() });
        }
        if let Some(token) = header.strip_prefix("Bearer ") {
            let token = token.trim();
            if token.is_empty() {
                return Err(CredentialsError::Malformed);
            }
            return Ok(Self::Bearer(token.to_owned()));
        }
        Err(CredentialsError::UnknownScheme)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn salt(s: &str) -> SecretString {
        s.to_owned().into()
    }

    #[test]
    fn hash_depends_on_salt_and_secret() {
        let h = hash_secret("sk-lf-1", &salt("a"));
        assert_eq!(h.len(), 64);
        assert_ne!(h, hash_secret("sk-lf-1", &salt("b")));
        assert_ne!(h, hash_secret("sk-lf-2", &salt("a")));
        assert!(secret_matches("sk-lf-1", &h, &salt("a")));
        assert!(!secret_matches("sk-lf-2", &h, &salt("a")));
        assert!(!secret_matches("sk-lf-1", &h, &salt("b")));
    }

    #[test]
    fn imported_hashes_need_the_slow_check() {
        let imported = bcrypt::hash("sk-lf-v3", 4).unwrap();
        assert!(is_imported_hash(&imported));
        assert!(!secret_matches("sk-lf-v3", &imported, &salt("a")), "never on the fast path");
        assert!(imported_secret_matches("sk-lf-v3", &imported));
        assert!(!imported_secret_matches("sk-lf-v4", &imported));
        assert!(!is_imported_hash(&hash_secret("sk-lf-v3", &salt("a"))));
    }

    #[test]
    fn parses_basic_and_bearer() {
        let basic = format!("Basic {}", STANDARD.encode("pk-lf-1:sk-lf-1"));
        assert_eq!(
            Credentials::parse(Some(&basic)),
            Ok(Credentials::Basic { public_key: "pk-lf-1".into(), secret_key: "sk-lf-1".into() })
        );
        assert_eq!(Credentials::parse(Some("Bearer pk-lf-1")), Ok(Credentials::Bearer("pk-lf-1".into())));
    }

    #[test]
    fn refuses_bad_headers() {
        assert_eq!(Credentials::parse(None), Err(CredentialsError::Missing));
        assert_eq!(Credentials::parse(Some("Token x")), Err(CredentialsError::UnknownScheme));
        assert_eq!(Credentials::parse(Some("basic x")), Err(CredentialsError::UnknownScheme));
        assert_eq!(Credentials::parse(Some("Basic !!!")), Err(CredentialsError::Malformed));
        let no_colon = format!("Basic {}", STANDARD.encode("pk-lf-1"));
        assert_eq!(Credentials::parse(Some(&no_colon)), Err(CredentialsError::Malformed));
        let empty_secret = format!("Basic {}", STANDARD.encode("pk-lf-1:"));
        assert_eq!(Credentials::parse(Some(&empty_secret)), Err(CredentialsError::Malformed));
    }
}
