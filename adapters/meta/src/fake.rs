//! A local fake Graph server (axum on `127.0.0.1:0`) and a signed-webhook driver, for tests
//! (compiled always: see the crate's `Cargo.toml`).
//!
//! The fake **checks what it is sent** the way Graph does and refuses the rest with Graph's
//! error JSON (`(#100) Invalid parameter` and the like): the bearer token of each route
//! (the Cloud API token, a page's token, the long-lived user token), the JSON of Cloud API
//! messages (`messaging_product`, one recipient, the `type` and its object, text lengths,
//! media by a known uploaded id or an https link, 1–3 reply buttons with titles of at most 20
//! characters and distinct ids, lists of at most 10 rows, templates that exist with as many
//! parameters as their body has variables, reactions, read marks), multipart uploads (`file`,
//! `type`, `messaging_product`), Send API messages (`recipient`, `messaging_type`, `tag` only
//! and always with `MESSAGE_TAG`, a text or an attachment), the token exchange (app id, secret,
//! user token) and page subscriptions. It answers like Graph (`wamid.…` ids, `m_…` mids,
//! media URLs on its own `/lookaside/…`, paged lists), **records every call** ([`FakeGraph::calls`])
//! and can be **scripted** to answer errors on a route first ([`FakeGraph::script`]: a rate
//! limit once then the normal answer, a permanent error, the window closed...).
//!
//! Routes (the version segment must be the configured one):
//!
//! | route | [`Route`] |
//! |---|---|
//! | `POST /{v}/{phone_number_id}/messages` | `CloudMessages` |
//! | `POST /{v}/{phone_number_id}/media` | `CloudMedia` |
//! | `GET /{v}/{phone_number_id}` | `PhoneNumber` |
//! | `GET /{v}/{media_id}` | `MediaInfo` |
//! | `GET /lookaside/{media_id}` (Cloud token required) | `MediaDownload` |
//! | `GET /cdn/{name}` (no token) | `Cdn` |
//! | `GET /{v}/{waba_id}/message_templates` | `Templates` |
//! | `POST /{v}/{page_id}/messages` | `PageMessages` |
//! | `GET /{v}/oauth/access_token` | `TokenExchange` |
//! | `GET /{v}/me/accounts` | `Accounts` |
//! | `POST /{v}/{page_id}/subscribed_apps` | `SubscribedApps` |

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest as _, Multipart, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::graph::{GraphConfig, RetryPolicy};
use crate::verify::sign;

/// A route of the fake (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Route {
    /// `POST /{v}/{phone_number_id}/messages`.
    CloudMessages,
    /// `POST /{v}/{phone_number_id}/media`.
    CloudMedia,
    /// `GET /{v}/{phone_number_id}`.
    PhoneNumber,
    /// `GET /{v}/{media_id}`.
    MediaInfo,
    /// `GET /lookaside/{media_id}`.
    MediaDownload,
    /// `GET /cdn/{name}`.
    Cdn,
    /// `GET /{v}/{waba_id}/message_templates`.
    Templates,
    /// `POST /{v}/{page_id}/messages`.
    PageMessages,
    /// `GET /{v}/oauth/access_token`.
    TokenExchange,
    /// `GET /{v}/me/accounts`.
    Accounts,
    /// `POST /{v}/{page_id}/subscribed_apps`.
    SubscribedApps,
}

/// An answer scripted ahead of the normal one.
#[derive(Debug, Clone, PartialEq)]
pub enum Scripted {
    /// 400, code 130429 (Cloud API throughput limit).
    RateLimited,
    /// 400, code 4 (application request limit).
    AppRateLimited,
    /// 500, code 131000 ("Something went wrong").
    ServerError,
    /// 400, code 131047 (re-engagement: outside the 24-hour window).
    WindowClosed,
    /// 400, code 10 subcode 2018278 (Messenger: outside the allowed window).
    MessengerWindowClosed,
    /// 400 with this code and message.
    Permanent {
        /// Meta's error code.
        code: i64,
        /// Meta's message.
        message: String,
    },
    /// Any status and body.
    Raw {
        /// The HTTP status.
        status: u16,
        /// The JSON body.
        body: Value,
    },
    /// No answer for this long (the call is recorded at once): a client that times out first
    /// cannot know whether the request was taken.
    Hang(Duration),
}

/// A multipart part the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The part's name.
    pub name: String,
    /// The file name, for a file part.
    pub file_name: Option<String>,
    /// The part's `Content-Type`, when given.
    pub content_type: Option<String>,
    /// The part's bytes.
    pub bytes: Vec<u8>,
}

/// One call the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `None` for a path the fake does not serve.
    pub route: Option<Route>,
    /// `GET`, `POST`...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query's pairs, decoded.
    pub query: Vec<(String, String)>,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The body as JSON, when it was JSON.
    pub json: Option<Value>,
    /// The body's fields, when it was a form.
    pub form: Vec<(String, String)>,
    /// The body's parts, when it was multipart.
    pub parts: Vec<Part>,
    /// The status the fake answered.
    pub status: u16,
}

