//! Password reset over HTTP, with mail going to a fake SMTP server: the two public steps, the
//! password rule, wrong and reused codes, the attempt limit, sessions signed out, unknown
//! e-mails, the rate limit, the OpenAPI description, and a server without SMTP.

use reqwest::StatusCode;
use reqwest::header::RETRY_AFTER;
use serde_json::Value;

use crate::helpers::{
    Backend, MemberOptions, PASSWORD, TestApp, assert_error, browser, error_of, json_of,
};
use crate::mailbox::{FakeSmtpServer, reset_code, run_with_mail, segment};
use crate::{app_tests, mail_app_tests};

mail_app_tests!(
    a_mailed_code_resets_the_password_and_signs_everyone_out,
    five_wrong_attempts_burn_the_code,
    a_code_only_works_for_its_own_account,
    unknown_and_malformed_emails_get_no_mail,
    both_steps_are_in_the_openapi_document_as_public,
);

app_tests!(without_smtp_the_request_says_mail_is_not_configured);

/// `POST /forgetpassword/{email}` as the web app sends it: no credentials, no body.
async fn request_code(app: &TestApp, email: &str) -> reqwest::Response {
    reqwest::Client::new()
        .post(app.url(&format!("/forgetpassword/{}", segment(email))))
        .send()
        .await
        .expect("sent")
}

/// `POST /resetpasswords/{email}/{token}/{newPassword}` as the web app sends it.
async fn reset(app: &TestApp, email: &str, code: &str, password: &str) -> reqwest::Response {
    let path = format!(
        "/resetpasswords/{}/{}/{}",
        segment(email),
        segment(code),
        segment(password)
    );
    reqwest::Client::new()
        .post(app.url(&path))
        .send()
        .await
        .expect("sent")
}

/// A 6-digit code other than `code`.
fn another_code(code: &str) -> &'static str {
    if code == "000000" { "000001" } else { "000000" }
}

async fn a_mailed_code_resets_the_password_and_signs_everyone_out(
    app: TestApp,
    smtp: FakeSmtpServer,
) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    // A browser signed in before the reset keeps a refresh cookie.
    let signed_in = browser();
    let login = app.login_with(&signed_in, &member.email, PASSWORD).await;
    assert_eq!(login.status(), StatusCode::OK);

    let requested = request_code(&app, "  Ana@ACME.test ").await;
    let body = json_of(requested, StatusCode::OK).await;
    assert!(body["message"].is_string(), "{body}");
    let mails = smtp.mails_to("ana@acme.test");
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].subject().as_deref(), Some("Redefinição de senha"));
    assert_eq!(
        mails[0].header("From").as_deref(),
        Some("Chatflow <no-reply@chatflow.local>")
    );
    let code = reset_code(&smtp, "ana@acme.test");

    // A weak password is refused first, whatever the code.
    let weak = reset(&app, &member.email, &code, "fraca123").await;
    let status = weak.status();
    let body: Value = weak.json().await.expect("JSON");
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["error"], "ERR_VALIDATION");
    assert_eq!(
        body["fields"],
        serde_json::json!([{"field": "newPassword", "code": "INVALID_FORMAT"}])
    );
    // A wrong code is refused.
    assert_error(
        reset(&app, &member.email, another_code(&code), "NovaSenha1").await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_RESET_CODE",
    )
    .await;
    // The right code works, with a password that needs encoding in a path.
    let new_password = "Nova/Senha 1?%";
    let done = reset(&app, "ANA@acme.test", &code, new_password).await;
    let body = json_of(done, StatusCode::OK).await;
    assert!(body["message"].is_string(), "{body}");

    // Sessions from before the reset are over.
    let refreshed = signed_in
        .post(app.url("/auth/refresh_token"))
        .send()
        .await
        .expect("sent");
    assert_error(refreshed, StatusCode::UNAUTHORIZED, "ERR_SESSION_EXPIRED").await;
    // Only the new password signs in.
    assert_error(
        app.login_with(&browser(), &member.email, PASSWORD).await,
        StatusCode::UNAUTHORIZED,
        "ERR_INVALID_CREDENTIALS",
    )
    .await;
    let token = app.token(&member.email, new_password).await;
    assert_eq!(app.get("/auth/me", &token).await.status(), StatusCode::OK);
    // The code works once.
    assert_error(
        reset(&app, &member.email, &code, "Outra-senha-2").await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_RESET_CODE",
    )
    .await;
    app.token(&member.email, new_password).await;
}

