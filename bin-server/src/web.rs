//! The built web app on the same port as the API, and the JSON answers for unknown routes.
//!
//! The app comes from one of two places ([`WebApp`], chosen by [`resolve`]): a directory on disk
//! (`CHATFLOW_WEB_DIR`, for development: a rebuilt app is served without restarting the server),
//! or the copy embedded into the binary at build time (the `embed-web` feature of release
//! builds, see [`assets`]), so one file is a whole installation. Both behave alike:
//!
//! A browser navigation (a `GET` whose `Accept` names `text/html`) to any path outside the API
//! description and socket.io gets the app's `index.html`, so client-side routes such as
//! `/settings` or `/users` survive a reload even where an API route shares the path. Other
//! requests that match no route look for a file of the app (scripts, styles, images), and get a
//! `404 ERR_NOT_FOUND` JSON body when there is none. Without an app, unknown routes are always
//! JSON 404s. Both are answered by [`assets::respond`]: `index.html` is never cached, the hashed
//! files under `assets/` are immutable for a year, and answers are compressed (brotli and gzip
//! prepared at build time for the embedded app, gzip made on first use for the one on disk,
//! [`disk`]).

pub mod assets;
mod disk;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use chatflow_core::ErrorCode;

use crate::error::{ErrorBody, message_of, response_for};

pub use assets::{AssetFile, AssetSource};
pub use disk::DiskApp;

/// Where a web app found without `CHATFLOW_WEB_DIR` is looked for when the binary carries none.
pub const DEFAULT_WEB_DIR: &str = "web/dist";

/// The web app the server serves.
#[derive(Clone)]
pub enum WebApp {
    /// A built app in a directory on disk, read on each request.
    Dir(PathBuf),
    /// An app held in memory: the one embedded into the binary, or a test's.
    Memory(Arc<dyn AssetSource>),
}

impl std::fmt::Debug for WebApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WebApp::Dir(dir) => f.debug_tuple("Dir").field(dir).finish(),
            WebApp::Memory(_) => f.write_str("Memory"),
        }
    }
}

/// The built app's directory, when it holds an `index.html`.
pub fn app_dir(dir: &Path) -> Option<PathBuf> {
    dir.join("index.html").is_file().then(|| dir.to_path_buf())
}

/// The app embedded into this binary, when it was built with the `embed-web` feature.
pub fn embedded() -> Option<WebApp> {
    #[cfg(feature = "embed-web")]
    {
        Some(WebApp::Memory(Arc::new(assets::embedded::Embedded)))
    }
    #[cfg(not(feature = "embed-web"))]
    {
        None
    }
}

/// The app to serve: the directory configured with `CHATFLOW_WEB_DIR` when one is (none when it
/// has no `index.html`), else the app embedded into the binary, else `web/dist` when it holds a
/// built app, else none (the API alone).
pub fn resolve(configured: Option<&Path>) -> Option<WebApp> {
    // `CHATFLOW_WEB_DIR=` (an empty value, as in an edited sample file) is not a directory.
    let configured = configured.filter(|dir| !dir.as_os_str().is_empty());
    let app = match configured {
        Some(dir) => app_dir(dir).map(WebApp::Dir),
        None => embedded().or_else(|| app_dir(Path::new(DEFAULT_WEB_DIR)).map(WebApp::Dir)),
    };
    match &app {
        Some(WebApp::Dir(dir)) => {
            tracing::info!(dir = %dir.display(), "serving the web app from disk")
        }
        Some(WebApp::Memory(_)) => tracing::info!("serving the web app embedded in the binary"),
        None => tracing::info!(
            dir = %configured.unwrap_or(Path::new(DEFAULT_WEB_DIR)).display(),
            "no built web app found: serving the API only"
        ),
    }
    app
}

/// Paths a browser navigation never turns into the app.
fn is_machine_path(path: &str) -> bool {
    path.starts_with("/api-docs") || path.starts_with("/socket.io")
}

/// True for a browser navigation (see the module notes).
fn is_navigation(request: &Request) -> bool {
    let wants_html = request
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    matches!(*request.method(), Method::GET | Method::HEAD)
        && wants_html
        && !is_machine_path(request.uri().path())
        && !looks_like_file(request.uri().path())
}

/// The app's files as the handlers read them: from memory at once, from disk on the blocking
/// pool (a read, perhaps a compression).
#[derive(Clone)]
struct Files {
    source: Arc<dyn AssetSource>,
    on_disk: bool,
}