impl Call {
    /// The query's value of `name`.
    pub fn query(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A page of the fake's user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakePage {
    /// The page's id.
    pub id: String,
    /// The page's name.
    pub name: String,
    /// The page's token.
    pub token: String,
    /// The linked Instagram account: id and username.
    pub instagram: Option<(String, String)>,
}

/// A template of the fake's business account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeTemplate {
    /// The template's name.
    pub name: String,
    /// Its language code (`pt_BR`).
    pub language: String,
    /// `APPROVED`, `PAUSED`...
    pub status: String,
    /// Its body, with `{{n}}` variables.
    pub body: String,
}

/// What the fake knows: ids, tokens, pages, templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeSetup {
    /// The version segment every Graph path starts with.
    pub api_version: String,
    /// The Cloud API number's id.
    pub phone_number_id: String,
    /// The number as Meta shows it.
    pub display_phone_number: String,
    /// The business account's id.
    pub waba_id: String,
    /// The Cloud API token.
    pub cloud_token: String,
    /// The Meta app's id.
    pub app_id: String,
    /// The Meta app's secret.
    pub app_secret: String,
    /// The user token Facebook Login gives.
    pub short_user_token: String,
    /// The long-lived token the exchange answers.
    pub long_user_token: String,
    /// The pages the user manages.
    pub pages: Vec<FakePage>,
    /// The business account's templates.
    pub templates: Vec<FakeTemplate>,
}

impl Default for FakeSetup {
    fn default() -> Self {
        Self {
            api_version: crate::graph::DEFAULT_API_VERSION.to_owned(),
            phone_number_id: "106540352242922".to_owned(),
            display_phone_number: "+1 555-078-3881".to_owned(),
            waba_id: "102290129340398".to_owned(),
            cloud_token: "EAAG-cloud-token-5f1d".to_owned(),
            app_id: "1234567890123456".to_owned(),
            app_secret: "app-secret-9c4e".to_owned(),
            short_user_token: "EAAG-short-user-token".to_owned(),
            long_user_token: "EAAG-long-user-token".to_owned(),
            pages: vec![
                FakePage {
                    id: "110000000000001".to_owned(),
                    name: "Loja Azul".to_owned(),
                    token: "EAAG-page-token-azul".to_owned(),
                    instagram: Some(("17841400000000001".to_owned(), "lojaazul".to_owned())),
                },
                FakePage {
                    id: "110000000000002".to_owned(),
                    name: "Loja Verde".to_owned(),
                    token: "EAAG-page-token-verde".to_owned(),
                    instagram: None,
                },
                FakePage {
                    id: "110000000000003".to_owned(),
                    name: "Loja Roxa".to_owned(),
                    token: "EAAG-page-token-roxa".to_owned(),
                    instagram: Some(("17841400000000003".to_owned(), "lojaroxa".to_owned())),
                },
            ],
            templates: vec![
                FakeTemplate {
                    name: "hello_world".to_owned(),
                    language: "en_US".to_owned(),
                    status: "APPROVED".to_owned(),
                    body: "Hello World".to_owned(),
                },
                FakeTemplate {
                    name: "order_update".to_owned(),
                    language: "pt_BR".to_owned(),
                    status: "APPROVED".to_owned(),
                    body: "Olá {{1}}, seu pedido {{2}} saiu para entrega.".to_owned(),
                },
                FakeTemplate {
                    name: "promo_old".to_owned(),
                    language: "pt_BR".to_owned(),
                    status: "PAUSED".to_owned(),
                    body: "Oferta {{1}}".to_owned(),
                },
            ],
        }
    }
}

/// A file the fake serves for download.
#[derive(Debug, Clone)]
struct Media {
    bytes: Vec<u8>,
    mime_type: String,
    /// The sha256 the media object declares (hex).
    sha256: String,
    /// The URL the media object answers (`None`: the fake's own `/lookaside/{id}`).
    url: Option<String>,
    file_name: Option<String>,
}

#[derive(Debug, Default)]
struct State0 {
    calls: Vec<Call>,
    scripts: HashMap<Route, VecDeque<Scripted>>,
    media: HashMap<String, Media>,
    cdn: HashMap<String, (Vec<u8>, String)>,
    subscriptions: Vec<(String, Vec<String>)>,
    next_id: u64,
}

struct Shared {
    setup: FakeSetup,
    base: String,
    state: Mutex<State0>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State0> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn next(&self) -> u64 {
        let mut state = self.lock();
        state.next_id += 1;
        state.next_id
    }
}

/// The fake Graph server; stops when dropped.
pub struct FakeGraph {
    /// `http://127.0.0.1:{port}`.
    pub base: String,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGraph {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeGraph {
    /// Starts a fake knowing `setup`.
    ///
    /// # Panics
    /// When no local port can be bound (the test cannot run anyway).
    pub async fn start(setup: FakeSetup) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a local port for the fake Graph server");
        let address = listener.local_addr().expect("the fake's address");
        let base = format!("http://{address}");
        let shared = Arc::new(Shared {
            setup,
            base: base.clone(),
            state: Mutex::new(State0::default()),
        });
        let router = Router::new().fallback(handle).with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Self { base, shared, task }
    }

    /// What the fake knows.
    pub fn setup(&self) -> &FakeSetup {
        &self.shared.setup
    }

    /// A client configuration pointing at the fake, with fast retries (1 to 5 ms, 4 attempts).
    pub fn config(&self) -> GraphConfig {
        GraphConfig {
            base_url: self.base.clone(),
            api_version: self.shared.setup.api_version.clone(),
            media_hosts: Vec::new(),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
            max_media_bytes: 1024 * 1024,
            retry: RetryPolicy {
                max_attempts: 4,
                min_backoff: Duration::from_millis(1),
                max_backoff: Duration::from_millis(5),
            },
        }
    }

    /// The Cloud API account the fake knows.
    pub fn cloud_account(&self) -> crate::graph::cloud::CloudAccount {
        crate::graph::cloud::CloudAccount {
            phone_number_id: self.shared.setup.phone_number_id.clone(),
            waba_id: self.shared.setup.waba_id.clone(),
            access_token: self.shared.setup.cloud_token.clone(),
        }
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.shared.lock().calls.clone()
    }

    /// The calls to `route`, in order.
    pub fn calls_to(&self, route: Route) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(|c| c.route == Some(route))
            .collect()
    }

