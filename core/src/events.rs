//! The realtime events of every feature, in one typed model: what is stored in the company's
//! event log (the outbox) and how each event is named and shaped on the socket (spec 1 §7
//! "Real-time").
//!
//! Every write appends its events to the log **in the transaction that writes the data**: the
//! store's repositories take them (or build them with the functions here from the rows they
//! wrote), so an event is never lost after a commit and never seen for data rolled back.
//!
//! Events are stored unmasked and complete; when the dispatcher emits one to a socket it asks
//! [`Event::recipients`] whose sockets it goes to, [`Event::visible_to`] whether that user may
//! see it and [`Event::for_recipient`] for the payload that user receives (LGPD masking, the
//! connection token). Every emitted payload carries `seq`, the company's sequence number, so a
//! reconnecting client can ask for what it missed.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::flow_ports::{FlowCampaign, FlowCampaignId, FlowId, FlowSummary};
use crate::identity::Actor;
use crate::ids::{
    CompanyId, ContactId, QueueId, QuickMessageId, ScheduleId, TagId, TicketId, UserId, WhatsappId,
};
use crate::inbox::model::{Connection, Contact, Message, Tag, Ticket};
use crate::queue::Queue;
use crate::quick_message::QuickMessage;
use crate::schedule::Schedule;
use crate::service::settings::Setting;
use crate::service::users::UserSummary;

/// An event, as stored in the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Event {
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
    /// `company-{id}-user` `{action: "create"|"update", user}` for the whole company: only what
    /// every member may see (the `GET /users/list` fields).
    UserSaved {
        action: SaveAction,
        user: Box<UserSummary>,
    },
    /// `company-{id}-user` `{action: "delete", userId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    UserDeleted { user_id: UserId },
    /// `company-{id}-settings` `{action: "update", setting}` for the whole company (never a
    /// secret's).
    SettingUpdated { setting: Setting },
    /// `company-{id}-auth` `{action: "update", user: {id}, sessionId}` for the user's sockets
    /// only: a sign-in, so the user's other sessions sign out.
    #[serde(rename_all = "camelCase")]
    SignedIn { user_id: UserId, session_id: Uuid },
    /// `company-{id}-tag` `{action: "create"|"update", tag}` for the whole company.
    TagSaved { action: SaveAction, tag: Box<Tag> },
    /// `company-{id}-tag` `{action: "delete", tagId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    TagDeleted { tag_id: TagId },
    /// `company-{id}-quickmessage` `{action: "create"|"update", record}`: for the whole company
    /// when the quick message is shared, for its owner's sockets when not.
    QuickMessageSaved {
        action: SaveAction,
        record: Box<QuickMessage>,
    },
    /// `company-{id}-quickmessage` `{action: "delete", id}`: for the owner's sockets when the
    /// quick message was private to them (`private_to`), else for the whole company.
    #[serde(rename_all = "camelCase")]
    QuickMessageDeleted {
        id: QuickMessageId,
        private_to: Option<UserId>,
    },
    /// `company-{id}-schedule` `{action: "create"|"update", schedule}` for the whole company.
    ScheduleSaved {
        action: SaveAction,
        schedule: Box<Schedule>,
    },
    /// `company-{id}-schedule` `{action: "delete", scheduleId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    ScheduleDeleted { schedule_id: ScheduleId },
    /// `company-{id}-flowbuilder` `{action: "create"|"update", flow}` for the whole company.
    FlowSaved {
        action: SaveAction,
        flow: Box<FlowSummary>,
    },
    /// `company-{id}-flowbuilder` `{action: "delete", flowId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    FlowDeleted { flow_id: FlowId },
    /// `company-{id}-queue` `{action: "create"|"update", queue}` for the whole company.
    QueueSaved {
        action: SaveAction,
        queue: Box<Queue>,
    },
    /// `company-{id}-queue` `{action: "delete", queueId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    QueueDeleted { queue_id: QueueId },
    /// `company-{id}-flowcampaign` `{action: "create"|"update", flowCampaign}` for the whole
    /// company.
    #[serde(rename_all = "camelCase")]
    FlowCampaignSaved {
        action: SaveAction,
        flow_campaign: Box<FlowCampaign>,
    },
    /// `company-{id}-flowcampaign` `{action: "delete", flowCampaignId}` for the whole company.
    #[serde(rename_all = "camelCase")]
    FlowCampaignDeleted { flow_campaign_id: FlowCampaignId },
    /// `importMessages-{id}` `{action: "update", status: {this, all, date, whatsappId}}` for the
    /// whole company: how far a connection's import of old messages is (`this` is -1 while
    /// nothing is written yet; `date` is the time of the last message written).
    #[serde(rename_all = "camelCase")]
    ImportProgress {
        whatsapp_id: WhatsappId,
        this: i64,
        all: i64,
        date: Option<DateTime<Utc>>,
    },
    /// `importMessages-{id}` `{action: "refresh", whatsappId}` for the whole company: the
    /// import finished (its tickets are listed again).
    #[serde(rename_all = "camelCase")]
    ImportFinished { whatsapp_id: WhatsappId },
}

