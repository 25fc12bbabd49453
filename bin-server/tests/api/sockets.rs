//! Realtime: sockets need a token, join only their own company's rooms, and receive their own
//! company's events only.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp};
use crate::socket_client::SocketClient;

app_tests!(
    sockets_without_a_valid_token_are_refused,
    events_stay_inside_their_company,
    signing_in_elsewhere_is_announced_to_the_same_user,
    user_status_marks_the_user_online_until_the_last_socket_leaves,
);

/// Generous: the suite runs many servers at once on two cores; passing runs never wait this long.
const WAIT: Duration = Duration::from_secs(15);
const QUIET: Duration = Duration::from_millis(700);

async fn sockets_without_a_valid_token_are_refused(app: TestApp) {
    let refused = SocketClient::connect(&app.host, None, "")
        .await
        .err()
        .expect("refused");
    assert_eq!(refused, "ERR_SESSION_EXPIRED");
    let forged = SocketClient::connect(&app.host, Some(json!({"token": "abc.def.ghi"})), "")
        .await
        .err()
        .expect("refused");
    assert_eq!(forged, "ERR_SESSION_EXPIRED");
    // The query parameter works as well as the auth payload.
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&member).await;
    assert!(
        SocketClient::connect(&app.host, None, &format!("&token={token}"))
            .await
            .is_ok()
    );
}

async fn events_stay_inside_their_company(app: TestApp) {
    let a = app.company("Alpha").await;
    let b = app.company("Beta").await;
    let a_admin = app
        .member(
            a,
            "boss@alpha.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let a_user = app
        .member(a, "ana@alpha.test", MemberOptions::default())
        .await;
    let b_admin = app
        .member(
            b,
            "boss@beta.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let a_token = app.token_of(&a_admin).await;
    let b_token = app.token_of(&b_admin).await;

    let mut a_socket = SocketClient::with_token(&app.host, &a_token).await;
    let mut b_socket = SocketClient::with_token(&app.host, &b_token).await;
    // B tries to follow rooms by name: only its own company's rooms exist for it.
    b_socket.emit("joinTickets", json!("open")).await;
    b_socket
        .emit("joinTickets", json!(format!("../company-{a}")))
        .await;
    b_socket.emit_bare("joinNotification").await;
    b_socket.emit("joinChatBox", json!(1)).await;
    a_socket.emit("joinTickets", json!("open")).await;

    let renamed = app
        .put(
            &format!("/users/{}", a_user.id),
            &a_token,
            &json!({"name": "Ana Clara"}),
        )
        .await;
    assert_eq!(renamed.status(), StatusCode::OK);
    let settings = app
        .put(
            "/settings/userRating",
            &a_token,
            &json!({"value": "enabled"}),
        )
        .await;
    assert_eq!(settings.status(), StatusCode::OK);

    let event = a_socket
        .expect_event(&format!("company-{a}-user"), WAIT)
        .await;
    assert_eq!(event["action"], "update");
    assert_eq!(event["user"]["name"], "Ana Clara");
    let event = a_socket
        .expect_event(&format!("company-{a}-settings"), WAIT)
        .await;
    assert_eq!(
        event["setting"],
        json!({"key": "userRating", "value": "enabled"})
    );

    // B may hear its own company (its admin's sign-in is announced to that user, and the
    // dispatcher can deliver it after the socket connected); nothing of A's.
    let leaked: Vec<_> = b_socket
        .drain(QUIET)
        .await
        .into_iter()
        .filter(|(name, _)| !name.starts_with(&format!("company-{b}-")))
        .collect();
    assert!(leaked.is_empty(), "company B received {leaked:?}");

    // B's socket works: it hears its own company.
    let created = app
        .post(
            "/users",
            &b_token,
            &json!({"name": "Bea", "email": "bea@beta.test", "password": "bea-pass"}),
        )
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let event = b_socket
        .expect_event(&format!("company-{b}-user"), WAIT)
        .await;
    assert_eq!(event["action"], "create");
    assert_eq!(event["user"]["name"], "Bea");
    let leaked = a_socket.drain(QUIET).await;
    assert!(
        leaked
            .iter()
            .all(|(name, _)| !name.contains(&format!("company-{b}"))),
        "company A received {leaked:?}"
    );
}

async fn signing_in_elsewhere_is_announced_to_the_same_user(app: TestApp) {
    let company = app.company("Acme").await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(company, "bob@acme.test", MemberOptions::default())
        .await;
    let first = app.token_of(&ana).await;
    let mut ana_socket = SocketClient::with_token(&app.host, &first).await;
    let mut bob_socket = SocketClient::with_token(&app.host, &app.token_of(&bob).await).await;
    let _ = bob_socket.drain(QUIET).await;

    let _second = app.token_of(&ana).await;
    let event = ana_socket
        .expect_event(&format!("company-{company}-auth"), WAIT)
        .await;
    assert_eq!(event["action"], "update");
    assert_eq!(event["user"]["id"], ana.id.0);
    assert!(event["sessionId"].is_string());
    let heard = bob_socket.drain(QUIET).await;
    assert!(
        heard.iter().all(|(name, _)| !name.ends_with("-auth")),
        "another user's sign-in is private: {heard:?}"
    );
}

async fn user_status_marks_the_user_online_until_the_last_socket_leaves(app: TestApp) {
    let company = app.company("Acme").await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&ana).await;
    let online = |app: &TestApp| {
        let ports = app.ports.clone();
        async move {
            ports
                .users
                .get(chatflow_core::TenantScope::new(company), ana.id)
                .await
                .expect("read")
                .expect("user")
                .online
        }
    };
    let mut first = SocketClient::with_token(&app.host, &token).await;
    let second = SocketClient::with_token(&app.host, &token).await;
    first.emit_bare("userStatus").await;
    // Earlier writes of the user (the sign-in) may still be on their way to the new socket: the
    // status's own event is the one saying online.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let event = first
            .expect_event(&format!("company-{company}-user"), left)
            .await;
        if event["user"]["online"] == true {
            break;
        }
    }
    assert!(online(&app).await);

    drop(second);
    tokio::time::sleep(QUIET).await;
    assert!(
        online(&app).await,
        "another socket of the user is still connected"
    );
    drop(first);
    let deadline = tokio::time::Instant::now() + WAIT;
    while online(&app).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the user is marked offline"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
