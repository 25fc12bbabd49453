//! Sign-in, refresh rotation and reuse detection, sign-out, expired tokens and companies,
//! signup toggles and the sign-in rate limit.

use chatflow_core::tenancy::Subscription;
use chrono::Utc;
use reqwest::StatusCode;
use reqwest::header::{RETRY_AFTER, SET_COOKIE};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{
    ADMIN_EMAIL, ADMIN_PASSWORD, Backend, MemberOptions, PASSWORD, TestApp, assert_error, browser,
    days_from_today, json_of, run,
};

app_tests!(
    login_succeeds_with_any_case_of_the_email,
    login_failures_look_the_same,
    me_needs_a_valid_token,
    an_expired_access_token_asks_for_a_refresh,
    refresh_rotates_and_detects_reuse,
    logout_revokes_the_session,
    a_deleted_user_is_signed_out_at_once,
    an_expired_company_signs_in_but_cannot_work,
    signup_creates_a_company_and_respects_the_toggles,
    signup_refuses_private_plans_and_bad_input,
    version_and_health_answer,
);

mod clocked {
    crate::clocked_tests!(access_tokens_expire_on_the_servers_clock);
    use super::*;
}

async fn login_succeeds_with_any_case_of_the_email(app: TestApp) {
    let client = browser();
    let response = app
        .login_with(&client, &ADMIN_EMAIL.to_uppercase(), ADMIN_PASSWORD)
        .await;
    let cookie = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("jrt="))
        .expect("the refresh cookie is set")
        .to_owned();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("Path=/auth"), "{cookie}");
    assert!(cookie.contains("SameSite=Lax"), "{cookie}");
    let body = json_of(response, StatusCode::OK).await;
    assert!(
        body["token"]
            .as_str()
            .is_some_and(|t| t.split('.').count() == 3),
        "a JWT"
    );
    assert_eq!(body["user"]["email"], ADMIN_EMAIL);
    assert_eq!(body["user"]["super"], true);
    assert_eq!(body["user"]["company"]["id"], 1);
    assert!(body["sessionId"].is_string(), "the session id is given");
    assert!(body["user"].get("passwordHash").is_none() && body["user"].get("password").is_none());
    let permissions: Vec<&str> = body["permissions"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(permissions.contains(&"menu:companies"), "{permissions:?}");
    assert!(permissions.contains(&"menu:users"), "{permissions:?}");
    let subscription: Subscription =
        serde_json::from_value(body["subscription"].clone()).expect("a subscription");
    assert_eq!(
        subscription.due_date.to_string(),
        "2999-12-31",
        "company 1 never expires"
    );
}

async fn login_failures_look_the_same(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let wrong = app
        .login_with(&browser(), &member.email, "not-the-password")
        .await;
    assert_error(wrong, StatusCode::UNAUTHORIZED, "ERR_INVALID_CREDENTIALS").await;
    let unknown = app
        .login_with(&browser(), "nobody@acme.test", PASSWORD)
        .await;
    assert_error(unknown, StatusCode::UNAUTHORIZED, "ERR_INVALID_CREDENTIALS").await;
    let empty = app.login_with(&browser(), "", "").await;
    assert_error(empty, StatusCode::UNAUTHORIZED, "ERR_INVALID_CREDENTIALS").await;
    // The right password still works afterwards.
    let ok = app.login_with(&browser(), &member.email, PASSWORD).await;
    assert_eq!(ok.status(), StatusCode::OK);
}

