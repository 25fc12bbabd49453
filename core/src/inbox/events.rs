//! Realtime events of the inbox: what is stored in the company's event log (the outbox) and how
//! each event is named and shaped on the socket (spec 1 §7 "Real-time").
//!
//! Events are stored unmasked and complete; when the dispatcher emits one to a socket it asks
//! [`InboxEvent::visible_to`] whether that user may see it and [`InboxEvent::for_recipient`] for
//! the payload that user receives (LGPD masking). Every emitted payload carries `seq`, the
//! company's sequence number, so a reconnecting client can ask for what it missed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::identity::Actor;
use crate::ids::{CompanyId, ContactId, TicketId};
use crate::inbox::model::{Connection, Contact, Message, Ticket};

/// An event of the inbox, as stored in the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum InboxEvent {
    /// `company-{id}-ticket` `{action: "update", ticket}`.
    TicketUpdate { ticket: Box<Ticket> },
    /// `company-{id}-ticket` `{action: "delete", ticketId}`; carries the ticket as it was so
    /// visibility can be decided.
    #[serde(rename_all = "camelCase")]
    TicketDelete { ticket: Box<Ticket> },
    /// `company-{id}-ticket` `{action: "updateUnread", ticketId}`.
    #[serde(rename_all = "camelCase")]
    TicketUnreadReset { ticket: Box<Ticket> },
    /// `company-{id}-appMessage` `{action: "create"|"update"|"delete", message, ticket}`.
    AppMessage {
        action: MessageAction,
        message: Box<Message>,
        ticket: Box<Ticket>,
    },
    /// `company-{id}-contact` `{action: "update"|"create", contact}`.
    ContactUpdate {
        action: String,
        contact: Box<Contact>,
    },
    /// `company-{id}-contact` `{action: "delete", contactId}`.
    #[serde(rename_all = "camelCase")]
    ContactDelete { contact_id: ContactId },
    /// `company-{id}-whatsapp` `{action: "update", whatsapp}`.
    WhatsappUpdate { whatsapp: Box<Connection> },
    /// `company-{id}-whatsapp` `{action: "delete", whatsappId}`.
    #[serde(rename_all = "camelCase")]
    WhatsappDelete { whatsapp_id: i64 },
    /// `company-{id}-whatsappSession` `{action: "update", session}`.
    WhatsappSession { session: Box<Connection> },
    /// Any other event published through the bus (users, settings, auth...): emitted as is to
    /// the whole company, to one user when `user_id` is set, or to the sockets that joined the
    /// company's named room `room` (`notification`, a ticket status...).
    #[serde(rename_all = "camelCase")]
    Other {
        name_suffix: String,
        payload: serde_json::Value,
        user_id: Option<i64>,
        /// A named room of the company (`company-{id}-{room}`); `None` for the whole company.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<String>,
    },
}

/// What happened to a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageAction {
    Create,
    Update,
    Delete,
}

/// An event read back from the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEvent {
    pub company_id: CompanyId,
    /// The company's sequence number.
    pub seq: i64,
    pub event: InboxEvent,
    pub created_at: DateTime<Utc>,
}

/// The company settings that shape what a recipient receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecipientSettings {
    /// `enableLGPD` and `lgpdHideNumber` both enabled.
    pub hide_numbers: bool,
}

impl RecipientSettings {
    /// The recipient settings of a company from its stored settings (key, value) pairs.
    pub fn from_company_settings(stored: &[(String, String)]) -> Self {
        let map = crate::settings::to_map(stored);
        Self {
            hide_numbers: crate::settings::is_enabled(&map, "enableLGPD")
                && crate::settings::is_enabled(&map, "lgpdHideNumber"),
        }
    }
}

impl InboxEvent {
    /// The socket event name, e.g. `company-3-ticket`.
    pub fn name(&self, company: CompanyId) -> String {
        let suffix = match self {
            InboxEvent::TicketUpdate { .. }
            | InboxEvent::TicketDelete { .. }
            | InboxEvent::TicketUnreadReset { .. } => "ticket",
            InboxEvent::AppMessage { .. } => "appMessage",
            InboxEvent::ContactUpdate { .. } | InboxEvent::ContactDelete { .. } => "contact",
            InboxEvent::WhatsappUpdate { .. } | InboxEvent::WhatsappDelete { .. } => "whatsapp",
            InboxEvent::WhatsappSession { .. } => "whatsappSession",
            InboxEvent::Other { name_suffix, .. } => name_suffix,
        };
        format!("company-{company}-{suffix}")
    }

    /// The ticket the event is about, if any (visibility and per-ticket rooms).
    pub fn ticket(&self) -> Option<&Ticket> {
        match self {
            InboxEvent::TicketUpdate { ticket }
            | InboxEvent::TicketDelete { ticket }
            | InboxEvent::TicketUnreadReset { ticket }
            | InboxEvent::AppMessage { ticket, .. } => Some(ticket),
            _ => None,
        }
    }

    /// The ticket id, if the event is about one.
    pub fn ticket_id(&self) -> Option<TicketId> {
        self.ticket().map(|t| t.id)
    }

