//! Chatflow's integration adapters: the HTTP side of the core's
//! [`chatflow_core::integrations`] ports.
//!
//! - [`HttpAssistant`] implements [`AssistantClient`] against any OpenAI-compatible server
//!   (`POST {base_url}/chat/completions`).
//! - [`HttpTypebot`] implements [`TypebotClient`] against Typebot's public chat API v1
//!   (`startChat`, `continueChat`).
//!
//! Both share one behaviour ([`HttpOptions`]): a connect timeout (5 s) and a request timeout
//! (30 s); transient failures (the server could not be reached, HTTP 429, HTTP 5xx) are retried
//! with jittered exponential backoff, at most 3 attempts in all, a 429's `Retry-After` honoured up
//! to the longest backoff; anything else (another 4xx, a request timeout, an answer that cannot be
//! read) fails at once. Every failure is `ERR_INTEGRATION_UNAVAILABLE` with a detail naming the
//! service, the host and the reason, never the API key or the body of the answer.
//!
//! TLS is rustls (reqwest's `rustls` backend with the platform's certificate verifier, falling
//! back to the bundled Mozilla roots on a system without CA certificates); no OpenSSL.

mod assistant;
mod http;
mod typebot;

pub use assistant::HttpAssistant;
pub use http::{HttpOptions, install_crypto_provider};
pub use typebot::HttpTypebot;

#[doc(no_inline)]
pub use chatflow_core::integrations::{AssistantClient, TypebotClient};

/// The OpenAI API's base URL, the server's default for `CHATFLOW_OPENAI_BASE_URL`.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
