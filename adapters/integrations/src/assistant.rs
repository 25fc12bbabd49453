//! An OpenAI-compatible chat completion client.

use async_trait::async_trait;
use chatflow_core::Result;
use chatflow_core::integrations::{AssistantClient, ChatMessage, ChatReply, ChatRequest};
use serde::{Deserialize, Serialize};

use crate::http::{Http, HttpOptions};

/// [`AssistantClient`] over HTTP: `POST {base_url}/chat/completions` with the API key as a bearer
/// token and `{model, messages, max_tokens, temperature}`; the answer is
/// `choices[0].message.content`.
#[derive(Debug, Clone)]
pub struct HttpAssistant {
    http: Http,
    /// Used when a request names no base URL (the server's `CHATFLOW_OPENAI_BASE_URL`).
    default_base_url: String,
}

impl HttpAssistant {
    /// A client whose requests without a base URL go to `default_base_url`.
    pub fn new(default_base_url: impl Into<String>, options: HttpOptions) -> Result<Self> {
        Ok(Self {
            http: Http::new("assistant", options)?,
            default_base_url: default_base_url.into(),
        })
    }
}

#[derive(Serialize)]
struct CompletionBody<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    max_tokens: u32,
    temperature: f64,
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: AnswerMessage,
}

#[derive(Deserialize)]
struct AnswerMessage {
    content: Option<String>,
}

#[async_trait]
impl AssistantClient for HttpAssistant {
    async fn complete(&self, request: &ChatRequest) -> Result<ChatReply> {
        let base = request
            .base_url
            .as_deref()
            .filter(|b| !b.trim().is_empty())
            .unwrap_or(&self.default_base_url);
        let url = self.http.url(base, &["chat", "completions"])?;
        let body = CompletionBody {
            model: &request.model,
            messages: &request.messages,
            max_tokens: request.max_tokens,
            temperature: request.temperature,
        };
        let bearer = Some(request.api_key.as_str()).filter(|k| !k.trim().is_empty());
        let completion: Completion = self.http.post_json(&url, bearer, &body).await?;
        completion
            .choices
            .into_iter()
            .next()
            .and_then(|choice| choice.message.content)
            .map(|content| ChatReply { content })
            .ok_or_else(|| {
                self.http
                    .error(url.host_str(), "the answer has no message content")
            })
    }
}
