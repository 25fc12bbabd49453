//! The built web app on the same port: files, SPA fallback for browser navigations, JSON for
//! everything else.

use reqwest::StatusCode;
use reqwest::header::ACCEPT;

use crate::helpers::{Backend, TestApp, assert_error, run};

const INDEX: &str = "<!doctype html><title>Chatflow test app</title>";

async fn serves_the_app_and_falls_back_to_it(app: TestApp) {
    let navigate = |path: &str| {
        app.client
            .get(app.url(path))
            .header(ACCEPT, "text/html,application/xhtml+xml")
            .send()
    };
    for path in ["/", "/login", "/settings", "/users", "/tickets/0b6f"] {
        let response = navigate(path).await.expect("sent");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.text().await.expect("body"), INDEX, "{path}");
    }
    let script = app
        .client
        .get(app.url("/assets/app.js"))
        .send()
        .await
        .expect("sent");
    assert_eq!(script.status(), StatusCode::OK);
    assert_eq!(script.text().await.expect("body"), "console.log('hi')");
    // The API keeps answering JSON on the same paths.
    let api = app
        .client
        .get(app.url("/settings"))
        .header(ACCEPT, "application/json")
        .send()
        .await
        .expect("sent");
    assert_error(api, StatusCode::UNAUTHORIZED, "ERR_SESSION_EXPIRED").await;
    let missing = app
        .client
        .get(app.url("/assets/missing.js"))
        .send()
        .await
        .expect("sent");
    assert_error(missing, StatusCode::NOT_FOUND, "ERR_NOT_FOUND").await;
    let unknown = app
        .client
        .get(app.url("/unknown"))
        .header(ACCEPT, "application/json")
        .send()
        .await
        .expect("sent");
    assert_error(unknown, StatusCode::NOT_FOUND, "ERR_NOT_FOUND").await;
    let doc = app
        .client
        .get(app.url("/api-docs/openapi.json"))
        .header(ACCEPT, "text/html")
        .send()
        .await
        .expect("sent");
    assert!(
        doc.text().await.expect("body").contains("\"openapi\""),
        "the description is never the app"
    );
}

fn with_web_app(config: &mut chatflow_server::Config) {
    let dir = config.media_dir.with_file_name("web-dist");
    std::fs::create_dir_all(dir.join("assets")).expect("web dir");
    std::fs::write(dir.join("index.html"), INDEX).expect("index.html");
    std::fs::write(dir.join("assets").join("app.js"), "console.log('hi')").expect("app.js");
    config.web_dir = Some(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_the_app_on_sqlite() {
    run(
        Backend::Sqlite,
        with_web_app,
        serves_the_app_and_falls_back_to_it,
    )
    .await;
}
