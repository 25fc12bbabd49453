//! Typebot's public chat API (v1).

use std::collections::BTreeMap;

use async_trait::async_trait;
use chatflow_core::Result;
use chatflow_core::integrations::{
    TypebotClient, TypebotContinue, TypebotOutput, TypebotReply, TypebotStart, typebot_input,
    typebot_output,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::http::{Http, HttpOptions};

/// [`TypebotClient`] over HTTP, against a published bot (no API token needed):
/// - start: `POST {base_url}/api/v1/typebots/{slug}/startChat` with
///   `{isStreamEnabled: false, isOnlyRegistering: false, prefilledVariables, textBubbleContentFormat:
///   "richText"}`; the answer's `sessionId` and `messages[]`;
/// - continue: `POST {base_url}/api/v1/sessions/{sessionId}/continueChat` with
///   `{message: {type: "text", text}, textBubbleContentFormat: "richText"}`; the answer's
///   `messages[]`.
///
/// Text, image, audio and video bubbles are kept (see
/// [`chatflow_core::integrations::typebot_output`]); others are skipped. A choice input the bot
/// waits for is added as its options ([`chatflow_core::integrations::typebot_input`]).
#[derive(Debug, Clone)]
pub struct HttpTypebot {
    http: Http,
}

impl HttpTypebot {
    pub fn new(options: HttpOptions) -> Result<Self> {
        Ok(Self {
            http: Http::new("typebot", options)?,
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StartBody<'a> {
    is_stream_enabled: bool,
    is_only_registering: bool,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    prefilled_variables: &'a BTreeMap<String, String>,
    text_bubble_content_format: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContinueBody<'a> {
    message: TextMessage<'a>,
    text_bubble_content_format: &'static str,
}

#[derive(Serialize)]
struct TextMessage<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChatAnswer {
    session_id: Option<String>,
    #[serde(default)]
    messages: Vec<Value>,
    /// The input the bot waits for, if any.
    #[serde(default)]
    input: Value,
}

impl ChatAnswer {
    /// The bubbles to send, then the options of a choice input.
    fn outputs(&self) -> Vec<TypebotOutput> {
        self.messages
            .iter()
            .filter_map(typebot_output)
            .chain(typebot_input(&self.input))
            .collect()
    }
}

#[async_trait]
impl TypebotClient for HttpTypebot {
    async fn start(&self, request: &TypebotStart) -> Result<TypebotReply> {
        let slug = request.slug.trim();
        if slug.is_empty() {
            return Err(self.http.error(None, "no typebot slug"));
        }
        let url = self.http.url(
            &request.base_url,
            &["api", "v1", "typebots", slug, "startChat"],
        )?;
        let body = StartBody {
            is_stream_enabled: false,
            is_only_registering: false,
            prefilled_variables: &request.variables,
            text_bubble_content_format: "richText",
        };
        let answer: ChatAnswer = self.http.post_json(&url, None, &body).await?;
        let messages = answer.outputs();
        let session_id = answer
            .session_id
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| {
                self.http
                    .error(url.host_str(), "the answer has no sessionId")
            })?;
        Ok(TypebotReply {
            session_id,
            messages,
        })
    }

    async fn continue_chat(&self, request: &TypebotContinue) -> Result<TypebotReply> {
        let session = request.session_id.trim();
        if session.is_empty() {
            return Err(self.http.error(None, "no typebot session"));
        }
        let url = self.http.url(
            &request.base_url,
            &["api", "v1", "sessions", session, "continueChat"],
        )?;
        let body = ContinueBody {
            message: TextMessage {
                kind: "text",
                text: &request.message,
            },
            text_bubble_content_format: "richText",
        };
        let answer: ChatAnswer = self.http.post_json(&url, None, &body).await?;
        Ok(TypebotReply {
            session_id: request.session_id.clone(),
            messages: answer.outputs(),
        })
    }
}
