//! What simulated phones do: their messages, files and acts, the inbound events built from
//! them, and [`queue_phone_act`], through which the CLI and the HTTP routes queue them.

use chatflow_core::inbox::channel::{ChannelMedia, InboundEvent, InboundMessage};
use chatflow_core::inbox::model::MediaType;
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::ports::IdGenerator;
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use chrono::{DateTime, Utc};

/// What a simulated phone sends: the fields of `chatflow sandbox send` and
/// `POST /sandbox/{whatsappId}/send`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhoneMessage {
    /// The phone's number (or the group's id when `is_group`).
    pub from: String,
    /// The contact's push name (the number when empty).
    pub name: String,
    pub body: String,
    pub is_group: bool,
    /// An attachment: file name, MIME type and bytes.
    pub file: Option<PhoneFile>,
    /// The network loses it, as WhatsApp may after an outage: it stays in the phone's history
    /// (the phone answers a history request with it) but is never delivered live.
    pub lost: bool,
}

/// A file a simulated phone sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneFile {
    pub file_name: String,
    /// Empty to guess from the file name.
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// Something a simulated phone does to a connection: the inputs of `chatflow sandbox send` /
/// `call` and of `POST /sandbox/{whatsappId}/send` / `call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhoneAct {
    /// A message, with or without a file.
    Message(PhoneMessage),
    /// A reaction to a message of the chat (one the phone sent or received), by its external
    /// id; an empty emoji removes the phone's reaction.
    React {
        from: String,
        external_id: String,
        emoji: String,
    },
    /// The phone edits the text of a message it sent.
    Edit {
        from: String,
        external_id: String,
        body: String,
    },
    /// The phone deletes a message it sent, for everyone.
    Delete { from: String, external_id: String },
    /// The phone called and nobody answered.
    Call { from: String, name: String },
}

impl PhoneAct {
    /// The phone's number.
    pub fn from(&self) -> &str {
        match self {
            PhoneAct::Message(m) => &m.from,
            PhoneAct::React { from, .. }
            | PhoneAct::Edit { from, .. }
            | PhoneAct::Delete { from, .. }
            | PhoneAct::Call { from, .. } => from,
        }
    }
}

fn checked_sender(from: &str) -> Result<&str> {
    let from = from.trim();
    if from.is_empty()
        || !from
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == '@')
    {
        return Err(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "the sender must be a phone number",
        ));
    }
    Ok(from)
}

pub(crate) fn fresh_external_id(ids: &dyn IdGenerator) -> String {
    format!("SBX{}", ids.token(20).to_uppercase())
}

fn push_name(name: &str, from: &str) -> String {
    if name.trim().is_empty() {
        from.to_owned()
    } else {
        name.trim().to_owned()
    }
}

/// Builds the inbound event of a phone's act. Returns the event and the external id it is
/// about: the new message's or call's, or the target of a reaction, edit or deletion. Refuses
/// (`ERR_BAD_REQUEST`) a sender that is not a number, an empty message, an empty edit and a
/// missing target; whose message the target is, is [`queue_phone_act`]'s check.
pub fn phone_act_event(
    ids: &dyn IdGenerator,
    now: DateTime<Utc>,
    act: &PhoneAct,
) -> Result<(InboundEvent, String)> {
    let from = checked_sender(act.from())?;
    let target = |external_id: &str| -> Result<String> {
        let id = external_id.trim();
        if id.is_empty() {
            return Err(Error::with_detail(
                ErrorCode::ERR_BAD_REQUEST,
                "name the message by its external id",
            ));
        }
        Ok(id.to_owned())
    };
    match act {
        PhoneAct::Message(message) => {
            let event = phone_event(ids, now, message)?;
            let id = match &event {
                InboundEvent::Message(m) => m.external_id.clone(),
                _ => String::new(),
            };
            Ok((event, id))
        }
        PhoneAct::React {
            external_id, emoji, ..
        } => {
            let id = target(external_id)?;
            Ok((
                InboundEvent::Reaction {
                    external_id: id.clone(),
                    chat: from.to_owned(),
                    emoji: emoji.trim().to_owned(),
                },
                id,
            ))
        }
        PhoneAct::Edit {
            external_id, body, ..
        } => {
            let id = target(external_id)?;
            if body.trim().is_empty() {
                return Err(Error::with_detail(
                    ErrorCode::ERR_BAD_REQUEST,
                    "an edit needs the new text",
                ));
            }
            Ok((
                InboundEvent::Edit {
                    external_id: id.clone(),
                    body: body.clone(),
                    timestamp: now,
                },
                id,
            ))
        }
        PhoneAct::Delete { external_id, .. } => {
            let id = target(external_id)?;
            Ok((
                InboundEvent::Delete {
                    external_id: id.clone(),
                },
                id,
            ))
        }
        PhoneAct::Call { name, .. } => {
            let id = fresh_external_id(ids);
            Ok((
                InboundEvent::MissedCall {
                    external_id: id.clone(),
                    chat: from.to_owned(),
                    chat_name: push_name(name, from),
                    timestamp: now,
                },
                id,
            ))
        }
    }
}

