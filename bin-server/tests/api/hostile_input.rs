//! Hostile text and ingestion on both engines (issue 13): a NUL from a channel is stored, not a
//! reason to stop a connection or the other companies; an event that cannot be stored is set
//! aside where only the company's admins see it; a NUL anywhere in a request is 400, never 500;
//! message bodies and notes are bounded; reacting to a phone's own message reaches the phone;
//! sandbox routes are for admins.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::inbox::inbound::INBOUND_TEXT_MAX_BYTES;
use chatflow_core::inbox::messages::BODY_MAX_CHARS;
use chatflow_core::{TenantScope, WhatsappId};
use chatflow_sandbox::{PhoneFile, PhoneMessage};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, json_of};
use crate::sandbox_phones::{messages_when, phone};
use crate::tickets::{Inbox, inbox, inbox_tests};

inbox_tests!(
    nul_from_a_channel_is_stored_and_nothing_waits,
    unstorable_events_are_set_aside_for_the_companys_admins,
    nul_in_any_request_is_a_bad_request,
    bodies_and_notes_are_bounded,
    reacting_to_a_phones_message_reaches_the_phone,
    plain_users_cannot_use_the_sandbox,
);

/// Queues what a phone sends the way `chatflow sandbox send` does (straight into the sandbox's
/// queue, as any channel may deliver it, without the HTTP layer's checks).
async fn queue(app: &TestApp, inbox: &Inbox, message: PhoneMessage) -> String {
    app.state
        .sandbox
        .as_ref()
        .expect("sandbox on")
        .phone_send(
            TenantScope::new(inbox.company),
            WhatsappId(inbox.connection),
            &message,
        )
        .await
        .expect("queued")
}

fn find<'a>(messages: &'a [Value], external: &str) -> Option<&'a Value> {
    messages.iter().find(|m| m["externalId"] == external)
}

async fn failures(app: &TestApp, token: &str) -> Value {
    json_of(app.get("/inbound-failures", token).await, StatusCode::OK).await
}

async fn nul_from_a_channel_is_stored_and_nothing_waits(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = "5511987700021";
    let poison = queue(
        &app,
        &a,
        PhoneMessage {
            from: maria.into(),
            name: "Ma\0ria".into(),
            body: "poison \0 body".into(),
            ..PhoneMessage::default()
        },
    )
    .await;
    let file = queue(
        &app,
        &a,
        PhoneMessage {
            from: maria.into(),
            name: "Maria".into(),
            body: String::new(),
            file: Some(PhoneFile {
                file_name: "re\0port.txt".into(),
                mime_type: String::new(),
                bytes: b"a report".to_vec(),
            }),
            ..PhoneMessage::default()
        },
    )
    .await;
    let after = phone(&app, &a, json!({"from": maria, "body": "after"})).await;
    let beta = phone(
        &app,
        &b,
        json!({"from": "5511987700022", "body": "hello from beta"}),
    )
    .await;

    let messages = messages_when(&app, &a, maria, |m| find(m, &after).is_some()).await;
    let stored = find(&messages, &poison).expect("the NUL message is stored");
    assert_eq!(stored["body"], "poison  body");
    let with_file = find(&messages, &file).expect("the file is stored");
    assert!(
        !with_file.to_string().contains("\\u0000"),
        "no NUL survives: {with_file}"
    );
    let order: Vec<&str> = messages
        .iter()
        .filter_map(|m| m["externalId"].as_str())
        .collect();
    assert_eq!(order, vec![poison.as_str(), file.as_str(), after.as_str()]);
    let beta_messages =
        messages_when(&app, &b, "5511987700022", |m| find(m, &beta).is_some()).await;
    assert_eq!(beta_messages.len(), 1);
    // Cleaned, not set aside.
    assert_eq!(failures(&app, &a.admin).await["count"], 0);
}

