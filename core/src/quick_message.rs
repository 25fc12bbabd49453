//! Quick messages (quick replies, spec 3 §2.5): shortcodes an attendant types after "/" in the
//! ticket input to insert a stored text, optionally with a file.
//!
//! The rules, in one place:
//! - **Visibility.** Every user of the company sees the shared ones (`geral`) and their own; a
//!   private one is seen by its owner only. A quick message the caller may not see does not exist
//!   for them (`ERR_NOT_FOUND`), for reading, editing, deleting and its file alike.
//! - **Editing.** Whoever sees one may edit or delete it: the owner their private ones, any user
//!   of the company the shared ones. Only the owner may change `geral` (another user's edit keeps
//!   it), so nobody can hide a colleague's shared message from the company.
//! - **Validation.** `shortcode` is required (at most 100 characters, trimmed); `message` is
//!   required unless the quick message carries a file (or the form says one follows,
//!   `isMedia`), at most 10 000 characters.
//! - **Shortcodes** are unique, compared without case, among the quick messages the owner sees
//!   (the shared ones and the owner's own), so "/" never offers two answers under one code to
//!   anyone; a clash answers `ERR_QUICK_MESSAGE_SHORTCODE_EXISTS`.
//! - **Events.** `company-{id}-quickmessage` `{action: "create"|"update", record}` or
//!   `{action: "delete", id}`: to the whole company for a shared one, to the owner alone for a
//!   private one; a shared one made private is announced deleted to the company.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::events::{Event, SaveAction};
use crate::identity::Actor;
pub use crate::ids::QuickMessageId;
use crate::ids::{TenantScope, UserId};

/// The longest shortcode, in characters.
pub const SHORTCODE_MAX_CHARS: usize = 100;
/// The longest message, in characters.
pub const MESSAGE_MAX_CHARS: usize = 10_000;

/// A quick message as the API shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuickMessage {
    pub id: QuickMessageId,
    pub shortcode: String,
    pub message: String,
    /// Shared with every user of the company.
    pub geral: bool,
    /// The visible flag of the form (kept as given).
    pub visao: bool,
    /// The status flag of the form (kept as given).
    pub status: bool,
    /// The owner.
    pub user_id: UserId,
    /// Where the file is served (`/quick-messages/{id}/media`), when there is one.
    pub media_path: Option<String>,
    /// The file's original name, when there is one.
    pub media_name: Option<String>,
    pub is_media: bool,
    /// The media store's name of the file; never sent.
    #[serde(skip)]
    pub media_file: Option<String>,
}

impl QuickMessage {
    /// Sets the file fields from the stored name and the original name.
    pub fn with_media(mut self, stored: Option<String>, name: Option<String>) -> Self {
        self.is_media = stored.is_some();
        self.media_path = stored
            .as_ref()
            .map(|_| format!("/quick-messages/{}/media", self.id));
        self.media_name = stored.as_ref().and(name);
        self.media_file = stored;
        self
    }
}

/// The fields a form writes, checked and trimmed ([`checked`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickMessageFields {
    pub shortcode: String,
    pub message: String,
    pub geral: bool,
    pub visao: bool,
    pub status: bool,
}

/// The body of `POST /quick-messages` and `PUT /quick-messages/{id}`. `companyId` and `userId`
/// are ignored: the company and the owner are the caller's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct QuickMessageInput {
    pub shortcode: String,
    pub message: String,
    pub geral: bool,
    /// Absent means true.
    pub visao: Option<bool>,
    /// Absent means true.
    pub status: Option<bool>,
    /// The form is about to attach a file, so the message may be empty.
    pub is_media: bool,
}

/// Whether `actor` sees `message`: a shared one, or their own.
pub fn visible_to(actor: &Actor, message: &QuickMessage) -> bool {
    message.geral || message.user_id == actor.user_id
}

/// Checks a form: `shortcode` required, `message` required unless there is a file
/// (`has_media`), both within their lengths. Answers the trimmed fields.
pub fn checked(input: &QuickMessageInput, has_media: bool) -> Result<QuickMessageFields> {
    let shortcode = input.shortcode.trim();
    let mut fields = Vec::new();
    if shortcode.is_empty() {
        fields.push(FieldError::new("shortcode", FieldCode::Required));
    } else if shortcode.chars().count() > SHORTCODE_MAX_CHARS {
        fields.push(FieldError::new("shortcode", FieldCode::TooLong));
    }
    if input.message.trim().is_empty() && !has_media {
        fields.push(FieldError::new("message", FieldCode::Required));
    } else if input.message.chars().count() > MESSAGE_MAX_CHARS {
        fields.push(FieldError::new("message", FieldCode::TooLong));
    }
    if !fields.is_empty() {
        return Err(Error::validation(fields));
    }
    Ok(QuickMessageFields {
        shortcode: shortcode.to_owned(),
        message: input.message.clone(),
        geral: input.geral,
        visao: input.visao.unwrap_or(true),
        status: input.status.unwrap_or(true),
    })
}