/// Queues a phone's act for the connection (the server delivers it within a moment; a lost
/// message is only kept in the phone's history) and returns the external id it is about (see
/// [`phone_act_event`]). A phone edits and deletes
/// only messages it sent, and reacts only to messages of its own chat (sent or received);
/// anything else is `ERR_NOT_FOUND`. `ERR_NO_WAPP_FOUND` when the connection is not the
/// company's. The CLI (another process) and the HTTP routes both queue through here.
pub async fn queue_phone_act(
    repo: &dyn SandboxRepo,
    ids: &dyn IdGenerator,
    now: DateTime<Utc>,
    scope: TenantScope,
    connection: WhatsappId,
    act: &PhoneAct,
) -> Result<String> {
    let (event, external_id) = phone_act_event(ids, now, act)?;
    let from = checked_sender(act.from())?;
    let known = match act {
        PhoneAct::Message(_) | PhoneAct::Call { .. } => true,
        PhoneAct::Edit { .. } | PhoneAct::Delete { .. } => {
            repo.phone_sent(scope, connection, from, &external_id)
                .await?
        }
        PhoneAct::React { .. } => {
            repo.phone_sent(scope, connection, from, &external_id)
                .await?
                || repo
                    .received(scope, connection, Some(from))
                    .await?
                    .iter()
                    .any(|r| r.external_id == external_id)
        }
    };
    if !known {
        return Err(Error::with_detail(
            ErrorCode::ERR_NOT_FOUND,
            format!("phone {from} has no message {external_id} it may change"),
        ));
    }
    let queued = match (act, &event) {
        (PhoneAct::Message(m), InboundEvent::Message(message)) if m.lost => {
            repo.push_lost(scope, connection, message).await?
        }
        _ => repo.push_inbound(scope, connection, &event).await?,
    };
    queued.ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
    Ok(external_id)
}

/// Builds the inbound event for a phone message, with a fresh external id.
pub fn phone_event(
    ids: &dyn IdGenerator,
    now: DateTime<Utc>,
    message: &PhoneMessage,
) -> Result<InboundEvent> {
    let from = checked_sender(&message.from)?;
    let media = message.file.as_ref().map(|file| {
        let mime_type = if file.mime_type.is_empty() {
            chatflow_core::media::mime_of(&file.file_name).to_owned()
        } else {
            file.mime_type.clone()
        };
        ChannelMedia {
            media_type: media_type_of(&mime_type),
            file_name: file.file_name.clone(),
            mime_type,
            bytes: file.bytes.clone(),
        }
    });
    if media.is_none() && message.body.trim().is_empty() {
        return Err(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "a message needs a text or a file",
        ));
    }
    let name = push_name(&message.name, from);
    Ok(InboundEvent::Message(InboundMessage {
        external_id: fresh_external_id(ids),
        chat: from.to_owned(),
        chat_name: name,
        is_group: message.is_group,
        participant: None,
        from_me: false,
        body: message.body.clone(),
        media_type: media.as_ref().map_or(MediaType::Chat, |m| m.media_type),
        media,
        quoted_external_id: None,
        timestamp: now,
        aliases: Vec::new(),
        media_failed: None,
    }))
}

