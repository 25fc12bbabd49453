//! Message rules of the inbox: what may be sent, how the sign-message prefix is added, who may
//! edit or delete a message, and what a forwarded copy looks like.

use chrono::{DateTime, Utc};

use crate::error::{Error, ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::TicketId;
use crate::inbox::model::{Message, NewMessage};
use crate::policy::{Action, MessageTarget, authorize};

/// The longest text a user may send or edit (body or caption), in characters: what WhatsApp's
/// own clients accept (4096).
pub const BODY_MAX_CHARS: usize = 4096;

/// The body to send: refused with `ERR_VALIDATION` when empty after trimming (a message with
/// media may have an empty caption: pass `has_media`) or longer than [`BODY_MAX_CHARS`].
pub fn validate_body(body: &str, has_media: bool) -> Result<()> {
    if body.trim().is_empty() && !has_media {
        return Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "the message is empty",
        ));
    }
    if body.chars().count() > BODY_MAX_CHARS {
        return Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            format!("a message holds at most {BODY_MAX_CHARS} characters"),
        ));
    }
    Ok(())
}

/// The body as sent to the contact: `*{name}*:\n{body}` when the company setting
/// `sendSignMessage` is on and the user did not turn signing off for this message; the body
/// unchanged otherwise (and for private notes, which the contact never sees).
pub fn signed_body(body: &str, user_name: &str, company_signs: bool, user_signs: bool) -> String {
    if company_signs && user_signs && !user_name.trim().is_empty() {
        format!("*{}*:\n{body}", user_name.trim())
    } else {
        body.to_owned()
    }
}

fn target(actor: &Actor, message: &Message, company: crate::ids::CompanyId) -> MessageTarget {
    MessageTarget {
        company,
        own: message.from_me && message.user_id == Some(actor.user_id),
    }
}

/// Whether `actor` may edit `message` (of `company`) at `now`: only their own, sent from the
/// inbox, not deleted, within 15 minutes ([`crate::ticket::can_edit_message`]).
pub fn may_edit(
    actor: &Actor,
    company: crate::ids::CompanyId,
    message: &Message,
    now: DateTime<Utc>,
) -> Result<()> {
    let target = target(actor, message, company);
    authorize(actor, &Action::EditMessage(target))?;
    if message.is_deleted || !crate::ticket::can_edit_message(target.own, message.created_at, now) {
        return Err(Error::with_detail(
            ErrorCode::ERR_NO_PERMISSION,
            "the edit window of 15 minutes has passed",
        ));
    }
    Ok(())
}

/// Whether `actor` may delete `message` (of `company`): only their own.
pub fn may_delete(actor: &Actor, company: crate::ids::CompanyId, message: &Message) -> Result<()> {
    authorize(
        actor,
        &Action::DeleteMessage(target(actor, message, company)),
    )
}

/// The copy of `original` forwarded by `actor` to `ticket`: same body and media, marked
/// forwarded, never private, not quoting anything. `media_path` is the media store's name of
/// the original attachment, if any.
pub fn forwarded(
    actor: &Actor,
    original: &Message,
    media_path: Option<String>,
    ticket: TicketId,
) -> NewMessage {
    NewMessage {
        is_forwarded: true,
        media_type: original.media_type,
        media_path,
        media_name: original.media_name.clone(),
        user_id: Some(actor.user_id),
        ..NewMessage::text(ticket, original.body.clone())
    }
}

/// The pause between two forwarded messages, so the channel does not see a burst.
pub const FORWARD_SPACING_MS: u64 = 900;

/// Media limits per kind, in bytes (images and audio 16 MiB, video 64 MiB, documents 100 MiB;
/// see [`crate::limits::UploadKind`]).
pub fn media_limit(media_type: crate::inbox::model::MediaType) -> u64 {
    use crate::inbox::model::MediaType;
    use crate::limits::UploadKind;
    match media_type {
        MediaType::Image => UploadKind::Image.max_bytes(),
        MediaType::Audio => UploadKind::Audio.max_bytes(),
        MediaType::Video => UploadKind::Video.max_bytes(),
        _ => UploadKind::Document.max_bytes(),
    }
}

/// The media kind of an upload from its MIME type; `None` for types the inbox does not send
/// (executables and unknown binary types are sent as documents only when their MIME type is a
/// document's).
pub fn media_type_of(mime: &str) -> Option<crate::inbox::model::MediaType> {
    use crate::inbox::model::MediaType;
    let mime = mime.to_ascii_lowercase();
    let (top, sub) = mime.split_once('/')?;
    match top {
        "image" => Some(MediaType::Image),
        "audio" => Some(MediaType::Audio),
        "video" => Some(MediaType::Video),
        "text" => Some(MediaType::Application),
        "application" => {
            const REFUSED: [&str; 4] = ["x-msdownload", "x-executable", "x-sh", "x-msdos-program"];
            (!REFUSED.contains(&sub)).then_some(MediaType::Application)
        }
        _ => None,
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;

    #[test]
    fn bodies_are_bounded_in_characters() {
        assert!(validate_body(&"ş".repeat(BODY_MAX_CHARS), false).is_ok());
        let over = validate_body(&"a".repeat(BODY_MAX_CHARS + 1), false).expect_err("refused");
        assert_eq!(over.code, ErrorCode::ERR_VALIDATION);
        assert!(validate_body(&"a".repeat(BODY_MAX_CHARS + 1), true).is_err());
        assert!(validate_body(" ", false).is_err());
        assert!(validate_body("", true).is_ok());
    }
}
