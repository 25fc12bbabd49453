//! The import of old messages on both engines, through the use cases and the durable job: a
//! part of the phone's history is queued once, written oldest first as history (each message at
//! its own time, in the import queue, nothing unread, no bot), finished when the phone says it is
//! complete or when it has been quiet, and its tickets closed by the button or at the end; a
//! crash between writing a batch and marking it loses nothing and stores nothing twice; another
//! company can neither see nor close an import.

use std::sync::Arc;

use chatflow_core::events::Event;
use chatflow_core::identity::{Actor, Profile, UserFlags};
use chatflow_core::inbox::channel::{HistoryChunk, InboundEvent, InboundMessage};
use chatflow_core::inbox::history::{QUIET_SECONDS, STATUS_CLOSE_BUTTON};
use chatflow_core::inbox::model::{MediaType, PageStart};
use chatflow_core::inbox::ports::{
    ConnectionRepo, EventLog, HistoryImportRepo, MessageRepo, TicketRepo,
};
use chatflow_core::jobs::JobPayload;
use chatflow_core::ports::Clock;
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::{history, ingest};
use chatflow_core::ticket::TicketStatus;
use chatflow_core::{ErrorCode, TenantScope, UserId, WhatsappId};
use chatflow_store::Store;
use chatflow_system::ManualClock;
use chrono::{DateTime, TimeDelta, Utc};

use crate::store_tests;
use crate::support::{connection, queue, two_companies};

store_tests!(
    history_is_written_oldest_first_as_history_and_closed_by_the_button,
    a_live_message_keeps_its_place_and_its_ticket_is_not_closed,
    a_quiet_import_finishes_and_closes_its_tickets,
    a_part_sent_twice_and_a_crash_mid_import_store_each_message_once,
    another_company_can_neither_see_nor_close_an_import,
);

fn admin(scope: TenantScope) -> Actor {
    Actor {
        user_id: UserId(0),
        company_id: scope.company_id(),
        profile: Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    }
}

fn ports(store: &Store, clock: &ManualClock) -> Ports {
    crate::support::ports_on(
        store,
        Arc::new(clock.clone()),
        Arc::new(chatflow_system::LogMailer),
    )
}

fn text(id: &str, chat: &str, from_me: bool, body: &str, at: DateTime<Utc>) -> InboundMessage {
    InboundMessage {
        external_id: id.into(),
        chat: chat.into(),
        chat_name: if from_me { String::new() } else { "Ana".into() },
        is_group: false,
        participant: None,
        from_me,
        body: body.into(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: at,
        aliases: Vec::new(),
        media_failed: None,
    }
}

const ANA: &str = "5511911110000";
const BRUNO: &str = "5511922220000";

/// Turns the import on for connection `c`: the last 30 days up to now, into `queue`.
async fn import_on(store: &Store, c: WhatsappId, queue: i64, now: DateTime<Utc>, close: bool) {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query(
            "UPDATE whatsapps SET enable_import_message = TRUE, import_old_messages = $2, \
             import_recent_messages = $3, queue_id_import_messages = $4, \
             closed_tickets_post_imported = $5, greeting_message = 'Olá! Escolha uma opção' \
             WHERE id = $1",
        )
        .bind(c.0)
        .bind(now - TimeDelta::days(30))
        .bind(now)
        .bind(queue)
        .bind(close)
        .execute(p)
        .await
        .expect("import turned on");
    });
}

async fn deliver_history(
    ports: &Ports,
    scope: TenantScope,
    c: WhatsappId,
    messages: Vec<InboundMessage>,
    progress: Option<u32>,
) {
    let delivery = ingest::deliver(
        ports,
        scope,
        c,
        InboundEvent::History(HistoryChunk {
            messages,
            progress,
            on_demand: false,
        }),
    )
    .await
    .expect("the history is kept");
    assert!(delivery.outcome.is_none());
}

/// Runs the jobs due now until none is; answers how many import steps ran.
async fn run_jobs(ports: &Ports) -> usize {
    let mut steps = 0;
    for _ in 0..100 {
        let claimed = ports
            .jobs
            .claim_due(ports.clock.now(), TimeDelta::seconds(60), 10)
            .await
            .expect("claimed");
        if claimed.is_empty() {
            return steps;
        }
        for job in claimed {
            if matches!(job.payload, JobPayload::ImportHistory { .. }) {
                steps += 1;
            }
            let outcome = chatflow_core::service::jobs::run(ports, &job).await;
            chatflow_core::service::jobs::settle(ports, &job, &outcome)
                .await
                .expect("settled");
            outcome.expect("the job ran");
        }
    }
    panic!("the jobs never settled");
}

