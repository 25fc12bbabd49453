//! The routing decision for an inbound message on a ticket that no attendant holds yet, and for
//! the routing timers when they fire.
//!
//! [`decide`] reads a [`RoutingInput`] (what the host loaded: the ticket and its bot state, the
//! contact, the connection, the queues, the company's settings and hours, the message, `now`, and
//! who is online in each queue) and returns a [`RoutingDecision`]: a list of [`RoutingEffect`]s
//! the host carries out in order. [`on_timer`] does the same for a [`TimerKind`] scheduled by an
//! earlier decision. Neither reads a clock or draws a random number. The rules, in the order they
//! apply, are in `docs/routing.md`.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::ids::{QueueId, UserId};
use crate::inbox::model::Connection;
use crate::queue::{ChatbotOption, ChatbotOptionType, Queue, ScheduleRow};
use crate::routing::hours::{applicable_schedule, in_vacation, is_open, next_opening};
use crate::routing::menu::{
    BotStage, BotState, MenuChoice, MenuLabels, Navigation, match_reply, menu_queues,
    option_navigation, options_at, render_option_menu, render_queue_menu,
};
use crate::routing::rotation::{Candidate, RotationStrategy, pick_attendant};
use crate::settings::{ScheduleType, SettingsView};
use crate::ticket::{TicketLog, TicketLogType, TicketStatus};

/// Minutes between two rotation attempts when nobody could take the ticket (everyone offline or
/// at the cap) and the queue waits no time of its own (`tempoRoteador` 0).
pub const ROTATION_RETRY_MINUTES: i64 = 5;

/// The placeholder of `sendQueuePositionMessage` replaced with the contact's position.
pub const POSITION_PLACEHOLDER: &str = "{{position}}";
/// The placeholder of `sendQueuePositionMessage` replaced with the queue's name.
pub const QUEUE_PLACEHOLDER: &str = "{{queue}}";

/// The ticket as routing sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingTicket {
    pub status: TicketStatus,
    pub queue_id: Option<QueueId>,
    pub user_id: Option<UserId>,
    pub is_group: bool,
    /// `amountUsedBotQueues`: menus sent since the contact last chose something.
    pub amount_used_bot_queues: u32,
    /// The bot's memory on this ticket.
    pub bot: BotState,
    /// The ticket was created by this message (its bot state is then ignored).
    pub is_new: bool,
    /// When the bot last sent a menu on this ticket.
    pub last_bot_message_at: Option<DateTime<Utc>>,
    /// `useIntegration`: an integration or a flow holds the conversation.
    pub using_integration: bool,
}

/// The contact's wallet owner (a user responsible for the contact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WalletOwner {
    pub user_id: UserId,
    /// The queue to file the ticket under (the host's choice, e.g. the owner's first queue on
    /// this connection); `None` leaves the ticket's queue as it is.
    pub queue_id: Option<QueueId>,
}

/// The contact as routing sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingContact {
    /// `disableBot`: the bot never answers this contact.
    pub disable_bot: bool,
    pub wallet_owner: Option<WalletOwner>,
}

/// The connection's routing fields.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RoutingConnection {
    /// Heads the queue menu.
    pub greeting_message: String,
    /// Sent outside hours when `scheduleType` is `company` or `connection`.
    pub out_of_hours_message: String,
    /// The queues offered in the menu.
    pub queue_ids: Vec<QueueId>,
    /// Menus sent without an answer before the bot gives up (0: no limit).
    pub max_use_bot_queues: i64,
    /// Minutes after the bot's last menu when its counter starts again (0: never).
    pub time_use_bot_queues: i64,
    /// Minutes a ticket may stay without a queue before it moves to `send_id_queue` (0: never).
    pub time_send_queue: i64,
    pub send_id_queue: Option<QueueId>,
    pub group_as_ticket: bool,
    /// `collectiveVacationStart`.
    pub vacation_start: Option<NaiveDate>,
    /// `collectiveVacationEnd`.
    pub vacation_end: Option<NaiveDate>,
    /// `collectiveVacationMessage`.
    pub vacation_message: String,
    /// The connection's hours (`scheduleType` `connection`).
    pub schedules: Vec<ScheduleRow>,
}

