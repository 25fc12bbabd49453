//! One person is one contact: a channel may know a person under several identities (WhatsApp:
//! the phone number and the LID, WhatsApp's privacy-preserving id; after a number change, the
//! old and the new number). A message carries the identity it came under as its `chat` and the
//! other identities the channel sent along as its `aliases`.
//!
//! - A contact's `number` is its **preferred identity**: the first phone number among the
//!   message's identities (the chat first, then its aliases), else the chat. Every other identity
//!   it was seen under is an alias of the contact ([`crate::inbox::ports::ContactRepo`] keeps
//!   them, unique per company and channel).
//! - A message whose identities match no contact creates one under the preferred identity; its
//!   other identities become the new contact's aliases.
//! - A message whose identities match one contact goes to it; when the preferred identity is not
//!   the contact's number (a contact first seen by its LID, now known by its phone number; a
//!   number change), the contact takes it as its number and keeps the old one as an alias.
//! - A message whose identities match several contacts (each created under one identity before
//!   the channel told they are one person) **merges** them into one: the contact that has the
//!   preferred identity as its number, else the first with a phone number, else the oldest.
//!   The others' tickets, messages, notes, schedules, tags, extra information and aliases move to
//!   it; where both had a ticket open on the same connection, the messages of the newer one join
//!   the older one and the newer one is removed. No second open ticket survives.
//!
//! Groups are one identity (their id) and are never looked up. Messages whose chat is a phone
//! number and that carry no aliases (the sandbox, every channel that knows no other identity)
//! take the plain path, with no lookup.

use serde::{Deserialize, Serialize};

use crate::ids::ContactId;
use crate::inbox::channel::InboundMessage;

/// Whether `identity` is a phone number (digits only, as contact numbers are stored).
pub fn is_phone(identity: &str) -> bool {
    !identity.is_empty() && identity.bytes().all(|b| b.is_ascii_digit())
}

/// The message's identities, the chat first, without blanks or repeats.
pub fn identities_of(message: &InboundMessage) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::with_capacity(1 + message.aliases.len());
    for identity in std::iter::once(&message.chat).chain(&message.aliases) {
        let identity = identity.trim();
        if !identity.is_empty() && !out.contains(&identity) {
            out.push(identity);
        }
    }
    out
}

/// Whether ingesting `message` must look its identities up (it is a one-to-one message that
/// carries aliases, or whose chat is not a phone number); the others go straight by number.
pub fn needs_lookup(message: &InboundMessage) -> bool {
    !message.is_group && (!message.aliases.is_empty() || !is_phone(&message.chat))
}

/// The identity a contact with these identities is stored under: the first phone number, else
/// the first identity.
pub fn preferred<'a>(identities: &[&'a str]) -> Option<&'a str> {
    identities
        .iter()
        .find(|i| is_phone(i))
        .or_else(|| identities.first())
        .copied()
}

/// A contact that one of a message's identities matched (as its number or as an alias).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnownContact {
    pub id: ContactId,
    pub number: String,
}

/// What to do with the contacts a message's identities matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdentityPlan {
    /// The number the message's contact is stored under (the message's chat becomes this).
    pub number: String,
    /// The contact that stays; `None` when no contact matched (ingestion creates it).
    pub keep: Option<ContactId>,
    /// `keep` changes its number to `number` (its old number becomes an alias).
    pub renumber: bool,
    /// The contacts merged into `keep` and then removed.
    pub merge: Vec<ContactId>,
    /// Every identity of the person but `number`: the aliases of the contact.
    pub aliases: Vec<String>,
}

impl IdentityPlan {
    /// Whether applying the plan changes contacts (a renumbering or a merge), beyond adding
    /// aliases.
    pub fn changes_contacts(&self) -> bool {
        self.renumber || !self.merge.is_empty()
    }
}

