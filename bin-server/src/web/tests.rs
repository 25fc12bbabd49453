//! The web app served from memory, driven through the same router pieces as the server's
//! (`with_app`, the security headers) with a small app built in the test: navigations, files,
//! cache lifetimes, encodings, revalidation and the JSON 404s; then the same for an app in a
//! directory on disk ([`DiskApp`]). The on-disk app in the whole server is covered by
//! `tests/api/web.rs`; the embedded one by `cargo xtask test` (the release archive).

use std::collections::HashMap;

use axum::body::{Bytes, to_bytes};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG, VARY,
    X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, Request as HttpRequest};
use axum::routing::get;
use tower::ServiceExt;

use super::assets::{IMMUTABLE, NO_CACHE, SHORT};
use super::*;

const INDEX: &str =
    "<!doctype html><div id=\"root\"></div><script src=\"/assets/app-1a2b3c4d.js\">";
const SCRIPT: &str = "console.log('chatflow');";
const SCRIPT_BR: &[u8] = b"brotli version of the script";
const SCRIPT_GZ: &[u8] = b"gzip version of the script";

fn file(body: &[u8], content_type: &'static str, etag: &'static str) -> AssetFile {
    AssetFile {
        body: Bytes::copy_from_slice(body),
        gzip: None,
        br: None,
        content_type: content_type.into(),
        etag: etag.into(),
    }
}

/// A built app as the web build lays it out: `index.html`, hashed files under `assets/` (the
/// script with compressed versions, the style sheet without), an unhashed public file.
fn fixture() -> WebApp {
    let mut files = HashMap::new();
    files.insert(
        "index.html".to_owned(),
        AssetFile {
            gzip: Some(Bytes::from_static(b"gzip version of the index")),
            ..file(INDEX.as_bytes(), "text/html", "\"index-tag\"")
        },
    );
    files.insert(
        "assets/app-1a2b3c4d.js".to_owned(),
        AssetFile {
            gzip: Some(Bytes::from_static(SCRIPT_GZ)),
            br: Some(Bytes::from_static(SCRIPT_BR)),
            ..file(SCRIPT.as_bytes(), "text/javascript", "\"script-tag\"")
        },
    );
    files.insert(
        "assets/app-5e6f7a8b.css".to_owned(),
        file(b"body{margin:0}", "text/css", "\"style-tag\""),
    );
    files.insert(
        "favicon.svg".to_owned(),
        file(b"<svg/>", "image/svg+xml", "\"icon-tag\""),
    );
    WebApp::Memory(Arc::new(files))
}

/// The server's arrangement around the app: API routes (one shared with a client route), the
/// API description, the app as fallback and SPA layer, the security headers outside.
fn app() -> Router {
    let api = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route("/settings", get(|| async { "the settings API" }))
        .route(
            "/api-docs/openapi.json",
            get(|| async { "{\"openapi\":\"3.1.0\"}" }),
        );
    with_app(api, Some(&fixture())).layer(middleware::from_fn(security_headers))
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn header(&self, name: impl axum::http::header::AsHeaderName) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }
}

async fn send(method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
    send_to(app(), method, path, headers).await
}

async fn send_to(router: Router, method: Method, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = HttpRequest::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = router
        .oneshot(request.body(Body::empty()).expect("a request"))
        .await
        .expect("an answer");
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("the body");
    Answer {
        status,
        headers,
        body,
    }
}

async fn get_with(path: &str, headers: &[(&str, &str)]) -> Answer {
    send(Method::GET, path, headers).await
}

fn assert_json_404(answer: &Answer, what: &str) {
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{what}");
    assert!(
        answer.header(CONTENT_TYPE).starts_with("application/json"),
        "{what}"
    );
    let body: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert_eq!(body["error"], "ERR_NOT_FOUND", "{what}");
}

#[test]
fn files_and_machine_paths() {
    assert!(looks_like_file("/assets/index-abc.js"));
    assert!(!looks_like_file("/settings"));
    assert!(!looks_like_file("/tickets/3f2a"));
    assert!(is_machine_path("/api-docs/openapi.json"));
    assert!(is_machine_path("/socket.io/"));
    assert!(!is_machine_path("/users"));
}

