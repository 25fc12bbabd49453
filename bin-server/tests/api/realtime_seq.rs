//! Realtime sequence numbers and replay: every event carries its company's `seq`, sockets hear
//! only their own company, `sync {lastSeq}` returns exactly what a socket missed (or asks for a
//! refresh when the log no longer holds it), and events written outside the server's request
//! path reach sockets through the dispatcher's polling.

use std::time::Duration;

use chatflow_core::TenantScope;
use chatflow_core::events::{Event, SaveAction};
use chatflow_core::ids::{ContactId, QuickMessageId, TagId};
use chatflow_core::inbox::model::Tag;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp};
use crate::socket_client::SocketClient;

app_tests!(
    events_carry_increasing_sequence_numbers,
    a_company_never_receives_another_company_s_events,
    sync_after_a_disconnect_returns_exactly_the_missed_events,
    sync_too_far_behind_asks_for_a_refresh,
    events_written_outside_the_server_reach_sockets_by_polling,
    ticket_events_reach_only_who_may_see_the_ticket_masked_under_lgpd,
);

/// Generous: the suite runs many servers at once on two cores; passing runs never wait this long.
const WAIT: Duration = Duration::from_secs(15);
const QUIET: Duration = Duration::from_millis(700);

fn admin() -> MemberOptions {
    MemberOptions {
        admin: true,
        ..Default::default()
    }
}

/// Sets a company setting through the API (each change is one `company-{id}-settings` event).
async fn set(app: &TestApp, token: &str, key: &str, value: &str) {
    let response = app
        .put(
            &format!("/settings/{key}"),
            token,
            &json!({ "value": value }),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK, "PUT /settings/{key}");
}

fn seq_of(payload: &Value) -> i64 {
    payload["seq"].as_i64().expect("every payload carries seq")
}

async fn events_carry_increasing_sequence_numbers(app: TestApp) {
    let company = app.company("Acme").await;
    let boss = app.member(company, "boss@acme.test", admin()).await;
    let token = app.token_of(&boss).await;
    let mut socket = SocketClient::with_token(&app.host, &token).await;

    // The sign-in was logged (seq 1 at least); `sync` answers the dispatcher's emitted head,
    // which reaches it once the dispatcher has woken for that write.
    wait_until_emitted(&mut socket, 1).await;
    let current = socket
        .emit_with_ack("sync", json!({ "lastSeq": -1 }), WAIT)
        .await;
    let start = current["seq"].as_i64().expect("the current seq");

    let name = format!("company-{company}-settings");
    let mut seen = Vec::new();
    for value in ["enabled", "disabled", "enabled"] {
        set(&app, &token, "userRating", value).await;
        let event = socket.expect_event(&name, WAIT).await;
        assert_eq!(event["setting"]["value"], value);
        seen.push(seq_of(&event));
    }
    assert!(seen[0] > start, "{seen:?} after {start}");
    assert!(
        seen.windows(2).all(|w| w[1] == w[0] + 1),
        "gap-free: {seen:?}"
    );

    // A user event also carries the next number.
    let renamed = app
        .put(
            &format!("/users/{}", boss.id),
            &token,
            &json!({"name": "Boss Two"}),
        )
        .await;
    assert_eq!(renamed.status(), StatusCode::OK);
    let event = socket
        .expect_event(&format!("company-{company}-user"), WAIT)
        .await;
    assert_eq!(seq_of(&event), seen[2] + 1);
}

