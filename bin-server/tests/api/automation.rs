//! Flows and queue routing on real conversations, on both engines, through simulated phones: the
//! welcome flow greets a new contact, answers its menu and moves the ticket to the chosen queue;
//! an interval is a durable job that resumes the run; phrase campaigns trigger only on their
//! connection and phrase; the fallback flow starts for a known contact's new conversation; the
//! queue menu routes without flows; out-of-hours replies; company B's phones never start company
//! A's flows.
//!
//! "Nothing more is sent" is checked once the sandbox has delivered the phone's message
//! ([`TestApp::inbound_settled`]: a message is acknowledged only after its automation returned),
//! never after a sleep. The interval test runs on a manual clock and runs the due jobs itself.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, json_of};
use crate::sandbox_phones::phone;
use crate::tickets::{Inbox, inbox, inbox_tests};

inbox_tests!(
    welcome_flow_greets_answers_the_menu_and_moves_to_the_queue,
    phrase_campaigns_trigger_on_their_connection_and_phrase_only,
    the_queue_menu_routes_a_contact_without_flows,
    out_of_hours_contacts_get_the_message_once,
    another_company_never_runs_these_flows,
);

mod clocked {
    crate::clocked_tests!(an_interval_waits_as_a_durable_job_and_resumes);
    use super::*;
}

/// Creates a queue; answers its id.
pub(crate) async fn queue(
    app: &TestApp,
    inbox: &Inbox,
    name: &str,
    color: &str,
    greeting: &str,
) -> i64 {
    let created = json_of(
        app.post(
            "/queue",
            &inbox.admin,
            &json!({"name": name, "color": color, "greetingMessage": greeting}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    created["id"].as_i64().expect("queue id")
}

/// Creates a flow with `graph` as its draft and publishes it; answers its id.
pub(crate) async fn published_flow(app: &TestApp, inbox: &Inbox, name: &str, graph: Value) -> i64 {
    let created = json_of(
        app.post("/flowbuilder", &inbox.admin, &json!({"name": name}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let id = created["id"].as_i64().expect("flow id");
    let mut body = graph;
    body["idFlow"] = json!(id);
    json_of(
        app.post("/flowbuilder/flow", &inbox.admin, &body).await,
        StatusCode::OK,
    )
    .await;
    json_of(
        app.post(
            &format!("/flowbuilder/{id}/publish"),
            &inbox.admin,
            &json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    id
}

/// start → message → menu (1 Vendas → ticket node to `sales`; 2 Suporte → interval → message).
fn welcome_graph(sales: i64, seconds: u32) -> Value {
    json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "hi", "type": "message", "position": {"x": 0, "y": 100},
             "data": {"label": "Olá {nome}, bem-vindo!"}},
            {"id": "menu", "type": "menu", "position": {"x": 0, "y": 200},
             "data": {"message": "Como podemos ajudar?",
                      "arrayOption": [{"number": 1, "value": "Vendas"}, {"number": 2, "value": "Suporte"}]}},
            {"id": "sales", "type": "ticket", "position": {"x": 0, "y": 300}, "data": {"queue": sales}},
            {"id": "wait", "type": "interval", "position": {"x": 200, "y": 300}, "data": {"sec": seconds}},
            {"id": "bye", "type": "message", "position": {"x": 200, "y": 400},
             "data": {"label": "Obrigado pela espera"}}
        ],
        "connections": [
            {"id": "e1", "source": "1", "target": "hi"},
            {"id": "e2", "source": "hi", "target": "menu"},
            {"id": "e3", "source": "menu", "sourceHandle": "a1", "target": "sales"},
            {"id": "e4", "source": "menu", "sourceHandle": "a2", "target": "wait"},
            {"id": "e5", "source": "wait", "target": "bye"}
        ]
    })
}

/// start → one message.
fn one_message_graph(text: &str) -> Value {
    json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "m", "type": "message", "position": {"x": 0, "y": 100}, "data": {"label": text}}
        ],
        "connections": [{"id": "e1", "source": "1", "target": "m"}]
    })
}

