//! Graph API errors: the error JSON `{error: {message, type, code, error_subcode, fbtrace_id,
//! error_data}}` classified, and mapped to the core's catalogue.
//!
//! | class | when | retried |
//! |---|---|---|
//! | [`ErrorClass::Retryable`] | codes 4, 17, 32, 613 (app, user, page, call rate limits), 80007 (WABA rate limit), 130429 (throughput), 131056 (pair rate limit), 2 (service temporarily unavailable), 131000 with an HTTP 5xx, any HTTP 5xx or 429, an error flagged `is_transient`, a server that cannot be reached | yes, with backoff |
//! | [`ErrorClass::WindowClosed`] | 131047 (re-engagement: outside WhatsApp's 24 hours), Messenger 10 / 2018278 (outside the allowed window) | no |
//! | [`ErrorClass::Uncertain`] | the request was sent but no answer came (a timeout, a dropped connection) | no: it may have been taken, and a send is not idempotent |
//! | [`ErrorClass::Permanent`] | everything else (190 token, 10 / 200–299 permissions, 100 parameters, 131026 undeliverable, 132xxx templates, 368 policy, ...) | no |
//!
//! The throttling codes are refused before Meta processes the request, so retrying a send
//! after them cannot deliver it twice.
//!
//! **To the core** ([`GraphError::to_core`]), by what was being done ([`Operation`]): a send,
//! upload, reaction or read mark fails with `ERR_SENDING_WAPP_MSG`; a download with
//! `ERR_WAPP_DOWNLOAD_MEDIA`; the connect flow and template listing with
//! `ERR_INVALID_CREDENTIALS` when Meta refused the token, the app secret or a permission (190,
//! 102, 10, 200–299, an `OAuthException`)
//! and `ERR_WAPP_NOT_INITIALIZED` otherwise. The detail keeps Meta's code and message (the
//! provider's reason), never a token.

use chatflow_core::{Error, ErrorCode};
use serde::Deserialize;

/// What retrying a failed Graph call can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Rate limited or temporary: retry with backoff.
    Retryable,
    /// Outside the customer-service window: only a template (Cloud) or nothing (Messenger,
    /// Instagram) can be sent until the customer writes.
    WindowClosed,
    /// The request may have been taken: not retried, reconcile by the message id instead.
    Uncertain,
    /// Meta refused it for good.
    Permanent,
}

/// What was being done when a Graph call failed (chooses the core's code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Sending a message, a reaction or a read mark; uploading a file to send.
    Send,
    /// Downloading an inbound file.
    Download,
    /// The connect flow, the phone number's check, the template list.
    Account,
}