impl RoutingConnection {
    /// The routing fields of `connection`, its collective vacation and working hours included.
    pub fn from_connection(connection: &Connection) -> Self {
        Self {
            greeting_message: connection.greeting_message.clone(),
            out_of_hours_message: connection.out_of_hours_message.clone(),
            queue_ids: connection.queue_ids.clone(),
            max_use_bot_queues: connection.max_use_bot_queues,
            time_use_bot_queues: connection.time_use_bot_queues,
            time_send_queue: connection.time_send_queue,
            send_id_queue: connection.send_id_queue,
            group_as_ticket: connection.group_as_ticket,
            vacation_start: connection.collective_vacation_start,
            vacation_end: connection.collective_vacation_end,
            vacation_message: connection.collective_vacation_message.clone(),
            schedules: connection.schedules.clone(),
        }
    }
}

/// The company settings routing reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RoutingSettings {
    pub schedule_type: ScheduleType,
    /// `sendGreetingMessageOneQueues`.
    pub send_greeting_message_one_queues: bool,
    /// `DirectTicketsToWallets`.
    pub direct_tickets_to_wallets: bool,
    /// `sendQueuePosition`.
    pub send_queue_position: bool,
    /// `sendQueuePositionMessage`, with [`POSITION_PLACEHOLDER`] and [`QUEUE_PLACEHOLDER`].
    pub queue_position_message: String,
    /// `userRandom`: hand a ticket to an attendant as soon as it reaches a queue (with the fair
    /// pick below, never at random).
    pub user_random: bool,
    /// How rotation picks (no setting yet; least-loaded by default).
    pub rotation: RotationStrategy,
    /// The most open tickets an attendant may hold to receive one by rotation (no setting yet).
    pub attendant_cap: Option<u32>,
}

impl Default for RoutingSettings {
    fn default() -> Self {
        Self {
            schedule_type: ScheduleType::Disabled,
            send_greeting_message_one_queues: true,
            direct_tickets_to_wallets: false,
            send_queue_position: false,
            queue_position_message: String::new(),
            user_random: false,
            rotation: RotationStrategy::default(),
            attendant_cap: None,
        }
    }
}

impl RoutingSettings {
    /// Reads the settings from a company's [`SettingsView`] (defaults for rotation and cap).
    pub fn from_view(view: &SettingsView<'_>) -> Self {
        Self {
            schedule_type: view.schedule_type(),
            send_greeting_message_one_queues: view.is_enabled("sendGreetingMessageOneQueues"),
            direct_tickets_to_wallets: view.is_enabled("DirectTicketsToWallets"),
            send_queue_position: view.is_enabled("sendQueuePosition"),
            queue_position_message: view.get("sendQueuePositionMessage").to_owned(),
            user_random: view.is_enabled("userRandom"),
            rotation: RotationStrategy::default(),
            attendant_cap: None,
        }
    }
}

/// What the host knows about one queue right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueSnapshot {
    pub queue_id: QueueId,
    /// Pending tickets of the queue waiting longer than this one (the position is this plus 1).
    #[serde(default)]
    pub waiting: u32,
    /// The queue's attendants with their presence and open tickets.
    #[serde(default)]
    pub attendants: Vec<Candidate>,
    /// The attendant the queue's rotation handed its previous ticket to.
    #[serde(default)]
    pub last_assigned: Option<UserId>,
}

impl QueueSnapshot {
    /// A queue with nobody waiting and no attendants.
    pub fn new(queue_id: QueueId) -> Self {
        Self {
            queue_id,
            waiting: 0,
            attendants: Vec::new(),
            last_assigned: None,
        }
    }
}