impl Files {
    fn of(app: &WebApp) -> Self {
        match app {
            WebApp::Dir(dir) => Self {
                source: Arc::new(DiskApp::new(dir.clone())),
                on_disk: true,
            },
            WebApp::Memory(source) => Self {
                source: source.clone(),
                on_disk: false,
            },
        }
    }

    async fn get(&self, path: String) -> Option<AssetFile> {
        if !self.on_disk {
            return self.source.file(&path);
        }
        let source = self.source.clone();
        tokio::task::spawn_blocking(move || source.file(&path))
            .await
            .ok()
            .flatten()
    }
}

/// Serves `index.html` for browser navigations (see the module notes).
async fn spa_navigation(State(files): State<Files>, request: Request, next: Next) -> Response {
    if !is_navigation(&request) {
        return next.run(request).await;
    }
    match files.get("index.html".to_owned()).await {
        Some(index) => assets::respond(
            &index,
            "index.html",
            request.headers(),
            request.method() == Method::HEAD,
        ),
        None => {
            tracing::warn!("the web app has no index.html");
            next.run(request).await
        }
    }
}

/// Answers a request no route matched from the app: its file at that path (`index.html` for a
/// directory), else the JSON 404.
async fn app_file(files: Files, request: Request) -> Response {
    let head = request.method() == Method::HEAD;
    if !(head || request.method() == Method::GET) {
        return not_found().await;
    }
    let raw = request.uri().path().trim_start_matches('/');
    let decoded = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
    let mut path = decoded.into_owned();
    if path.is_empty() || path.ends_with('/') {
        path.push_str("index.html");
    }
    match files.get(path.clone()).await {
        Some(file) => assets::respond(&file, &path, request.headers(), head),
        None => not_found().await,
    }
}

/// True for paths whose last segment has an extension (`/assets/app.js`): those are files.
fn looks_like_file(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .is_some_and(|last| last.contains('.'))
}

/// `404 ERR_NOT_FOUND` as JSON.
pub async fn not_found() -> Response {
    response_for(ErrorCode::ERR_NOT_FOUND)
}

/// `405` as JSON, for a known path with another method.
pub async fn method_not_allowed() -> Response {
    let body = ErrorBody {
        error: ErrorCode::ERR_BAD_REQUEST,
        message: "This method is not allowed on this path.".to_owned(),
        fields: Vec::new(),
    };
    (StatusCode::METHOD_NOT_ALLOWED, axum::Json(body)).into_response()
}

/// Adds the web app to `router`: its files for requests no route matches (else JSON 404s) and
/// `index.html` for browser navigations. Without an app, unknown routes are JSON 404s.
pub fn with_app<S>(router: Router<S>, app: Option<&WebApp>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let Some(app) = app else {
        return router.fallback(not_found);
    };
    let files = Files::of(app);
    let fallback = files.clone();
    router
        .fallback(move |request: Request| app_file(fallback, request))
        .layer(middleware::from_fn_with_state(files, spa_navigation))
}

/// Replaces non-JSON error bodies produced below the router (the body-size limit's plain-text
/// 413) with the JSON error format.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        return response_for(ErrorCode::ERR_PAYLOAD_TOO_LARGE);
    }
    response
}

/// The content security policy of every answer. The web app loads only its own scripts (and
/// compiles its own WebAssembly for the flow simulation), styles are injected at run time by its
/// component library, images and media come from the server, `data:` (QR codes) and `blob:`
/// (files fetched with the token), and the API and socket.io are on the same origin. Nothing may
/// frame the app.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; \
    script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self' data:; \
    connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; \
    form-action 'self'; frame-ancestors 'none'";

/// Adds the security headers to every answer that does not set its own: no MIME sniffing, no
/// framing (clickjacking), no referrer sent to other sites, and the content security policy.
pub async fn security_headers(request: Request, next: Next) -> Response {
    use axum::http::header::{
        CONTENT_SECURITY_POLICY as CSP, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
    };
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    for (name, value) in [
        (X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (X_FRAME_OPTIONS, "DENY"),
        (REFERRER_POLICY, "same-origin"),
        (CSP, CONTENT_SECURITY_POLICY),
    ] {
        headers
            .entry(name)
            .or_insert_with(|| HeaderValue::from_static(value));
    }
    response
}

/// The answer to a panic in a handler: an opaque 500.
pub fn panic_response(_panic: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    tracing::error!("a request handler panicked");
    let body = ErrorBody {
        error: ErrorCode::ERR_INTERNAL,
        message: message_of(ErrorCode::ERR_INTERNAL).to_owned(),
        fields: Vec::new(),
    };
    (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body)).into_response()
}

#[cfg(test)]
mod tests;
