//! The one error catalogue.
//!
//! [`ErrorCode`] holds every `ERR_*` code of the specification (spec 1 §8), serialised exactly as
//! written, plus the few codes the product adds for situations the specification leaves unnamed
//! (marked "ours" below). Mapping codes to HTTP statuses is the server's business, not the core's.

use serde::{Deserialize, Serialize};

/// Declares the catalogue once: the enum, its wire names and the list of every code.
macro_rules! catalogue {
    ($($(#[doc = $doc:literal])* $code:ident,)*) => {
        /// A stable error code, serialised exactly as its `ERR_*` name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[allow(non_camel_case_types)]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $code,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order: the specification's 25 first, then ours.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code,)*];

            /// The code exactly as it appears on the wire (a test checks it matches serde's
            /// output).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => stringify!($code),)*
                }
            }
        }
    };
}

catalogue! {
    /// At least one default connection must exist.
    ERR_NO_OTHER_WHATSAPP,
    /// No default connection found.
    ERR_NO_DEF_WAPP_FOUND,
    /// Connection not initialised.
    ERR_WAPP_NOT_INITIALIZED,
    /// Could not check the contact.
    ERR_WAPP_CHECK_CONTACT,
    /// Not a valid WhatsApp number.
    ERR_WAPP_INVALID_CONTACT,
    /// Media download failed.
    ERR_WAPP_DOWNLOAD_MEDIA,
    /// Authentication error, try again.
    ERR_INVALID_CREDENTIALS,
    /// Sending failed.
    ERR_SENDING_WAPP_MSG,
    /// Deleting a message failed.
    ERR_DELETE_WAPP_MSG,
    /// An open ticket already exists for the contact.
    ERR_OTHER_OPEN_TICKET,
    /// Session expired, please log in.
    ERR_SESSION_EXPIRED,
    /// User creation is disabled.
    ERR_USER_CREATION_DISABLED,
    /// No permission.
    ERR_NO_PERMISSION,
    /// Duplicate contact.
    ERR_DUPLICATED_CONTACT,
    /// Setting not found.
    ERR_NO_SETTING_FOUND,
    /// Contact not found.
    ERR_NO_CONTACT_FOUND,
    /// Ticket not found.
    ERR_NO_TICKET_FOUND,
    /// User not found.
    ERR_NO_USER_FOUND,
    /// Connection not found.
    ERR_NO_WAPP_FOUND,
    /// Creating a message failed.
    ERR_CREATING_MESSAGE,
    /// Creating a ticket failed.
    ERR_CREATING_TICKET,
    /// Fetching a message failed, the message may be too old.
    ERR_FETCH_WAPP_MSG,
    /// Queue colour must be unique.
    ERR_QUEUE_COLOR_ALREADY_EXISTS,
    /// A greeting is required when there is more than one queue.
    ERR_WAPP_GREETING_REQUIRED,
    /// Outside working hours.
    ERR_OUT_OF_HOURS,

    /// Ours: the request could not be read (malformed JSON, bad parameters).
    ERR_BAD_REQUEST,
    /// Ours: one or more fields break a validation rule; see [`Error::fields`].
    ERR_VALIDATION,
    /// Ours: no such route or entity.
    ERR_NOT_FOUND,
    /// Ours: the request body is larger than allowed.
    ERR_PAYLOAD_TOO_LARGE,
    /// Ours: too many attempts (login rate limit); try again later.
    ERR_TOO_MANY_ATTEMPTS,
    /// Ours: something failed on our side; details are logged, never sent.
    ERR_INTERNAL,
    /// Ours: the access token expired; the client refreshes and retries.
    ERR_TOKEN_EXPIRED,
    /// Ours: the company's subscription expired.
    ERR_SUBSCRIPTION_EXPIRED,
    /// Ours: self-service signup is disabled on this platform.
    ERR_SIGNUP_DISABLED,
    /// Ours: the company's plan allows no more users.
    ERR_USER_LIMIT_REACHED,
    /// Ours: the company's plan allows no more connections.
    ERR_CONNECTION_LIMIT_REACHED,
    /// Ours: the company's plan allows no more queues.
    ERR_QUEUE_LIMIT_REACHED,
    /// Ours: another user already has this e-mail.
    ERR_DUPLICATED_EMAIL,
    /// Ours: unknown setting key or a value outside the key's allowed values.
    ERR_INVALID_SETTING,
    /// Ours: a setting was enabled without the message it needs (spec 2 §5).
    ERR_SETTING_MESSAGE_REQUIRED,
    /// Ours: the ticket cannot make this transition from its current status.
    ERR_INVALID_TICKET_TRANSITION,
    /// Ours: closing needs at least one contact tag (setting requiredTag).
    ERR_TAG_REQUIRED,
    /// Ours: a transfer needs a queue.
    ERR_QUEUE_REQUIRED,
    /// Ours: the ticket is owned by another user.
    ERR_TICKET_OWNED_BY_OTHER,
    /// Ours: the company or plan named does not exist.
    ERR_NO_COMPANY_FOUND,
    /// Ours: the plan named does not exist.
    ERR_NO_PLAN_FOUND,
    /// Ours: the password-reset code is wrong, expired, already used or burnt by too many wrong
    /// attempts.
    ERR_INVALID_RESET_CODE,
    /// Ours: no mail server is configured, so mail (a password-reset code) cannot be sent.
    ERR_MAIL_NOT_CONFIGURED,
    /// Ours: an uploaded file is not a readable spreadsheet of an accepted type (xls, xlsx, csv,
    /// txt): "Arquivo inválido!".
    ERR_INVALID_FILE,
    /// Ours: the connection's channel cannot do what was asked (e.g. list its chats or read a
    /// contact's profile).
    ERR_CHANNEL_NOT_SUPPORTED,
    /// Ours: the flow named does not exist in the caller's company.
    ERR_NO_FLOW_FOUND,
    /// Ours: the phrase campaign named does not exist in the caller's company.
    ERR_NO_FLOW_CAMPAIGN_FOUND,
    /// Ours: the flow cannot be deleted while a connection (welcome or fallback flow) or a
    /// phrase campaign uses it.
    ERR_FLOW_IN_USE,
    /// Ours: the flow has errors and cannot be published; the response lists the issues.
    ERR_FLOW_INVALID,
    /// Ours: an uploaded flow medium is not of an accepted type (image png/jpg, audio ogg/mp3,
    /// video mp4).
    ERR_FLOW_MEDIA_TYPE,
    /// Ours: an uploaded flow medium is larger than its kind allows (2, 5 or 20 MB).
    ERR_FLOW_MEDIA_TOO_LARGE,
    /// Ours: the integration (an OpenAI-compatible assistant, Typebot) did not answer, refused
    /// the request or answered something unreadable.
    ERR_INTEGRATION_UNAVAILABLE,
    /// Ours: another quick message the owner sees already uses this shortcode.
    ERR_QUICK_MESSAGE_SHORTCODE_EXISTS,
    /// Ours: this server process no longer holds the lease on the connection's session (another
    /// process took it over, or it was released), so its write of the session's state was
    /// refused; the process holding the lease serves the connection.
    ERR_CHANNEL_LEASE_LOST,
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why one field failed validation. The web app translates these codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FieldCode {
    /// "Required" / "Obrigatório".
    Required,
    /// "Too Short!" / "Muito curto!".
    TooShort,
    /// "Too Long!" / "Muito extenso!".
    TooLong,
    /// "Invalid email" / "Email inválido".
    InvalidEmail,
    /// A number outside its allowed range.
    OutOfRange,
    /// A value in the wrong shape (time "HH:MM", colour, enum value...).
    InvalidFormat,
}

/// One field that failed validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FieldError {
    /// The field's wire name (camelCase).
    pub field: String,
    /// What is wrong with it.
    pub code: FieldCode,
}

