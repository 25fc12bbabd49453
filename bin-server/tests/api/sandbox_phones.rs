//! Simulated phones through the sandbox's HTTP routes on both engines, end to end through the
//! server's queue and ingestion: a reaction, an edit and a deletion of the phone's own message, a
//! missed call and a file reach the ticket, each with its realtime `appMessage` event; a phone
//! may not change another phone's message; and company B can neither drive company A's
//! connection nor see its phones.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::TenantScope;
use chatflow_core::events::{Event, MessageAction};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, json_of};
use crate::tickets::{Inbox, inbox, inbox_tests};

inbox_tests!(
    phones_react_edit_delete_call_and_send_files,
    company_b_cannot_drive_company_a_phones,
    the_phone_sees_the_attendants_reaction,
    the_list_preview_follows_the_contacts_deletion,
);

/// Has phone `from` do what `body` says through `POST /sandbox/{id}/send`; returns the
/// external id the answer names.
pub(crate) async fn phone(app: &TestApp, inbox: &Inbox, body: Value) -> String {
    let sent = json_of(
        app.post(
            &format!("/sandbox/{}/send", inbox.connection),
            &inbox.admin,
            &body,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    sent["externalId"].as_str().expect("externalId").to_owned()
}

/// The messages of the ticket of contact `number`, once `ready` holds for them (polled while the
/// sandbox delivers; panics after 10 s).
pub(crate) async fn messages_when(
    app: &TestApp,
    inbox: &Inbox,
    number: &str,
    ready: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let mut last = Vec::new();
    for _ in 0..100 {
        let page = json_of(
            app.get("/tickets?showAll=true&status=pending", &inbox.admin)
                .await,
            StatusCode::OK,
        )
        .await;
        let uuid = page["tickets"].as_array().and_then(|list| {
            list.iter()
                .find(|t| t["contact"]["number"] == number)
                .map(|t| t["uuid"].as_str().unwrap_or_default().to_owned())
        });
        if let Some(uuid) = uuid {
            let messages = json_of(
                app.get(&format!("/messages/{uuid}"), &inbox.admin).await,
                StatusCode::OK,
            )
            .await;
            last = messages["messages"].as_array().cloned().unwrap_or_default();
            if ready(&last) {
                return last;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the messages of {number} never got ready: {last:?}");
}

fn by_external<'a>(messages: &'a [Value], external: &str) -> Option<&'a Value> {
    messages.iter().find(|m| m["externalId"] == external)
}

/// The `appMessage update` events of the company's log, as (external id, message).
async fn message_updates(app: &TestApp, inbox: &Inbox) -> Vec<(String, Value)> {
    let events = app
        .ports
        .event_log
        .read(TenantScope::new(inbox.company), 0, 10_000)
        .await
        .expect("the log reads");
    events
        .into_iter()
        .filter_map(|e| match e.event {
            Event::AppMessage {
                action: MessageAction::Update,
                message,
                ..
            } => Some((
                message.external_id.clone().unwrap_or_default(),
                serde_json::to_value(&*message).expect("serialises"),
            )),
            _ => None,
        })
        .collect()
}

async fn phones_react_edit_delete_call_and_send_files(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987700001";
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "Bom dia"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| by_external(m, &first).is_some()).await;

    // A reaction to her message.
    let reacted = phone(
        &app,
        &a,
        json!({"from": maria, "reactTo": first, "emoji": "👍"}),
    )
    .await;
    assert_eq!(reacted, first);
    let messages = messages_when(&app, &a, maria, |m| {
        by_external(m, &first)
            .is_some_and(|x| x["reactions"] == json!([{"emoji": "👍", "fromMe": false}]))
    })
    .await;
    assert_eq!(
        messages.len(),
        1,
        "a reaction is not a message: {messages:?}"
    );

    // Another phone may not edit, delete or react to Maria's message.
    for body in [
        json!({"from": "5511987700002", "edit": first, "body": "hacked"}),
        json!({"from": "5511987700002", "delete": first}),
        json!({"from": "5511987700002", "reactTo": first, "emoji": "😡"}),
    ] {
        assert_error(
            app.post(&format!("/sandbox/{}/send", a.connection), &a.admin, &body)
                .await,
            StatusCode::NOT_FOUND,
            "ERR_NOT_FOUND",
        )
        .await;
    }
    // One act at a time.
    assert_error(
        app.post(
            &format!("/sandbox/{}/send", a.connection),
            &a.admin,
            &json!({"from": maria, "edit": first, "delete": first, "body": "x"}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;

    // She edits it.
    phone(
        &app,
        &a,
        json!({"from": maria, "edit": first, "body": "Bom dia, tudo bem?"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| {
        by_external(m, &first)
            .is_some_and(|x| x["body"] == "Bom dia, tudo bem?" && x["isEdited"] == true)
    })
    .await;

    // She sends a file, then calls and nobody answers.
    let png = STANDARD.encode(b"\x89PNG\r\n\x1a\nnot really an image");
    let photo = phone(
        &app,
        &a,
        json!({"from": maria, "body": "a foto", "fileName": "foto.png", "base64": png}),
    )
    .await;
    let call = json_of(
        app.post(
            &format!("/sandbox/{}/call", a.connection),
            &a.admin,
            &json!({"from": maria, "name": "Maria"}),
        )
        .await,
        StatusCode::OK,
    )
    .await["externalId"]
        .as_str()
        .expect("the call's id")
        .to_owned();
    let messages = messages_when(&app, &a, maria, |m| by_external(m, &call).is_some()).await;
    let file = by_external(&messages, &photo).expect("the photo");
    assert_eq!(file["mediaType"], "image");
    assert_eq!(file["body"], "a foto");
    assert!(
        file["mediaUrl"].as_str().is_some_and(|u| !u.is_empty()),
        "{file}"
    );
    let log = by_external(&messages, &call).expect("the call");
    assert_eq!(log["mediaType"], "call_log");
    assert_eq!(log["fromMe"], false);

    // She deletes her first message: it stays, marked deleted.
    phone(&app, &a, json!({"from": maria, "delete": first})).await;
    let messages = messages_when(&app, &a, maria, |m| {
        by_external(m, &first).is_some_and(|x| x["isDeleted"] == true)
    })
    .await;
    assert_eq!(messages.len(), 3, "{messages:?}");
    let ticket = json_of(
        app.get("/tickets?showAll=true&status=pending", &a.admin)
            .await,
        StatusCode::OK,
    )
    .await["tickets"][0]
        .clone();
    assert_eq!(ticket["lastMessage"], "📞 Chamada perdida");
    // Only a placeholder: the kind is named, so a client can say it in its reader's language.
    assert_eq!(ticket["lastMessageMedia"], "call_log", "{ticket}");

    // Each change went out as an appMessage update, in order.
    let updates = message_updates(&app, &a).await;
    let of_first: Vec<&Value> = updates
        .iter()
        .filter(|(id, _)| id == &first)
        .map(|(_, m)| m)
        .collect();
    let position = |test: &dyn Fn(&Value) -> bool| {
        of_first
            .iter()
            .position(|m| test(m))
            .unwrap_or_else(|| panic!("an update is missing: {of_first:?}"))
    };
    let reaction = position(&|m| m["reactions"][0]["emoji"] == "👍");
    let edit = position(&|m| m["isEdited"] == true);
    let deletion = position(&|m| m["isDeleted"] == true);
    assert!(reaction < edit && edit < deletion, "{of_first:?}");
}

async fn company_b_cannot_drive_company_a_phones(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = "5511987700011";
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "oi"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| by_external(m, &first).is_some()).await;
    for (path, body) in [
        (
            format!("/sandbox/{}/send", a.connection),
            json!({"from": maria, "body": "from B"}),
        ),
        (
            format!("/sandbox/{}/send", a.connection),
            json!({"from": maria, "delete": first}),
        ),
        (
            format!("/sandbox/{}/call", a.connection),
            json!({"from": maria}),
        ),
    ] {
        let response = app.post(&path, &b.admin, &body).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(
        app.get(&format!("/sandbox/{}/inbox", a.connection), &b.admin)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // B's own connection does not know A's phone's message either.
    assert_error(
        app.post(
            &format!("/sandbox/{}/send", b.connection),
            &b.admin,
            &json!({"from": maria, "edit": first, "body": "x"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    let messages = messages_when(&app, &a, maria, |m| !m.is_empty()).await;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["isDeleted"], false);
}

/// The connection's reaction to message `external` as the phone sees it
/// (`GET /sandbox/{id}/sent/{externalId}`). A reaction is stored only once the sandbox took it,
/// so what the route answers right after `POST /messages/{id}/react` is final.
async fn phone_sees_reaction(app: &TestApp, inbox: &Inbox, external: &str, emoji: &str) {
    let sent = json_of(
        app.get(
            &format!("/sandbox/{}/sent/{external}", inbox.connection),
            &inbox.admin,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(sent["externalId"], external, "{sent}");
    assert_eq!(sent["reaction"], emoji, "{sent}");
}

async fn the_phone_sees_the_attendants_reaction(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = "5511987700021";
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "Pode me ajudar?"}),
    )
    .await;
    let messages = messages_when(&app, &a, maria, |m| by_external(m, &first).is_some()).await;
    let id = by_external(&messages, &first).expect("her message")["id"]
        .as_i64()
        .expect("id");
    // No reaction yet: the phone sees none.
    phone_sees_reaction(&app, &a, &first, "").await;

    json_of(
        app.post(
            &format!("/messages/{id}/react"),
            &a.admin,
            &json!({"emoji": "👍"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    phone_sees_reaction(&app, &a, &first, "👍").await;

    // A message no phone sent to this connection is not found.
    assert_error(
        app.get(
            &format!("/sandbox/{}/sent/no-such-message", a.connection),
            &a.admin,
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    // Company B reads nothing of A's phones: not through A's connection, nor through its own.
    assert_eq!(
        app.get(&format!("/sandbox/{}/sent/{first}", a.connection), &b.admin)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_error(
        app.get(&format!("/sandbox/{}/sent/{first}", b.connection), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
}

/// The ticket list's preview of a last message the contact deleted says so, without its text.
async fn the_list_preview_follows_the_contacts_deletion(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987700031";
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "meu CPF é 123"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| by_external(m, &first).is_some()).await;
    let ticket = || async {
        json_of(
            app.get("/tickets?showAll=true&status=pending", &a.admin)
                .await,
            StatusCode::OK,
        )
        .await["tickets"][0]
            .clone()
    };
    let before = ticket().await;
    assert_eq!(before["lastMessage"], "meu CPF é 123");
    assert_eq!(before["lastMessageDeleted"], false);
    assert_eq!(before["lastMessageFromMe"], false);
    assert_eq!(
        before["lastMessageMedia"],
        Value::Null,
        "a text names no media kind"
    );

    phone(
        &app,
        &a,
        json!({"from": maria, "edit": first, "body": "meu CPF"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| {
        by_external(m, &first).is_some_and(|x| x["isEdited"] == true)
    })
    .await;
    assert_eq!(ticket().await["lastMessage"], "meu CPF");

    phone(&app, &a, json!({"from": maria, "delete": first})).await;
    messages_when(&app, &a, maria, |m| {
        by_external(m, &first).is_some_and(|x| x["isDeleted"] == true)
    })
    .await;
    let after = ticket().await;
    assert_eq!(after["lastMessageDeleted"], true, "{after}");
    assert_eq!(after["lastMessage"], "");
    assert_eq!(after["lastMessageFromMe"], false);
}
