//! Import of old messages (spec 2, connections): which part of a phone's history a connection
//! keeps, how an imported message is stored, when an import is finished and what the
//! connection's `statusImportMessages` says meanwhile. Pure rules; the use cases are in
//! `service::inbox::history`.
//!
//! WhatsApp sends a phone's history only right after a new link, in parts
//! ([`crate::inbox::channel::HistoryChunk`]). With the import on, each part's messages inside
//! the connection's window are queued durably as they arrive, and a job writes the queue oldest
//! first, a batch at a time, through the same ingestion as live messages but as history:
//!
//! - no bot, flow, queue routing, greeting or notification follows an imported message, and it
//!   adds nothing to a ticket's unread count (the phone has shown it already);
//! - a ticket the import opens goes to the import queue (`queueIdImportMessages`), pending, and
//!   is marked imported, so the close-imported button and `closedTicketsPostImported` close only
//!   those (never a ticket a live message opened);
//! - each message keeps the time WhatsApp gave it, and a conversation lists its messages by that
//!   time, so history written after a live message still shows before it.
//!
//! The import is finished once the queue is written and either the phone said the history is
//! complete (progress 100) or nothing arrived for [`QUIET_SECONDS`]; then its tickets are closed
//! (`closedTicketsPostImported`) or wait for the close button (`renderButtonCloseTickets`).

use chrono::{DateTime, TimeDelta, Utc};

use crate::error::{FieldCode, FieldError};
use crate::ids::QueueId;
use crate::inbox::channel::InboundMessage;
use crate::inbox::ingest::{IngestContext, IngestPlan, last_message_text, ticket_for};
use crate::inbox::model::{Connection, ConnectionInput};

/// How far back the import may reach, in days (two years).
pub const MAX_DAYS_BACK: i64 = 730;
/// `statusImportMessages` while the queue is being written.
pub const STATUS_RUNNING: &str = "Running";
/// `statusImportMessages` once the import is finished and its tickets wait to be closed.
pub const STATUS_CLOSE_BUTTON: &str = "renderButtonCloseTickets";
/// The web app shows "preparing" while `statusImportMessages` is a time less than this old.
pub const PREPARING_SECONDS: i64 = 35;
/// The import is finished when no part of the history arrived for this long (and everything
/// queued is written), unless the phone said it is complete before.
pub const QUIET_SECONDS: i64 = 45;
/// Messages written per transaction.
pub const BATCH: usize = 200;

/// What a connection's import keeps: its window and options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportWindow {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    /// Group chats too (only on a connection that takes groups).
    pub groups: bool,
    /// The queue imported tickets go to.
    pub queue: Option<QueueId>,
    /// Close the imported tickets when the import ends.
    pub close_after: bool,
}

/// The import a connection asks for, `None` when it is off (or lacks its dates).
pub fn window_of(connection: &Connection) -> Option<ImportWindow> {
    if !connection.enable_import_message {
        return None;
    }
    Some(ImportWindow {
        from: connection.import_old_messages?,
        to: connection.import_recent_messages?,
        groups: connection.import_old_messages_groups && connection.allow_group,
        queue: connection.queue_id_import_messages,
        close_after: connection.closed_tickets_post_imported,
    })
}

/// Whether the import keeps `message`: inside the window (both ends included), and a group's
/// only when groups are imported.
pub fn keeps(window: &ImportWindow, message: &InboundMessage) -> bool {
    (window.from..=window.to).contains(&message.timestamp) && (!message.is_group || window.groups)
}

/// The field errors of the import settings (spec 2 §5): with the import on, both dates and
/// the queue are required; the start is at most [`MAX_DAYS_BACK`] back and not after `now`;
/// the end is not before the start and not after `now` (`OutOfRange`).
pub fn field_errors(input: &ConnectionInput, now: DateTime<Utc>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if !input.enable_import_message {
        return errors;
    }
    match input.import_old_messages {
        None => errors.push(FieldError::new("importOldMessages", FieldCode::Required)),
        Some(from) if from > now || from < now - TimeDelta::days(MAX_DAYS_BACK) => {
            errors.push(FieldError::new("importOldMessages", FieldCode::OutOfRange));
        }
        Some(_) => {}
    }
    match input.import_recent_messages {
        None => errors.push(FieldError::new("importRecentMessages", FieldCode::Required)),
        Some(to) if to > now || input.import_old_messages.is_some_and(|from| to < from) => {
            errors.push(FieldError::new(
                "importRecentMessages",
                FieldCode::OutOfRange,
            ));
        }
        Some(_) => {}
    }
    if input.queue_id_import_messages.is_none() {
        errors.push(FieldError::new(
            "queueIdImportMessages",
            FieldCode::Required,
        ));
    }
    errors
}

/// The import settings of `input` with the import off: no dates, no options.
pub fn cleared(mut input: ConnectionInput) -> ConnectionInput {
    if !input.enable_import_message {
        input.import_old_messages = None;
        input.import_recent_messages = None;
        input.import_old_messages_groups = false;
        input.closed_tickets_post_imported = false;
        input.queue_id_import_messages = None;
    }
    input
}

