//! The integration a flow handed a conversation to, on real conversations: the `openai` node's
//! assistant and the `typebot` node's bot (`docs/flows.md`, "Integrations").
//!
//! [`start`] runs when a flow's step hands over: it remembers an [`IntegrationSession`] on the
//! ticket (with `useIntegration` on) and lets the integration speak first — the assistant answers
//! the contact's message that led there (not when a timer led there: then it waits for the
//! contact's next message), Typebot starts a chat and its greeting is sent. [`on_message`] runs
//! for each later message of the contact (`Trigger::Integration`). The session ends — and the
//! ticket waits for a person, in the node's queue for the assistant when it has one — when the
//! assistant asks for a human, the contact says Typebot's finish keyword, the node's settings are
//! gone or unusable, or the integration fails (the error is returned for the host to log, after
//! the contact has been handed over: a contact never talks to a dead bot).

use std::collections::BTreeMap;

use crate::error::{Error, ErrorCode, Result};
use crate::flow::model::OpenAiSettings;
use crate::flow::{Flow, NodeData};
use crate::flow_ports::FlowId;
use crate::handoff::{IntegrationSession, TypebotSettings, TypebotTurn, typebot_turn};
use crate::ids::{QueueId, TenantScope};
use crate::inbox::model::{Contact, PageStart, Ticket};
use crate::inbox::ports::BotMemory;
use crate::integrations::{
    AssistantAction, PromptSettings, TypebotContinue, TypebotOutput, TypebotReply, TypebotStart,
    assistant_action, assistant_request,
};
use crate::service::Ports;
use crate::service::automation::flow_to_queue;
use crate::service::inbox::messages::send_bot_text;

/// The most messages read for the assistant's context, whatever the node says.
const MAX_CONTEXT_MESSAGES: i64 = 50;

/// Which integration a flow handed over to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandoffKind {
    Assistant,
    Typebot,
}

/// A flow's step handed the conversation over at `node_id` of `flow_id`'s `version`.
#[tracing::instrument(level = "debug", name = "handoff::start", skip_all, fields(company = scope.company_id().0))]
pub async fn start(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    origin: (FlowId, i64),
    node_id: &str,
    kind: HandoffKind,
    after_message: bool,
) -> Result<()> {
    let (flow_id, version) = origin;
    match kind {
        HandoffKind::Assistant => {
            let session = IntegrationSession::Assistant {
                flow_id,
                version,
                node_id: node_id.to_owned(),
            };
            remember(ports, scope, ticket, Some(&session)).await?;
            if after_message {
                assistant_turn(ports, scope, ticket, &session).await
            } else {
                Ok(())
            }
        }
        HandoffKind::Typebot => {
            let origin = (flow_id, version, node_id);
            match typebot_settings(ports, scope, origin).await? {
                Some(settings) => typebot_begin(ports, scope, ticket, origin, &settings).await,
                None => end(ports, scope, ticket, None, unusable(origin)).await,
            }
        }
    }
}

/// A contact's message on a ticket an integration holds (`memory.integration`).
#[tracing::instrument(level = "debug", name = "handoff::on_message", skip_all, fields(company = scope.company_id().0))]
pub async fn on_message(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    memory: &BotMemory,
    text: &str,
) -> Result<()> {
    let Some(session) = IntegrationSession::parse(&memory.integration) else {
        return Ok(());
    };
    match &session {
        IntegrationSession::Assistant { .. } => {
            assistant_turn(ports, scope, ticket, &session).await
        }
        IntegrationSession::Typebot {
            flow_id,
            version,
            node_id,
            session_id,
            last_at,
        } => {
            let origin = session.origin();
            let Some(settings) = typebot_settings(ports, scope, origin).await? else {
                return end(ports, scope, ticket, None, unusable(origin)).await;
            };
            let now = ports.clock.now();
            match typebot_turn(&settings, *last_at, now, text) {
                TypebotTurn::Finish => remember(ports, scope, ticket, None).await.map(|_| ()),
                TypebotTurn::Restart => {
                    if !settings.restart_message.is_empty() {
                        send_bot_text(ports, scope, ticket, &settings.restart_message).await?;
                    }
                    typebot_begin(ports, scope, ticket, origin, &settings).await
                }
                TypebotTurn::Expired => {
                    typebot_begin(ports, scope, ticket, origin, &settings).await
                }
                TypebotTurn::Unknown => {
                    if !settings.unknown_message.is_empty() {
                        send_bot_text(ports, scope, ticket, &settings.unknown_message).await?;
                    }
                    Ok(())
                }
                TypebotTurn::Continue => {
                    let request = TypebotContinue {
                        base_url: settings.base_url.clone(),
                        session_id: session_id.clone(),
                        message: text.trim().to_owned(),
                    };
                    match ports.typebot.continue_chat(&request).await {
                        Ok(reply) => {
                            let next = IntegrationSession::Typebot {
                                flow_id: *flow_id,
                                version: *version,
                                node_id: node_id.clone(),
                                session_id: if reply.session_id.is_empty() {
                                    session_id.clone()
                                } else {
                                    reply.session_id.clone()
                                },
                                last_at: now,
                            };
                            remember(ports, scope, ticket, Some(&next)).await?;
                            send_typebot(ports, scope, ticket, &reply).await
                        }
                        Err(e) => end(ports, scope, ticket, None, e).await,
                    }
                }
            }
        }
    }
}

