//! Users: creation and its limits, permissions per profile and flag, self-service, search,
//! panel width and avatars.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    admins_create_users_within_the_plan,
    plain_users_are_kept_to_themselves,
    flags_widen_what_a_plain_user_sees,
    search_is_case_insensitive_and_paginated,
    panel_width_is_bounded_and_personal,
    avatars_are_images_of_limited_size,
    only_the_super_user_touches_the_super_user,
);

/// A 1×1 PNG.
pub const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xCF, 0xC0, 0xF0,
    0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
];

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .filter_map(|u| u["name"].as_str().map(str::to_owned))
        .collect()
}

async fn admins_create_users_within_the_plan(app: TestApp) {
    let plan = app.plan("Two seats", 2, false).await;
    let company = app
        .company_on("Small", plan, crate::helpers::days_from_today(30))
        .await;
    let admin = app
        .member(
            company,
            "boss@small.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let token = app.token_of(&admin).await;

    let invalid = app
        .post(
            "/users",
            &token,
            &json!({"name": "B", "email": "nope", "password": "123"}),
        )
        .await;
    let body = json_of(invalid, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["error"], "ERR_VALIDATION");
    let fields: Vec<&str> = body["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["field"].as_str())
        .collect();
    assert_eq!(fields, ["name", "email", "password"]);

    let created = app
        .post(
            "/users",
            &token,
            &json!({
                "name": "Bia", "email": "Bia@Small.test", "password": "bia-pass",
                "profile": "user", "allowConnections": "enabled", "startWork": "08:00", "endWork": "18:00"
            }),
        )
        .await;
    let bia = json_of(created, StatusCode::CREATED).await;
    assert_eq!(bia["email"], "bia@small.test");
    assert_eq!(bia["allowConnections"], "enabled");
    assert_eq!(bia["startWork"], "08:00");
    assert_eq!(bia["company"]["name"], "Small");
    assert_eq!(
        app.login_with(&crate::helpers::browser(), "bia@small.test", "bia-pass")
            .await
            .status(),
        StatusCode::OK
    );

    let duplicate = app
        .post(
            "/users",
            &token,
            &json!({"name": "Ana", "email": "bia@small.test", "password": "12345"}),
        )
        .await;
    // The plan is full before the e-mail is even looked at.
    assert_error(duplicate, StatusCode::FORBIDDEN, "ERR_USER_LIMIT_REACHED").await;
    let third = app
        .post(
            "/users",
            &token,
            &json!({"name": "Caio", "email": "caio@small.test", "password": "12345"}),
        )
        .await;
    assert_error(third, StatusCode::FORBIDDEN, "ERR_USER_LIMIT_REACHED").await;

    // With room again, a taken e-mail is a conflict.
    assert_eq!(
        app.delete(&format!("/users/{}", bia["id"]), &token)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let duplicate = app
        .post(
            "/users",
            &token,
            &json!({"name": "Ana", "email": "BOSS@small.test", "password": "12345"}),
        )
        .await;
    assert_error(duplicate, StatusCode::CONFLICT, "ERR_DUPLICATED_EMAIL").await;
}

async fn plain_users_are_kept_to_themselves(app: TestApp) {
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
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(company, "bob@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&ana).await;

    assert_error(
        app.get("/users/", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let brief = json_of(app.get("/users/list", &token).await, StatusCode::OK).await;
    assert_eq!(names(&brief).len(), 3);
    assert!(
        brief[0].get("email").is_none(),
        "the brief list has no e-mails"
    );
    assert_error(
        app.get(&format!("/users/{}", bob.id), &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let create = app
        .post(
            "/users",
            &token,
            &json!({"name": "Eve", "email": "eve@acme.test", "password": "12345"}),
        )
        .await;
    assert_error(create, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    assert_error(
        app.get("/settings", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;

    // Self-service fields are fine, and sending unchanged privileged fields is harmless.
    let me = json_of(
        app.get(&format!("/users/{}", ana.id), &token).await,
        StatusCode::OK,
    )
    .await;
    let mut form = me.clone();
    form["name"] = json!("Ana Maria");
    form["defaultTheme"] = json!("dark");
    form["farewellMessage"] = json!("Tchau!");
    let updated = json_of(
        app.put(&format!("/users/{}", ana.id), &token, &form).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(updated["name"], "Ana Maria");
    assert_eq!(updated["defaultTheme"], "dark");
    assert_eq!(updated["farewellMessage"], "Tchau!");

    // Raising one's own privileges is not.
    for change in [
        json!({"profile": "admin"}),
        json!({"allowConnections": "enabled"}),
        json!({"startWork": "01:00"}),
        json!({"allUserChat": "enabled"}),
    ] {
        let response = app
            .put(&format!("/users/{}", ana.id), &token, &change)
            .await;
        assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    }
    // Nor touching a colleague.
    let response = app
        .put(
            &format!("/users/{}", bob.id),
            &token,
            &json!({"name": "Bobby"}),
        )
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    assert_error(
        app.delete(&format!("/users/{}", bob.id), &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.delete(&format!("/users/{}", ana.id), &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;

    // Changing one's password works and the new one signs in.
    let changed = app
        .put(
            &format!("/users/{}", ana.id),
            &token,
            &json!({"password": "brand-new-pass"}),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(
        app.login_with(&crate::helpers::browser(), &ana.email, "brand-new-pass")
            .await
            .status(),
        StatusCode::OK
    );

    // An admin may do all of it, but not delete themselves.
    let admin_token = app.token_of(&admin).await;
    let promoted = app
        .put(
            &format!("/users/{}", bob.id),
            &admin_token,
            &json!({"profile": "admin", "allowConnections": "enabled"}),
        )
        .await;
    let promoted = json_of(promoted, StatusCode::OK).await;
    assert_eq!(promoted["profile"], "admin");
    assert_error(
        app.delete(&format!("/users/{}", admin.id), &admin_token)
            .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_eq!(
        app.get("/users/", &admin_token).await.status(),
        StatusCode::OK
    );
}

async fn flags_widen_what_a_plain_user_sees(app: TestApp) {
    let company = app.company("Acme").await;
    let connector = app
        .member(
            company,
            "conn@acme.test",
            MemberOptions {
                allow_connections: true,
                ..Default::default()
            },
        )
        .await;
    let watcher = app
        .member(
            company,
            "dash@acme.test",
            MemberOptions {
                show_dashboard: true,
                ..Default::default()
            },
        )
        .await;
    let plain = app
        .member(company, "plain@acme.test", MemberOptions::default())
        .await;

    let permissions = |body: &Value| -> Vec<String> {
        body["permissions"]
            .as_array()
            .expect("a list")
            .iter()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect()
    };
    let token = app.token_of(&connector).await;
    let me = json_of(app.get("/auth/me", &token).await, StatusCode::OK).await;
    let granted = permissions(&me);
    for p in [
        "menu:connections",
        "menu:users",
        "menu:settings",
        "connections-page:addConnection",
    ] {
        assert!(granted.iter().any(|g| g == p), "{p} in {granted:?}");
    }
    assert!(!granted.iter().any(|g| g == "dashboard:view"));
    // The administration section lets them read the users table and settings, not change them.
    assert_eq!(app.get("/users/", &token).await.status(), StatusCode::OK);
    assert_eq!(app.get("/settings", &token).await.status(), StatusCode::OK);
    let create = app
        .post(
            "/users",
            &token,
            &json!({"name": "Eve", "email": "eve@acme.test", "password": "12345"}),
        )
        .await;
    assert_error(create, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    let change = app
        .put("/settings/userRating", &token, &json!({"value": "enabled"}))
        .await;
    assert_error(change, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;

    let token = app.token_of(&watcher).await;
    let granted = permissions(&json_of(app.get("/auth/me", &token).await, StatusCode::OK).await);
    assert!(
        granted
            .iter()
            .any(|g| g == "dashboard:view" || g == "menu:dashboard"),
        "{granted:?}"
    );
    assert!(!granted.iter().any(|g| g == "menu:users"), "{granted:?}");
    assert_error(
        app.get("/users/", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;

    let token = app.token_of(&plain).await;
    let granted = permissions(&json_of(app.get("/auth/me", &token).await, StatusCode::OK).await);
    for p in [
        "menu:users",
        "menu:settings",
        "menu:connections",
        "dashboard:view",
        "menu:companies",
    ] {
        assert!(!granted.iter().any(|g| g == p), "{p} not in {granted:?}");
    }
}

async fn search_is_case_insensitive_and_paginated(app: TestApp) {
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
    for n in 0..24 {
        app.member(
            company,
            &format!("agent{n:02}@acme.test"),
            MemberOptions::default(),
        )
        .await;
    }
    let token = app.token_of(&admin).await;
    let first = json_of(
        app.get("/users/?pageNumber=1", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(first["count"], 25);
    assert_eq!(first["hasMore"], true);
    assert_eq!(first["users"].as_array().expect("users").len(), 20);
    let second = json_of(
        app.get("/users/?pageNumber=2", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["hasMore"], false);
    assert_eq!(second["users"].as_array().expect("users").len(), 5);
    let found = json_of(
        app.get("/users/?searchParam=AGENT1", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(found["count"], 10, "agent10..agent19");
    let none = json_of(
        app.get("/users/?searchParam=%25", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(none["count"], 0, "% is a character, not a wildcard");
}

async fn panel_width_is_bounded_and_personal(app: TestApp) {
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
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&ana).await;
    let path = format!("/users/toggleChangeWidht/{}", ana.id);
    let narrow = app
        .put(&path, &token, &json!({"defaultTicketsManagerWidth": 403}))
        .await;
    assert_error(narrow, StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION").await;
    let wide = app
        .put(&path, &token, &json!({"defaultTicketsManagerWidth": 701}))
        .await;
    assert_error(wide, StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION").await;
    let ok = json_of(
        app.put(&path, &token, &json!({"defaultTicketsManagerWidth": 404}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["defaultTicketsManagerWidth"], 404);
    // Not even an admin sets someone else's panel.
    let admin_token = app.token_of(&admin).await;
    let response = app
        .put(
            &path,
            &admin_token,
            &json!({"defaultTicketsManagerWidth": 600}),
        )
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
}

async fn avatars_are_images_of_limited_size(app: TestApp) {
    let company = app.company("Acme").await;
    let ana = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(company, "bob@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&ana).await;
    let upload = |bytes: Vec<u8>, mime: &'static str| {
        let part = Part::bytes(bytes)
            .file_name("avatar")
            .mime_str(mime)
            .expect("a mime type");
        app.client
            .post(app.url(&format!("/users/{}/media-upload", ana.id)))
            .bearer_auth(&token)
            .multipart(
                Form::new()
                    .text("typeArch", "user")
                    .part("profileImage", part),
            )
            .send()
    };

    let text = upload(b"hello, not an image".to_vec(), "image/png")
        .await
        .expect("sent");
    assert_error(text, StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION").await;
    let mut big = PNG.to_vec();
    big.resize(3 * 1024 * 1024, 0);
    let too_big = upload(big, "image/png").await.expect("sent");
    assert_error(
        too_big,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;

    let stored = json_of(
        upload(PNG.to_vec(), "image/png").await.expect("sent"),
        StatusCode::OK,
    )
    .await;
    let name = stored["profileImage"]
        .as_str()
        .expect("an avatar name")
        .to_owned();
    assert!(!name.contains('/'), "{name}");

    // A colleague sees it; the file is where the media store keeps company files.
    let bob_token = app.token_of(&bob).await;
    let image = app
        .get(&format!("/users/{}/avatar", ana.id), &bob_token)
        .await;
    assert_eq!(image.status(), StatusCode::OK);
    assert_eq!(
        image
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/png")
    );
    assert_eq!(image.bytes().await.expect("bytes").as_ref(), PNG);
    assert!(app.media_dir.exists());
    // Without a token, nothing.
    let anonymous = app
        .client
        .get(app.url(&format!("/users/{}/avatar", ana.id)))
        .send()
        .await
        .expect("sent");
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "ERR_SESSION_EXPIRED").await;
    // Bob may not replace Ana's avatar.
    let part = Part::bytes(PNG.to_vec())
        .file_name("a.png")
        .mime_str("image/png")
        .expect("mime");
    let response = app
        .client
        .post(app.url(&format!("/users/{}/media-upload", ana.id)))
        .bearer_auth(&bob_token)
        .multipart(Form::new().part("profileImage", part))
        .send()
        .await
        .expect("sent");
    assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    // A user without an avatar has none to serve.
    assert_error(
        app.get(&format!("/users/{}/avatar", bob.id), &token).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
}

async fn only_the_super_user_touches_the_super_user(app: TestApp) {
    let platform = chatflow_core::CompanyId::PLATFORM;
    let admin = app
        .member(
            platform,
            "helper@chatflow.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let token = app.token_of(&admin).await;
    let root = app
        .ports
        .users
        .find_for_login(crate::helpers::ADMIN_EMAIL)
        .await
        .expect("read")
        .expect("the seeded super user")
        .user;
    let response = app
        .put(
            &format!("/users/{}", root.id),
            &token,
            &json!({"password": "taken-over"}),
        )
        .await;
    assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    assert_error(
        app.delete(&format!("/users/{}", root.id), &token).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let super_flag = app
        .put(
            &format!("/users/{}", admin.id),
            &token,
            &json!({"super": true}),
        )
        .await;
    let body = json_of(super_flag, StatusCode::OK).await;
    assert_eq!(
        body["super"], false,
        "the super flag is not writable through the API"
    );
}