/// The fields an edit by `actor` writes over `current`: only the owner changes `geral`.
pub fn edited(
    actor: &Actor,
    current: &QuickMessage,
    fields: QuickMessageFields,
) -> QuickMessageFields {
    if current.user_id == actor.user_id {
        fields
    } else {
        QuickMessageFields {
            geral: current.geral,
            ..fields
        }
    }
}

/// Refuses a shortcode that one of `others` (the company's quick messages, `except` the one being
/// edited) already uses, among those `owner` sees.
pub fn check_shortcode_free(
    shortcode: &str,
    owner: UserId,
    except: Option<QuickMessageId>,
    others: &[QuickMessage],
) -> Result<()> {
    let wanted = shortcode.trim().to_lowercase();
    let clash = others.iter().any(|other| {
        Some(other.id) != except
            && (other.geral || other.user_id == owner)
            && other.shortcode.trim().to_lowercase() == wanted
    });
    if clash {
        return Err(ErrorCode::ERR_QUICK_MESSAGE_SHORTCODE_EXISTS.into());
    }
    Ok(())
}

fn saved(action: SaveAction, message: &QuickMessage) -> Event {
    Event::QuickMessageSaved {
        action,
        record: Box::new(message.clone()),
    }
}

fn deleted(message: &QuickMessage, private: bool) -> Event {
    Event::QuickMessageDeleted {
        id: message.id,
        private_to: private.then_some(message.user_id),
    }
}

/// The events of a created quick message: for its owner only when it is private
/// ([`Event::recipients`]).
pub fn created_events(message: &QuickMessage) -> Vec<Event> {
    vec![saved(SaveAction::Create, message)]
}

/// The events of an edited quick message (`was_shared`: whether it was shared before): a
/// message no longer shared is first deleted for the whole company.
pub fn updated_events(was_shared: bool, message: &QuickMessage) -> Vec<Event> {
    let mut events = Vec::with_capacity(2);
    if was_shared && !message.geral {
        events.push(deleted(message, false));
    }
    events.push(saved(SaveAction::Update, message));
    events
}

/// The events of a deleted quick message.
pub fn deleted_events(message: &QuickMessage) -> Vec<Event> {
    vec![deleted(message, !message.geral)]
}

/// The storage of quick messages. Writes append their events ([`created_events`],
/// [`updated_events`], [`deleted_events`]) to the company's event log in their transaction.
#[async_trait]
pub trait QuickMessageRepo: Send + Sync {
    /// Every quick message of the company, by shortcode (the core filters what a user sees).
    async fn list(&self, scope: TenantScope) -> Result<Vec<QuickMessage>>;
    async fn get(&self, scope: TenantScope, id: QuickMessageId) -> Result<Option<QuickMessage>>;
    async fn create(
        &self,
        scope: TenantScope,
        owner: UserId,
        fields: &QuickMessageFields,
    ) -> Result<QuickMessage>;
    /// Writes the fields; `was_shared` says whether it was shared before (for the events).
    async fn update(
        &self,
        scope: TenantScope,
        id: QuickMessageId,
        fields: &QuickMessageFields,
        was_shared: bool,
    ) -> Result<Option<QuickMessage>>;
    /// Sets (`Some((stored name, original name))`) or clears the file.
    async fn set_media(
        &self,
        scope: TenantScope,
        id: QuickMessageId,
        media: Option<(&str, &str)>,
    ) -> Result<Option<QuickMessage>>;
    /// Deletes it; answers the deleted row.
    async fn delete(&self, scope: TenantScope, id: QuickMessageId) -> Result<Option<QuickMessage>>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{Profile, UserFlags};
    use crate::ids::CompanyId;

    fn actor(user: i64) -> Actor {
        Actor {
            user_id: UserId(user),
            company_id: CompanyId(2),
            profile: Profile::User,
            is_super: false,
            flags: UserFlags::default(),
            queue_ids: Vec::new(),
        }
    }

    fn message(id: i64, owner: i64, shortcode: &str, geral: bool) -> QuickMessage {
        QuickMessage {
            id: QuickMessageId(id),
            shortcode: shortcode.into(),
            message: "Olá!".into(),
            geral,
            visao: true,
            status: true,
            user_id: UserId(owner),
            media_path: None,
            media_name: None,
            is_media: false,
            media_file: None,
        }
    }