async fn status(store: &Store, scope: TenantScope, c: WhatsappId) -> Option<String> {
    ConnectionRepo::get(store, scope, c)
        .await
        .expect("read")
        .expect("the connection")
        .status_import_messages
}

async fn tickets_of(store: &Store, scope: TenantScope) -> Vec<chatflow_core::inbox::model::Ticket> {
    let company = scope.company_id().0;
    let ids: Vec<i64> = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar("SELECT id FROM tickets WHERE company_id = $1 ORDER BY id")
            .bind(company)
            .fetch_all(p)
            .await
            .expect("ticket ids")
    });
    let mut tickets = Vec::new();
    for id in ids {
        tickets.push(
            TicketRepo::get(store, scope, chatflow_core::TicketId(id))
                .await
                .expect("read")
                .expect("the ticket"),
        );
    }
    tickets
}

/// (body, time) of a ticket's messages as the conversation lists them.
async fn conversation(
    store: &Store,
    scope: TenantScope,
    ticket: chatflow_core::TicketId,
) -> Vec<(String, DateTime<Utc>)> {
    MessageRepo::list(store, scope, ticket, &PageStart::First, 100)
        .await
        .expect("messages")
        .items
        .into_iter()
        .map(|m| (m.body, m.created_at))
        .collect()
}

async fn imported_flags(store: &Store) -> Vec<(i64, bool)> {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_as::<_, (i64, bool)>("SELECT id, imported FROM tickets ORDER BY id")
            .fetch_all(p)
            .await
            .expect("flags")
    })
}

/// The `importMessages` events of the company, as (action, this, all).
async fn import_events(store: &Store, scope: TenantScope) -> Vec<(String, i64, i64)> {
    EventLog::read(store, scope, 0, 10_000)
        .await
        .expect("the log reads")
        .into_iter()
        .filter_map(|e| match e.event {
            Event::ImportProgress { this, all, .. } => Some(("update".to_owned(), this, all)),
            Event::ImportFinished { .. } => Some(("refresh".to_owned(), 0, 0)),
            _ => None,
        })
        .collect()
}

async fn history_is_written_oldest_first_as_history_and_closed_by_the_button(store: Store) {
    let (a, _) = two_companies(&store).await;
    let clock = ManualClock::starting_now();
    let now = clock.now();
    let q = queue(&store, a, "Importadas", "#333333", None).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    import_on(&store, c, q, now, false).await;
    let ports = ports(&store, &clock);

    let day = |n: i64| now - TimeDelta::days(n);
    let mut group = text("g1", "120363000000000001@g.us", false, "no grupo", day(2));
    group.is_group = true;
    deliver_history(
        &ports,
        a,
        c,
        vec![
            // Out of order, as the phone may send them; one too old, one a group.
            text("a2", ANA, true, "reply", day(2)),
            text("b1", BRUNO, false, "other chat", day(1)),
            text("a1", ANA, false, "first", day(3)),
            text("old", ANA, false, "too old", day(40)),
            group,
        ],
        Some(100),
    )
    .await;
    let queued = HistoryImportRepo::state(&store, a, c)
        .await
        .expect("state")
        .expect("an import under way");
    assert_eq!((queued.total, queued.written, queued.progress), (3, 0, 100));
    let receiving = status(&store, a, c).await.expect("a status");
    assert!(
        DateTime::parse_from_rfc3339(&receiving).is_ok(),
        "a time while receiving: {receiving}"
    );

    assert!(run_jobs(&ports).await >= 2, "a write and a finish");

    let tickets = tickets_of(&store, a).await;
    assert_eq!(tickets.len(), 2, "one ticket per chat, the group left out");
    for ticket in &tickets {
        assert_eq!(ticket.status, TicketStatus::Pending);
        assert_eq!(ticket.queue_id.map(|q| q.0), Some(q), "the import queue");
        assert_eq!(ticket.unread_messages, 0, "history is not unread");
    }
    let ana = tickets
        .iter()
        .find(|t| t.contact.number == ANA)
        .expect("Ana's ticket");
    assert_eq!(
        conversation(&store, a, ana.id).await,
        vec![("first".to_owned(), day(3)), ("reply".to_owned(), day(2))],
        "oldest first, each at its own time"
    );
    assert_eq!(ana.last_message, "reply");
    // No greeting, bot or anything else was written: only the history.
    let all: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar("SELECT COUNT(*) FROM messages")
            .fetch_one(p)
            .await
            .expect("count")
    });
    assert_eq!(all, 3);
    assert!(
        imported_flags(&store)
            .await
            .iter()
            .all(|(_, imported)| *imported)
    );
    assert_eq!(
        status(&store, a, c).await.as_deref(),
        Some(STATUS_CLOSE_BUTTON)
    );
    assert!(
        HistoryImportRepo::state(&store, a, c)
            .await
            .expect("state")
            .is_none(),
        "the queue is gone"
    );
    let events = import_events(&store, a).await;
    assert_eq!(events.first(), Some(&("update".to_owned(), -1, 3)));
    assert!(events.contains(&("update".to_owned(), 3, 3)), "{events:?}");
    assert_eq!(events.last().map(|e| e.0.as_str()), Some("refresh"));

    // The button closes them, and the connection is done with its import.
    let closed = history::close_imported(&ports, &admin(a), c)
        .await
        .expect("closed");
    assert_eq!(closed, 2);
    assert!(
        tickets_of(&store, a)
            .await
            .iter()
            .all(|t| t.status == TicketStatus::Closed)
    );
    assert_eq!(status(&store, a, c).await, None);
}

