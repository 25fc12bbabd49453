//! Gaps after an outage, end to end through the sandbox on both engines and a manual clock: a
//! connection drops (`POST /sandbox/{id}/drop`), the clock moves, phones write meanwhile (one
//! message lost on the way), the connection is back (`/reconnect`), delivers its backlog and says
//! it caught up; the `checkGap` job asks the phone for what each conversation may have missed,
//! and the phone's answer fills the conversation as history (no bot, once). A conversation with
//! nothing to ask with, or whose phone cannot be asked, gets the "messages may be missing"
//! notice, and the connection shows the gap until an admin dismisses it; another company neither
//! sees nor dismisses it. A short outage is no gap.
//!
//! "Nothing happened" is checked after the due jobs ran and the sandbox delivered everything
//! ([`TestApp::inbound_settled`]), never after a sleep.

use chrono::TimeDelta;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::automation::{configure_connection, queue, received_when, say};
use crate::helpers::{TestApp, assert_error, json_of};
use crate::sandbox_phones::{messages_when, phone};
use crate::tickets::{Inbox, inbox};

crate::clocked_tests!(
    a_lost_message_is_fetched_from_the_phone_after_an_outage,
    conversations_the_phone_cannot_fill_get_the_notice_until_dismissed,
    a_short_outage_is_no_gap,
);

/// The inbox's connection as `GET /whatsapp/{id}` shows it, once `ready` holds.
async fn connection_when(app: &TestApp, inbox: &Inbox, ready: impl Fn(&Value) -> bool) -> Value {
    crate::whatsapp_web::connection_when(app, &inbox.admin, inbox.connection, ready).await
}

/// The simulated network drops the connection; answers once it shows the outage.
async fn drop_connection(app: &TestApp, inbox: &Inbox) -> Value {
    let dropped = app
        .post(
            &format!("/sandbox/{}/drop", inbox.connection),
            &inbox.admin,
            &json!({}),
        )
        .await;
    assert_eq!(dropped.status(), StatusCode::NO_CONTENT);
    connection_when(app, inbox, |c| {
        c["status"] == "OPENING" && !c["downSince"].is_null()
    })
    .await
}

/// The connection is back; answers once it is CONNECTED.
async fn reconnect(app: &TestApp, inbox: &Inbox) {
    let back = app
        .post(
            &format!("/sandbox/{}/reconnect", inbox.connection),
            &inbox.admin,
            &json!({}),
        )
        .await;
    assert_eq!(back.status(), StatusCode::NO_CONTENT);
    connection_when(app, inbox, |c| c["status"] == "CONNECTED").await;
}

/// The phone `from` writes `body`; lost on the way when `lost`. Answers its external id.
async fn write(app: &TestApp, inbox: &Inbox, from: &str, body: &str, lost: bool) -> String {
    phone(
        app,
        inbox,
        json!({"from": from, "name": "Maria Souza", "body": body, "lost": lost}),
    )
    .await
}

fn with_external<'a>(messages: &'a [Value], external: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| m["externalId"] == external)
        .collect()
}

fn notices(messages: &[Value]) -> Vec<&Value> {
    messages
        .iter()
        .filter(|m| m["mediaType"] == "gap")
        .collect()
}

async fn a_lost_message_is_fetched_from_the_phone_after_an_outage(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    // The queue menu answers every live message of a conversation without a queue: what the
    // phone sends back as history must not set it off.
    let sales = queue(&app, &a, "Vendas", "#ff0000", "Bem-vindo às vendas").await;
    let support = queue(&app, &a, "Suporte", "#00ff00", "Suporte aqui").await;
    configure_connection(
        &app,
        &a,
        json!({"greetingMessage": "Olá! Escolha um setor:", "queueIds": [sales, support]}),
    )
    .await;
    let maria = "5511987750001";
    say(&app, &a, maria, "oi").await;
    received_when(&app, &a, maria, |m| m.len() == 1).await;
    app.inbound_settled().await;

    // Five minutes down; the phone writes twice, and the network loses the first message.
    let down = drop_connection(&app, &a).await;
    assert_eq!(down["lastGap"], Value::Null);
    app.advance(TimeDelta::minutes(5));
    let lost = write(&app, &a, maria, "meu pedido é o 123", true).await;
    let after = write(&app, &a, maria, "alguém aí?", false).await;
    reconnect(&app, &a).await;

    // The backlog comes in (never the lost message), then the sandbox says it caught up: the
    // gap is being checked.
    let checking = connection_when(&app, &a, |c| c["lastGap"]["state"] == "checking").await;
    assert_eq!(checking["downSince"], Value::Null);
    app.inbound_settled().await;
    let live = messages_when(&app, &a, maria, |m| !with_external(m, &after).is_empty()).await;
    assert!(with_external(&live, &lost).is_empty(), "lost on the way");
    let menus = received_when(&app, &a, maria, |_| true).await.len();

    // The check asks the phone; its answer fills the conversation as history.
    assert_eq!(app.run_due_jobs().await, 1, "the gap's check");
    app.inbound_settled().await;
    let filled = messages_when(&app, &a, maria, |m| !with_external(m, &lost).is_empty()).await;
    let found = with_external(&filled, &lost);
    assert_eq!(found.len(), 1, "stored once: {filled:#?}");
    assert_eq!(found[0]["body"], "meu pedido é o 123");
    assert_eq!(found[0]["fromMe"], false);
    assert_eq!(
        with_external(&filled, &after).len(),
        1,
        "the messages the phone sends back that the inbox had are not stored twice"
    );
    assert!(notices(&filled).is_empty(), "no notice: {filled:?}");
    assert_eq!(
        received_when(&app, &a, maria, |_| true).await.len(),
        menus,
        "history sets off no bot"
    );
    // The phone answered for the one conversation asked: the gap is checked without waiting.
    let checked = connection_when(&app, &a, |c| c["lastGap"]["state"] == "checked").await;
    assert_eq!(checked["lastGap"]["fetched"], 1);
    assert_eq!(checked["lastGap"]["noted"], 0);

    // The check that waited in case the channel never said it caught up, and the one at the
    // end of the wait for the phone's answers, find the gap checked: the phone is not asked
    // again and no notice is written.
    app.advance(TimeDelta::minutes(5));
    assert_eq!(
        app.run_due_jobs().await,
        2,
        "the fallback check and the end of the wait, doing nothing"
    );
    app.inbound_settled().await;
    let again = messages_when(&app, &a, maria, |_| true).await;
    assert_eq!(again.len(), filled.len(), "{again:?}");
    assert!(
        app.pending_jobs(chatflow_core::TenantScope::new(a.company))
            .await
            .is_empty()
    );
}

