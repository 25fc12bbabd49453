//! Queues over HTTP on both engines: admins create, every user of the company lists, colours are
//! unique per company, and another company never sees them. Plain users see connections without
//! their API token.

use reqwest::StatusCode;
use serde_json::json;

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    queues_create_and_list,
    plain_users_do_not_see_connection_tokens
);

async fn queues_create_and_list(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let beta = app.company("Beta").await;
    let admin = app
        .member(
            alpha,
            "admin@alpha.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    let plain = app
        .member(alpha, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let other = app
        .member(
            beta,
            "admin@beta.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let other = app.token_of(&other).await;

    assert_error(
        app.post(
            "/queue",
            &plain,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.post("/queue", &admin, &json!({"name": "V", "color": "#ff0000"}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    let sales = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(sales["name"], "Vendas");
    assert_error(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Suporte", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUEUE_COLOR_ALREADY_EXISTS",
    )
    .await;
    // Another company may use the same colour, and sees none of Alpha's queues.
    json_of(
        app.post(
            "/queue",
            &other,
            &json!({"name": "Vendas B", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let listed = json_of(app.get("/queue", &plain).await, StatusCode::OK).await;
    assert_eq!(listed, json!([sales]));
    let listed = json_of(app.get("/queue", &other).await, StatusCode::OK).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_ne!(listed[0]["id"], sales["id"]);
}

async fn plain_users_do_not_see_connection_tokens(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let admin = app
        .member(
            alpha,
            "admin@alpha.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    let plain = app
        .member(alpha, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let created = json_of(
        app.post("/whatsapp", &admin, &json!({"name": "Loja"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let token = created["token"].as_str().unwrap_or_default().to_owned();
    assert_eq!(token.len(), 30);
    let id = created["id"].as_i64().unwrap_or_default();
    let seen = json_of(
        app.get(&format!("/whatsapp/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["token"], token);
    let seen = json_of(
        app.get(&format!("/whatsapp/{id}"), &plain).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["token"], "");
    let list = json_of(app.get("/whatsapp", &plain).await, StatusCode::OK).await;
    assert_eq!(list[0]["token"], "");
}
