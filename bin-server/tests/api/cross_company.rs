//! A user of company B aims every endpoint of this issue at company A's ids: each answer is 404
//! or 403, never A's data, and nothing of A changes.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, error_of, json_of};
use crate::users::PNG;

app_tests!(company_b_never_reaches_company_a);

async fn company_b_never_reaches_company_a(app: TestApp) {
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
    let b_user = app
        .member(b, "bob@beta.test", MemberOptions::default())
        .await;
    let a_token = app.token_of(&a_admin).await;
    // Company A has an avatar and a changed setting, so there is something to leak.
    let part = Part::bytes(PNG.to_vec())
        .file_name("a.png")
        .mime_str("image/png")
        .expect("mime");
    let uploaded = app
        .client
        .post(app.url(&format!("/users/{}/media-upload", a_user.id)))
        .bearer_auth(&a_token)
        .multipart(Form::new().part("profileImage", part))
        .send()
        .await
        .expect("sent");
    assert_eq!(uploaded.status(), StatusCode::OK);
    assert_eq!(
        app.put(
            "/settings/userRating",
            &a_token,
            &json!({"value": "enabled"})
        )
        .await
        .status(),
        StatusCode::OK
    );

    for b_member in [&b_admin, &b_user] {
        let token = app.token_of(b_member).await;
        let user_path = format!("/users/{}", a_user.id);
        let attempts = vec![
            ("GET user", app.get(&user_path, &token).await),
            (
                "PUT user",
                app.put(
                    &user_path,
                    &token,
                    &json!({"name": "Hacked", "password": "hacked-1"}),
                )
                .await,
            ),
            ("DELETE user", app.delete(&user_path, &token).await),
            (
                "GET avatar",
                app.get(&format!("/users/{}/avatar", a_user.id), &token)
                    .await,
            ),
            (
                "PUT width",
                app.put(
                    &format!("/users/toggleChangeWidht/{}", a_user.id),
                    &token,
                    &json!({"defaultTicketsManagerWidth": 500}),
                )
                .await,
            ),
            ("upload avatar", {
                let part = Part::bytes(PNG.to_vec())
                    .file_name("b.png")
                    .mime_str("image/png")
                    .expect("mime");
                app.client
                    .post(app.url(&format!("/users/{}/media-upload", a_user.id)))
                    .bearer_auth(&token)
                    .multipart(Form::new().part("profileImage", part))
                    .send()
                    .await
                    .expect("sent")
            }),
            (
                "GET company",
                app.get(&format!("/companies/{a}"), &token).await,
            ),
            (
                "GET plan",
                app.get(&format!("/companies/listPlan/{a}"), &token).await,
            ),
            (
                "GET companySettings",
                app.get(&format!("/companySettings/{a}"), &token).await,
            ),
        ];
        for (what, response) in attempts {
            let (status, code) = error_of(response).await;
            assert!(
                status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
                "{what} by {}: {status} {code}",
                b_member.email
            );
        }

        // Lists show B's users only.
        let brief = app
            .get("/users/list", &token)
            .await
            .text()
            .await
            .expect("body");
        assert!(
            !brief.contains("alpha.test") && !brief.contains(&format!("\"id\":{}", a_user.id)),
            "{brief}"
        );
        if b_member.id == b_admin.id {
            let table = app
                .get("/users/?searchParam=ana", &token)
                .await
                .text()
                .await
                .expect("body");
            assert!(!table.contains("alpha"), "{table}");
            // Settings are B's own: A's change does not show, and B's change stays in B.
            let settings = json_of(app.get("/settings", &token).await, StatusCode::OK).await;
            let rating = settings
                .as_array()
                .expect("a list")
                .iter()
                .find(|s| s["key"] == "userRating")
                .expect("userRating");
            assert_eq!(rating["value"], "disabled");
            assert_eq!(
                app.put(
                    "/settings/userRating",
                    &token,
                    &json!({"value": "disabled"})
                )
                .await
                .status(),
                StatusCode::OK
            );
            let one = json_of(
                app.get("/companySettingOne?column=userRating", &token)
                    .await,
                StatusCode::OK,
            )
            .await;
            assert_eq!(one["value"], "disabled");
        }
    }

    // Nothing of A changed.
    let still = json_of(
        app.get(&format!("/users/{}", a_user.id), &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(still["name"], "ana");
    assert_eq!(still["defaultTicketsManagerWidth"], 550);
    assert_eq!(
        app.login_with(
            &crate::helpers::browser(),
            &a_user.email,
            crate::helpers::PASSWORD
        )
        .await
        .status(),
        StatusCode::OK
    );
    let a_setting = json_of(
        app.get("/setting/userRating", &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(a_setting["value"], "enabled");
    let a_avatar = app
        .get(&format!("/users/{}/avatar", a_user.id), &a_token)
        .await;
    assert_eq!(a_avatar.bytes().await.expect("bytes").as_ref(), PNG);
}
