//! The HTTP behaviour both adapters share: the client, timeouts, retries and error mapping.

use std::future::Future;
use std::time::Duration;

use backon::{ExponentialBuilder, Retryable};
use chatflow_core::{Error, ErrorCode};
use reqwest::{StatusCode, Url, header};
use serde::de::DeserializeOwned;

/// Timeouts and retries of an integration client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// How long to wait for a connection (default 5 s).
    pub connect_timeout: Duration,
    /// How long a whole request may take, answer included (default 30 s).
    pub request_timeout: Duration,
    /// Attempts in all, the first included (default 3; at least 1).
    pub max_attempts: usize,
    /// The first wait before a retry (default 500 ms); it doubles on each retry, with jitter.
    pub min_backoff: Duration,
    /// The longest wait before a retry (default 5 s), also the cap of a 429's `Retry-After`.
    pub max_backoff: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_attempts: 3,
            min_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(5),
        }
    }
}

/// Why one attempt failed.
#[derive(Debug)]
pub(crate) struct Failure {
    /// Worth another attempt (unreachable, 429, 5xx).
    transient: bool,
    /// For the detail: never the API key, never the answer's body.
    reason: String,
    /// A 429's `Retry-After`, in seconds.
    retry_after: Option<Duration>,
}

impl Failure {
    pub(crate) fn permanent(reason: impl Into<String>) -> Self {
        Self {
            transient: false,
            reason: reason.into(),
            retry_after: None,
        }
    }
}

/// Makes ring the process's TLS crypto provider (reqwest is built without one of its own); a
/// provider already installed is kept.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A reqwest client with the options, shared by the adapters.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    options: HttpOptions,
    /// `assistant` or `typebot`, for details and logs.
    service: &'static str,
}

impl Http {
    /// The client verifies servers with the system's CA certificates; on a system without any
    /// (a bare container) it falls back to the bundled Mozilla roots rather than refusing to start.
    pub(crate) fn new(service: &'static str, options: HttpOptions) -> chatflow_core::Result<Self> {
        install_crypto_provider();
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(options.connect_timeout)
                .timeout(options.request_timeout)
                .user_agent(concat!("chatflow/", env!("CARGO_PKG_VERSION")))
        };
        let client = builder()
            .build()
            .or_else(|system| {
                tracing::warn!(
                    service,
                    "no usable system CA certificates ({system}); using the bundled Mozilla roots"
                );
                builder().tls_certs_only(bundled_roots()).build()
            })
            .map_err(|e| Error::internal(format!("cannot build the {service} HTTP client: {e}")))?;
        Ok(Self {
            client,
            options,
            service,
        })
    }

    /// `base` with `segments` appended as path segments (each percent-encoded), so a slug or a
    /// session id can never change the path.
    pub(crate) fn url(&self, base: &str, segments: &[&str]) -> chatflow_core::Result<Url> {
        let mut url = Url::parse(base.trim())
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
            .ok_or_else(|| self.error(None, "the base URL is not an http(s) URL"))?;
        url.set_query(None);
        url.set_fragment(None);
        {
            let mut path = url
                .path_segments_mut()
                .map_err(|()| self.error(None, "the base URL cannot take a path"))?;
            path.pop_if_empty();
            path.extend(segments);
        }
        Ok(url)
    }

    /// POSTs `body` as JSON to `url` (with `bearer`, when given) and reads the JSON answer,
    /// retrying transient failures. `secret` is scrubbed from every detail.
    pub(crate) async fn post_json<B, T>(
        &self,
        url: &Url,
        bearer: Option<&str>,
        body: &B,
    ) -> chatflow_core::Result<T>
    where
        B: serde::Serialize + Sync,
        T: DeserializeOwned,
    {
        let attempt = || self.attempt::<B, T>(url, bearer, body);
        self.retrying(attempt)
            .await
            .map_err(|failure| self.error(url.host_str(), &scrub(&failure.reason, bearer)))
    }

    fn retrying<F, Fut, T>(&self, attempt: F) -> impl Future<Output = Result<T, Failure>>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let backoff = ExponentialBuilder::default()
            .with_min_delay(self.options.min_backoff)
            .with_max_delay(self.options.max_backoff)
            .with_max_times(self.options.max_attempts.max(1) - 1)
            .with_jitter();
        let max_backoff = self.options.max_backoff;
        let service = self.service;
        attempt
            .retry(backoff)
            .sleep(tokio::time::sleep)
            .when(|failure: &Failure| failure.transient)
            .adjust(move |failure: &Failure, wait| {
                wait.map(|wait| {
                    failure
                        .retry_after
                        .map_or(wait, |after| after.min(max_backoff))
                })
            })
            .notify(move |failure: &Failure, wait| {
                tracing::warn!(
                    service,
                    reason = %failure.reason,
                    wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                    "integration request failed; retrying"
                );
            })
    }

    async fn attempt<B, T>(&self, url: &Url, bearer: Option<&str>, body: &B) -> Result<T, Failure>
    where
        B: serde::Serialize,
        T: DeserializeOwned,
    {
        let mut request = self.client.post(url.clone()).json(body);
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(transport_failure)?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(Duration::from_secs);
            let code = error_code(response).await;
            return Err(Failure {
                transient: status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error(),
                reason: match code {
                    Some(code) => format!("HTTP {} ({code})", status.as_u16()),
                    None => format!("HTTP {}", status.as_u16()),
                },
                retry_after: (status == StatusCode::TOO_MANY_REQUESTS)
                    .then_some(retry_after)
                    .flatten(),
            });
        }
        let bytes = response.bytes().await.map_err(transport_failure)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Failure::permanent(format!("unreadable answer: {e}")))
    }

    /// `ERR_INTEGRATION_UNAVAILABLE` with a detail naming the service and host.
    pub(crate) fn error(&self, host: Option<&str>, reason: &str) -> Error {
        let detail = match host {
            Some(host) => format!("{} at {host}: {reason}", self.service),
            None => format!("{}: {reason}", self.service),
        };
        Error::with_detail(ErrorCode::ERR_INTEGRATION_UNAVAILABLE, detail)
    }
}

