//! Sign-in, refresh, sign-out, the current user, signup and the public plan list.
//!
//! The refresh token travels only in the httpOnly cookie `jrt` (path `/auth`, SameSite=Lax),
//! rotated on every use; the access token is returned in the body and sent back as a bearer
//! token. Sign-in attempts are rate limited per client address, and failures per account with
//! a growing backoff that holds back only the addresses that failed (see [`crate::rate_limit`]).

use std::time::Instant;

use axum::extract::State;
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chatflow_core::ErrorCode;
use chatflow_core::service::auth::{self, SessionGrant, SessionInfo, SignupInput, SignupResult};
use chatflow_core::service::users::UserView;
use chatflow_core::tenancy::{Plan, Subscription};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{ClientIp, Json, Session};
use crate::rate_limit::retry_after_secs;
use crate::state::AppState;

/// The refresh cookie's name.
pub const REFRESH_COOKIE: &str = "jrt";
/// The refresh cookie's path: only the auth routes ever see it.
pub const REFRESH_COOKIE_PATH: &str = "/auth";

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh_token))
        .routes(routes!(logout))
        .routes(routes!(me))
        .routes(routes!(signup))
        .routes(routes!(list_public_plans))
}

/// Sign-in credentials.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct Credentials {
    /// The e-mail (case does not matter).
    pub email: String,
    /// The password.
    pub password: String,
}

/// What sign-in and refresh answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthResponse {
    /// The access token (JWT) to send as `Authorization: Bearer`.
    pub token: String,
    /// The signed-in user.
    pub user: UserView,
    /// Capability names the policy grants the user.
    pub permissions: Vec<String>,
    /// The company's subscription.
    pub subscription: Subscription,
    /// This sign-in's session id (the `sessionId` of `company-{id}-auth` events).
    pub session_id: uuid::Uuid,
}

/// What `GET /auth/me` answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeResponse {
    /// The user, permissions and subscription.
    #[serde(flatten)]
    pub info: SessionInfo,
    /// The session id of the access token used.
    pub session_id: uuid::Uuid,
}

/// Signs in with e-mail and password; sets the refresh cookie.
#[utoipa::path(
    post,
    path = "/auth/login",
    tag = "auth",
    request_body = Credentials,
    responses(
        (status = 200, description = "Signed in; the `jrt` cookie is set", body = AuthResponse),
        (status = 401, description = "ERR_INVALID_CREDENTIALS", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
    )
)]
async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Json(credentials): Json<Credentials>,
) -> ApiResult<Response> {
    if let Err(wait) = state
        .limiter
        .check_login(ip, &credentials.email, Instant::now())
    {
        return Err(
            ApiError::code(ErrorCode::ERR_TOO_MANY_ATTEMPTS).retry_after(retry_after_secs(wait))
        );
    }
    let now = state.ports.clock.now();
    let grant = match auth::login(
        &state.ports,
        &credentials.email,
        &credentials.password,
        state.sessions,
        now,
    )
    .await
    {
        Ok(grant) => {
            state.limiter.record_success(&credentials.email);
            grant
        }
        Err(error) => {
            if error.code == ErrorCode::ERR_INVALID_CREDENTIALS {
                state
                    .limiter
                    .record_failure(ip, &credentials.email, Instant::now());
            }
            return Err(error.into());
        }
    };
    session_response(&state, grant)
}

/// Rotates the refresh cookie and issues a new access token.
#[utoipa::path(
    post,
    path = "/auth/refresh_token",
    tag = "auth",
    responses(
        (status = 200, description = "A new access token; the `jrt` cookie is rotated", body = AuthResponse),
        (status = 401, description = "ERR_SESSION_EXPIRED: missing, expired, revoked or reused cookie", body = ErrorBody),
    )
)]
async fn refresh_token(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    let token = refresh_cookie_of(&headers).ok_or(ErrorCode::ERR_SESSION_EXPIRED)?;
    let now = state.ports.clock.now();
    match auth::refresh(&state.ports, &token, state.sessions, now).await {
        Ok(grant) => session_response(&state, grant),
        Err(error) => {
            // A dead cookie is cleared so the browser stops sending it.
            let mut response = ApiError::from(error).into_response();
            response
                .headers_mut()
                .append(SET_COOKIE, clear_cookie(&state));
            Ok(response)
        }
    }
}

