//! Sign-in passwords: argon2id hashes in PHC format, checked in constant time, and the rules a new
//! password must meet. Hashing is deliberately slow (tens of milliseconds): callers run it off the
//! async threads.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

pub const MIN_PASSWORD_CHARS: usize = 8;
/// Long enough for any passphrase, short enough that hashing one costs no more than usual.
pub const MAX_PASSWORD_CHARS: usize = 128;

/// What is wrong with a new password, in words for the person choosing it.
pub fn check_new_password(password: &str) -> Result<(), String> {
    let chars = password.chars().count();
    if chars < MIN_PASSWORD_CHARS {
        return Err(format!("Password must have at least {MIN_PASSWORD_CHARS} characters"));
    }
    if chars > MAX_PASSWORD_CHARS {
        return Err(format!("Password must have at most {MAX_PASSWORD_CHARS} characters"));
    }
    Ok(())
}

/// argon2id with OWASP's recommended minimum cost (19 MiB, 2 passes, 1 lane).
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string of `password` under `salt` (16 random bytes the caller draws).
pub fn hash_password(password: &str, salt: &[u8; 16]) -> Result<String, String> {
    let salt = SaltString::encode_b64(salt).map_err(|e| e.to_string())?;
    hasher().hash_password(password.as_bytes(), &salt).map(|hash| hash.to_string()).map_err(|e| e.to_string())
}

/// Whether `password` matches the stored PHC string; the comparison is constant-time. A malformed
/// stored hash matches nothing.
pub fn verify_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|hash| hasher().verify_password(password.as_bytes(), &hash).is_ok())
}

/// A hash to check a password against when the account does not exist, so a sign-in for an unknown
/// address costs the same time as one for a known address with a wrong password.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password("not a password anyone has", &[7; 16]).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_differ_by_salt() {
        let one = hash_password("correct horse", &[1; 16]).unwrap();
        let two = hash_password("correct horse", &[2; 16]).unwrap();
        assert!(one.starts_with("$argon2id$"), "{one}");
        assert_ne!(one, two);
        assert!(verify_password("correct horse", &one));
        assert!(!verify_password("correct horsE", &one));
        assert!(!verify_password("correct horse", "not a hash"));
        assert!(!verify_password("x", decoy_hash()));
    }

    #[test]
    fn new_passwords_have_a_length() {
        assert!(check_new_password("short").is_err());
        assert!(check_new_password("long enough").is_ok());
        assert!(check_new_password(&"x".repeat(129)).is_err());
        assert!(check_new_password("ééééééé").is_err(), "characters, not bytes");
    }
}
