//! Use cases that combine the rules with the ports; shared by the server and the CLI.
//!
//! A use case takes [`Ports`] and the [`crate::identity::Actor`] (or, for platform work, says so)
//! and returns domain values or a catalogue [`crate::Error`]. Hosts translate transport to and
//! from these calls and hold no rules of their own.

use std::sync::Arc;

use crate::ports::{
    Clock, CompanyRepo, HelpRepo, IdGenerator, Mailer, MediaStore, PasswordHasher,
    PasswordResetRepo, PlanRepo, QueueRepo, SessionRepo, SettingsRepo, UserRepo,
};

pub mod auth;
pub mod automation;
pub mod bootstrap;
pub mod companies;
pub mod company_schedules;
pub mod flow_campaigns;
pub mod flows;
pub mod handoff;
pub mod inbox;
pub mod jobs;
pub mod password_reset;
pub mod queues;
pub mod quick_messages;
pub mod schedules;
pub mod settings;
pub mod users;

/// Everything a use case may reach, as trait objects.
#[derive(Clone)]
pub struct Ports {
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdGenerator>,
    pub hasher: Arc<dyn PasswordHasher>,
    pub companies: Arc<dyn CompanyRepo>,
    pub plans: Arc<dyn PlanRepo>,
    pub users: Arc<dyn UserRepo>,
    pub settings: Arc<dyn SettingsRepo>,
    pub sessions: Arc<dyn SessionRepo>,
    /// Seals and opens the secrets kept in the database.
    pub secrets: Arc<dyn crate::ports::SecretCipher>,
    pub queues: Arc<dyn QueueRepo>,
    pub helps: Arc<dyn HelpRepo>,
    /// Stored media (avatars, attachments).
    pub media: Arc<dyn MediaStore>,
    /// Outgoing e-mail (password-reset codes).
    pub mailer: Arc<dyn Mailer>,
    /// Password-reset codes.
    pub resets: Arc<dyn PasswordResetRepo>,
    /// Messaging providers (sandbox, WhatsApp, ...), by kind.
    pub channels: crate::inbox::channel::ChannelRegistry,
    /// The per-company realtime event log (outbox and replay source).
    pub event_log: Arc<dyn crate::inbox::ports::EventLog>,
    /// Connections (`whatsapps`).
    pub connections: Arc<dyn crate::inbox::ports::ConnectionRepo>,
    /// Contacts, their extra fields and tags.
    pub contacts: Arc<dyn crate::inbox::ports::ContactRepo>,
    /// Tags (company, contact and ticket tags).
    pub tags: Arc<dyn crate::inbox::ports::TagRepo>,
    /// Tickets, their logs and notes.
    pub tickets: Arc<dyn crate::inbox::ports::TicketRepo>,
    /// Messages and inbound ingestion.
    pub messages: Arc<dyn crate::inbox::ports::MessageRepo>,
    /// Durable jobs (forwarding now; timers and campaigns later).
    pub jobs: Arc<dyn crate::jobs::JobQueue>,
    /// Scheduled and recurring messages.
    pub schedules: Arc<dyn crate::schedule::ScheduleRepo>,
    /// Flows of the flow builder, their versions and runs.
    pub flows: Arc<dyn crate::flow_ports::FlowRepo>,
    /// Phrase campaigns (a phrase starts a flow).
    pub flow_campaigns: Arc<dyn crate::flow_ports::FlowCampaignRepo>,
    /// The OpenAI-compatible assistant (`openai` flow nodes, prompts).
    pub assistant: Arc<dyn crate::integrations::AssistantClient>,
    /// Typebot's chat API (`typebot` flow nodes, queue integrations of type typebot).
    pub typebot: Arc<dyn crate::integrations::TypebotClient>,
    /// Quick messages (quick replies).
    pub quick_messages: Arc<dyn crate::quick_message::QuickMessageRepo>,
    /// Contact spreadsheets staged for import.
    pub staged_uploads: Arc<dyn crate::inbox::ports::StagedUploadRepo>,
    /// Inbound events set aside because they could not be stored.
    pub inbound_failures: Arc<dyn crate::inbox::inbound::InboundFailureRepo>,
    /// Channel sessions' key state, per connection (internal to channel providers; fenced by
    /// the connection's lease).
    pub session_state: Arc<dyn crate::inbox::session_state::SessionStateRepo>,
    /// The queues of connections' imports of old messages.
    pub history: Arc<dyn crate::inbox::ports::HistoryImportRepo>,
    /// Outages and gaps of connections.
    pub gaps: Arc<dyn crate::inbox::gaps::GapRepo>,
    /// Flags and health of outbound deliveries.
    pub delivery: Arc<dyn crate::inbox::delivery::DeliveryRepo>,
    /// Leases on connections' channel sessions: one owner process each, with fencing tokens.
    pub leases: Arc<dyn crate::inbox::lease::ChannelLeaseRepo>,
}