async fn a_company_never_receives_another_company_s_events(app: TestApp) {
    let a = app.company("Alpha").await;
    let b = app.company("Beta").await;
    let a_boss = app.member(a, "boss@alpha.test", admin()).await;
    let b_boss = app.member(b, "boss@beta.test", admin()).await;
    let a_token = app.token_of(&a_boss).await;
    let b_token = app.token_of(&b_boss).await;
    let mut a_socket = SocketClient::with_token(&app.host, &a_token).await;
    let mut b_socket = SocketClient::with_token(&app.host, &b_token).await;
    b_socket.emit_bare("joinNotification").await;
    b_socket.emit("joinTickets", json!("open")).await;
    // B's head, once the dispatcher has caught up with it.
    let b_start = app
        .ports
        .event_log
        .append(TenantScope::new(b), &[])
        .await
        .expect("B's head");
    wait_until_emitted(&mut b_socket, b_start).await;

    // Through the API, and straight into A's log (every audience kind).
    set(&app, &a_token, "userRating", "enabled").await;
    let scope = TenantScope::new(a);
    app.ports
        .event_log
        .append(
            scope,
            &[
                Event::TagDeleted { tag_id: TagId(77) },
                Event::QuickMessageDeleted {
                    id: QuickMessageId(5),
                    private_to: Some(b_boss.id),
                },
                Event::SignedIn {
                    user_id: b_boss.id,
                    session_id: uuid::Uuid::new_v4(),
                },
            ],
        )
        .await
        .expect("appended");

    let a_heard = a_socket
        .expect_event(&format!("company-{a}-tag"), WAIT)
        .await;
    assert_eq!(a_heard["tagId"], 77);
    // B may still hear its own earlier events (its fixtures); never one of A's.
    let leaked = b_socket.drain(QUIET).await;
    assert!(
        leaked
            .iter()
            .all(|(name, _)| name.starts_with(&format!("company-{b}-"))),
        "company B received {leaked:?}"
    );

    // Replay is per company too: B's log has none of A's events.
    let replay = b_socket
        .emit_with_ack("sync", json!({ "lastSeq": b_start }), WAIT)
        .await;
    assert_eq!(replay["events"], json!([]), "{replay}");
    let replay = b_socket
        .emit_with_ack("sync", json!({ "lastSeq": 0 }), WAIT)
        .await;
    let names: Vec<&str> = replay["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["event"].as_str().expect("a name"))
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with(&format!("company-{b}-"))),
        "{names:?}"
    );
}

async fn sync_after_a_disconnect_returns_exactly_the_missed_events(app: TestApp) {
    let company = app.company("Acme").await;
    let boss = app.member(company, "boss@acme.test", admin()).await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let boss_token = app.token_of(&boss).await;
    let ana_token = app.token_of(&ana).await;
    // The boss stays connected, to know when the dispatcher has emitted everything.
    let mut watcher = SocketClient::with_token(&app.host, &boss_token).await;
    let settings = format!("company-{company}-settings");

    let mut socket = SocketClient::with_token(&app.host, &ana_token).await;
    set(&app, &boss_token, "userRating", "enabled").await;
    let last_seen = seq_of(&socket.expect_event(&settings, WAIT).await);
    watcher.expect_event(&settings, WAIT).await;
    drop(socket);
    // Ana's last socket left: she is marked offline (a user event she misses).
    let offline = watcher
        .expect_event(&format!("company-{company}-user"), WAIT)
        .await;
    assert_eq!(offline["user"]["online"], false);

    // While Ana is away: two settings changes, and the boss signs in again (an event for the
    // boss's sockets only, which Ana must not receive in the replay either).
    set(&app, &boss_token, "userRating", "disabled").await;
    let _ = app.token_of(&boss).await;
    set(&app, &boss_token, "userRating", "enabled").await;
    let mut expected = vec![(format!("company-{company}-user"), offline)];
    while expected.len() < 3 {
        let (name, payload) = watcher.next_event(WAIT).await.expect("the watcher hears");
        if name == settings {
            expected.push((name, payload));
        }
    }

    let mut socket = SocketClient::with_token(&app.host, &ana_token).await;
    let replay = socket
        .emit_with_ack("sync", json!({ "lastSeq": last_seen }), WAIT)
        .await;
    let events = replay["events"].as_array().expect("events").clone();
    assert_eq!(events.len(), 3, "exactly the missed events: {replay}");
    for (got, (name, payload)) in events.iter().zip(&expected) {
        assert_eq!(got["event"], json!(name));
        assert_eq!(&got["payload"], payload);
    }
    assert_eq!(seq_of(&events[0]["payload"]), last_seen + 1);
    assert_eq!(seq_of(&events[1]["payload"]), last_seen + 2);
    // The boss's sign-in sits between the settings changes, invisible to Ana.
    assert_eq!(seq_of(&events[2]["payload"]), last_seen + 4);
    assert_eq!(replay["seq"], json!(last_seen + 4));

    // Up to date: nothing more; and the socket still hears live events.
    let replay = socket
        .emit_with_ack("sync", json!({ "lastSeq": last_seen + 4 }), WAIT)
        .await;
    assert_eq!(replay["events"], json!([]));
    set(&app, &boss_token, "userRating", "disabled").await;
    let live = socket.expect_event(&settings, WAIT).await;
    assert_eq!(seq_of(&live), last_seen + 5);
}