/// A failed Graph call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct GraphError {
    /// What retrying can do.
    pub class: ErrorClass,
    /// The answer's HTTP status (`None`: no answer).
    pub http_status: Option<u16>,
    /// Meta's `error.code`.
    pub code: Option<i64>,
    /// Meta's `error.error_subcode`.
    pub subcode: Option<i64>,
    /// Meta's `error.type` (`OAuthException`...).
    pub error_type: Option<String>,
    /// Meta's message, with `error_data.details` when given; or what went wrong on our side.
    pub message: String,
    /// Meta's trace id, for a support request.
    pub fbtrace_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Envelope {
    error: Option<Body>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Body {
    message: String,
    #[serde(rename = "type")]
    error_type: Option<String>,
    code: Option<i64>,
    error_subcode: Option<i64>,
    fbtrace_id: Option<String>,
    is_transient: Option<bool>,
    error_user_msg: Option<String>,
    error_data: Option<serde_json::Value>,
}

/// The codes Meta throttles with, refused before processing.
pub const RETRYABLE_CODES: &[i64] = &[2, 4, 17, 32, 613, 80007, 130429, 131056];

/// WhatsApp's "re-engagement message": a free-form send outside the 24 hours.
pub const CODE_WINDOW_CLOSED: i64 = 131047;

/// The class of an error with these parts.
pub fn classify(
    http_status: Option<u16>,
    code: Option<i64>,
    subcode: Option<i64>,
    is_transient: bool,
) -> ErrorClass {
    let server_error = http_status.is_some_and(|s| s >= 500);
    match code {
        Some(CODE_WINDOW_CLOSED) => ErrorClass::WindowClosed,
        Some(10) if subcode == Some(2_018_278) => ErrorClass::WindowClosed,
        Some(c) if RETRYABLE_CODES.contains(&c) => ErrorClass::Retryable,
        Some(131_000) if server_error => ErrorClass::Retryable,
        _ if server_error || http_status == Some(429) || is_transient => ErrorClass::Retryable,
        _ => ErrorClass::Permanent,
    }
}

impl GraphError {
    /// The error of an answer with status `status` and body `body` (Graph's error JSON, or
    /// anything else).
    pub fn from_answer(status: u16, body: &[u8]) -> Self {
        let parsed = serde_json::from_slice::<Envelope>(body)
            .ok()
            .and_then(|e| e.error);
        match parsed {
            Some(error) => {
                let details = error
                    .error_data
                    .as_ref()
                    .and_then(|d| d.get("details"))
                    .and_then(serde_json::Value::as_str)
                    .filter(|d| !d.trim().is_empty());
                let mut message = error.message.clone();
                if let Some(user) = error.error_user_msg.as_deref().filter(|m| !m.is_empty()) {
                    message = format!("{message} ({user})");
                }
                if let Some(details) = details {
                    message = format!("{message}: {details}");
                }
                GraphError {
                    class: classify(
                        Some(status),
                        error.code,
                        error.error_subcode,
                        error.is_transient.unwrap_or(false),
                    ),
                    http_status: Some(status),
                    code: error.code,
                    subcode: error.error_subcode,
                    error_type: error.error_type,
                    message: truncate(&message, 500),
                    fbtrace_id: error.fbtrace_id,
                }
            }
            None => GraphError {
                class: classify(Some(status), None, None, false),
                http_status: Some(status),
                code: None,
                subcode: None,
                error_type: None,
                message: format!("HTTP {status} without a Graph error"),
                fbtrace_id: None,
            },
        }
    }

    /// An error of ours (a refused answer, a check that failed), not retried.
    pub fn local(message: impl Into<String>) -> Self {
        GraphError {
            class: ErrorClass::Permanent,
            http_status: None,
            code: None,
            subcode: None,
            error_type: None,
            message: message.into(),
            fbtrace_id: None,
        }
    }

    /// A transport failure: a server that could not be reached is retryable; once the request
    /// went out, the outcome is uncertain.
    pub(crate) fn transport(error: &reqwest::Error) -> Self {
        let class = if error.is_connect() {
            ErrorClass::Retryable
        } else {
            ErrorClass::Uncertain
        };
        let reason = if error.is_connect() {
            "cannot connect to Graph".to_owned()
        } else if error.is_timeout() {
            "no answer from Graph in time".to_owned()
        } else {
            format!(
                "request to Graph failed: {}",
                crate::graph::without_url(error)
            )
        };
        GraphError {
            class,
            ..GraphError::local(reason)
        }
    }

    /// Whether Meta refused the token or a permission.
    pub fn is_auth(&self) -> bool {
        self.class == ErrorClass::Permanent && self.is_auth_code()
    }

    fn is_auth_code(&self) -> bool {
        matches!(self.code, Some(190 | 102 | 10 | 200..=299))
            || self.http_status == Some(401)
            || self.error_type.as_deref() == Some("OAuthException")
    }

    /// `code/subcode: message (fbtrace)`.
    fn describe(&self) -> String {
        let mut out = String::from("Graph");
        if let Some(code) = self.code {
            out.push_str(&format!(" {code}"));
            if let Some(sub) = self.subcode {
                out.push_str(&format!("/{sub}"));
            }
        } else if let Some(status) = self.http_status {
            out.push_str(&format!(" HTTP {status}"));
        }
        if self.class == ErrorClass::WindowClosed {
            out.push_str(" (outside the customer-service window)");
        }
        out.push_str(": ");
        out.push_str(&self.message);
        if let Some(trace) = &self.fbtrace_id {
            out.push_str(&format!(" [fbtrace_id {trace}]"));
        }
        out
    }

    /// The core's error for this failure while doing `operation` (see the module's
    /// documentation).
    pub fn to_core(&self, operation: Operation) -> Error {
        let code = match operation {
            Operation::Send => ErrorCode::ERR_SENDING_WAPP_MSG,
            Operation::Download => ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA,
            Operation::Account if self.is_auth() => ErrorCode::ERR_INVALID_CREDENTIALS,
            Operation::Account => ErrorCode::ERR_WAPP_NOT_INITIALIZED,
        };
        Error::with_detail(code, self.describe())
    }
}

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}
