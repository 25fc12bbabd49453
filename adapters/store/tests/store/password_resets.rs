//! PasswordResetRepo (one live code per user, counted attempts, single use, tenant scope), and
//! the password-reset use case on the real store, argon2id and SMTP mailer (against the fake
//! SMTP server), with the time passed in so expiry can be tested.

use std::sync::Arc;

use chatflow_core::identity::{AllTicket, MenuMode, Profile, Theme, Toggle};
use chatflow_core::ports::{
    Clock, NewPasswordReset, NewUser, PasswordResetRepo, RefreshSession, SessionRepo, UserRepo,
    UserSettings,
};
use chatflow_core::service::Ports;
use chatflow_core::service::password_reset::{self, MAX_ATTEMPTS};
use chatflow_core::service::users::{self, NewUserInput};
use chatflow_core::{ErrorCode, TenantScope, UserId};
use chatflow_store::Store;
use chatflow_system::SmtpMailer;
use chatflow_system::fake_smtp::FakeSmtpServer;
use chrono::{DateTime, Duration, TimeZone, Utc};
use uuid::Uuid;

use crate::store_tests;
use crate::support::two_companies;

store_tests!(
    create_then_read_the_live_code,
    codes_expire,
    a_new_code_replaces_the_earlier_one,
    attempts_are_counted_up_to_the_limit,
    concurrent_attempts_never_exceed_the_limit,
    a_code_is_used_once_even_concurrently,
    another_companys_codes_are_out_of_reach,
    deleting_the_user_deletes_the_codes,
    use_case_resets_the_password_and_revokes_sessions,
    use_case_codes_expire_after_fifteen_minutes,
    use_case_a_new_request_invalidates_the_earlier_code,
    use_case_wrong_codes_burn_the_code_but_weak_passwords_cost_nothing,
    use_case_unknown_emails_and_missing_codes,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 9, 0, 0)
        .single()
        .expect("a valid instant")
}

fn settings() -> UserSettings {
    UserSettings {
        all_ticket: AllTicket::Disable,
        allow_group: false,
        all_historic: Toggle::Disabled,
        all_user_chat: Toggle::Disabled,
        user_close_pending_ticket: Toggle::Disabled,
        show_dashboard: Toggle::Disabled,
        allow_real_time: Toggle::Disabled,
        allow_connections: Toggle::Disabled,
        start_work: "00:00".into(),
        end_work: "23:59".into(),
        farewell_message: None,
        default_theme: Theme::Light,
        default_menu: MenuMode::Open,
        whatsapp_id: None,
        queue_ids: Vec::new(),
    }
}

async fn user(store: &Store, scope: TenantScope, email: &str) -> UserId {
    let new = NewUser {
        name: "Reset Owner".into(),
        email: email.into(),
        password_hash: "x".into(),
        profile: Profile::User,
        is_super: false,
        settings: settings(),
    };
    UserRepo::create(store, scope, &new)
        .await
        .expect("user created")
        .id
}

fn new_reset(user: UserId, hash: &str, expires_at: DateTime<Utc>) -> NewPasswordReset {
    NewPasswordReset {
        user_id: user,
        code_hash: hash.into(),
        expires_at,
    }
}

async fn create_then_read_the_live_code(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let expires = t0() + Duration::minutes(15);
    let created = PasswordResetRepo::create(&store, a, &new_reset(owner, "hash-1", expires), t0())
        .await
        .expect("stored");
    assert_eq!(created.company_id, a.company_id());
    assert_eq!(created.user_id, owner);
    assert_eq!(created.code_hash, "hash-1");
    assert_eq!(created.expires_at, expires);
    assert_eq!(created.created_at, t0());
    assert_eq!(created.attempts, 0);
    assert_eq!(created.used_at, None);
    let live = store
        .latest_live(a, owner, t0() + Duration::minutes(1))
        .await
        .expect("read")
        .expect("live");
    assert_eq!(live, created);
    let other = user(&store, a, "other@a.test").await;
    assert_eq!(
        store.latest_live(a, other, t0()).await.expect("read"),
        None,
        "another user has no code"
    );
}

async fn codes_expire(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let expires = t0() + Duration::minutes(15);
    PasswordResetRepo::create(&store, a, &new_reset(owner, "hash", expires), t0())
        .await
        .expect("stored");
    let just_before = expires - Duration::milliseconds(1);
    assert!(
        store
            .latest_live(a, owner, just_before)
            .await
            .expect("read")
            .is_some()
    );
    assert_eq!(
        store.latest_live(a, owner, expires).await.expect("read"),
        None
    );
    assert_eq!(
        store
            .latest_live(a, owner, expires + Duration::days(3))
            .await
            .expect("read"),
        None
    );
}

