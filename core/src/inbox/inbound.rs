//! Rules for what channels deliver, before anything is stored:
//!
//! - **Storable text.** Any channel can deliver text that no database engine stores: U+0000
//!   (PostgreSQL's `text` refuses it; lone surrogates cannot occur in a Rust `String`).
//!   [`clean_event`] removes it from every text field of an [`InboundEvent`] (body, file name,
//!   chat, contact name, participant, quoted and external ids, emoji, session fields), so such a
//!   message is stored and shown rather than lost.
//! - **Bounded text.** A message text longer than [`INBOUND_TEXT_MAX_BYTES`] (the WhatsApp
//!   protocol's own limit) is no message a real channel delivers: [`check_event`] refuses it
//!   (`ERR_VALIDATION`) and it is set aside.
//! - **Set aside, never block.** Delivering an event either succeeds, fails in a way retrying may
//!   fix ([`retry_can_fix`]: `ERR_INTERNAL`, i.e. a lost connection, a pool timeout, a full disk)
//!   or fails for good (anything else: validation, a data exception or an integrity violation the
//!   store reported, a connection that no longer exists). A failure for good, or the
//!   [`MAX_INBOUND_ATTEMPTS`]th failure, puts the event in the company's inbound failures
//!   ([`InboundFailureRepo`], visible to its admins) and the provider acknowledges it, so nothing
//!   queued behind it waits. Between attempts a provider waits [`retry_delay`].

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::channel::InboundEvent;
use crate::inbox::model::SessionUpdate;

/// The longest message text (body or caption) a channel may deliver, in bytes: the WhatsApp
/// protocol's limit (65 536 bytes).
pub const INBOUND_TEXT_MAX_BYTES: usize = 65_536;

/// Deliveries of one event before it is set aside even though the failure looked transient.
pub const MAX_INBOUND_ATTEMPTS: u32 = 8;

/// `text` without the characters no database engine stores (U+0000).
pub fn storable_text(text: &str) -> String {
    text.replace('\0', "")
}

/// Whether `text` holds a character no database engine stores (U+0000).
pub fn has_unstorable_text(text: &str) -> bool {
    text.contains('\0')
}

fn clean(text: &mut String) {
    if has_unstorable_text(text) {
        *text = storable_text(text);
    }
}

fn clean_opt(text: &mut Option<String>) {
    if let Some(text) = text {
        clean(text);
    }
}

fn clean_message(m: &mut crate::inbox::channel::InboundMessage) {
    clean(&mut m.external_id);
    clean(&mut m.chat);
    m.aliases.iter_mut().for_each(clean);
    clean(&mut m.chat_name);
    clean_opt(&mut m.participant);
    clean(&mut m.body);
    clean_opt(&mut m.quoted_external_id);
    if let Some(media) = &mut m.media {
        clean(&mut media.file_name);
        clean(&mut media.mime_type);
    }
}

/// The event with every text field made storable ([`storable_text`]).
pub fn clean_event(mut event: InboundEvent) -> InboundEvent {
    match &mut event {
        InboundEvent::Message(m) => clean_message(m),
        InboundEvent::History(chunk) => chunk.messages.iter_mut().for_each(clean_message),
        InboundEvent::Ack { external_id, .. } | InboundEvent::Delete { external_id } => {
            clean(external_id);
        }
        InboundEvent::Edit {
            external_id, body, ..
        } => {
            clean(external_id);
            clean(body);
        }
        InboundEvent::Reaction {
            external_id,
            chat,
            emoji,
        } => {
            clean(external_id);
            clean(chat);
            clean(emoji);
        }
        InboundEvent::MissedCall {
            external_id,
            chat,
            chat_name,
            ..
        } => {
            clean(external_id);
            clean(chat);
            clean(chat_name);
        }
        InboundEvent::IncomingCall {
            external_id,
            chat,
            chat_name,
            ..
        } => {
            clean(external_id);
            clean(chat);
            clean(chat_name);
        }
        InboundEvent::Identities { chat, aliases } => {
            clean(chat);
            aliases.iter_mut().for_each(clean);
        }
        InboundEvent::Session(SessionUpdate { qrcode, number, .. }) => {
            clean(qrcode);
            clean_opt(number);
        }
        InboundEvent::CaughtUp => {}
    }
    event
}