    /// Answers the next calls to `route` with `answers`, one each, before answering normally.
    pub fn script(&self, route: Route, answers: impl IntoIterator<Item = Scripted>) {
        self.shared
            .lock()
            .scripts
            .entry(route)
            .or_default()
            .extend(answers);
    }

    /// Serves `bytes` as a Cloud API media id (as an inbound message's file): its id.
    pub fn serve_media(&self, bytes: &[u8], mime_type: &str) -> String {
        let sha256 = hex::encode(Sha256::digest(bytes));
        self.add_media(bytes, mime_type, sha256, None)
    }

    /// [`FakeGraph::serve_media`] with a media object declaring `sha256` (hex) whatever the
    /// bytes are.
    pub fn serve_media_with_sha256(&self, bytes: &[u8], mime_type: &str, sha256: &str) -> String {
        self.add_media(bytes, mime_type, sha256.to_owned(), None)
    }

    /// [`FakeGraph::serve_media`] with a media object whose URL is `url` (another host).
    pub fn serve_media_at(&self, bytes: &[u8], mime_type: &str, url: &str) -> String {
        let sha256 = hex::encode(Sha256::digest(bytes));
        self.add_media(bytes, mime_type, sha256, Some(url.to_owned()))
    }

    fn add_media(&self, bytes: &[u8], mime: &str, sha256: String, url: Option<String>) -> String {
        let id = format!("{}", 900_000_000 + self.shared.next());
        self.shared.lock().media.insert(
            id.clone(),
            Media {
                bytes: bytes.to_vec(),
                mime_type: mime.to_owned(),
                sha256,
                url,
                file_name: None,
            },
        );
        id
    }

    /// Serves `bytes` at a CDN URL (a Messenger or Instagram attachment): the URL.
    pub fn serve_cdn(&self, name: &str, bytes: &[u8], mime_type: &str) -> String {
        self.shared
            .lock()
            .cdn
            .insert(name.to_owned(), (bytes.to_vec(), mime_type.to_owned()));
        format!("{}/cdn/{name}", self.base)
    }

    /// An uploaded file: its bytes, type and file name.
    pub fn uploaded(&self, media_id: &str) -> Option<(Vec<u8>, String, Option<String>)> {
        self.shared
            .lock()
            .media
            .get(media_id)
            .map(|m| (m.bytes.clone(), m.mime_type.clone(), m.file_name.clone()))
    }

    /// The pages subscribed so far, with their fields, in order.
    pub fn subscriptions(&self) -> Vec<(String, Vec<String>)> {
        self.shared.lock().subscriptions.clone()
    }
}

// ------------------------------------------------------------------------- answers

fn graph_error(status: u16, code: i64, subcode: Option<i64>, message: &str) -> (u16, Value) {
    let mut error = json!({
        "message": message,
        "type": if code == 190 { "OAuthException" } else { "GraphMethodException" },
        "code": code,
        "fbtrace_id": "AbCdEfFakeTrace",
    });
    if let Some(sub) = subcode {
        error["error_subcode"] = json!(sub);
    }
    (status, json!({ "error": error }))
}

fn invalid(details: &str) -> (u16, Value) {
    let (status, mut body) = graph_error(400, 100, None, "(#100) Invalid parameter");
    body["error"]["error_data"] = json!({ "messaging_product": "whatsapp", "details": details });
    (status, body)
}

fn unauthorized() -> (u16, Value) {
    graph_error(
        401,
        190,
        None,
        "Invalid OAuth access token - Cannot parse access token",
    )
}

fn scripted(answer: Scripted) -> (u16, Value) {
    match answer {
        Scripted::RateLimited => graph_error(
            400,
            130_429,
            None,
            "(#130429) Rate limit hit: Cloud API message throughput has been reached.",
        ),
        Scripted::AppRateLimited => {
            graph_error(400, 4, None, "(#4) Application request limit reached")
        }
        Scripted::ServerError => graph_error(500, 131_000, None, "Something went wrong"),
        Scripted::WindowClosed => {
            let (status, mut body) = graph_error(400, 131_047, None, "Re-engagement message");
            body["error"]["error_data"] = json!({
                "messaging_product": "whatsapp",
                "details": "More than 24 hours have passed since the recipient last replied to the sender number."
            });
            (status, body)
        }
        Scripted::MessengerWindowClosed => graph_error(
            400,
            10,
            Some(2_018_278),
            "(#10) This message is sent outside of allowed window.",
        ),
        Scripted::Permanent { code, message } => graph_error(400, code, None, &message),
        Scripted::Raw { status, body } => (status, body),
        Scripted::Hang(_) => graph_error(504, 2, None, "the fake hung up"),
    }
}