    fn input(shortcode: &str, text: &str) -> QuickMessageInput {
        QuickMessageInput {
            shortcode: shortcode.into(),
            message: text.into(),
            ..Default::default()
        }
    }

    fn field_codes(error: &Error) -> Vec<(String, FieldCode)> {
        error
            .fields
            .iter()
            .map(|f| (f.field.clone(), f.code))
            .collect()
    }

    #[test]
    fn shared_ones_are_seen_by_everyone_private_ones_by_their_owner() {
        assert!(visible_to(&actor(5), &message(1, 7, "oi", true)));
        assert!(visible_to(&actor(7), &message(1, 7, "oi", false)));
        assert!(!visible_to(&actor(5), &message(1, 7, "oi", false)));
    }

    #[test]
    fn the_shortcode_is_required_and_the_message_unless_there_is_a_file() {
        let error = checked(&input("  ", ""), false).expect_err("refused");
        assert_eq!(error.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(
            field_codes(&error),
            vec![
                ("shortcode".into(), FieldCode::Required),
                ("message".into(), FieldCode::Required)
            ]
        );
        let ok = checked(&input(" oi ", ""), true).expect("a file stands for the text");
        assert_eq!(ok.shortcode, "oi");
        assert!(ok.visao && ok.status && !ok.geral);
        let long = "x".repeat(SHORTCODE_MAX_CHARS + 1);
        let error = checked(&input(&long, "a"), false).expect_err("too long");
        assert_eq!(
            field_codes(&error),
            vec![("shortcode".into(), FieldCode::TooLong)]
        );
    }

    #[test]
    fn only_the_owner_changes_sharing() {
        let current = message(1, 7, "oi", true);
        let fields = checked(&input("oi", "novo"), false).expect("valid");
        assert!(edited(&actor(5), &current, fields.clone()).geral, "kept");
        assert!(!edited(&actor(7), &current, fields).geral, "the owner");
        let shared = QuickMessageFields {
            geral: true,
            ..checked(&input("oi", "novo"), false).expect("valid")
        };
        assert!(edited(&actor(7), &message(2, 7, "oi", false), shared).geral);
    }

    #[test]
    fn shortcodes_clash_among_what_the_owner_sees() {
        let others = [message(1, 7, "Oi", true), message(2, 8, "tchau", false)];
        let clash = check_shortcode_free("oi", UserId(5), None, &others).expect_err("shared");
        assert_eq!(clash.code, ErrorCode::ERR_QUICK_MESSAGE_SHORTCODE_EXISTS);
        assert!(check_shortcode_free("oi", UserId(5), Some(QuickMessageId(1)), &others).is_ok());
        assert!(
            check_shortcode_free("tchau", UserId(5), None, &others).is_ok(),
            "another user's private one"
        );
        assert!(check_shortcode_free("tchau", UserId(8), None, &others).is_err());
    }

    #[test]
    fn private_events_go_to_the_owner_and_unsharing_is_a_delete_for_the_company() {
        use crate::events::Recipients;
        let private = message(1, 7, "oi", false);
        let created = created_events(&private);
        let [event] = created.as_slice() else {
            panic!("one event");
        };
        assert_eq!(event.recipients(), Recipients::User(UserId(7)));
        let events = updated_events(true, &private);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].recipients(), Recipients::Company);
        assert!(matches!(&events[0], Event::QuickMessageDeleted { id, .. } if id.0 == 1));
        assert_eq!(events[1].recipients(), Recipients::User(UserId(7)));
        let deleted = deleted_events(&message(1, 7, "oi", true));
        let [event] = deleted.as_slice() else {
            panic!("one event");
        };
        assert_eq!(event.recipients(), Recipients::Company);
        let payload = event.for_recipient(&actor(5), Default::default(), 9);
        assert_eq!(
            payload,
            serde_json::json!({"action": "delete", "id": 1, "seq": 9})
        );
        let [private_delete] = deleted_events(&private).try_into().expect("one event");
        assert_eq!(private_delete.recipients(), Recipients::User(UserId(7)));
    }

    #[test]
    fn the_stored_file_name_is_never_serialised() {
        let m =
            message(3, 7, "oi", true).with_media(Some("2/abc.png".into()), Some("a.png".into()));
        let json = serde_json::to_value(&m).expect("serialises");
        assert_eq!(json["mediaPath"], "/quick-messages/3/media");
        assert_eq!(json["mediaName"], "a.png");
        assert_eq!(json["isMedia"], true);
        assert!(!json.to_string().contains("abc"));
    }
}