/// Refuses (`ERR_VALIDATION`) an event whose text is longer than [`INBOUND_TEXT_MAX_BYTES`].
pub fn check_event(event: &InboundEvent) -> Result<()> {
    let text = match event {
        InboundEvent::Message(m) => Some(&m.body),
        InboundEvent::Edit { body, .. } => Some(body),
        _ => None,
    };
    match text {
        Some(text) if text.len() > INBOUND_TEXT_MAX_BYTES => Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            format!(
                "the text has {} bytes, more than the {INBOUND_TEXT_MAX_BYTES} a message may hold",
                text.len()
            ),
        )),
        _ => Ok(()),
    }
}

/// Whether delivering again may succeed where `error` failed: only internal errors (a lost
/// database connection, a pool timeout, a failed disk write) may pass; validation, data and
/// integrity errors, and a connection that is gone, never do.
pub fn retry_can_fix(error: &Error) -> bool {
    error.code == ErrorCode::ERR_INTERNAL
}

/// Whether an event whose `attempts`th delivery failed with `error` is set aside now.
pub fn set_aside_now(error: &Error, attempts: u32) -> bool {
    !retry_can_fix(error) || attempts >= MAX_INBOUND_ATTEMPTS
}

/// How long to wait after the `attempts`th failed delivery: 1 s, doubling, at most 60 s (the
/// eighth attempt comes about two minutes after the first).
pub fn retry_delay(attempts: u32) -> chrono::Duration {
    let exponent = attempts.saturating_sub(1).min(6);
    chrono::Duration::seconds((1_i64 << exponent).min(60))
}

/// An inbound event that was set aside: kept with the error that stopped it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InboundFailure {
    pub id: i64,
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub whatsapp_id: WhatsappId,
    /// The event as the channel delivered it (a file's bytes are left out of lists).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub event: InboundEvent,
    /// The catalogue code of the failure (`ERR_VALIDATION`, `ERR_INTERNAL`...).
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub error: ErrorCode,
    /// What failed, for the admin.
    pub detail: String,
    /// Deliveries tried.
    pub attempts: i64,
    pub created_at: DateTime<Utc>,
    /// When the last attempt failed.
    pub updated_at: DateTime<Utc>,
}

/// One page of a company's inbound failures, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InboundFailurePage {
    pub failures: Vec<InboundFailure>,
    /// Every failure of the company.
    pub count: i64,
    pub has_more: bool,
}

/// The dead-letter store of inbound events. Tenant-scoped.
#[async_trait]
pub trait InboundFailureRepo: Send + Sync {
    /// Keeps `event` of `connection` with its `error` after `attempts` deliveries; returns its id.
    async fn set_aside(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
        error: &Error,
        attempts: u32,
    ) -> Result<i64>;
    /// The company's failures, newest first: `limit` of them after skipping `offset`.
    async fn list(&self, scope: TenantScope, offset: u32, limit: u32)
    -> Result<InboundFailurePage>;
    /// One failure of the company.
    async fn get(&self, scope: TenantScope, id: i64) -> Result<Option<InboundFailure>>;
    /// Records another failed attempt of a kept event.
    async fn record_attempt(&self, scope: TenantScope, id: i64, error: &Error) -> Result<()>;
    /// Forgets a failure; `false` when it is not the company's.
    async fn delete(&self, scope: TenantScope, id: i64) -> Result<bool>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::channel::{ChannelMedia, InboundMessage};
    use crate::inbox::model::MediaType;

    fn message(body: &str) -> InboundMessage {
        InboundMessage {
            external_id: "X\0Y".into(),
            chat: "5511\0".into(),
            chat_name: "Ana\0 Maria".into(),
            is_group: false,
            participant: Some("\0p".into()),
            from_me: false,
            body: body.into(),
            media_type: MediaType::Application,
            media: Some(ChannelMedia {
                media_type: MediaType::Application,
                file_name: "re\0port.pdf".into(),
                mime_type: "application/pdf\0".into(),
                bytes: vec![0, 1, 0],
            }),
            quoted_external_id: Some("Q\0".into()),
            timestamp: chrono::DateTime::UNIX_EPOCH,
            aliases: Vec::new(),
            media_failed: None,
        }
    }

