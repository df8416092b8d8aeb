//! Sign-in passwords: argon2id hashes in PHC format, checked in constant time, and the rules a new
//! password must meet. Hashing is deliberately slow (tens of milliseconds): callers run it off the
//! async threads. A bcrypt hash imported from Langfuse v3 (`worker import-langfuse`) is checked too,
//! and replaced by an argon2id hash at the person's next successful sign-in ([`needs_rehash`]).

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

/// Whether `password` matches the stored hash (an argon2id PHC string, or a bcrypt hash imported
/// from Langfuse v3); the comparison is constant-time. A malformed stored hash matches nothing.
pub fn verify_password(password: &str, stored: &str) -> bool {
    if is_bcrypt(stored) {
        return bcrypt::verify(password, stored).unwrap_or(false);
    }
    PasswordHash::new(stored).is_ok_and(|hash| hasher().verify_password(password.as_bytes(), &hash).is_ok())
}

/// Whether a stored hash is a bcrypt hash (`$2a$`, `$2b$`, `$2y$`): the form Langfuse v3 keeps
/// passwords and API secret keys in.
pub fn is_bcrypt(stored: &str) -> bool {
    stored.starts_with("$2") && stored.len() == 60
}

/// Whether a hash that just verified should be replaced by an argon2id one (it was imported).
pub fn needs_rehash(stored: &str) -> bool {
    is_bcrypt(stored)
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
    fn imported_bcrypt_hashes_verify_and_ask_for_a_rehash() {
        let imported = bcrypt::hash("v3 password", 4).unwrap();
        assert!(is_bcrypt(&imported) && needs_rehash(&imported), "{imported}");
        assert!(verify_password("v3 password", &imported));
        assert!(!verify_password("v3 passworD", &imported));
        let argon = hash_password("v3 password", &[3; 16]).unwrap();
        assert!(!needs_rehash(&argon));
        assert!(!verify_password("x", "$2b$04$not-a-real-hash"));
    }

    #[test]
    fn new_passwords_have_a_length() {
        assert!(check_new_password("short").is_err());
        assert!(check_new_password("long enough").is_ok());
        assert!(check_new_password(&"x".repeat(129)).is_err());
        assert!(check_new_password("ééééééé").is_err(), "characters, not bytes");
    }
}
