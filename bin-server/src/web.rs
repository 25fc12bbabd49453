//! The built web app on the same port as the API, and the JSON answers for unknown routes.
//!
//! A browser navigation (a `GET` whose `Accept` names `text/html`) to any path outside the API
//! description and socket.io gets the app's `index.html`, so client-side routes such as
//! `/settings` or `/users` survive a reload even where an API route shares the path. Other
//! requests that match no route look for a file of the app (scripts, styles, images), and get a
//! `404 ERR_NOT_FOUND` JSON body when there is none. Without a built app, unknown routes are
//! always JSON 404s.

use std::path::{Path, PathBuf};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::handler::HandlerWithoutStateExt;
use axum::http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use chatflow_core::ErrorCode;
use tower_http::services::ServeDir;

use crate::error::{ErrorBody, message_of, response_for};
use crate::state::AppState;

/// The built app's directory, when it holds an `index.html`.
pub fn app_dir(dir: &Path) -> Option<PathBuf> {
    dir.join("index.html").is_file().then(|| dir.to_path_buf())
}

/// Paths a browser navigation never turns into the app.
fn is_machine_path(path: &str) -> bool {
    path.starts_with("/api-docs") || path.starts_with("/socket.io")
}

/// Serves `index.html` for browser navigations (see the module notes).
pub async fn spa_navigation(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let Some(dir) = state.web_dir.as_deref() else {
        return next.run(request).await;
    };
    let wants_html = request
        .headers()
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"));
    let navigation = matches!(*request.method(), Method::GET | Method::HEAD)
        && wants_html
        && !is_machine_path(request.uri().path())
        && !looks_like_file(request.uri().path());
    if !navigation {
        return next.run(request).await;
    }
    match tokio::fs::read(dir.join("index.html")).await {
        Ok(bytes) => {
            let mut response = Body::from(bytes).into_response();
            let headers = response.headers_mut();
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
        Err(e) => {
            tracing::warn!("cannot read the web app's index.html: {e}");
            next.run(request).await
        }
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

/// Adds the fallback for unmatched requests: the app's files when built, else JSON 404s.
pub fn with_fallback(router: Router<AppState>, dir: Option<&Path>) -> Router<AppState> {
    match dir {
        Some(dir) => {
            let files = ServeDir::new(dir)
                .call_fallback_on_method_not_allowed(true)
                .fallback(not_found.into_service());
            router.fallback_service(files)
        }
        None => router.fallback(not_found),
    }
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
mod tests {
    use super::*;

    #[test]
    fn files_and_machine_paths() {
        assert!(looks_like_file("/assets/index-abc.js"));
        assert!(!looks_like_file("/settings"));
        assert!(!looks_like_file("/tickets/3f2a"));
        assert!(is_machine_path("/api-docs/openapi.json"));
        assert!(is_machine_path("/socket.io/"));
        assert!(!is_machine_path("/users"));
    }
}