    #[test]
    fn nul_is_removed_from_every_text_field_and_kept_in_file_bytes() {
        let InboundEvent::Message(m) =
            clean_event(InboundEvent::Message(message("poison \0 body")))
        else {
            panic!("a message")
        };
        assert_eq!(m.body, "poison  body");
        assert_eq!(m.external_id, "XY");
        assert_eq!(m.chat, "5511");
        assert_eq!(m.chat_name, "Ana Maria");
        assert_eq!(m.participant.as_deref(), Some("p"));
        assert_eq!(m.quoted_external_id.as_deref(), Some("Q"));
        let media = m.media.expect("media");
        assert_eq!(media.file_name, "report.pdf");
        assert_eq!(media.mime_type, "application/pdf");
        assert_eq!(media.bytes, vec![0, 1, 0], "file bytes are not text");
    }

    #[test]
    fn nul_is_removed_from_edits_reactions_and_calls() {
        let edit = clean_event(InboundEvent::Edit {
            external_id: "A\0".into(),
            body: "fi\0xed".into(),
            timestamp: chrono::DateTime::UNIX_EPOCH,
        });
        assert_eq!(
            edit,
            InboundEvent::Edit {
                external_id: "A".into(),
                body: "fixed".into(),
                timestamp: chrono::DateTime::UNIX_EPOCH,
            }
        );
        let reaction = clean_event(InboundEvent::Reaction {
            external_id: "A".into(),
            chat: "1\0".into(),
            emoji: "👍\0".into(),
        });
        assert_eq!(
            reaction,
            InboundEvent::Reaction {
                external_id: "A".into(),
                chat: "1".into(),
                emoji: "👍".into(),
            }
        );
        let InboundEvent::MissedCall { chat_name, .. } = clean_event(InboundEvent::MissedCall {
            external_id: "C".into(),
            chat: "1".into(),
            chat_name: "\0Bo".into(),
            timestamp: chrono::DateTime::UNIX_EPOCH,
        }) else {
            panic!("a call")
        };
        assert_eq!(chat_name, "Bo");
    }

    #[test]
    fn clean_text_is_left_as_it_is() {
        let event = InboundEvent::Message(InboundMessage {
            media: None,
            ..message("olá 👋")
        });
        let InboundEvent::Message(m) = clean_event(event) else {
            panic!("a message")
        };
        assert_eq!(m.body, "olá 👋");
        assert!(!has_unstorable_text(&m.body));
    }

    #[test]
    fn text_over_the_protocol_limit_is_refused() {
        let at_limit = InboundEvent::Message(message(&"a".repeat(INBOUND_TEXT_MAX_BYTES)));
        assert!(check_event(&at_limit).is_ok());
        let over = InboundEvent::Message(message(&"a".repeat(INBOUND_TEXT_MAX_BYTES + 1)));
        assert_eq!(
            check_event(&over).expect_err("refused").code,
            ErrorCode::ERR_VALIDATION
        );
        let long_edit = InboundEvent::Edit {
            external_id: "A".into(),
            body: "é".repeat(INBOUND_TEXT_MAX_BYTES / 2 + 1),
            timestamp: chrono::DateTime::UNIX_EPOCH,
        };
        assert!(check_event(&long_edit).is_err(), "bytes, not characters");
    }

    #[test]
    fn only_internal_failures_are_retried_and_only_a_bounded_number_of_times() {
        let transient = Error::internal("pool timed out");
        assert!(retry_can_fix(&transient));
        assert!(!set_aside_now(&transient, 1));
        assert!(!set_aside_now(&transient, MAX_INBOUND_ATTEMPTS - 1));
        assert!(set_aside_now(&transient, MAX_INBOUND_ATTEMPTS));
        for code in [
            ErrorCode::ERR_VALIDATION,
            ErrorCode::ERR_BAD_REQUEST,
            ErrorCode::ERR_NO_WAPP_FOUND,
        ] {
            assert!(set_aside_now(&Error::new(code), 1), "{code}");
        }
    }

    #[test]
    fn retries_back_off_up_to_a_minute() {
        assert_eq!(retry_delay(1), chrono::Duration::seconds(1));
        assert_eq!(retry_delay(2), chrono::Duration::seconds(2));
        assert_eq!(retry_delay(7), chrono::Duration::seconds(60));
        assert_eq!(retry_delay(30), chrono::Duration::seconds(60));
        let total: i64 = (1..MAX_INBOUND_ATTEMPTS)
            .map(|a| retry_delay(a).num_seconds())
            .sum();
        assert!((60..=240).contains(&total), "{total}");
    }
}
