//! The flow graph as the web editor (React Flow) saves it, with each node's `data` parsed into a
//! typed [`NodeData`].
//!
//! Reading is tolerant: numbers written as strings (`"5"`) or strings written as numbers are
//! accepted, missing fields take their empty value, and fields we do not know are kept in an
//! `extra` map so a flow survives a load and save unchanged. Only a structurally broken document
//! (not JSON, `nodes` not a list, a node without an `id` or `type`) is refused.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::{Error, ErrorCode};

/// Fields of a JSON object we do not interpret, kept as they were.
pub type Extra = BTreeMap<String, Value>;

/// A flow: its nodes and the connections (edges) between them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "FlowGraph"))]
pub struct Flow {
    /// The nodes, in the order the editor saved them.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(test, ts(type = "Array<FlowNode>"))]
    pub nodes: Vec<Node>,
    /// The connections; for a node with one path the first one leaving it is followed.
    #[serde(default, deserialize_with = "null_as_default")]
    pub connections: Vec<Connection>,
}

impl Flow {
    /// Parses a flow from the editor's JSON (`{"nodes": [...], "connections": [...]}`).
    ///
    /// # Errors
    /// `ERR_BAD_REQUEST` with a detail naming what is wrong when the text is not such a document.
    pub fn from_json(text: &str) -> Result<Flow, Error> {
        if !text.trim_start().starts_with('{') {
            return Err(Error::with_detail(
                ErrorCode::ERR_BAD_REQUEST,
                "flow JSON: expected an object with nodes and connections",
            ));
        }
        serde_json::from_str(text)
            .map_err(|e| Error::with_detail(ErrorCode::ERR_BAD_REQUEST, format!("flow JSON: {e}")))
    }

    /// The node with this id (the first one when ids repeat).
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The connections leaving `node_id`, in saved order.
    pub fn outgoing<'a>(&'a self, node_id: &'a str) -> impl Iterator<Item = &'a Connection> + 'a {
        self.connections.iter().filter(move |c| c.source == node_id)
    }
}

/// A node's place on the canvas.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Position {
    /// Horizontal coordinate.
    #[serde(default, deserialize_with = "lenient_f64")]
    pub x: f64,
    /// Vertical coordinate.
    #[serde(default, deserialize_with = "lenient_f64")]
    pub y: f64,
}

/// One node: `{id, type, position: {x, y}, data, style?}` on the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's id (the spec's editor makes 30 random alphanumerics; the start node is `"1"`).
    pub id: String,
    /// Where it is drawn.
    pub position: Position,
    /// What it does: its `type` and its parsed `data`.
    pub data: NodeData,
    /// The editor's styling, kept as is.
    pub style: Option<Value>,
    /// Other top-level fields React Flow saves (width, height, selected, ...), kept as is.
    pub extra: Extra,
}

impl Node {
    /// The node's `type` as written on the wire.
    pub fn kind(&self) -> &str {
        self.data.kind()
    }
}

/// Reads a node's `data` (never null: [`NodeData::parse`] makes null an empty object) into its
/// variant.
pub type DataReader = fn(Value) -> Result<NodeData, serde_json::Error>;

/// `data` read as `T`, made a [`NodeData`] by `variant`.
fn typed<T: serde::de::DeserializeOwned>(
    data: Value,
    variant: fn(T) -> NodeData,
) -> Result<NodeData, serde_json::Error> {
    serde_json::from_value(data).map(variant)
}

/// A node's typed data, one variant per node `type`.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeData {
    /// `start`: where every run begins.
    Start(StartData),
    /// `message`: sends a text.
    Message(MessageData),
    /// `interval`: waits some seconds.
    Interval(IntervalData),
    /// `img`: sends an image.
    Img(MediaData),
    /// `audio`: sends an audio (or a voice note when `record`).
    Audio(MediaData),
    /// `video`: sends a video.
    Video(MediaData),
    /// `menu`: sends numbered options and waits for a choice.
    Menu(MenuData),
    /// `randomizer`: takes branch `a` with `percent`% probability, else `b`.
    Randomizer(RandomizerData),
    /// `question`: asks and stores the reply under an answer key.
    Question(QuestionData),
    /// `content`: several texts, media and pauses in sequence.
    Content(ContentData),
    /// `ticket`: moves the conversation to a queue and ends the flow.
    Ticket(TicketData),
    /// `typebot`: hands the conversation to a Typebot integration.
    Typebot(TypebotData),
    /// `openai`: hands the conversation to an OpenAI-compatible assistant.
    OpenAi(Box<OpenAiData>),
    /// `condition`: branches on a variable.
    Condition(ConditionData),
    /// `singleBlock`: free data; run like `content` when it holds `elements`.
    SingleBlock(Value),
    /// A `type` this version does not know; its data is kept.
    Unknown {
        /// The `type` as written.
        kind: String,
        /// The data as written.
        data: Value,
    },
}