/// Mozilla's root certificates, bundled.
fn bundled_roots() -> Vec<reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
        .collect()
}

/// A transport error as a failure: a server that cannot be reached (refused, unresolved, no
/// connection within the connect timeout) is transient; a request that timed out once connected
/// is not (the contact is already waiting). The error's URL is left out.
fn transport_failure(error: reqwest::Error) -> Failure {
    let transient = error.is_connect();
    let reason = if error.is_connect() {
        "cannot connect".to_owned()
    } else if error.is_timeout() {
        "no answer in time".to_owned()
    } else {
        format!("request failed: {}", error.without_url())
    };
    Failure {
        transient,
        reason,
        retry_after: None,
    }
}

/// The error's machine-readable code when the answer has one (`{"error": {"code" | "type"}}`
/// in OpenAI's shape, `{"code"}` in Typebot's): short, and never an echo of the request.
async fn error_code(response: reqwest::Response) -> Option<String> {
    let body: serde_json::Value = response.json().await.ok()?;
    let error = body.get("error").filter(|e| e.is_object()).unwrap_or(&body);
    let code = error
        .get("code")
        .filter(|c| c.is_string())
        .or_else(|| error.get("type"))
        .and_then(serde_json::Value::as_str)?;
    let code: String = code
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .take(64)
        .collect();
    (!code.is_empty()).then_some(code)
}

/// `text` with `secret` (when given and not blank) replaced.
fn scrub(text: &str, secret: Option<&str>) -> String {
    match secret.map(str::trim).filter(|s| !s.is_empty()) {
        Some(secret) => text.replace(secret, "<redacted>"),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_append_encoded_segments_to_the_base() {
        let http = Http::new("typebot", HttpOptions::default()).expect("client");
        let url = http
            .url(
                "https://bots.example.com/",
                &["api", "v1", "typebots", "a/b?c", "startChat"],
            )
            .expect("url");
        assert_eq!(
            url.as_str(),
            "https://bots.example.com/api/v1/typebots/a%2Fb%3Fc/startChat"
        );
        let url = http
            .url("http://10.0.0.2:8080/v1?x=1", &["chat", "completions"])
            .expect("url");
        assert_eq!(url.as_str(), "http://10.0.0.2:8080/v1/chat/completions");
        for bad in ["", "not a url", "ftp://x/", "mailto:a@b"] {
            let err = http.url(bad, &["x"]).expect_err(bad);
            assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
        }
    }

    #[test]
    fn a_client_can_always_be_built_from_the_bundled_roots() {
        install_crypto_provider();
        let roots = bundled_roots();
        assert!(roots.len() > 100, "{} roots", roots.len());
        reqwest::Client::builder()
            .tls_certs_only(roots)
            .build()
            .expect("a client trusting the bundled roots");
    }

    #[test]
    fn secrets_are_scrubbed() {
        assert_eq!(scrub("key sk-1 bad", Some("sk-1")), "key <redacted> bad");
        assert_eq!(scrub("nothing", Some("  ")), "nothing");
        assert_eq!(scrub("nothing", None), "nothing");
    }
}