/// Starts a Typebot chat with the node's `settings` and sends its greeting; remembers the
/// session.
async fn typebot_begin(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    origin: Origin<'_>,
    settings: &TypebotSettings,
) -> Result<()> {
    let (flow_id, version, node_id) = origin;
    let contact = ports.contacts.get(scope, ticket.contact.id).await?;
    let request = TypebotStart {
        base_url: settings.base_url.clone(),
        slug: settings.slug.clone(),
        variables: typebot_variables(ticket, contact.as_ref()),
    };
    match ports.typebot.start(&request).await {
        Ok(reply) => {
            let session = IntegrationSession::Typebot {
                flow_id,
                version,
                node_id: node_id.to_owned(),
                session_id: reply.session_id.clone(),
                last_at: ports.clock.now(),
            };
            remember(ports, scope, ticket, Some(&session)).await?;
            send_typebot(ports, scope, ticket, &reply).await
        }
        Err(e) => end(ports, scope, ticket, None, e).await,
    }
}

/// The variables a Typebot chat starts with: the contact's name, first name and number, and the
/// ticket's protocol (Typebot ignores the ones the bot does not declare).
fn typebot_variables(ticket: &Ticket, contact: Option<&Contact>) -> BTreeMap<String, String> {
    let name = contact.map_or(ticket.contact.name.as_str(), |c| c.name.as_str());
    let number = contact.map_or(ticket.contact.number.as_str(), |c| c.number.as_str());
    let mut vars = BTreeMap::new();
    vars.insert("name".to_owned(), name.to_owned());
    vars.insert(
        "firstName".to_owned(),
        name.split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned(),
    );
    vars.insert("number".to_owned(), number.to_owned());
    vars.insert("protocol".to_owned(), ticket.id.to_string());
    vars
}

