//! Linking a sandbox connection by phone number: the code the connection shows (eight characters
//! of WhatsApp's pair-code alphabet, shown as `XXXX-XXXX`) and [`type_pair_code`], through which
//! a simulated phone types it (the CLI and the HTTP route both call it).

use chatflow_core::error::FieldCode;
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::ports::IdGenerator;
use chatflow_core::{Error, ErrorCode, FieldError, Result, TenantScope, WhatsappId};

/// The characters of a pair code: digits and uppercase letters without `0`, `I`, `O` and `U`
/// (WhatsApp's alphabet, which nobody misreads).
pub const PAIR_CODE_ALPHABET: &[u8; 32] = b"123456789ABCDEFGHJKLMNPQRSTVWXYZ";

/// Characters in a pair code.
pub const PAIR_CODE_LEN: usize = 8;

/// The code of five random bytes: their 40 bits, five at a time, as alphabet characters.
pub fn pair_code_of(bytes: [u8; 5]) -> String {
    let bits = bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    (0..PAIR_CODE_LEN)
        .rev()
        .map(|i| char::from(PAIR_CODE_ALPHABET[((bits >> (i * 5)) & 0x1f) as usize]))
        .collect()
}

/// A fresh pair code from the id generator's randomness (the first bytes of a random uuid).
pub fn fresh_pair_code(ids: &dyn IdGenerator) -> String {
    let uuid = ids.uuid();
    let bytes = uuid.as_bytes();
    pair_code_of([bytes[0], bytes[1], bytes[2], bytes[3], bytes[4]])
}

/// A typed code as the connection shows it: dashes and spaces dropped, letters uppercased;
/// `None` when what is left is not eight characters of [`PAIR_CODE_ALPHABET`].
pub fn normalise_pair_code(typed: &str) -> Option<String> {
    let code: String = typed
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let valid =
        code.len() == PAIR_CODE_LEN && code.bytes().all(|b| PAIR_CODE_ALPHABET.contains(&b));
    valid.then_some(code)
}

/// `XXXX-XXXX`, as the web app shows a code.
pub fn display_pair_code(code: &str) -> String {
    match code.split_at_checked(PAIR_CODE_LEN / 2) {
        Some((head, tail)) => format!("{head}-{tail}"),
        None => code.to_owned(),
    }
}

/// A simulated phone types `typed` (as shown, `XXXX-XXXX`, or without the dash, any case) to
/// link the connection. When it is the code the connection shows, the connection is paired and
/// connects within a moment with the number the code was asked for.
///
/// Refused with `ERR_WAPP_NOT_INITIALIZED` when the connection shows no pair code (none was asked
/// for, or it was used, expired or replaced by a new session), and with `ERR_VALIDATION` on the
/// field `code` when the typed text is not a code or not the one shown.
pub async fn type_pair_code(
    repo: &dyn SandboxRepo,
    scope: TenantScope,
    connection: WhatsappId,
    typed: &str,
) -> Result<()> {
    let shown = repo
        .pairing(scope, connection)
        .await?
        .and_then(|p| p.pair_code);
    if shown.is_none() {
        return Err(Error::with_detail(
            ErrorCode::ERR_WAPP_NOT_INITIALIZED,
            format!(
                "connection {connection} shows no pair code: ask for one (link with phone number) first"
            ),
        ));
    }
    let refused = |detail: String| Error {
        code: ErrorCode::ERR_VALIDATION,
        detail: Some(detail),
        fields: vec![FieldError::new("code", FieldCode::InvalidFormat)],
    };
    let Some(code) = normalise_pair_code(typed) else {
        return Err(refused(format!(
            "{typed:?} is not a pair code: eight letters and digits, as XXXX-XXXX"
        )));
    };
    if !repo.confirm_pair_code(scope, connection, &code).await? {
        return Err(refused(format!(
            "{} is not the code connection {connection} shows",
            display_pair_code(&code)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_eight_characters_of_the_alphabet() {
        assert_eq!(pair_code_of([0; 5]), "11111111");
        assert_eq!(pair_code_of([0xff; 5]), "ZZZZZZZZ");
        // 00001 00010 00011 ... : each five bits picks a character, most significant first.
        assert_eq!(
            pair_code_of([
                0b0000_1000,
                0b1000_0110,
                0b0100_0010,
                0b1001_1000,
                0b1110_1000
            ]),
            "23456789"
        );
    }

    #[test]
    fn typed_codes_are_read_as_shown() {
        assert_eq!(
            normalise_pair_code("abcd-efgh").as_deref(),
            Some("ABCDEFGH")
        );
        assert_eq!(
            normalise_pair_code(" 2345 6789 ").as_deref(),
            Some("23456789")
        );
        for bad in [
            "ABCD-EFG",
            "ABCD-EFGHJ",
            "ABCD-EFG0",
            "OOOO-IIII",
            "ABCD_EFGH",
            "ÀBCD-EFGH",
        ] {
            assert_eq!(normalise_pair_code(bad), None, "{bad}");
        }
        assert_eq!(display_pair_code("ABCDEFGH"), "ABCD-EFGH");
    }
}
