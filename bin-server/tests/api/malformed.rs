//! Malformed requests: unreadable JSON, oversized bodies, unknown routes and methods, bad
//! parameters, and the generated API description.

use reqwest::StatusCode;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    malformed_requests_get_json_errors,
    the_api_description_is_generated
);

async fn malformed_requests_get_json_errors(app: TestApp) {
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

    let broken = app
        .client
        .post(app.url("/auth/login"))
        .header(CONTENT_TYPE, "application/json")
        .body("{\"email\": ")
        .send()
        .await
        .expect("sent");
    assert_error(broken, StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST").await;
    let wrong_types = app
        .post(
            "/users",
            &token,
            &json!({"name": 5, "email": [], "password": {}}),
        )
        .await;
    assert_error(wrong_types, StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST").await;
    let not_json = app
        .client
        .post(app.url("/auth/login"))
        .body("email=a")
        .send()
        .await
        .expect("sent");
    assert_error(not_json, StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST").await;

    // A 2 MiB JSON body on a JSON route (limit 1 MiB)...
    let huge = json!({"email": "a@b.test", "password": "x".repeat(2 * 1024 * 1024)});
    // (A client of its own: the server closes a connection whose body it refused.)
    let response = reqwest::Client::new()
        .post(app.url("/auth/login"))
        .json(&huge)
        .send()
        .await
        .expect("sent");
    assert_error(
        response,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;
    // ...and a body over the server-wide limit, refused from its announced length before the
    // body is read (so only the head is sent here).
    let head = format!(
        "POST /users/{}/media-upload HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: {}\r\n\r\n",
        admin.id,
        app.host,
        21 * 1024 * 1024
    );
    let mut stream = tokio::net::TcpStream::connect(&app.host)
        .await
        .expect("connects");
    stream.write_all(head.as_bytes()).await.expect("head sent");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&answer).contains('}') {
        let n = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read(&mut buffer))
            .await
            .expect("an answer in time")
            .expect("readable");
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buffer[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains("\"error\":\"ERR_PAYLOAD_TOO_LARGE\""),
        "{answer}"
    );

    assert_error(
        app.get("/no/such/route", &token).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    let anonymous = app
        .client
        .get(app.url("/nothing-here"))
        .send()
        .await
        .expect("sent");
    assert_error(anonymous, StatusCode::NOT_FOUND, "ERR_NOT_FOUND").await;
    let patch = app
        .client
        .patch(app.url("/auth/login"))
        .send()
        .await
        .expect("sent");
    assert_error(patch, StatusCode::METHOD_NOT_ALLOWED, "ERR_BAD_REQUEST").await;
    assert_error(
        app.get("/users/abc", &token).await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;
    assert_error(
        app.get("/users/?pageNumber=first", &token).await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;
    assert_error(
        app.get("/users/999999", &token).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_USER_FOUND",
    )
    .await;
    let missing_width = app
        .put(
            &format!("/users/toggleChangeWidht/{}", admin.id),
            &token,
            &json!({}),
        )
        .await;
    assert_error(missing_width, StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST").await;
}

async fn the_api_description_is_generated(app: TestApp) {
    let doc: Value = json_of(
        app.client
            .get(app.url("/api-docs/openapi.json"))
            .send()
            .await
            .expect("sent"),
        StatusCode::OK,
    )
    .await;
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    let paths = doc["paths"].as_object().expect("paths");
    for path in [
        "/auth/login",
        "/auth/refresh_token",
        "/auth/logout",
        "/auth/me",
        "/auth/signup",
        "/version",
        "/health",
        "/users/",
        "/users/list",
        "/users",
        "/users/{id}",
        "/users/{id}/media-upload",
        "/users/toggleChangeWidht/{id}",
        "/companies/listPlan/{companyId}",
        "/companies/{id}",
        "/plans/list",
        "/settings",
        "/settings/{key}",
        "/setting/{key}",
        "/public-settings/{key}",
        "/companySettings/{companyId}",
        "/companySettingOne",
        "/companySettings",
    ] {
        assert!(paths.contains_key(path), "{path} is described");
    }
    assert!(
        doc["components"]["schemas"]["UserView"].is_object(),
        "schemas come from the core"
    );
    assert!(doc["components"]["securitySchemes"]["bearer"].is_object());
}
