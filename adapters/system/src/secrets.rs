//! [`SealedSecrets`]: the core's [`SecretCipher`] with XChaCha20-Poly1305 (RustCrypto).
//!
//! Secrets kept in the database (the access-token key, payment provider keys) are sealed with a
//! key-encryption key that lives outside it: `CHATFLOW_SECRET_KEY`, or a key file
//! (`CHATFLOW_SECRET_KEY_FILE`; by default `secret.key` next to the SQLite file, else
//! `data/secret.key`), generated on first start with mode 0600. A database copied without the
//! key reveals none of them; servers sharing one database must share the key.
//!
//! Sealed form: `enc1:` followed by the URL-safe base64 (no padding) of a random 24-byte nonce
//! and the ciphertext with its 16-byte tag. The 32-byte cipher key is the SHA-256 of the key
//! text, so any text of at least [`MIN_KEY_CHARS`] characters serves.
//!
//! Sealed bytes (binary key material, [`SecretCipher::seal_bytes`]): the version byte
//! [`SEALED_BYTES_VERSION`], a random 24-byte nonce, then the ciphertext with its tag. The
//! caller's context is authenticated as associated data, after a label that keeps sealed bytes
//! and sealed texts apart, so a value opens only where it was sealed.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use chatflow_core::ports::SecretCipher;
use chatflow_core::{Error, Result};
use sha2::{Digest, Sha256};

/// The prefix of a sealed value.
pub const SEALED_PREFIX: &str = "enc1:";
/// The shortest key text accepted.
pub const MIN_KEY_CHARS: usize = 32;
/// The key file's name when none is configured.
pub const KEY_FILE_NAME: &str = "secret.key";
const NONCE_BYTES: usize = 24;
/// The first byte of sealed bytes: the form's version.
pub const SEALED_BYTES_VERSION: u8 = 1;
/// What precedes the caller's context in the associated data of sealed bytes.
const BYTES_LABEL: &[u8] = b"chatflow sealed bytes v1\0";

/// Why the key-encryption key could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SecretKeyError {
    /// The key text is too short.
    #[error("the secret key must have at least {MIN_KEY_CHARS} characters")]
    TooShort,
    /// The key file could not be read or created.
    #[error("cannot use the secret key file {path}: {source}")]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Seals and opens secrets with one key-encryption key.
#[derive(Clone)]
pub struct SealedSecrets {
    cipher: XChaCha20Poly1305,
}

impl std::fmt::Debug for SealedSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SealedSecrets").finish_non_exhaustive()
    }
}

impl SealedSecrets {
    /// A cipher keyed by `text` (at least [`MIN_KEY_CHARS`] characters, surrounding blanks
    /// ignored).
    pub fn from_key_text(text: &str) -> std::result::Result<Self, SecretKeyError> {
        let text = text.trim();
        if text.chars().count() < MIN_KEY_CHARS {
            return Err(SecretKeyError::TooShort);
        }
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let key = Key::from(digest);
        Ok(Self {
            cipher: XChaCha20Poly1305::new(&key),
        })
    }

    /// The cipher of the key file at `path`; when there is none, a new random key is written
    /// there first (directories created, the file with mode 0600). An existing file readable
    /// by others is narrowed to 0600.
    pub fn from_key_file(path: &Path) -> std::result::Result<(Self, bool), SecretKeyError> {
        let file_error = |source| SecretKeyError::File {
            path: path.to_owned(),
            source,
        };
        let created = match std::fs::read_to_string(path) {
            Ok(_) => false,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(file_error)?;
                }
                let bytes: [u8; 32] = rand::random();
                let text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let mut options = OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                match options.open(path) {
                    Ok(mut file) => {
                        file.write_all(format!("{text}\n").as_bytes())
                            .and_then(|()| file.sync_all())
                            .map_err(file_error)?;
                        true
                    }
                    // Another process created it meanwhile: use theirs.
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
                    Err(e) => return Err(file_error(e)),
                }
            }
            Err(e) => return Err(file_error(e)),
        };
        restrict_to_owner(path).map_err(file_error)?;
        let text = std::fs::read_to_string(path).map_err(file_error)?;
        Ok((Self::from_key_text(&text)?, created))
    }
}

