//! The Graph API client: one [`GraphClient`] per process, over `reqwest` (rustls on ring),
//! serving every connection; each call takes the credentials it needs (a Cloud API account, a
//! page's token, the app's id and secret).
//!
//! - [`cloud`]: WhatsApp Cloud API sends, uploads, read marks, templates.
//! - [`messenger`]: the Send API of Messenger and Instagram.
//! - [`connect`]: the connect flow (long-lived token, the user's pages, the page's subscription).
//! - [`media`]: downloads of inbound files.
//! - [`error`]: Graph's errors classified and mapped to the core's codes.
//!
//! The base URL and the API version are configurable ([`GraphConfig`]), so tests and
//! end-to-end runs point the client at the fake Graph server. Retryable failures
//! ([`ErrorClass::Retryable`]) are retried with jittered exponential backoff (`backon`, as
//! `chatflow-integrations`), [`RetryPolicy::max_attempts`] in all; nothing else is retried.
//! Tokens travel only in the `Authorization` header (the connect flow's app secret in the
//! token exchange's query, as Meta requires), and only to the Graph origin or the configured
//! media hosts; they never appear in errors.

pub mod cloud;
pub mod connect;
pub mod error;
pub mod media;
pub mod messenger;

use std::time::Duration;

use backon::{ExponentialBuilder, Retryable as _};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;

pub use error::{ErrorClass, GraphError, Operation};

/// The Graph API's public base URL.
pub const GRAPH_BASE_URL: &str = "https://graph.facebook.com";

/// The API version used by default.
pub const DEFAULT_API_VERSION: &str = "v25.0";

/// Retries of retryable failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 4; at least 1).
    pub max_attempts: usize,
    /// The first wait (default 1 s); it doubles on each retry, with jitter.
    pub min_backoff: Duration,
    /// The longest wait (default 20 s).
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            min_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(20),
        }
    }
}

/// Where Graph is and how the client behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphConfig {
    /// The Graph origin (default [`GRAPH_BASE_URL`]; the fake's address in tests).
    pub base_url: String,
    /// The API version path segment (default [`DEFAULT_API_VERSION`]).
    pub api_version: String,
    /// Hosts besides the Graph origin that media URLs may point at and that receive the
    /// bearer token (exact host match, HTTPS): default `lookaside.fbsbx.com`.
    pub media_hosts: Vec<String>,
    /// How long to wait for a connection (default 5 s).
    pub connect_timeout: Duration,
    /// How long a call may take, answer included (default 30 s; downloads get 4 times this).
    pub request_timeout: Duration,
    /// The largest file downloaded (default 100 MB, WhatsApp's document limit).
    pub max_media_bytes: u64,
    /// Retries of retryable failures.
    pub retry: RetryPolicy,
}

impl Default for GraphConfig {
    fn default() -> Self {
        Self {
            base_url: GRAPH_BASE_URL.to_owned(),
            api_version: DEFAULT_API_VERSION.to_owned(),
            media_hosts: vec!["lookaside.fbsbx.com".to_owned()],
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_media_bytes: 100 * 1024 * 1024,
            retry: RetryPolicy::default(),
        }
    }
}

/// Makes ring the process's TLS crypto provider (reqwest is built without one); a provider
/// already installed is kept.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The Graph API client (see the module's documentation). Cheap to clone.
#[derive(Debug, Clone)]
pub struct GraphClient {
    http: reqwest::Client,
    base: Url,
    config: GraphConfig,
}

/// A request body.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    None,
    Json(serde_json::Value),
    Form(Vec<(String, String)>),
    /// Multipart text fields and one file (name, file name, type, bytes): rebuilt per attempt.
    Multipart {
        fields: Vec<(String, String)>,
        file: (String, String, String, Vec<u8>),
    },
}