async fn five_wrong_attempts_burn_the_code(app: TestApp, smtp: FakeSmtpServer) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    assert_eq!(
        request_code(&app, &member.email).await.status(),
        StatusCode::OK
    );
    let code = reset_code(&smtp, &member.email);
    for _ in 0..5 {
        assert_error(
            reset(&app, &member.email, another_code(&code), "NovaSenha1").await,
            StatusCode::BAD_REQUEST,
            "ERR_INVALID_RESET_CODE",
        )
        .await;
    }
    assert_error(
        reset(&app, &member.email, &code, "NovaSenha1").await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_RESET_CODE",
    )
    .await;
    app.token(&member.email, PASSWORD).await;

    // A new request gives a new code that works.
    assert_eq!(
        request_code(&app, &member.email).await.status(),
        StatusCode::OK
    );
    assert_eq!(smtp.mails_to(&member.email).len(), 2);
    let fresh = reset_code(&smtp, &member.email);
    assert_eq!(
        reset(&app, &member.email, &fresh, "NovaSenha1")
            .await
            .status(),
        StatusCode::OK
    );
    app.token(&member.email, "NovaSenha1").await;
}

async fn a_code_only_works_for_its_own_account(app: TestApp, smtp: FakeSmtpServer) {
    let acme = app.company("Acme").await;
    let globex = app.company("Globex").await;
    let ana = app
        .member(acme, "ana@acme.test", MemberOptions::default())
        .await;
    let bob = app
        .member(globex, "bob@globex.test", MemberOptions::default())
        .await;
    assert_eq!(
        request_code(&app, &ana.email).await.status(),
        StatusCode::OK
    );
    let code = reset_code(&smtp, &ana.email);
    assert!(smtp.mails_to(&bob.email).is_empty());
    assert_error(
        reset(&app, &bob.email, &code, "NovaSenha1").await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_RESET_CODE",
    )
    .await;
    app.token(&bob.email, PASSWORD).await;
    // Ana's code still works for Ana: Bob's attempt was not counted against it.
    assert_eq!(
        reset(&app, &ana.email, &code, "NovaSenha1").await.status(),
        StatusCode::OK
    );
}

async fn unknown_and_malformed_emails_get_no_mail(app: TestApp, smtp: FakeSmtpServer) {
    assert_error(
        request_code(&app, "ghost@acme.test").await,
        StatusCode::NOT_FOUND,
        "ERR_NO_USER_FOUND",
    )
    .await;
    let malformed = request_code(&app, "not-an-email").await;
    let (status, code) = error_of(malformed).await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION")
    );
    assert_error(
        reset(&app, "ghost@acme.test", "123456", "NovaSenha1").await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_RESET_CODE",
    )
    .await;
    assert!(smtp.mails().is_empty());
}

async fn both_steps_are_in_the_openapi_document_as_public(app: TestApp, _smtp: FakeSmtpServer) {
    let doc = json_of(
        app.client
            .get(app.url("/api-docs/openapi.json"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    for path in [
        "/forgetpassword/{email}",
        "/resetpasswords/{email}/{token}/{newPassword}",
    ] {
        let post = &doc["paths"][path]["post"];
        assert!(post.is_object(), "{path} is described");
        assert!(post.get("security").is_none(), "{path} needs no token");
    }
    let responses = &doc["paths"]["/forgetpassword/{email}"]["post"]["responses"];
    for status in ["200", "404", "429", "503"] {
        assert!(responses.get(status).is_some(), "{status} is described");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_steps_are_rate_limited() {
    run_with_mail(
        Backend::Sqlite,
        |config| config.login_rate_per_minute = 2,
        |app, smtp| async move {
            let company = app.company("Acme").await;
            let member = app
                .member(company, "ana@acme.test", MemberOptions::default())
                .await;
            for _ in 0..2 {
                assert_eq!(
                    request_code(&app, &member.email).await.status(),
                    StatusCode::OK
                );
            }
            let limited = request_code(&app, &member.email).await;
            assert!(limited.headers().get(RETRY_AFTER).is_some());
            assert_error(
                limited,
                StatusCode::TOO_MANY_REQUESTS,
                "ERR_TOO_MANY_ATTEMPTS",
            )
            .await;
            // The same budget covers the second step (and sign-in) for this account.
            let code = reset_code(&smtp, &member.email);
            assert_error(
                reset(&app, &member.email, &code, "NovaSenha1").await,
                StatusCode::TOO_MANY_REQUESTS,
                "ERR_TOO_MANY_ATTEMPTS",
            )
            .await;
            assert_eq!(smtp.mails_to(&member.email).len(), 2);
        },
    )
    .await;
}

async fn without_smtp_the_request_says_mail_is_not_configured(app: TestApp) {
    let company = app.company("Acme").await;
    let member = app
        .member(company, "ana@acme.test", MemberOptions::default())
        .await;
    assert_error(
        request_code(&app, &member.email).await,
        StatusCode::SERVICE_UNAVAILABLE,
        "ERR_MAIL_NOT_CONFIGURED",
    )
    .await;
    // Unknown e-mails are still told apart, as the web app expects.
    assert_error(
        request_code(&app, "ghost@acme.test").await,
        StatusCode::NOT_FOUND,
        "ERR_NO_USER_FOUND",
    )
    .await;
    app.token(&member.email, PASSWORD).await;
}
