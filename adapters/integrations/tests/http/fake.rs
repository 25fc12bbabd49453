//! A local fake server (axum on 127.0.0.1:0) that records every request and answers what the
//! test's responder says: status, headers, body, after an optional delay.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use chatflow_integrations::HttpOptions;
use serde_json::Value;

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: Method,
    pub path: String,
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    /// The body as JSON (`Null` when it was not JSON).
    pub body: Value,
}

/// What the fake answers.
pub struct Reply {
    status: u16,
    body: String,
    headers: Vec<(&'static str, String)>,
    delay: Duration,
}

impl Reply {
    /// A JSON answer.
    pub fn json(status: u16, body: Value) -> Self {
        Self {
            status,
            body: body.to_string(),
            headers: vec![("content-type", "application/json".into())],
            delay: Duration::ZERO,
        }
    }

    /// A raw answer (for malformed JSON, HTML error pages).
    pub fn raw(status: u16, content_type: &str, body: &str) -> Self {
        Self {
            status,
            body: body.to_owned(),
            headers: vec![("content-type", content_type.to_owned())],
            delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_owned()));
        self
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

type Responder = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

#[derive(Clone)]
struct FakeState {
    seen: Arc<Mutex<Vec<Seen>>>,
    respond: Arc<Responder>,
}

/// A running fake server.
pub struct Fake {
    /// `http://127.0.0.1:{port}`.
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Fake {
    /// Starts a fake whose answer to the `n`th request (0-based) is `respond(n, &request)`.
    pub async fn start(respond: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = FakeState {
            seen: seen.clone(),
            respond: Arc::new(respond),
        };
        let app = Router::new().fallback(handle).with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a local port");
        let base = format!("http://{}", listener.local_addr().expect("an address"));
        tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the fake serves");
        });
        Self { base, seen }
    }

    /// The requests received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("not poisoned").clone()
    }

    pub fn calls(&self) -> usize {
        self.seen.lock().expect("not poisoned").len()
    }
}

async fn handle(
    State(state): State<FakeState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let text = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let seen = Seen {
        method,
        path: uri.path().to_owned(),
        authorization: text(header::AUTHORIZATION),
        content_type: text(header::CONTENT_TYPE),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    };
    let n = {
        let mut all = state.seen.lock().expect("not poisoned");
        all.push(seen.clone());
        all.len() - 1
    };
    let reply = (state.respond)(n, &seen);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = (
        StatusCode::from_u16(reply.status).expect("a status"),
        reply.body,
    )
        .into_response();
    for (name, value) in reply.headers {
        response
            .headers_mut()
            .insert(name, value.parse().expect("a header value"));
    }
    response
}

/// Short timeouts and backoffs so the tests run fast.
pub fn fast_options() -> HttpOptions {
    HttpOptions {
        connect_timeout: Duration::from_secs(2),
        request_timeout: Duration::from_secs(5),
        max_attempts: 3,
        min_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(50),
    }
}

/// A local address nothing listens on.
pub async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a local port");
    let address = listener.local_addr().expect("an address");
    drop(listener);
    format!("http://{address}")
}