#[tokio::test]
async fn navigations_get_the_index_uncached_with_the_security_headers() {
    for path in [
        "/",
        "/tickets",
        "/settings",
        "/tickets/0b6f",
        "/login?next=%2Fusers",
    ] {
        let answer = get_with(path, &[("accept", "text/html,application/xhtml+xml")]).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.body, INDEX.as_bytes(), "{path}");
        assert_eq!(
            answer.header(CONTENT_TYPE),
            "text/html; charset=utf-8",
            "{path}"
        );
        assert_eq!(answer.header(CACHE_CONTROL), NO_CACHE, "{path}");
        assert_eq!(answer.header(X_CONTENT_TYPE_OPTIONS), "nosniff", "{path}");
        assert!(
            answer.headers.contains_key("content-security-policy"),
            "{path}"
        );
    }
    // A client that takes gzip gets the index's gzip version, still uncached.
    let answer = get_with(
        "/tickets",
        &[("accept", "text/html"), ("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(answer.header(CONTENT_ENCODING), "gzip");
    assert_eq!(answer.body, b"gzip version of the index".as_slice());
    assert_eq!(answer.header(CACHE_CONTROL), NO_CACHE);
}

#[tokio::test]
async fn the_root_without_html_in_accept_is_the_index_too() {
    let answer = get_with("/", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, INDEX.as_bytes());
    assert_eq!(answer.header(CACHE_CONTROL), NO_CACHE);
}

#[tokio::test]
async fn hashed_files_are_immutable_with_their_content_type() {
    let script = get_with("/assets/app-1a2b3c4d.js", &[]).await;
    assert_eq!(script.status, StatusCode::OK);
    assert_eq!(script.body, SCRIPT.as_bytes());
    assert_eq!(script.header(CONTENT_TYPE), "text/javascript");
    assert_eq!(script.header(CACHE_CONTROL), IMMUTABLE);
    assert_eq!(script.header(ETAG), "\"script-tag\"");
    assert_eq!(script.header(VARY), "accept-encoding");
    assert_eq!(script.header(CONTENT_ENCODING), "");
    assert_eq!(script.header(X_CONTENT_TYPE_OPTIONS), "nosniff");

    let style = get_with(
        "/assets/app-5e6f7a8b.css",
        &[("accept", "text/css,*/*;q=0.1")],
    )
    .await;
    assert_eq!(style.status, StatusCode::OK);
    assert_eq!(style.header(CONTENT_TYPE), "text/css");
    assert_eq!(style.header(CACHE_CONTROL), IMMUTABLE);

    let icon = get_with("/favicon.svg", &[("accept", "text/html")]).await;
    assert_eq!(icon.status, StatusCode::OK, "a file, not a navigation");
    assert_eq!(icon.body, b"<svg/>".as_slice());
    assert_eq!(icon.header(CONTENT_TYPE), "image/svg+xml");
    assert_eq!(icon.header(CACHE_CONTROL), SHORT);
}

#[tokio::test]
async fn precompressed_versions_follow_accept_encoding() {
    let path = "/assets/app-1a2b3c4d.js";
    for (accept, encoding, body) in [
        ("br", "br", SCRIPT_BR),
        ("gzip", "gzip", SCRIPT_GZ),
        ("gzip, deflate, br, zstd", "br", SCRIPT_BR),
        ("br;q=0.4, gzip;q=0.8", "gzip", SCRIPT_GZ),
        ("br;q=0, gzip;q=0", "", SCRIPT.as_bytes()),
        ("deflate", "", SCRIPT.as_bytes()),
    ] {
        let answer = get_with(path, &[("accept-encoding", accept)]).await;
        assert_eq!(answer.status, StatusCode::OK, "{accept}");
        assert_eq!(answer.header(CONTENT_ENCODING), encoding, "{accept}");
        assert_eq!(answer.body, body, "{accept}");
        assert_eq!(answer.header(CONTENT_TYPE), "text/javascript", "{accept}");
        assert_eq!(answer.header(VARY), "accept-encoding", "{accept}");
        assert_eq!(answer.header(CACHE_CONTROL), IMMUTABLE, "{accept}");
    }
    // A file without compressed versions is the same for every client: no encoding, no Vary.
    let style = get_with(
        "/assets/app-5e6f7a8b.css",
        &[("accept-encoding", "br, gzip")],
    )
    .await;
    assert_eq!(style.header(CONTENT_ENCODING), "");
    assert_eq!(style.header(VARY), "");
    assert_eq!(style.body, b"body{margin:0}".as_slice());
}

#[tokio::test]
async fn a_known_entity_tag_answers_not_modified() {
    let path = "/assets/app-1a2b3c4d.js";
    let brotli = get_with(path, &[("accept-encoding", "br")]).await;
    let tag = brotli.header(ETAG).to_owned();
    assert_eq!(tag, "\"script-tag-br\"", "each encoding has its own tag");

    let again = get_with(path, &[("accept-encoding", "br"), ("if-none-match", &tag)]).await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());
    assert_eq!(again.header(ETAG), tag);
    assert_eq!(again.header(CACHE_CONTROL), IMMUTABLE);

    // The brotli tag does not validate the plain file, nor a stale tag the current one.
    let plain = get_with(path, &[("if-none-match", &tag)]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.body, SCRIPT.as_bytes());
    let stale = get_with(path, &[("if-none-match", "\"old-tag\"")]).await;
    assert_eq!(stale.status, StatusCode::OK);

    let index = get_with(
        "/tickets",
        &[("accept", "text/html"), ("if-none-match", "\"index-tag\"")],
    )
    .await;
    assert_eq!(
        index.status,
        StatusCode::NOT_MODIFIED,
        "the index revalidates"
    );
    assert_eq!(index.header(CACHE_CONTROL), NO_CACHE);
}

#[tokio::test]
async fn head_answers_the_headers_without_the_body() {
    let answer = send(
        Method::HEAD,
        "/assets/app-1a2b3c4d.js",
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.is_empty());
    assert_eq!(answer.header(CONTENT_ENCODING), "gzip");
    assert_eq!(answer.header(CACHE_CONTROL), IMMUTABLE);
    assert_eq!(answer.header(CONTENT_LENGTH), SCRIPT_GZ.len().to_string());
}

#[tokio::test]
async fn what_is_not_the_app_stays_json_or_api() {
    let missing = get_with("/assets/nope.js", &[]).await;
    assert_json_404(&missing, "a missing hashed file");
    let missing_page = get_with("/assets/nope.js", &[("accept", "text/html")]).await;
    assert_json_404(&missing_page, "a missing file asked for as HTML");
    let unknown = get_with("/unknown", &[("accept", "application/json")]).await;
    assert_json_404(&unknown, "an unknown route");
    let post = send(Method::POST, "/assets/app-1a2b3c4d.js", &[]).await;
    assert_json_404(&post, "a POST to a file");
    let socket = get_with(
        "/socket.io/?EIO=4&transport=polling",
        &[("accept", "text/html")],
    )
    .await;
    assert_json_404(&socket, "socket.io is never the app");

    let doc = get_with("/api-docs/openapi.json", &[("accept", "text/html")]).await;
    assert_eq!(doc.status, StatusCode::OK);
    assert_eq!(
        doc.body,
        b"{\"openapi\":\"3.1.0\"}".as_slice(),
        "the description is never the app"
    );
    let api = get_with("/settings", &[("accept", "application/json")]).await;
    assert_eq!(api.body, b"the settings API".as_slice());
}

#[test]
fn a_configured_directory_wins_and_needs_an_index() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    assert!(
        resolve(Some(dir.path())).is_none(),
        "no index.html: the API alone"
    );
    std::fs::write(dir.path().join("index.html"), INDEX).expect("index.html");
    assert!(matches!(resolve(Some(dir.path())), Some(WebApp::Dir(d)) if d == dir.path()));
}