/// Everything [`decide`] and [`on_timer`] read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutingInput {
    pub ticket: RoutingTicket,
    pub contact: RoutingContact,
    pub connection: RoutingConnection,
    /// The connection's queues and any other queue the rules may name (options' target queues,
    /// the ticket's queue, `sendIdQueue`).
    pub queues: Vec<Queue>,
    pub settings: RoutingSettings,
    /// The company's hours (`scheduleType` `company`).
    pub company_schedules: Vec<ScheduleRow>,
    /// The company's time zone (the setting `timezone`, [`crate::settings::SettingsView::time_zone`]).
    pub time_zone: Tz,
    /// The message's text (its caption for media).
    pub message: String,
    /// The message was sent from the connected phone, not by the contact.
    pub from_me: bool,
    pub now: DateTime<Utc>,
    /// Per queue: waiting tickets and attendants (queues missing here have none).
    pub snapshots: Vec<QueueSnapshot>,
    /// The navigation words of menus.
    pub labels: MenuLabels,
}

impl RoutingInput {
    /// The queue `id`, if the host loaded it.
    pub fn queue(&self, id: QueueId) -> Option<&Queue> {
        self.queues.iter().find(|q| q.id == id)
    }

    /// The snapshot of queue `id`, if the host loaded one.
    pub fn snapshot(&self, id: QueueId) -> Option<&QueueSnapshot> {
        self.snapshots.iter().find(|s| s.queue_id == id)
    }
}

/// A timer a decision asks for; the host stores it as a durable job and calls [`on_timer`] when
/// it falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum TimerKind {
    /// `timeSendQueue` ran out: a ticket still without a queue moves to `sendIdQueue`.
    SendQueue,
    /// Rotation: hand the ticket, still waiting in `queue_id`, to one of its attendants.
    #[serde(rename_all = "camelCase")]
    Rotation { queue_id: QueueId },
}

/// One thing the host does, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "effect", rename_all = "camelCase")]
pub enum RoutingEffect {
    /// Send a text to the contact (contact placeholders such as `{{name}}` are left for the
    /// sender to render).
    SendText { body: String },
    /// Send the files of a file list.
    #[serde(rename_all = "camelCase")]
    SendFileList { file_list_id: i64 },
    /// Put the ticket in a queue.
    #[serde(rename_all = "camelCase")]
    SetQueue { queue_id: QueueId },
    /// Give the ticket to an attendant: it becomes `open` (`group` for a group ticket).
    #[serde(rename_all = "camelCase")]
    AssignUser { user_id: UserId },
    /// Close the ticket (after the texts before it were sent).
    CloseTicket,
    /// Hand the conversation to a queue integration (the ticket's `useIntegration`).
    #[serde(rename_all = "camelCase")]
    StartIntegration { integration_id: i64 },
    /// Store the bot's new memory on the ticket.
    SetBotState { state: BotState },
    /// Add 1 to `amountUsedBotQueues` (and note the bot's last message time).
    IncrementBotCounter,
    /// Set `amountUsedBotQueues` to 0.
    ResetBotCounter,
    /// Store a durable timer for the ticket.
    ScheduleTimer { at: DateTime<Utc>, kind: TimerKind },
    /// Write a ticket log entry (the other effects write none of their own).
    Log { log: TicketLog },
    /// Nothing to do (the only effect when there is nothing else).
    Nothing,
}

/// The effects of one decision, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingDecision {
    pub effects: Vec<RoutingEffect>,
}

impl RoutingDecision {
    /// A decision to do nothing.
    pub fn nothing() -> Self {
        Self {
            effects: vec![RoutingEffect::Nothing],
        }
    }

    /// Whether the decision does nothing.
    pub fn is_nothing(&self) -> bool {
        self.effects.iter().all(|e| *e == RoutingEffect::Nothing)
    }
}

/// `now + minutes`, or `None` when that does not fit.
fn after_minutes(now: DateTime<Utc>, minutes: i64) -> Option<DateTime<Utc>> {
    now.checked_add_signed(TimeDelta::try_minutes(minutes)?)
}

/// The decision being built.
struct Plan<'a> {
    input: &'a RoutingInput,
    effects: Vec<RoutingEffect>,
    bot: BotState,
    counter: u32,
    /// The stage the ticket was in when the message arrived.
    initial_stage: BotStage,
}

impl<'a> Plan<'a> {
    fn new(input: &'a RoutingInput) -> Self {
        let bot = if input.ticket.is_new {
            BotState::default()
        } else {
            input.ticket.bot.clone()
        };
        Self {
            input,
            effects: Vec::new(),
            initial_stage: bot.stage,
            bot,
            counter: input.ticket.amount_used_bot_queues,
        }
    }

