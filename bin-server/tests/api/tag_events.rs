//! `company-{id}-tag` on both engines: creating, editing and deleting a tag append the event to
//! the company's log in the write's transaction, with consecutive sequence numbers, and the
//! company's sockets receive it (another company's do not).

use std::time::Duration;

use chatflow_core::TenantScope;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, json_of};
use crate::socket_client::SocketClient;

app_tests!(tag_writes_emit_tag_events);

/// The company's `tag` events in the log, as (seq, payload).
async fn logged_tag_events(app: &TestApp, scope: TenantScope) -> Vec<(i64, Value)> {
    app.logged_events(scope.company_id(), "tag")
        .await
        .into_iter()
        .map(|(seq, payload, _)| (seq, payload))
        .collect()
}

async fn tag_writes_emit_tag_events(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let beta = app.company("Beta").await;
    // An admin: deleting a company tag is an admin's action.
    let ana = app
        .member(
            alpha,
            "ana@alpha.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let bob = app
        .member(beta, "bob@beta.test", MemberOptions::default())
        .await;
    let token = app.token_of(&ana).await;
    let mut alpha_socket = SocketClient::with_token(&app.host, &token).await;
    let mut beta_socket = SocketClient::with_token(&app.host, &app.token_of(&bob).await).await;
    let wait = Duration::from_secs(5);
    let name = format!("company-{alpha}-tag");

    let tag = json_of(
        app.post(
            "/tags",
            &token,
            &json!({"name": "Urgente", "color": "#ff0000"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let created = alpha_socket.expect_event(&name, wait).await;
    assert_eq!(created["action"], "create");
    assert_eq!(created["tag"], tag);
    assert!(created["seq"].as_i64().is_some(), "{created}");

    let id = tag["id"].as_i64().expect("id");
    let edited = json_of(
        app.put(
            &format!("/tags/{id}"),
            &token,
            &json!({"name": "Muito urgente", "color": "#ff0000", "kanban": 1}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let updated = alpha_socket.expect_event(&name, wait).await;
    assert_eq!(updated["action"], "update");
    assert_eq!(updated["tag"], edited);

    let deleted = app.delete(&format!("/tags/{id}"), &token).await;
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let gone = alpha_socket.expect_event(&name, wait).await;
    assert_eq!(
        gone,
        json!({"action": "delete", "tagId": id, "seq": gone["seq"]})
    );

    // A failed write appends nothing: editing or deleting the deleted tag.
    let before = logged_tag_events(&app, TenantScope::new(alpha)).await;
    assert_eq!(
        app.put(
            &format!("/tags/{id}"),
            &token,
            &json!({"name": "De novo", "color": "#ff0000"}),
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.delete(&format!("/tags/{id}"), &token).await.status(),
        StatusCode::NOT_FOUND
    );
    let logged = logged_tag_events(&app, TenantScope::new(alpha)).await;
    assert_eq!(logged, before);
    let actions: Vec<&Value> = logged.iter().map(|(_, p)| &p["action"]).collect();
    assert_eq!(
        actions,
        [&json!("create"), &json!("update"), &json!("delete")]
    );
    let seqs: Vec<i64> = logged.iter().map(|(seq, _)| *seq).collect();
    assert_eq!(seqs[1], seqs[0] + 1, "{seqs:?}");
    assert_eq!(seqs[2], seqs[1] + 1, "{seqs:?}");

    // Beta heard nothing of Alpha's tags and has none in its log.
    let heard = beta_socket.drain(Duration::from_millis(300)).await;
    assert!(
        heard.iter().all(|(event, _)| !event.ends_with("-tag")),
        "{heard:?}"
    );
    assert!(
        logged_tag_events(&app, TenantScope::new(beta))
            .await
            .is_empty()
    );
}