fn media_type_of(mime: &str) -> MediaType {
    match mime.split('/').next().unwrap_or_default() {
        "image" => MediaType::Image,
        "audio" => MediaType::Audio,
        "video" => MediaType::Video,
        _ => MediaType::Application,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter;
    impl IdGenerator for Counter {
        fn uuid(&self) -> uuid::Uuid {
            uuid::Uuid::nil()
        }
        fn token(&self, len: usize) -> String {
            "a".repeat(len)
        }
        fn digits(&self, len: usize) -> String {
            "1".repeat(len)
        }
    }

    fn at() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).expect("a time")
    }

    #[test]
    fn phone_messages_become_inbound_messages() {
        let event = phone_event(
            &Counter,
            at(),
            &PhoneMessage {
                from: "5511999990000".into(),
                name: String::new(),
                body: "hello".into(),
                ..PhoneMessage::default()
            },
        )
        .expect("built");
        let InboundEvent::Message(m) = event else {
            panic!("a message")
        };
        assert_eq!(m.chat, "5511999990000");
        assert_eq!(m.chat_name, "5511999990000");
        assert_eq!(m.media_type, MediaType::Chat);
        assert!(m.external_id.starts_with("SBX"));
        assert_eq!(m.timestamp, at(), "stamped with the caller's clock");

        let with_file = phone_event(
            &Counter,
            at(),
            &PhoneMessage {
                from: "5511".into(),
                name: "Ana".into(),
                file: Some(PhoneFile {
                    file_name: "photo.JPG".into(),
                    mime_type: String::new(),
                    bytes: vec![1, 2, 3],
                }),
                ..PhoneMessage::default()
            },
        )
        .expect("built");
        let InboundEvent::Message(m) = with_file else {
            panic!("a message")
        };
        assert_eq!(m.media_type, MediaType::Image);
        assert_eq!(m.media.expect("media").mime_type, "image/jpeg");
        assert_eq!(m.chat_name, "Ana");
    }

    #[test]
    fn phone_acts_become_their_inbound_events() {
        let react = PhoneAct::React {
            from: "5511".into(),
            external_id: " SBXTARGET ".into(),
            emoji: "👍".into(),
        };
        let (event, id) = phone_act_event(&Counter, at(), &react).expect("built");
        assert_eq!(id, "SBXTARGET");
        assert_eq!(
            event,
            InboundEvent::Reaction {
                external_id: "SBXTARGET".into(),
                chat: "5511".into(),
                emoji: "👍".into(),
            }
        );
        let delete = PhoneAct::Delete {
            from: "5511".into(),
            external_id: "SBXTARGET".into(),
        };
        assert_eq!(
            phone_act_event(&Counter, at(), &delete).expect("built").0,
            InboundEvent::Delete {
                external_id: "SBXTARGET".into()
            }
        );
        let edit = PhoneAct::Edit {
            from: "5511".into(),
            external_id: "SBXTARGET".into(),
            body: "fixed".into(),
        };
        let (InboundEvent::Edit { body, .. }, _) =
            phone_act_event(&Counter, at(), &edit).expect("built")
        else {
            panic!("an edit")
        };
        assert_eq!(body, "fixed");
        let call = PhoneAct::Call {
            from: "5511".into(),
            name: String::new(),
        };
        let (
            InboundEvent::MissedCall {
                chat_name,
                external_id,
                ..
            },
            id,
        ) = phone_act_event(&Counter, at(), &call).expect("built")
        else {
            panic!("a missed call")
        };
        assert_eq!(chat_name, "5511");
        assert_eq!(external_id, id);
        assert!(id.starts_with("SBX"));
    }

    #[test]
    fn phone_acts_without_target_text_or_sender_are_refused() {
        let no_target = PhoneAct::Delete {
            from: "5511".into(),
            external_id: "  ".into(),
        };
        assert!(phone_act_event(&Counter, at(), &no_target).is_err());
        let empty_edit = PhoneAct::Edit {
            from: "5511".into(),
            external_id: "SBX1".into(),
            body: " ".into(),
        };
        assert!(phone_act_event(&Counter, at(), &empty_edit).is_err());
        let bad_sender = PhoneAct::Call {
            from: "maria".into(),
            name: "Maria".into(),
        };
        assert!(phone_act_event(&Counter, at(), &bad_sender).is_err());
    }

    #[test]
    fn empty_or_anonymous_phone_messages_are_refused() {
        let no_sender = PhoneMessage {
            body: "x".into(),
            ..PhoneMessage::default()
        };
        assert!(phone_event(&Counter, at(), &no_sender).is_err());
        let empty = PhoneMessage {
            from: "5511".into(),
            ..PhoneMessage::default()
        };
        assert!(phone_event(&Counter, at(), &empty).is_err());
    }
}