/// Whether saving `input` over `current` changes what the next linking must import, so that a
/// connected phone is unlinked to send its history again (spec 2: saving with the import on
/// while CONNECTED deletes the session and asks for a new QR code). Saving other fields, or
/// the same import again, keeps the link.
pub fn relink_needed(current: &Connection, input: &ConnectionInput) -> bool {
    input.enable_import_message
        && (!current.enable_import_message
            || current.import_old_messages != input.import_old_messages
            || current.import_recent_messages != input.import_recent_messages
            || current.import_old_messages_groups != input.import_old_messages_groups)
}

/// How an imported message is stored ([`crate::inbox::ports::MessageRepo::ingest_batch`]'s
/// decision for the import): like [`crate::inbox::ingest::decide`], but a new ticket is
/// pending in the import `queue` and marked imported, nothing is unread, and no realtime event
/// goes out per message (the import reports its progress instead). Groups were filtered by
/// [`keeps`]; one the connection does not take is dropped all the same.
pub fn decide_imported(
    queue: Option<QueueId>,
) -> impl for<'c, 'm> Fn(&'c IngestContext, &'m InboundMessage) -> IngestPlan + Send + Sync {
    move |ctx, message| {
        if message.is_group && !ctx.connection.allow_group {
            return IngestPlan::Ignore;
        }
        let (ticket, logs) = ticket_for(ctx, message, queue, true);
        IngestPlan::Store {
            ticket,
            unread_increment: 0,
            last_message: last_message_text(&message.body, message.media_type),
            logs,
            events: Vec::new(),
            history: true,
        }
    }
}

/// Where an import stands, as its queue and the phone tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportState {
    /// Messages queued so far.
    pub total: u64,
    /// Of them, written.
    pub written: u64,
    /// When the last part of the history arrived.
    pub last_part_at: DateTime<Utc>,
    /// The highest progress the phone reported (0-100).
    pub progress: u32,
}

/// What the import job does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Write the next batch now.
    Write,
    /// Everything queued is written; look again at this time (the history may go on).
    WaitUntil(DateTime<Utc>),
    /// The import is finished.
    Finish,
}

/// What the import job does next at `now`.
pub fn next_step(state: &ImportState, now: DateTime<Utc>) -> Next {
    if state.written < state.total {
        return Next::Write;
    }
    let quiet_end = state.last_part_at + TimeDelta::seconds(QUIET_SECONDS);
    if state.progress >= 100 || now >= quiet_end {
        Next::Finish
    } else {
        Next::WaitUntil(quiet_end)
    }
}

/// `statusImportMessages` once the import is finished: nothing when its tickets were closed
/// (or it wrote nothing), else the close button.
pub fn finished_status(state: &ImportState, close_after: bool) -> Option<&'static str> {
    (!close_after && state.written > 0).then_some(STATUS_CLOSE_BUTTON)
}

