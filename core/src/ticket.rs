//! The ticket state machine of spec 1 §4.
//!
//! [`apply`] takes a ticket's [`TicketState`], a [`Command`] (accept, return to queue, resolve,
//! ignore, reopen, transfer, close) and a [`Context`] (who acts, and the settings that matter)
//! and returns the new state with the [`Effect`]s the caller must carry out: messages to send to
//! the contact, log entries to write, the bot counter to reset, the queue chooser to open. It does
//! no I/O; the ticket use cases load the ticket, call it, persist the state and perform the
//! effects.
//!
//! Every state [`apply`] returns satisfies [`is_valid`]:
//! - an `open` ticket has an owner and is not a group; a `group` ticket has an owner and is a
//!   group; a `pending` ticket has no owner (groups waiting for an attendant are `pending` too);
//! - a transferred ticket has a queue.
//!
//! Errors come from the catalogue: `ERR_INVALID_TICKET_TRANSITION` (the command does not apply to
//! the current status), `ERR_TICKET_OWNED_BY_OTHER` (accepting or reopening a ticket another user
//! holds; the web app shows who), `ERR_TAG_REQUIRED` (requiredTag is on and the contact has no
//! tag), `ERR_QUEUE_REQUIRED` (a transfer without a queue) and `ERR_NO_PERMISSION` (another
//! company's ticket, someone else's ticket without show-all, closing or ignoring a pending ticket
//! without admin or userClosePendingTicket, close-all without its permission).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{CompanyId, QueueId, UserId};
use crate::policy::{Action, TicketTarget, authorize};
use crate::settings::SettingsView;

/// A ticket's status, lowercase on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum TicketStatus {
    /// Waiting for an attendant.
    Pending,
    /// Assigned to an attendant.
    Open,
    /// Finished.
    Closed,
    /// A group conversation assigned to an attendant.
    Group,
    /// Waiting for the contact's privacy (LGPD) consent.
    Lgpd,
    /// Waiting for the contact's rating.
    Nps,
}

impl TicketStatus {
    /// Every status.
    pub const ALL: [TicketStatus; 6] = [
        TicketStatus::Pending,
        TicketStatus::Open,
        TicketStatus::Closed,
        TicketStatus::Group,
        TicketStatus::Lgpd,
        TicketStatus::Nps,
    ];

    /// The wire name, e.g. `pending`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Pending => "pending",
            TicketStatus::Open => "open",
            TicketStatus::Closed => "closed",
            TicketStatus::Group => "group",
            TicketStatus::Lgpd => "lgpd",
            TicketStatus::Nps => "nps",
        }
    }
}

impl std::fmt::Display for TicketStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of ticket log entry (spec 1 §3), with their wire names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum TicketLogType {
    /// `create`: the ticket was created.
    Create,
    /// `chatBot`: the chatbot handled the contact.
    ChatBot,
    /// `queue`: the ticket entered a queue.
    Queue,
    /// `open`: an attendant accepted the ticket.
    Open,
    /// `access`: an attendant opened the ticket view.
    Access,
    /// `transfered`: the ticket was transferred (by the acting user).
    Transfered,
    /// `receivedTransfer`: the ticket was transferred to this user.
    ReceivedTransfer,
    /// `pending`: the ticket went back to the queue.
    Pending,
    /// `closed`: the ticket was closed.
    Closed,
    /// `reopen`: the ticket was reopened.
    Reopen,
    /// `redirect`: the ticket was redirected to another queue automatically.
    Redirect,
}

impl TicketLogType {
    /// Every log type, in the order of spec 1 §3.
    pub const ALL: [TicketLogType; 11] = [
        TicketLogType::Create,
        TicketLogType::ChatBot,
        TicketLogType::Queue,
        TicketLogType::Open,
        TicketLogType::Access,
        TicketLogType::Transfered,
        TicketLogType::ReceivedTransfer,
        TicketLogType::Pending,
        TicketLogType::Closed,
        TicketLogType::Reopen,
        TicketLogType::Redirect,
    ];

    /// The wire name, e.g. `receivedTransfer`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TicketLogType::Create => "create",
            TicketLogType::ChatBot => "chatBot",
            TicketLogType::Queue => "queue",
            TicketLogType::Open => "open",
            TicketLogType::Access => "access",
            TicketLogType::Transfered => "transfered",
            TicketLogType::ReceivedTransfer => "receivedTransfer",
            TicketLogType::Pending => "pending",
            TicketLogType::Closed => "closed",
            TicketLogType::Reopen => "reopen",
            TicketLogType::Redirect => "redirect",
        }
    }
}

