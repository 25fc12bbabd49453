//! Scheduled and recurring messages, on both engines, through simulated phones: validation, a
//! schedule a few seconds ahead reaching the phone exactly once, a recurring one, an edit or a
//! delete before the send, a plan without schedules, and company B never reaching company A's
//! schedules.
//!
//! These run on a manual clock: a test moves the server's time past a send, runs the due jobs
//! and checks; "nothing more is sent" is checked by moving past any later send time, running
//! the due jobs again and finding nothing changed. One test keeps the wall clock and proves the
//! background worker sends a due schedule by itself.

use std::time::Duration;

use chatflow_core::TenantScope;
use chatflow_core::tenancy::{Money, PlanFlags};
use chrono::{TimeDelta, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::automation::received_when;
use crate::helpers::{MemberOptions, TestApp, assert_error, days_from_today, json_of};
use crate::tickets::{Inbox, inbox};

mod clocked {
    crate::clocked_tests!(
        validation_follows_the_spec,
        a_schedule_reaches_the_phone_exactly_once,
        a_recurring_schedule_sends_its_times_then_stops,
        edited_or_deleted_schedules_send_only_what_is_current,
        a_failed_send_is_kept_as_an_error,
        a_plan_without_schedules_is_refused,
        company_b_never_reaches_company_a_schedules,
    );
    use super::*;
}

mod wall {
    crate::tickets::inbox_tests!(the_background_worker_sends_a_due_schedule);
    use super::*;
}

/// A contact of the inbox's company; answers its id.
async fn contact(app: &TestApp, inbox: &Inbox, name: &str, number: &str) -> i64 {
    let created = json_of(
        app.post(
            "/contacts",
            &inbox.admin,
            &json!({"name": name, "number": number}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    created["id"].as_i64().expect("contact id")
}

/// Company Alpha's inbox and its contact Maria at `number`.
async fn alpha_with_maria(app: &TestApp, number: &str) -> (Inbox, i64) {
    let a = inbox(app, "Alpha").await;
    let maria = contact(app, &a, "Maria", number).await;
    (a, maria)
}

/// `seconds` from the server's now, as the wire writes it.
fn in_seconds(app: &TestApp, seconds: i64) -> String {
    (app.now() + TimeDelta::seconds(seconds)).to_rfc3339()
}

/// What phone `number` has received so far (no waiting).
async fn received_now(app: &TestApp, inbox: &Inbox, number: &str) -> Vec<String> {
    received_when(app, inbox, number, |_| true).await
}

async fn schedule(app: &TestApp, token: &str, body: Value) -> Value {
    json_of(
        app.post("/schedules", token, &body).await,
        StatusCode::CREATED,
    )
    .await
}

/// The schedule `id` once `ready` holds (panics after 10 s).
async fn schedule_when(
    app: &TestApp,
    inbox: &Inbox,
    id: i64,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        last = json_of(
            app.get(&format!("/schedules/{id}"), &inbox.admin).await,
            StatusCode::OK,
        )
        .await;
        if ready(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("schedule {id} never got ready: {last}");
}

/// The ticket of `contact` in a page of `GET /tickets`.
fn ticket_of(page: &Value, contact: i64) -> Value {
    page["tickets"]
        .as_array()
        .and_then(|l| l.iter().find(|t| t["contactId"] == contact).cloned())
        .expect("the contact's ticket")
}

fn field_codes(error: &Value) -> Vec<(String, String)> {
    error["fields"]
        .as_array()
        .map(|fields| {
            fields
                .iter()
                .map(|f| {
                    (
                        f["field"].as_str().unwrap_or_default().to_owned(),
                        f["code"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn validation_follows_the_spec(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = contact(&app, &a, "Maria", "5511987730001").await;
    let refused = json_of(
        app.post(
            "/schedules",
            &a.admin,
            &json!({"body": "oi", "sendAt": in_seconds(&app, -3600)}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    assert_eq!(refused["error"], "ERR_VALIDATION");
    assert_eq!(
        field_codes(&refused),
        [
            ("body".to_owned(), "TOO_SHORT".to_owned()),
            ("contactId".to_owned(), "REQUIRED".to_owned()),
            ("sendAt".to_owned(), "OUT_OF_RANGE".to_owned()),
        ]
    );
    let empty = json_of(
        app.post("/schedules", &a.admin, &json!({"contactId": maria}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    assert_eq!(
        field_codes(&empty),
        [
            ("body".to_owned(), "REQUIRED".to_owned()),
            ("sendAt".to_owned(), "REQUIRED".to_owned()),
        ]
    );
    assert_error(
        app.post(
            "/schedules",
            &a.admin,
            &json!({"body": "Olá Maria", "contactId": 999_999, "sendAt": in_seconds(&app, 3600)}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;

    // Defaults: every 1 day, once, on any day, pending, on the default connection.
    let created = schedule(
        &app,
        &a.user,
        json!({"body": "Olá Maria", "contactId": maria, "sendAt": in_seconds(&app, 3600)}),
    )
    .await;
    assert_eq!(created["status"], "PENDENTE");
    assert_eq!(
        (
            &created["intervalo"],
            &created["valorIntervalo"],
            &created["enviarQuantasVezes"],
            &created["tipoDias"]
        ),
        (&json!(1), &json!(1), &json!(1), &json!(4))
    );
    assert_eq!(created["whatsappId"], a.connection);
    assert_eq!(created["contact"]["name"], "Maria");
    let id = created["id"].as_i64().expect("id");

    // Attachments: png, jpg, jpeg only.
    let upload = |name: &'static str| {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(vec![0x89, b'P', b'N', b'G']).file_name(name),
        );
        app.client
            .post(app.url(&format!("/schedules/{id}/media-upload")))
            .bearer_auth(&a.admin)
            .multipart(form)
            .send()
    };
    let gif = upload("a.gif").await.expect("answer");
    assert_eq!(gif.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let png = json_of(upload("foto.png").await.expect("answer"), StatusCode::OK).await;
    assert_eq!(png["mediaName"], "foto.png");
    let cleared = json_of(
        app.delete(&format!("/schedules/{id}/media-upload"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleared["mediaName"], Value::Null);

    let listed = json_of(
        app.get(
            &format!("/schedules?contactId={maria}&searchParam=mar"),
            &a.user,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(listed["count"], 1);
    assert_eq!(listed["hasMore"], false);
    assert_eq!(listed["schedules"][0]["id"], id);
}

async fn a_schedule_reaches_the_phone_exactly_once(app: TestApp) {
    let number = "5511987730002";
    let (a, maria) = alpha_with_maria(&app, number).await;
    let created = schedule(
        &app,
        &a.user,
        json!({"body": "Lembrete da consulta", "contactId": maria, "sendAt": in_seconds(&app, 2)}),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    // Not due yet: nothing is sent.
    app.advance(TimeDelta::seconds(1));
    assert_eq!(app.run_due_jobs().await, 0);
    assert!(received_now(&app, &a, number).await.is_empty());
    app.advance(TimeDelta::seconds(2));
    assert_eq!(app.run_due_jobs().await, 1);
    let got = received_when(&app, &a, number, |m| !m.is_empty()).await;
    assert_eq!(got, ["Lembrete da consulta"]);
    let sent = schedule_when(&app, &a, id, |s| s["status"] == "ENVIADA").await;
    assert!(sent["sentAt"].is_string(), "{sent}");
    assert_eq!(sent["nextSendAt"], Value::Null);
    assert_eq!(sent["sends"], 1);
    // Nothing more is queued and nothing more arrives, a day later either.
    app.advance(TimeDelta::days(1));
    assert_eq!(app.run_due_jobs().await, 0);
    let after = received_now(&app, &a, number).await;
    assert_eq!(after.len(), 1, "{after:?}");
    let jobs = app.pending_jobs(TenantScope::new(a.company)).await;
    assert!(jobs.is_empty(), "{jobs:?}");
    // The message is on a ticket of the contact, sent by the scheduling user.
    let page = json_of(
        app.get("/tickets?showAll=true&status=closed", &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    let ticket = ticket_of(&page, maria);
    assert_eq!(ticket["status"], "closed");
    assert_eq!(ticket["userId"], a.user_id);
    // A sent schedule cannot be edited any more.
    assert_error(
        app.put(
            &format!("/schedules/{id}"),
            &a.admin,
            &json!({"body": "Outro texto", "contactId": maria, "sendAt": in_seconds(&app, 60)}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
}

async fn a_recurring_schedule_sends_its_times_then_stops(app: TestApp) {
    let number = "5511987730003";
    let (a, maria) = alpha_with_maria(&app, number).await;
    let created = schedule(
        &app,
        &a.admin,
        json!({
            "body": "Pague a mensalidade",
            "contactId": maria,
            "sendAt": in_seconds(&app, 1),
            "intervalo": 1,
            "valorIntervalo": 2,
            "enviarQuantasVezes": 3,
            "tipoDias": 4,
            "openTicket": "enabled",
            "ticketUserId": a.user_id,
        }),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    let first_at =
        chrono::DateTime::parse_from_rfc3339(created["sendAt"].as_str().expect("sendAt"))
            .expect("a time");
    let scope = TenantScope::new(a.company);
    app.advance(TimeDelta::seconds(2));
    for sends in 1..=3 {
        assert_eq!(app.run_due_jobs().await, 1, "send {sends}");
        let got = received_when(&app, &a, number, |m| m.len() >= sends).await;
        assert_eq!(got.len(), sends, "{got:?}");
        assert!(got.iter().all(|b| b == "Pague a mensalidade"), "{got:?}");
        let current = schedule_when(&app, &a, id, |s| s["sends"] == sends).await;
        if sends == 3 {
            assert_eq!(current["status"], "ENVIADA");
            assert_eq!(current["nextSendAt"], Value::Null);
            break;
        }
        assert_eq!(current["status"], "AGENDADA");
        // The next send is a job due two days (in the company's time zone) after the
        // previous one; the test moves the clock there.
        let next = chrono::DateTime::parse_from_rfc3339(
            current["nextSendAt"].as_str().expect("nextSendAt"),
        )
        .expect("a time");
        let days = (next - first_at).num_hours();
        assert!(
            (days - 48 * sends as i64).abs() <= 1,
            "{sends}: {first_at} -> {next}"
        );
        let jobs = app.pending_jobs(scope).await;
        assert_eq!(jobs.len(), 1, "{jobs:?}");
        assert_eq!(jobs[0].payload.kind(), "sendSchedule");
        assert_eq!(jobs[0].run_at, next.with_timezone(&Utc));
        // A second before, it is not due.
        app.advance(next.with_timezone(&Utc) - app.now() - TimeDelta::seconds(1));
        assert_eq!(app.run_due_jobs().await, 0);
        assert_eq!(received_now(&app, &a, number).await.len(), sends);
        app.advance(TimeDelta::seconds(1));
    }
    // Past where a fourth send would be: nothing more.
    app.advance(TimeDelta::days(3));
    assert_eq!(app.run_due_jobs().await, 0);
    assert_eq!(received_now(&app, &a, number).await.len(), 3);
    assert!(app.pending_jobs(scope).await.is_empty());
    // openTicket enabled: the ticket is open and the chosen user's.
    let page = json_of(
        app.get("/tickets?showAll=true", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let ticket = ticket_of(&page, maria);
    assert_eq!(ticket["status"], "open");
    assert_eq!(ticket["userId"], a.user_id);
}

async fn edited_or_deleted_schedules_send_only_what_is_current(app: TestApp) {
    let number = "5511987730004";
    let (a, maria) = alpha_with_maria(&app, number).await;
    let deleted = schedule(
        &app,
        &a.admin,
        json!({"body": "Nunca enviada", "contactId": maria, "sendAt": in_seconds(&app, 2)}),
    )
    .await;
    let edited = schedule(
        &app,
        &a.admin,
        json!({"body": "Primeira versão", "contactId": maria, "sendAt": in_seconds(&app, 2)}),
    )
    .await;
    let response = app
        .delete(&format!("/schedules/{}", deleted["id"]), &a.admin)
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let changed = json_of(
        app.put(
            &format!("/schedules/{}", edited["id"]),
            &a.admin,
            &json!({"body": "Segunda versão", "contactId": maria, "sendAt": in_seconds(&app, 3)}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(changed["status"], "PENDENTE");
    // When the first version was due, nothing is sent (its job is stale).
    app.advance(TimeDelta::milliseconds(2500));
    app.run_due_jobs().await;
    assert!(received_now(&app, &a, number).await.is_empty());
    app.advance(TimeDelta::seconds(1));
    app.run_due_jobs().await;
    let got = received_when(&app, &a, number, |m| !m.is_empty()).await;
    assert_eq!(got, ["Segunda versão"]);
    // Nothing else, however long after.
    app.advance(TimeDelta::days(2));
    assert_eq!(app.run_due_jobs().await, 0);
    assert_eq!(received_now(&app, &a, number).await, ["Segunda versão"]);
    assert_error(
        app.get(&format!("/schedules/{}", deleted["id"]), &a.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
}

async fn a_failed_send_is_kept_as_an_error(app: TestApp) {
    let number = "5511987730006";
    let (a, maria) = alpha_with_maria(&app, number).await;
    let disconnected = app
        .delete(&format!("/whatsappsession/{}", a.connection), &a.admin)
        .await;
    assert_eq!(disconnected.status(), StatusCode::NO_CONTENT);
    let created = schedule(
        &app,
        &a.admin,
        json!({"body": "Não vai chegar", "contactId": maria, "sendAt": in_seconds(&app, 1), "enviarQuantasVezes": 3}),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    app.advance(TimeDelta::seconds(2));
    app.run_due_jobs().await;
    let failed = schedule_when(&app, &a, id, |s| s["status"] == "ERRO").await;
    assert!(
        failed["lastError"]
            .as_str()
            .is_some_and(|e| e.starts_with("ERR_SENDING_WAPP_MSG")),
        "{failed}"
    );
    assert_eq!(failed["sends"], 0);
    assert_eq!(failed["nextSendAt"], Value::Null);
    // Nothing is retried or queued after a failure, past every retry delay and later send.
    app.advance(TimeDelta::days(3));
    assert_eq!(app.run_due_jobs().await, 0);
    assert_eq!(failed["sends"], 0);
    let jobs = app.pending_jobs(TenantScope::new(a.company)).await;
    assert!(jobs.is_empty(), "{jobs:?}");
}

async fn a_plan_without_schedules_is_refused(app: TestApp) {
    let plan = app
        .ports
        .plans
        .create(&chatflow_core::ports::NewPlan {
            name: "Sem agenda".into(),
            users: 5,
            connections: 1,
            queues: 1,
            amount: Money(990),
            is_public: false,
            flags: PlanFlags {
                use_schedules: false,
                ..PlanFlags::ALL
            },
        })
        .await
        .expect("plan")
        .id;
    let company = app.company_on("Gamma", plan, days_from_today(30)).await;
    let admin = app
        .member(
            company,
            "boss@gamma.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let token = app.token_of(&admin).await;
    assert_error(
        app.get("/schedules", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.post(
            "/schedules",
            &token,
            &json!({"body": "Olá Maria", "contactId": 1, "sendAt": in_seconds(&app, 60)}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
}

async fn company_b_never_reaches_company_a_schedules(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = contact(&app, &a, "Maria", "5511987730005").await;
    let created = schedule(
        &app,
        &a.admin,
        json!({"body": "Só da Alpha", "contactId": maria, "sendAt": in_seconds(&app, 3600)}),
    )
    .await;
    let path = format!("/schedules/{}", created["id"]);
    let body =
        json!({"body": "Invasão da Beta", "contactId": maria, "sendAt": in_seconds(&app, 60)});
    assert_error(
        app.get(&path, &b.admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    // B cannot schedule for A's contact either.
    assert_error(
        app.post("/schedules", &b.admin, &body).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
    assert_error(
        app.put(&path, &b.admin, &body).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.delete(&path, &b.admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    let listed = json_of(app.get("/schedules", &b.admin).await, StatusCode::OK).await;
    assert_eq!(listed["count"], 0);
    let still = json_of(app.get(&path, &a.admin).await, StatusCode::OK).await;
    assert_eq!(still["body"], "Só da Alpha");
}

/// The wall clock: the background worker sends a schedule when it falls due, with no test
/// running jobs.
async fn the_background_worker_sends_a_due_schedule(app: TestApp) {
    let number = "5511987730007";
    let (a, maria) = alpha_with_maria(&app, number).await;
    let created = schedule(
        &app,
        &a.admin,
        json!({"body": "Pelo trabalhador", "contactId": maria, "sendAt": in_seconds(&app, 1)}),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    let got = received_when(&app, &a, number, |m| !m.is_empty()).await;
    assert_eq!(got, ["Pelo trabalhador"]);
    let sent = schedule_when(&app, &a, id, |s| s["status"] == "ENVIADA").await;
    assert_eq!(sent["sends"], 1);
}