    /// Whether `actor` may receive the event: ticket events only for tickets the actor may see
    /// ([`crate::inbox::visibility::may_see_ticket`]), user-addressed events only for that user.
    pub fn visible_to(&self, actor: &Actor) -> bool {
        match self {
            InboxEvent::Other {
                user_id: Some(user),
                ..
            } => actor.user_id.0 == *user,
            _ => match self.ticket() {
                Some(ticket) => crate::inbox::visibility::may_see_ticket(actor, ticket),
                None => true,
            },
        }
    }

    /// Whether recipients may receive different payloads for this event (LGPD masking, the
    /// connection token shown only to those who manage connections); when false, one payload
    /// serves every recipient who may see the event.
    pub fn varies_by_recipient(&self, settings: RecipientSettings) -> bool {
        settings.hide_numbers
            || matches!(
                self,
                InboxEvent::WhatsappUpdate { .. } | InboxEvent::WhatsappSession { .. }
            )
    }

    /// The payload `actor` receives, with `seq` added and numbers masked as LGPD requires.
    pub fn for_recipient(
        &self,
        actor: &Actor,
        settings: RecipientSettings,
        seq: i64,
    ) -> serde_json::Value {
        use serde_json::json;
        let lgpd = |t: &Ticket| crate::inbox::lgpd::ticket_for(actor, settings, t);
        let mut value = match self {
            InboxEvent::TicketUpdate { ticket } => {
                json!({"action": "update", "ticket": lgpd(ticket)})
            }
            InboxEvent::TicketDelete { ticket } => {
                json!({"action": "delete", "ticketId": ticket.id, "ticketUuid": ticket.uuid})
            }
            InboxEvent::TicketUnreadReset { ticket } => {
                json!({"action": "updateUnread", "ticketId": ticket.id})
            }
            InboxEvent::AppMessage {
                action,
                message,
                ticket,
            } => json!({"action": action, "message": message, "ticket": lgpd(ticket)}),
            InboxEvent::ContactUpdate { action, contact } => json!({
                "action": action,
                "contact": crate::inbox::lgpd::contact_for(actor, settings, contact),
            }),
            InboxEvent::ContactDelete { contact_id } => {
                json!({"action": "delete", "contactId": contact_id})
            }
            InboxEvent::WhatsappUpdate { whatsapp } => json!({
                "action": "update",
                "whatsapp": crate::inbox::connection_rules::connection_for(actor, (**whatsapp).clone()),
            }),
            InboxEvent::WhatsappDelete { whatsapp_id } => {
                json!({"action": "delete", "whatsappId": whatsapp_id})
            }
            InboxEvent::WhatsappSession { session } => json!({
                "action": "update",
                "session": crate::inbox::connection_rules::connection_for(actor, (**session).clone()),
            }),
            InboxEvent::Other { payload, .. } => payload.clone(),
        };
        if let Some(map) = value.as_object_mut() {
            map.insert("seq".into(), json!(seq));
        }
        value
    }
}

impl InboxEvent {
    /// The log form of an event a use case published ([`crate::ports::EventBus`]): `Other`
    /// with the name's suffix after `company-{id}-` and the event's audience, so it gets a
    /// sequence number like every other event.
    pub fn from_published(event: &crate::ports::RealtimeEvent) -> InboxEvent {
        use crate::ports::Audience;
        let prefix = format!("company-{}-", event.company_id);
        let name_suffix = event
            .name
            .strip_prefix(&prefix)
            .unwrap_or(&event.name)
            .to_owned();
        let (user_id, room) = match &event.audience {
            Audience::Company => (None, None),
            Audience::User(user) => (Some(user.0), None),
            Audience::Room(room) => (None, Some(room.clone())),
        };
        InboxEvent::Other {
            name_suffix,
            payload: event.payload.clone(),
            user_id,
            room,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_hidden_only_with_both_lgpd_settings() {
        let pairs = |lgpd: &str, hide: &str| {
            vec![
                ("enableLGPD".to_owned(), lgpd.to_owned()),
                ("lgpdHideNumber".to_owned(), hide.to_owned()),
            ]
        };
        assert!(
            RecipientSettings::from_company_settings(&pairs("enabled", "enabled")).hide_numbers
        );
        assert!(
            !RecipientSettings::from_company_settings(&pairs("enabled", "disabled")).hide_numbers
        );
        assert!(
            !RecipientSettings::from_company_settings(&pairs("disabled", "enabled")).hide_numbers
        );
        assert!(!RecipientSettings::from_company_settings(&[]).hide_numbers);
    }

    #[test]
    fn other_events_stored_without_a_room_still_read() {
        let stored = serde_json::json!({
            "kind": "other", "nameSuffix": "user", "payload": {"action": "update"}, "userId": null
        });
        let event: InboxEvent = serde_json::from_value(stored).expect("readable");
        assert_eq!(event.name(CompanyId(2)), "company-2-user");
        let InboxEvent::Other { room, .. } = &event else {
            panic!("an Other event")
        };
        assert_eq!(room, &None);
    }
}