impl std::fmt::Display for TicketLogType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The part of a ticket the state machine reads and changes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketState {
    /// The ticket's company.
    pub company_id: CompanyId,
    /// The current status.
    pub status: TicketStatus,
    /// The attendant the ticket is assigned to. A resolved ticket keeps who resolved it; an
    /// ignored or bulk-closed one keeps its previous owner.
    pub user_id: Option<UserId>,
    /// The ticket's queue.
    pub queue_id: Option<QueueId>,
    /// A group conversation.
    pub is_group: bool,
    /// How many chatbot queue menus the contact went through.
    pub amount_used_bot_queues: u32,
    /// The ticket was transferred at least once.
    #[serde(rename = "isTransfered")]
    pub is_transferred: bool,
}

impl TicketState {
    /// A new ticket waiting in `queue_id` (if any), as an inbound message creates it.
    pub fn pending(company_id: CompanyId, queue_id: Option<QueueId>, is_group: bool) -> Self {
        Self {
            company_id,
            status: TicketStatus::Pending,
            user_id: None,
            queue_id,
            is_group,
            amount_used_bot_queues: 0,
            is_transferred: false,
        }
    }
}

/// True when `state` satisfies the ticket invariants (see the module documentation).
pub fn is_valid(state: &TicketState) -> bool {
    let owner_rule = match state.status {
        TicketStatus::Open => state.user_id.is_some() && !state.is_group,
        TicketStatus::Group => state.user_id.is_some() && state.is_group,
        TicketStatus::Pending => state.user_id.is_none(),
        TicketStatus::Closed | TicketStatus::Lgpd | TicketStatus::Nps => true,
    };
    owner_rule && (!state.is_transferred || state.queue_id.is_some())
}

/// What an attendant (or the system) asks of a ticket.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "camelCase")]
pub enum Command {
    /// Take a pending ticket: it becomes the actor's (`open`, or `group` for a group).
    Accept,
    /// Give an open or group ticket back to its queue: `pending`, owner cleared.
    ReturnToQueue,
    /// Finish an open or group ticket (or a pending one, with permission), with or without the
    /// farewell message; the acting user is recorded as the ticket's user.
    #[serde(rename_all = "camelCase")]
    Resolve {
        /// Send the farewell message to the contact.
        send_farewell: bool,
    },
    /// Close a pending or LGPD ticket without attendance: no farewell, bot counter reset.
    Ignore,
    /// Open a closed ticket again for the actor.
    Reopen,
    /// Move the ticket to a queue and optionally a user; a queue is required.
    #[serde(rename_all = "camelCase")]
    Transfer {
        /// The new owner; `None` leaves the ticket pending in the queue.
        to_user: Option<UserId>,
        /// The new queue (required).
        to_queue: Option<QueueId>,
        /// A message for the contact written by the attendant.
        message: Option<String>,
    },
    /// Close as part of close-all: no farewell, no tag check.
    Close,
}

/// Who acts and the settings a transition depends on.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The acting user.
    pub actor: &'a Actor,
    /// Company setting `sendGreetingAccepted`.
    pub send_greeting_accepted: bool,
    /// Company setting `greetingAcceptedMessage`.
    pub greeting_accepted_message: &'a str,
    /// Company setting `requiredTag`.
    pub required_tag: bool,
    /// How many tags the ticket's contact has.
    pub contact_tag_count: usize,
    /// The connection's `groupAsTicket`: group tickets are attended like one-to-one tickets, so
    /// automatic messages go to them too.
    pub group_as_ticket: bool,
    /// The farewell message: the attendant's own, or the connection's completion message.
    pub farewell_message: &'a str,
    /// Company setting `sendFarewellWaitingTicket`: a pending ticket closed with farewell gets it.
    pub send_farewell_waiting_ticket: bool,
    /// Company setting `sendMsgTransfTicket`.
    pub send_msg_transf_ticket: bool,
    /// Company setting `transferMessage` (with its `{{queue}}` placeholder unrendered).
    pub transfer_message: &'a str,
}

impl<'a> Context<'a> {
    /// A context for `actor` with every setting off and no messages.
    pub fn new(actor: &'a Actor) -> Self {
        Self {
            actor,
            send_greeting_accepted: false,
            greeting_accepted_message: "",
            required_tag: false,
            contact_tag_count: 0,
            group_as_ticket: false,
            farewell_message: "",
            send_farewell_waiting_ticket: false,
            send_msg_transf_ticket: false,
            transfer_message: "",
        }
    }

    /// The same context with the company settings read from `settings`.
    pub fn with_settings(self, settings: &SettingsView<'a>) -> Self {
        Self {
            send_greeting_accepted: settings.is_enabled("sendGreetingAccepted"),
            greeting_accepted_message: settings.get("greetingAcceptedMessage"),
            required_tag: settings.is_enabled("requiredTag"),
            send_farewell_waiting_ticket: settings.is_enabled("sendFarewellWaitingTicket"),
            send_msg_transf_ticket: settings.is_enabled("sendMsgTransfTicket"),
            transfer_message: settings.get("transferMessage"),
            ..self
        }
    }
}