impl FieldError {
    /// A field error for `field`.
    pub fn new(field: impl Into<String>, code: FieldCode) -> Self {
        Self {
            field: field.into(),
            code,
        }
    }
}

/// A domain error: a catalogue code, an optional detail for logs and humans, and field errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}{}", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
pub struct Error {
    /// The stable code sent to clients.
    pub code: ErrorCode,
    /// A human-readable detail. Never holds storage internals for client-facing codes.
    pub detail: Option<String>,
    /// Field errors, for [`ErrorCode::ERR_VALIDATION`].
    pub fields: Vec<FieldError>,
}

impl Error {
    /// An error with just a code.
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            detail: None,
            fields: Vec::new(),
        }
    }

    /// An error with a code and a detail.
    pub fn with_detail(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            code,
            detail: Some(detail.into()),
            fields: Vec::new(),
        }
    }

    /// A validation error listing the failing fields.
    pub fn validation(fields: Vec<FieldError>) -> Self {
        Self {
            code: ErrorCode::ERR_VALIDATION,
            detail: None,
            fields,
        }
    }

    /// An internal failure (storage, hashing...): the detail is for logs only.
    pub fn internal(detail: impl Into<String>) -> Self {
        Self::with_detail(ErrorCode::ERR_INTERNAL, detail)
    }
}