fn json_answer((status, body): (u16, Value)) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

// ------------------------------------------------------------------------- handler

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query: Vec<(String, String)> = request.uri().query().map(pairs).unwrap_or_default();
    // In a block: the closure borrows the request, which is not `Sync`, and must not live
    // across an await.
    let (authorization, content_type) = {
        let header_of = |name: header::HeaderName| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        (
            header_of(header::AUTHORIZATION),
            header_of(header::CONTENT_TYPE),
        )
    };
    let ct = content_type.clone().unwrap_or_default();
    let (mut json_body, mut form, mut parts) = (None, Vec::new(), Vec::new());
    let mut multipart_error = None;
    if ct.starts_with("multipart/form-data") {
        match Multipart::from_request(request, &()).await {
            Ok(mut multipart) => loop {
                match multipart.next_field().await {
                    Ok(Some(field)) => {
                        let name = field.name().unwrap_or_default().to_owned();
                        let file_name = field.file_name().map(str::to_owned);
                        let content_type = field.content_type().map(str::to_owned);
                        match field.bytes().await {
                            Ok(bytes) => parts.push(Part {
                                name,
                                file_name,
                                content_type,
                                bytes: bytes.to_vec(),
                            }),
                            Err(e) => {
                                multipart_error = Some(e.to_string());
                                break;
                            }
                        }
                    }
                    Ok(None) => break,
                    Err(e) => {
                        multipart_error = Some(e.to_string());
                        break;
                    }
                }
            },
            Err(e) => multipart_error = Some(e.to_string()),
        }
    } else {
        let bytes: Bytes = axum::body::to_bytes(request.into_body(), 64 * 1024 * 1024)
            .await
            .unwrap_or_default();
        if ct.starts_with("application/json") {
            json_body = serde_json::from_slice(&bytes).ok();
        } else if ct.starts_with("application/x-www-form-urlencoded") {
            form = pairs(&String::from_utf8_lossy(&bytes));
        }
    }
    let mut call = Call {
        route: None,
        method: method.to_string(),
        path: path.clone(),
        query,
        authorization,
        content_type,
        json: json_body,
        form,
        parts,
        status: 0,
    };
    let mut delay = None;
    let (status, response) = route_call(&shared, &method, &mut call, multipart_error, &mut delay);
    call.status = status;
    shared.lock().calls.push(call);
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    response
}

/// `a=1&b=2` decoded.
fn pairs(text: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(&format!("http://x/?{text}"))
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default()
}

fn route_call(
    shared: &Shared,
    method: &Method,
    call: &mut Call,
    multipart_error: Option<String>,
    delay: &mut Option<Duration>,
) -> (u16, Response) {
    let setup = &shared.setup;
    let segments: Vec<String> = call
        .path
        .trim_start_matches('/')
        .split('/')
        .map(str::to_owned)
        .collect();
    let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
    let bearer = call
        .authorization
        .as_deref()
        .and_then(|a| a.strip_prefix("Bearer "))
        .map(str::to_owned);

    // Files first: they answer bytes, not JSON.
    match (method.as_str(), seg.as_slice()) {
        ("GET", ["lookaside", id]) => {
            call.route = Some(Route::MediaDownload);
            if bearer.as_deref() != Some(setup.cloud_token.as_str()) {
                return (
                    401,
                    (StatusCode::UNAUTHORIZED, "unauthorized").into_response(),
                );
            }
            let media = shared.lock().media.get(*id).cloned();
            return match media {
                Some(m) => (
                    200,
                    ([(header::CONTENT_TYPE, m.mime_type.clone())], m.bytes).into_response(),
                ),
                None => (404, (StatusCode::NOT_FOUND, "not found").into_response()),
            };
        }
        ("GET", ["cdn", name]) => {
            call.route = Some(Route::Cdn);
            let file = shared.lock().cdn.get(*name).cloned();
            return match file {
                Some((bytes, mime)) => {
                    (200, ([(header::CONTENT_TYPE, mime)], bytes).into_response())
                }
                None => (404, (StatusCode::NOT_FOUND, "not found").into_response()),
            };
        }
        _ => {}
    }

    let answer = |status_body: (u16, Value)| (status_body.0, json_answer(status_body));
    if seg.first() != Some(&setup.api_version.as_str()) {
        return answer(graph_error(400, 2500, None, "Unknown path components"));
    }
    let is_page = |id: &str| setup.pages.iter().find(|p| p.id == id);
    let route = match (method.as_str(), &seg[1..]) {
        ("POST", [id, "messages"]) if *id == setup.phone_number_id => Route::CloudMessages,
        ("POST", [id, "messages"]) if is_page(id).is_some() => Route::PageMessages,
        ("POST", [id, "media"]) if *id == setup.phone_number_id => Route::CloudMedia,
        ("GET", ["oauth", "access_token"]) => Route::TokenExchange,
        ("GET", ["me", "accounts"]) => Route::Accounts,
        ("POST", [id, "subscribed_apps"]) if is_page(id).is_some() => Route::SubscribedApps,
        ("GET", [id, "message_templates"]) if *id == setup.waba_id => Route::Templates,
        ("GET", [id]) if *id == setup.phone_number_id => Route::PhoneNumber,
        ("GET", [id]) if shared.lock().media.contains_key(*id) => Route::MediaInfo,
        _ => {
            return answer(graph_error(
                400,
                100,
                Some(33),
                "Unsupported request - method type or object does not exist",
            ));
        }
    };
    call.route = Some(route);
    let object_id = seg.get(1).copied().unwrap_or_default();

    // The token of the route.
    let token_ok = match route {
        Route::CloudMessages
        | Route::CloudMedia
        | Route::PhoneNumber
        | Route::MediaInfo
        | Route::Templates => bearer.as_deref() == Some(setup.cloud_token.as_str()),
        Route::PageMessages | Route::SubscribedApps => {
            is_page(object_id).is_some_and(|p| bearer.as_deref() == Some(p.token.as_str()))
        }
        Route::Accounts => bearer.as_deref() == Some(setup.long_user_token.as_str()),
        Route::TokenExchange => true,
        Route::MediaDownload | Route::Cdn => true,
    };
    if !token_ok {
        return answer(unauthorized());
    }
    let checked = match route {
        Route::CloudMessages => check_cloud_message(shared, call.json.as_ref()),
        Route::PageMessages => check_page_message(call.json.as_ref()),
        Route::CloudMedia => check_upload(&call.parts, multipart_error),
        Route::TokenExchange => check_exchange(setup, call),
        Route::SubscribedApps => check_subscription(call),
        _ => Ok(()),
    };
    if let Err(refusal) = checked {
        return answer(refusal);
    }
    let script = shared
        .lock()
        .scripts
        .get_mut(&route)
        .and_then(VecDeque::pop_front);
    if let Some(script) = script {
        if let Scripted::Hang(hang) = script {
            *delay = Some(hang);
        }
        return answer(scripted(script));
    }
    answer(success(shared, route, object_id, call))
}

