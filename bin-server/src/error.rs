//! The one HTTP error table: every catalogue code with its status and its client message.
//!
//! Handlers return [`ApiError`]; it becomes `{"error": code, "message": text, "fields"?: [...]}`
//! with the status of [`status_of`]. The message is a fixed text per code, never the error's
//! detail, so nothing from storage or other internals reaches a client. Server-side failures
//! (5xx) are logged with their cause chain and answered with the opaque `ERR_INTERNAL`.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chatflow_core::{Error, ErrorCode, FieldError};
use serde::Serialize;

/// The JSON body of every error response.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The stable `ERR_*` code; the web app translates it.
    #[schema(value_type = String, example = "ERR_NO_PERMISSION")]
    pub error: ErrorCode,
    /// A human-readable English message.
    pub message: String,
    /// The fields that failed validation, for `ERR_VALIDATION` and setting errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldError>,
}

/// An error answered to an HTTP client.
#[derive(Debug)]
pub struct ApiError {
    error: Error,
    /// Seconds before a retry makes sense (`Retry-After`), for rate limits.
    retry_after: Option<u64>,
    /// The underlying cause of an internal error, logged and never sent.
    cause: Option<anyhow::Error>,
}

impl ApiError {
    /// An error with only a code.
    pub fn code(code: ErrorCode) -> Self {
        Self {
            error: Error::new(code),
            retry_after: None,
            cause: None,
        }
    }

    /// An internal failure: logged with its cause chain, answered as an opaque 500.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        Self {
            error: Error::new(ErrorCode::ERR_INTERNAL),
            retry_after: None,
            cause: Some(cause.into()),
        }
    }

    /// Adds a `Retry-After` header (seconds).
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The catalogue code of this error.
    pub fn error_code(&self) -> ErrorCode {
        self.error.code
    }
}

impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        Self {
            error,
            retry_after: None,
            cause: None,
        }
    }
}

impl From<ErrorCode> for ApiError {
    fn from(code: ErrorCode) -> Self {
        Self::code(code)
    }
}

