//! Password reset by a code sent by e-mail (spec 3 §2.11, §4, §5, §7, §8).
//!
//! Two steps, both public (no signed-in user):
//! 1. [`request`] looks the user up by e-mail (`ERR_NO_USER_FOUND` when nobody has it: the web
//!    app's "Email não encontrado"), draws a [`CODE_DIGITS`]-digit code from the id generator,
//!    stores its SHA-256 ([`auth::token_hash`]) valid for [`CODE_TTL_MINUTES`] minutes, replacing
//!    any earlier code of the user, and mails the code in Portuguese.
//! 2. [`reset`] checks the new password against spec 3 §5 first (so a weak password costs no
//!    attempt), then the code against the user's latest live code. Every attempt is counted
//!    before the comparison, so concurrent guesses cannot exceed [`MAX_ATTEMPTS`]; the last
//!    wrong one burns the code. A right code is used once. A wrong, expired, used or burnt code
//!    gives `ERR_INVALID_RESET_CODE`. Success sets the password through
//!    [`users::set_password`], which revokes every refresh session of the user.
//!
//! The code is never stored, logged or returned: only the mail carries it.

use chrono::{DateTime, Duration, Utc};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::ids::TenantScope;
use crate::ports::{NewPasswordReset, OutboundMail};
use crate::service::Ports;
use crate::service::{auth, users};
use crate::validation;

/// Digits of a reset code.
pub const CODE_DIGITS: usize = 6;
/// Minutes a reset code stays valid.
pub const CODE_TTL_MINUTES: i64 = 15;
/// Attempts allowed per code; the last wrong one burns it.
pub const MAX_ATTEMPTS: u32 = 5;
/// The subject of the reset mail.
pub const MAIL_SUBJECT: &str = "Redefinição de senha";

/// Sends a reset code to the user who has `email` (step one, `POST /forgetpassword/{email}`).
///
/// The e-mail is trimmed and lower-cased. An empty or malformed e-mail is a validation error on
/// `email`; an e-mail nobody has gives `ERR_NO_USER_FOUND`. Earlier codes of the user stop
/// working. The mailer's error (`ERR_MAIL_NOT_CONFIGURED` when no mail server is configured) is
/// returned as is.
#[tracing::instrument(level = "debug", name = "password_reset::request", skip_all)]
pub async fn request(ports: &Ports, email: &str, now: DateTime<Utc>) -> Result<()> {
    let email = validation::normalize_email(email);
    if email.is_empty() {
        return Err(Error::validation(vec![FieldError::new(
            "email",
            FieldCode::Required,
        )]));
    }
    if !validation::is_valid_email(&email) {
        return Err(Error::validation(vec![FieldError::new(
            "email",
            FieldCode::InvalidEmail,
        )]));
    }
    let user = ports
        .users
        .find_for_login(&email)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?
        .user;
    let scope = TenantScope::new(user.company_id);
    let code = ports.ids.digits(CODE_DIGITS);
    ports
        .resets
        .create(
            scope,
            &NewPasswordReset {
                user_id: user.id,
                code_hash: auth::token_hash(&code),
                expires_at: now + Duration::minutes(CODE_TTL_MINUTES),
            },
            now,
        )
        .await?;
    ports
        .mailer
        .send(&reset_mail(&user.email, &user.name, &code))
        .await
}

/// Sets a new password with a code from [`request`] (step two,
/// `POST /resetpasswords/{email}/{code}/{newPassword}`).
///
/// A password breaking spec 3 §5 is a validation error on `newPassword`, checked before the code.
/// Any other refusal is `ERR_INVALID_RESET_CODE`, whatever the reason (unknown e-mail, no live
/// code, wrong code, too many attempts, code used concurrently), so the answer tells nothing
/// more. On success every session of the user is revoked.
#[tracing::instrument(level = "debug", name = "password_reset::reset", skip_all)]
pub async fn reset(
    ports: &Ports,
    email: &str,
    code: &str,
    new_password: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    validation::validate_new_password(new_password)?;
    let invalid = || Error::from(ErrorCode::ERR_INVALID_RESET_CODE);
    let email = validation::normalize_email(email);
    let user = ports
        .users
        .find_for_login(&email)
        .await?
        .ok_or_else(invalid)?
        .user;
    let scope = TenantScope::new(user.company_id);
    let live = ports
        .resets
        .latest_live(scope, user.id, now)
        .await?
        .ok_or_else(invalid)?;
    let attempts = ports
        .resets
        .count_attempt(scope, live.id, MAX_ATTEMPTS)
        .await?
        .ok_or_else(invalid)?;
    if !code_matches(code, &live.code_hash) {
        if attempts >= MAX_ATTEMPTS {
            // Burnt: the code is dead even if a later guess would have been right.
            ports.resets.mark_used(scope, live.id, now).await?;
        }
        return Err(invalid());
    }
    if !ports.resets.mark_used(scope, live.id, now).await? {
        return Err(invalid());
    }
    users::set_password(ports, scope, user.id, new_password).await?;
    Ok(())
}

/// The mail that carries a reset code, in Portuguese.
pub fn reset_mail(to: &str, name: &str, code: &str) -> OutboundMail {
    let name = name.trim();
    let greeting = if name.is_empty() {
        "Olá!".to_owned()
    } else {
        format!("Olá, {name}!")
    };
    let text = format!(
        "{greeting}\n\
         \n\
         Recebemos um pedido para redefinir a senha da sua conta.\n\
         \n\
         Seu código de verificação: {code}\n\
         \n\
         Digite o código na página de redefinição de senha, junto com a nova senha. Ele vale por \
         {CODE_TTL_MINUTES} minutos e só pode ser usado uma vez.\n\
         \n\
         Se você não pediu a redefinição, ignore este e-mail: sua senha continua a mesma.\n"
    );
    OutboundMail {
        to: to.to_owned(),
        subject: MAIL_SUBJECT.to_owned(),
        text,
    }
}

/// True when `code` (surrounding spaces ignored) hashes to `code_hash`. The hashes are compared
/// in constant time.
pub fn code_matches(code: &str, code_hash: &str) -> bool {
    let candidate = auth::token_hash(code.trim());
    candidate.len() == code_hash.len()
        && candidate
            .bytes()
            .zip(code_hash.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mail_carries_the_code_in_portuguese() {
        let mail = reset_mail("ana@example.com", " Ana ", "042917");
        assert_eq!(mail.to, "ana@example.com");
        assert_eq!(mail.subject, "Redefinição de senha");
        assert!(mail.text.starts_with("Olá, Ana!\n"), "{}", mail.text);
        assert!(mail.text.contains("código de verificação: 042917\n"));
        assert!(mail.text.contains("15 minutos"));
        let nameless = reset_mail("x@example.com", "  ", "000001");
        assert!(nameless.text.starts_with("Olá!\n"), "{}", nameless.text);
    }

    #[test]
    fn codes_match_their_hash_only() {
        let hash = auth::token_hash("042917");
        assert!(code_matches("042917", &hash));
        assert!(code_matches(" 042917 ", &hash), "spaces around are ignored");
        assert!(!code_matches("42917", &hash), "leading zeros count");
        assert!(!code_matches("042918", &hash));
        assert!(!code_matches("", &hash));
        assert!(!code_matches("042917", "short"));
    }
}