/// `statusImportMessages` while history arrives: the time of the last part (RFC 3339, to the
/// millisecond).
pub fn receiving_status(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The progress an `importMessages` event reports: `-1` while nothing is written yet
/// (preparing), else how many of `total` are written.
pub fn progress_count(state: &ImportState) -> i64 {
    if state.written == 0 {
        -1
    } else {
        i64::try_from(state.written).unwrap_or(i64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::model::MediaType;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("a time")
            .with_timezone(&Utc)
    }

    fn message(time: &str, group: bool) -> InboundMessage {
        InboundMessage {
            external_id: "A".into(),
            chat: "5511999990000".into(),
            chat_name: String::new(),
            is_group: group,
            participant: None,
            from_me: false,
            body: "oi".into(),
            media_type: MediaType::Chat,
            media: None,
            quoted_external_id: None,
            timestamp: at(time),
            aliases: Vec::new(),
            media_failed: None,
        }
    }

    fn window(groups: bool) -> ImportWindow {
        ImportWindow {
            from: at("2026-01-01T00:00:00Z"),
            to: at("2026-06-30T23:59:59Z"),
            groups,
            queue: None,
            close_after: false,
        }
    }

    #[test]
    fn the_window_and_the_groups_option_decide_what_is_kept() {
        assert!(keeps(
            &window(false),
            &message("2026-01-01T00:00:00Z", false)
        ));
        assert!(keeps(
            &window(false),
            &message("2026-06-30T23:59:59Z", false)
        ));
        assert!(!keeps(
            &window(false),
            &message("2025-12-31T23:59:59Z", false)
        ));
        assert!(!keeps(
            &window(false),
            &message("2026-07-01T00:00:00Z", false)
        ));
        assert!(!keeps(
            &window(false),
            &message("2026-03-01T00:00:00Z", true)
        ));
        assert!(keeps(&window(true), &message("2026-03-01T00:00:00Z", true)));
    }

    #[test]
    fn the_dates_and_the_queue_are_checked_only_with_the_import_on() {
        let now = at("2026-11-28T12:00:00Z");
        let off = ConnectionInput {
            import_old_messages: Some(at("2000-01-01T00:00:00Z")),
            ..ConnectionInput::default()
        };
        assert!(field_errors(&off, now).is_empty());
        let codes = |input: &ConnectionInput| -> Vec<(String, FieldCode)> {
            field_errors(input, now)
                .into_iter()
                .map(|e| (e.field, e.code))
                .collect()
        };
        let on = ConnectionInput {
            enable_import_message: true,
            ..ConnectionInput::default()
        };
        assert_eq!(
            codes(&on),
            [
                ("importOldMessages".to_owned(), FieldCode::Required),
                ("importRecentMessages".to_owned(), FieldCode::Required),
                ("queueIdImportMessages".to_owned(), FieldCode::Required),
            ]
        );
        let too_old = ConnectionInput {
            import_old_messages: Some(now - TimeDelta::days(MAX_DAYS_BACK + 1)),
            import_recent_messages: Some(now),
            queue_id_import_messages: Some(QueueId(1)),
            ..on.clone()
        };
        assert_eq!(
            codes(&too_old),
            [("importOldMessages".to_owned(), FieldCode::OutOfRange)]
        );
        let reversed = ConnectionInput {
            import_old_messages: Some(now - TimeDelta::days(10)),
            import_recent_messages: Some(now - TimeDelta::days(20)),
            ..too_old.clone()
        };
        assert_eq!(
            codes(&reversed),
            [("importRecentMessages".to_owned(), FieldCode::OutOfRange)]
        );
        let future = ConnectionInput {
            import_old_messages: Some(now + TimeDelta::days(1)),
            import_recent_messages: Some(now + TimeDelta::days(2)),
            ..too_old.clone()
        };
        assert_eq!(
            codes(&future),
            [
                ("importOldMessages".to_owned(), FieldCode::OutOfRange),
                ("importRecentMessages".to_owned(), FieldCode::OutOfRange),
            ]
        );
        let fine = ConnectionInput {
            import_old_messages: Some(now - TimeDelta::days(MAX_DAYS_BACK)),
            import_recent_messages: Some(now),
            ..too_old
        };
        assert!(codes(&fine).is_empty());
    }

    #[test]
    fn the_import_finishes_once_written_and_complete_or_quiet() {
        let t0 = at("2026-11-28T12:00:00Z");
        let state = ImportState {
            total: 10,
            written: 4,
            last_part_at: t0,
            progress: 100,
        };
        assert_eq!(next_step(&state, t0), Next::Write);
        let written = ImportState {
            written: 10,
            progress: 40,
            ..state
        };
        assert_eq!(
            next_step(&written, t0 + TimeDelta::seconds(5)),
            Next::WaitUntil(t0 + TimeDelta::seconds(QUIET_SECONDS))
        );
        assert_eq!(
            next_step(&written, t0 + TimeDelta::seconds(QUIET_SECONDS)),
            Next::Finish
        );
        let complete = ImportState {
            progress: 100,
            ..written
        };
        assert_eq!(next_step(&complete, t0), Next::Finish);
        assert_eq!(
            progress_count(&ImportState {
                written: 0,
                ..state
            }),
            -1
        );
        assert_eq!(progress_count(&state), 4);
        assert_eq!(finished_status(&state, true), None);
        assert_eq!(finished_status(&state, false), Some(STATUS_CLOSE_BUTTON));
        assert_eq!(
            finished_status(
                &ImportState {
                    written: 0,
                    ..state
                },
                false
            ),
            None
        );
    }

    #[test]
    fn only_a_changed_import_unlinks_the_phone() {
        let mut current: Connection = serde_json::from_value(serde_json::json!({
            "id": 1, "companyId": 1, "name": "c", "number": "", "channel": "whatsapp",
            "provider": "beta", "status": "CONNECTED", "qrcode": "", "retries": 0,
            "isDefault": true, "token": "", "greetingMessage": "", "complationMessage": "",
            "outOfHoursMessage": "", "ratingMessage": "", "allowGroup": false,
            "groupAsTicket": false, "maxUseBotQueues": 3, "timeUseBotQueues": 0,
            "timeSendQueue": 0, "sendIdQueue": null, "expiresTicket": 0,
            "expiresInactiveMessage": "", "timeCreateNewTicket": 0, "queueIds": [],
            "queues": [], "updatedAt": "2026-11-28T12:00:00Z"
        }))
        .expect("a connection");
        let input = ConnectionInput {
            enable_import_message: true,
            import_old_messages: Some(at("2026-01-01T00:00:00Z")),
            import_recent_messages: Some(at("2026-11-01T00:00:00Z")),
            ..ConnectionInput::default()
        };
        assert!(relink_needed(&current, &input));
        current.enable_import_message = true;
        current.import_old_messages = input.import_old_messages;
        current.import_recent_messages = input.import_recent_messages;
        assert!(!relink_needed(&current, &input));
        let off = ConnectionInput::default();
        assert!(!relink_needed(&current, &off));
        assert_eq!(cleared(input.clone()), input);
        let mut stray = off.clone();
        stray.queue_id_import_messages = Some(QueueId(3));
        assert_eq!(cleared(stray), off);
    }
}
