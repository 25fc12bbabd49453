//! Messages over HTTP on both engines (with the sandbox channel): sending text and private
//! notes, the edit window and own-only edits and deletes, reactions, forwarding, media upload
//! (good, wrong type, oversized) and download, and company B reaching none of company A's
//! messages or media.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_error, json_of};
use crate::tickets::{Inbox, deliver, inbox, inbox_tests, only_ticket};

inbox_tests!(
    send_edit_delete_and_react,
    media_upload_and_download,
    company_b_reaches_none_of_company_a_messages,
);

mod clocked {
    crate::clocked_tests!(forward_to_another_contact);
    use super::*;
}

/// Delivers a first message and has the admin accept the ticket; returns (ticket id, uuid).
pub(crate) async fn accepted_ticket(app: &TestApp, a: &Inbox, from: &str) -> (i64, String) {
    deliver(app, a, &format!("in-{from}"), from, "oi").await;
    let page = json_of(
        app.get("/tickets?showAll=true", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let ticket = page["tickets"]
        .as_array()
        .expect("tickets")
        .iter()
        .find(|t| t["contact"]["number"] == from)
        .expect("the contact's ticket")
        .clone();
    let id = ticket["id"].as_i64().expect("id");
    json_of(
        app.put(
            &format!("/tickets/{id}"),
            &a.admin,
            &json!({"status": "open"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    (id, ticket["uuid"].as_str().expect("uuid").to_owned())
}

async fn send_edit_delete_and_react(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let (id, uuid) = accepted_ticket(&app, &a, "5511987660001").await;
    assert_error(
        app.post(
            &format!("/messages/{id}"),
            &a.admin,
            &json!({"body": "   "}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    let sent = json_of(
        app.post(
            &format!("/messages/{id}"),
            &a.admin,
            &json!({"body": "Olá!"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    // The company signs messages by default.
    assert_eq!(sent["body"], "*boss*:\nOlá!");
    assert_eq!(sent["ack"], 1);
    assert_eq!(sent["fromMe"], true);
    let unsigned = json_of(
        app.post(
            &format!("/messages/{id}"),
            &a.admin,
            &json!({"body": "sem assinatura", "signMessage": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(unsigned["body"], "sem assinatura");
    let note = json_of(
        app.post(
            &format!("/messages/{id}"),
            &a.admin,
            &json!({"body": "nota", "isPrivate": true}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(note["isPrivate"], true);
    assert_eq!(note["ack"], 0);
    let message = sent["id"].as_i64().expect("id");
    // Edit own within the window; another user may not.
    let edited = json_of(
        app.post(
            &format!("/messages/edit/{message}"),
            &a.admin,
            &json!({"body": "Olá, tudo bem?"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(edited["isEdited"], true);
    assert_eq!(edited["body"], "Olá, tudo bem?");
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let inbound = page["messages"][0]["id"].as_i64().expect("inbound id");
    assert_eq!(page["messages"].as_array().map(Vec::len), Some(4));
    assert_error(
        app.post(
            &format!("/messages/edit/{inbound}"),
            &a.admin,
            &json!({"body": "x"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.delete(&format!("/messages/{inbound}"), &a.admin).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let reacted = json_of(
        app.post(
            &format!("/messages/{message}/react"),
            &a.admin,
            &json!({"emoji": "👍"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        reacted["reactions"],
        json!([{"emoji": "👍", "fromMe": true}])
    );
    let deleted = json_of(
        app.delete(&format!("/messages/{message}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(deleted["isDeleted"], true);
    let count = json_of(
        app.get("/messages-allMe?fromMe=true", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(count["count"][0]["count"], 3);
}

async fn forward_to_another_contact(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let (_, uuid) = accepted_ticket(&app, &a, "5511987660002").await;
    deliver(&app, &a, "other-1", "5511987660003", "eu também").await;
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let message = page["messages"][0]["id"].as_i64().expect("id");
    let tickets = json_of(
        app.get("/tickets?showAll=true", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let target: Value = tickets["tickets"]
        .as_array()
        .expect("tickets")
        .iter()
        .find(|t| t["contact"]["number"] == "5511987660003")
        .expect("second contact")
        .clone();
    let forwarded = json_of(
        app.post(
            "/message/forward",
            &a.admin,
            &json!({"messageId": message, "contactId": target["contactId"], "signMessage": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(forwarded["message"]["isForwarded"], true);
    assert_eq!(forwarded["message"]["body"], "oi");
    assert_eq!(forwarded["message"]["ticketId"], target["id"]);
    assert_eq!(forwarded["queued"], 0);

    // Several: the first at once, the others through the durable job queue, 900 ms apart.
    deliver(&app, &a, "more-1", "5511987660002", "um").await;
    deliver(&app, &a, "more-2", "5511987660002", "dois").await;
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let ids: Vec<i64> = page["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["fromMe"] == false)
        .map(|m| m["id"].as_i64().expect("id"))
        .collect();
    assert_eq!(ids.len(), 3);
    let forwarded = json_of(
        app.post(
            "/message/forward",
            &a.admin,
            &json!({"messageId": ids, "contactId": target["contactId"], "signMessage": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(forwarded["queued"], 2);
    let target_uuid = target["uuid"].as_str().expect("uuid");
    let bodies = |copies: &[Value]| -> Vec<String> {
        copies
            .iter()
            .filter_map(|m| m["body"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(
        bodies(&forwarded_copies(&app, &a.admin, target_uuid).await),
        ["oi", "oi"]
    );
    // Each copy waits its pause after the one before, however late the worker runs it: a
    // worker that wakes long after both were due still sends only the next one.
    assert_eq!(app.run_due_jobs().await, 0, "not due before the pause");
    app.advance(chrono::TimeDelta::seconds(5));
    assert_eq!(app.run_due_jobs().await, 1, "one copy per pause");
    assert_eq!(
        bodies(&forwarded_copies(&app, &a.admin, target_uuid).await),
        ["oi", "oi", "um"]
    );
    app.advance(chrono::TimeDelta::milliseconds(899));
    assert_eq!(
        app.run_due_jobs().await,
        0,
        "the pause runs from the copy before"
    );
    app.advance(chrono::TimeDelta::milliseconds(1));
    assert_eq!(app.run_due_jobs().await, 1);
    let copies = forwarded_copies(&app, &a.admin, target_uuid).await;
    assert_eq!(bodies(&copies), ["oi", "oi", "um", "dois"]);
    let at = |m: &Value| {
        chrono::DateTime::parse_from_rfc3339(m["createdAt"].as_str().expect("createdAt"))
            .expect("time")
    };
    assert_eq!(
        at(&copies[3]) - at(&copies[2]),
        chrono::TimeDelta::milliseconds(900)
    );
    // Nothing left in the queue once the last job is settled.
    let jobs = app
        .pending_jobs(chatflow_core::TenantScope::new(a.company))
        .await;
    assert!(jobs.is_empty(), "{jobs:?}");
}

/// The forwarded copies in a ticket, oldest first.
async fn forwarded_copies(app: &TestApp, token: &str, uuid: &str) -> Vec<Value> {
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), token).await,
        StatusCode::OK,
    )
    .await;
    page["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["isForwarded"] == true)
        .cloned()
        .collect()
}

async fn media_upload_and_download(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let (id, _) = accepted_ticket(&app, &a, "5511987660004").await;
    let upload = |name: &str, mime: &str, bytes: Vec<u8>| {
        Form::new()
            .part(
                "medias",
                Part::bytes(bytes)
                    .file_name(name.to_owned())
                    .mime_str(mime)
                    .expect("mime"),
            )
            .text("body", "legenda")
    };
    let response = app
        .client
        .post(app.url(&format!("/messages/{id}")))
        .bearer_auth(&a.admin)
        .multipart(upload("foto.png", "image/png", vec![1, 2, 3, 4]))
        .send()
        .await
        .expect("sent");
    let sent = json_of(response, StatusCode::OK).await;
    assert_eq!(sent["mediaType"], "image");
    assert_eq!(sent["mediaName"], "foto.png");
    let message = sent["id"].as_i64().expect("id");
    let url = sent["mediaUrl"].as_str().expect("media url").to_owned();
    assert_eq!(url, format!("/messages/{message}/media"));
    let fetched = app.get(&url, &a.admin).await;
    assert_eq!(fetched.status(), StatusCode::OK);
    assert_eq!(
        fetched.bytes().await.expect("bytes").to_vec(),
        vec![1, 2, 3, 4]
    );
    assert_error(
        app.get(&url, &b.admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.get(&url, "not-a-token").await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    let wrong = app
        .client
        .post(app.url(&format!("/messages/{id}")))
        .bearer_auth(&a.admin)
        .multipart(upload("run.exe", "application/x-msdownload", vec![0; 10]))
        .send()
        .await
        .expect("sent");
    assert_error(wrong, StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION").await;
    let big = app
        .client
        .post(app.url(&format!("/messages/{id}")))
        .bearer_auth(&a.admin)
        .multipart(upload(
            "big.png",
            "image/png",
            vec![0; 16 * 1024 * 1024 + 1],
        ))
        .send()
        .await
        .expect("sent");
    assert_error(big, StatusCode::PAYLOAD_TOO_LARGE, "ERR_PAYLOAD_TOO_LARGE").await;
}

async fn company_b_reaches_none_of_company_a_messages(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let (id, _) = accepted_ticket(&app, &a, "5511987660005").await;
    let sent = json_of(
        app.post(
            &format!("/messages/{id}"),
            &a.admin,
            &json!({"body": "Olá"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let message = sent["id"].as_i64().expect("id");
    let ticket = only_ticket(&app, &a).await;
    for response in [
        app.post(
            &format!("/messages/edit/{message}"),
            &b.admin,
            &json!({"body": "x"}),
        )
        .await,
        app.delete(&format!("/messages/{message}"), &b.admin).await,
        app.post(
            &format!("/messages/{message}/react"),
            &b.admin,
            &json!({"emoji": "👎"}),
        )
        .await,
        app.get(&format!("/messages/{message}/media"), &b.admin)
            .await,
        app.post(
            "/message/forward",
            &b.admin,
            &json!({"messageId": message, "contactId": ticket["contactId"]}),
        )
        .await,
    ] {
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
    let count = json_of(app.get("/messages-allMe", &b.admin).await, StatusCode::OK).await;
    assert_eq!(count["count"][0]["count"], 0);
    let fresh = json_of(
        app.get(&format!("/tickets/{id}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(fresh["lastMessage"], "*boss*:\nOlá");
}