    fn push(&mut self, effect: RoutingEffect) {
        self.effects.push(effect);
    }

    fn send(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.push(RoutingEffect::SendText {
                body: text.trim().to_owned(),
            });
        }
    }

    fn log(&mut self, kind: TicketLogType, user_id: Option<UserId>, queue_id: Option<QueueId>) {
        self.push(RoutingEffect::Log {
            log: TicketLog {
                kind,
                user_id,
                queue_id,
            },
        });
    }

    fn schedule(&mut self, minutes: i64, kind: TimerKind) {
        if let Some(at) = after_minutes(self.input.now, minutes) {
            self.push(RoutingEffect::ScheduleTimer { at, kind });
        }
    }

    fn reset_counter(&mut self) {
        if self.counter > 0 {
            self.push(RoutingEffect::ResetBotCounter);
            self.counter = 0;
        }
    }

    /// Sends a menu and counts it.
    fn send_menu(&mut self, text: &str) {
        self.send(text);
        self.push(RoutingEffect::IncrementBotCounter);
        self.counter = self.counter.saturating_add(1);
    }

    /// Whether the bot has sent its `maxUseBotQueues` menus.
    fn menus_exhausted(&self) -> bool {
        let max = self.input.connection.max_use_bot_queues;
        max > 0 && i64::from(self.counter) >= max
    }

    fn set_queue(&mut self, queue_id: QueueId, kind: TicketLogType) {
        self.push(RoutingEffect::SetQueue { queue_id });
        self.log(kind, None, Some(queue_id));
    }

    fn assign(&mut self, user_id: UserId, queue_id: Option<QueueId>) {
        self.push(RoutingEffect::AssignUser { user_id });
        self.log(TicketLogType::Open, Some(user_id), queue_id);
        self.bot.stage = BotStage::Done;
    }

    fn close(&mut self, queue_id: Option<QueueId>) {
        self.push(RoutingEffect::CloseTicket);
        self.log(TicketLogType::Closed, None, queue_id);
        self.bot.stage = BotStage::Done;
    }

    /// Sends `message` unless it was already sent since `rows` last opened.
    fn out_of_hours(&mut self, rows: &[ScheduleRow], message: &str) {
        let input = self.input;
        let notified = self.bot.out_of_hours_sent_at.is_some_and(|sent| {
            sent <= input.now
                && next_opening(rows, input.time_zone, sent).is_none_or(|open| open > input.now)
        });
        if !notified && !message.trim().is_empty() {
            self.send(message);
            self.bot.out_of_hours_sent_at = Some(input.now);
        }
    }

    fn finish(mut self) -> RoutingDecision {
        let original = if self.input.ticket.is_new {
            BotState::default()
        } else {
            self.input.ticket.bot.clone()
        };
        if self.initial_stage != BotStage::QueueMenu
            && self.initial_stage != BotStage::OptionMenu
            && self.bot.awaits_reply()
        {
            self.log(TicketLogType::ChatBot, None, self.bot.menu_queue_id);
        }
        if self.bot != original || (self.input.ticket.is_new && self.input.ticket.bot != original) {
            let state = self.bot.clone();
            self.push(RoutingEffect::SetBotState { state });
        }
        if self.effects.is_empty() {
            RoutingDecision::nothing()
        } else {
            RoutingDecision {
                effects: self.effects,
            }
        }
    }

    /// The bot's part is over and the ticket waits in `queue_id`: rotation hands it to an
    /// attendant (now or by timer), else the contact hears their position.
    fn hand_over(&mut self, queue_id: QueueId) {
        let input = self.input;
        self.bot.stage = BotStage::Done;
        self.bot.path.clear();
        let queue = input.queue(queue_id);
        let rotation_on = queue.is_some_and(|q| q.ativar_roteador);
        if rotation_on || input.settings.user_random {
            let wait = queue
                .filter(|q| q.ativar_roteador)
                .map_or(0, |q| q.tempo_roteador.max(0));
            if wait == 0 {
                if let Some(user_id) = pick_for(input, queue_id) {
                    self.assign(user_id, Some(queue_id));
                    return;
                }
                self.schedule(ROTATION_RETRY_MINUTES, TimerKind::Rotation { queue_id });
            } else {
                self.schedule(wait, TimerKind::Rotation { queue_id });
            }
        }
        self.queue_position(queue_id);
    }

    fn queue_position(&mut self, queue_id: QueueId) {
        let settings = &self.input.settings;
        if !settings.send_queue_position || settings.queue_position_message.trim().is_empty() {
            return;
        }
        let waiting = self.input.snapshot(queue_id).map_or(0, |s| s.waiting);
        let name = self.input.queue(queue_id).map_or("", |q| q.name.as_str());
        let text = render_position(
            &settings.queue_position_message,
            waiting.saturating_add(1),
            name,
        );
        self.send(&text);
    }

    /// The contact lands in `queue_id` (chosen in the menu, the connection's only queue, or an
    /// option's target). `greet` sends the queue's greeting.
    fn enter_queue(&mut self, queue_id: QueueId, greet: bool) {
        let input = self.input;
        self.set_queue(queue_id, TicketLogType::Queue);
        self.bot.menu_queue_id = Some(queue_id);
        self.bot.path.clear();
        let Some(queue) = input.queue(queue_id) else {
            self.hand_over(queue_id);
            return;
        };
        if input.settings.schedule_type == ScheduleType::Queue
            && !queue.schedules.is_empty()
            && !is_open(&queue.schedules, input.time_zone, input.now)
        {
            self.out_of_hours(&queue.schedules, &queue.out_of_hours_message);
            self.bot.stage = BotStage::Done;
            return;
        }
        let greeting = if greet {
            queue.greeting_message.as_str()
        } else {
            ""
        };
        if queue.close_ticket {
            self.send(greeting);
            self.close(Some(queue_id));
            return;
        }
        if let Some(integration_id) = queue.integration_id {
            self.send(greeting);
            self.push(RoutingEffect::StartIntegration { integration_id });
            self.bot.stage = BotStage::Done;
            return;
        }
        if !queue.chatbots.is_empty() {
            let menu = render_option_menu(greeting, &queue.chatbots, 0, &input.labels);
            self.send_menu(&menu);
            if let Some(file_list_id) = queue.file_list_id {
                self.push(RoutingEffect::SendFileList { file_list_id });
            }
            self.bot.stage = BotStage::OptionMenu;
            return;
        }
        self.send(greeting);
        if let Some(file_list_id) = queue.file_list_id {
            self.push(RoutingEffect::SendFileList { file_list_id });
        }
        self.hand_over(queue_id);
    }

    /// The ticket has no queue yet.
    fn without_queue(&mut self) {
        let input = self.input;
        let queues = menu_queues(&input.connection.queue_ids, &input.queues);
        match queues.as_slice() {
            [] => {}
            [only] => {
                if matches!(self.bot.stage, BotStage::Done | BotStage::Exhausted) {
                    return;
                }
                let greet = input.settings.send_greeting_message_one_queues;
                if greet {
                    self.send(&input.connection.greeting_message);
                }
                self.enter_queue(only.id, greet);
            }
            many => match self.bot.stage {
                BotStage::Idle => {
                    let menu =
                        render_queue_menu(&input.connection.greeting_message, many, &input.labels);
                    self.send_menu(&menu);
                    self.bot.stage = BotStage::QueueMenu;
                    self.bot.menu_queue_id = None;
                    self.bot.path.clear();
                    let conn = &input.connection;
                    if conn.time_send_queue > 0 && conn.send_id_queue.is_some() {
                        self.schedule(conn.time_send_queue, TimerKind::SendQueue);
                    }
                }
                BotStage::QueueMenu => {
                    let names: Vec<&str> = many.iter().map(|q| q.name.as_str()).collect();
                    match match_reply(&input.message, &names, Navigation::default(), &input.labels)
                    {
                        MenuChoice::Item(i) => {
                            self.reset_counter();
                            if let Some(queue) = many.get(i) {
                                self.enter_queue(queue.id, true);
                            }
                        }
                        MenuChoice::Back | MenuChoice::Exit | MenuChoice::Invalid => {
                            if self.menus_exhausted() {
                                self.give_up_without_queue();
                            } else {
                                let menu = render_queue_menu(
                                    &input.connection.greeting_message,
                                    many,
                                    &input.labels,
                                );
                                self.send_menu(&menu);
                            }
                        }
                    }
                }
                BotStage::OptionMenu | BotStage::Exhausted | BotStage::Done => {}
            },
        }
    }

    /// No choice within `maxUseBotQueues` menus and no queue: to `sendIdQueue` when there is
    /// one, else the bot falls silent and the ticket waits without a queue.
    fn give_up_without_queue(&mut self) {
        match self.input.connection.send_id_queue {
            Some(queue_id) => {
                self.set_queue(queue_id, TicketLogType::Redirect);
                self.bot.menu_queue_id = Some(queue_id);
                self.hand_over(queue_id);
            }
            None => {
                self.bot.stage = BotStage::Exhausted;
                self.bot.path.clear();
            }
        }
    }

    /// The ticket waits in `queue_id` with the bot in its chatbot menu.
    fn in_option_menu(&mut self, queue_id: QueueId) {
        let input = self.input;
        let Some(queue) = input.queue(queue_id) else {
            return;
        };
        let (options, parent, path) = match options_at(&queue.chatbots, &self.bot.path) {
            Some((options, parent)) if !options.is_empty() => {
                (options, parent, self.bot.path.clone())
            }
            // The tree changed under the contact: read the reply against the top level.
            _ => (queue.chatbots.as_slice(), None, Vec::new()),
        };
        if options.is_empty() {
            self.hand_over(queue_id);
            return;
        }
        self.bot.path = path;
        let depth = self.bot.path.len();
        let names: Vec<&str> = options.iter().map(|o| o.name.as_str()).collect();
        match match_reply(
            &input.message,
            &names,
            option_navigation(depth),
            &input.labels,
        ) {
            MenuChoice::Item(i) => {
                self.reset_counter();
                if let Some(option) = options.get(i) {
                    self.bot.path.push(i);
                    self.choose_option(queue, option);
                }
            }
            MenuChoice::Back => {
                self.reset_counter();
                self.bot.path.pop();
                self.show_option_menu(queue);
            }
            MenuChoice::Exit => {
                self.reset_counter();
                self.hand_over(queue_id);
            }
            MenuChoice::Invalid => {
                if self.menus_exhausted() {
                    self.hand_over(queue_id);
                } else {
                    let header = parent.map_or(queue.greeting_message.as_str(), |p| {
                        p.greeting_message.as_str()
                    });
                    let menu = render_option_menu(header, options, depth, &input.labels);
                    self.send_menu(&menu);
                }
            }
        }
    }

    /// Sends the menu at the bot's path in `queue`'s tree.
    fn show_option_menu(&mut self, queue: &Queue) {
        let labels = &self.input.labels;
        let Some((options, parent)) = options_at(&queue.chatbots, &self.bot.path) else {
            self.hand_over(queue.id);
            return;
        };
        let header = parent.map_or(queue.greeting_message.as_str(), |p| {
            p.greeting_message.as_str()
        });
        let menu = render_option_menu(header, options, self.bot.path.len(), labels);
        self.send_menu(&menu);
        self.bot.stage = BotStage::OptionMenu;
    }

    /// The contact chose `option` (the bot's path already points at it).
    fn choose_option(&mut self, queue: &Queue, option: &ChatbotOption) {
        let message = option.greeting_message.as_str();
        if option.queue_type == ChatbotOptionType::Text
            && !option.close_ticket
            && !option.options.is_empty()
        {
            let menu = render_option_menu(
                message,
                &option.options,
                self.bot.path.len(),
                &self.input.labels,
            );
            self.send_menu(&menu);
            self.bot.stage = BotStage::OptionMenu;
            return;
        }
        self.send(message);
        if option.queue_type == ChatbotOptionType::File
            && let Some(file_list_id) = option.opt_file_id
        {
            self.push(RoutingEffect::SendFileList { file_list_id });
        }
        if option.close_ticket {
            self.close(Some(queue.id));
            return;
        }
        match option.queue_type {
            ChatbotOptionType::Attendant if option.opt_user_id.is_some() => {
                if let Some(user_id) = option.opt_user_id {
                    self.bot.path.clear();
                    self.assign(user_id, Some(queue.id));
                }
            }
            ChatbotOptionType::Queue if option.opt_queue_id.is_some() => {
                if let Some(target) = option.opt_queue_id {
                    self.enter_queue(target, true);
                }
            }
            ChatbotOptionType::Integration if option.opt_integration_id.is_some() => {
                if let Some(integration_id) = option.opt_integration_id {
                    self.push(RoutingEffect::StartIntegration { integration_id });
                    self.bot.stage = BotStage::Done;
                    self.bot.path.clear();
                }
            }
            _ => self.hand_over(queue.id),
        }
    }
}