impl NodeData {
    /// The `type` string of this node on the wire.
    pub fn kind(&self) -> &str {
        match self {
            NodeData::Start(_) => "start",
            NodeData::Message(_) => "message",
            NodeData::Interval(_) => "interval",
            NodeData::Img(_) => "img",
            NodeData::Audio(_) => "audio",
            NodeData::Video(_) => "video",
            NodeData::Menu(_) => "menu",
            NodeData::Randomizer(_) => "randomizer",
            NodeData::Question(_) => "question",
            NodeData::Content(_) => "content",
            NodeData::Ticket(_) => "ticket",
            NodeData::Typebot(_) => "typebot",
            NodeData::OpenAi(_) => "openai",
            NodeData::Condition(_) => "condition",
            NodeData::SingleBlock(_) => "singleBlock",
            NodeData::Unknown { kind, .. } => kind,
        }
    }

    /// Every node `type` the editor writes, each with the reader of its data: the one list
    /// [`NodeData::parse`] reads by, and the one the web app's node union is written from
    /// ([`NodeData::typescript_union`]), so a kind the core reads is a kind the web app knows.
    /// `Unknown` has none (it is whatever is not listed); `image` is read as `img`.
    pub const KINDS: [(&'static str, DataReader); 15] = [
        ("start", |data| typed(data, NodeData::Start)),
        ("message", |data| typed(data, NodeData::Message)),
        ("interval", |data| typed(data, NodeData::Interval)),
        ("img", |data| typed(data, NodeData::Img)),
        ("audio", |data| typed(data, NodeData::Audio)),
        ("video", |data| typed(data, NodeData::Video)),
        ("menu", |data| typed(data, NodeData::Menu)),
        ("randomizer", |data| typed(data, NodeData::Randomizer)),
        ("question", |data| typed(data, NodeData::Question)),
        ("content", |data| typed(data, NodeData::Content)),
        ("ticket", |data| typed(data, NodeData::Ticket)),
        ("typebot", |data| typed(data, NodeData::Typebot)),
        ("openai", |data| {
            typed(data, |d| NodeData::OpenAi(Box::new(d)))
        }),
        ("condition", |data| typed(data, NodeData::Condition)),
        ("singleBlock", |data| Ok(NodeData::SingleBlock(data))),
    ];

    /// Parses `data` for a node of type `kind`.
    ///
    /// # Errors
    /// serde's message when the data has the wrong shape for its type (for example `arrayOption`
    /// not being a list).
    pub fn parse(kind: &str, data: Value) -> Result<NodeData, serde_json::Error> {
        let data = if data.is_null() {
            Value::Object(Map::new())
        } else {
            data
        };
        let listed = if kind == "image" { "img" } else { kind };
        match NodeData::KINDS.iter().find(|(name, _)| *name == listed) {
            Some((_, read)) => read(data),
            None => Ok(NodeData::Unknown {
                kind: kind.to_owned(),
                data,
            }),
        }
    }

    /// The TypeScript type of this variant's data, by the name `ts-rs` declares it under
    /// (`None` for `Unknown`). Exhaustive: a new variant does not compile until it names one.
    #[cfg(test)]
    fn typescript_data(&self, cfg: &ts_rs::Config) -> Option<String> {
        use ts_rs::TS;
        Some(match self {
            NodeData::Start(_) => StartData::name(cfg),
            NodeData::Message(_) => MessageData::name(cfg),
            NodeData::Interval(_) => IntervalData::name(cfg),
            NodeData::Img(_) | NodeData::Audio(_) | NodeData::Video(_) => MediaData::name(cfg),
            NodeData::Menu(_) => MenuData::name(cfg),
            NodeData::Randomizer(_) => RandomizerData::name(cfg),
            NodeData::Question(_) => QuestionData::name(cfg),
            NodeData::Content(_) => ContentData::name(cfg),
            NodeData::Ticket(_) => TicketData::name(cfg),
            NodeData::Typebot(_) => TypebotData::name(cfg),
            NodeData::OpenAi(_) => OpenAiData::name(cfg),
            NodeData::Condition(_) => ConditionData::name(cfg),
            NodeData::SingleBlock(_) => Value::name(cfg),
            NodeData::Unknown { .. } => return None,
        })
    }

    /// The wire node's `type` and `data` as a TypeScript discriminated union, one member per
    /// entry of [`NodeData::KINDS`]: `{ type: "start", data: StartData } | ...`.
    #[cfg(test)]
    pub fn typescript_union(cfg: &ts_rs::Config) -> String {
        NodeData::KINDS
            .iter()
            .map(|(kind, read)| {
                let data = read(Value::Object(Map::new()))
                    .ok()
                    .and_then(|empty| empty.typescript_data(cfg))
                    .unwrap_or_else(|| "JsonValue".to_owned());
                format!("{{ type: \"{kind}\", data: {data} }}")
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }

    /// The data as JSON, in the shape it was read from.
    pub fn to_value(&self) -> Value {
        let value = match self {
            NodeData::Start(d) => serde_json::to_value(d),
            NodeData::Message(d) => serde_json::to_value(d),
            NodeData::Interval(d) => serde_json::to_value(d),
            NodeData::Img(d) | NodeData::Audio(d) | NodeData::Video(d) => serde_json::to_value(d),
            NodeData::Menu(d) => serde_json::to_value(d),
            NodeData::Randomizer(d) => serde_json::to_value(d),
            NodeData::Question(d) => serde_json::to_value(d),
            NodeData::Content(d) => serde_json::to_value(d),
            NodeData::Ticket(d) => serde_json::to_value(d),
            NodeData::Typebot(d) => serde_json::to_value(d),
            NodeData::OpenAi(d) => serde_json::to_value(d),
            NodeData::Condition(d) => serde_json::to_value(d),
            NodeData::SingleBlock(v) | NodeData::Unknown { data: v, .. } => Ok(v.clone()),
        };
        // Our data types are string-keyed maps and plain values: serialising cannot fail.
        value.unwrap_or(Value::Null)
    }
}

/// `start` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct StartData {
    /// The caption, 'Inicio do fluxo'.
    #[serde(default, deserialize_with = "lenient_string")]
    pub label: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `message` data: the text is in `label`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MessageData {
    /// The text to send; placeholders such as `{nome}` are substituted.
    #[serde(default, deserialize_with = "lenient_string")]
    pub label: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `interval` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IntervalData {
    /// Seconds to wait, 1 to 120 in a valid flow.
    #[serde(default, deserialize_with = "lenient_i64")]
    pub sec: Option<i64>,
    /// The caption, 'Intervalo N seg.'.
    #[serde(default, deserialize_with = "lenient_string")]
    pub label: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `img`, `audio` and `video` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MediaData {
    /// The stored file's name or address.
    #[serde(default, deserialize_with = "lenient_string")]
    pub url: String,
    /// For audio: send as a recorded voice note.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub record: bool,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// One option of a menu.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MenuOption {
    /// The option's number; it leaves through the source handle `a{number}`.
    #[serde(default, deserialize_with = "lenient_i64")]
    pub number: Option<i64>,
    /// The option's text.
    #[serde(default, deserialize_with = "lenient_string")]
    pub value: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `menu` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MenuData {
    /// The text sent above the options.
    #[serde(default, deserialize_with = "lenient_string")]
    pub message: String,
    /// The options, in the order they are shown.
    #[serde(default, deserialize_with = "null_as_default")]
    pub array_option: Vec<MenuOption>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `randomizer` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RandomizerData {
    /// The chance, 0 to 100, of leaving through `a`.
    #[serde(default, deserialize_with = "lenient_i64")]
    pub percent: Option<i64>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// The question itself, which the editor nests under `typebotIntegration`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuestionBody {
    /// The question's text.
    #[serde(default, deserialize_with = "lenient_string")]
    pub message: String,
    /// The variable the reply is stored in.
    #[serde(default, deserialize_with = "lenient_string")]
    pub answer_key: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `question` data: `{typebotIntegration: {message, answerKey}}` (a flat `{message, answerKey}`
/// is read too).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct QuestionData {
    /// The nested question, as the editor saves it.
    #[serde(default, deserialize_with = "null_as_default")]
    pub typebot_integration: Option<QuestionBody>,
    /// A flat question's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Value>,
    /// A flat question's answer key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_key: Option<Value>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

impl QuestionData {
    /// The question's text, nested or flat.
    pub fn message(&self) -> String {
        match &self.typebot_integration {
            Some(body) if !body.message.trim().is_empty() => body.message.clone(),
            _ => self.message.as_ref().map(value_text).unwrap_or_default(),
        }
    }

    /// The answer key, nested or flat, trimmed and without surrounding braces.
    pub fn answer_key(&self) -> String {
        let raw = match &self.typebot_integration {
            Some(body) if !body.answer_key.trim().is_empty() => body.answer_key.clone(),
            _ => self.answer_key.as_ref().map(value_text).unwrap_or_default(),
        };
        crate::flow::vars::bare_key(&raw).to_owned()
    }
}

/// The kind of one element of a `content` node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementKind {
    /// A text.
    Message,
    /// A pause, `value` seconds.
    Interval,
    /// An image.
    Img,
    /// An audio.
    Audio,
    /// A video.
    Video,
}

/// One element of a `content` node.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ContentElement {
    /// `message`, `interval`, `img`, `audio` or `video`.
    #[serde(rename = "type", default, deserialize_with = "lenient_string")]
    pub kind: String,
    /// The text, the seconds, or the stored file's name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub value: String,
    /// A media file's original name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub original: String,
    /// The element's identifier, which `seq` lists (for example `"message0"`).
    #[serde(default, deserialize_with = "lenient_string")]
    pub number: String,
    /// For audio: send as a recorded voice note.
    #[serde(default, deserialize_with = "lenient_bool")]
    pub record: bool,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

impl ContentElement {
    /// The element's kind, or `None` for a type we do not know.
    pub fn element_kind(&self) -> Option<ElementKind> {
        Some(match self.kind.as_str() {
            "message" | "text" => ElementKind::Message,
            "interval" => ElementKind::Interval,
            "img" | "image" => ElementKind::Img,
            "audio" => ElementKind::Audio,
            "video" => ElementKind::Video,
            _ => return None,
        })
    }
}

/// `content` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ContentData {
    /// The elements' `number`s in the order they are sent.
    #[serde(default, deserialize_with = "lenient_string_list")]
    pub seq: Vec<String>,
    /// The elements.
    #[serde(default, deserialize_with = "null_as_default")]
    pub elements: Vec<ContentElement>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

impl ContentData {
    /// The elements in sending order: those `seq` names, in its order (each once), then any it
    /// does not name, in saved order.
    pub fn ordered(&self) -> Vec<&ContentElement> {
        let mut taken = vec![false; self.elements.len()];
        let mut out = Vec::with_capacity(self.elements.len());
        for name in &self.seq {
            if let Some(i) =
                (0..self.elements.len()).find(|&i| !taken[i] && self.elements[i].number == *name)
            {
                taken[i] = true;
                out.push(&self.elements[i]);
            }
        }
        for (i, element) in self.elements.iter().enumerate() {
            if !taken[i] {
                out.push(element);
            }
        }
        out
    }
}

/// `ticket` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TicketData {
    /// The queue: its id (number or numeric text) or an object with an `id` (and `name`).
    #[serde(default)]
    pub queue: Value,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

impl TicketData {
    /// The queue's id, when one is set and positive.
    pub fn queue_id(&self) -> Option<i64> {
        let id = match &self.queue {
            Value::Object(map) => map.get("id").and_then(value_i64),
            other => value_i64(other),
        };
        id.filter(|id| *id > 0)
    }

    /// The queue's name, when the editor saved it.
    pub fn queue_name(&self) -> Option<String> {
        match &self.queue {
            Value::Object(map) => map.get("name").map(value_text).filter(|s| !s.is_empty()),
            _ => None,
        }
    }
}

/// `typebot` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TypebotData {
    /// The integration (a queue integration of type typebot, or its settings).
    #[serde(default)]
    pub typebot_integration: Value,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// The settings of an `openai` node (the editor may nest them under `typebotIntegration`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OpenAiSettings {
    /// A name for the assistant.
    #[serde(default, deserialize_with = "lenient_string")]
    pub name: String,
    /// The system prompt.
    #[serde(default, deserialize_with = "lenient_string")]
    pub prompt: String,
    /// `texto` or a voice name.
    #[serde(default, deserialize_with = "lenient_string")]
    pub voice: String,
    /// The speech service key.
    #[serde(default, deserialize_with = "lenient_string")]
    pub voice_key: String,
    /// The speech service region.
    #[serde(default, deserialize_with = "lenient_string")]
    pub voice_region: String,
    /// Maximum tokens per answer (default 100).
    #[serde(default, deserialize_with = "lenient_i64")]
    pub max_tokens: Option<i64>,
    /// Sampling temperature (default 1).
    #[serde(default, deserialize_with = "lenient_f64_opt")]
    pub temperature: Option<f64>,
    /// The provider's API key (never copied into effects).
    #[serde(default, deserialize_with = "lenient_string")]
    pub api_key: String,
    /// The queue to move to when the assistant hands over.
    #[serde(default, deserialize_with = "lenient_i64")]
    pub queue_id: Option<i64>,
    /// How many earlier messages are sent as context (default 10).
    #[serde(default, deserialize_with = "lenient_i64")]
    pub max_messages: Option<i64>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// `openai` data: the settings flat, or nested under `typebotIntegration`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct OpenAiData {
    /// Nested settings, when the editor saved them so.
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Option::is_none"
    )]
    pub typebot_integration: Option<OpenAiSettings>,
    /// Flat settings.
    #[serde(flatten)]
    pub settings: OpenAiSettings,
}

impl OpenAiData {
    /// The settings that apply: the nested ones when present, else the flat ones.
    pub fn effective(&self) -> &OpenAiSettings {
        self.typebot_integration.as_ref().unwrap_or(&self.settings)
    }
}

/// `condition` data.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ConditionData {
    /// The variable compared (written `nome` or `{nome}`).
    #[serde(default, deserialize_with = "lenient_string")]
    pub key: String,
    /// The operator (see [`crate::flow::Operator`]).
    #[serde(default, deserialize_with = "lenient_string")]
    pub condition: String,
    /// The value compared with; placeholders are substituted.
    #[serde(default, deserialize_with = "lenient_string")]
    pub value: String,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// A connection (edge): `{id?, source, target, sourceHandle?, targetHandle?}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// The editor's id for the edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The node it leaves.
    #[serde(deserialize_with = "lenient_string")]
    pub source: String,
    /// The node it enters.
    #[serde(deserialize_with = "lenient_string")]
    pub target: String,
    /// Which exit of the source: `a{n}` for menu option n, `a`/`b` for randomizer and condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_handle: Option<String>,
    /// Which entry of the target (unused by the interpreter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_handle: Option<String>,
    /// Other fields, kept.
    #[serde(flatten)]
    #[cfg_attr(test, ts(skip))]
    pub extra: Extra,
}

/// A node exactly as on the wire, before its data is typed.
#[derive(Serialize, Deserialize)]
struct RawNode {
    #[serde(deserialize_with = "lenient_string")]
    id: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, deserialize_with = "null_as_default")]
    position: Position,
    #[serde(default)]
    data: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    style: Option<Value>,
    #[serde(flatten)]
    extra: Extra,
}

impl Serialize for Node {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RawNode {
            id: self.id.clone(),
            kind: self.kind().to_owned(),
            position: self.position,
            data: self.data.to_value(),
            style: self.style.clone(),
            extra: self.extra.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawNode::deserialize(deserializer)?;
        let data = NodeData::parse(&raw.kind, raw.data).map_err(|e| {
            serde::de::Error::custom(format!(
                "node {:?} ({}): invalid data: {e}",
                raw.id, raw.kind
            ))
        })?;
        Ok(Node {
            id: raw.id,
            position: raw.position,
            data,
            style: raw.style,
            extra: raw.extra,
        })
    }
}

// ---- tolerant readers -------------------------------------------------------------------------

/// The text of a JSON scalar: strings as they are, numbers and booleans printed, null and
/// containers empty.
pub(crate) fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// A whole number from a JSON number (integral) or a numeric string.
pub(crate) fn value_i64(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        Value::String(s) => {
            let s = s.trim();
            s.parse::<i64>().ok().or_else(|| {
                s.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            })
        }
        _ => None,
    }
}

fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

fn lenient_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(value_text(&Value::deserialize(deserializer)?))
}

fn lenient_string_list<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items.iter().map(value_text).collect(),
        _ => Vec::new(),
    })
}

fn lenient_i64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    Ok(value_i64(&Value::deserialize(deserializer)?))
}

fn lenient_f64_opt<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    })
}

fn lenient_f64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    Ok(lenient_f64_opt(deserializer)?.unwrap_or(0.0))
}

fn lenient_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Bool(b) => b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => matches!(s.trim(), "true" | "1"),
        _ => false,
    })
}