/// Sends Typebot's messages in order: texts as they are, media as their link (the server does
/// not fetch files from another host on the bot's word).
async fn send_typebot(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    reply: &TypebotReply,
) -> Result<()> {
    let mut first_error = None;
    for output in &reply.messages {
        let text = match output {
            TypebotOutput::Text(text) => text,
            TypebotOutput::Image { url }
            | TypebotOutput::Audio { url }
            | TypebotOutput::Video { url } => url,
        };
        if let Err(e) = send_bot_text(ports, scope, ticket, text).await {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// One answer of the assistant to the conversation as it is.
async fn assistant_turn(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    session: &IntegrationSession,
) -> Result<()> {
    let origin = session.origin();
    let Some(node) = openai_settings(ports, scope, origin).await? else {
        return end(ports, scope, ticket, None, unusable(origin)).await;
    };
    let queue = node.queue_id.filter(|q| *q > 0).map(QueueId);
    let max_messages = node
        .max_messages
        .filter(|m| *m > 0)
        .unwrap_or(crate::integrations::DEFAULT_MAX_MESSAGES as i64)
        .min(MAX_CONTEXT_MESSAGES);
    let history = history(ports, scope, ticket, max_messages).await?;
    let mut settings = PromptSettings::new(node.prompt.clone(), node.api_key.clone());
    settings.max_tokens = node.max_tokens.unwrap_or(0);
    settings.temperature = node
        .temperature
        .unwrap_or(crate::integrations::DEFAULT_TEMPERATURE);
    settings.max_messages = max_messages;
    let request = assistant_request(&settings, &history, &ticket.contact.name);
    let reply = match ports.assistant.complete(&request).await {
        Ok(reply) => reply,
        Err(e) => return end(ports, scope, ticket, queue, e).await,
    };
    match assistant_action(&reply.content) {
        AssistantAction::Reply(text) => {
            if !text.is_empty() {
                send_bot_text(ports, scope, ticket, &text).await?;
            }
            Ok(())
        }
        AssistantAction::Handover { text_before } => {
            if !text_before.is_empty() {
                send_bot_text(ports, scope, ticket, &text_before).await?;
            }
            hand_to_person(ports, scope, ticket, queue).await
        }
    }
}

/// The conversation up to the contact's latest message, oldest first, as `(from_contact, text)`
/// ([`crate::integrations::assistant_request`] keeps the `max_messages` most recent): private
/// notes and deleted messages are not the contact's business, and our messages after the
/// contact's latest one (a flow's lines just before it handed over) are not what is answered.
async fn history(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    max_messages: i64,
) -> Result<Vec<(bool, String)>> {
    let page_size = u32::try_from(max_messages.saturating_mul(2)).unwrap_or(100);
    let page = ports
        .messages
        .list(scope, ticket.id, &PageStart::First, page_size.clamp(2, 100))
        .await?;
    let mut turns: Vec<(bool, String)> = page
        .items
        .into_iter()
        .filter(|m| !m.is_private && !m.is_deleted && !m.body.trim().is_empty())
        .map(|m| (!m.from_me, m.body))
        .collect();
    while turns.last().is_some_and(|(from_contact, _)| !from_contact) {
        turns.pop();
    }
    Ok(turns)
}

/// Where a session's settings are: a flow, its version and the node.
type Origin<'a> = (FlowId, i64, &'a str);

/// The flow version's node `origin` names.
async fn node_data(
    ports: &Ports,
    scope: TenantScope,
    origin: Origin<'_>,
) -> Result<Option<NodeData>> {
    let (flow_id, version, node_id) = origin;
    let graph: Option<Flow> = ports.flows.version_graph(scope, flow_id, version).await?;
    Ok(graph.and_then(|g| {
        g.nodes
            .into_iter()
            .find(|n| n.id == node_id)
            .map(|n| n.data)
    }))
}

async fn openai_settings(
    ports: &Ports,
    scope: TenantScope,
    origin: Origin<'_>,
) -> Result<Option<OpenAiSettings>> {
    Ok(match node_data(ports, scope, origin).await? {
        Some(NodeData::OpenAi(d)) => {
            let settings = d.effective().clone();
            (!settings.api_key.trim().is_empty()).then_some(settings)
        }
        _ => None,
    })
}

async fn typebot_settings(
    ports: &Ports,
    scope: TenantScope,
    origin: Origin<'_>,
) -> Result<Option<TypebotSettings>> {
    Ok(match node_data(ports, scope, origin).await? {
        Some(NodeData::Typebot(d)) => TypebotSettings::from_value(&d.typebot_integration),
        _ => None,
    })
}

/// The error for a node that is gone or cannot be used (no API key, no URL or slug).
fn unusable(origin: Origin<'_>) -> Error {
    let (flow_id, version, node_id) = origin;
    Error::with_detail(
        ErrorCode::ERR_INTEGRATION_UNAVAILABLE,
        format!(
            "flow {} version {version}: node {node_id} is gone or lacks its settings",
            flow_id.0
        ),
    )
}

/// Ends the session after a failure and hands the ticket to a person, then answers `error`.
async fn end(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    queue: Option<QueueId>,
    error: Error,
) -> Result<()> {
    hand_to_person(ports, scope, ticket, queue).await?;
    Err(error)
}

/// Ends the session; with a queue, the ticket enters it as a flow's ticket node would.
async fn hand_to_person(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    queue: Option<QueueId>,
) -> Result<()> {
    let memory = remember(ports, scope, ticket, None).await?;
    match queue {
        Some(queue_id) => flow_to_queue(ports, scope, ticket.id, queue_id, memory).await,
        None => Ok(()),
    }
}

/// Stores `session` on the ticket (`None` ends it: `useIntegration` and `isBot` off); answers
/// the memory as stored.
async fn remember(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    session: Option<&IntegrationSession>,
) -> Result<BotMemory> {
    let mut memory = ports
        .tickets
        .bot_memory(scope, ticket.id)
        .await?
        .unwrap_or_default();
    memory.integration = session.map(IntegrationSession::to_json).unwrap_or_default();
    memory.use_integration = session.is_some();
    memory.is_bot = false;
    ports
        .tickets
        .set_bot_memory(scope, ticket.id, &memory)
        .await?;
    Ok(memory)
}