async fn conversations_the_phone_cannot_fill_get_the_notice_until_dismissed(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let (ana, maria) = ("5511987760001", "5511987760002");
    write(&app, &a, ana, "bom dia", false).await;
    write(&app, &a, maria, "boa tarde", false).await;
    messages_when(&app, &a, ana, |m| !m.is_empty()).await;
    messages_when(&app, &a, maria, |m| !m.is_empty()).await;
    app.inbound_settled().await;

    let down = drop_connection(&app, &a).await;
    app.advance(TimeDelta::minutes(5));
    // Ana's only message is lost: her conversation has nothing to ask the phone with.
    let lost = write(&app, &a, ana, "cadê meu pedido?", true).await;
    // Maria's arrives, but the connection drops again before the phone can be asked.
    let after = write(&app, &a, maria, "oi de novo", false).await;
    reconnect(&app, &a).await;
    connection_when(&app, &a, |c| c["lastGap"]["state"] == "checking").await;
    app.inbound_settled().await;
    messages_when(&app, &a, maria, |m| !with_external(m, &after).is_empty()).await;
    drop_connection(&app, &a).await;
    assert_eq!(app.run_due_jobs().await, 1, "the gap's check");

    let gap =
        connection_when(&app, &a, |c| c["lastGap"]["state"] == "checked").await["lastGap"].clone();
    assert_eq!(gap["fetched"], 0);
    assert_eq!(gap["noted"], 2);
    assert_eq!(gap["from"], down["downSince"]);
    for number in [ana, maria] {
        let messages = messages_when(&app, &a, number, |m| !notices(m).is_empty()).await;
        let notice = notices(&messages);
        assert_eq!(notice.len(), 1, "{messages:?}");
        let body = notice[0]["body"].as_str().expect("a body");
        let (from, to) = body.split_once('/').expect("from/to");
        assert!(from < to, "{body}");
        assert!(with_external(&messages, &lost).is_empty());
    }

    // Another company neither sees nor dismisses it.
    assert_error(
        app.get(&format!("/whatsapp/{}", a.connection), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;
    assert_error(
        app.delete(&format!("/whatsapp/{}/gap", a.connection), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;
    let b_list = json_of(app.get("/whatsapp", &b.admin).await, StatusCode::OK).await;
    assert!(
        b_list
            .as_array()
            .expect("a list")
            .iter()
            .all(|c| c["id"] != a.connection && c["lastGap"].is_null()),
        "{b_list}"
    );
    // A plain user cannot dismiss it either.
    let refused = app
        .delete(&format!("/whatsapp/{}/gap", a.connection), &a.user)
        .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);

    // The list shows it until an admin dismisses it.
    assert_eq!(listed_gap(&app, &a).await, gap);
    let dismissed = app
        .delete(&format!("/whatsapp/{}/gap", a.connection), &a.admin)
        .await;
    assert_eq!(dismissed.status(), StatusCode::NO_CONTENT);
    assert_eq!(listed_gap(&app, &a).await, Value::Null);
}

/// The last gap of the inbox's connection as `GET /whatsapp` lists it.
async fn listed_gap(app: &TestApp, inbox: &Inbox) -> Value {
    let listed = json_of(app.get("/whatsapp", &inbox.admin).await, StatusCode::OK).await;
    listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["id"] == inbox.connection)
        .expect("the inbox's connection")["lastGap"]
        .clone()
}

async fn a_short_outage_is_no_gap(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987770001";
    write(&app, &a, maria, "oi", false).await;
    messages_when(&app, &a, maria, |m| !m.is_empty()).await;
    app.inbound_settled().await;

    drop_connection(&app, &a).await;
    app.advance(TimeDelta::seconds(90));
    let after = write(&app, &a, maria, "ainda aí?", false).await;
    reconnect(&app, &a).await;
    let messages = messages_when(&app, &a, maria, |m| !with_external(m, &after).is_empty()).await;
    app.inbound_settled().await;
    let back = connection_when(&app, &a, |c| c["status"] == "CONNECTED").await;
    assert_eq!(back["downSince"], Value::Null);
    assert_eq!(back["lastGap"], Value::Null);
    app.advance(TimeDelta::minutes(5));
    assert_eq!(app.run_due_jobs().await, 0, "nothing to check");
    let later = messages_when(&app, &a, maria, |_| true).await;
    assert_eq!(later.len(), messages.len());
    assert!(notices(&later).is_empty());
}
