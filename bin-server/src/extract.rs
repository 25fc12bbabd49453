//! Extractors: request bodies and parameters with catalogue errors, and the signed-in caller.
//!
//! [`Json`], [`Path`] and [`Query`] wrap axum's extractors so a malformed request becomes
//! `400 ERR_BAD_REQUEST` (or `413 ERR_PAYLOAD_TOO_LARGE`) in the one error format. Text that no
//! database engine stores (U+0000; Rust strings cannot hold lone surrogates, and JSON escapes of
//! them are refused as malformed) is refused the same way wherever a request can carry it: in a
//! JSON body ([`Json`]), in the path or query ([`reject_unstorable_uri`], a layer over every
//! route) and in multipart text fields and file names ([`storable`]). [`Session`]
//! is any signed-in user: the bearer token is verified and the user re-read from the store with
//! the token's session, so deleted users, changed profiles, revoked sessions and blocked
//! companies take effect at once. [`Tenant`] is a signed-in user whose
//! company's subscription has not expired (`402 ERR_SUBSCRIPTION_EXPIRED` otherwise); handlers
//! that stay open to expired companies (auth, settings reads, the company's own record) take a
//! [`Session`] instead.

use std::net::{IpAddr, SocketAddr};

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use chatflow_core::identity::{Actor, User};

use chatflow_core::tenancy::{self, SubscriptionStatus};
use chatflow_core::{ErrorCode, TenantScope};

use crate::error::ApiError;
use crate::state::AppState;
use crate::tokens::{Claims, TokenError};

/// A JSON body; unreadable JSON, a body that is not `application/json` and a string holding
/// U+0000 are `400 ERR_BAD_REQUEST`, an oversized body `413`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json<T>(pub T);

impl<T, S> FromRequest<S> for Json<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        if !is_json(request.headers()) {
            tracing::debug!("a JSON body without a JSON content type");
            return Err(ApiError::code(ErrorCode::ERR_BAD_REQUEST));
        }
        let bytes = axum::body::Bytes::from_request(request, state)
            .await
            .map_err(|rejection| {
                if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::code(ErrorCode::ERR_PAYLOAD_TOO_LARGE)
                } else {
                    tracing::debug!(%rejection, "unreadable body");
                    ApiError::code(ErrorCode::ERR_BAD_REQUEST)
                }
            })?;
        if json_has_nul(&bytes) {
            return Err(unstorable());
        }
        let axum::Json(value) = axum::Json::<T>::from_bytes(&bytes)?;
        Ok(Json(value))
    }
}

/// `application/json` or `application/*+json`, as axum's own JSON extractor accepts.
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// Whether a JSON text holds U+0000: a raw NUL byte, or the escape `\u0000` in a string (an
/// escaped backslash followed by `u0000` is text, not a NUL).
pub fn json_has_nul(bytes: &[u8]) -> bool {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0 => return true,
            b'\\' => {
                if bytes.get(i + 1) == Some(&b'u')
                    && bytes.get(i + 2..i + 6).is_some_and(|hex| hex == b"0000")
                {
                    return true;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    false
}

/// `400 ERR_BAD_REQUEST` for text no database engine stores.
fn unstorable() -> ApiError {
    ApiError::from(chatflow_core::Error::with_detail(
        ErrorCode::ERR_BAD_REQUEST,
        "text may not contain the NUL character (U+0000)",
    ))
}

/// A multipart text field or file name, refused (`400 ERR_BAD_REQUEST`) when it holds U+0000.
pub fn storable(text: String) -> Result<String, ApiError> {
    if chatflow_core::inbox::inbound::has_unstorable_text(&text) {
        Err(unstorable())
    } else {
        Ok(text)
    }
}

/// A layer over every route: a path or query string carrying U+0000 (`%00`) is `400
/// ERR_BAD_REQUEST` before any handler or search sees it.
pub async fn reject_unstorable_uri(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let uri = request.uri();
    let carries_nul = |part: &str| part.contains("%00");
    if carries_nul(uri.path()) || uri.query().is_some_and(carries_nul) {
        return unstorable().into_response();
    }
    next.run(request).await
}

/// Path parameters; unreadable ones (`/users/abc`) are `400 ERR_BAD_REQUEST`.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

/// Query parameters; unreadable ones are `400 ERR_BAD_REQUEST`.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct Query<T>(pub T);

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::code(ErrorCode::ERR_PAYLOAD_TOO_LARGE)
        } else {
            tracing::debug!(%rejection, "unreadable JSON body");
            ApiError::code(ErrorCode::ERR_BAD_REQUEST)
        }
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        tracing::debug!(%rejection, "unreadable path parameters");
        ApiError::code(ErrorCode::ERR_BAD_REQUEST)
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        tracing::debug!(%rejection, "unreadable query parameters");
        ApiError::code(ErrorCode::ERR_BAD_REQUEST)
    }
}

