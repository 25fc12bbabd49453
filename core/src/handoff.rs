//! The integration holding a conversation after a flow handed it over: an `openai` node's
//! assistant or a `typebot` node's bot. Pure: what is remembered on the ticket
//! ([`IntegrationSession`]), a typebot node's settings ([`TypebotSettings`]) and what a
//! contact's message means to a running Typebot session ([`typebot_turn`]). The host
//! (`core::service::automation`) calls the integration through the ports of
//! [`crate::integrations`] and sends what it answers (`docs/flows.md`, "Integrations").

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::flow::model::{value_i64, value_text};
use crate::flow_ports::FlowId;
use crate::integrations::{TypebotCommand, typebot_command};

/// Minutes a Typebot session may stay idle before the next message starts a new one, when the
/// node does not say (spec 3: `typebotExpires` default 1). Zero or less: never expires.
pub const TYPEBOT_DEFAULT_EXPIRES_MINUTES: i64 = 1;
/// Milliseconds between a Typebot answer's messages when the node does not say (spec 3:
/// `typebotDelayMessage` default 1000).
pub const TYPEBOT_DEFAULT_DELAY_MS: i64 = 1000;

/// The integration holding a conversation, remembered on the ticket (`integration_session`) as
/// JSON. The node's settings are not copied: they are read from the flow version the run was on
/// (versions never change), so an API key lives only in the flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum IntegrationSession {
    /// An `openai` node's assistant answers every message.
    #[serde(rename_all = "camelCase")]
    Assistant {
        flow_id: FlowId,
        version: i64,
        node_id: String,
    },
    /// A `typebot` node's bot, in the Typebot session `session_id`.
    #[serde(rename_all = "camelCase")]
    Typebot {
        flow_id: FlowId,
        version: i64,
        node_id: String,
        session_id: String,
        /// When the session last heard from the contact or started (for `typebotExpires`).
        last_at: DateTime<Utc>,
    },
}

impl IntegrationSession {
    /// The session stored as `json`; `None` for an empty or unreadable value (then no
    /// integration holds the conversation).
    pub fn parse(json: &str) -> Option<Self> {
        if json.trim().is_empty() {
            return None;
        }
        serde_json::from_str(json).ok()
    }

    /// The JSON stored on the ticket.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The flow version and node the session came from.
    pub fn origin(&self) -> (FlowId, i64, &str) {
        match self {
            Self::Assistant {
                flow_id,
                version,
                node_id,
            }
            | Self::Typebot {
                flow_id,
                version,
                node_id,
                ..
            } => (*flow_id, *version, node_id),
        }
    }
}

/// A `typebot` node's settings: the queue integration of type typebot it holds (spec 3
/// "Queue integration"), read leniently (numbers may be strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypebotSettings {
    /// The Typebot viewer's URL (`urlN8N`), without a trailing slash.
    pub base_url: String,
    /// The published bot's public id (`typebotSlug`).
    pub slug: String,
    /// `typebotExpires`, minutes; zero or less never expires.
    pub expires_minutes: i64,
    /// `typebotDelayMessage`, milliseconds between the messages of one answer.
    pub delay_ms: i64,
    /// `typebotKeywordFinish`.
    pub keyword_finish: String,
    /// `typebotKeywordRestart`.
    pub keyword_restart: String,
    /// `typebotUnknownMessage`: sent when the contact sends something the bot cannot read
    /// (media without a caption).
    pub unknown_message: String,
    /// `typebotRestartMessage`: sent before the bot starts again on the restart keyword.
    pub restart_message: String,
}

impl TypebotSettings {
    /// Reads a node's `typebotIntegration`; `None` when the URL or the slug is missing, or the
    /// URL is not `http(s)://`.
    pub fn from_value(value: &Value) -> Option<Self> {
        let text = |key: &str| value.get(key).map(value_text).unwrap_or_default();
        let number =
            |key: &str, default: i64| value.get(key).and_then(value_i64).unwrap_or(default);
        let base_url = text("urlN8N").trim().trim_end_matches('/').to_owned();
        let slug = text("typebotSlug").trim().to_owned();
        let lower = base_url.to_ascii_lowercase();
        if slug.is_empty() || !(lower.starts_with("http://") || lower.starts_with("https://")) {
            return None;
        }
        Some(Self {
            base_url,
            slug,
            expires_minutes: number("typebotExpires", TYPEBOT_DEFAULT_EXPIRES_MINUTES),
            delay_ms: number("typebotDelayMessage", TYPEBOT_DEFAULT_DELAY_MS).max(0),
            keyword_finish: text("typebotKeywordFinish"),
            keyword_restart: text("typebotKeywordRestart"),
            unknown_message: text("typebotUnknownMessage").trim().to_owned(),
            restart_message: text("typebotRestartMessage").trim().to_owned(),
        })
    }
}

/// What a contact's message does to a running Typebot session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypebotTurn {
    /// The finish keyword: the session ends and the ticket waits for a person.
    Finish,
    /// The restart keyword: send `restartMessage` (when set), then start the bot again.
    Restart,
    /// The session was idle longer than `typebotExpires`: start the bot again (the message that
    /// woke it is not sent to the new session: the bot greets first).
    Expired,
    /// Nothing the bot can read (media without a caption): send `unknownMessage` (when set).
    Unknown,
    /// Send the text to the session.
    Continue,
}