async fn a_live_message_keeps_its_place_and_its_ticket_is_not_closed(store: Store) {
    let (a, _) = two_companies(&store).await;
    let clock = ManualClock::starting_now();
    let now = clock.now();
    let q = queue(&store, a, "Importadas", "#333333", None).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    import_on(&store, c, q, now, false).await;
    let ports = ports(&store, &clock);

    // A live message comes before the history of its chat is written.
    let live = ingest::deliver(
        &ports,
        a,
        c,
        InboundEvent::Message(text("live", ANA, false, "live now", now)),
    )
    .await
    .expect("delivered");
    assert!(live.outcome.is_some());
    deliver_history(
        &ports,
        a,
        c,
        vec![text("h1", ANA, false, "older", now - TimeDelta::days(1))],
        Some(100),
    )
    .await;
    run_jobs(&ports).await;

    let tickets = tickets_of(&store, a).await;
    assert_eq!(tickets.len(), 1, "the history joins the open ticket");
    let bodies: Vec<String> = conversation(&store, a, tickets[0].id)
        .await
        .into_iter()
        .map(|(body, _)| body)
        .collect();
    assert!(
        bodies.ends_with(&["older".to_owned(), "live now".to_owned()]),
        "history before the live message: {bodies:?}"
    );
    assert_eq!(tickets[0].last_message, "live now", "the newest stays last");
    assert_eq!(imported_flags(&store).await, vec![(tickets[0].id.0, false)]);
    let closed = history::close_imported(&ports, &admin(a), c)
        .await
        .expect("answered");
    assert_eq!(
        closed, 0,
        "a live conversation is never closed by the button"
    );
}

async fn a_quiet_import_finishes_and_closes_its_tickets(store: Store) {
    let (a, _) = two_companies(&store).await;
    let clock = ManualClock::starting_now();
    let now = clock.now();
    let q = queue(&store, a, "Importadas", "#333333", None).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    import_on(&store, c, q, now, true).await;
    let ports = ports(&store, &clock);

    deliver_history(
        &ports,
        a,
        c,
        vec![text("h1", ANA, false, "hello", now - TimeDelta::days(1))],
        Some(40),
    )
    .await;
    run_jobs(&ports).await;
    // Written, but the phone may send more: the import waits.
    let waiting = HistoryImportRepo::state(&store, a, c)
        .await
        .expect("state")
        .expect("still under way");
    assert_eq!((waiting.total, waiting.written), (1, 1));
    let next = ports.jobs.pending(a).await.expect("jobs");
    assert!(
        next.iter()
            .any(|j| j.run_at == now + TimeDelta::seconds(QUIET_SECONDS)),
        "a look again once quiet: {next:?}"
    );
    // More history meanwhile restarts the quiet time.
    clock.advance(TimeDelta::seconds(30));
    deliver_history(
        &ports,
        a,
        c,
        vec![text("h2", BRUNO, false, "hi", now - TimeDelta::days(2))],
        None,
    )
    .await;
    run_jobs(&ports).await;
    assert!(
        HistoryImportRepo::state(&store, a, c)
            .await
            .expect("state")
            .is_some()
    );
    clock.advance(TimeDelta::seconds(QUIET_SECONDS));
    run_jobs(&ports).await;
    assert!(
        HistoryImportRepo::state(&store, a, c)
            .await
            .expect("state")
            .is_none(),
        "finished once quiet"
    );
    let tickets = tickets_of(&store, a).await;
    assert_eq!(tickets.len(), 2);
    assert!(
        tickets.iter().all(|t| t.status == TicketStatus::Closed),
        "closed at the end (closedTicketsPostImported)"
    );
    assert_eq!(status(&store, a, c).await, None, "nothing left to close");
}