/// The plan for a message with `identities` (see [`identities_of`]) whose lookup found `found`:
/// the preferred identity among the message's identities and then the found contacts' numbers
/// (see the module's rules). `None` when there is no identity at all.
pub fn plan(identities: &[&str], found: &[KnownContact]) -> Option<IdentityPlan> {
    let mut found: Vec<&KnownContact> = found.iter().collect();
    found.sort_by_key(|c| c.id);
    found.dedup_by_key(|c| c.id);
    // The message's identities first, then the numbers of the contacts they matched: a message
    // under a LID alone still lands on the contact's phone number.
    let mut all: Vec<&str> = identities.to_vec();
    all.extend(found.iter().map(|c| c.number.as_str()));
    let number = preferred(&all)?.to_owned();
    let keep = found
        .iter()
        .find(|c| c.number == number)
        .or_else(|| found.iter().find(|c| is_phone(&c.number)))
        .or_else(|| found.first())
        .map(|c| (*c).clone());
    let mut aliases: Vec<String> = Vec::new();
    for identity in identities
        .iter()
        .copied()
        .chain(found.iter().map(|c| c.number.as_str()))
    {
        if identity != number && !aliases.iter().any(|a| a == identity) {
            aliases.push(identity.to_owned());
        }
    }
    Some(IdentityPlan {
        renumber: keep.as_ref().is_some_and(|k| k.number != number),
        merge: found
            .iter()
            .filter(|c| keep.as_ref().is_some_and(|k| k.id != c.id))
            .map(|c| c.id)
            .collect(),
        keep: keep.map(|k| k.id),
        number,
        aliases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: i64, number: &str) -> KnownContact {
        KnownContact {
            id: ContactId(id),
            number: number.into(),
        }
    }

    #[test]
    fn the_phone_number_is_preferred_over_a_lid_wherever_it_comes() {
        assert_eq!(
            preferred(&["123@lid", "5511999990000"]),
            Some("5511999990000")
        );
        assert_eq!(
            preferred(&["5511999990000", "123@lid"]),
            Some("5511999990000")
        );
        assert_eq!(preferred(&["123@lid"]), Some("123@lid"));
        assert_eq!(preferred(&[]), None);
    }

    #[test]
    fn a_new_person_keeps_the_other_identities_as_aliases() {
        let plan = plan(&["5511999990000", "123@lid"], &[]).expect("a plan");
        assert_eq!(plan.number, "5511999990000");
        assert_eq!(plan.keep, None);
        assert!(!plan.changes_contacts());
        assert_eq!(plan.aliases, vec!["123@lid".to_owned()]);
    }

    #[test]
    fn a_contact_first_seen_by_its_lid_takes_the_phone_number() {
        let plan = plan(&["5511999990000", "123@lid"], &[known(7, "123@lid")]).expect("a plan");
        assert_eq!(plan.keep, Some(ContactId(7)));
        assert!(plan.renumber);
        assert!(plan.merge.is_empty());
        assert_eq!(plan.aliases, vec!["123@lid".to_owned()]);
    }

    #[test]
    fn a_lid_message_of_a_known_person_goes_to_the_phone_contact() {
        // The lookup found the contact through its alias; the message is stored under its number.
        let plan = plan(&["123@lid"], &[known(3, "5511999990000")]).expect("a plan");
        assert_eq!(plan.number, "5511999990000");
        assert_eq!(plan.keep, Some(ContactId(3)));
        assert!(!plan.changes_contacts());
        assert_eq!(plan.aliases, vec!["123@lid".to_owned()]);
    }

    #[test]
    fn two_contacts_of_one_person_merge_into_the_phone_one() {
        let plan = plan(
            &["5511999990000", "123@lid"],
            &[known(9, "123@lid"), known(4, "5511999990000")],
        )
        .expect("a plan");
        assert_eq!(plan.keep, Some(ContactId(4)));
        assert!(!plan.renumber);
        assert_eq!(plan.merge, vec![ContactId(9)]);
        assert_eq!(plan.aliases, vec!["123@lid".to_owned()]);
    }

    #[test]
    fn a_number_change_moves_the_contact_to_the_new_number() {
        let plan = plan(
            &["5511888880000", "5511999990000"],
            &[known(4, "5511999990000")],
        )
        .expect("a plan");
        assert_eq!(plan.number, "5511888880000");
        assert_eq!(plan.keep, Some(ContactId(4)));
        assert!(plan.renumber);
        assert_eq!(plan.aliases, vec!["5511999990000".to_owned()]);
    }

    #[test]
    fn only_one_to_one_messages_with_other_identities_are_looked_up() {
        let mut message = crate::inbox::channel::InboundMessage {
            external_id: "A".into(),
            chat: "5511999990000".into(),
            chat_name: String::new(),
            is_group: false,
            participant: None,
            from_me: false,
            body: "hi".into(),
            media_type: crate::inbox::model::MediaType::Chat,
            media: None,
            quoted_external_id: None,
            timestamp: chrono::DateTime::UNIX_EPOCH,
            aliases: Vec::new(),
            media_failed: None,
        };
        assert!(!needs_lookup(&message));
        message.aliases = vec!["123@lid".into(), " ".into(), "123@lid".into()];
        assert!(needs_lookup(&message));
        assert_eq!(identities_of(&message), vec!["5511999990000", "123@lid"]);
        message.aliases.clear();
        message.chat = "123@lid".into();
        assert!(needs_lookup(&message));
        message.is_group = true;
        assert!(!needs_lookup(&message));
    }
}