/// Without a configured directory the app embedded in the binary is served; without the
/// feature there is none (and tests run in `bin-server/`, which has no `web/dist`).
#[test]
fn without_a_directory_the_embedded_app_if_any() {
    assert_eq!(
        format!("{:?}", resolve(Some(Path::new("")))),
        format!("{:?}", resolve(None)),
        "an empty CHATFLOW_WEB_DIR is no directory"
    );
    let app = resolve(None);
    #[cfg(feature = "embed-web")]
    {
        let Some(WebApp::Memory(source)) = app else {
            panic!("the embedded app, got {app:?}");
        };
        let index = source.file("index.html").expect("an embedded index.html");
        assert!(index.content_type.starts_with("text/html"));
        assert!(!index.etag.is_empty());
    }
    #[cfg(not(feature = "embed-web"))]
    assert!(app.is_none(), "{app:?}");
}

/// A built app in a temporary directory: `index.html`, a hashed script long enough to shrink,
/// an unhashed icon, an image that does not compress, and a file beside the app's directory.
fn disk_fixture() -> (tempfile::TempDir, Router) {
    let root = tempfile::tempdir().expect("a temporary directory");
    let dir = root.path().join("dist");
    std::fs::create_dir_all(dir.join("assets")).expect("assets/");
    std::fs::write(dir.join("index.html"), INDEX).expect("index.html");
    std::fs::write(dir.join("assets/app-1a2b3c4d.js"), SCRIPT.repeat(40)).expect("the script");
    std::fs::write(dir.join("favicon.svg"), "<svg/>").expect("the icon");
    std::fs::write(
        dir.join("assets/photo-9a8b7c6d.png"),
        [0x89, b'P', b'N', b'G'].repeat(64),
    )
    .expect("the image");
    std::fs::write(root.path().join("secret.txt"), "outside the app").expect("a file outside");
    let router = with_app(
        Router::new().route("/health", get(|| async { "ok" })),
        Some(&WebApp::Dir(dir)),
    )
    .layer(middleware::from_fn(security_headers));
    (root, router)
}

fn gunzip(body: &[u8]) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(body)
        .read_to_string(&mut text)
        .expect("a gzip body");
    text
}