// ------------------------------------------------------------------------- checks

type Check = Result<(), (u16, Value)>;

fn text_within(value: Option<&Value>, min: usize, max: usize) -> bool {
    value
        .and_then(Value::as_str)
        .is_some_and(|t| (min..=max).contains(&t.chars().count()))
}

fn check_cloud_message(shared: &Shared, body: Option<&Value>) -> Check {
    let Some(body) = body.filter(|b| b.is_object()) else {
        return Err(invalid("the body is not a JSON object"));
    };
    if body["messaging_product"] != "whatsapp" {
        return Err(invalid("messaging_product must be whatsapp"));
    }
    // A read mark.
    if body.get("status").is_some() {
        return if body["status"] == "read" && text_within(body.get("message_id"), 1, 512) {
            Ok(())
        } else {
            Err(invalid("a read mark needs status read and a message_id"))
        };
    }
    if let Some(rt) = body.get("recipient_type")
        && rt != "individual"
    {
        return Err(invalid("recipient_type must be individual"));
    }
    let to = body.get("to").and_then(Value::as_str);
    let recipient = body.get("recipient").and_then(Value::as_str);
    match (to, recipient) {
        (Some(to), None) if !to.is_empty() && to.bytes().all(|b| b.is_ascii_digit()) => {}
        (None, Some(r)) if r.len() > 3 && r.as_bytes()[2] == b'.' => {}
        _ => {
            return Err(invalid(
                "exactly one of to (digits) or recipient (a BSUID) is required",
            ));
        }
    }
    if let Some(context) = body.get("context")
        && !text_within(context.get("message_id"), 1, 512)
    {
        return Err(invalid("context.message_id is required in a context"));
    }
    let kind = body.get("type").and_then(Value::as_str).unwrap_or_default();
    let Some(object) = body.get(kind).filter(|o| !o.is_null()) else {
        return Err(invalid(&format!("the type {kind:?} needs its object")));
    };
    match kind {
        "text" => {
            if !text_within(object.get("body"), 1, 4096) {
                return Err(invalid("text.body is 1 to 4096 characters"));
            }
        }
        "image" | "video" | "audio" | "document" | "sticker" => {
            let id = object.get("id").and_then(Value::as_str);
            let link = object.get("link").and_then(Value::as_str);
            match (id, link) {
                (Some(id), None) => {
                    if !shared.lock().media.contains_key(id) {
                        return Err(graph_error(
                            400,
                            131_053,
                            None,
                            "Media upload error: unknown media id",
                        ));
                    }
                }
                (None, Some(link)) if link.starts_with("https://") => {}
                _ => return Err(invalid("a file needs exactly one of id or an https link")),
            }
            if matches!(kind, "audio" | "sticker") && object.get("caption").is_some() {
                return Err(invalid("audio and stickers take no caption"));
            }
            if kind != "document" && object.get("filename").is_some() {
                return Err(invalid("only documents take a filename"));
            }
        }
        "location" => {
            if !object["latitude"].is_number() || !object["longitude"].is_number() {
                return Err(invalid("a location needs numeric latitude and longitude"));
            }
        }
        "contacts" => {
            let cards = object.as_array().map_or(&[][..], Vec::as_slice);
            if cards.is_empty()
                || cards
                    .iter()
                    .any(|c| !text_within(c.pointer("/name/formatted_name"), 1, 1024))
            {
                return Err(invalid("each contact needs name.formatted_name"));
            }
        }
        "reaction" => {
            if !text_within(object.get("message_id"), 1, 512) || !object["emoji"].is_string() {
                return Err(invalid("a reaction needs message_id and emoji"));
            }
        }
        "template" => check_template(&shared.setup, object)?,
        "interactive" => check_interactive(object)?,
        _ => return Err(invalid(&format!("unknown message type {kind:?}"))),
    }
    Ok(())
}