/// A ticket log entry to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketLog {
    /// What happened.
    #[serde(rename = "type")]
    pub kind: TicketLogType,
    /// The user the entry is about.
    pub user_id: Option<UserId>,
    /// The ticket's queue after the change.
    pub queue_id: Option<QueueId>,
}

/// Something the caller must do after a transition.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "effect", content = "value", rename_all = "camelCase")]
pub enum Effect {
    /// Send the accept greeting (placeholders unrendered) to the contact.
    SendGreeting(String),
    /// Send the farewell message (placeholders unrendered) to the contact.
    SendFarewell(String),
    /// Send a transfer notice to the contact (the `{{queue}}` placeholder unrendered).
    SendTransferMessage(String),
    /// Set the bot queue counter to 0 (already done in the returned state).
    ResetBotCounter,
    /// Write a ticket log entry.
    Log(TicketLog),
    /// The ticket has no queue: the web app opens the transfer/queue chooser.
    OpenQueueChooser,
}

/// The outcome of a command: the new state and the effects to carry out, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The ticket after the command.
    pub state: TicketState,
    /// What the caller must do, in order.
    pub effects: Vec<Effect>,
}

fn invalid_transition(state: &TicketState, command: &str) -> Error {
    Error::with_detail(
        ErrorCode::ERR_INVALID_TICKET_TRANSITION,
        format!("cannot {command} a {} ticket", state.status),
    )
}

fn owned_by_other(owner: UserId) -> Error {
    Error::with_detail(
        ErrorCode::ERR_TICKET_OWNED_BY_OTHER,
        format!("the ticket belongs to user {owner}"),
    )
}

fn non_empty(text: &str) -> Option<String> {
    (!text.trim().is_empty()).then(|| text.to_owned())
}

/// The status of a ticket that has an owner.
fn assigned_status(state: &TicketState) -> TicketStatus {
    if state.is_group {
        TicketStatus::Group
    } else {
        TicketStatus::Open
    }
}

/// Automatic messages (greeting, farewell, transfer notice) go to one-to-one tickets, and to
/// groups only when the connection treats groups as tickets.
fn automatic_messages_allowed(state: &TicketState, ctx: &Context<'_>) -> bool {
    !state.is_group || ctx.group_as_ticket
}

