//! The automation runtime's storage on both engines: one unfinished flow run per ticket, runs
//! stepped with the optimistic revision check, the bot's memory on tickets (with its ticket
//! events only when the inbox shows a change), a queue's routing snapshot, and company
//! isolation of all of it.

use chatflow_core::TenantScope;
use chatflow_core::events::Event;
use chatflow_core::flow_ports::{FlowId, FlowRepo, FlowRun, NewFlowRun, RunTimer, RunUpdate};
use chatflow_core::ids::{ContactId, QueueId, TicketId, UserId};
use chatflow_core::inbox::model::{ContactInput, Ticket};
use chatflow_core::inbox::ports::{BotMemory, ContactRepo, EventLog, TicketRepo};
use chatflow_core::jobs::{JobPayload, JobQueue};
use chatflow_core::routing::{Candidate, QueueSnapshot};
use chatflow_store::Store;
use chrono::{SubsecRound, Utc};

use crate::store_tests;
use crate::support::{queue, two_companies};
use crate::tickets::user;

store_tests!(
    automation_runs_one_active_per_ticket,
    automation_concurrent_runs_of_a_ticket_leave_one_active,
    automation_runs_save_with_the_revision_check,
    automation_runs_of_another_company_are_out_of_reach,
    automation_bot_memory_round_trips_with_events_on_shown_changes,
    automation_queue_snapshot_counts_the_queue_of_the_company,
    automation_run_timers_commit_with_the_run,
    automation_a_batch_reads_its_tickets_memories_and_runs_at_once,
    automation_bot_memory_commits_with_the_run,
);

/// A contact of `scope`'s company with its own number.
async fn contact(store: &Store, scope: TenantScope, number: &str) -> ContactId {
    ContactRepo::create(
        store,
        scope,
        &ContactInput {
            name: "Ana".into(),
            number: number.into(),
            email: String::new(),
            channel: None,
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        },
    )
    .await
    .expect("contact")
    .id
}

/// A ticket of `scope`'s company (inserted directly, a contact of its own).
async fn ticket(
    store: &Store,
    scope: TenantScope,
    number: &str,
    status: &str,
    queue: Option<i64>,
    user: Option<UserId>,
) -> TicketId {
    let contact = contact(store, scope, number).await;
    let company = scope.company_id().0;
    let id = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO tickets (company_id, uuid, contact_id, status, queue_id, user_id) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(company)
        .bind(uuid::Uuid::new_v4())
        .bind(contact.0)
        .bind(status)
        .bind(queue)
        .bind(user.map(|u| u.0))
        .fetch_one(p)
        .await
        .expect("ticket inserted")
    });
    TicketId(id)
}

/// A plain pending ticket.
async fn pending(store: &Store, scope: TenantScope, number: &str) -> TicketId {
    ticket(store, scope, number, "pending", None, None).await
}

fn new_run(ticket: TicketId, flow: FlowId, status: &str) -> NewFlowRun {
    NewFlowRun {
        ticket_id: ticket,
        flow_id: flow,
        version: 1,
        state: format!("{{\"status\":\"{status}\"}}"),
        current_node: Some("1".into()),
        status: status.into(),
        timer: None,
        memory: None,
    }
}

async fn run_of(store: &Store, scope: TenantScope, id: i64) -> FlowRun {
    FlowRepo::run(store, scope, id)
        .await
        .expect("read")
        .expect("the run exists")
}

/// The company's ticket `update` events, in order.
async fn ticket_updates(store: &Store, scope: TenantScope) -> Vec<Ticket> {
    EventLog::read(store, scope, 0, 10_000)
        .await
        .expect("the log reads")
        .into_iter()
        .filter_map(|e| match e.event {
            Event::TicketUpdate { ticket } => Some(*ticket),
            _ => None,
        })
        .collect()
}