async fn unstorable_events_are_set_aside_for_the_companys_admins(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = "5511987700031";
    // More text than the WhatsApp protocol carries: no channel delivers that as a message.
    let huge = "a".repeat(INBOUND_TEXT_MAX_BYTES + 1);
    let refused = phone(&app, &a, json!({"from": maria, "body": huge})).await;
    let after = phone(&app, &a, json!({"from": maria, "body": "after"})).await;
    let messages = messages_when(&app, &a, maria, |m| find(m, &after).is_some()).await;
    assert!(find(&messages, &refused).is_none());

    let page = failures(&app, &a.admin).await;
    assert_eq!(page["count"], 1, "{page}");
    assert_eq!(page["hasMore"], false);
    let failure = &page["failures"][0];
    assert_eq!(failure["error"], "ERR_VALIDATION");
    assert_eq!(failure["whatsappId"], a.connection);
    assert_eq!(failure["event"]["externalId"], refused.as_str());
    assert_eq!(
        failure["event"]["body"].as_str().map(str::len),
        Some(INBOUND_TEXT_MAX_BYTES + 1),
        "kept whole"
    );
    let id = failure["id"].as_i64().expect("id");

    // Not for plain users, nor for another company.
    assert_error(
        app.get("/inbound-failures", &a.user).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_eq!(failures(&app, &b.admin).await["count"], 0);
    assert_error(
        app.delete(&format!("/inbound-failures/{id}"), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.post(
            &format!("/inbound-failures/{id}/retry"),
            &b.admin,
            &json!({}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;

    // A retry fails the same way and is counted.
    let retried = json_of(
        app.post(
            &format!("/inbound-failures/{id}/retry"),
            &a.admin,
            &json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(retried["delivered"], false);
    assert_eq!(
        retried["failure"]["attempts"].as_i64(),
        failure["attempts"].as_i64().map(|n| n + 1)
    );
    // Discarded, it is gone.
    let gone = app
        .delete(&format!("/inbound-failures/{id}"), &a.admin)
        .await;
    assert_eq!(gone.status(), StatusCode::NO_CONTENT);
    assert_eq!(failures(&app, &a.admin).await["count"], 0);
}

async fn nul_in_any_request_is_a_bad_request(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987700041";
    let first = phone(&app, &a, json!({"from": maria, "body": "oi"})).await;
    let messages = messages_when(&app, &a, maria, |m| find(m, &first).is_some()).await;
    let ticket = messages[0]["ticketId"].as_i64().expect("ticketId");
    let contact = messages[0]["contactId"].as_i64().expect("contactId");

    let bad = |response: reqwest::Response| async move {
        assert_error(response, StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST").await;
    };
    bad(app
        .post(
            "/contacts",
            &a.admin,
            &json!({"name": "Bad\u{0}name", "number": "5511987700049"}),
        )
        .await)
    .await;
    bad(app
        .put(
            &format!("/contacts/{contact}"),
            &a.admin,
            &json!({"name": "Bad\u{0}name", "number": maria}),
        )
        .await)
    .await;
    bad(app
        .post(
            "/tags",
            &a.admin,
            &json!({"name": "vip\u{0}", "color": "#fff"}),
        )
        .await)
    .await;
    bad(app
        .post(
            &format!("/messages/{ticket}"),
            &a.admin,
            &json!({"body": "poison \u{0} body"}),
        )
        .await)
    .await;
    bad(app
        .post(
            "/ticket-notes",
            &a.admin,
            &json!({"ticketId": ticket, "note": "a \u{0} note"}),
        )
        .await)
    .await;
    bad(app
        .post(
            &format!("/sandbox/{}/send", a.connection),
            &a.admin,
            &json!({"from": maria, "body": "poison \u{0} body"}),
        )
        .await)
    .await;
    bad(app.get("/contacts?searchParam=a%00b", &a.admin).await).await;
    bad(app
        .get(
            "/tickets?searchParam=oi%00&searchOnMessages=true&showAll=true",
            &a.admin,
        )
        .await)
    .await;
    bad(app.get("/contacts/profile/5511%00", &a.admin).await).await;

    // A multipart caption or file name with a NUL.
    for (caption, name) in [("cap\0tion", "a.txt"), ("caption", "a\0.txt")] {
        let form = reqwest::multipart::Form::new()
            .part(
                "medias",
                reqwest::multipart::Part::bytes(b"hello".to_vec())
                    .file_name(name.to_owned())
                    .mime_str("text/plain")
                    .expect("mime"),
            )
            .text("body", caption.to_owned());
        let response = app
            .client
            .post(app.url(&format!("/messages/{ticket}")))
            .bearer_auth(&a.admin)
            .multipart(form)
            .send()
            .await
            .expect("sent");
        assert!(
            response.status().is_client_error(),
            "{caption:?} {name:?}: {}",
            response.status()
        );
    }

    // The same requests without the NUL work: the refusal is about the NUL alone.
    json_of(
        app.get("/contacts?searchParam=a", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    json_of(
        app.get(
            "/tickets?searchParam=oi&searchOnMessages=true&showAll=true",
            &a.admin,
        )
        .await,
        StatusCode::OK,
    )
    .await;
    // A literal backslash-u text is no NUL.
    json_of(
        app.post(
            "/tags",
            &a.admin,
            &json!({"name": "vip \\u0000", "color": "#fff"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
}

async fn bodies_and_notes_are_bounded(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987700051";
    let first = phone(&app, &a, json!({"from": maria, "body": "oi"})).await;
    let messages = messages_when(&app, &a, maria, |m| find(m, &first).is_some()).await;
    let ticket = messages[0]["ticketId"].as_i64().expect("ticketId");

    let over = "a".repeat(BODY_MAX_CHARS + 1);
    for response in [
        app.post(
            &format!("/messages/{ticket}"),
            &a.admin,
            &json!({"body": over}),
        )
        .await,
        app.post(
            "/ticket-notes",
            &a.admin,
            &json!({"ticketId": ticket, "note": over}),
        )
        .await,
    ] {
        let status = response.status();
        let text = response.text().await.expect("body");
        assert!(status.is_client_error(), "{status} {text}");
        assert!(text.contains("ERR_VALIDATION"), "{text}");
    }
    // 900 KB, the size that used to be accepted.
    let huge = "a".repeat(900 * 1024);
    let response = app
        .post(
            &format!("/messages/{ticket}"),
            &a.admin,
            &json!({"body": huge}),
        )
        .await;
    assert!(response.status().is_client_error(), "{}", response.status());
    // At the limit it is sent.
    let at_limit = "é".repeat(BODY_MAX_CHARS);
    let sent = json_of(
        app.post(
            &format!("/messages/{ticket}"),
            &a.admin,
            &json!({"body": at_limit}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    // Stored as sent (after the company's signature, when it signs).
    assert!(
        sent["body"]
            .as_str()
            .is_some_and(|b| b.ends_with(&at_limit)),
        "{sent}"
    );
}

async fn reacting_to_a_phones_message_reaches_the_phone(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let maria = "5511987700061";
    let sent = phone(&app, &a, json!({"from": maria, "body": "oi"})).await;
    let messages = messages_when(&app, &a, maria, |m| find(m, &sent).is_some()).await;
    let id = find(&messages, &sent).expect("stored")["id"]
        .as_i64()
        .expect("id");
    let reacted = json_of(
        app.post(
            &format!("/messages/{id}/react"),
            &a.admin,
            &json!({"emoji": "👍"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(reacted["id"], id);
    let provider = app.state.sandbox.as_ref().expect("sandbox on");
    let scope = TenantScope::new(a.company);
    let on_phone = provider
        .reaction_to_sent(scope, WhatsappId(a.connection), &sent)
        .await
        .expect("read");
    assert_eq!(on_phone.as_deref(), Some("👍"));
    // Removing it reaches the phone too.
    json_of(
        app.post(
            &format!("/messages/{id}/react"),
            &a.admin,
            &json!({"emoji": ""}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let on_phone = provider
        .reaction_to_sent(scope, WhatsappId(a.connection), &sent)
        .await
        .expect("read");
    assert_eq!(on_phone.as_deref(), Some(""));
}

async fn plain_users_cannot_use_the_sandbox(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let c = a.connection;
    let maria = "5511987700071";
    let file = STANDARD.encode(b"x");
    for response in [
        app.post(&format!("/sandbox/{c}/scan"), &a.user, &json!({}))
            .await,
        app.post(
            &format!("/sandbox/{c}/paircode"),
            &a.user,
            &json!({"code": "ABCD-2345"}),
        )
        .await,
        app.post(
            &format!("/sandbox/{c}/send"),
            &a.user,
            &json!({"from": maria, "body": "as anyone"}),
        )
        .await,
        app.post(
            &format!("/sandbox/{c}/send"),
            &a.user,
            &json!({"from": maria, "fileName": "a.txt", "base64": file}),
        )
        .await,
        app.post(
            &format!("/sandbox/{c}/call"),
            &a.user,
            &json!({"from": maria}),
        )
        .await,
        app.get(&format!("/sandbox/{c}/inbox"), &a.user).await,
    ] {
        assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    }
    // The admin still may.
    json_of(
        app.get(&format!("/sandbox/{c}/inbox"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
}