async fn sync_too_far_behind_asks_for_a_refresh(app: TestApp) {
    let company = app.company("Acme").await;
    let boss = app.member(company, "boss@acme.test", admin()).await;
    let token = app.token_of(&boss).await;
    let mut socket = SocketClient::with_token(&app.host, &token).await;
    set(&app, &token, "userRating", "enabled").await;
    let seen = seq_of(
        &socket
            .expect_event(&format!("company-{company}-settings"), WAIT)
            .await,
    );

    // More missed events than one answer holds.
    let scope = TenantScope::new(company);
    let many: Vec<Event> = (0..=chatflow_server::realtime::SYNC_LIMIT)
        .map(|i| Event::ContactDelete {
            contact_id: ContactId(i as i64),
        })
        .collect();
    app.ports
        .event_log
        .append(scope, &many)
        .await
        .expect("appended");
    let head = app
        .ports
        .event_log
        .append(scope, &[])
        .await
        .expect("the head");
    wait_until_emitted(&mut socket, head).await;
    let replay = socket
        .emit_with_ack("sync", json!({ "lastSeq": seen }), WAIT)
        .await;
    assert_eq!(replay, json!({ "refresh": true }));

    // Pruned away: the log no longer holds what came after `seen`.
    let pruned = app
        .ports
        .event_log
        .prune(chrono::Utc::now() + chrono::Duration::hours(1), 0)
        .await
        .expect("pruned");
    assert!(pruned > 0);
    let replay = socket
        .emit_with_ack("sync", json!({ "lastSeq": seen + 5 }), WAIT)
        .await;
    assert_eq!(replay, json!({ "refresh": true }));
}

/// Waits until the dispatcher has emitted the company's events up to `head`.
async fn wait_until_emitted(socket: &mut SocketClient, head: i64) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = socket.emit_with_ack("sync", json!({}), WAIT).await;
        if now["seq"].as_i64().expect("seq") >= head {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "emitted up to {head}: {now}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn events_written_outside_the_server_reach_sockets_by_polling(app: TestApp) {
    let company = app.company("Acme").await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(company, "bob@acme.test", MemberOptions::default())
        .await;
    let mut ana_socket = SocketClient::with_token(&app.host, &app.token_of(&ana).await).await;
    let mut bob_socket = SocketClient::with_token(&app.host, &app.token_of(&bob).await).await;
    let _ = bob_socket.drain(QUIET).await;

    // Written with the store directly, as the CLI or another server would: nothing wakes the
    // dispatcher, which finds the events by polling.
    let scope = TenantScope::new(company);
    let head = app
        .ports
        .event_log
        .append(
            scope,
            &[
                Event::TagSaved {
                    action: SaveAction::Create,
                    tag: Box::new(Tag {
                        id: TagId(3),
                        name: "Zé".into(),
                        color: "#A4CCCC".into(),
                        kanban: 0,
                    }),
                },
                Event::SignedIn {
                    user_id: ana.id,
                    session_id: uuid::Uuid::new_v4(),
                },
            ],
        )
        .await
        .expect("appended");

    let tag = ana_socket
        .expect_event(&format!("company-{company}-tag"), WAIT)
        .await;
    assert_eq!(tag["tag"]["name"], "Zé");
    assert_eq!(seq_of(&tag), head - 1);
    let auth = ana_socket
        .expect_event(&format!("company-{company}-auth"), WAIT)
        .await;
    assert_eq!(seq_of(&auth), head);

    let heard = bob_socket.drain(QUIET).await;
    assert_eq!(heard.len(), 1, "Bob hears the tag only: {heard:?}");
    assert_eq!(heard[0].0, format!("company-{company}-tag"));
}