/// The turn for `text` arriving at `now` in a session last active at `last_at`. Keywords win
/// over expiry (a contact who says the finish word ends the session whatever its age).
pub fn typebot_turn(
    settings: &TypebotSettings,
    last_at: DateTime<Utc>,
    now: DateTime<Utc>,
    text: &str,
) -> TypebotTurn {
    match typebot_command(text, &settings.keyword_finish, &settings.keyword_restart) {
        TypebotCommand::Finish => return TypebotTurn::Finish,
        TypebotCommand::Restart => return TypebotTurn::Restart,
        TypebotCommand::Continue => {}
    }
    if settings.expires_minutes > 0 && now - last_at > TimeDelta::minutes(settings.expires_minutes)
    {
        return TypebotTurn::Expired;
    }
    if text.trim().is_empty() {
        return TypebotTurn::Unknown;
    }
    TypebotTurn::Continue
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn at(minute: u32, second: u32) -> DateTime<Utc> {
        use chrono::TimeZone;
        Utc.with_ymd_and_hms(2026, 11, 24, 10, minute, second)
            .unwrap()
    }

    fn settings() -> TypebotSettings {
        TypebotSettings::from_value(&json!({
            "urlN8N": "https://bots.example.com/",
            "typebotSlug": "vendas",
            "typebotExpires": "5",
            "typebotKeywordFinish": "Sair",
            "typebotKeywordRestart": "#reiniciar",
            "typebotUnknownMessage": "Não entendi.",
            "typebotRestartMessage": "Recomeçando…"
        }))
        .expect("valid settings")
    }

    #[test]
    fn settings_are_read_leniently_with_the_specification_defaults() {
        let s = settings();
        assert_eq!(s.base_url, "https://bots.example.com");
        assert_eq!(s.slug, "vendas");
        assert_eq!(s.expires_minutes, 5);
        assert_eq!(s.delay_ms, TYPEBOT_DEFAULT_DELAY_MS);
        let bare = TypebotSettings::from_value(&json!({
            "urlN8N": "http://127.0.0.1:3000", "typebotSlug": "x"
        }))
        .expect("minimal settings");
        assert_eq!(bare.expires_minutes, 1);
        assert_eq!(bare.delay_ms, 1000);
        assert!(bare.keyword_finish.is_empty());
    }

    #[test]
    fn settings_without_a_url_or_slug_or_with_another_scheme_are_refused() {
        assert_eq!(TypebotSettings::from_value(&json!({})), None);
        assert_eq!(
            TypebotSettings::from_value(&json!({"urlN8N": "https://a.b", "typebotSlug": " "})),
            None
        );
        assert_eq!(
            TypebotSettings::from_value(&json!({"urlN8N": "file:///etc", "typebotSlug": "x"})),
            None
        );
        assert_eq!(TypebotSettings::from_value(&json!("text")), None);
    }

    #[test]
    fn keywords_win_over_expiry_and_blank_text_is_unknown() {
        let s = settings();
        let last = at(0, 0);
        assert_eq!(
            typebot_turn(&s, last, at(1, 0), "  sair "),
            TypebotTurn::Finish
        );
        assert_eq!(
            typebot_turn(&s, last, at(30, 0), "SAIR"),
            TypebotTurn::Finish
        );
        assert_eq!(
            typebot_turn(&s, last, at(1, 0), "#Reiniciar"),
            TypebotTurn::Restart
        );
        assert_eq!(typebot_turn(&s, last, at(1, 0), ""), TypebotTurn::Unknown);
        assert_eq!(
            typebot_turn(&s, last, at(1, 0), "quero"),
            TypebotTurn::Continue
        );
        // Exactly at the limit the session is still alive; a second later it expired.
        assert_eq!(
            typebot_turn(&s, last, at(5, 0), "quero"),
            TypebotTurn::Continue
        );
        assert_eq!(
            typebot_turn(&s, last, at(5, 1), "quero"),
            TypebotTurn::Expired
        );
        let mut never = s;
        never.expires_minutes = 0;
        assert_eq!(
            typebot_turn(&never, last, at(59, 0), "quero"),
            TypebotTurn::Continue
        );
    }

    #[test]
    fn sessions_round_trip_and_unreadable_ones_are_none() {
        let session = IntegrationSession::Typebot {
            flow_id: FlowId(7),
            version: 2,
            node_id: "tb".into(),
            session_id: "s-1".into(),
            last_at: at(3, 0),
        };
        let json = session.to_json();
        assert!(json.contains("\"kind\":\"typebot\""), "{json}");
        assert_eq!(IntegrationSession::parse(&json), Some(session.clone()));
        assert_eq!(session.origin(), (FlowId(7), 2, "tb"));
        let assistant = IntegrationSession::Assistant {
            flow_id: FlowId(1),
            version: 1,
            node_id: "ai".into(),
        };
        assert_eq!(
            IntegrationSession::parse(&assistant.to_json()),
            Some(assistant)
        );
        assert_eq!(IntegrationSession::parse(""), None);
        assert_eq!(IntegrationSession::parse("{\"kind\":\"other\"}"), None);
    }
}
