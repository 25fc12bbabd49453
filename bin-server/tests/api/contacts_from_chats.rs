//! `GET /contacts/profile/{number}` and `POST /contacts/import/chats` (and `POST /contacts/import`
//! with `whatsappId`) on both engines, with sandbox phones as the connection's chats: a stored
//! contact answers first, else the channel's profile; importing creates the chats' missing
//! contacts and leaves existing ones; another company gets 404 and never data.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{TestApp, assert_error, json_of};
use crate::sandbox_phones::{messages_when, phone};
use crate::tickets::{inbox, inbox_tests};

inbox_tests!(
    profile_and_import_from_chats,
    company_b_gets_nothing_of_company_a_chats
);

async fn profile_and_import_from_chats(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let (maria, joao) = ("5511987710001", "5511987710002");
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "oi"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| {
        m.iter().any(|x| x["externalId"] == first)
    })
    .await;
    let second = phone(
        &app,
        &a,
        json!({"from": joao, "name": "João", "body": "olá"}),
    )
    .await;
    messages_when(&app, &a, joao, |m| {
        m.iter().any(|x| x["externalId"] == second)
    })
    .await;

    // João is a contact: his profile is the stored contact, whatever the number's formatting.
    let profile = json_of(
        app.get("/contacts/profile/+55%20(11)%2098771-0002", &a.user)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(profile["number"], joao);
    assert_eq!(profile["name"], "João");
    assert!(profile["contact"]["id"].as_i64().is_some(), "{profile}");

    // Maria's contact is deleted: the channel still knows her phone.
    let contacts = json_of(
        app.get(&format!("/contacts?searchParam={maria}"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    let maria_id = contacts["contacts"][0]["id"]
        .as_i64()
        .expect("Maria's contact");
    assert!(
        app.delete(&format!("/contacts/{maria_id}"), &a.admin)
            .await
            .status()
            .is_success()
    );
    let profile = json_of(
        app.get(&format!("/contacts/profile/{maria}"), &a.user)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        profile,
        json!({"number": maria, "name": "Maria", "profilePicUrl": "", "contact": null})
    );
    assert_error(
        app.get("/contacts/profile/5511900000000", &a.user).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
    assert_error(
        app.get("/contacts/profile/maria", &a.user).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_WAPP_INVALID_CONTACT",
    )
    .await;

    // Importing the chats brings Maria back and leaves João as he is; a plain user may import.
    let report = json_of(
        app.post("/contacts/import/chats", &a.user, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        report,
        json!({"whatsappId": a.connection, "chats": 2, "imported": 1, "existing": 1, "ignored": 0})
    );
    let back = json_of(
        app.get(&format!("/contacts?searchParam={maria}"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(back["contacts"][0]["name"], "Maria");
    assert_eq!(back["contacts"][0]["number"], maria);
    let again = json_of(
        app.post(
            "/contacts/import",
            &a.admin,
            &json!({"whatsappId": a.connection}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(again["imported"], 0);
    assert_eq!(again["existing"], 2);

    // A disconnected connection cannot be asked.
    let gone = app
        .delete(&format!("/whatsappsession/{}", a.connection), &a.admin)
        .await;
    assert!(gone.status().is_success(), "{}", gone.status());
    assert_error(
        app.post("/contacts/import/chats", &a.admin, &json!({}))
            .await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_NOT_INITIALIZED",
    )
    .await;
}

async fn company_b_gets_nothing_of_company_a_chats(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    let maria = "5511987710011";
    let first = phone(
        &app,
        &a,
        json!({"from": maria, "name": "Maria", "body": "oi"}),
    )
    .await;
    messages_when(&app, &a, maria, |m| {
        m.iter().any(|x| x["externalId"] == first)
    })
    .await;

    // B's admin: A's contact is not B's, and B's own connected phone network never heard of her.
    assert_error(
        app.get(&format!("/contacts/profile/{maria}"), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
    assert_error(
        app.post(
            "/contacts/import",
            &b.admin,
            &json!({"whatsappId": a.connection}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;
    let own = json_of(
        app.post("/contacts/import/chats", &b.admin, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(own["chats"], 0);
    let listed = json_of(app.get("/contacts", &b.admin).await, StatusCode::OK).await;
    assert_eq!(listed["contacts"], json!([]));
    assert_eq!(
        app.get("/contacts/profile/1", &b.user).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
}
