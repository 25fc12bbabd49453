//! Settings: who reads and changes which keys, the catalogue's checks, public keys and secrets.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    admins_change_company_settings_within_the_rules,
    platform_keys_and_secrets_belong_to_the_super_user,
    public_settings_are_whitelisted,
);

fn value_of<'a>(list: &'a Value, key: &str) -> Option<&'a Value> {
    list.as_array()?
        .iter()
        .find(|s| s["key"] == key)
        .map(|s| &s["value"])
}

async fn admins_change_company_settings_within_the_rules(app: TestApp) {
    let company = app.company("Acme").await;
    let admin = app
        .member(
            company,
            "boss@acme.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let token = app.token_of(&admin).await;

    let list = json_of(app.get("/settings", &token).await, StatusCode::OK).await;
    assert_eq!(
        value_of(&list, "sendSignMessage"),
        Some(&json!("enabled")),
        "defaults are listed"
    );
    assert_eq!(
        value_of(&list, "keymp"),
        None,
        "no platform keys for an admin"
    );
    assert_eq!(value_of(&list, "userCreation"), None);

    let bad = app
        .put("/settings/requiredTag", &token, &json!({"value": "yes"}))
        .await;
    assert_error(bad, StatusCode::UNPROCESSABLE_ENTITY, "ERR_INVALID_SETTING").await;
    let unknown = app
        .put("/settings/noSuchKey", &token, &json!({"value": "enabled"}))
        .await;
    assert_error(
        unknown,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_INVALID_SETTING",
    )
    .await;
    let without_message = app
        .put(
            "/settings/sendGreetingAccepted",
            &token,
            &json!({"value": "enabled"}),
        )
        .await;
    assert_error(
        without_message,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_SETTING_MESSAGE_REQUIRED",
    )
    .await;

    let by_column = app
        .put(
            "/companySettings",
            &token,
            &json!({"column": "greetingAcceptedMessage", "data": "Olá!"}),
        )
        .await;
    assert_eq!(by_column.status(), StatusCode::OK);
    let enabled = json_of(
        app.put(
            "/settings/sendGreetingAccepted",
            &token,
            &json!({"value": "enabled"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        enabled,
        json!({"key": "sendGreetingAccepted", "value": "enabled"})
    );
    let one = json_of(
        app.get("/setting/sendGreetingAccepted", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(one["value"], "enabled");
    let object = json_of(
        app.get(&format!("/companySettings/{company}"), &token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(object["greetingAcceptedMessage"], "Olá!");
    assert_eq!(object["sendGreetingAccepted"], "enabled");

    assert_error(
        app.get("/setting/noSuchKey", &token).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_SETTING_FOUND",
    )
    .await;
    let platform = app
        .put(
            "/settings/allowSignup",
            &token,
            &json!({"value": "disabled"}),
        )
        .await;
    assert_error(platform, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    assert_error(
        app.get("/setting/keymp", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    // A non-secret platform key may be read.
    let creation = json_of(
        app.get("/companySettingOne?column=userCreation", &token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(creation["value"], "enabled");
}

async fn platform_keys_and_secrets_belong_to_the_super_user(app: TestApp) {
    let root = app.super_token().await;
    let stored = json_of(
        app.put("/settings/keymp", &root, &json!({"value": "mp-secret-key"}))
            .await,
        StatusCode::OK,
    )
    .await;
    // Secrets are write-only: even the super user is shown that one is set, not its value.
    assert_eq!(stored["value"], "********");
    let list = json_of(app.get("/settings", &root).await, StatusCode::OK).await;
    assert_eq!(value_of(&list, "keymp"), Some(&json!("********")));
    assert!(!list.to_string().contains("mp-secret-key"));
    assert_eq!(value_of(&list, "userCreation"), Some(&json!("enabled")));
    let text = list.to_string();
    assert!(!text.contains("jwtSecret"), "the token key is never listed");
    let colour = app
        .put(
            "/settings/primaryColorLight",
            &root,
            &json!({"value": "blue"}),
        )
        .await;
    assert_error(
        colour,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_INVALID_SETTING",
    )
    .await;
    assert_eq!(
        app.put(
            "/settings/primaryColorLight",
            &root,
            &json!({"value": "#112233"})
        )
        .await
        .status(),
        StatusCode::OK
    );

    // Another company's admin sees none of it, and the super user reads any company's settings.
    let company = app.company("Acme").await;
    let admin = app
        .member(
            company,
            "boss@acme.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let token = app.token_of(&admin).await;
    let list = app
        .get("/settings", &token)
        .await
        .text()
        .await
        .expect("body");
    assert!(!list.contains("mp-secret-key"));
    let theirs = json_of(
        app.get(&format!("/companySettings/{company}"), &root).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(theirs["userRating"], "disabled");
    assert_error(
        app.get("/companySettings/999999", &root).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_COMPANY_FOUND",
    )
    .await;
}

async fn public_settings_are_whitelisted(app: TestApp) {
    let public = |key: &str| {
        app.client
            .get(app.url(&format!("/public-settings/{key}")))
            .send()
    };
    let name = json_of(public("appName").await.expect("sent"), StatusCode::OK).await;
    assert_eq!(name["key"], "appName");
    assert!(name["value"].as_str().is_some_and(|v| !v.is_empty()));
    let colour = json_of(
        public("primaryColorDark").await.expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert_eq!(colour["value"], "#39ACE7");
    for key in [
        "keymp",
        "userCreation",
        "userRating",
        "jwtSecret",
        "nothing",
    ] {
        assert_error(
            public(key).await.expect("sent"),
            StatusCode::NOT_FOUND,
            "ERR_NOT_FOUND",
        )
        .await;
    }
}