/// The attendant rotation gives a ticket of `queue_id` to now, if any.
fn pick_for(input: &RoutingInput, queue_id: QueueId) -> Option<UserId> {
    let snapshot = input.snapshot(queue_id)?;
    pick_attendant(
        &snapshot.attendants,
        snapshot.last_assigned,
        input.settings.rotation,
        input.settings.attendant_cap,
    )
}

/// `sendQueuePositionMessage` with its placeholders filled; a message without
/// [`POSITION_PLACEHOLDER`] gets the position appended in bold (`... *3*`).
pub fn render_position(message: &str, position: u32, queue_name: &str) -> String {
    let message = message.trim();
    let text = message
        .replace(POSITION_PLACEHOLDER, &position.to_string())
        .replace(QUEUE_PLACEHOLDER, queue_name);
    if message.contains(POSITION_PLACEHOLDER) {
        text
    } else {
        format!("{text} *{position}*")
    }
}

/// Whether the bot may act on this ticket at all: a pending ticket nobody holds, not a group
/// unless the connection treats groups as tickets, a contact with the bot enabled, no
/// integration or flow in charge.
fn bot_may_act(input: &RoutingInput) -> bool {
    let ticket = &input.ticket;
    ticket.status == TicketStatus::Pending
        && ticket.user_id.is_none()
        && (!ticket.is_group || input.connection.group_as_ticket)
        && !input.contact.disable_bot
        && !ticket.using_integration
}