/// Whether a record was created or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SaveAction {
    Create,
    Update,
}

/// Whose sockets of the company an event goes to (then filtered by [`Event::visible_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recipients {
    /// Every socket of the company.
    Company,
    /// The sockets of one user.
    User(UserId),
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
    pub event: Event,
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

impl Event {
    /// The socket event name, e.g. `company-3-ticket`.
    pub fn name(&self, company: CompanyId) -> String {
        if let Event::ImportProgress { .. } | Event::ImportFinished { .. } = self {
            // The one event spec 2 names the other way round.
            return format!("importMessages-{company}");
        }
        format!("company-{company}-{}", self.suffix())
    }

    /// The socket event name after `company-{id}-`, e.g. `ticket`.
    pub fn suffix(&self) -> &'static str {
        match self {
            Event::TicketUpdate { .. }
            | Event::TicketDelete { .. }
            | Event::TicketUnreadReset { .. } => "ticket",
            Event::AppMessage { .. } => "appMessage",
            Event::ContactUpdate { .. } | Event::ContactDelete { .. } => "contact",
            Event::WhatsappUpdate { .. } | Event::WhatsappDelete { .. } => "whatsapp",
            Event::WhatsappSession { .. } => "whatsappSession",
            Event::UserSaved { .. } | Event::UserDeleted { .. } => "user",
            Event::SettingUpdated { .. } => "settings",
            Event::SignedIn { .. } => "auth",
            Event::TagSaved { .. } | Event::TagDeleted { .. } => "tag",
            Event::QuickMessageSaved { .. } | Event::QuickMessageDeleted { .. } => "quickmessage",
            Event::ScheduleSaved { .. } | Event::ScheduleDeleted { .. } => "schedule",
            Event::FlowSaved { .. } | Event::FlowDeleted { .. } => "flowbuilder",
            Event::QueueSaved { .. } | Event::QueueDeleted { .. } => "queue",
            Event::FlowCampaignSaved { .. } | Event::FlowCampaignDeleted { .. } => "flowcampaign",
            Event::ImportProgress { .. } | Event::ImportFinished { .. } => "importMessages",
        }
    }

    /// Whose sockets the event goes to: one user's for a sign-in and a private quick message,
    /// the whole company's for the rest.
    pub fn recipients(&self) -> Recipients {
        match self {
            Event::SignedIn { user_id, .. } => Recipients::User(*user_id),
            Event::QuickMessageSaved { record, .. } if !record.geral => {
                Recipients::User(record.user_id)
            }
            Event::QuickMessageDeleted {
                private_to: Some(owner),
                ..
            } => Recipients::User(*owner),
            _ => Recipients::Company,
        }
    }

    /// The ticket the event is about, if any (visibility and per-ticket rooms).
    pub fn ticket(&self) -> Option<&Ticket> {
        match self {
            Event::TicketUpdate { ticket }
            | Event::TicketDelete { ticket }
            | Event::TicketUnreadReset { ticket }
            | Event::AppMessage { ticket, .. } => Some(ticket),
            _ => None,
        }
    }

    /// The ticket id, if the event is about one.
    pub fn ticket_id(&self) -> Option<TicketId> {
        self.ticket().map(|t| t.id)
    }

    /// The user whose account the event changed or removed: their sockets' acting user (profile,
    /// queues and flags decide visibility) must be read again once it went out.
    pub fn changed_user(&self) -> Option<UserId> {
        match self {
            Event::UserSaved { user, .. } => Some(user.id),
            Event::UserDeleted { user_id } => Some(*user_id),
            _ => None,
        }
    }

    /// Whether the event changes the company's settings (what recipients receive depends on
    /// them: LGPD masking applies from the event that announces it).
    pub fn changes_settings(&self) -> bool {
        matches!(self, Event::SettingUpdated { .. })
    }

    /// Whether `actor` may receive the event: ticket events only for tickets the actor may see
    /// ([`crate::inbox::visibility::may_see_ticket`]), user-addressed events only for that user.
    pub fn visible_to(&self, actor: &Actor) -> bool {
        if let Recipients::User(user) = self.recipients() {
            return actor.user_id == user;
        }
        match self.ticket() {
            Some(ticket) => crate::inbox::visibility::may_see_ticket(actor, ticket),
            None => true,
        }
    }

    /// Whether recipients may receive different payloads for this event (LGPD masking, the
    /// connection token shown only to those who manage connections); when false, one payload
    /// serves every recipient who may see the event.
    pub fn varies_by_recipient(&self, settings: RecipientSettings) -> bool {
        settings.hide_numbers
            || matches!(
                self,
                Event::WhatsappUpdate { .. } | Event::WhatsappSession { .. }
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
            Event::TicketUpdate { ticket } => {
                json!({"action": "update", "ticket": lgpd(ticket)})
            }
            Event::TicketDelete { ticket } => {
                json!({"action": "delete", "ticketId": ticket.id, "ticketUuid": ticket.uuid})
            }
            Event::TicketUnreadReset { ticket } => {
                json!({"action": "updateUnread", "ticketId": ticket.id})
            }
            Event::AppMessage {
                action,
                message,
                ticket,
            } => json!({"action": action, "message": message, "ticket": lgpd(ticket)}),
            Event::ContactUpdate { action, contact } => json!({
                "action": action,
                "contact": crate::inbox::lgpd::contact_for(actor, settings, contact),
            }),
            Event::ContactDelete { contact_id } => {
                json!({"action": "delete", "contactId": contact_id})
            }
            Event::WhatsappUpdate { whatsapp } => json!({
                "action": "update",
                "whatsapp": crate::inbox::connection_rules::connection_for(actor, (**whatsapp).clone()),
            }),
            Event::WhatsappDelete { whatsapp_id } => {
                json!({"action": "delete", "whatsappId": whatsapp_id})
            }
            Event::WhatsappSession { session } => json!({
                "action": "update",
                "session": crate::inbox::connection_rules::connection_for(actor, (**session).clone()),
            }),
            Event::UserSaved { action, user } => json!({"action": action, "user": user}),
            Event::UserDeleted { user_id } => json!({"action": "delete", "userId": user_id}),
            Event::SettingUpdated { setting } => json!({"action": "update", "setting": setting}),
            Event::SignedIn {
                user_id,
                session_id,
            } => json!({"action": "update", "user": {"id": user_id}, "sessionId": session_id}),
            Event::TagSaved { action, tag } => json!({"action": action, "tag": tag}),
            Event::TagDeleted { tag_id } => json!({"action": "delete", "tagId": tag_id}),
            Event::QuickMessageSaved { action, record } => {
                json!({"action": action, "record": record})
            }
            Event::QuickMessageDeleted { id, .. } => json!({"action": "delete", "id": id}),
            Event::ScheduleSaved { action, schedule } => {
                json!({"action": action, "schedule": schedule})
            }
            Event::ScheduleDeleted { schedule_id } => {
                json!({"action": "delete", "scheduleId": schedule_id})
            }
            Event::FlowSaved { action, flow } => json!({"action": action, "flow": flow}),
            Event::FlowDeleted { flow_id } => json!({"action": "delete", "flowId": flow_id}),
            Event::QueueSaved { action, queue } => json!({"action": action, "queue": queue}),
            Event::QueueDeleted { queue_id } => json!({"action": "delete", "queueId": queue_id}),
            Event::FlowCampaignSaved {
                action,
                flow_campaign,
            } => json!({"action": action, "flowCampaign": flow_campaign}),
            Event::FlowCampaignDeleted { flow_campaign_id } => {
                json!({"action": "delete", "flowCampaignId": flow_campaign_id})
            }
            Event::ImportProgress {
                whatsapp_id,
                this,
                all,
                date,
            } => json!({
                "action": "update",
                "status": {"this": this, "all": all, "date": date, "whatsappId": whatsapp_id},
            }),
            Event::ImportFinished { whatsapp_id } => {
                json!({"action": "refresh", "whatsappId": whatsapp_id})
            }
        };
        if let Some(map) = value.as_object_mut() {
            map.insert("seq".into(), json!(seq));
        }
        value
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
}