impl From<ErrorCode> for Error {
    fn from(code: ErrorCode) -> Self {
        Self::new(code)
    }
}

/// The core's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes spec 1 §8 lists, exactly as written there.
    const SPEC_CODES: [&str; 25] = [
        "ERR_NO_OTHER_WHATSAPP",
        "ERR_NO_DEF_WAPP_FOUND",
        "ERR_WAPP_NOT_INITIALIZED",
        "ERR_WAPP_CHECK_CONTACT",
        "ERR_WAPP_INVALID_CONTACT",
        "ERR_WAPP_DOWNLOAD_MEDIA",
        "ERR_INVALID_CREDENTIALS",
        "ERR_SENDING_WAPP_MSG",
        "ERR_DELETE_WAPP_MSG",
        "ERR_OTHER_OPEN_TICKET",
        "ERR_SESSION_EXPIRED",
        "ERR_USER_CREATION_DISABLED",
        "ERR_NO_PERMISSION",
        "ERR_DUPLICATED_CONTACT",
        "ERR_NO_SETTING_FOUND",
        "ERR_NO_CONTACT_FOUND",
        "ERR_NO_TICKET_FOUND",
        "ERR_NO_USER_FOUND",
        "ERR_NO_WAPP_FOUND",
        "ERR_CREATING_MESSAGE",
        "ERR_CREATING_TICKET",
        "ERR_FETCH_WAPP_MSG",
        "ERR_QUEUE_COLOR_ALREADY_EXISTS",
        "ERR_WAPP_GREETING_REQUIRED",
        "ERR_OUT_OF_HOURS",
    ];

    #[test]
    fn all_lists_every_code_once() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{code} is listed twice");
        }
    }

    #[test]
    fn serde_name_equals_as_str_equals_variant_name() {
        for &code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).expect("serialises");
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            assert_eq!(
                code.as_str(),
                format!("{code:?}"),
                "as_str is the variant name"
            );
            assert_eq!(code.to_string(), code.as_str());
            assert!(code.as_str().starts_with("ERR_"), "{code}");
            let back: ErrorCode = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(back, code);
        }
    }

    #[test]
    fn the_specifications_codes_are_all_present_and_first() {
        for (i, name) in SPEC_CODES.iter().enumerate() {
            let code: ErrorCode =
                serde_json::from_value(serde_json::Value::String((*name).to_owned()))
                    .unwrap_or_else(|e| panic!("{name} is missing: {e}"));
            assert_eq!(ErrorCode::ALL[i], code);
        }
    }

    #[test]
    fn unknown_codes_are_refused() {
        assert!(serde_json::from_str::<ErrorCode>("\"ERR_NOPE\"").is_err());
        assert!(serde_json::from_str::<ErrorCode>("\"err_no_permission\"").is_err());
    }

    #[test]
    fn errors_display_their_code_and_detail() {
        assert_eq!(
            Error::new(ErrorCode::ERR_NOT_FOUND).to_string(),
            "ERR_NOT_FOUND"
        );
        let err = Error::with_detail(ErrorCode::ERR_BAD_REQUEST, "pageNumber must be a number");
        assert_eq!(
            err.to_string(),
            "ERR_BAD_REQUEST: pageNumber must be a number"
        );
        let err = Error::validation(vec![FieldError::new("name", FieldCode::TooShort)]);
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(err.fields.len(), 1);
        assert_eq!(
            Error::from(ErrorCode::ERR_INTERNAL).code,
            ErrorCode::ERR_INTERNAL
        );
        assert_eq!(
            Error::internal("disk full").detail.as_deref(),
            Some("disk full")
        );
    }

    #[test]
    fn field_codes_are_screaming_snake_case() {
        let json = serde_json::to_string(&FieldError::new("email", FieldCode::InvalidEmail))
            .expect("serialises");
        assert_eq!(json, r#"{"field":"email","code":"INVALID_EMAIL"}"#);
        let codes: Vec<String> = [
            FieldCode::Required,
            FieldCode::TooShort,
            FieldCode::TooLong,
            FieldCode::InvalidEmail,
            FieldCode::OutOfRange,
            FieldCode::InvalidFormat,
        ]
        .iter()
        .map(|c| serde_json::to_string(c).expect("serialises"))
        .collect();
        assert_eq!(
            codes,
            [
                "\"REQUIRED\"",
                "\"TOO_SHORT\"",
                "\"TOO_LONG\"",
                "\"INVALID_EMAIL\"",
                "\"OUT_OF_RANGE\"",
                "\"INVALID_FORMAT\""
            ]
        );
    }
}
