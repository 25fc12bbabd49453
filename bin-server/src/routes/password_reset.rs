//! Password reset (spec 3 §2.11, §7): `POST /forgetpassword/{email}` mails a code,
//! `POST /resetpasswords/{email}/{token}/{newPassword}` sets a new password with it.
//!
//! Both are public (no bearer token) and share the sign-in rate limit, per client address and
//! per e-mail. The web app puts the code and the new password in the path, as the specification
//! says; the request log hides those segments ([`crate::request_log`]). The rules are the core's
//! (`chatflow_core::service::password_reset`).

use axum::extract::State;
use chatflow_core::ErrorCode;
use chatflow_core::service::password_reset;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{ClientIp, Path};
use crate::rate_limit::retry_after_secs;
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(forget_password))
        .routes(routes!(reset_password))
}

/// What both steps answer on success.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ResetMessage {
    /// A human-readable English confirmation; the web app shows its own text.
    pub message: &'static str,
}

/// Counts one attempt against the sign-in rate limit.
fn limit(state: &AppState, ip: std::net::IpAddr, email: &str) -> ApiResult<()> {
    state.limiter.check(ip, email).map_err(|wait| {
        ApiError::code(ErrorCode::ERR_TOO_MANY_ATTEMPTS).retry_after(retry_after_secs(wait))
    })
}

/// Mails a 6-digit reset code, valid 15 minutes, to the user with this e-mail; earlier codes of
/// the user stop working.
#[utoipa::path(
    post,
    path = "/forgetpassword/{email}",
    tag = "auth",
    params(("email" = String, Path, description = "The account's e-mail (case does not matter)")),
    responses(
        (status = 200, description = "The code was mailed", body = ResetMessage),
        (status = 404, description = "ERR_NO_USER_FOUND: no account has this e-mail", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION: not an e-mail address (field `email`)", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
        (status = 503, description = "ERR_MAIL_NOT_CONFIGURED: the server has no SMTP server configured", body = ErrorBody),
    )
)]
async fn forget_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Path(email): Path<String>,
) -> ApiResult<axum::Json<ResetMessage>> {
    limit(&state, ip, &email)?;
    let now = state.ports.clock.now();
    password_reset::request(&state.ports, &email, now).await?;
    Ok(axum::Json(ResetMessage {
        message: "A password reset code was sent to the e-mail.",
    }))
}

/// Sets a new password with a code from `POST /forgetpassword/{email}`; every session of the
/// user is signed out. At most 5 attempts per code; a code works once.
#[utoipa::path(
    post,
    path = "/resetpasswords/{email}/{token}/{newPassword}",
    tag = "auth",
    params(
        ("email" = String, Path, description = "The account's e-mail (case does not matter)"),
        ("token" = String, Path, description = "The 6-digit code from the mail"),
        ("newPassword" = String, Path, description = "At least 8 characters with an upper-case letter, a lower-case letter and a digit"),
    ),
    responses(
        (status = 200, description = "The password was changed", body = ResetMessage),
        (status = 400, description = "ERR_INVALID_RESET_CODE: wrong, expired, used or burnt code", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION: the new password breaks the rule (field `newPassword`)", body = ErrorBody),
        (status = 429, description = "ERR_TOO_MANY_ATTEMPTS, with Retry-After", body = ErrorBody),
    )
)]
async fn reset_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    Path((email, token, new_password)): Path<(String, String, String)>,
) -> ApiResult<axum::Json<ResetMessage>> {
    limit(&state, ip, &email)?;
    let now = state.ports.clock.now();
    password_reset::reset(&state.ports, &email, &token, &new_password, now).await?;
    Ok(axum::Json(ResetMessage {
        message: "The password was changed.",
    }))
}