/// Replaces the connection's routing fields with `fields` (and its name).
pub(crate) async fn configure_connection(app: &TestApp, inbox: &Inbox, fields: Value) {
    let mut body = json!({"name": "Line", "isDefault": true});
    for (key, value) in fields.as_object().expect("an object") {
        body[key] = value.clone();
    }
    json_of(
        app.put(
            &format!("/whatsapp/{}", inbox.connection),
            &inbox.admin,
            &body,
        )
        .await,
        StatusCode::OK,
    )
    .await;
}

/// What phone `to` received from the connection, once `ready` holds (panics after 10 s).
pub(crate) async fn received_when(
    app: &TestApp,
    inbox: &Inbox,
    to: &str,
    ready: impl Fn(&[String]) -> bool,
) -> Vec<String> {
    let mut last = Vec::new();
    for _ in 0..100 {
        let got = json_of(
            app.get(
                &format!("/sandbox/{}/inbox?to={to}", inbox.connection),
                &inbox.admin,
            )
            .await,
            StatusCode::OK,
        )
        .await;
        last = got
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|m| m["body"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        if ready(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("phone {to} never got what was expected: {last:?}");
}

/// The ticket of contact `number` in the company's list (any status), once `ready` holds.
pub(crate) async fn ticket_when(
    app: &TestApp,
    inbox: &Inbox,
    number: &str,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        let page = json_of(
            app.get("/tickets?showAll=true", &inbox.admin).await,
            StatusCode::OK,
        )
        .await;
        if let Some(ticket) = page["tickets"].as_array().and_then(|list| {
            list.iter()
                .find(|t| t["contact"]["number"] == number)
                .cloned()
        }) {
            if ready(&ticket) {
                return ticket;
            }
            last = ticket;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the ticket of {number} never got ready: {last}");
}

pub(crate) async fn say(app: &TestApp, inbox: &Inbox, from: &str, body: &str) {
    phone(
        app,
        inbox,
        json!({"from": from, "name": "Maria Souza", "body": body}),
    )
    .await;
}

async fn log_types(app: &TestApp, inbox: &Inbox, ticket: &Value) -> Vec<String> {
    let logs = json_of(
        app.get(
            &format!("/tickets-log/{}", ticket["id"].as_i64().expect("id")),
            &inbox.admin,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    logs.as_array()
        .expect("a list")
        .iter()
        .map(|l| l["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn welcome_flow_greets_answers_the_menu_and_moves_to_the_queue(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let sales = queue(&app, &a, "Vendas", "#ff0000", "").await;
    let flow = published_flow(&app, &a, "Boas-vindas", welcome_graph(sales, 5)).await;
    configure_connection(&app, &a, json!({"flowIdWelcome": flow})).await;

    let maria = "5511987710001";
    say(&app, &a, maria, "oi").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 2).await;
    assert_eq!(got[0], "Olá Maria Souza, bem-vindo!");
    assert!(got[1].contains("Como podemos ajudar?"), "{got:?}");
    assert!(got[1].contains("Vendas"), "{got:?}");
    // The greeting and the menu come from two nodes and are stored in one write: their
    // events are next to each other, with the ticket's update once after them.
    app.inbound_settled().await;
    let log = app
        .ports
        .event_log
        .read(chatflow_core::TenantScope::new(a.company), 0, 1000)
        .await
        .expect("the company's events");
    let bot_texts: Vec<(i64, String)> = log
        .iter()
        .filter_map(|e| match &e.event {
            chatflow_core::events::Event::AppMessage {
                action: chatflow_core::events::MessageAction::Create,
                message,
                ..
            } if message.from_me => Some((e.seq, message.body.clone())),
            _ => None,
        })
        .collect();
    let [(greeting_seq, greeting), (menu_seq, menu)] = &bot_texts[..] else {
        panic!("the greeting and the menu stored once each: {bot_texts:?}")
    };
    assert!(
        greeting.starts_with("Olá") && menu.contains("Vendas"),
        "{bot_texts:?}"
    );
    assert_eq!(
        *menu_seq,
        greeting_seq + 1,
        "stored in one write: {bot_texts:?}"
    );
    let waiting = ticket_when(&app, &a, maria, |t| t["isBot"] == true).await;
    assert_eq!(waiting["status"], "pending");
    assert_eq!(waiting["queueId"], Value::Null);

    // An invalid answer gets the menu again; a valid one moves the ticket to the queue.
    say(&app, &a, maria, "talvez").await;
    received_when(&app, &a, maria, |m| m.len() >= 3).await;
    say(&app, &a, maria, "1").await;
    let moved = ticket_when(&app, &a, maria, |t| t["queueId"] == sales).await;
    assert_eq!(moved["status"], "pending");
    assert!(
        log_types(&app, &a, &moved)
            .await
            .contains(&"queue".to_owned())
    );

    // The run ended: the next message starts nothing and the flow's stats count it.
    say(&app, &a, maria, "obrigada").await;
    app.inbound_settled().await;
    let after = received_when(&app, &a, maria, |_| true).await;
    assert_eq!(after.len(), 3, "{after:?}");
    let stats = json_of(
        app.get(&format!("/flowbuilder/{flow}/stats"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(stats.to_string().contains("sales"), "{stats}");

    // A second new contact walks it too, independently.
    let joao = "5511987710002";
    say(&app, &a, joao, "bom dia").await;
    received_when(&app, &a, joao, |m| m.len() >= 2).await;
}

async fn an_interval_waits_as_a_durable_job_and_resumes(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let sales = queue(&app, &a, "Vendas", "#ff0000", "").await;
    let flow = published_flow(&app, &a, "Espera", welcome_graph(sales, 2)).await;
    configure_connection(&app, &a, json!({"flowIdWelcome": flow})).await;
    let maria = "5511987720001";
    say(&app, &a, maria, "oi").await;
    received_when(&app, &a, maria, |m| m.len() >= 2).await;
    say(&app, &a, maria, "2").await;
    app.inbound_settled().await;

    // The interval is a job of the company's queue, not a sleep in memory.
    let scope = chatflow_core::TenantScope::new(a.company);
    let queued = app.pending_jobs(scope).await;
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!(queued[0].payload.kind(), "flowTimer");
    // A message while the interval runs changes nothing, nor does a moment before its end.
    say(&app, &a, maria, "alô?").await;
    app.inbound_settled().await;
    app.advance(chrono::TimeDelta::milliseconds(1900));
    assert_eq!(app.run_due_jobs().await, 0);
    let early = received_when(&app, &a, maria, |_| true).await;
    assert_eq!(early.len(), 2, "{early:?}");

    app.advance(chrono::TimeDelta::milliseconds(200));
    assert_eq!(app.run_due_jobs().await, 1);
    let got = received_when(&app, &a, maria, |m| m.len() >= 3).await;
    assert_eq!(got[2], "Obrigado pela espera");
    let ticket = ticket_when(&app, &a, maria, |t| t["isBot"] == false).await;
    assert_eq!(ticket["queueId"], Value::Null);
    // The run ended: nothing more is queued or sent, however long after.
    app.advance(chrono::TimeDelta::days(1));
    assert_eq!(app.run_due_jobs().await, 0);
    assert_eq!(received_when(&app, &a, maria, |_| true).await.len(), 3);
    assert!(app.pending_jobs(scope).await.is_empty());
}

async fn phrase_campaigns_trigger_on_their_connection_and_phrase_only(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let promo = published_flow(&app, &a, "Promo", one_message_graph("Promoção do dia!")).await;
    let other_line = json_of(
        app.post("/whatsapp", &a.admin, &json!({"name": "Outra"}))
            .await,
        StatusCode::OK,
    )
    .await["id"]
        .as_i64()
        .expect("id");
    // Listens on another connection: nothing here.
    json_of(
        app.post(
            "/flowcampaign",
            &a.admin,
            &json!({"name": "Outra linha", "flowId": promo, "whatsappId": other_line,
                    "phrase": "outra", "status": true}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    json_of(
        app.post(
            "/flowcampaign",
            &a.admin,
            &json!({"name": "Promo", "flowId": promo, "whatsappId": a.connection,
                    "phrase": "Quero a promoção", "status": true}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;

    let maria = "5511987730001";
    say(&app, &a, maria, "outra").await;
    say(&app, &a, maria, "quero saber da promoção").await;
    say(&app, &a, maria, "  QUERO A PROMOCAO ").await;
    app.inbound_settled().await;
    let got = received_when(&app, &a, maria, |_| true).await;
    assert_eq!(got, vec!["Promoção do dia!".to_owned()]);
}

async fn the_queue_menu_routes_a_contact_without_flows(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let sales = queue(&app, &a, "Vendas", "#ff0000", "Bem-vindo às vendas").await;
    let support = queue(&app, &a, "Suporte", "#00ff00", "Suporte aqui").await;
    configure_connection(
        &app,
        &a,
        json!({"greetingMessage": "Olá! Escolha um setor:", "queueIds": [sales, support]}),
    )
    .await;
    let maria = "5511987740001";
    say(&app, &a, maria, "oi").await;
    let menu = received_when(&app, &a, maria, |m| !m.is_empty()).await;
    assert!(menu[0].starts_with("Olá! Escolha um setor:"), "{menu:?}");
    assert!(menu[0].contains("Suporte"), "{menu:?}");
    say(&app, &a, maria, "2").await;
    let ticket = ticket_when(&app, &a, maria, |t| t["queueId"] == support).await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 2).await;
    assert_eq!(got[1], "Suporte aqui");
    let logs = log_types(&app, &a, &ticket).await;
    assert!(logs.contains(&"chatBot".to_owned()), "{logs:?}");
    assert!(logs.contains(&"queue".to_owned()), "{logs:?}");
}

async fn out_of_hours_contacts_get_the_message_once(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    // Closed every day: both shifts empty.
    let closed: Vec<Value> = [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
    .iter()
    .enumerate()
    .map(|(i, day)| {
        json!({"weekday": day, "weekdayEn": day, "startTimeA": "", "endTimeA": "",
               "startTimeB": "", "endTimeB": "", "id": i})
    })
    .collect();
    json_of(
        app.put(
            &format!("/companies/{}/schedules", a.company.0),
            &a.admin,
            &json!({"schedules": closed}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    json_of(
        app.put(
            "/settings/scheduleType",
            &a.admin,
            &json!({"value": "company"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    configure_connection(
        &app,
        &a,
        json!({"outOfHoursMessage": "Estamos fechados, {{name}}."}),
    )
    .await;
    let maria = "5511987750001";
    say(&app, &a, maria, "oi").await;
    let got = received_when(&app, &a, maria, |m| !m.is_empty()).await;
    assert_eq!(got, vec!["Estamos fechados, Maria Souza.".to_owned()]);
    say(&app, &a, maria, "alguém?").await;
    app.inbound_settled().await;
    assert_eq!(received_when(&app, &a, maria, |_| true).await.len(), 1);
}

async fn another_company_never_runs_these_flows(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let flow = published_flow(&app, &a, "Só A", one_message_graph("Só da Alpha")).await;
    configure_connection(&app, &a, json!({"flowIdWelcome": flow})).await;
    // B cannot point its connection at A's flow, nor hang a campaign on it.
    let refused = app
        .put(
            &format!("/whatsapp/{}", b.connection),
            &b.admin,
            &json!({"name": "Line", "isDefault": true, "flowIdWelcome": flow}),
        )
        .await;
    assert_ne!(refused.status(), StatusCode::OK);
    let refused = app
        .post(
            "/flowcampaign",
            &b.admin,
            &json!({"name": "X", "flowId": flow, "phrase": "oi", "status": true}),
        )
        .await;
    assert_ne!(refused.status(), StatusCode::OK);

    let maria = "5511987760001";
    say(&app, &b, maria, "oi").await;
    app.inbound_settled().await;
    ticket_when(&app, &b, maria, |_| true).await;
    assert!(received_when(&app, &b, maria, |_| true).await.is_empty());
    say(&app, &a, maria, "oi").await;
    assert_eq!(
        received_when(&app, &a, maria, |m| !m.is_empty()).await,
        vec!["Só da Alpha".to_owned()]
    );
}