async fn a_new_code_replaces_the_earlier_one(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let expires = t0() + Duration::minutes(15);
    let first = PasswordResetRepo::create(&store, a, &new_reset(owner, "first", expires), t0())
        .await
        .expect("stored");
    let second = PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "second", expires + Duration::minutes(1)),
        t0() + Duration::minutes(1),
    )
    .await
    .expect("stored");
    assert_ne!(first.id, second.id);
    let live = store
        .latest_live(a, owner, t0() + Duration::minutes(2))
        .await
        .expect("read")
        .expect("live");
    assert_eq!(live.code_hash, "second");
    assert_eq!(
        store.count_attempt(a, first.id, 5).await.expect("counted"),
        None,
        "the earlier code is gone"
    );
    assert!(!store.mark_used(a, first.id, t0()).await.expect("marked"));
    // Using the newest code does not bring an older one back.
    assert!(store.mark_used(a, second.id, t0()).await.expect("marked"));
    assert_eq!(
        store
            .latest_live(a, owner, t0() + Duration::minutes(2))
            .await
            .expect("read"),
        None
    );
}

async fn attempts_are_counted_up_to_the_limit(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let reset = PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "hash", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect("stored");
    for expected in 1..=5 {
        assert_eq!(
            store.count_attempt(a, reset.id, 5).await.expect("counted"),
            Some(expected)
        );
    }
    assert_eq!(
        store.count_attempt(a, reset.id, 5).await.expect("counted"),
        None,
        "the limit is reached"
    );
    let live = store
        .latest_live(a, owner, t0())
        .await
        .expect("read")
        .expect("still unused");
    assert_eq!(live.attempts, 5);
    assert!(store.mark_used(a, reset.id, t0()).await.expect("burnt"));
    assert_eq!(
        store.count_attempt(a, reset.id, 10).await.expect("counted"),
        None,
        "a used code counts no attempt, whatever the limit"
    );
}

async fn concurrent_attempts_never_exceed_the_limit(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let reset = PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "hash", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect("stored");
    let attempts: Vec<_> = (0..12)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.count_attempt(a, reset.id, 5).await })
        })
        .collect();
    let mut granted = Vec::new();
    for attempt in attempts {
        if let Some(n) = attempt.await.expect("joined").expect("counted") {
            granted.push(n);
        }
    }
    granted.sort_unstable();
    assert_eq!(granted, vec![1, 2, 3, 4, 5]);
}

async fn a_code_is_used_once_even_concurrently(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let reset = PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "hash", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect("stored");
    let uses: Vec<_> = (0..8)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.mark_used(a, reset.id, t0()).await })
        })
        .collect();
    let mut succeeded = 0;
    for used in uses {
        if used.await.expect("joined").expect("marked") {
            succeeded += 1;
        }
    }
    assert_eq!(succeeded, 1);
    assert_eq!(store.latest_live(a, owner, t0()).await.expect("read"), None);
}