async fn automation_runs_one_active_per_ticket(store: Store) {
    let (a, _) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000001").await;
    let other = pending(&store, a, "5511900000002").await;
    assert!(!FlowRepo::ticket_had_run(&store, a, t).await.expect("read"));
    assert_eq!(
        FlowRepo::active_run(&store, a, t).await.expect("read"),
        None
    );

    let first = FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "running"))
        .await
        .expect("recorded");
    let on_other = FlowRepo::insert_run(&store, a, &new_run(other, flow.id, "waiting"))
        .await
        .expect("recorded");
    assert!(FlowRepo::ticket_had_run(&store, a, t).await.expect("read"));
    let active = FlowRepo::active_run(&store, a, t)
        .await
        .expect("read")
        .expect("a run is active");
    assert_eq!(
        active,
        FlowRun {
            id: first,
            ticket_id: t,
            flow_id: flow.id,
            version: 1,
            state: "{\"status\":\"running\"}".into(),
            status: "running".into(),
            revision: 0,
        }
    );

    // A second run ends the first one, and moves its revision so a step holding it loses.
    let second = FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "waiting"))
        .await
        .expect("recorded");
    let ended = run_of(&store, a, first).await;
    assert_eq!(ended.status, "ended");
    assert_eq!(ended.revision, 1);
    assert_eq!(
        FlowRepo::active_run(&store, a, t)
            .await
            .expect("read")
            .map(|r| r.id),
        Some(second)
    );
    // Another ticket's run is untouched.
    assert_eq!(run_of(&store, a, on_other).await.status, "waiting");
    assert_eq!(run_of(&store, a, on_other).await.revision, 0);

    // A run on a flow that is not there fails and rolls back the ending of the active run.
    let refused =
        FlowRepo::insert_run(&store, a, &new_run(t, FlowId(flow.id.0 + 1000), "running")).await;
    assert!(refused.is_err());
    assert_eq!(
        FlowRepo::active_run(&store, a, t)
            .await
            .expect("read")
            .map(|r| r.id),
        Some(second)
    );
    // A ticket that is not there fails too.
    assert!(
        FlowRepo::insert_run(
            &store,
            a,
            &new_run(TicketId(t.0 + 1000), flow.id, "running")
        )
        .await
        .is_err()
    );

    // The database itself refuses a second unfinished run of a ticket.
    let company = a.company_id().0;
    let duplicate = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query(
            "INSERT INTO flow_runs (company_id, ticket_id, flow_id, version, state, status, \
             started_at, updated_at) VALUES ($1, $2, $3, 1, '{}', 'running', $4, $4)",
        )
        .bind(company)
        .bind(t.0)
        .bind(flow.id.0)
        .bind(Utc::now())
        .execute(p)
        .await
        .map(|r| r.rows_affected())
    });
    assert!(duplicate.is_err(), "the unique partial index holds");

    // Ending the run leaves no active run, and the ticket still had one.
    assert!(
        FlowRepo::save_run(
            &store,
            a,
            second,
            0,
            &RunUpdate {
                state: "{}",
                current_node: Some("m"),
                status: "ended",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    assert_eq!(
        FlowRepo::active_run(&store, a, t).await.expect("read"),
        None
    );
    assert!(FlowRepo::ticket_had_run(&store, a, t).await.expect("read"));
    // An ended run (status `ended` from the start) is recorded and is not active.
    FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "ended"))
        .await
        .expect("recorded");
    assert_eq!(
        FlowRepo::active_run(&store, a, t).await.expect("read"),
        None
    );
}

async fn automation_concurrent_runs_of_a_ticket_leave_one_active(store: Store) {
    let (a, _) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000001").await;
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "running"))
                .await
                .expect("every start is recorded")
        }));
    }
    let mut ids = Vec::new();
    for task in tasks {
        ids.push(task.await.expect("task"));
    }
    let company = a.company_id().0;
    let active: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM flow_runs WHERE company_id = $1 AND ticket_id = $2 \
             AND status <> 'ended'",
        )
        .bind(company)
        .bind(t.0)
        .fetch_one(p)
        .await
        .expect("counted")
    });
    assert_eq!(active, 1);
    // The one left active is the last one recorded.
    assert_eq!(
        FlowRepo::active_run(&store, a, t)
            .await
            .expect("read")
            .map(|r| r.id),
        ids.iter().max().copied()
    );
}