/// Decides what routing does with an inbound message (see `docs/routing.md` for every rule).
///
/// In order: nothing unless the bot may act (a contact's message on a pending ticket without an
/// attendant, not a group unless `groupAsTicket`, contact without `disableBot`, no integration in
/// charge); the collective vacation message during the vacation; the out-of-hours message outside
/// the hours `scheduleType` selects; the bot counter's reset after `timeUseBotQueues`; the
/// contact's wallet owner when `DirectTicketsToWallets` is on; then the menus.
pub fn decide(input: &RoutingInput) -> RoutingDecision {
    if input.from_me || !bot_may_act(input) {
        return RoutingDecision::nothing();
    }
    let mut plan = Plan::new(input);
    let conn = &input.connection;
    let tz = input.time_zone;
    let now = input.now;

    if in_vacation(conn.vacation_start, conn.vacation_end, tz, now) {
        let notified = plan.bot.vacation_sent_at.is_some_and(|sent| {
            sent <= now && in_vacation(conn.vacation_start, conn.vacation_end, tz, sent)
        });
        if !notified && !conn.vacation_message.trim().is_empty() {
            plan.send(&conn.vacation_message);
            plan.bot.vacation_sent_at = Some(now);
        }
        return plan.finish();
    }

    let ticket_queue = input.ticket.queue_id.and_then(|id| input.queue(id));
    if let Some(rows) = applicable_schedule(
        input.settings.schedule_type,
        &input.company_schedules,
        &conn.schedules,
        ticket_queue,
    ) && !is_open(rows, tz, now)
    {
        let message = match input.settings.schedule_type {
            ScheduleType::Queue => ticket_queue.map_or("", |q| q.out_of_hours_message.as_str()),
            _ => conn.out_of_hours_message.as_str(),
        };
        plan.out_of_hours(rows, message);
        return plan.finish();
    }

    if conn.time_use_bot_queues > 0
        && plan.counter > 0
        && input
            .ticket
            .last_bot_message_at
            .and_then(|last| after_minutes(last, conn.time_use_bot_queues))
            .is_some_and(|reset_at| reset_at <= now)
    {
        plan.reset_counter();
        if plan.bot.stage == BotStage::Exhausted {
            plan.bot.stage = BotStage::Idle;
        }
    }

    if input.settings.direct_tickets_to_wallets
        && let Some(owner) = input.contact.wallet_owner
    {
        let queue_id = input.ticket.queue_id.or(owner.queue_id);
        if input.ticket.queue_id.is_none()
            && let Some(queue_id) = owner.queue_id
        {
            plan.set_queue(queue_id, TicketLogType::Queue);
        }
        plan.bot.path.clear();
        plan.assign(owner.user_id, queue_id);
        return plan.finish();
    }

    match input.ticket.queue_id {
        None => plan.without_queue(),
        Some(queue_id) => {
            if plan.bot.stage == BotStage::OptionMenu && plan.bot.menu_queue_id == Some(queue_id) {
                plan.in_option_menu(queue_id);
            }
        }
    }
    plan.finish()
}

