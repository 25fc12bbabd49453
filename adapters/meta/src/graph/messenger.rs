//! The Send API of Messenger and Instagram: `POST /{v}/{page_id}/messages` with the page's
//! token (Instagram through the page its professional account is linked to).
//!
//! ```json
//! { "recipient": { "id": "<PSID or IGSID>" },
//!   "messaging_type": "RESPONSE" | "MESSAGE_TAG", "tag": "HUMAN_AGENT",
//!   "message": { "text": "…" } | { "attachment": { "type": "image|video|audio|file",
//!                                                   "payload": { "url": "…", "is_reusable": true } } } }
//! ```
//!
//! The send mode comes from the time of the customer's last message
//! ([`crate::window::messenger_send_mode`]): `RESPONSE` within 24 hours, `MESSAGE_TAG` with
//! `HUMAN_AGENT` within 7 days, and beyond that nothing is sent (a window error, no call).

use chrono::{DateTime, Utc};
use reqwest::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Body, GraphClient, GraphError};
use crate::window::{WindowClosed, messenger_send_mode};

/// A page (or the page an Instagram account is linked to) and its token.
#[derive(Clone, PartialEq, Eq)]
pub struct PageAccount {
    /// The page's id.
    pub page_id: String,
    /// The page's token.
    pub access_token: String,
}

impl std::fmt::Debug for PageAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageAccount")
            .field("page_id", &self.page_id)
            .field("access_token", &"<redacted>")
            .finish()
    }
}

/// The kind of an attachment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachmentKind {
    /// A photo.
    Image,
    /// A video.
    Video,
    /// An audio.
    Audio,
    /// Any other file.
    File,
}

impl AttachmentKind {
    const fn as_str(self) -> &'static str {
        match self {
            AttachmentKind::Image => "image",
            AttachmentKind::Video => "video",
            AttachmentKind::Audio => "audio",
            AttachmentKind::File => "file",
        }
    }
}

/// What a Messenger or Instagram message says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageContent {
    /// A text (1–2000 characters).
    Text(String),
    /// A file at a public HTTPS URL Meta fetches.
    Attachment {
        /// Which kind of file.
        kind: AttachmentKind,
        /// Where Meta fetches it (HTTPS).
        url: String,
    },
}

/// Why a Send API call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PageSendError {
    /// The customer's last message is too old (or absent): nothing was sent.
    #[error("{0}")]
    WindowClosed(WindowClosed),
    /// The message is empty or its URL not HTTPS: nothing was sent.
    #[error("{0}")]
    Invalid(String),
    /// Graph refused it.
    #[error("{0}")]
    Graph(GraphError),
}

impl PageSendError {
    /// The core's error: `ERR_VALIDATION` for an invalid message, `ERR_SENDING_WAPP_MSG`
    /// otherwise (with the window or Meta's reason as the detail).
    pub fn to_core(&self) -> chatflow_core::Error {
        match self {
            PageSendError::Invalid(why) => chatflow_core::Error::with_detail(
                chatflow_core::ErrorCode::ERR_VALIDATION,
                why.clone(),
            ),
            PageSendError::WindowClosed(closed) => chatflow_core::Error::with_detail(
                chatflow_core::ErrorCode::ERR_SENDING_WAPP_MSG,
                closed.to_string(),
            ),
            PageSendError::Graph(e) => e.to_core(super::Operation::Send),
        }
    }
}

#[derive(Debug, Deserialize)]
struct SendAnswer {
    message_id: String,
}

/// The JSON of a Send API message to `recipient` (PSID or IGSID) in `mode`.
pub fn page_message_json(
    recipient: &str,
    content: &PageContent,
    mode: crate::window::SendMode,
) -> Result<Value, PageSendError> {
    if recipient.trim().is_empty() {
        return Err(PageSendError::Invalid("no recipient".to_owned()));
    }
    let message = match content {
        PageContent::Text(text) => {
            if text.trim().is_empty() || text.chars().count() > 2000 {
                return Err(PageSendError::Invalid(
                    "a Messenger text is 1 to 2000 characters".to_owned(),
                ));
            }
            json!({ "text": text })
        }
        PageContent::Attachment { kind, url } => {
            if !url.starts_with("https://") {
                return Err(PageSendError::Invalid(
                    "an attachment is sent from an https URL".to_owned(),
                ));
            }
            json!({ "attachment": { "type": kind.as_str(), "payload": { "url": url, "is_reusable": true } } })
        }
    };
    let mut out = json!({
        "recipient": { "id": recipient },
        "messaging_type": mode.messaging_type(),
        "message": message,
    });
    if let Some(tag) = mode.tag() {
        out["tag"] = json!(tag);
    }
    Ok(out)
}

impl GraphClient {
    /// Sends `content` to `recipient` from `page`, in the mode the customer's last message
    /// (`last_inbound`) allows at `now`: the new message's id (`mid`).
    pub async fn send_page(
        &self,
        page: &PageAccount,
        recipient: &str,
        content: &PageContent,
        last_inbound: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<String, PageSendError> {
        let mode = messenger_send_mode(last_inbound, now).map_err(PageSendError::WindowClosed)?;
        let json = page_message_json(recipient, content, mode)?;
        let answer: SendAnswer = self
            .call(
                Method::POST,
                self.url(&[&page.page_id, "messages"]),
                Some(&page.access_token),
                Body::Json(json),
            )
            .await
            .map_err(PageSendError::Graph)?;
        Ok(answer.message_id)
    }
}