impl GraphClient {
    /// A client for `config`. `ERR_INTERNAL` when the base URL is not an http(s) URL or the
    /// HTTP client cannot be built.
    pub fn new(config: GraphConfig) -> chatflow_core::Result<Self> {
        install_crypto_provider();
        let base = Url::parse(config.base_url.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| {
                chatflow_core::Error::internal(format!(
                    "the Graph base URL {:?} is not an http(s) URL",
                    config.base_url
                ))
            })?;
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(config.connect_timeout)
                .timeout(config.request_timeout)
                // Redirects would carry the token elsewhere; Graph does not redirect API calls.
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("chatflow/", env!("CARGO_PKG_VERSION")))
        };
        let http = builder()
            .build()
            .or_else(|system| {
                tracing::warn!(
                    "no usable system CA certificates ({system}); using the bundled Mozilla roots"
                );
                builder().tls_certs_only(bundled_roots()).build()
            })
            .map_err(|e| {
                chatflow_core::Error::internal(format!("cannot build the Graph HTTP client: {e}"))
            })?;
        Ok(Self { http, base, config })
    }

    /// The configuration.
    pub fn config(&self) -> &GraphConfig {
        &self.config
    }

    /// `{base}/{version}/{segments...}`, each segment percent-encoded, so an id can never change
    /// the path.
    pub(crate) fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        url.set_query(None);
        url.set_fragment(None);
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty();
            path.push(&self.config.api_version);
            path.extend(segments);
        }
        url
    }

    /// Whether `url` may receive the bearer token: the Graph origin itself, or an HTTPS URL
    /// on one of the media hosts.
    pub(crate) fn trusted_media_url(&self, url: &Url) -> bool {
        let same_origin = url.scheme() == self.base.scheme()
            && url.host_str() == self.base.host_str()
            && url.port_or_known_default() == self.base.port_or_known_default();
        same_origin
            || (url.scheme() == "https"
                && url.host_str().is_some_and(|h| {
                    self.config
                        .media_hosts
                        .iter()
                        .any(|m| m.eq_ignore_ascii_case(h))
                }))
    }

    /// One Graph call answering JSON, retried while it fails retryably.
    pub(crate) async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        token: Option<&str>,
        body: Body,
    ) -> Result<T, GraphError> {
        let bytes = self
            .retrying(|| self.attempt(method.clone(), url.clone(), token, &body, None))
            .await?;
        serde_json::from_slice(&bytes.0)
            .map_err(|e| GraphError::local(format!("unreadable Graph answer: {e}")))
    }

    /// Runs `attempt` under the retry policy.
    pub(crate) async fn retrying<F, Fut, T>(&self, attempt: F) -> Result<T, GraphError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, GraphError>>,
    {
        let policy = &self.config.retry;
        let backoff = ExponentialBuilder::default()
            .with_min_delay(policy.min_backoff)
            .with_max_delay(policy.max_backoff)
            .with_max_times(policy.max_attempts.max(1) - 1)
            .with_jitter();
        attempt
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|e: &GraphError| e.class == ErrorClass::Retryable)
            .notify(|e: &GraphError, wait: Duration| {
                tracing::warn!(
                    error = %e,
                    wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    "Graph call failed; retrying"
                );
            })
            .await
    }

    /// One attempt: the answer's body and content type on a 2xx, the classified error
    /// otherwise. `limit` caps the body (downloads).
    pub(crate) async fn attempt(
        &self,
        method: Method,
        url: Url,
        token: Option<&str>,
        body: &Body,
        limit: Option<u64>,
    ) -> Result<(Vec<u8>, Option<String>), GraphError> {
        let mut request = self.http.request(method, url);
        if limit.is_some() {
            // Downloads may be large: more time than an API call.
            request = request.timeout(self.config.request_timeout.saturating_mul(4));
        }
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request = match body {
            Body::None => request,
            Body::Json(json) => request.json(json),
            Body::Form(pairs) => {
                // reqwest's `form` is behind a feature the workspace does not turn on.
                let mut encoder = Url::parse("http://form.invalid/")
                    .map_err(|e| GraphError::local(format!("cannot encode a form: {e}")))?;
                encoder.query_pairs_mut().extend_pairs(pairs);
                request
                    .header(
                        reqwest::header::CONTENT_TYPE,
                        "application/x-www-form-urlencoded",
                    )
                    .body(encoder.query().unwrap_or_default().to_owned())
            }
            Body::Multipart { fields, file } => {
                let mut form = reqwest::multipart::Form::new();
                for (name, value) in fields {
                    form = form.text(name.clone(), value.clone());
                }
                let (name, file_name, mime, bytes) = file;
                let part = reqwest::multipart::Part::bytes(bytes.clone())
                    .file_name(file_name.clone())
                    .mime_str(mime)
                    .map_err(|e| GraphError::local(format!("bad file type {mime:?}: {e}")))?;
                request.multipart(form.part(name.clone(), part))
            }
        };
        let mut response = request
            .send()
            .await
            .map_err(|e| GraphError::transport(&e))?;
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let cap = limit.unwrap_or(4 * 1024 * 1024);
        if response.content_length().is_some_and(|len| len > cap) {
            return Err(GraphError::local(format!(
                "the answer is larger than {cap} bytes"
            )));
        }
        let mut bytes: Vec<u8> = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| GraphError::transport(&e))?
        {
            if (bytes.len() + chunk.len()) as u64 > cap {
                return Err(GraphError::local(format!(
                    "the answer is larger than {cap} bytes"
                )));
            }
            bytes.extend_from_slice(&chunk);
        }
        if status.is_success() {
            Ok((bytes, content_type))
        } else {
            Err(GraphError::from_answer(status.as_u16(), &bytes))
        }
    }
}

/// A reqwest error's text without its URL (which may hold a query with a secret).
pub(crate) fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(url.as_str(), "<url>");
    }
    text
}

/// Mozilla's root certificates, bundled.
fn bundled_roots() -> Vec<reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect()
}