async fn another_companys_codes_are_out_of_reach(store: Store) {
    let (a, b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let reset = PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "hash", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect("stored");
    assert_eq!(store.latest_live(b, owner, t0()).await.expect("read"), None);
    assert_eq!(
        store.count_attempt(b, reset.id, 5).await.expect("counted"),
        None
    );
    assert!(!store.mark_used(b, reset.id, t0()).await.expect("marked"));
    let err = PasswordResetRepo::create(
        &store,
        b,
        &new_reset(owner, "planted", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect_err("A's user is not in B");
    assert_eq!(err.code, ErrorCode::ERR_NO_USER_FOUND);
    // A's code is untouched by all of the above.
    let live = store
        .latest_live(a, owner, t0())
        .await
        .expect("read")
        .expect("still live");
    assert_eq!(live.id, reset.id);
    assert_eq!(live.code_hash, "hash");
    assert_eq!(live.attempts, 0);
}

async fn deleting_the_user_deletes_the_codes(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    PasswordResetRepo::create(
        &store,
        a,
        &new_reset(owner, "hash", t0() + Duration::minutes(15)),
        t0(),
    )
    .await
    .expect("stored");
    assert!(UserRepo::delete(&store, a, owner).await.expect("deleted"));
    let left = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM password_resets")
            .fetch_one(p)
            .await
            .expect("counted")
    });
    assert_eq!(left, 0);
}

// ------------------------------------------------------------------ the use case

/// A clock stopped at [`t0`]; the use cases take their time as an argument anyway.
struct StoppedClock;

impl Clock for StoppedClock {
    fn now(&self) -> DateTime<Utc> {
        t0()
    }
}

/// The use cases' ports over `store`, mailing through the fake SMTP server.
fn ports(store: &Store, smtp: &FakeSmtpServer) -> Ports {
    crate::support::ports_on(
        store,
        Arc::new(StoppedClock),
        Arc::new(
            SmtpMailer::new(&smtp.url(), "Chatflow <no-reply@chatflow.local>")
                .expect("a valid mailer"),
        ),
    )
}

const OLD_PASSWORD: &str = "Old-password-1";
const NEW_PASSWORD: &str = "NovaSenha1";

/// A user of `scope`'s company with a real password hash.
async fn member(ports: &Ports, scope: TenantScope, email: &str) -> UserId {
    users::create_in_company(
        ports,
        scope,
        NewUserInput {
            name: "Ana".into(),
            email: email.into(),
            password: OLD_PASSWORD.into(),
            ..NewUserInput::default()
        },
    )
    .await
    .expect("user created")
    .id
}

/// The code in the latest mail to `email`.
fn code_mailed_to(smtp: &FakeSmtpServer, email: &str) -> String {
    let mail = smtp.mails_to(email).pop().expect("a mail was sent");
    let text = mail.text();
    let (_, after) = text
        .split_once("código de verificação: ")
        .expect("the mail names the code");
    after.chars().take_while(char::is_ascii_digit).collect()
}

async fn password_is(ports: &Ports, email: &str, password: &str) -> bool {
    let login = ports
        .users
        .find_for_login(email)
        .await
        .expect("read")
        .expect("the user");
    ports.hasher.verify(password, &login.password_hash).await
}

async fn use_case_resets_the_password_and_revokes_sessions(store: Store) {
    let smtp = FakeSmtpServer::start().await.expect("fake SMTP server");
    let ports = ports(&store, &smtp);
    let (a, _b) = two_companies(&store).await;
    let ana = member(&ports, a, "ana@a.test").await;
    let session = RefreshSession {
        id: Uuid::new_v4(),
        family: Uuid::new_v4(),
        company_id: a.company_id(),
        user_id: ana,
        token_hash: "ana-session".into(),
        expires_at: t0() + Duration::days(7),
        used_at: None,
        revoked: false,
    };
    SessionRepo::create(&store, a, &session, &[])
        .await
        .expect("session stored");

    password_reset::request(&ports, "  ANA@a.test ", t0())
        .await
        .expect("requested");
    let mails = smtp.mails_to("ana@a.test");
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].subject().as_deref(), Some("Redefinição de senha"));
    let code = code_mailed_to(&smtp, "ana@a.test");
    assert_eq!(code.len(), 6, "{code}");
    let stored = store
        .latest_live(a, ana, t0())
        .await
        .expect("read")
        .expect("live");
    assert_ne!(stored.code_hash, code, "only a hash is stored");
    assert_eq!(stored.expires_at, t0() + Duration::minutes(15));

    password_reset::reset(
        &ports,
        "Ana@A.test",
        &code,
        NEW_PASSWORD,
        t0() + Duration::minutes(3),
    )
    .await
    .expect("reset");
    assert!(password_is(&ports, "ana@a.test", NEW_PASSWORD).await);
    assert!(!password_is(&ports, "ana@a.test", OLD_PASSWORD).await);
    let session = store
        .find_by_token_hash("ana-session")
        .await
        .expect("read")
        .expect("kept");
    assert!(session.revoked, "old sessions are revoked");

    let again = password_reset::reset(
        &ports,
        "ana@a.test",
        &code,
        "Another-pass-2",
        t0() + Duration::minutes(4),
    )
    .await
    .expect_err("a code is used once");
    assert_eq!(again.code, ErrorCode::ERR_INVALID_RESET_CODE);
    assert!(password_is(&ports, "ana@a.test", NEW_PASSWORD).await);
}

async fn use_case_codes_expire_after_fifteen_minutes(store: Store) {
    let smtp = FakeSmtpServer::start().await.expect("fake SMTP server");
    let ports = ports(&store, &smtp);
    let (a, _b) = two_companies(&store).await;
    member(&ports, a, "ana@a.test").await;
    password_reset::request(&ports, "ana@a.test", t0())
        .await
        .expect("requested");
    let code = code_mailed_to(&smtp, "ana@a.test");
    let err = password_reset::reset(
        &ports,
        "ana@a.test",
        &code,
        NEW_PASSWORD,
        t0() + Duration::minutes(15),
    )
    .await
    .expect_err("expired at 15 minutes");
    assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
    assert!(password_is(&ports, "ana@a.test", OLD_PASSWORD).await);
    password_reset::reset(
        &ports,
        "ana@a.test",
        &code,
        NEW_PASSWORD,
        t0() + Duration::minutes(14) + Duration::seconds(59),
    )
    .await
    .expect("still valid a second before");
    assert!(password_is(&ports, "ana@a.test", NEW_PASSWORD).await);
}

