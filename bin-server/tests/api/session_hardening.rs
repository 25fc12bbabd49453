//! Sessions and sign-in under attack: revocation takes effect on access tokens at once,
//! concurrent refreshes cannot fork a session, strangers' failures do not lock a user out, and
//! secrets are sealed at rest.

use std::sync::Arc;

use chatflow_core::ports::RefreshSession;
use chatflow_core::service::settings::{self as settings_service, SECRET_MASK};
use chatflow_core::{CompanyId, TenantScope};
use chatflow_server::config::{Config, Secret};
use chatflow_server::tokens::TokenKeys;
use chatflow_system::Argon2Hasher;
use chrono::{Duration, Utc};
use reqwest::StatusCode;
use reqwest::header::{RETRY_AFTER, SET_COOKIE};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{
    ADMIN_EMAIL, ADMIN_PASSWORD, Backend, MemberOptions, PASSWORD, TestApp, assert_error, json_of,
    run,
};

app_tests!(
    an_access_token_fails_right_after_logout,
    an_access_token_fails_after_reuse_detection,
    an_access_token_fails_after_an_admin_changes_the_password,
    changing_ones_own_password_signs_out_the_other_sessions,
    a_blocked_companys_tokens_fail_at_once,
    the_signing_key_is_not_stored_in_plain_text,
    payment_keys_are_sealed_and_never_shown,
);

/// The refresh cookie a response sets, if any.
fn set_refresh_cookie(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| {
            c.strip_prefix("jrt=")
                .map(|rest| rest.split(';').next().unwrap_or("").to_owned())
        })
        .filter(|value| !value.is_empty())
}

/// Signs in with a client of its own: the access token and the refresh cookie.
async fn sign_in(app: &TestApp, email: &str, password: &str) -> (String, String) {
    let response = app
        .login_with(&reqwest::Client::new(), email, password)
        .await;
    let cookie = set_refresh_cookie(&response).expect("a refresh cookie");
    let body = json_of(response, StatusCode::OK).await;
    (body["token"].as_str().expect("a token").to_owned(), cookie)
}

/// `POST /auth/refresh_token` with exactly this cookie.
async fn refresh(app: &TestApp, cookie: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url("/auth/refresh_token"))
        .header(reqwest::header::COOKIE, format!("jrt={cookie}"))
        .send()
        .await
        .expect("sent")
}