async fn a_part_sent_twice_and_a_crash_mid_import_store_each_message_once(store: Store) {
    let (a, _) = two_companies(&store).await;
    let clock = ManualClock::starting_now();
    let now = clock.now();
    let q = queue(&store, a, "Importadas", "#333333", None).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    import_on(&store, c, q, now, false).await;

    let part: Vec<InboundMessage> = (0..450)
        .map(|n| {
            text(
                &format!("m{n:03}"),
                if n % 3 == 0 { ANA } else { BRUNO },
                n % 2 == 0,
                &format!("message {n}"),
                now - TimeDelta::days(10) + TimeDelta::minutes(n),
            )
        })
        .collect();
    {
        let ports = ports(&store, &clock);
        deliver_history(&ports, a, c, part.clone(), None).await;
        // The phone sends the same part again: queued once.
        deliver_history(&ports, a, c, part.clone(), Some(100)).await;
        let state = HistoryImportRepo::state(&store, a, c)
            .await
            .expect("state")
            .expect("under way");
        assert_eq!(state.total, 450);
        // One step writes a batch; then the server dies before the next, and (worse) as if
        // it had died between writing the batch and marking it written.
        let job = ports
            .jobs
            .claim_due(now, TimeDelta::seconds(60), 10)
            .await
            .expect("claimed")
            .into_iter()
            .find(|j| matches!(j.payload, JobPayload::ImportHistory { .. }))
            .expect("the import's job");
        chatflow_core::service::jobs::run(&ports, &job)
            .await
            .expect("a step");
        chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query("UPDATE history_imports SET written = FALSE")
                .execute(p)
                .await
                .expect("unmarked");
        });
    }
    // A new process on the same database: the job's lease runs out and it runs again.
    clock.advance(TimeDelta::seconds(61));
    let ports = ports(&store, &clock);
    run_jobs(&ports).await;
    let stored: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar("SELECT COUNT(*) FROM messages")
            .fetch_one(p)
            .await
            .expect("count")
    });
    assert_eq!(stored, 450, "every message once");
    assert!(
        HistoryImportRepo::state(&store, a, c)
            .await
            .expect("state")
            .is_none()
    );
    let tickets = tickets_of(&store, a).await;
    assert_eq!(tickets.len(), 2);
    let total: usize = {
        let mut n = 0;
        for t in &tickets {
            n += MessageRepo::list(&store, a, t.id, &PageStart::First, 200)
                .await
                .expect("messages")
                .count
                .map(|c| c as usize)
                .unwrap_or(0);
        }
        n
    };
    assert_eq!(total, 450);
}

async fn another_company_can_neither_see_nor_close_an_import(store: Store) {
    let (a, b) = two_companies(&store).await;
    let clock = ManualClock::starting_now();
    let now = clock.now();
    let q = queue(&store, a, "Importadas", "#333333", None).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    import_on(&store, c, q, now, false).await;
    let ports = ports(&store, &clock);
    deliver_history(
        &ports,
        a,
        c,
        vec![text("h1", ANA, false, "hello", now - TimeDelta::days(1))],
        Some(100),
    )
    .await;
    run_jobs(&ports).await;

    let error = history::close_imported(&ports, &admin(b), c)
        .await
        .expect_err("not b's connection");
    assert_eq!(error.code, ErrorCode::ERR_NO_WAPP_FOUND);
    assert!(
        HistoryImportRepo::queue(
            &store,
            b,
            c,
            &[text("x", ANA, false, "x", now)],
            now,
            None,
            "now"
        )
        .await
        .is_err(),
        "b cannot queue history on a's connection"
    );
    assert!(
        HistoryImportRepo::state(&store, b, c)
            .await
            .expect("state")
            .is_none()
    );
    assert_eq!(
        HistoryImportRepo::finish(&store, b, c, true, None, &[])
            .await
            .expect("answered"),
        Some(0),
        "nothing of a's is closed from b"
    );
    assert!(
        tickets_of(&store, a)
            .await
            .iter()
            .all(|t| t.status == TicketStatus::Pending),
        "a's imported ticket stays open"
    );
    assert_eq!(
        status(&store, a, c).await.as_deref(),
        Some(STATUS_CLOSE_BUTTON),
        "a's status is untouched"
    );
}