/// The HTTP status of a catalogue code.
pub fn status_of(code: ErrorCode) -> StatusCode {
    use ErrorCode::*;
    match code {
        ERR_BAD_REQUEST | ERR_INVALID_RESET_CODE | ERR_INVALID_FILE => StatusCode::BAD_REQUEST,
        ERR_INVALID_CREDENTIALS | ERR_SESSION_EXPIRED => StatusCode::UNAUTHORIZED,
        ERR_SUBSCRIPTION_EXPIRED => StatusCode::PAYMENT_REQUIRED,
        ERR_TOKEN_EXPIRED
        | ERR_NO_PERMISSION
        | ERR_USER_CREATION_DISABLED
        | ERR_SIGNUP_DISABLED
        | ERR_USER_LIMIT_REACHED
        | ERR_CONNECTION_LIMIT_REACHED
        | ERR_QUEUE_LIMIT_REACHED
        | ERR_TICKET_OWNED_BY_OTHER
        | ERR_OUT_OF_HOURS => StatusCode::FORBIDDEN,
        ERR_NOT_FOUND
        | ERR_NO_SETTING_FOUND
        | ERR_NO_CONTACT_FOUND
        | ERR_NO_TICKET_FOUND
        | ERR_NO_USER_FOUND
        | ERR_NO_WAPP_FOUND
        | ERR_NO_DEF_WAPP_FOUND
        | ERR_NO_COMPANY_FOUND
        | ERR_NO_PLAN_FOUND
        | ERR_NO_FLOW_FOUND
        | ERR_NO_FLOW_CAMPAIGN_FOUND => StatusCode::NOT_FOUND,
        ERR_DUPLICATED_EMAIL
        | ERR_DUPLICATED_CONTACT
        | ERR_OTHER_OPEN_TICKET
        | ERR_QUEUE_COLOR_ALREADY_EXISTS
        | ERR_NO_OTHER_WHATSAPP
        | ERR_INVALID_TICKET_TRANSITION
        | ERR_FLOW_IN_USE
        | ERR_QUICK_MESSAGE_SHORTCODE_EXISTS => StatusCode::CONFLICT,
        ERR_PAYLOAD_TOO_LARGE | ERR_FLOW_MEDIA_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
        ERR_VALIDATION
        | ERR_INVALID_SETTING
        | ERR_SETTING_MESSAGE_REQUIRED
        | ERR_WAPP_GREETING_REQUIRED
        | ERR_WAPP_INVALID_CONTACT
        | ERR_TAG_REQUIRED
        | ERR_QUEUE_REQUIRED
        | ERR_CHANNEL_NOT_SUPPORTED
        | ERR_FLOW_INVALID
        | ERR_FLOW_MEDIA_TYPE => StatusCode::UNPROCESSABLE_ENTITY,
        ERR_TOO_MANY_ATTEMPTS => StatusCode::TOO_MANY_REQUESTS,
        ERR_WAPP_NOT_INITIALIZED
        | ERR_WAPP_CHECK_CONTACT
        | ERR_WAPP_DOWNLOAD_MEDIA
        | ERR_SENDING_WAPP_MSG
        | ERR_DELETE_WAPP_MSG
        | ERR_FETCH_WAPP_MSG
        | ERR_INTEGRATION_UNAVAILABLE => StatusCode::BAD_GATEWAY,
        ERR_CREATING_MESSAGE | ERR_CREATING_TICKET | ERR_INTERNAL => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
        ERR_MAIL_NOT_CONFIGURED | ERR_CHANNEL_LEASE_LOST => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// The English message sent with a catalogue code.
pub fn message_of(code: ErrorCode) -> &'static str {
    use ErrorCode::*;
    match code {
        ERR_NO_OTHER_WHATSAPP => "At least one default connection must exist.",
        ERR_NO_DEF_WAPP_FOUND => "No default connection found.",
        ERR_WAPP_NOT_INITIALIZED => "The connection is not initialised.",
        ERR_WAPP_CHECK_CONTACT => "Could not check the contact.",
        ERR_WAPP_INVALID_CONTACT => "This is not a valid WhatsApp number.",
        ERR_WAPP_DOWNLOAD_MEDIA => "The media could not be downloaded.",
        ERR_INVALID_CREDENTIALS => "Authentication error, please try again.",
        ERR_SENDING_WAPP_MSG => "The message could not be sent.",
        ERR_DELETE_WAPP_MSG => "The message could not be deleted.",
        ERR_OTHER_OPEN_TICKET => "An open ticket already exists for this contact.",
        ERR_SESSION_EXPIRED => "Session expired, please log in.",
        ERR_USER_CREATION_DISABLED => "User creation is disabled.",
        ERR_NO_PERMISSION => "You do not have permission to do this.",
        ERR_DUPLICATED_CONTACT => "This contact already exists.",
        ERR_NO_SETTING_FOUND => "Setting not found.",
        ERR_NO_CONTACT_FOUND => "Contact not found.",
        ERR_NO_TICKET_FOUND => "Ticket not found.",
        ERR_NO_USER_FOUND => "User not found.",
        ERR_NO_WAPP_FOUND => "Connection not found.",
        ERR_CREATING_MESSAGE => "The message could not be created.",
        ERR_CREATING_TICKET => "The ticket could not be created.",
        ERR_FETCH_WAPP_MSG => "The message could not be fetched; it may be too old.",
        ERR_QUEUE_COLOR_ALREADY_EXISTS => "Another queue already uses this colour.",
        ERR_WAPP_GREETING_REQUIRED => "A greeting is required when there is more than one queue.",
        ERR_OUT_OF_HOURS => "Outside working hours.",
        ERR_BAD_REQUEST => "The request could not be read.",
        ERR_VALIDATION => "Some fields are not valid.",
        ERR_NOT_FOUND => "Not found.",
        ERR_PAYLOAD_TOO_LARGE => "The request is too large.",
        ERR_TOO_MANY_ATTEMPTS => "Too many attempts, please try again later.",
        ERR_INTERNAL => "Something went wrong on our side.",
        ERR_TOKEN_EXPIRED => "The access token expired.",
        ERR_SUBSCRIPTION_EXPIRED => "The company's subscription expired; please contact support.",
        ERR_SIGNUP_DISABLED => "Signup is disabled.",
        ERR_USER_LIMIT_REACHED => "The company's plan allows no more users.",
        ERR_CONNECTION_LIMIT_REACHED => "The company's plan allows no more connections.",
        ERR_QUEUE_LIMIT_REACHED => "The company's plan allows no more queues.",
        ERR_DUPLICATED_EMAIL => "Another user already has this e-mail.",
        ERR_INVALID_SETTING => "Unknown setting or invalid value.",
        ERR_SETTING_MESSAGE_REQUIRED => "This option needs its message to be filled in.",
        ERR_INVALID_TICKET_TRANSITION => "The ticket cannot make this change from its status.",
        ERR_TAG_REQUIRED => "Add at least one tag to the contact before closing.",
        ERR_QUEUE_REQUIRED => "Choose a queue.",
        ERR_TICKET_OWNED_BY_OTHER => "Another user is handling this ticket.",
        ERR_NO_COMPANY_FOUND => "Company not found.",
        ERR_NO_PLAN_FOUND => "Plan not found.",
        ERR_INVALID_RESET_CODE => "The code is wrong, expired or already used; request a new one.",
        ERR_INVALID_FILE => "Invalid file: send an xls, xlsx, csv or txt spreadsheet.",
        ERR_CHANNEL_NOT_SUPPORTED => "This connection's channel cannot do that.",
        ERR_NO_FLOW_FOUND => "Flow not found.",
        ERR_NO_FLOW_CAMPAIGN_FOUND => "Phrase campaign not found.",
        ERR_FLOW_IN_USE => "A connection or a phrase campaign uses this flow.",
        ERR_FLOW_INVALID => "The flow has errors; fix them before publishing.",
        ERR_FLOW_MEDIA_TYPE => "This file type is not accepted here.",
        ERR_FLOW_MEDIA_TOO_LARGE => "The file is too large.",
        ERR_INTEGRATION_UNAVAILABLE => "The integration did not answer; please try again later.",
        ERR_QUICK_MESSAGE_SHORTCODE_EXISTS => "Another quick message already uses this shortcode.",
        ERR_CHANNEL_LEASE_LOST => {
            "Another server is serving this connection now; please try again in a moment."
        }
        ERR_MAIL_NOT_CONFIGURED => {
            "This server cannot send e-mail yet, so no code was sent; please contact the administrator."
        }
    }
}

/// A JSON error response for `code`, for middleware that has no [`ApiError`] at hand.
pub fn response_for(code: ErrorCode) -> Response {
    ApiError::code(code).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.error.code;
        let status = status_of(code);
        if status.is_server_error() {
            match &self.cause {
                Some(cause) => tracing::error!(error.code = %code, "request failed: {cause:#}"),
                None => tracing::error!(error.code = %code, "request failed: {}", self.error),
            }
        } else if let Some(detail) = &self.error.detail {
            tracing::debug!(error.code = %code, %detail, "request refused");
        }
        // Internal failures never expose their fields or details.
        let fields = if status.is_server_error() {
            Vec::new()
        } else {
            self.error.fields
        };
        let body = ErrorBody {
            error: code,
            message: message_of(code).to_owned(),
            fields,
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(seconds) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

/// A handler's result.
pub type ApiResult<T> = Result<T, ApiError>;

/// A multipart body that could not be read: 413 `ERR_PAYLOAD_TOO_LARGE` past the body limit,
/// otherwise 400 `ERR_BAD_REQUEST`. Shared by every upload route.
pub fn multipart_error(error: axum::extract::multipart::MultipartError) -> ApiError {
    if error.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::code(ErrorCode::ERR_PAYLOAD_TOO_LARGE)
    } else {
        tracing::debug!(%error, "unreadable multipart body");
        ApiError::code(ErrorCode::ERR_BAD_REQUEST)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_statuses() {
        assert_eq!(
            status_of(ErrorCode::ERR_BAD_REQUEST),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status_of(ErrorCode::ERR_VALIDATION),
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert_eq!(
            status_of(ErrorCode::ERR_SESSION_EXPIRED),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            status_of(ErrorCode::ERR_TOKEN_EXPIRED),
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            status_of(ErrorCode::ERR_NO_PERMISSION),
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            status_of(ErrorCode::ERR_SUBSCRIPTION_EXPIRED),
            StatusCode::PAYMENT_REQUIRED
        );
        assert_eq!(
            status_of(ErrorCode::ERR_NO_USER_FOUND),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status_of(ErrorCode::ERR_DUPLICATED_EMAIL),
            StatusCode::CONFLICT
        );
        assert_eq!(
            status_of(ErrorCode::ERR_PAYLOAD_TOO_LARGE),
            StatusCode::PAYLOAD_TOO_LARGE
        );
        assert_eq!(
            status_of(ErrorCode::ERR_TOO_MANY_ATTEMPTS),
            StatusCode::TOO_MANY_REQUESTS
        );
        assert_eq!(
            status_of(ErrorCode::ERR_USER_LIMIT_REACHED),
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            status_of(ErrorCode::ERR_INTERNAL),
            StatusCode::INTERNAL_SERVER_ERROR
        );
        assert_eq!(
            status_of(ErrorCode::ERR_INVALID_RESET_CODE),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status_of(ErrorCode::ERR_MAIL_NOT_CONFIGURED),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            status_of(ErrorCode::ERR_INTEGRATION_UNAVAILABLE),
            StatusCode::BAD_GATEWAY
        );
        assert_eq!(
            status_of(ErrorCode::ERR_CHANNEL_LEASE_LOST),
            StatusCode::SERVICE_UNAVAILABLE
        );
    }

    #[tokio::test]
    async fn internal_details_never_reach_the_body() {
        let error =
            Error::internal("duplicate key value violates unique constraint \"users_pkey\"");
        let response = ApiError::from(error).into_response();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .expect("a body");
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(body["error"], "ERR_INTERNAL");
        assert!(!String::from_utf8_lossy(&bytes).contains("constraint"));
    }

    #[tokio::test]
    async fn validation_errors_carry_their_fields() {
        let error = Error::validation(vec![FieldError::new(
            "name",
            chatflow_core::error::FieldCode::TooShort,
        )]);
        let response = ApiError::from(error).into_response();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let bytes = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .expect("a body");
        let body: serde_json::Value = serde_json::from_slice(&bytes).expect("JSON");
        assert_eq!(
            body["fields"],
            serde_json::json!([{"field": "name", "code": "TOO_SHORT"}])
        );
    }

    #[test]
    fn retry_after_is_a_header() {
        let response = ApiError::code(ErrorCode::ERR_TOO_MANY_ATTEMPTS)
            .retry_after(42)
            .into_response();
        assert_eq!(
            response
                .headers()
                .get(header::RETRY_AFTER)
                .map(|v| v.as_bytes()),
            Some(&b"42"[..])
        );
    }
}