/// Applies `command` to `state` on behalf of `ctx.actor` (see the module documentation).
pub fn apply(state: &TicketState, command: &Command, ctx: &Context<'_>) -> Result<Transition> {
    let actor = ctx.actor;
    let me = actor.user_id;
    // Another company's ticket is refused before anything about it is revealed.
    authorize(
        actor,
        &Action::HandleTicket(TicketTarget {
            company: state.company_id,
            owner: None,
        }),
    )?;
    let handle = || {
        authorize(
            actor,
            &Action::HandleTicket(TicketTarget {
                company: state.company_id,
                owner: state.user_id,
            }),
        )
    };
    let log = |kind, user_id, queue_id| {
        Effect::Log(TicketLog {
            kind,
            user_id,
            queue_id,
        })
    };

    let mut next = state.clone();
    let mut effects = Vec::new();
    match command {
        Command::Accept => {
            match (state.status, state.user_id) {
                (TicketStatus::Pending, _) => {}
                (TicketStatus::Open | TicketStatus::Group, Some(owner)) if owner != me => {
                    return Err(owned_by_other(owner));
                }
                _ => return Err(invalid_transition(state, "accept")),
            }
            next.status = assigned_status(state);
            next.user_id = Some(me);
            effects.push(log(TicketLogType::Open, Some(me), state.queue_id));
            if state.queue_id.is_none() {
                effects.push(Effect::OpenQueueChooser);
            }
            if ctx.send_greeting_accepted
                && automatic_messages_allowed(state, ctx)
                && let Some(text) = non_empty(ctx.greeting_accepted_message)
            {
                effects.push(Effect::SendGreeting(text));
            }
        }
        Command::ReturnToQueue => {
            if !matches!(state.status, TicketStatus::Open | TicketStatus::Group) {
                return Err(invalid_transition(state, "return to the queue"));
            }
            handle()?;
            next.status = TicketStatus::Pending;
            next.user_id = None;
            effects.push(log(TicketLogType::Pending, Some(me), state.queue_id));
        }
        Command::Resolve { send_farewell } => {
            let was_pending = match state.status {
                TicketStatus::Open | TicketStatus::Group => {
                    handle()?;
                    false
                }
                TicketStatus::Pending => {
                    authorize(actor, &Action::CloseOrIgnorePendingTicket(state.company_id))?;
                    true
                }
                _ => return Err(invalid_transition(state, "resolve")),
            };
            if ctx.required_tag && ctx.contact_tag_count == 0 {
                return Err(Error::with_detail(
                    ErrorCode::ERR_TAG_REQUIRED,
                    "the contact needs at least one tag before the ticket closes",
                ));
            }
            next.status = TicketStatus::Closed;
            next.user_id = Some(me);
            effects.push(log(TicketLogType::Closed, Some(me), state.queue_id));
            if *send_farewell
                && (!was_pending || ctx.send_farewell_waiting_ticket)
                && automatic_messages_allowed(state, ctx)
                && let Some(text) = non_empty(ctx.farewell_message)
            {
                effects.push(Effect::SendFarewell(text));
            }
        }
        Command::Ignore => {
            if !matches!(state.status, TicketStatus::Pending | TicketStatus::Lgpd) {
                return Err(invalid_transition(state, "ignore"));
            }
            authorize(actor, &Action::CloseOrIgnorePendingTicket(state.company_id))?;
            next.status = TicketStatus::Closed;
            next.amount_used_bot_queues = 0;
            effects.push(Effect::ResetBotCounter);
            effects.push(log(TicketLogType::Closed, Some(me), state.queue_id));
        }
        Command::Reopen => {
            match (state.status, state.user_id) {
                (TicketStatus::Closed, _) => {}
                (TicketStatus::Open | TicketStatus::Group, Some(owner)) if owner != me => {
                    return Err(owned_by_other(owner));
                }
                _ => return Err(invalid_transition(state, "reopen")),
            }
            next.status = assigned_status(state);
            next.user_id = Some(me);
            effects.push(log(TicketLogType::Reopen, Some(me), state.queue_id));
            if state.queue_id.is_none() {
                effects.push(Effect::OpenQueueChooser);
            }
        }
        Command::Transfer {
            to_user,
            to_queue,
            message,
        } => {
            if !matches!(
                state.status,
                TicketStatus::Pending | TicketStatus::Open | TicketStatus::Group
            ) {
                return Err(invalid_transition(state, "transfer"));
            }
            handle()?;
            let Some(queue) = *to_queue else {
                return Err(Error::with_detail(
                    ErrorCode::ERR_QUEUE_REQUIRED,
                    "a transfer needs a queue",
                ));
            };
            match to_user {
                Some(user) => {
                    next.status = assigned_status(state);
                    next.user_id = Some(*user);
                }
                None => {
                    next.status = TicketStatus::Pending;
                    next.user_id = None;
                }
            }
            next.queue_id = Some(queue);
            next.is_transferred = true;
            effects.push(log(TicketLogType::Transfered, Some(me), Some(queue)));
            if let Some(user) = to_user {
                effects.push(log(
                    TicketLogType::ReceivedTransfer,
                    Some(*user),
                    Some(queue),
                ));
            }
            let written = message.as_deref().and_then(non_empty);
            let automatic = (ctx.send_msg_transf_ticket
                && state.queue_id != Some(queue)
                && automatic_messages_allowed(state, ctx))
            .then(|| non_empty(ctx.transfer_message))
            .flatten();
            if let Some(text) = written.or(automatic) {
                effects.push(Effect::SendTransferMessage(text));
            }
        }
        Command::Close => {
            if state.status == TicketStatus::Closed {
                return Err(invalid_transition(state, "close"));
            }
            authorize(actor, &Action::CloseAllTickets(state.company_id))?;
            next.status = TicketStatus::Closed;
            effects.push(log(TicketLogType::Closed, Some(me), state.queue_id));
        }
    }
    debug_assert!(
        is_valid(&next),
        "transition produced an invalid ticket: {next:?}"
    );
    Ok(Transition {
        state: next,
        effects,
    })
}

/// Whether close-all with `status` and `selected_queues` closes `ticket`.
///
/// The ticket must have the chosen status (which cannot be `closed`). An empty queue selection
/// means every queue, tickets without a queue included; otherwise the ticket's queue must be one
/// of the selected. The company is the caller's tenant scope.
pub fn close_all_selects(
    ticket: &TicketState,
    status: TicketStatus,
    selected_queues: &[QueueId],
) -> bool {
    status != TicketStatus::Closed
        && ticket.status == status
        && (selected_queues.is_empty()
            || ticket
                .queue_id
                .is_some_and(|queue| selected_queues.contains(&queue)))
}

/// How long after sending a message its sender may still edit it, in milliseconds (15 minutes).
pub const MESSAGE_EDIT_WINDOW_MS: i64 = 15 * 60 * 1000;

/// True when a message may be edited: it is the actor's own and at most 15 minutes old at `now`.
pub fn can_edit_message(is_own: bool, created_at: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    is_own && now.signed_duration_since(created_at).num_milliseconds() <= MESSAGE_EDIT_WINDOW_MS
}

#[cfg(test)]
mod tests {
    use chrono::TimeDelta;

    use super::*;
    use crate::identity::{Profile, Toggle, UserFlags};

    const HOME: CompanyId = CompanyId(2);
    const SALES: QueueId = QueueId(5);
    const SUPPORT: QueueId = QueueId(6);

    fn actor(id: i64, profile: Profile) -> Actor {
        Actor {
            user_id: UserId(id),
            company_id: HOME,
            profile,
            is_super: false,
            flags: UserFlags::default(),
            queue_ids: Vec::new(),
        }
    }