/// A flow's ticket node put the ticket in `queue_id`: the `queue` log, then the ticket is handed
/// over there as when the bot's part is over (rotation now or by timer, else the queue position
/// message). The queue's greeting and menu are not sent: the flow did the talking. Nothing when a
/// person already holds the ticket.
pub fn flow_moved_to_queue(queue_id: QueueId, input: &RoutingInput) -> RoutingDecision {
    let ticket = &input.ticket;
    if ticket.status != TicketStatus::Pending || ticket.user_id.is_some() {
        return RoutingDecision::nothing();
    }
    let mut plan = Plan::new(input);
    plan.set_queue(queue_id, TicketLogType::Queue);
    plan.bot.menu_queue_id = Some(queue_id);
    plan.hand_over(queue_id);
    plan.finish()
}

/// Decides what a routing timer does when it falls due: nothing when the ticket moved on (an
/// attendant holds it, it closed, it left the queue, an integration took it).
///
/// - [`TimerKind::SendQueue`]: a ticket still without a queue moves to `sendIdQueue` (a
///   `redirect` log), then waits there as any ticket handed to a queue does.
/// - [`TimerKind::Rotation`]: a ticket still waiting in that queue, whose rotation is still on,
///   goes to the attendant [`pick_attendant`] names; when nobody can take it, the timer is set
///   again (after `tempoRoteador`, or [`ROTATION_RETRY_MINUTES`]).
pub fn on_timer(kind: TimerKind, input: &RoutingInput) -> RoutingDecision {
    let ticket = &input.ticket;
    if ticket.status != TicketStatus::Pending
        || ticket.user_id.is_some()
        || ticket.using_integration
    {
        return RoutingDecision::nothing();
    }
    let mut plan = Plan::new(input);
    match kind {
        TimerKind::SendQueue => {
            if let (None, Some(queue_id)) = (ticket.queue_id, input.connection.send_id_queue) {
                plan.set_queue(queue_id, TicketLogType::Redirect);
                plan.bot.menu_queue_id = Some(queue_id);
                plan.hand_over(queue_id);
            }
        }
        TimerKind::Rotation { queue_id } => {
            let rotation_on = input.queue(queue_id).is_some_and(|q| q.ativar_roteador)
                || input.settings.user_random;
            if ticket.queue_id == Some(queue_id) && rotation_on && !plan.bot.awaits_reply() {
                match pick_for(input, queue_id) {
                    Some(user_id) => plan.assign(user_id, Some(queue_id)),
                    None => {
                        let wait = input
                            .queue(queue_id)
                            .filter(|q| q.ativar_roteador && q.tempo_roteador > 0)
                            .map_or(ROTATION_RETRY_MINUTES, |q| q.tempo_roteador);
                        plan.schedule(wait, TimerKind::Rotation { queue_id });
                    }
                }
            }
        }
    }
    plan.finish()
}