async fn use_case_a_new_request_invalidates_the_earlier_code(store: Store) {
    let smtp = FakeSmtpServer::start().await.expect("fake SMTP server");
    let ports = ports(&store, &smtp);
    let (a, _b) = two_companies(&store).await;
    member(&ports, a, "ana@a.test").await;
    password_reset::request(&ports, "ana@a.test", t0())
        .await
        .expect("requested");
    let first = code_mailed_to(&smtp, "ana@a.test");
    // Draw until the second code differs from the first (one chance in a million it does not).
    let mut second = first.clone();
    for minute in 1..=5 {
        password_reset::request(&ports, "ana@a.test", t0() + Duration::minutes(minute))
            .await
            .expect("requested again");
        second = code_mailed_to(&smtp, "ana@a.test");
        if second != first {
            break;
        }
    }
    assert_ne!(first, second);
    let err = password_reset::reset(
        &ports,
        "ana@a.test",
        &first,
        NEW_PASSWORD,
        t0() + Duration::minutes(6),
    )
    .await
    .expect_err("the earlier code no longer works");
    assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
    password_reset::reset(
        &ports,
        "ana@a.test",
        &second,
        NEW_PASSWORD,
        t0() + Duration::minutes(6),
    )
    .await
    .expect("the latest code works");
}

async fn use_case_wrong_codes_burn_the_code_but_weak_passwords_cost_nothing(store: Store) {
    let smtp = FakeSmtpServer::start().await.expect("fake SMTP server");
    let ports = ports(&store, &smtp);
    let (a, _b) = two_companies(&store).await;
    let ana = member(&ports, a, "ana@a.test").await;
    password_reset::request(&ports, "ana@a.test", t0())
        .await
        .expect("requested");
    let code = code_mailed_to(&smtp, "ana@a.test");
    let wrong = if code == "000000" { "000001" } else { "000000" };
    let at = t0() + Duration::minutes(1);

    for weak in ["short1A", "nouppercase1", ""] {
        let err = password_reset::reset(&ports, "ana@a.test", &code, weak, at)
            .await
            .expect_err("weak password");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION, "{weak:?}");
        assert_eq!(err.fields[0].field, "newPassword");
    }
    let live = store
        .latest_live(a, ana, at)
        .await
        .expect("read")
        .expect("live");
    assert_eq!(
        live.attempts, 0,
        "weak passwords are refused before the code"
    );

    for _ in 0..MAX_ATTEMPTS {
        let err = password_reset::reset(&ports, "ana@a.test", wrong, NEW_PASSWORD, at)
            .await
            .expect_err("wrong code");
        assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
    }
    assert_eq!(
        store.latest_live(a, ana, at).await.expect("read"),
        None,
        "the fifth wrong attempt burns the code"
    );
    let err = password_reset::reset(&ports, "ana@a.test", &code, NEW_PASSWORD, at)
        .await
        .expect_err("burnt");
    assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
    assert!(password_is(&ports, "ana@a.test", OLD_PASSWORD).await);
}

async fn use_case_unknown_emails_and_missing_codes(store: Store) {
    let smtp = FakeSmtpServer::start().await.expect("fake SMTP server");
    let ports = ports(&store, &smtp);
    let (a, _b) = two_companies(&store).await;
    member(&ports, a, "ana@a.test").await;

    let err = password_reset::request(&ports, "ghost@a.test", t0())
        .await
        .expect_err("nobody has it");
    assert_eq!(err.code, ErrorCode::ERR_NO_USER_FOUND);
    for (email, field_code) in [("", "REQUIRED"), ("not-an-email", "INVALID_EMAIL")] {
        let err = password_reset::request(&ports, email, t0())
            .await
            .expect_err("invalid e-mail");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(err.fields[0].field, "email");
        assert_eq!(
            serde_json::to_value(err.fields[0].code).expect("serialises"),
            field_code
        );
    }
    assert!(smtp.mails().is_empty(), "no mail for refused requests");

    let err = password_reset::reset(&ports, "ana@a.test", "123456", NEW_PASSWORD, t0())
        .await
        .expect_err("no code was requested");
    assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
    let err = password_reset::reset(&ports, "ghost@a.test", "123456", NEW_PASSWORD, t0())
        .await
        .expect_err("unknown e-mail");
    assert_eq!(err.code, ErrorCode::ERR_INVALID_RESET_CODE);
}
