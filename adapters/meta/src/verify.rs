//! Webhook verification: the subscription challenge (`GET`) and the `X-Hub-Signature-256`
//! header of every delivery (`POST`). Pure functions; the host answers 403 (challenge) or 401
//! (signature) on an error, and parses nothing it has not verified.
//!
//! The signature is `sha256=` followed by the lowercase hex of HMAC-SHA256 over the **raw
//! request body bytes**, keyed with the app secret. It is checked before any JSON parsing
//! (re-serialising changes escapes and emoji), compared in constant time
//! ([`hmac::Mac::verify_slice`]), and fails closed: no secret, an empty secret, a missing
//! header or a malformed one are all refusals. Several secrets may be given while the app
//! secret is rotated; a body signed with any of them passes.

use hmac::{Hmac, KeyInit as _, Mac as _};
use sha2::Sha256;

/// The header Meta signs deliveries with.
pub const SIGNATURE_HEADER: &str = "X-Hub-Signature-256";

/// Why a webhook request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// No usable secret is configured (none, or only empty ones): nothing can pass.
    #[error("no app secret is configured")]
    NoSecret,
    /// The request carries no signature header.
    #[error("the delivery carries no X-Hub-Signature-256")]
    MissingSignature,
    /// The header is not `sha256=` and 64 hex digits.
    #[error("X-Hub-Signature-256 is not sha256=<64 hex digits>")]
    MalformedSignature,
    /// The signature matches none of the secrets.
    #[error("X-Hub-Signature-256 does not match the body")]
    BadSignature,
    /// The challenge's `hub.mode` is not `subscribe`.
    #[error("hub.mode is not subscribe")]
    WrongMode,
    /// The challenge's `hub.verify_token` is not ours (or ours is empty).
    #[error("hub.verify_token does not match")]
    WrongVerifyToken,
    /// The challenge has no `hub.challenge`.
    #[error("hub.challenge is missing")]
    MissingChallenge,
}

/// The subscription check Meta makes when a webhook is configured:
/// `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. Answers the challenge to echo
/// back (200, as plain text) when the mode is `subscribe` and the token is `verify_token`;
/// an error (answer 403) otherwise. An empty `verify_token` matches nothing.
///
/// `query` holds the query's decoded pairs, in any order (repeated names: the first counts).
pub fn check_challenge<'a>(
    query: impl IntoIterator<Item = (&'a str, &'a str)>,
    verify_token: &str,
) -> Result<String, VerifyError> {
    let (mut mode, mut token, mut challenge) = (None, None, None);
    for (name, value) in query {
        let slot = match name {
            "hub.mode" => &mut mode,
            "hub.verify_token" => &mut token,
            "hub.challenge" => &mut challenge,
            _ => continue,
        };
        slot.get_or_insert(value);
    }
    if mode != Some("subscribe") {
        return Err(VerifyError::WrongMode);
    }
    let expected = verify_token.as_bytes();
    let given = token.unwrap_or_default().as_bytes();
    if expected.is_empty() || !constant_time_eq(expected, given) {
        return Err(VerifyError::WrongVerifyToken);
    }
    match challenge {
        Some(c) if !c.is_empty() => Ok(c.to_owned()),
        _ => Err(VerifyError::MissingChallenge),
    }
}

/// What can be refused before the body is read: no usable secret, a missing or malformed
/// header. A host calls this first and answers 401 without reading the body;
/// [`check_signature`] then checks the body itself (and repeats these checks).
pub fn check_header<S: AsRef<[u8]>>(
    header: Option<&str>,
    secrets: &[S],
) -> Result<(), VerifyError> {
    if !secrets.iter().any(|s| !s.as_ref().is_empty()) {
        return Err(VerifyError::NoSecret);
    }
    parse_header(header.ok_or(VerifyError::MissingSignature)?).map(|_| ())
}

/// Checks a delivery's `X-Hub-Signature-256` (`header`: its value, `None` when absent) over
/// the raw `body` against each of `secrets` (see the module's documentation). Empty secrets
/// are ignored; with no other, every delivery is refused.
pub fn check_signature<S: AsRef<[u8]>>(
    header: Option<&str>,
    body: &[u8],
    secrets: &[S],
) -> Result<(), VerifyError> {
    let secrets: Vec<&[u8]> = secrets
        .iter()
        .map(AsRef::as_ref)
        .filter(|s| !s.is_empty())
        .collect();
    if secrets.is_empty() {
        return Err(VerifyError::NoSecret);
    }
    let tag = parse_header(header.ok_or(VerifyError::MissingSignature)?)?;
    let mut matched = false;
    for secret in secrets {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret) else {
            continue;
        };
        mac.update(body);
        // Every secret is tried, so the time taken does not tell which one matched.
        matched |= mac.verify_slice(&tag).is_ok();
    }
    if matched {
        Ok(())
    } else {
        Err(VerifyError::BadSignature)
    }
}

/// The header value Meta would send for `body` signed with `secret`:
/// `sha256=<lowercase hex>`. For tests and the fake's webhook driver.
pub fn sign(body: &[u8], secret: &[u8]) -> String {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = match Hmac::<Sha256>::new_from_slice(secret) {
        Ok(mac) => mac,
        Err(_) => return String::new(),
    };
    mac.update(body);
    format!(
        "sha256={}",
        hex::encode(mac.finalize().into_bytes().as_slice())
    )
}

/// The 32 bytes of `sha256=<64 hex digits>` (the prefix case-insensitive, surrounding spaces
/// ignored).
fn parse_header(header: &str) -> Result<[u8; 32], VerifyError> {
    let header = header.trim();
    let (scheme, digits) = header
        .split_once('=')
        .ok_or(VerifyError::MalformedSignature)?;
    if !scheme.eq_ignore_ascii_case("sha256") || digits.len() != 64 {
        return Err(VerifyError::MalformedSignature);
    }
    let mut tag = [0_u8; 32];
    hex::decode_to_slice(digits, &mut tag).map_err(|_| VerifyError::MalformedSignature)?;
    Ok(tag)
}

/// Compares two byte strings in time that depends on their lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
