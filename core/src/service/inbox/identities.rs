//! One person, one contact ([`crate::inbox::identities`]) during ingestion: before a batch of
//! messages is stored, the messages that carry other identities (or whose chat is not a phone
//! number) are looked up by all their identities; the contacts found are renumbered or merged as
//! the core's plan says, and each message's chat becomes the number its contact is stored under.
//! After the batch, the aliases of contacts the batch created are recorded.
//!
//! A batch in which nothing needs changing costs one lookup (and one write when it brings
//! aliases not yet known); a change (renumbering, merge) is applied in its own transaction and the
//! rest of the batch looked up again. Messages that need no lookup cost nothing.

use std::borrow::Cow;

use crate::error::Result;
use crate::ids::{ContactId, TenantScope};
use crate::inbox::channel::InboundMessage;
use crate::inbox::identities::{self, IdentityPlan, KnownContact};
use crate::inbox::model::Connection;
use crate::inbox::ports::{IngestOutcome, Stored};
use crate::service::Ports;

/// The messages as they are to be stored (chats rewritten to their contact's number), and the
/// aliases of contacts the batch is about to create, to record after it ([`record_new`]).
pub struct Resolved<'a> {
    pub messages: Vec<Cow<'a, InboundMessage>>,
    /// The messages (by index) of a person who has no contact yet, and the aliases the contact
    /// the batch creates gets.
    pending: Vec<(Vec<usize>, Vec<String>)>,
}

/// Resolves the identities of `messages` of `connection` (see the module).
pub async fn resolve<'a>(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: &[&'a InboundMessage],
) -> Result<Resolved<'a>> {
    let mut out = Resolved {
        messages: messages.iter().map(|m| Cow::Borrowed(*m)).collect(),
        pending: Vec::new(),
    };
    // The people to look up: the identities of messages that share one are one person's (a
    // batch may bring a LID alone and then the number with the LID), each with its messages.
    let mut sets: Vec<(Vec<&str>, Vec<usize>)> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        if !identities::needs_lookup(message) {
            continue;
        }
        let mut ids = identities::identities_of(message);
        if ids.is_empty() {
            continue;
        }
        let mut members = vec![i];
        let mut k = 0;
        while k < sets.len() {
            if sets[k].0.iter().any(|id| ids.contains(id)) {
                let (set, earlier) = sets.remove(k);
                for id in set {
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                members.extend(earlier);
            } else {
                k += 1;
            }
        }
        members.sort_unstable();
        sets.push((ids, members));
    }
    let mut known_aliases: Vec<(ContactId, String)> = Vec::new();
    let mut next = 0;
    while next < sets.len() {
        let wanted: Vec<&str> = sets[next..]
            .iter()
            .flat_map(|(set, _)| set.iter().copied())
            .collect();
        let matches = ports
            .contacts
            .find_by_identities(scope, connection.channel, &wanted)
            .await?;
        let mut changed = false;
        while next < sets.len() {
            let (set, members) = &sets[next];
            let found: Vec<KnownContact> = matches
                .iter()
                .filter(|(identity, _)| set.contains(&identity.as_str()))
                .map(|(_, contact)| contact.clone())
                .collect();
            next += 1;
            let Some(plan) = identities::plan(set, &found) else {
                continue;
            };
            for &i in members {
                if out.messages[i].chat != plan.number {
                    out.messages[i].to_mut().chat = plan.number.clone();
                }
            }
            match plan.keep {
                None => {
                    if !plan.aliases.is_empty() {
                        out.pending.push((members.clone(), plan.aliases.clone()));
                    }
                }
                Some(_) if plan.changes_contacts() => {
                    ports
                        .contacts
                        .apply_identities(scope, connection.channel, &plan)
                        .await?;
                    changed = true;
                }
                Some(keep) => {
                    known_aliases.extend(unknown_aliases(&plan, keep, &matches));
                }
            }
            if changed {
                // The contacts the other sets matched may have moved: look them up again.
                break;
            }
        }
    }
    if !known_aliases.is_empty() {
        ports
            .contacts
            .add_aliases(scope, connection.channel, &known_aliases)
            .await?;
    }
    Ok(out)
}

/// The channel told that `chat` and `aliases` are one person
/// ([`crate::inbox::channel::InboundEvent::Identities`]): the contacts known under any of them
/// become one under `chat` (or the preferred identity). Nobody known: nothing changes (a contact
/// is made by a message, not by a name).
pub async fn one_person(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    chat: &str,
    aliases: &[String],
) -> Result<()> {
    let mut ids: Vec<&str> = Vec::with_capacity(1 + aliases.len());
    for identity in std::iter::once(chat).chain(aliases.iter().map(String::as_str)) {
        let identity = identity.trim();
        if !identity.is_empty() && !ids.contains(&identity) {
            ids.push(identity);
        }
    }
    let matches = ports
        .contacts
        .find_by_identities(scope, connection.channel, &ids)
        .await?;
    let found: Vec<KnownContact> = matches.iter().map(|(_, c)| c.clone()).collect();
    let Some(plan) = identities::plan(&ids, &found) else {
        return Ok(());
    };
    match plan.keep {
        None => Ok(()),
        Some(_) if plan.changes_contacts() => ports
            .contacts
            .apply_identities(scope, connection.channel, &plan)
            .await
            .map(|_| ()),
        Some(keep) => {
            let unknown: Vec<(ContactId, String)> =
                unknown_aliases(&plan, keep, &matches).collect();
            if unknown.is_empty() {
                return Ok(());
            }
            ports
                .contacts
                .add_aliases(scope, connection.channel, &unknown)
                .await
        }
    }
}

/// The aliases of `plan` that the lookup did not find on `keep` already.
fn unknown_aliases<'p>(
    plan: &'p IdentityPlan,
    keep: ContactId,
    matches: &'p [(String, KnownContact)],
) -> impl Iterator<Item = (ContactId, String)> + 'p {
    plan.aliases
        .iter()
        .filter(move |alias| {
            !matches
                .iter()
                .any(|(identity, contact)| identity == *alias && contact.id == keep)
        })
        .map(move |alias| (keep, alias.clone()))
}

/// After the batch: records the aliases of the contacts it created (`stored` in the order of
/// the resolved messages; a message not stored records nothing, its next delivery will).
pub async fn record_new(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    resolved: &Resolved<'_>,
    stored: &[Stored],
) -> Result<()> {
    let mut aliases: Vec<(ContactId, String)> = Vec::new();
    for (members, list) in &resolved.pending {
        let contact = members.iter().find_map(|i| match stored.get(*i) {
            Some(Stored {
                outcome: IngestOutcome::Stored { .. },
                contact: Some(contact),
                ..
            }) => Some(contact.id),
            _ => None,
        });
        if let Some(contact) = contact {
            aliases.extend(list.iter().map(|alias| (contact, alias.clone())));
        }
    }
    if aliases.is_empty() {
        return Ok(());
    }
    ports
        .contacts
        .add_aliases(scope, connection.channel, &aliases)
        .await
}