/// A signed-in user, whatever the state of the company's subscription.
#[derive(Debug, Clone)]
pub struct Session {
    /// The user as stored now.
    pub user: User,
    /// The user as the policy sees them.
    pub actor: Actor,
    /// The access token's claims (session family in `sid`).
    pub claims: Claims,
    /// The company's subscription due date, read with the user.
    pub company_due_date: chrono::NaiveDate,
}

impl Session {
    /// The tenant scope of the user's company.
    pub fn scope(&self) -> TenantScope {
        self.actor.scope()
    }
}

/// The bearer token of a request, if any.
pub fn bearer_token(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Resolves an access token to the user it names: `401 ERR_SESSION_EXPIRED` for a missing,
/// invalid or orphaned token, or one whose session was revoked (sign-out, reuse detection, a
/// password change) or whose company is blocked; `403 ERR_TOKEN_EXPIRED` for an expired one.
///
/// The session check rides on the one query that re-reads the user, so revocation takes effect
/// at once at no extra round trip.
pub async fn authenticate(state: &AppState, token: Option<&str>) -> Result<Session, ApiError> {
    let token = token.ok_or(ErrorCode::ERR_SESSION_EXPIRED)?;
    let claims = state
        .tokens
        .verify(token, state.ports.clock.now())
        .map_err(|e| match e {
            TokenError::Expired => ApiError::code(ErrorCode::ERR_TOKEN_EXPIRED),
            TokenError::Invalid => ApiError::code(ErrorCode::ERR_SESSION_EXPIRED),
        })?;
    let user_id = claims.user_id().ok_or(ErrorCode::ERR_SESSION_EXPIRED)?;
    let signed_in = state
        .ports
        .users
        .get_in_session(TenantScope::new(claims.company_id), user_id, claims.sid)
        .await?
        .ok_or(ErrorCode::ERR_SESSION_EXPIRED)?;
    if tenancy::is_blocked(claims.company_id, signed_in.company_active) {
        return Err(ErrorCode::ERR_SESSION_EXPIRED.into());
    }
    let user = signed_in.user;
    Ok(Session {
        actor: Actor::of(&user),
        user,
        claims,
        company_due_date: signed_in.company_due_date,
    })
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if let Some(session) = parts.extensions.get::<Session>() {
            return Ok(session.clone());
        }
        let session = authenticate(state, bearer_token(parts)).await?;
        parts.extensions.insert(session.clone());
        Ok(session)
    }
}

/// A signed-in user of a company whose subscription has not expired.
#[derive(Debug, Clone)]
pub struct Tenant(pub Session);

impl std::ops::Deref for Tenant {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.0
    }
}

impl FromRequestParts<AppState> for Tenant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let session = Session::from_request_parts(parts, state).await?;
        let today = state.ports.clock.now().date_naive();
        let subscription =
            tenancy::subscription(session.actor.company_id, session.company_due_date, today);
        if subscription.status == SubscriptionStatus::Expired {
            return Err(ErrorCode::ERR_SUBSCRIPTION_EXPIRED.into());
        }
        Ok(Tenant(session))
    }
}

/// The client's address: the peer, or the last `X-Forwarded-For` entry behind a trusted proxy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        if state.trust_proxy {
            let forwarded = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .filter_map(|entry| entry.trim().parse::<IpAddr>().ok())
                .next_back();
            if let Some(ip) = forwarded {
                return Ok(ClientIp(ip));
            }
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .unwrap_or(IpAddr::from([0, 0, 0, 0]));
        Ok(ClientIp(peer))
    }
}

#[cfg(test)]
mod tests {
    use super::json_has_nul;

    #[test]
    fn nul_escapes_are_found_in_json_strings_only() {
        assert!(json_has_nul(br#"{"body":"poison \u0000 body"}"#));
        assert!(json_has_nul(b"{\"body\":\"a\0\"}"));
        assert!(!json_has_nul(br#"{"body":"a literal \\u0000"}"#));
        assert!(json_has_nul(br#"{"body":"\\\u0000"}"#));
        assert!(!json_has_nul(br#"{"body":"\u00e9 \n \" ok"}"#));
        assert!(!json_has_nul(br#"{"n":0}"#));
    }
}