/// The refresh cookie no longer renews the session: `401 ERR_SESSION_EXPIRED`.
async fn assert_refresh_refused(app: &TestApp, cookie: &str) {
    assert_error(
        refresh(app, cookie).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
}

async fn assert_signed_out(app: &TestApp, token: &str) {
    assert_error(
        app.get("/auth/me", token).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
}

async fn assert_signed_in(app: &TestApp, token: &str) {
    assert_eq!(app.get("/auth/me", token).await.status(), StatusCode::OK);
}

async fn an_access_token_fails_right_after_logout(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let (token, cookie) = sign_in(&app, &member.email, PASSWORD).await;
    let (other_token, _) = sign_in(&app, &member.email, PASSWORD).await;
    assert_signed_in(&app, &token).await;

    // Signing out with the cookie, as the web app does.
    let logout = reqwest::Client::new()
        .delete(app.url("/auth/logout"))
        .header(reqwest::header::COOKIE, format!("jrt={cookie}"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent");
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    assert_signed_out(&app, &token).await;
    // Other routes refuse it too, and the user's other sign-in is untouched.
    assert_error(
        app.get("/users/list", &token).await,
        StatusCode::UNAUTHORIZED,
        "ERR_SESSION_EXPIRED",
    )
    .await;
    assert_signed_in(&app, &other_token).await;

    // Signing out with the access token alone ends it at once too.
    let logout = app.delete("/auth/logout", &other_token).await;
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    assert_signed_out(&app, &other_token).await;
}

async fn an_access_token_fails_after_reuse_detection(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let (first_token, first_cookie) = sign_in(&app, &member.email, PASSWORD).await;
    let rotated = refresh(&app, &first_cookie).await;
    let second_cookie = set_refresh_cookie(&rotated).expect("rotated");
    let body = json_of(rotated, StatusCode::OK).await;
    let second_token = body["token"].as_str().expect("a token").to_owned();
    assert_signed_in(&app, &second_token).await;

    // The first cookie replayed (no grace window in the test configuration): theft.
    assert_refresh_refused(&app, &first_cookie).await;
    // Every access token of the family stops working at once, and so does the live cookie.
    assert_signed_out(&app, &first_token).await;
    assert_signed_out(&app, &second_token).await;
    assert_refresh_refused(&app, &second_cookie).await;
}

async fn an_access_token_fails_after_an_admin_changes_the_password(app: TestApp) {
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
    let (token, cookie) = sign_in(&app, &member.email, PASSWORD).await;
    let (other_token, _) = sign_in(&app, &member.email, PASSWORD).await;
    let admin_token = app.token_of(&admin).await;

    let changed = app
        .put(
            &format!("/users/{}", member.id),
            &admin_token,
            &json!({"password": "Brand-new-pass-2"}),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_signed_out(&app, &token).await;
    assert_signed_out(&app, &other_token).await;
    assert_refresh_refused(&app, &cookie).await;
    // The admin's own session is untouched; the member signs in with the new password.
    assert_signed_in(&app, &admin_token).await;
    let (token, _) = sign_in(&app, &member.email, "Brand-new-pass-2").await;
    assert_signed_in(&app, &token).await;
}

/// The session that changes its own password stays signed in; the user's other sessions end at
/// once.
async fn changing_ones_own_password_signs_out_the_other_sessions(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let (token, cookie) = sign_in(&app, &member.email, PASSWORD).await;
    let (other_token, other_cookie) = sign_in(&app, &member.email, PASSWORD).await;

    let changed = app
        .put(
            &format!("/users/{}", member.id),
            &token,
            &json!({"password": "Brand-new-pass-2"}),
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_signed_in(&app, &token).await;
    assert_signed_out(&app, &other_token).await;
    assert_refresh_refused(&app, &other_cookie).await;
    assert_eq!(refresh(&app, &cookie).await.status(), StatusCode::OK);
}

async fn a_blocked_companys_tokens_fail_at_once(app: TestApp) {
    // A token of a live session, minted for a user of `company`.
    async fn live_token(app: &TestApp, company: CompanyId, email: &str) -> String {
        let member = app.member(company, email, MemberOptions::default()).await;
        let scope = TenantScope::new(company);
        let user = app
            .ports
            .users
            .get(scope, member.id)
            .await
            .expect("read")
            .expect("the user");
        let family = uuid::Uuid::new_v4();
        app.ports
            .sessions
            .create(
                scope,
                &RefreshSession {
                    id: uuid::Uuid::new_v4(),
                    family,
                    company_id: company,
                    user_id: member.id,
                    token_hash: format!("{:064x}", family.as_u128()),
                    expires_at: Utc::now() + Duration::days(1),
                    used_at: None,
                    revoked: false,
                },
                &[],
            )
            .await
            .expect("session stored");
        app.state
            .tokens
            .issue(&user, family, Utc::now())
            .expect("signed")
    }
    let active = app.company("Active").await;
    let token = live_token(&app, active, "ana@active.test").await;
    assert_signed_in(&app, &token).await;

    let plan = app.plan("Blocked plan", 10, false).await;
    let blocked = app
        .ports
        .companies
        .create(&chatflow_core::ports::NewCompany {
            name: "Blocked".into(),
            email: None,
            phone: None,
            plan_id: plan,
            status: false,
            due_date: crate::helpers::days_from_today(30),
            recurrence: chatflow_core::tenancy::Recurrence::Mensal,
            document: None,
        })
        .await
        .expect("company created")
        .id;
    let token = live_token(&app, blocked, "ana@blocked.test").await;
    assert_signed_out(&app, &token).await;
}

async fn the_signing_key_is_not_stored_in_plain_text(app: TestApp) {
    let token = app.super_token().await;
    let stored = stored_signing_key(&app).await;
    assert!(app.ports.secrets.is_sealed(&stored), "{stored}");
    // What is stored does not sign tokens the server accepts...
    let forged = TokenKeys::new(stored.as_bytes(), Duration::minutes(15));
    let claims = app.state.tokens.verify(&token, app.now()).expect("valid");
    let user = app
        .ports
        .users
        .get(
            TenantScope::new(claims.company_id),
            claims.user_id().expect("a user"),
        )
        .await
        .expect("read")
        .expect("the super user");
    let forged = forged.issue(&user, claims.sid, Utc::now()).expect("signed");
    assert_signed_out(&app, &forged).await;
    // ...what it opens to does.
    let key = app.ports.secrets.open(&stored).expect("opens");
    let genuine = TokenKeys::new(key.as_bytes(), Duration::minutes(15))
        .issue(&user, claims.sid, Utc::now())
        .expect("signed");
    assert_signed_in(&app, &genuine).await;
}

async fn stored_signing_key(app: &TestApp) -> String {
    app.ports
        .settings
        .platform_settings()
        .await
        .expect("read")
        .into_iter()
        .find(|(key, _)| key == chatflow_server::JWT_SECRET_SETTING)
        .map(|(_, value)| value)
        .expect("a stored key")
}

async fn payment_keys_are_sealed_and_never_shown(app: TestApp) {
    let token = app.super_token().await;
    let saved = app
        .put(
            "/settings/keymp",
            &token,
            &json!({"value": "APP_USR-123456"}),
        )
        .await;
    let body = json_of(saved, StatusCode::OK).await;
    assert_eq!(body["value"], SECRET_MASK);

    let stored = app
        .ports
        .settings
        .platform_settings()
        .await
        .expect("read")
        .into_iter()
        .find(|(key, _)| key == "keymp")
        .map(|(_, value)| value)
        .expect("stored");
    assert!(!stored.contains("APP_USR"), "{stored}");
    assert!(app.ports.secrets.is_sealed(&stored));

    // The super user sees that it is set, never the value.
    let one = json_of(app.get("/setting/keymp", &token).await, StatusCode::OK).await;
    assert_eq!(one["value"], SECRET_MASK);
    let all = json_of(app.get("/settings", &token).await, StatusCode::OK).await;
    let listed: Vec<&Value> = all
        .as_array()
        .expect("a list")
        .iter()
        .filter(|s| s["key"] == "keymp" || s["key"] == "asaas")
        .collect();
    assert_eq!(listed.len(), 2);
    for setting in listed {
        let expected = if setting["key"] == "keymp" {
            SECRET_MASK
        } else {
            ""
        };
        assert_eq!(setting["value"], expected, "{setting}");
    }
    // Sending the mask back keeps the secret; the code that uses it reads the plain value.
    let kept = app
        .put("/settings/keymp", &token, &json!({"value": SECRET_MASK}))
        .await;
    assert_eq!(kept.status(), StatusCode::OK);
    assert_eq!(
        settings_service::secret(&app.ports, "keymp")
            .await
            .expect("read")
            .as_deref(),
        Some("APP_USR-123456")
    );
}

// ------------------------------------------------------------- refresh cannot fork

/// Twenty tabs refreshing with one cookie at once: exactly one rotates and sets a cookie, the
/// others get access tokens of the same session without a cookie; past the grace window the old
/// cookie is theft, and the family's current token still works until then.
async fn concurrent_refreshes_leave_one_live_token(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    let (_, cookie) = sign_in(&app, &member.email, PASSWORD).await;

    let responses = futures::future::join_all((0..20).map(|_| refresh(&app, &cookie))).await;
    let mut new_cookies = Vec::new();
    let mut tokens = Vec::new();
    for response in responses {
        assert_eq!(response.status(), StatusCode::OK);
        if let Some(new_cookie) = set_refresh_cookie(&response) {
            new_cookies.push(new_cookie);
        }
        let body: Value = response.json().await.expect("JSON");
        tokens.push(body["token"].as_str().expect("a token").to_owned());
    }
    assert_eq!(
        new_cookies.len(),
        1,
        "exactly one rotation: {new_cookies:?}"
    );
    for token in &tokens {
        assert_signed_in(&app, token).await;
    }

    tokio::time::sleep(std::time::Duration::from_millis(GRACE_SECS * 1000 + 1100)).await;
    // The family's current token still works (and rotates once more)...
    let current = refresh(&app, &new_cookies[0]).await;
    assert_eq!(current.status(), StatusCode::OK);
    let latest = set_refresh_cookie(&current).expect("rotated");
    // ...the old cookie is refused now, as theft, which ends the session.
    assert_refresh_refused(&app, &cookie).await;
    assert_refresh_refused(&app, &latest).await;
    assert_signed_out(&app, &tokens[0]).await;
}

const GRACE_SECS: u64 = 5;

fn with_grace(config: &mut Config) {
    config.refresh_reuse_grace = GRACE_SECS;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_refreshes_leave_one_live_token_on_sqlite() {
    run(
        Backend::Sqlite,
        with_grace,
        concurrent_refreshes_leave_one_live_token,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_refreshes_leave_one_live_token_on_postgres() {
    run(
        Backend::Postgres,
        with_grace,
        concurrent_refreshes_leave_one_live_token,
    )
    .await;
}

// ------------------------------------------------------------- sign-in limits

async fn login_from(app: &TestApp, ip: &str, email: &str, password: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url("/auth/login"))
        .header("x-forwarded-for", ip)
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .expect("sent")
}

fn retry_after(response: &reqwest::Response) -> u64 {
    response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
        .expect("a Retry-After")
}

/// Ten wrong passwords from ten addresses, then the right one from an eleventh: signed in. The
/// failing addresses are held back meanwhile, longer with each further failure.
async fn strangers_cannot_lock_a_user_out(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    for n in 1..=10 {
        let response = login_from(&app, &format!("198.51.100.{n}"), &member.email, "wrong").await;
        assert_error(
            response,
            StatusCode::UNAUTHORIZED,
            "ERR_INVALID_CREDENTIALS",
        )
        .await;
    }
    // An address that failed is slowed down now...
    let held = login_from(&app, "198.51.100.1", &member.email, "wrong-again").await;
    let first_wait = retry_after(&held);
    assert_error(held, StatusCode::TOO_MANY_REQUESTS, "ERR_TOO_MANY_ATTEMPTS").await;
    // ...even with the right password, as it cannot be told from a guess.
    let held = login_from(&app, "198.51.100.2", &member.email, PASSWORD).await;
    assert_eq!(held.status(), StatusCode::TOO_MANY_REQUESTS);
    // Each further failure from a fresh address doubles the wait.
    for n in 11..=12 {
        let response = login_from(&app, &format!("198.51.100.{n}"), &member.email, "wrong").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let held = login_from(&app, "198.51.100.1", &member.email, "wrong-again").await;
    let later_wait = retry_after(&held);
    assert_eq!(held.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(
        later_wait >= first_wait * 3,
        "the wait grows: {first_wait}s then {later_wait}s"
    );

    // The user, from an address without failures, signs in.
    let right = login_from(&app, "203.0.113.50", &member.email.to_uppercase(), PASSWORD).await;
    assert_eq!(right.status(), StatusCode::OK);
}

/// One address guessing is still throttled: its attempts are limited whatever the accounts.
async fn one_address_guessing_is_throttled(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    for _ in 0..3 {
        let response = login_from(&app, "203.0.113.9", &member.email, "wrong").await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let limited = login_from(&app, "203.0.113.9", &member.email, PASSWORD).await;
    assert!((1..=60).contains(&retry_after(&limited)));
    assert_error(
        limited,
        StatusCode::TOO_MANY_REQUESTS,
        "ERR_TOO_MANY_ATTEMPTS",
    )
    .await;
    // Three failures are under the account's backoff: the user signs in from elsewhere.
    let right = login_from(&app, "203.0.113.10", &member.email, PASSWORD).await;
    assert_eq!(right.status(), StatusCode::OK);
}

fn behind_proxy(config: &mut Config) {
    config.trust_proxy = true;
}

fn behind_proxy_strict(config: &mut Config) {
    config.trust_proxy = true;
    config.login_rate_per_minute = 3;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_cannot_lock_a_user_out_on_sqlite() {
    run(
        Backend::Sqlite,
        behind_proxy,
        strangers_cannot_lock_a_user_out,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strangers_cannot_lock_a_user_out_on_postgres() {
    run(
        Backend::Postgres,
        behind_proxy,
        strangers_cannot_lock_a_user_out,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_guessing_is_throttled_on_sqlite() {
    run(
        Backend::Sqlite,
        behind_proxy_strict,
        one_address_guessing_is_throttled,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_guessing_is_throttled_on_postgres() {
    run(
        Backend::Postgres,
        behind_proxy_strict,
        one_address_guessing_is_throttled,
    )
    .await;
}

// ------------------------------------------------------------- at rest, across restarts

/// A server over the SQLite file in `dir`, serving until the returned sender is dropped.
async fn start(
    dir: &std::path::Path,
) -> (
    String,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
    chatflow_server::state::AppState,
) {
    let mut config = Config::defaults();
    config.database_url = Secret::new(format!(
        "sqlite://{}",
        dir.join("data").join("chatflow.db").display()
    ));
    config.host = [127, 0, 0, 1].into();
    config.port = 0;
    config.admin_email = Some(ADMIN_EMAIL.to_owned());
    config.admin_password = Some(Secret::new(ADMIN_PASSWORD));
    config.web_dir = Some(dir.join("no-web"));
    config.media_dir = dir.join("media");
    config.login_rate_per_minute = 1000;
    let hasher = Arc::new(Argon2Hasher::with_params(8, 1, 1).expect("cheap argon2"));
    let app = chatflow_server::build_with_hasher(config, hasher)
        .await
        .expect("the server builds");
    let address = format!("http://{}", app.local_addr().expect("bound"));
    let state = app.state().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(async move {
        let _ = stopped.await;
    }));
    (address, stop, server, state)
}

async fn super_token_at(address: &str) -> String {
    let response = reqwest::Client::new()
        .post(format!("{address}/auth/login"))
        .json(&json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}))
        .send()
        .await
        .expect("sent");
    let body = json_of(response, StatusCode::OK).await;
    body["token"].as_str().expect("a token").to_owned()
}

async fn me_at(address: &str, token: &str) -> StatusCode {
    reqwest::Client::new()
        .get(format!("{address}/auth/me"))
        .bearer_auth(token)
        .send()
        .await
        .expect("sent")
        .status()
}

#[cfg(unix)]
fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

/// The generated key file sits next to the database, both private; the sealed signing key
/// survives a restart, and a key stored in plain text by an earlier version is sealed on start.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_and_the_database_stay_private_across_restarts() {
    let dir = tempfile::tempdir().expect("a directory");
    let data = dir.path().join("data");

    let (address, stop, server, state) = start(dir.path()).await;
    let token = super_token_at(&address).await;
    for file in [
        "chatflow.db",
        "chatflow.db-wal",
        "chatflow.db-shm",
        "secret.key",
    ] {
        assert_eq!(mode_of(&data.join(file)), 0o600, "{file}");
    }
    drop(state);
    let _ = stop.send(());
    server.await.expect("joined").expect("served");

    // The same key after a restart: the old token is still good.
    let (address, stop, server, state) = start(dir.path()).await;
    assert_eq!(me_at(&address, &token).await, StatusCode::OK);
    // An earlier version kept the key in plain text.
    let legacy = "a-legacy-signing-key-stored-in-plain-text-0123456789";
    state
        .ports
        .settings
        .set_platform_setting(chatflow_server::JWT_SECRET_SETTING, legacy, None)
        .await
        .expect("stored");
    drop(state);
    let _ = stop.send(());
    server.await.expect("joined").expect("served");

    let (address, stop, server, state) = start(dir.path()).await;
    let stored = state
        .ports
        .settings
        .platform_settings()
        .await
        .expect("read")
        .into_iter()
        .find(|(key, _)| key == chatflow_server::JWT_SECRET_SETTING)
        .map(|(_, value)| value)
        .expect("a stored key");
    assert!(!stored.contains(legacy));
    assert_eq!(state.ports.secrets.open(&stored).expect("opens"), legacy);
    let token = super_token_at(&address).await;
    let legacy_keys = TokenKeys::new(legacy.as_bytes(), Duration::minutes(15));
    assert!(
        legacy_keys.verify(&token, state.ports.clock.now()).is_ok(),
        "the migrated key signs"
    );
    drop(state);
    let _ = stop.send(());
    server.await.expect("joined").expect("served");
}