/// Narrows `path` to read and write by its owner (0600) when others may read it. Does nothing
/// on systems without Unix permissions.
pub fn restrict_to_owner(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Where the key file is when none is configured: `secret.key` next to the SQLite database
/// file, else (PostgreSQL, an in-memory database) `data/secret.key`.
pub fn default_key_file(database_url: &str) -> PathBuf {
    let sqlite_file = database_url
        .strip_prefix("sqlite://")
        .or_else(|| database_url.strip_prefix("sqlite:"))
        .map(|rest| rest.split('?').next().unwrap_or(rest))
        .filter(|file| !file.is_empty() && !file.contains(":memory:"));
    match sqlite_file {
        Some(file) => Path::new(file).parent().map_or_else(
            || PathBuf::from(KEY_FILE_NAME),
            |dir| dir.join(KEY_FILE_NAME),
        ),
        None => Path::new("data").join(KEY_FILE_NAME),
    }
}

/// The hosts' key resolution: the key text when given, else the key file (given, or
/// [`default_key_file`]) read or created. The flag says a key file was created now.
pub fn configured_secrets(
    key: Option<&str>,
    key_file: Option<&Path>,
    database_url: &str,
) -> std::result::Result<(SealedSecrets, Option<PathBuf>), SecretKeyError> {
    if let Some(key) = key.filter(|k| !k.trim().is_empty()) {
        return Ok((SealedSecrets::from_key_text(key)?, None));
    }
    let path = key_file.map_or_else(|| default_key_file(database_url), Path::to_owned);
    let (secrets, created) = SealedSecrets::from_key_file(&path)?;
    Ok((secrets, created.then_some(path)))
}

impl SecretCipher for SealedSecrets {
    fn seal(&self, plain: &str) -> Result<String> {
        let nonce_bytes: [u8; NONCE_BYTES] = rand::random();
        let nonce = XNonce::from(nonce_bytes);
        let sealed = self
            .cipher
            .encrypt(&nonce, plain.as_bytes())
            .map_err(|_| Error::internal("cannot seal a secret"))?;
        let mut bytes = Vec::with_capacity(NONCE_BYTES + sealed.len());
        bytes.extend_from_slice(&nonce_bytes);
        bytes.extend_from_slice(&sealed);
        Ok(format!("{SEALED_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
    }

    fn open(&self, sealed: &str) -> Result<String> {
        let unreadable =
            || Error::internal("a stored secret cannot be opened (another secret key?)");
        let body = sealed.strip_prefix(SEALED_PREFIX).ok_or_else(unreadable)?;
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| unreadable())?;
        if bytes.len() < NONCE_BYTES {
            return Err(unreadable());
        }
        let (nonce_bytes, ciphertext) = bytes.split_at(NONCE_BYTES);
        let nonce_bytes: [u8; NONCE_BYTES] = nonce_bytes.try_into().map_err(|_| unreadable())?;
        let plain = self
            .cipher
            .decrypt(&XNonce::from(nonce_bytes), ciphertext)
            .map_err(|_| unreadable())?;
        String::from_utf8(plain).map_err(|_| unreadable())
    }

    fn is_sealed(&self, stored: &str) -> bool {
        stored.starts_with(SEALED_PREFIX)
    }

    fn seal_bytes(&self, plain: &[u8], context: &[u8]) -> Result<Vec<u8>> {
        let nonce_bytes: [u8; NONCE_BYTES] = rand::random();
        let aad = [BYTES_LABEL, context].concat();
        let sealed = self
            .cipher
            .encrypt(
                &XNonce::from(nonce_bytes),
                Payload {
                    msg: plain,
                    aad: &aad,
                },
            )
            .map_err(|_| Error::internal("cannot seal secret bytes"))?;
        let mut bytes = Vec::with_capacity(1 + NONCE_BYTES + sealed.len());
        bytes.push(SEALED_BYTES_VERSION);
        bytes.extend_from_slice(&nonce_bytes);
        bytes.extend_from_slice(&sealed);
        Ok(bytes)
    }

    fn open_bytes(&self, sealed: &[u8], context: &[u8]) -> Result<Vec<u8>> {
        let unreadable = || {
            Error::internal("stored secret bytes cannot be opened (another secret key or place?)")
        };
        let body = match sealed.split_first() {
            Some((&SEALED_BYTES_VERSION, body)) if body.len() >= NONCE_BYTES => body,
            _ => return Err(unreadable()),
        };
        let (nonce_bytes, ciphertext) = body.split_at(NONCE_BYTES);
        let nonce_bytes: [u8; NONCE_BYTES] = nonce_bytes.try_into().map_err(|_| unreadable())?;
        let aad = [BYTES_LABEL, context].concat();
        self.cipher
            .decrypt(
                &XNonce::from(nonce_bytes),
                Payload {
                    msg: ciphertext,
                    aad: &aad,
                },
            )
            .map_err(|_| unreadable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn seals_and_opens_and_refuses_other_keys_and_tampering() {
        let secrets = SealedSecrets::from_key_text(KEY).expect("a key");
        let sealed = secrets.seal("APP_USR-123").expect("sealed");
        assert!(secrets.is_sealed(&sealed));
        assert!(!sealed.contains("APP_USR"), "{sealed}");
        assert_ne!(sealed, secrets.seal("APP_USR-123").expect("sealed"));
        assert_eq!(secrets.open(&sealed).expect("opened"), "APP_USR-123");

        let other = SealedSecrets::from_key_text("another key of enough characters!").expect("key");
        assert!(other.open(&sealed).is_err());
        let mut tampered = sealed.clone();
        let last = tampered.pop().expect("not empty");
        tampered.push(if last == 'A' { 'B' } else { 'A' });
        assert!(secrets.open(&tampered).is_err());
        assert!(secrets.open("plain text").is_err());
        assert!(!secrets.is_sealed("plain text"));
    }

    #[test]
    fn sealed_bytes_round_trip_with_a_fresh_nonce() {
        let secrets = SealedSecrets::from_key_text(KEY).expect("a key");
        let plain: Vec<u8> = (0..=255).collect();
        let context = b"connection 7 / Session / 5511999990000.0";
        let sealed = secrets.seal_bytes(&plain, context).expect("sealed");
        assert_eq!(sealed[0], SEALED_BYTES_VERSION);
        assert_eq!(sealed.len(), 1 + NONCE_BYTES + plain.len() + 16);
        assert!(
            !sealed
                .windows(16)
                .any(|w| plain.windows(16).any(|p| p == w)),
            "no run of the plain bytes shows"
        );
        assert_ne!(sealed, secrets.seal_bytes(&plain, context).expect("sealed"));
        assert_eq!(secrets.open_bytes(&sealed, context).expect("opened"), plain);
        // Empty values and contexts are values like any other.
        let empty = secrets.seal_bytes(b"", b"").expect("sealed");
        assert_eq!(secrets.open_bytes(&empty, b"").expect("opened"), b"");
    }

    #[test]
    fn sealed_bytes_refuse_tampering() {
        let secrets = SealedSecrets::from_key_text(KEY).expect("a key");
        let sealed = secrets.seal_bytes(b"identity key", b"ctx").expect("sealed");
        // Every single flipped bit (version, nonce, ciphertext, tag) is caught.
        for at in 0..sealed.len() {
            let mut tampered = sealed.clone();
            tampered[at] ^= 0x01;
            assert!(
                secrets.open_bytes(&tampered, b"ctx").is_err(),
                "byte {at} flipped"
            );
        }
        // Cut short, extended, or not sealed at all.
        assert!(
            secrets
                .open_bytes(&sealed[..sealed.len() - 1], b"ctx")
                .is_err()
        );
        assert!(
            secrets
                .open_bytes(&[sealed.as_slice(), b"x"].concat(), b"ctx")
                .is_err()
        );
        assert!(secrets.open_bytes(&sealed[..NONCE_BYTES], b"ctx").is_err());
        assert!(secrets.open_bytes(b"", b"ctx").is_err());
        assert!(secrets.open_bytes(b"identity key", b"ctx").is_err());
    }

    #[test]
    fn sealed_bytes_open_only_with_their_key_and_context() {
        let secrets = SealedSecrets::from_key_text(KEY).expect("a key");
        let sealed = secrets
            .seal_bytes(b"session", b"connection 1")
            .expect("sealed");
        let other = SealedSecrets::from_key_text("another key of enough characters!").expect("key");
        let err = other
            .open_bytes(&sealed, b"connection 1")
            .expect_err("another key");
        assert_eq!(err.code, chatflow_core::ErrorCode::ERR_INTERNAL);
        assert!(
            secrets.open_bytes(&sealed, b"connection 2").is_err(),
            "a value moved to another place does not open"
        );
        assert!(secrets.open_bytes(&sealed, b"").is_err());
        // A sealed text is not sealed bytes, even with its version byte put in front.
        let text = secrets.seal("session").expect("sealed");
        let body = URL_SAFE_NO_PAD
            .decode(text.trim_start_matches(SEALED_PREFIX))
            .expect("base64");
        let dressed = [&[SEALED_BYTES_VERSION][..], &body].concat();
        assert!(secrets.open_bytes(&dressed, b"").is_err());
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(matches!(
            SealedSecrets::from_key_text("short"),
            Err(SecretKeyError::TooShort)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn the_key_file_is_created_private_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("nested").join(KEY_FILE_NAME);
        let (first, created) = SealedSecrets::from_key_file(&path).expect("created");
        assert!(created);
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let sealed = first.seal("x").expect("sealed");
        let (again, created) = SealedSecrets::from_key_file(&path).expect("read");
        assert!(!created);
        assert_eq!(again.open(&sealed).expect("same key"), "x");

        // A key file others may read is narrowed.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        SealedSecrets::from_key_file(&path).expect("read");
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn the_default_key_file_sits_next_to_the_sqlite_file() {
        assert_eq!(
            default_key_file("sqlite://data/chatflow.db"),
            Path::new("data").join(KEY_FILE_NAME)
        );
        assert_eq!(
            default_key_file("sqlite:/var/lib/chatflow/db.sqlite?mode=rwc"),
            Path::new("/var/lib/chatflow").join(KEY_FILE_NAME)
        );
        assert_eq!(
            default_key_file("postgres://db/chatflow"),
            Path::new("data").join(KEY_FILE_NAME)
        );
    }
}