    fn ana() -> Actor {
        actor(10, Profile::User)
    }

    fn boss() -> Actor {
        actor(1, Profile::Admin)
    }

    fn pending() -> TicketState {
        TicketState::pending(HOME, Some(SALES), false)
    }

    fn open_by(user: i64) -> TicketState {
        TicketState {
            status: TicketStatus::Open,
            user_id: Some(UserId(user)),
            ..pending()
        }
    }

    fn code(result: Result<Transition>) -> ErrorCode {
        result.expect_err("the command is refused").code
    }

    fn logs(effects: &[Effect]) -> Vec<TicketLogType> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Log(log) => Some(log.kind),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn wire_names() {
        let statuses: Vec<String> = TicketStatus::ALL
            .iter()
            .map(|s| serde_json::to_string(s).expect("serialises"))
            .collect();
        assert_eq!(
            statuses,
            [
                "\"pending\"",
                "\"open\"",
                "\"closed\"",
                "\"group\"",
                "\"lgpd\"",
                "\"nps\""
            ]
        );
        for status in TicketStatus::ALL {
            assert_eq!(
                serde_json::to_string(&status).expect("serialises"),
                format!("\"{status}\"")
            );
        }
        let kinds: Vec<String> = TicketLogType::ALL
            .iter()
            .map(|k| serde_json::to_string(k).expect("serialises"))
            .collect();
        assert_eq!(
            kinds,
            [
                "\"create\"",
                "\"chatBot\"",
                "\"queue\"",
                "\"open\"",
                "\"access\"",
                "\"transfered\"",
                "\"receivedTransfer\"",
                "\"pending\"",
                "\"closed\"",
                "\"reopen\"",
                "\"redirect\""
            ]
        );
        for kind in TicketLogType::ALL {
            assert_eq!(
                serde_json::to_string(&kind).expect("serialises"),
                format!("\"{kind}\"")
            );
        }
        let state = serde_json::to_value(open_by(3)).expect("serialises");
        assert_eq!(state["isTransfered"], false);
        assert_eq!(state["status"], "open");
        assert_eq!(state["userId"], 3);
    }

    #[test]
    fn accept_takes_a_pending_ticket() {
        let me = ana();
        let t = apply(&pending(), &Command::Accept, &Context::new(&me)).expect("accepted");
        assert_eq!(t.state.status, TicketStatus::Open);
        assert_eq!(t.state.user_id, Some(me.user_id));
        assert_eq!(
            t.effects,
            [Effect::Log(TicketLog {
                kind: TicketLogType::Open,
                user_id: Some(me.user_id),
                queue_id: Some(SALES)
            })]
        );
        let group = TicketState {
            is_group: true,
            ..pending()
        };
        let t = apply(&group, &Command::Accept, &Context::new(&me)).expect("accepted");
        assert_eq!(t.state.status, TicketStatus::Group);
    }