async fn me_needs_a_valid_token(app: TestApp) {
    let none = app
        .client
        .get(app.url("/auth/me"))
        .send()
        .await
        .expect("sent");
    assert_error(none, StatusCode::UNAUTHORIZED, "ERR_SESSION_EXPIRED").await;
    assert_error(
        app.get("/auth/me", "garbage").await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    // A token signed with another key is no better.
    let forged = chatflow_server::tokens::TokenKeys::new(
        b"someone else's key, 32 chars+!!",
        chrono::Duration::minutes(5),
    );
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let user = app
        .ports
        .users
        .get(chatflow_core::TenantScope::new(company), member.id)
        .await
        .expect("read")
        .expect("user");
    let token = forged
        .issue(&user, uuid::Uuid::new_v4(), Utc::now())
        .expect("signed");
    assert_error(
        app.get("/auth/me", &token).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;

    let token = app.token_of(&member).await;
    let body = json_of(app.get("/auth/me", &token).await, StatusCode::OK).await;
    assert_eq!(body["user"]["id"], member.id.0);
    assert_eq!(body["subscription"]["status"], "active");
    assert!(body["sessionId"].is_string());
    let permissions: Vec<&str> = body["permissions"]
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(permissions.contains(&"menu:tickets"));
    assert!(
        !permissions.contains(&"menu:users"),
        "a plain user has no users menu"
    );
}

async fn an_expired_access_token_asks_for_a_refresh(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let user = app
        .ports
        .users
        .get(chatflow_core::TenantScope::new(company), member.id)
        .await
        .expect("read")
        .expect("user");
    let issued = Utc::now() - app.state.tokens.ttl() - chrono::Duration::seconds(5);
    let token = app
        .state
        .tokens
        .issue(&user, uuid::Uuid::new_v4(), issued)
        .expect("signed");
    assert_error(
        app.get("/auth/me", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_TOKEN_EXPIRED",
    )
    .await;
    assert_error(
        app.get("/users/list", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_TOKEN_EXPIRED",
    )
    .await;
}

async fn access_tokens_expire_on_the_servers_clock(app: TestApp) {
    let token = app.super_token().await;
    json_of(app.get("/auth/me", &token).await, StatusCode::OK).await;
    app.advance(app.state.tokens.ttl());
    json_of(app.get("/auth/me", &token).await, StatusCode::OK).await;
    app.advance(chrono::Duration::seconds(1));
    assert_error(
        app.get("/auth/me", &token).await,
        StatusCode::FORBIDDEN,
        "ERR_TOKEN_EXPIRED",
    )
    .await;
}

fn refresh_cookie(response: &reqwest::Response) -> String {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| {
            c.strip_prefix("jrt=")
                .map(|rest| rest.split(';').next().unwrap_or("").to_owned())
        })
        .expect("a refresh cookie")
}

async fn refresh_with(app: &TestApp, cookie: &str) -> reqwest::Response {
    // A client without a cookie jar, so the cookie sent is exactly the one given.
    reqwest::Client::new()
        .post(app.url("/auth/refresh_token"))
        .header(reqwest::header::COOKIE, format!("jrt={cookie}"))
        .send()
        .await
        .expect("sent")
}

async fn refresh_rotates_and_detects_reuse(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;

    // The browser's own jar follows the rotation.
    let client = browser();
    let login = app.login_with(&client, &member.email, PASSWORD).await;
    let first = refresh_cookie(&login);
    let rotated = client
        .post(app.url("/auth/refresh_token"))
        .send()
        .await
        .expect("sent");
    let second = refresh_cookie(&rotated);
    assert_ne!(first, second, "the cookie rotates");
    let body = json_of(rotated, StatusCode::OK).await;
    let token = body["token"]
        .as_str()
        .expect("a new access token")
        .to_owned();
    assert_eq!(app.get("/auth/me", &token).await.status(), StatusCode::OK);
    assert_eq!(body["user"]["id"], member.id.0);

    // The jar's cookie works once more...
    let third_response = client
        .post(app.url("/auth/refresh_token"))
        .send()
        .await
        .expect("sent");
    let third = refresh_cookie(&third_response);
    assert_eq!(third_response.status(), StatusCode::OK);

    // ...but replaying an old one is theft: refused, and the whole family is revoked.
    assert_error(
        refresh_with(&app, &first).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    assert_error(
        refresh_with(&app, &third).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    // Unknown and missing cookies are refused too.
    assert_error(
        refresh_with(&app, "made-up").await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    let missing = reqwest::Client::new()
        .post(app.url("/auth/refresh_token"))
        .send()
        .await
        .expect("sent");
    assert_error(missing, StatusCode::UNAUTHORIZED, "ERR_SESSION_EXPIRED").await;

    // Another sign-in is another family, untouched by the revocation.
    let other = app.login_with(&browser(), &member.email, PASSWORD).await;
    let other_cookie = refresh_cookie(&other);
    assert_eq!(
        refresh_with(&app, &other_cookie).await.status(),
        StatusCode::OK
    );
}

async fn logout_revokes_the_session(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let client = browser();
    let login = app.login_with(&client, &member.email, PASSWORD).await;
    let cookie = refresh_cookie(&login);
    let body = json_of(login, StatusCode::OK).await;
    let token = body["token"].as_str().expect("token").to_owned();

    let logout = client
        .delete(app.url("/auth/logout"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent");
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    let cleared = logout
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|c| c.starts_with("jrt=;") && c.contains("Max-Age=0"));
    assert!(cleared, "the cookie is cleared");
    assert_error(
        refresh_with(&app, &cookie).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;

    // Signing out by the access token alone (no cookie) also ends the family.
    let login = app.login_with(&browser(), &member.email, PASSWORD).await;
    let cookie = refresh_cookie(&login);
    let body = json_of(login, StatusCode::OK).await;
    let token = body["token"].as_str().expect("token");
    let logout = reqwest::Client::new()
        .delete(app.url("/auth/logout"))
        .bearer_auth(token)
        .send()
        .await
        .expect("sent");
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    assert_error(
        refresh_with(&app, &cookie).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
}

async fn a_deleted_user_is_signed_out_at_once(app: TestApp) {
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
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let token = app.token_of(&member).await;
    assert_eq!(app.get("/auth/me", &token).await.status(), StatusCode::OK);
    let admin_token = app.token_of(&admin).await;
    assert_eq!(
        app.delete(&format!("/users/{}", member.id), &admin_token)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.get("/auth/me", &token).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
}

async fn an_expired_company_signs_in_but_cannot_work(app: TestApp) {
    let plan = app.plan("Basic", 10, false).await;
    let company = app.company_on("Late Ltd", plan, days_from_today(-3)).await;
    let admin = app
        .member(
            company,
            "boss@late.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let response = app.login_with(&browser(), &admin.email, PASSWORD).await;
    let body = json_of(response, StatusCode::OK).await;
    assert_eq!(body["subscription"]["status"], "expired");
    assert_eq!(body["subscription"]["daysLeft"], -3);
    let token = body["token"].as_str().expect("token").to_owned();

    // Tenant work is refused...
    for path in [
        "/users/list",
        "/users/?pageNumber=1",
        &format!("/users/{}", admin.id),
    ] {
        assert_error(
            app.get(path, &token).await,
            StatusCode::PAYMENT_REQUIRED,
            "ERR_SUBSCRIPTION_EXPIRED",
        )
        .await;
    }
    let create = app
        .post(
            "/users",
            &token,
            &json!({"name": "Bia", "email": "bia@late.test", "password": "12345"}),
        )
        .await;
    assert_error(
        create,
        StatusCode::PAYMENT_REQUIRED,
        "ERR_SUBSCRIPTION_EXPIRED",
    )
    .await;
    let change = app
        .put("/settings/userRating", &token, &json!({"value": "enabled"}))
        .await;
    assert_error(
        change,
        StatusCode::PAYMENT_REQUIRED,
        "ERR_SUBSCRIPTION_EXPIRED",
    )
    .await;
    // ...while the session, settings reads and the company's own record stay available.
    for path in [
        "/auth/me".to_owned(),
        "/settings".to_owned(),
        "/setting/userRating".to_owned(),
        format!("/companies/{company}"),
        format!("/companies/listPlan/{company}"),
        format!("/companySettings/{company}"),
    ] {
        assert_eq!(
            app.get(&path, &token).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
}

async fn signup_creates_a_company_and_respects_the_toggles(app: TestApp) {
    let plan = app.plan("Starter", 5, true).await;
    let plans = json_of(
        app.client
            .get(app.url("/plans/list"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert!(
        plans
            .as_array()
            .expect("a list")
            .iter()
            .any(|p| p["id"] == plan.0 && p["name"] == "Starter")
    );

    let form = |email: &str| {
        json!({
            "companyName": "New Co",
            "name": "Nina",
            "email": email,
            "password": "nina-pass-1",
            "phone": "(11) 98765-4321",
            "planId": plan.0,
        })
    };
    let created = app
        .client
        .post(app.url("/auth/signup"))
        .json(&form("Nina@NewCo.test"))
        .send()
        .await
        .expect("sent");
    let body = json_of(created, StatusCode::CREATED).await;
    let company_id = body["companyId"].as_i64().expect("a company id");
    let login = app
        .login_with(&browser(), "nina@newco.test", "nina-pass-1")
        .await;
    let me = json_of(login, StatusCode::OK).await;
    assert_eq!(me["user"]["profile"], "admin");
    assert_eq!(me["user"]["companyId"], company_id);
    assert_eq!(
        me["subscription"]["dueDate"],
        days_from_today(7).to_string()
    );
    let company = app
        .ports
        .companies
        .get(chatflow_core::TenantScope::new(chatflow_core::CompanyId(
            company_id,
        )))
        .await
        .expect("read")
        .expect("the company exists");
    assert_eq!(
        company.recurrence,
        chatflow_core::tenancy::Recurrence::Mensal
    );
    assert!(company.status);
    let token = me["token"].as_str().expect("token");
    let campaigns = json_of(
        app.get("/setting/campaignsEnabled", token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(campaigns["value"], "enabled");

    // The same e-mail cannot sign up twice.
    let again = app
        .client
        .post(app.url("/auth/signup"))
        .json(&form("nina@newco.test"))
        .send()
        .await
        .expect("sent");
    assert_error(again, StatusCode::CONFLICT, "ERR_DUPLICATED_EMAIL").await;

    // The super user closes signup...
    let root = app.super_token().await;
    let closed = app
        .put(
            "/settings/allowSignup",
            &root,
            &json!({"value": "disabled"}),
        )
        .await;
    assert_eq!(closed.status(), StatusCode::OK);
    let public = json_of(
        app.client
            .get(app.url("/public-settings/allowSignup"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert_eq!(public["value"], "disabled");
    let refused = app
        .client
        .post(app.url("/auth/signup"))
        .json(&form("other@newco.test"))
        .send()
        .await
        .expect("sent");
    assert_error(refused, StatusCode::FORBIDDEN, "ERR_SIGNUP_DISABLED").await;

    // ...reopens it but disables user creation: signup and admins' creation stop, the super
    // user's does not.
    assert_eq!(
        app.put("/settings/allowSignup", &root, &json!({"value": "enabled"}))
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        app.put(
            "/settings/userCreation",
            &root,
            &json!({"value": "disabled"})
        )
        .await
        .status(),
        StatusCode::OK
    );
    let refused = app
        .client
        .post(app.url("/auth/signup"))
        .json(&form("other@newco.test"))
        .send()
        .await
        .expect("sent");
    assert_error(refused, StatusCode::FORBIDDEN, "ERR_USER_CREATION_DISABLED").await;
    let by_admin = app
        .post(
            "/users",
            token,
            &json!({"name": "Otto", "email": "otto@newco.test", "password": "otto-pass"}),
        )
        .await;
    assert_error(
        by_admin,
        StatusCode::FORBIDDEN,
        "ERR_USER_CREATION_DISABLED",
    )
    .await;
    let by_root = app
        .post(
            "/users",
            &root,
            &json!({"name": "Otto", "email": "otto@chatflow.test", "password": "otto-pass"}),
        )
        .await;
    assert_eq!(by_root.status(), StatusCode::CREATED);
}

async fn signup_refuses_private_plans_and_bad_input(app: TestApp) {
    let private = app.plan("Internal", 5, false).await;
    let form = json!({
        "companyName": "Sneaky",
        "name": "Sam",
        "email": "sam@sneaky.test",
        "password": "sam-pass-1",
        "phone": "11987654321",
        "planId": private.0,
    });
    let response = app
        .client
        .post(app.url("/auth/signup"))
        .json(&form)
        .send()
        .await
        .expect("sent");
    assert_error(response, StatusCode::NOT_FOUND, "ERR_NO_PLAN_FOUND").await;
    assert!(
        app.ports
            .users
            .find_for_login("sam@sneaky.test")
            .await
            .expect("read")
            .is_none()
    );

    let bad = json!({"companyName": "", "name": "S", "email": "not-an-email", "password": "1", "phone": "12"});
    let response = app
        .client
        .post(app.url("/auth/signup"))
        .json(&bad)
        .send()
        .await
        .expect("sent");
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(body["error"], "ERR_VALIDATION");
    let fields: Vec<&str> = body["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|f| f["field"].as_str())
        .collect();
    for field in [
        "companyName",
        "name",
        "email",
        "password",
        "phone",
        "planId",
    ] {
        assert!(fields.contains(&field), "{field} reported in {fields:?}");
    }
}

async fn version_and_health_answer(app: TestApp) {
    let version = json_of(
        app.client
            .get(app.url("/version"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert_eq!(version["version"], env!("CARGO_PKG_VERSION"));
    let health = json_of(
        app.client
            .get(app.url("/health"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert_eq!(health["status"], "ok");
}

/// The sign-in rate limit per address (behind a trusted proxy so the test can choose
/// addresses).
async fn login_is_rate_limited(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let attempt = |ip: &'static str, email: String| {
        let client = reqwest::Client::new();
        let url = app.url("/auth/login");
        async move {
            client
                .post(url)
                .header("x-forwarded-for", ip)
                .json(&json!({"email": email, "password": "wrong-password"}))
                .send()
                .await
                .expect("sent")
        }
    };
    // Three attempts a minute from one address, whatever the account.
    for n in 0..3 {
        let response = attempt("203.0.113.1", format!("nobody{n}@acme.test")).await;
        assert_error(
            response,
            StatusCode::UNAUTHORIZED,
            "ERR_INVALID_CREDENTIALS",
        )
        .await;
    }
    let limited = attempt("203.0.113.1", "nobody9@acme.test".to_owned()).await;
    let retry_after = limited
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    assert!(
        retry_after.is_some_and(|s| (1..=60).contains(&s)),
        "Retry-After: {retry_after:?}"
    );
    assert_error(
        limited,
        StatusCode::TOO_MANY_REQUESTS,
        "ERR_TOO_MANY_ATTEMPTS",
    )
    .await;

    // Failures against one account from other addresses are held per account, with a growing
    // backoff that never stops an address without failures (`session_hardening`).
    let right = reqwest::Client::new()
        .post(app.url("/auth/login"))
        .header("x-forwarded-for", "198.51.100.5")
        .json(&json!({"email": member.email, "password": PASSWORD}))
        .send()
        .await
        .expect("sent");
    assert_eq!(right.status(), StatusCode::OK);
}

fn limited(config: &mut chatflow_server::Config) {
    config.login_rate_per_minute = 3;
    config.trust_proxy = true;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_is_rate_limited_on_sqlite() {
    run(Backend::Sqlite, limited, login_is_rate_limited).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_is_rate_limited_on_postgres() {
    run(Backend::Postgres, limited, login_is_rate_limited).await;
}

/// Two tabs of one browser share the cookie jar; when their access tokens expire together both
/// refresh with the same cookie. Within the grace window both stay signed in: the first rotates
/// the cookie, the second gets an access token of the same session and no cookie (the jar holds
/// the first one's), so the session keeps one live refresh token, which a sign-out ends.
async fn two_tabs_refreshing_at_once_stay_signed_in(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let login = app.login_with(&browser(), &member.email, PASSWORD).await;
    let shared = refresh_cookie(&login);

    let first_tab = refresh_with(&app, &shared).await;
    assert_eq!(first_tab.status(), StatusCode::OK);
    let first_cookie = refresh_cookie(&first_tab);
    let second_tab = refresh_with(&app, &shared).await;
    assert_eq!(
        second_tab.status(),
        StatusCode::OK,
        "the sibling tab is not a thief"
    );
    let sets_cookie = second_tab
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|c| c.starts_with("jrt="));
    assert!(!sets_cookie, "no second live refresh token");
    let body = json_of(second_tab, StatusCode::OK).await;
    let token = body["token"].as_str().expect("a token").to_owned();
    assert_eq!(app.get("/auth/me", &token).await.status(), StatusCode::OK);

    // The one live token belongs to the session: signing out ends it, and the access token.
    let logout = reqwest::Client::new()
        .delete(app.url("/auth/logout"))
        .header(reqwest::header::COOKIE, format!("jrt={first_cookie}"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent");
    assert!(logout.status().is_success(), "{}", logout.status());
    assert_error(
        refresh_with(&app, &first_cookie).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    assert_error(
        app.get("/auth/me", &token).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
}

fn with_grace(config: &mut chatflow_server::Config) {
    config.refresh_reuse_grace = 30;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_refreshing_at_once_stay_signed_in_on_sqlite() {
    run(
        Backend::Sqlite,
        with_grace,
        two_tabs_refreshing_at_once_stay_signed_in,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_tabs_refreshing_at_once_stay_signed_in_on_postgres() {
    run(
        Backend::Postgres,
        with_grace,
        two_tabs_refreshing_at_once_stay_signed_in,
    )
    .await;
}
