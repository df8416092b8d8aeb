//! Secrets Loupe must give back to itself (an LLM provider's API key, a bucket's secret key),
//! encrypted at rest with AES-256-GCM under the deployment's `ENCRYPTION_KEY`.
//!
//! The stored form is Langfuse's, `<iv hex>:<ciphertext hex>:<tag hex>` with a 12-byte random
//! IV, so values a Langfuse v3 deployment encrypted decrypt here under its key, and the reverse.
//! Secrets never leave the server once stored: the API shows them only in their display form.

use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use std::fmt;

/// The name of the setting that holds the key.
pub const ENCRYPTION_KEY: &str = "ENCRYPTION_KEY";

/// A 256-bit key, parsed from 64 hexadecimal characters (`openssl rand -hex 32`).
#[derive(Clone)]
pub struct EncryptionKey {
    bytes: [u8; 32],
}

/// Why a stored secret could not be read back.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SecretError {
    #[error("the stored secret is not in the iv:ciphertext:tag form")]
    Malformed,
    /// The key is not the one the secret was encrypted with, or the value was altered.
    #[error("the stored secret does not decrypt under ENCRYPTION_KEY (another key, or altered)")]
    WrongKey,
}

impl EncryptionKey {
    /// The key from its setting's text, or the sentence a startup error shows.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.len() != 64 {
            return Err(format!(
                "must be 64 hexadecimal characters (256 bits, e.g. `openssl rand -hex 32`), got {} characters",
                text.len()
            ));
        }
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text, &mut bytes).map_err(|_| "must be hexadecimal (0-9, a-f)".to_owned())?;
        Ok(Self { bytes })
    }

    fn sealing_key(&self) -> LessSafeKey {
        LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &self.bytes).expect("a 32-byte AES-256 key"))
    }

    /// `plaintext` encrypted under a fresh random IV, in the stored form.
    pub fn encrypt(&self, plaintext: &str) -> String {
        let mut iv = [0u8; NONCE_LEN];
        SystemRandom::new().fill(&mut iv).expect("the operating system's random source");
        let mut data = plaintext.as_bytes().to_vec();
        let tag = self
            .sealing_key()
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(iv), Aad::empty(), &mut data)
            .expect("AES-GCM seals any input under 64 GiB");
        format!("{}:{}:{}", hex::encode(iv), hex::encode(data), hex::encode(tag.as_ref()))
    }

    /// The plaintext of a value `encrypt` (or Langfuse, under the same key) stored.
    pub fn decrypt(&self, stored: &str) -> Result<String, SecretError> {
        let mut parts = stored.split(':');
        let (Some(iv), Some(body), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(SecretError::Malformed);
        };
        let mut iv_bytes = [0u8; NONCE_LEN];
        hex::decode_to_slice(iv, &mut iv_bytes).map_err(|_| SecretError::Malformed)?;
        let mut data = hex::decode(body).map_err(|_| SecretError::Malformed)?;
        let tag = hex::decode(tag).map_err(|_| SecretError::Malformed)?;
        if tag.len() != AES_256_GCM.tag_len() {
            return Err(SecretError::Malformed);
        }
        data.extend_from_slice(&tag);
        let plain = self
            .sealing_key()
            .open_in_place(Nonce::assume_unique_for_key(iv_bytes), Aad::empty(), &mut data)
            .map_err(|_| SecretError::WrongKey)?;
        String::from_utf8(plain.to_vec()).map_err(|_| SecretError::Malformed)
    }
}

impl fmt::Debug for EncryptionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EncryptionKey(redacted)")
    }
}

/// How the API shows a stored secret: its last four characters behind an ellipsis (`...abcd`),
/// enough to tell two keys apart, never enough to use one. Secrets of eight characters or fewer
/// show no characters at all.
pub fn display_form(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() <= 8 {
        return "...".to_owned();
    }
    format!("...{}", chars[chars.len() - 4..].iter().collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_secret_comes_back_and_every_encryption_differs() {
        let key = EncryptionKey::parse(KEY).unwrap();
        let one = key.encrypt("sk-provider-secret");
        let two = key.encrypt("sk-provider-secret");
        assert_ne!(one, two, "a fresh IV per encryption");
        assert_eq!(one.split(':').count(), 3);
        assert_eq!(key.decrypt(&one).unwrap(), "sk-provider-secret");
        assert_eq!(key.decrypt(&two).unwrap(), "sk-provider-secret");
        assert_eq!(key.decrypt(&key.encrypt("")).unwrap(), "");
    }

    #[test]
    fn another_key_or_an_altered_value_is_refused() {
        let key = EncryptionKey::parse(KEY).unwrap();
        let other = EncryptionKey::parse(&KEY.replace('0', "f")).unwrap();
        let stored = key.encrypt("secret");
        assert_eq!(other.decrypt(&stored), Err(SecretError::WrongKey));
        let (iv, rest) = stored.split_once(':').unwrap();
        let flipped = format!("{iv}:{}{}", if rest.starts_with('0') { '1' } else { '0' }, &rest[1..]);
        assert_eq!(key.decrypt(&flipped), Err(SecretError::WrongKey));
        assert_eq!(key.decrypt("not-a-secret"), Err(SecretError::Malformed));
        assert_eq!(key.decrypt("zz:00:00"), Err(SecretError::Malformed));
    }

    /// A value in Langfuse's stored form, made by Node's `crypto.createCipheriv("aes-256-gcm",
    /// key, iv)` as Langfuse's encryption module does (key 00..1f, IV 00..0b, plaintext "hello").
    #[test]
    fn decrypts_a_value_node_encrypted_in_langfuse_form() {
        let key =
            EncryptionKey::parse("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f").unwrap();
        let stored = "000102030405060708090a0b:2f67ba77aa:2797ff353b8a046d28236dcd9d057bbb";
        assert_eq!(key.decrypt(stored).unwrap(), "hello");
    }

    #[test]
    fn the_key_must_be_256_bits_of_hex() {
        assert!(EncryptionKey::parse(KEY).is_ok());
        assert!(EncryptionKey::parse(&KEY[..63]).unwrap_err().contains("64 hexadecimal"));
        assert!(EncryptionKey::parse(&KEY.replace('a', "g")).unwrap_err().contains("hexadecimal"));
        assert_eq!(format!("{:?}", EncryptionKey::parse(KEY).unwrap()), "EncryptionKey(redacted)");
    }

    #[test]
    fn display_form_shows_four_characters_at_most() {
        assert_eq!(display_form("sk-abcdefghijkl"), "...ijkl");
        assert_eq!(display_form("short"), "...");
        assert_eq!(display_form(""), "...");
    }
}