    #[test]
    fn accept_greets_when_enabled_and_not_a_plain_group() {
        let me = ana();
        let ctx = Context {
            send_greeting_accepted: true,
            greeting_accepted_message: "Olá, sou {{user}}!",
            ..Context::new(&me)
        };
        let t = apply(&pending(), &Command::Accept, &ctx).expect("accepted");
        assert!(
            t.effects
                .contains(&Effect::SendGreeting("Olá, sou {{user}}!".to_owned()))
        );

        let group = TicketState {
            is_group: true,
            ..pending()
        };
        let t = apply(&group, &Command::Accept, &ctx).expect("accepted");
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendGreeting(_)))
        );
        let as_ticket = Context {
            group_as_ticket: true,
            ..ctx
        };
        let t = apply(&group, &Command::Accept, &as_ticket).expect("accepted");
        assert!(
            t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendGreeting(_)))
        );

        let off = Context {
            send_greeting_accepted: false,
            ..ctx
        };
        let t = apply(&pending(), &Command::Accept, &off).expect("accepted");
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendGreeting(_)))
        );
        let blank = Context {
            greeting_accepted_message: "  ",
            ..ctx
        };
        let t = apply(&pending(), &Command::Accept, &blank).expect("accepted");
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendGreeting(_)))
        );
    }

    #[test]
    fn accept_without_a_queue_opens_the_chooser() {
        let me = ana();
        let no_queue = TicketState::pending(HOME, None, false);
        let t = apply(&no_queue, &Command::Accept, &Context::new(&me)).expect("accepted");
        assert!(t.effects.contains(&Effect::OpenQueueChooser));
    }

    #[test]
    fn accepting_someone_elses_ticket_is_refused() {
        let me = ana();
        assert_eq!(
            code(apply(&open_by(77), &Command::Accept, &Context::new(&me))),
            ErrorCode::ERR_TICKET_OWNED_BY_OTHER
        );
        assert_eq!(
            code(apply(&open_by(10), &Command::Accept, &Context::new(&me))),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
        let closed = TicketState {
            status: TicketStatus::Closed,
            ..pending()
        };
        assert_eq!(
            code(apply(&closed, &Command::Accept, &Context::new(&me))),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
    }

    #[test]
    fn another_companys_ticket_is_refused_first() {
        let me = boss();
        let foreign = TicketState {
            company_id: CompanyId(9),
            ..open_by(77)
        };
        for command in [
            Command::Accept,
            Command::Reopen,
            Command::Close,
            Command::ReturnToQueue,
        ] {
            assert_eq!(
                code(apply(&foreign, &command, &Context::new(&me))),
                ErrorCode::ERR_NO_PERMISSION,
                "{command:?}"
            );
        }
    }

    #[test]
    fn return_to_queue_clears_the_owner() {
        let me = ana();
        let t = apply(&open_by(10), &Command::ReturnToQueue, &Context::new(&me)).expect("returned");
        assert_eq!(t.state.status, TicketStatus::Pending);
        assert_eq!(t.state.user_id, None);
        assert_eq!(logs(&t.effects), [TicketLogType::Pending]);
        assert_eq!(
            code(apply(
                &open_by(77),
                &Command::ReturnToQueue,
                &Context::new(&me)
            )),
            ErrorCode::ERR_NO_PERMISSION
        );
        assert!(
            apply(
                &open_by(77),
                &Command::ReturnToQueue,
                &Context::new(&boss())
            )
            .is_ok()
        );
        assert_eq!(
            code(apply(
                &pending(),
                &Command::ReturnToQueue,
                &Context::new(&me)
            )),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
    }

    #[test]
    fn resolve_with_and_without_farewell() {
        let me = ana();
        let ctx = Context {
            farewell_message: "Tchau!",
            ..Context::new(&me)
        };
        let t = apply(
            &open_by(10),
            &Command::Resolve {
                send_farewell: true,
            },
            &ctx,
        )
        .expect("resolved");
        assert_eq!(t.state.status, TicketStatus::Closed);
        assert_eq!(t.state.user_id, Some(me.user_id));
        assert_eq!(logs(&t.effects), [TicketLogType::Closed]);
        assert!(
            t.effects
                .contains(&Effect::SendFarewell("Tchau!".to_owned()))
        );
        let t = apply(
            &open_by(10),
            &Command::Resolve {
                send_farewell: false,
            },
            &ctx,
        )
        .expect("resolved");
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendFarewell(_)))
        );
        let group = TicketState {
            status: TicketStatus::Group,
            is_group: true,
            ..open_by(10)
        };
        let t = apply(
            &group,
            &Command::Resolve {
                send_farewell: true,
            },
            &ctx,
        )
        .expect("resolved");
        assert_eq!(t.state.status, TicketStatus::Closed);
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendFarewell(_)))
        );
    }

    #[test]
    fn required_tag_blocks_closing() {
        let me = ana();
        let ctx = Context {
            required_tag: true,
            contact_tag_count: 0,
            ..Context::new(&me)
        };
        assert_eq!(
            code(apply(
                &open_by(10),
                &Command::Resolve {
                    send_farewell: false
                },
                &ctx
            )),
            ErrorCode::ERR_TAG_REQUIRED
        );
        let tagged = Context {
            contact_tag_count: 1,
            ..ctx
        };
        assert!(
            apply(
                &open_by(10),
                &Command::Resolve {
                    send_farewell: false
                },
                &tagged
            )
            .is_ok()
        );
    }

    #[test]
    fn closing_a_pending_ticket_needs_permission() {
        let me = ana();
        for command in [
            Command::Resolve {
                send_farewell: false,
            },
            Command::Ignore,
        ] {
            assert_eq!(
                code(apply(&pending(), &command, &Context::new(&me))),
                ErrorCode::ERR_NO_PERMISSION,
                "{command:?}"
            );
            let mut allowed = ana();
            allowed.flags.user_close_pending_ticket = Toggle::Enabled;
            let t = apply(&pending(), &command, &Context::new(&allowed)).expect("allowed");
            assert_eq!(t.state.status, TicketStatus::Closed);
            assert!(apply(&pending(), &command, &Context::new(&boss())).is_ok());
        }
    }

    #[test]
    fn farewell_on_a_waiting_ticket_follows_its_setting() {
        let me = boss();
        let ctx = Context {
            farewell_message: "Tchau!",
            ..Context::new(&me)
        };
        let resolve = Command::Resolve {
            send_farewell: true,
        };
        let t = apply(&pending(), &resolve, &ctx).expect("resolved");
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendFarewell(_)))
        );
        let waiting = Context {
            send_farewell_waiting_ticket: true,
            ..ctx
        };
        let t = apply(&pending(), &resolve, &waiting).expect("resolved");
        assert!(
            t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendFarewell(_)))
        );
    }

    #[test]
    fn ignore_resets_the_bot_counter_without_farewell() {
        let me = boss();
        let ctx = Context {
            farewell_message: "Tchau!",
            ..Context::new(&me)
        };
        let counted = TicketState {
            amount_used_bot_queues: 3,
            ..pending()
        };
        let t = apply(&counted, &Command::Ignore, &ctx).expect("ignored");
        assert_eq!(t.state.status, TicketStatus::Closed);
        assert_eq!(t.state.amount_used_bot_queues, 0);
        assert_eq!(t.state.user_id, None);
        assert!(t.effects.contains(&Effect::ResetBotCounter));
        assert!(
            !t.effects
                .iter()
                .any(|e| matches!(e, Effect::SendFarewell(_)))
        );
        let lgpd = TicketState {
            status: TicketStatus::Lgpd,
            ..pending()
        };
        assert!(apply(&lgpd, &Command::Ignore, &ctx).is_ok());
        assert_eq!(
            code(apply(&open_by(1), &Command::Ignore, &ctx)),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
    }

    #[test]
    fn reopen_gives_the_ticket_to_the_actor() {
        let me = ana();
        let closed = TicketState {
            status: TicketStatus::Closed,
            ..open_by(77)
        };
        let t = apply(&closed, &Command::Reopen, &Context::new(&me)).expect("reopened");
        assert_eq!(t.state.status, TicketStatus::Open);
        assert_eq!(t.state.user_id, Some(me.user_id));
        assert_eq!(logs(&t.effects), [TicketLogType::Reopen]);
        let closed_group = TicketState {
            is_group: true,
            ..closed.clone()
        };
        let t = apply(&closed_group, &Command::Reopen, &Context::new(&me)).expect("reopened");
        assert_eq!(t.state.status, TicketStatus::Group);
        let no_queue = TicketState {
            queue_id: None,
            ..closed
        };
        let t = apply(&no_queue, &Command::Reopen, &Context::new(&me)).expect("reopened");
        assert!(t.effects.contains(&Effect::OpenQueueChooser));
        assert_eq!(
            code(apply(&open_by(77), &Command::Reopen, &Context::new(&me))),
            ErrorCode::ERR_TICKET_OWNED_BY_OTHER
        );
        assert_eq!(
            code(apply(&pending(), &Command::Reopen, &Context::new(&me))),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
    }

    #[test]
    fn transfer_to_a_user_or_to_the_queue() {
        let me = ana();
        let ctx = Context::new(&me);
        let to_user = Command::Transfer {
            to_user: Some(UserId(20)),
            to_queue: Some(SUPPORT),
            message: None,
        };
        let t = apply(&open_by(10), &to_user, &ctx).expect("transferred");
        assert_eq!(t.state.status, TicketStatus::Open);
        assert_eq!(t.state.user_id, Some(UserId(20)));
        assert_eq!(t.state.queue_id, Some(SUPPORT));
        assert!(t.state.is_transferred);
        assert_eq!(
            logs(&t.effects),
            [TicketLogType::Transfered, TicketLogType::ReceivedTransfer]
        );

        let to_queue = Command::Transfer {
            to_user: None,
            to_queue: Some(SUPPORT),
            message: None,
        };
        let t = apply(&open_by(10), &to_queue, &ctx).expect("transferred");
        assert_eq!(t.state.status, TicketStatus::Pending);
        assert_eq!(t.state.user_id, None);
        assert_eq!(logs(&t.effects), [TicketLogType::Transfered]);

        let group = TicketState {
            status: TicketStatus::Group,
            is_group: true,
            ..open_by(10)
        };
        let t = apply(&group, &to_user, &ctx).expect("transferred");
        assert_eq!(t.state.status, TicketStatus::Group);

        let no_queue = Command::Transfer {
            to_user: Some(UserId(20)),
            to_queue: None,
            message: None,
        };
        assert_eq!(
            code(apply(&open_by(10), &no_queue, &ctx)),
            ErrorCode::ERR_QUEUE_REQUIRED
        );
        let closed = TicketState {
            status: TicketStatus::Closed,
            ..open_by(10)
        };
        assert_eq!(
            code(apply(&closed, &to_user, &ctx)),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
        assert_eq!(
            code(apply(&open_by(77), &to_user, &ctx)),
            ErrorCode::ERR_NO_PERMISSION
        );
    }

    #[test]
    fn transfer_messages() {
        let me = ana();
        let ctx = Context {
            send_msg_transf_ticket: true,
            transfer_message: "Você foi transferido para {{queue}}.",
            ..Context::new(&me)
        };
        let to = |queue, message: Option<&str>| Command::Transfer {
            to_user: None,
            to_queue: Some(queue),
            message: message.map(str::to_owned),
        };
        let sent = |t: &Transition| {
            t.effects
                .iter()
                .filter_map(|e| match e {
                    Effect::SendTransferMessage(text) => Some(text.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let t = apply(&open_by(10), &to(SUPPORT, None), &ctx).expect("transferred");
        assert_eq!(sent(&t), ["Você foi transferido para {{queue}}."]);
        let t = apply(&open_by(10), &to(SALES, None), &ctx).expect("same queue");
        assert!(
            sent(&t).is_empty(),
            "no notice when the queue does not change"
        );
        let t = apply(&open_by(10), &to(SUPPORT, Some("Já te chamo!")), &ctx).expect("transferred");
        assert_eq!(
            sent(&t),
            ["Já te chamo!"],
            "the attendant's message replaces the notice"
        );
        let off = Context {
            send_msg_transf_ticket: false,
            ..ctx
        };
        let t = apply(&open_by(10), &to(SUPPORT, None), &off).expect("transferred");
        assert!(sent(&t).is_empty());
        let t = apply(&open_by(10), &to(SALES, Some("Oi")), &off).expect("transferred");
        assert_eq!(sent(&t), ["Oi"]);
    }

    #[test]
    fn close_all_needs_its_permission_and_closes_any_open_status() {
        let admin = boss();
        for status in [TicketStatus::Pending, TicketStatus::Lgpd, TicketStatus::Nps] {
            let t = TicketState {
                status,
                ..pending()
            };
            let out = apply(&t, &Command::Close, &Context::new(&admin)).expect("closed");
            assert_eq!(out.state.status, TicketStatus::Closed);
        }
        let out = apply(&open_by(10), &Command::Close, &Context::new(&admin)).expect("closed");
        assert_eq!(
            out.state.user_id,
            Some(UserId(10)),
            "close-all keeps the owner"
        );
        assert_eq!(
            code(apply(&open_by(10), &Command::Close, &Context::new(&ana()))),
            ErrorCode::ERR_NO_PERMISSION
        );
        let closed = TicketState {
            status: TicketStatus::Closed,
            ..pending()
        };
        assert_eq!(
            code(apply(&closed, &Command::Close, &Context::new(&admin))),
            ErrorCode::ERR_INVALID_TICKET_TRANSITION
        );
    }

    #[test]
    fn close_all_selection() {
        let no_queue = TicketState::pending(HOME, None, false);
        assert!(close_all_selects(&pending(), TicketStatus::Pending, &[]));
        assert!(close_all_selects(&no_queue, TicketStatus::Pending, &[]));
        assert!(close_all_selects(
            &pending(),
            TicketStatus::Pending,
            &[SALES, SUPPORT]
        ));
        assert!(!close_all_selects(
            &pending(),
            TicketStatus::Pending,
            &[SUPPORT]
        ));
        assert!(!close_all_selects(
            &no_queue,
            TicketStatus::Pending,
            &[SUPPORT]
        ));
        assert!(!close_all_selects(&pending(), TicketStatus::Open, &[]));
        let closed = TicketState {
            status: TicketStatus::Closed,
            ..pending()
        };
        assert!(!close_all_selects(&closed, TicketStatus::Closed, &[]));
    }

    #[test]
    fn message_edit_window() {
        let sent = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).expect("valid instant");
        assert!(can_edit_message(true, sent, sent));
        assert!(can_edit_message(true, sent, sent + TimeDelta::minutes(15)));
        assert!(!can_edit_message(
            true,
            sent,
            sent + TimeDelta::minutes(15) + TimeDelta::milliseconds(1)
        ));
        assert!(!can_edit_message(false, sent, sent));
    }

    #[test]
    fn context_reads_settings() {
        let me = ana();
        let stored: crate::settings::SettingsMap = [
            ("sendGreetingAccepted", "enabled"),
            ("greetingAcceptedMessage", "Oi"),
            ("requiredTag", "enabled"),
            ("sendMsgTransfTicket", "enabled"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
        let view = SettingsView::new(&stored);
        let ctx = Context::new(&me).with_settings(&view);
        assert!(ctx.send_greeting_accepted);
        assert_eq!(ctx.greeting_accepted_message, "Oi");
        assert!(ctx.required_tag);
        assert!(ctx.send_msg_transf_ticket);
        assert!(
            ctx.transfer_message.contains("{{queue}}"),
            "default transfer message"
        );
        assert!(!ctx.send_farewell_waiting_ticket);
    }

    #[test]
    fn validity() {
        assert!(is_valid(&pending()));
        assert!(is_valid(&open_by(1)));
        assert!(!is_valid(&TicketState {
            user_id: None,
            ..open_by(1)
        }));
        assert!(!is_valid(&TicketState {
            is_group: true,
            ..open_by(1)
        }));
        assert!(!is_valid(&TicketState {
            status: TicketStatus::Group,
            ..open_by(1)
        }));
        assert!(!is_valid(&TicketState {
            user_id: Some(UserId(1)),
            ..pending()
        }));
        assert!(!is_valid(&TicketState {
            is_transferred: true,
            queue_id: None,
            ..pending()
        }));
        assert!(is_valid(&TicketState {
            status: TicketStatus::Closed,
            user_id: None,
            ..pending()
        }));
    }
}