async fn automation_runs_save_with_the_revision_check(store: Store) {
    let (a, _) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000001").await;
    let id = FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "running"))
        .await
        .expect("recorded");

    // A stale revision answers false and changes nothing.
    assert!(
        !FlowRepo::save_run(
            &store,
            a,
            id,
            7,
            &RunUpdate {
                state: "{\"x\":1}",
                current_node: Some("m"),
                status: "waiting",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    let unchanged = run_of(&store, a, id).await;
    assert_eq!(unchanged.revision, 0);
    assert_eq!(unchanged.status, "running");
    assert_eq!(unchanged.state, "{\"status\":\"running\"}");

    // The right one stores the step and bumps the revision.
    assert!(
        FlowRepo::save_run(
            &store,
            a,
            id,
            0,
            &RunUpdate {
                state: "{\"x\":1}",
                current_node: Some("m"),
                status: "waiting",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    let saved = run_of(&store, a, id).await;
    assert_eq!(saved.revision, 1);
    assert_eq!(saved.status, "waiting");
    assert_eq!(saved.state, "{\"x\":1}");
    let records = FlowRepo::runs(&store, a, flow.id, 1).await.expect("runs");
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].current_node.as_deref(), Some("m"));

    // Two steps that read revision 1: the first wins, the second loses.
    assert!(
        FlowRepo::save_run(
            &store,
            a,
            id,
            1,
            &RunUpdate {
                state: "{\"x\":2}",
                current_node: None,
                status: "running",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    assert!(
        !FlowRepo::save_run(
            &store,
            a,
            id,
            1,
            &RunUpdate {
                state: "{\"x\":3}",
                current_node: Some("z"),
                status: "ended",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    let after = run_of(&store, a, id).await;
    assert_eq!(after.revision, 2);
    assert_eq!(after.state, "{\"x\":2}");
    assert_eq!(after.status, "running");
    assert_eq!(
        FlowRepo::runs(&store, a, flow.id, 1).await.expect("runs")[0].current_node,
        None
    );

    // A step still holding a run that a newer run ended cannot revive it.
    let newer = FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "running"))
        .await
        .expect("recorded");
    assert!(
        !FlowRepo::save_run(
            &store,
            a,
            id,
            2,
            &RunUpdate {
                state: "{}",
                current_node: None,
                status: "running",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    // Even with the current revision, reviving it while the newer run is active is refused.
    let ended = run_of(&store, a, id).await;
    assert_eq!(ended.status, "ended");
    assert!(
        !FlowRepo::save_run(
            &store,
            a,
            id,
            ended.revision,
            &RunUpdate {
                state: "{}",
                current_node: None,
                status: "running",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    assert_eq!(run_of(&store, a, id).await, ended);
    assert_eq!(
        FlowRepo::active_run(&store, a, t)
            .await
            .expect("read")
            .map(|r| r.id),
        Some(newer)
    );
}

async fn automation_runs_of_another_company_are_out_of_reach(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let flow_b = FlowRepo::create(&store, b, "Fluxo B", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000001").await;
    let id = FlowRepo::insert_run(&store, a, &new_run(t, flow.id, "running"))
        .await
        .expect("recorded");
    let before = run_of(&store, a, id).await;

    assert_eq!(FlowRepo::run(&store, b, id).await.expect("read"), None);
    assert_eq!(
        FlowRepo::active_run(&store, b, t).await.expect("read"),
        None
    );
    assert!(!FlowRepo::ticket_had_run(&store, b, t).await.expect("read"));
    assert!(
        !FlowRepo::save_run(
            &store,
            b,
            id,
            0,
            &RunUpdate {
                state: "{}",
                current_node: None,
                status: "ended",
                timer: None,
                memory: None
            }
        )
        .await
        .expect("saved")
    );
    // B cannot start a run on A's ticket, not even with its own flow, and A's run stays active.
    assert!(
        FlowRepo::insert_run(&store, b, &new_run(t, flow_b.id, "running"))
            .await
            .is_err()
    );
    assert!(
        FlowRepo::insert_run(&store, b, &new_run(t, flow.id, "running"))
            .await
            .is_err()
    );
    // Nor can A start B's flow on its ticket.
    assert!(
        FlowRepo::insert_run(&store, a, &new_run(t, flow_b.id, "running"))
            .await
            .is_err()
    );
    assert_eq!(run_of(&store, a, id).await, before);
    assert_eq!(
        FlowRepo::active_run(&store, a, t)
            .await
            .expect("read")
            .map(|r| r.id),
        Some(id)
    );
}

async fn automation_bot_memory_round_trips_with_events_on_shown_changes(store: Store) {
    let (a, b) = two_companies(&store).await;
    let t = pending(&store, a, "5511900000001").await;
    assert_eq!(
        TicketRepo::bot_memory(&store, a, t).await.expect("read"),
        Some(BotMemory::default())
    );
    assert_eq!(
        TicketRepo::bot_memory(&store, b, t).await.expect("read"),
        None
    );
    let updates = ticket_updates(&store, a).await.len();

    // Only the bot's own state: stored, no event (the inbox shows nothing of it).
    let at = Utc::now().trunc_subsecs(6);
    let menu = BotMemory {
        bot_state: "{\"stage\":\"menu\",\"path\":[1]}".into(),
        last_bot_message_at: Some(at),
        is_bot: false,
        use_integration: false,
        integration: String::new(),
    };
    assert!(
        TicketRepo::set_bot_memory(&store, a, t, &menu)
            .await
            .expect("stored")
    );
    assert_eq!(
        TicketRepo::bot_memory(&store, a, t).await.expect("read"),
        Some(menu.clone())
    );
    assert_eq!(ticket_updates(&store, a).await.len(), updates);

    // `isBot` changes: a ticket update event showing it.
    let waiting = BotMemory {
        is_bot: true,
        ..menu.clone()
    };
    assert!(
        TicketRepo::set_bot_memory(&store, a, t, &waiting)
            .await
            .expect("stored")
    );
    let events = ticket_updates(&store, a).await;
    assert_eq!(events.len(), updates + 1);
    let shown = events.last().expect("an update");
    assert_eq!(shown.id, t);
    assert!(shown.is_bot);
    assert!(!shown.use_integration);
    let read = TicketRepo::get(&store, a, t)
        .await
        .expect("read")
        .expect("found");
    assert!(read.is_bot, "the read model's flag comes from the column");

    // The same flags with another state: no event.
    let next = BotMemory {
        bot_state: "{\"stage\":\"menu\",\"path\":[1,2]}".into(),
        last_bot_message_at: None,
        ..waiting.clone()
    };
    assert!(
        TicketRepo::set_bot_memory(&store, a, t, &next)
            .await
            .expect("stored")
    );
    assert_eq!(
        TicketRepo::bot_memory(&store, a, t).await.expect("read"),
        Some(next.clone())
    );
    assert_eq!(ticket_updates(&store, a).await.len(), updates + 1);

    // `useIntegration` changes, with the integration's session: an event; the session is kept.
    let flow = BotMemory {
        is_bot: false,
        use_integration: true,
        integration: "{\"kind\":\"assistant\",\"flowId\":3,\"version\":1,\"nodeId\":\"ai\"}".into(),
        ..next.clone()
    };
    assert!(
        TicketRepo::set_bot_memory(&store, a, t, &flow)
            .await
            .expect("stored")
    );
    let events = ticket_updates(&store, a).await;
    assert_eq!(events.len(), updates + 2);
    let shown = events.last().expect("an update");
    assert!(!shown.is_bot);
    assert!(shown.use_integration);
    assert_eq!(
        TicketRepo::bot_memory(&store, a, t).await.expect("read"),
        Some(flow.clone())
    );

    // B changes nothing of A's ticket and gets no events.
    assert!(
        !TicketRepo::set_bot_memory(&store, b, t, &BotMemory::default())
            .await
            .expect("answered")
    );
    assert_eq!(
        TicketRepo::bot_memory(&store, a, t).await.expect("read"),
        Some(flow)
    );
    assert_eq!(ticket_updates(&store, a).await.len(), updates + 2);
    assert!(ticket_updates(&store, b).await.is_empty());
}

/// Sets a user's presence directly.
async fn set_online(store: &Store, user: UserId, online: bool) {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("UPDATE users SET online = $1 WHERE id = $2")
            .bind(online)
            .bind(user.0)
            .execute(p)
            .await
            .expect("user updated")
            .rows_affected()
    });
}

/// Puts a user in a queue, as `scope`'s row.
async fn join_queue(store: &Store, scope: TenantScope, user: UserId, queue: i64) {
    let company = scope.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("INSERT INTO user_queues (company_id, user_id, queue_id) VALUES ($1, $2, $3)")
            .bind(company)
            .bind(user.0)
            .bind(queue)
            .execute(p)
            .await
            .expect("user queue inserted")
            .rows_affected()
    });
}

/// A ticket log written directly, as `scope`'s row.
async fn log(
    store: &Store,
    scope: TenantScope,
    ticket: TicketId,
    kind: &str,
    user: Option<UserId>,
    queue: i64,
) {
    let company = scope.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query(
            "INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, queue_id) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(company)
        .bind(ticket.0)
        .bind(kind)
        .bind(user.map(|u| u.0))
        .bind(queue)
        .execute(p)
        .await
        .expect("log inserted")
        .rows_affected()
    });
}

async fn automation_queue_snapshot_counts_the_queue_of_the_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let sales = queue(&store, a, "Vendas", "#111111", None).await;
    let support = queue(&store, a, "Suporte", "#222222", None).await;
    let empty = queue(&store, a, "Vazia", "#333333", None).await;
    let ana = user(&store, a, "ana@a.example").await;
    let bia = user(&store, a, "bia@a.example").await;
    let caio = user(&store, a, "caio@a.example").await; // in no queue
    let outsider = user(&store, b, "ze@b.example").await;
    set_online(&store, ana, true).await;
    set_online(&store, outsider, true).await;
    join_queue(&store, a, ana, sales).await;
    join_queue(&store, a, bia, sales).await;
    join_queue(&store, a, caio, support).await;
    // A row of company B naming A's queue must not make B's user an attendant of it.
    join_queue(&store, b, outsider, sales).await;

    // Waiting in Vendas before the new ticket: only `older`.
    let older = ticket(&store, a, "5511900000001", "pending", Some(sales), None).await;
    ticket(
        &store,
        a,
        "5511900000002",
        "pending",
        Some(sales),
        Some(ana),
    )
    .await;
    ticket(&store, a, "5511900000003", "pending", Some(support), None).await;
    ticket(&store, a, "5511900000004", "closed", Some(sales), None).await;
    ticket(&store, a, "5511900000005", "pending", None, None).await;
    // B's pending ticket pointing at A's queue does not count for A.
    ticket(&store, b, "5511900000006", "pending", Some(sales), None).await;
    // Open tickets: Ana holds two (one in another queue), Bia one; closed ones do not count.
    let open_ana = ticket(&store, a, "5511900000007", "open", Some(sales), Some(ana)).await;
    ticket(&store, a, "5511900000008", "open", Some(support), Some(ana)).await;
    let open_bia = ticket(&store, a, "5511900000009", "open", Some(sales), Some(bia)).await;
    ticket(&store, a, "5511900000010", "closed", Some(sales), Some(bia)).await;
    let new = ticket(&store, a, "5511900000011", "pending", Some(sales), None).await;
    // Younger than the new ticket: not ahead of it.
    ticket(&store, a, "5511900000012", "pending", Some(sales), None).await;

    // Logs: Bia was given a ticket, then Ana (the newest `open` of Vendas); later logs of other
    // kinds, other queues and company B do not count.
    log(&store, a, open_bia, "open", Some(bia), sales).await;
    log(&store, a, open_ana, "open", Some(ana), sales).await;
    log(&store, a, open_ana, "open", None, sales).await;
    log(&store, a, open_bia, "transfered", Some(bia), sales).await;
    log(&store, a, open_bia, "open", Some(bia), support).await;
    let b_ticket = ticket(&store, b, "5511900000013", "open", None, Some(outsider)).await;
    log(&store, b, b_ticket, "open", Some(outsider), sales).await;

    let snapshot = TicketRepo::queue_snapshot(&store, a, QueueId(sales), new)
        .await
        .expect("snapshot");
    assert_eq!(
        snapshot,
        QueueSnapshot {
            queue_id: QueueId(sales),
            waiting: 1,
            attendants: vec![
                Candidate {
                    user_id: ana,
                    online: true,
                    open_tickets: 2,
                },
                Candidate {
                    user_id: bia,
                    online: false,
                    open_tickets: 1,
                },
            ],
            last_assigned: Some(ana),
        }
    );
    // The first ticket of the queue has nobody ahead.
    assert_eq!(
        TicketRepo::queue_snapshot(&store, a, QueueId(sales), older)
            .await
            .expect("snapshot")
            .waiting,
        0
    );
    // Suporte: one waiting ahead of the newest ticket, Caio with nothing open, Bia last.
    let support_snapshot = TicketRepo::queue_snapshot(&store, a, QueueId(support), new)
        .await
        .expect("snapshot");
    assert_eq!(support_snapshot.waiting, 1);
    assert_eq!(
        support_snapshot.attendants,
        [Candidate {
            user_id: caio,
            online: false,
            open_tickets: 0,
        }]
    );
    assert_eq!(support_snapshot.last_assigned, Some(bia));
    assert_eq!(
        TicketRepo::queue_snapshot(&store, a, QueueId(empty), new)
            .await
            .expect("snapshot"),
        QueueSnapshot::new(QueueId(empty))
    );

    // Company B asking about A's queue sees only its own rows, none of A's.
    let from_b = TicketRepo::queue_snapshot(&store, b, QueueId(sales), new)
        .await
        .expect("snapshot");
    assert_eq!(from_b.waiting, 1);
    assert_eq!(
        from_b.attendants,
        [Candidate {
            user_id: outsider,
            online: true,
            open_tickets: 1,
        }]
    );
    assert_eq!(from_b.last_assigned, Some(outsider));
}

/// A run's timer is a `flowTimer` job stored in the run's own transaction: with the first step,
/// with a winning save, never with a losing save, and never in another company.
async fn automation_run_timers_commit_with_the_run(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000001").await;
    let at = Utc::now().trunc_subsecs(0) + chrono::TimeDelta::seconds(30);
    let id = FlowRepo::insert_run(
        &store,
        a,
        &NewFlowRun {
            timer: Some(RunTimer { at, timer: 0 }),
            memory: None,
            ..new_run(t, flow.id, "waiting")
        },
    )
    .await
    .expect("recorded");
    let timers = |jobs: Vec<chatflow_core::jobs::Job>| -> Vec<(JobPayload, chrono::DateTime<Utc>)> {
        jobs.into_iter().map(|j| (j.payload, j.run_at)).collect()
    };
    let first = timers(JobQueue::pending(&store, a).await.expect("jobs"));
    assert_eq!(
        first,
        vec![(
            JobPayload::FlowTimer {
                ticket_id: t,
                run_id: id,
                timer: 0
            },
            at
        )]
    );
    // A losing save stores no timer; the winning one does.
    let next = RunUpdate {
        state: "{}",
        current_node: Some("w"),
        status: "waiting",
        timer: Some(RunTimer { at, timer: 1 }),
        memory: None,
    };
    assert!(
        !FlowRepo::save_run(&store, a, id, 5, &next)
            .await
            .expect("saved")
    );
    assert_eq!(JobQueue::pending(&store, a).await.expect("jobs").len(), 1);
    assert!(
        FlowRepo::save_run(&store, a, id, 0, &next)
            .await
            .expect("saved")
    );
    let both = timers(JobQueue::pending(&store, a).await.expect("jobs"));
    assert_eq!(both.len(), 2);
    assert!(both.iter().any(|(p, _)| *p
        == JobPayload::FlowTimer {
            ticket_id: t,
            run_id: id,
            timer: 1
        }));
    // Company B can neither save A's run nor gets a timer for it.
    assert!(
        !FlowRepo::save_run(&store, b, id, 1, &next)
            .await
            .expect("saved")
    );
    assert!(JobQueue::pending(&store, b).await.expect("jobs").is_empty());
}

/// A run's bot memory commits with the run: on insert, and on a save that wins the revision
/// check; a losing save (or another company's) leaves the memory as it was.
async fn automation_bot_memory_commits_with_the_run(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t = pending(&store, a, "5511900000002").await;
    let memory = |is_bot: bool| BotMemory {
        is_bot,
        use_integration: true,
        ..BotMemory::default()
    };
    let stored = |store: Store| async move {
        TicketRepo::bot_memory(&store, a, t)
            .await
            .expect("memory")
            .expect("ticket")
    };
    let id = FlowRepo::insert_run(
        &store,
        a,
        &NewFlowRun {
            memory: Some(memory(true)),
            ..new_run(t, flow.id, "waiting")
        },
    )
    .await
    .expect("recorded");
    assert_eq!(stored(store.clone()).await, memory(true));
    let released = memory(false);
    let next = |memory| RunUpdate {
        state: "{}",
        current_node: Some("w"),
        status: "waiting",
        timer: None,
        memory: Some(memory),
    };
    assert!(
        !FlowRepo::save_run(&store, a, id, 7, &next(&released))
            .await
            .expect("saved")
    );
    assert!(
        !FlowRepo::save_run(&store, b, id, 0, &next(&released))
            .await
            .expect("saved")
    );
    assert_eq!(
        stored(store.clone()).await,
        memory(true),
        "losing saves write nothing"
    );
    assert!(
        FlowRepo::save_run(&store, a, id, 0, &next(&released))
            .await
            .expect("saved")
    );
    assert_eq!(stored(store.clone()).await, released);
}

/// An inbound batch's automation reads its tickets' bot memories and flow runs in one go: the
/// same answers as the one-ticket reads, and nothing of another company's tickets.
async fn automation_a_batch_reads_its_tickets_memories_and_runs_at_once(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let other_flow = FlowRepo::create(&store, b, "Fluxo B", None)
        .await
        .expect("created");
    // A ticket whose first run ended when a second began, one whose only run ended, one that
    // never had one; and company B's ticket with a run of its own.
    let running = pending(&store, a, "5511900000101").await;
    let ended = pending(&store, a, "5511900000102").await;
    let never = pending(&store, a, "5511900000103").await;
    let theirs = pending(&store, b, "5511900000104").await;
    for run in [
        new_run(running, flow.id, "running"),
        new_run(running, flow.id, "waiting"),
        new_run(ended, flow.id, "ended"),
    ] {
        FlowRepo::insert_run(&store, a, &run)
            .await
            .expect("recorded");
    }
    FlowRepo::insert_run(&store, b, &new_run(theirs, other_flow.id, "running"))
        .await
        .expect("recorded");
    let memory = BotMemory {
        bot_state: "{\"stage\":\"menu\",\"path\":[2]}".into(),
        last_bot_message_at: Some(Utc::now().trunc_subsecs(6)),
        is_bot: false,
        use_integration: false,
        integration: String::new(),
    };
    assert!(
        TicketRepo::set_bot_memory(&store, a, running, &memory)
            .await
            .expect("stored")
    );

    let asked = [running, ended, never, theirs];
    let runs = FlowRepo::runs_of_tickets(&store, a, &asked)
        .await
        .expect("read");
    let active = FlowRepo::active_run(&store, a, running)
        .await
        .expect("read")
        .expect("the waiting run");
    assert_eq!(active.status, "waiting");
    assert_eq!(runs.active, vec![active], "the newest unfinished run, once");
    let mut had = runs.had_run.clone();
    had.sort();
    assert_eq!(had, vec![running, ended]);

    let mut memories = TicketRepo::bot_memories(&store, a, &asked)
        .await
        .expect("read");
    memories.sort_by_key(|(id, _)| *id);
    let mut expected = Vec::new();
    for id in [running, ended, never] {
        let one = TicketRepo::bot_memory(&store, a, id)
            .await
            .expect("read")
            .expect("the company's");
        expected.push((id, one));
    }
    expected.sort_by_key(|(id, _)| *id);
    assert_eq!(
        memories, expected,
        "the one-ticket answers, B's ticket left out"
    );
    assert_eq!(
        memories
            .iter()
            .find(|(id, _)| *id == running)
            .map(|(_, m)| m),
        Some(&memory)
    );
    assert!(
        TicketRepo::bot_memories(&store, a, &[])
            .await
            .expect("nothing to read")
            .is_empty()
    );
}