/// A ticket as the log stores it (only the event log is involved: no ticket rows needed).
fn ticket(company: chatflow_core::CompanyId, id: i64, owner: Option<i64>) -> Event {
    let ticket = json!({
        "id": id, "uuid": format!("00000000-0000-4000-8000-{id:012}"), "companyId": company.0,
        "status": "pending", "unreadMessages": 1, "lastMessage": "Olá, tudo bem?",
        "isGroup": false, "isBot": false, "channel": "whatsapp", "userId": owner,
        "queueId": null, "whatsappId": null, "contactId": 77, "amountUsedBotQueues": 0,
        "useIntegration": false, "isTransfered": false,
        "contact": {"id": 77, "name": "Zé", "number": "5511987654321", "urlPicture": null,
                    "channel": "whatsapp", "isGroup": false, "active": true, "tags": []},
        "queue": null, "user": null, "whatsapp": null, "tags": [],
        "createdAt": "2026-11-23T10:00:00Z", "updatedAt": "2026-11-23T10:00:00Z",
    });
    Event::TicketUpdate {
        ticket: Box::new(serde_json::from_value(ticket).expect("a ticket")),
    }
}

async fn ticket_events_reach_only_who_may_see_the_ticket_masked_under_lgpd(app: TestApp) {
    let company = app.company("Acme").await;
    let boss = app.member(company, "boss@acme.test", admin()).await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(company, "bob@acme.test", MemberOptions::default())
        .await;
    let boss_token = app.token_of(&boss).await;
    set(&app, &boss_token, "enableLGPD", "enabled").await;
    set(&app, &boss_token, "lgpdHideNumber", "enabled").await;
    let mut boss_socket = SocketClient::with_token(&app.host, &boss_token).await;
    let mut ana_socket = SocketClient::with_token(&app.host, &app.token_of(&ana).await).await;
    let mut bob_socket = SocketClient::with_token(&app.host, &app.token_of(&bob).await).await;
    let before = app
        .ports
        .event_log
        .append(TenantScope::new(company), &[])
        .await
        .expect("the head");
    wait_until_emitted(&mut ana_socket, before).await;
    // Rooms decide nothing: Bob asking for the ticket's room changes nothing.
    bob_socket.emit("joinChatBox", json!(9002)).await;
    bob_socket.emit("joinTickets", json!("pending")).await;

    // 9001: no queue, nobody's (plain users without allTicket may not see it);
    // 9002: Ana's own ticket.
    let head = app
        .ports
        .event_log
        .append(
            TenantScope::new(company),
            &[
                ticket(company, 9001, None),
                ticket(company, 9002, Some(ana.id.0)),
            ],
        )
        .await
        .expect("appended");

    let name = format!("company-{company}-ticket");
    let first = boss_socket.expect_event(&name, WAIT).await;
    let second = boss_socket.expect_event(&name, WAIT).await;
    assert_eq!(first["ticket"]["id"], 9001);
    assert_eq!(second["ticket"]["id"], 9002);
    assert_eq!(
        second["ticket"]["contact"]["number"], "5511987654321",
        "admins see numbers"
    );

    let own = ana_socket.expect_event(&name, WAIT).await;
    assert_eq!(own["ticket"]["id"], 9002);
    assert_eq!(own["seq"], json!(head));
    assert_eq!(own["ticket"]["contact"]["number"], "5511*******21");
    let more = ana_socket.drain(QUIET).await;
    assert!(more.iter().all(|(n, _)| n != &name), "{more:?}");
    let heard = bob_socket.drain(QUIET).await;
    assert!(heard.iter().all(|(n, _)| n != &name), "Bob heard {heard:?}");

    // The replay applies the same rules.
    let replay = ana_socket
        .emit_with_ack("sync", json!({ "lastSeq": before }), WAIT)
        .await;
    let events = replay["events"].as_array().expect("events");
    assert_eq!(events.len(), 1, "{replay}");
    assert_eq!(events[0]["payload"], own);
}