fn check_template(setup: &FakeSetup, object: &Value) -> Check {
    let name = object["name"].as_str().unwrap_or_default();
    let language = object
        .pointer("/language/code")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(template) = setup
        .templates
        .iter()
        .find(|t| t.name == name && t.language == language)
    else {
        return Err(graph_error(
            404,
            132_001,
            None,
            "Template name does not exist in the translation",
        ));
    };
    if template.status != "APPROVED" {
        return Err(graph_error(400, 132_015, None, "Template is Paused"));
    }
    let expected = template.body.matches("{{").count();
    let mut given = 0;
    for component in object["components"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
    {
        if component["type"] != "body" {
            return Err(invalid("only body components are expected"));
        }
        for parameter in component["parameters"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
        {
            if parameter["type"] != "text" || !text_within(parameter.get("text"), 1, 32_768) {
                return Err(invalid("a body parameter is {type: text, text}"));
            }
            given += 1;
        }
    }
    if given != expected {
        return Err(graph_error(
            400,
            132_000,
            None,
            "Number of parameters does not match the expected number of params",
        ));
    }
    Ok(())
}

fn check_interactive(object: &Value) -> Check {
    if !text_within(object.pointer("/body/text"), 1, 4096) {
        return Err(invalid("interactive.body.text is required"));
    }
    let mut ids: Vec<String> = Vec::new();
    let mut distinct = |id: &Value| -> bool {
        match id.as_str() {
            Some(id) if !id.is_empty() && !ids.iter().any(|seen| seen == id) => {
                ids.push(id.to_owned());
                true
            }
            _ => false,
        }
    };
    match object["type"].as_str() {
        Some("button") => {
            if !text_within(object.pointer("/body/text"), 1, 1024) {
                return Err(invalid(
                    "a button message's body is at most 1024 characters",
                ));
            }
            let buttons = object
                .pointer("/action/buttons")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            if buttons.is_empty() || buttons.len() > 3 {
                return Err(invalid("a button message has 1 to 3 buttons"));
            }
            for b in buttons {
                if b["type"] != "reply"
                    || !text_within(b.pointer("/reply/title"), 1, 20)
                    || !distinct(&b["reply"]["id"])
                {
                    return Err(invalid(
                        "each button is a reply with a distinct id and a title of 1 to 20 characters",
                    ));
                }
            }
        }
        Some("list") => {
            if !text_within(object.pointer("/action/button"), 1, 20) {
                return Err(invalid("a list's button is 1 to 20 characters"));
            }
            let sections = object
                .pointer("/action/sections")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let rows: usize = sections
                .iter()
                .map(|s| s["rows"].as_array().map_or(0, Vec::len))
                .sum();
            if sections.is_empty() || sections.len() > 10 || rows == 0 || rows > 10 {
                return Err(invalid("a list has 1 to 10 sections and 1 to 10 rows"));
            }
            for row in sections
                .iter()
                .flat_map(|s| s["rows"].as_array().into_iter().flatten())
            {
                if !text_within(row.get("title"), 1, 24)
                    || row
                        .get("description")
                        .is_some_and(|d| !text_within(Some(d), 0, 72))
                    || !distinct(&row["id"])
                {
                    return Err(invalid(
                        "each row has a distinct id, a title of 1 to 24 characters and a description of at most 72",
                    ));
                }
            }
        }
        _ => return Err(invalid("interactive.type must be button or list")),
    }
    Ok(())
}

fn check_page_message(body: Option<&Value>) -> Check {
    let Some(body) = body.filter(|b| b.is_object()) else {
        return Err(invalid("the body is not a JSON object"));
    };
    if !text_within(body.pointer("/recipient/id"), 1, 64) {
        return Err(invalid("recipient.id is required"));
    }
    let messaging_type = body["messaging_type"].as_str().unwrap_or_default();
    let tag = body.get("tag");
    match (messaging_type, tag) {
        ("RESPONSE" | "UPDATE", None) => {}
        ("MESSAGE_TAG", Some(tag))
            if matches!(
                tag.as_str(),
                Some(
                    "HUMAN_AGENT"
                        | "CONFIRMED_EVENT_UPDATE"
                        | "POST_PURCHASE_UPDATE"
                        | "ACCOUNT_UPDATE"
                )
            ) => {}
        _ => {
            return Err(invalid(
                "messaging_type is RESPONSE, UPDATE or MESSAGE_TAG, with a tag exactly when MESSAGE_TAG",
            ));
        }
    }
    let message = &body["message"];
    match (message.get("text"), message.get("attachment")) {
        (Some(text), None) if text_within(Some(text), 1, 2000) => Ok(()),
        (None, Some(attachment)) => {
            let kind_ok = matches!(
                attachment["type"].as_str(),
                Some("image" | "video" | "audio" | "file")
            );
            let payload_ok = attachment
                .pointer("/payload/url")
                .and_then(Value::as_str)
                .is_some_and(|u| u.starts_with("https://"))
                || attachment.pointer("/payload/attachment_id").is_some();
            if kind_ok && payload_ok {
                Ok(())
            } else {
                Err(invalid(
                    "an attachment needs a type and a payload url or attachment_id",
                ))
            }
        }
        _ => Err(invalid(
            "a message is a text of 1 to 2000 characters or an attachment",
        )),
    }
}

fn check_upload(parts: &[Part], multipart_error: Option<String>) -> Check {
    if let Some(e) = multipart_error {
        return Err(invalid(&format!("unreadable multipart body: {e}")));
    }
    let field = |name: &str| {
        parts
            .iter()
            .find(|p| p.name == name && p.file_name.is_none())
            .map(|p| String::from_utf8_lossy(&p.bytes).into_owned())
    };
    if field("messaging_product").as_deref() != Some("whatsapp") {
        return Err(invalid("messaging_product must be whatsapp"));
    }
    let Some(kind) = field("type").filter(|t| t.contains('/')) else {
        return Err(invalid("type must be the file's MIME type"));
    };
    let Some(file) = parts.iter().find(|p| p.name == "file") else {
        return Err(invalid("the file part is required"));
    };
    if file.bytes.is_empty() || file.file_name.is_none() {
        return Err(invalid("the file part needs a file name and bytes"));
    }
    if file.content_type.as_deref().is_some_and(|c| c != kind) {
        return Err(invalid("the file's type differs from the type field"));
    }
    Ok(())
}

fn check_exchange(setup: &FakeSetup, call: &Call) -> Check {
    if call.query("grant_type") != Some("fb_exchange_token") {
        return Err(invalid("grant_type must be fb_exchange_token"));
    }
    if call.query("client_id") != Some(setup.app_id.as_str())
        || call.query("client_secret") != Some(setup.app_secret.as_str())
    {
        let (status, mut body) = graph_error(400, 1, None, "Error validating client secret.");
        body["error"]["type"] = json!("OAuthException");
        return Err((status, body));
    }
    if call.query("fb_exchange_token") != Some(setup.short_user_token.as_str()) {
        return Err(graph_error(400, 190, None, "Invalid OAuth access token."));
    }
    Ok(())
}

/// The page webhook fields a subscription may name.
const KNOWN_FIELDS: &[&str] = &[
    "messages",
    "messaging_postbacks",
    "message_deliveries",
    "message_reads",
    "message_echoes",
    "message_reactions",
    "message_edits",
    "messaging_referrals",
    "messaging_optins",
    "messaging_handovers",
    "standby",
];

fn subscribed_fields(call: &Call) -> Vec<String> {
    call.form
        .iter()
        .chain(call.query.iter())
        .find(|(n, _)| n == "subscribed_fields")
        .map(|(_, v)| v.split(',').map(|f| f.trim().to_owned()).collect())
        .unwrap_or_default()
}

fn check_subscription(call: &Call) -> Check {
    let fields = subscribed_fields(call);
    if fields.is_empty() || fields.iter().any(|f| !KNOWN_FIELDS.contains(&f.as_str())) {
        return Err(invalid("subscribed_fields must list known page fields"));
    }
    Ok(())
}

// ------------------------------------------------------------------------- successes

/// A page of `items` by the fake's page size (2), from the `after` cursor.
fn paged(base: &str, call: &Call, items: Vec<Value>) -> Value {
    const PAGE: usize = 2;
    let start: usize = call
        .query("after")
        .and_then(|a| a.parse().ok())
        .unwrap_or(0);
    let end = (start + PAGE).min(items.len());
    let data: Vec<Value> = items
        .get(start..end)
        .map(<[Value]>::to_vec)
        .unwrap_or_default();
    let mut paging =
        json!({ "cursors": { "before": start.to_string(), "after": end.to_string() } });
    if end < items.len() {
        paging["next"] = json!(format!("{base}{}?after={end}", call.path));
    }
    json!({ "data": data, "paging": paging })
}

fn success(shared: &Shared, route: Route, object_id: &str, call: &Call) -> (u16, Value) {
    let setup = &shared.setup;
    match route {
        Route::CloudMessages => {
            let body = call.json.clone().unwrap_or_default();
            if body.get("status").is_some() {
                return (200, json!({ "success": true }));
            }
            let input = body["to"]
                .as_str()
                .or(body["recipient"].as_str())
                .unwrap_or_default()
                .to_owned();
            let mut contact = json!({ "input": input });
            if let Some(to) = body["to"].as_str() {
                contact["wa_id"] = json!(to);
            } else {
                contact["user_id"] = json!(input);
            }
            let id = format!("wamid.FAKE{:08}", shared.next());
            (
                200,
                json!({
                    "messaging_product": "whatsapp",
                    "contacts": [contact],
                    "messages": [{ "id": id, "message_status": "accepted" }],
                }),
            )
        }
        Route::CloudMedia => {
            let id = format!("{}", 800_000_000 + shared.next());
            let file = call.parts.iter().find(|p| p.name == "file");
            let kind = call
                .parts
                .iter()
                .find(|p| p.name == "type")
                .map(|p| String::from_utf8_lossy(&p.bytes).into_owned())
                .unwrap_or_default();
            if let Some(file) = file {
                shared.lock().media.insert(
                    id.clone(),
                    Media {
                        bytes: file.bytes.clone(),
                        mime_type: kind,
                        sha256: hex::encode(Sha256::digest(&file.bytes)),
                        url: None,
                        file_name: file.file_name.clone(),
                    },
                );
            }
            (200, json!({ "id": id }))
        }
        Route::PhoneNumber => (
            200,
            json!({
                "display_phone_number": setup.display_phone_number,
                "verified_name": "Loja Azul",
                "id": setup.phone_number_id,
            }),
        ),
        Route::MediaInfo => {
            let media = shared.lock().media.get(object_id).cloned();
            match media {
                Some(m) => (
                    200,
                    json!({
                        "messaging_product": "whatsapp",
                        "url": m.url.unwrap_or_else(|| format!("{}/lookaside/{object_id}", shared.base)),
                        "mime_type": m.mime_type,
                        "sha256": m.sha256,
                        "file_size": m.bytes.len(),
                        "id": object_id,
                    }),
                ),
                None => graph_error(404, 100, None, "media not found"),
            }
        }
        Route::Templates => {
            let items: Vec<Value> = setup
                .templates
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    json!({
                        "id": format!("{}", 700_000_000 + i),
                        "name": t.name,
                        "language": t.language,
                        "status": t.status,
                        "category": "UTILITY",
                        "components": [{ "type": "BODY", "text": t.body }],
                    })
                })
                .collect();
            (200, paged(&shared.base, call, items))
        }
        Route::PageMessages => {
            let recipient = call
                .json
                .as_ref()
                .and_then(|b| b.pointer("/recipient/id"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let mid = format!("m_FAKE{:08}", shared.next());
            (200, json!({ "recipient_id": recipient, "message_id": mid }))
        }
        Route::TokenExchange => (
            200,
            json!({
                "access_token": setup.long_user_token,
                "token_type": "bearer",
                "expires_in": 5_183_944,
            }),
        ),
        Route::Accounts => {
            let items: Vec<Value> = setup
                .pages
                .iter()
                .map(|p| {
                    let mut page = json!({
                        "id": p.id,
                        "name": p.name,
                        "access_token": p.token,
                        "category": "Shopping & retail",
                    });
                    if let Some((id, username)) = &p.instagram {
                        page["instagram_business_account"] =
                            json!({ "id": id, "username": username, "name": p.name });
                    }
                    page
                })
                .collect();
            (200, paged(&shared.base, call, items))
        }
        Route::SubscribedApps => {
            shared
                .lock()
                .subscriptions
                .push((object_id.to_owned(), subscribed_fields(call)));
            (200, json!({ "success": true }))
        }
        Route::MediaDownload | Route::Cdn => (200, json!({})),
    }
}

// ------------------------------------------------------------------------- webhooks

/// A signed webhook delivery: the raw body and its `X-Hub-Signature-256`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The raw body.
    pub body: Vec<u8>,
    /// Its `X-Hub-Signature-256`.
    pub signature: String,
}

/// Builds and signs webhook deliveries as Meta does (the "signed-webhook driver").
#[derive(Debug, Clone)]
pub struct WebhookDriver {
    secret: Vec<u8>,
}

impl WebhookDriver {
    /// A driver signing with the app secret `secret`.
    pub fn new(secret: &str) -> Self {
        Self {
            secret: secret.as_bytes().to_vec(),
        }
    }

    /// `delivery` serialised and signed.
    pub fn sign(&self, delivery: &Value) -> Signed {
        let body = delivery.to_string().into_bytes();
        let signature = sign(&body, &self.secret);
        Signed { body, signature }
    }

    /// A Cloud API delivery of one `messages` change for `phone_number_id` with `value`'s
    /// `contacts`, `messages` and `statuses` (metadata added).
    pub fn cloud(&self, waba_id: &str, phone_number_id: &str, mut value: Value) -> Signed {
        value["messaging_product"] = json!("whatsapp");
        value["metadata"] = json!({
            "display_phone_number": "15550783881",
            "phone_number_id": phone_number_id,
        });
        self.sign(&json!({
            "object": "whatsapp_business_account",
            "entry": [{ "id": waba_id, "changes": [{ "field": "messages", "value": value }] }],
        }))
    }

    /// A Messenger (`object` `page`) or Instagram (`instagram`) delivery of `events` for the
    /// account `entry_id`.
    pub fn messaging(&self, object: &str, entry_id: &str, events: Vec<Value>) -> Signed {
        self.sign(&json!({
            "object": object,
            "entry": [{ "id": entry_id, "time": 1_764_000_000_000_i64, "messaging": events }],
        }))
    }

    /// The query of Meta's subscription check.
    pub fn challenge_query(verify_token: &str, challenge: &str) -> Vec<(String, String)> {
        vec![
            ("hub.mode".to_owned(), "subscribe".to_owned()),
            ("hub.verify_token".to_owned(), verify_token.to_owned()),
            ("hub.challenge".to_owned(), challenge.to_owned()),
        ]
    }

    /// POSTs `signed` to a webhook endpoint as Meta would: the answer's status and body.
    ///
    /// # Errors
    /// When the endpoint cannot be reached.
    pub async fn post(&self, url: &str, signed: &Signed) -> Result<(u16, String), reqwest::Error> {
        crate::graph::install_crypto_provider();
        let response = reqwest::Client::new()
            .post(url)
            .header(header::CONTENT_TYPE.as_str(), "application/json")
            .header(crate::verify::SIGNATURE_HEADER, &signed.signature)
            .body(signed.body.clone())
            .send()
            .await?;
        let status = response.status().as_u16();
        Ok((status, response.text().await?))
    }
}