#[tokio::test]
async fn an_app_on_disk_has_the_same_lifetimes_and_compression() {
    let (_root, router) = disk_fixture();
    let path = "/assets/app-1a2b3c4d.js";
    let plain = send_to(router.clone(), Method::GET, path, &[]).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert_eq!(plain.body, SCRIPT.repeat(40).as_bytes());
    assert_eq!(plain.header(CACHE_CONTROL), IMMUTABLE);
    assert_eq!(plain.header(CONTENT_TYPE), "text/javascript");
    assert_eq!(plain.header(CONTENT_ENCODING), "");
    assert_eq!(plain.header(VARY), "accept-encoding");

    let zipped = send_to(
        router.clone(),
        Method::GET,
        path,
        &[("accept-encoding", "gzip, deflate, br")],
    )
    .await;
    assert_eq!(zipped.status, StatusCode::OK);
    assert_eq!(zipped.header(CONTENT_ENCODING), "gzip");
    assert_eq!(zipped.header(CACHE_CONTROL), IMMUTABLE);
    assert_eq!(zipped.header(VARY), "accept-encoding");
    assert!(
        zipped.body.len() < plain.body.len() / 4,
        "{} bytes",
        zipped.body.len()
    );
    assert_eq!(gunzip(&zipped.body), SCRIPT.repeat(40));

    // Revalidation with the tag of the encoding received.
    let tag = zipped.header(ETAG).to_owned();
    assert!(tag.ends_with("-gzip\""), "{tag}");
    let again = send_to(
        router.clone(),
        Method::GET,
        path,
        &[("accept-encoding", "gzip"), ("if-none-match", &tag)],
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert!(again.body.is_empty());

    let image = send_to(
        router.clone(),
        Method::GET,
        "/assets/photo-9a8b7c6d.png",
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(image.status, StatusCode::OK);
    assert_eq!(image.header(CONTENT_TYPE), "image/png");
    assert_eq!(
        image.header(CONTENT_ENCODING),
        "",
        "an image is not compressed again"
    );
    assert_eq!(image.header(CACHE_CONTROL), IMMUTABLE);

    let icon = send_to(router.clone(), Method::GET, "/favicon.svg", &[]).await;
    assert_eq!(icon.header(CACHE_CONTROL), SHORT);
    assert_eq!(icon.body, b"<svg/>".as_slice());

    let navigation = send_to(
        router.clone(),
        Method::GET,
        "/tickets/42",
        &[("accept", "text/html")],
    )
    .await;
    assert_eq!(navigation.status, StatusCode::OK);
    assert_eq!(navigation.body, INDEX.as_bytes());
    assert_eq!(navigation.header(CACHE_CONTROL), NO_CACHE);
    assert_eq!(navigation.header(CONTENT_TYPE), "text/html; charset=utf-8");
    let root = send_to(router.clone(), Method::GET, "/", &[]).await;
    assert_eq!(root.body, INDEX.as_bytes());
    assert_eq!(root.header(CACHE_CONTROL), NO_CACHE);

    let head = send_to(router, Method::HEAD, path, &[("accept-encoding", "gzip")]).await;
    assert_eq!(head.status, StatusCode::OK);
    assert!(head.body.is_empty());
    assert_eq!(head.header(CONTENT_LENGTH), zipped.body.len().to_string());
}

#[tokio::test]
async fn an_app_on_disk_is_reread_when_rebuilt_and_never_left() {
    let (root, router) = disk_fixture();
    let path = "/assets/app-1a2b3c4d.js";
    let first = send_to(
        router.clone(),
        Method::GET,
        path,
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(gunzip(&first.body), SCRIPT.repeat(40));
    // A rebuild writes the file again: another length, so another version.
    let rebuilt = "console.log('rebuilt');".repeat(50);
    std::fs::write(root.path().join("dist/assets/app-1a2b3c4d.js"), &rebuilt).expect("rewrite");
    let second = send_to(
        router.clone(),
        Method::GET,
        path,
        &[("accept-encoding", "gzip")],
    )
    .await;
    assert_eq!(gunzip(&second.body), rebuilt);
    assert_ne!(first.header(ETAG), second.header(ETAG));

    for outside in [
        "/../secret.txt",
        "/assets/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/assets/..%2f..%2fsecret.txt",
        "/assets/..%5c..%5csecret.txt",
    ] {
        let answer = send_to(router.clone(), Method::GET, outside, &[]).await;
        assert_json_404(&answer, outside);
    }
    let missing = send_to(router.clone(), Method::GET, "/assets/missing.js", &[]).await;
    assert_json_404(&missing, "a missing file");
    let post = send_to(router, Method::POST, path, &[]).await;
    assert_json_404(&post, "another method");
}
