//! Access tokens: short-lived HS256 JWTs naming the user, the company and the session family.
//!
//! The token only says who the caller claims to be; every request re-reads the user from the
//! store, so a deleted user or a changed profile takes effect at once. Expiry is checked without
//! leeway because the same server issues and verifies the tokens, on the server's clock (the
//! ports' clock), so a server on a manual clock expires tokens when its clock says so.

use chatflow_core::identity::User;
use chatflow_core::{CompanyId, UserId};
use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The claims of an access token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The user id, as a string (JWT convention).
    pub sub: String,
    /// The user's company.
    #[serde(rename = "companyId")]
    pub company_id: CompanyId,
    /// The session family this token belongs to (the `sessionId` of `company-{id}-auth`).
    pub sid: Uuid,
    /// Issued at (seconds since the epoch).
    pub iat: i64,
    /// Expires at (seconds since the epoch).
    pub exp: i64,
}

impl Claims {
    /// The user the token names, or `None` when `sub` is not a user id.
    pub fn user_id(&self) -> Option<UserId> {
        self.sub.parse::<i64>().ok().map(UserId)
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// The token was valid but its time is up: the client refreshes and retries.
    #[error("the access token expired")]
    Expired,
    /// Anything else: bad signature, malformed, wrong algorithm.
    #[error("the access token is invalid")]
    Invalid,
}

/// Signs and verifies access tokens with one secret.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenKeys")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl TokenKeys {
    /// Keys for `secret`; tokens live `ttl`.
    pub fn new(secret: &[u8], ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        // Expiry is checked against the server's clock in `verify`, not the system's.
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl,
        }
    }

    /// How long a new token lives.
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A token for `user` in session family `sid`, issued at `now`.
    pub fn issue(&self, user: &User, sid: Uuid, now: DateTime<Utc>) -> anyhow::Result<String> {
        let claims = Claims {
            sub: user.id.to_string(),
            company_id: user.company_id,
            sid,
            iat: now.timestamp(),
            exp: (now + self.ttl).timestamp(),
        };
        Ok(jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.encoding,
        )?)
    }

    /// The claims of a valid token unexpired at `now` (the server's clock): a token is good
    /// through the second its `exp` names.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<Claims, TokenError> {
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|_| TokenError::Invalid)?
            .claims;
        if claims.exp < now.timestamp() {
            return Err(TokenError::Expired);
        }
        Ok(claims)
    }
}

/// Selects jsonwebtoken's RustCrypto backend once per process (harmless if already chosen).
pub fn install_crypto_provider() {
    let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
}

#[cfg(test)]
mod tests {
    use super::*;
    use chatflow_core::identity::{MenuMode, Profile, Theme, UserFlags};

    fn user() -> User {
        let now = Utc::now();
        User {
            id: UserId(7),
            company_id: CompanyId(3),
            name: "Ana".into(),
            email: "ana@example.com".into(),
            profile: Profile::User,
            is_super: false,
            flags: UserFlags::default(),
            start_work: "00:00".into(),
            end_work: "23:59".into(),
            farewell_message: None,
            default_theme: Theme::Light,
            default_menu: MenuMode::Open,
            whatsapp_id: None,
            queue_ids: Vec::new(),
            profile_image: None,
            online: false,
            default_tickets_manager_width: 550,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn round_trip_and_tampering() {
        install_crypto_provider();
        let keys = TokenKeys::new(b"a secret of reasonable length!!", Duration::minutes(15));
        let sid = Uuid::from_u128(42);
        let token = keys.issue(&user(), sid, Utc::now()).expect("signs");
        let claims = keys.verify(&token, Utc::now()).expect("valid");
        assert_eq!(claims.user_id(), Some(UserId(7)));
        assert_eq!(claims.company_id, CompanyId(3));
        assert_eq!(claims.sid, sid);

        let other = TokenKeys::new(b"another secret entirely, also long", Duration::minutes(15));
        assert_eq!(other.verify(&token, Utc::now()), Err(TokenError::Invalid));
        assert_eq!(
            keys.verify("not.a.token", Utc::now()),
            Err(TokenError::Invalid)
        );
    }

    #[test]
    fn expired_tokens_are_told_apart() {
        install_crypto_provider();
        let keys = TokenKeys::new(b"a secret of reasonable length!!", Duration::minutes(15));
        let issued = DateTime::from_timestamp(1_800_000_000, 0).expect("a time");
        let token = keys
            .issue(&user(), Uuid::from_u128(1), issued)
            .expect("signs");
        let at = |seconds| issued + Duration::seconds(seconds);
        assert!(keys.verify(&token, at(15 * 60)).is_ok(), "good through exp");
        assert_eq!(
            keys.verify(&token, at(15 * 60 + 1)),
            Err(TokenError::Expired)
        );
    }
}