/// Signs out: revokes the session family of the refresh cookie (or of the access token) and
/// clears the cookie.
#[utoipa::path(
    delete,
    path = "/auth/logout",
    tag = "auth",
    responses((status = 204, description = "Signed out"))
)]
async fn logout(State(state): State<AppState>, headers: HeaderMap) -> ApiResult<Response> {
    if let Some(token) = refresh_cookie_of(&headers) {
        auth::logout(&state.ports, &token).await?;
    } else if let Ok(session) = crate::extract::authenticate(&state, bearer_of(&headers)).await {
        auth::logout_family(&state.ports, &session.actor, session.claims.sid).await?;
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    response
        .headers_mut()
        .append(SET_COOKIE, clear_cookie(&state));
    Ok(response)
}

/// The signed-in user, permissions and subscription.
#[utoipa::path(
    get,
    path = "/auth/me",
    tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, body = MeResponse),
        (status = 401, description = "ERR_SESSION_EXPIRED", body = ErrorBody),
        (status = 403, description = "ERR_TOKEN_EXPIRED: refresh and retry", body = ErrorBody),
    )
)]
async fn me(State(state): State<AppState>, session: Session) -> ApiResult<axum::Json<MeResponse>> {
    let now = state.ports.clock.now();
    let session_id = session.claims.sid;
    let info = auth::me(&state.ports, session.user, now).await?;
    Ok(axum::Json(MeResponse { info, session_id }))
}

/// Creates a company on a public plan with its first user, an admin.
#[utoipa::path(
    post,
    path = "/auth/signup",
    tag = "auth",
    request_body = SignupInput,
    responses(
        (status = 201, body = SignupResult),
        (status = 403, description = "ERR_SIGNUP_DISABLED or ERR_USER_CREATION_DISABLED", body = ErrorBody),
        (status = 409, description = "ERR_DUPLICATED_EMAIL", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn signup(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Json(input): Json<SignupInput>,
) -> ApiResult<(StatusCode, axum::Json<SignupResult>)> {
    // Signup hashes a password like sign-in does, so it shares the sign-in rate limit.
    if let Err(wait) = state.limiter.check(ip, &input.email) {
        return Err(
            ApiError::code(ErrorCode::ERR_TOO_MANY_ATTEMPTS).retry_after(retry_after_secs(wait))
        );
    }
    let now = state.ports.clock.now();
    let created = auth::signup(&state.ports, input, now).await?;
    Ok((StatusCode::CREATED, axum::Json(created)))
}

/// The plans offered on the signup page (no sign-in needed).
#[utoipa::path(
    get,
    path = "/plans/list",
    tag = "auth",
    responses((status = 200, body = Vec<Plan>))
)]
async fn list_public_plans(State(state): State<AppState>) -> ApiResult<axum::Json<Vec<Plan>>> {
    Ok(axum::Json(auth::public_plans(&state.ports).await?))
}

fn session_response(state: &AppState, grant: SessionGrant) -> ApiResult<Response> {
    let now = state.ports.clock.now();
    let token = state
        .tokens
        .issue(&grant.user.user, grant.session.family, now)
        .map_err(ApiError::internal)?;
    // A refresh that lost the race to a concurrent one sets no cookie: the family keeps one
    // live refresh token, the winner's.
    let cookie = grant
        .refresh_token
        .as_deref()
        .map(|token| set_cookie(state, token))
        .transpose()?;
    let body = AuthResponse {
        token,
        user: grant.user,
        permissions: grant.permissions,
        subscription: grant.subscription,
        session_id: grant.session.family,
    };
    let mut response = axum::Json(body).into_response();
    if let Some(cookie) = cookie {
        response.headers_mut().append(SET_COOKIE, cookie);
    }
    Ok(response)
}

fn bearer_of(headers: &HeaderMap) -> Option<&str> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of the refresh cookie, if the request carries one.
pub fn refresh_cookie_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == REFRESH_COOKIE)
        .map(|(_, value)| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

fn set_cookie(state: &AppState, token: &str) -> ApiResult<HeaderValue> {
    let max_age = state.sessions.refresh_ttl.num_seconds().max(0);
    let secure = if state.cookie_secure { "; Secure" } else { "" };
    let text = format!(
        "{REFRESH_COOKIE}={token}; Path={REFRESH_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    );
    HeaderValue::from_str(&text).map_err(ApiError::internal)
}

fn clear_cookie(state: &AppState) -> HeaderValue {
    let secure = if state.cookie_secure { "; Secure" } else { "" };
    let text = format!(
        "{REFRESH_COOKIE}=; Path={REFRESH_COOKIE_PATH}; HttpOnly; SameSite=Lax; Max-Age=0{secure}"
    );
    HeaderValue::from_str(&text)
        .unwrap_or_else(|_| HeaderValue::from_static("jrt=; Path=/auth; Max-Age=0"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_refresh_cookie_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            HeaderValue::from_static("theme=dark; jrt=abc123; other=x"),
        );
        assert_eq!(refresh_cookie_of(&headers).as_deref(), Some("abc123"));
        headers.insert(COOKIE, HeaderValue::from_static("jrtx=nope; jrt="));
        assert_eq!(refresh_cookie_of(&headers), None);
    }
}
