//! Flow validation: the editor's rules (spec 3 §5 "Flow node content rules"), the graph's shape,
//! and size limits.
//!
//! [`check`] lists every issue, errors and warnings; [`validate`] fails when at least one is an
//! error. Unreachable nodes and several connections leaving a one-path node are warnings: a
//! designer often keeps half-built nodes on the canvas, and they never run.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use super::interpret::Operator;
use super::model::{ElementKind, Flow, NodeData};

/// Most nodes a flow may have.
pub const MAX_NODES: usize = 500;
/// Most connections a flow may have.
pub const MAX_CONNECTIONS: usize = 2000;
/// Longest text (message, menu text or option, question, condition value), in characters.
pub const MAX_TEXT_CHARS: usize = 4096;
/// Longest pause of an interval node or content element, in seconds.
pub const MAX_INTERVAL_SECONDS: i64 = 120;

/// The limits a flow is held to, in one value for the flow editor (which runs them through
/// WASM instead of writing them again): [`validate`]'s bounds and the largest file of each media
/// node ([`crate::limits::UploadKind`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct FlowLimits {
    pub max_nodes: usize,
    pub max_connections: usize,
    pub max_text_chars: usize,
    pub max_interval_seconds: i64,
    pub max_image_bytes: u64,
    pub max_audio_bytes: u64,
    pub max_video_bytes: u64,
    /// The condition operators, as the editor writes them.
    pub condition_operators: Vec<String>,
    /// The file types an image node takes (spec 3 §5), for the editor's file picker; the
    /// server's upload check reads the same table ([`media_extensions`]).
    pub image_extensions: Vec<String>,
    /// The file types an audio node takes.
    pub audio_extensions: Vec<String>,
    /// The file types an audio element of a content node takes (opus too).
    pub content_audio_extensions: Vec<String>,
    /// The file types a video node takes.
    pub video_extensions: Vec<String>,
}

/// The kinds of media a flow node sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowMedia {
    /// `img`: png, jpg, jpeg.
    Image,
    /// `audio`: ogg, mp3.
    Audio,
    /// An audio element of a `content` node: ogg, mp3, opus.
    ContentAudio,
    /// `video`: mp4.
    Video,
}

/// The file extensions a kind of flow media takes (spec 3 §5: "Audio: ogg or mp3 (content also
/// allows opus)").
pub fn media_extensions(kind: FlowMedia) -> &'static [&'static str] {
    match kind {
        FlowMedia::Image => &["png", "jpg", "jpeg"],
        FlowMedia::Audio => &["ogg", "mp3"],
        FlowMedia::ContentAudio => &["ogg", "mp3", "opus"],
        FlowMedia::Video => &["mp4"],
    }
}

/// The operators a condition node offers, in the editor's order and spelling.
pub const CONDITION_OPERATORS: [&str; 12] = [
    "==",
    "!=",
    "contains",
    "not_contains",
    "starts_with",
    "ends_with",
    ">",
    "<",
    ">=",
    "<=",
    "empty",
    "not_empty",
];

/// The limits of every flow.
pub fn flow_limits() -> FlowLimits {
    use crate::limits::UploadKind;
    FlowLimits {
        max_nodes: MAX_NODES,
        max_connections: MAX_CONNECTIONS,
        max_text_chars: MAX_TEXT_CHARS,
        max_interval_seconds: MAX_INTERVAL_SECONDS,
        max_image_bytes: UploadKind::FlowImage.max_bytes(),
        max_audio_bytes: UploadKind::FlowAudio.max_bytes(),
        max_video_bytes: UploadKind::FlowVideo.max_bytes(),
        condition_operators: CONDITION_OPERATORS
            .iter()
            .map(|o| (*o).to_owned())
            .collect(),
        image_extensions: owned(media_extensions(FlowMedia::Image)),
        audio_extensions: owned(media_extensions(FlowMedia::Audio)),
        content_audio_extensions: owned(media_extensions(FlowMedia::ContentAudio)),
        video_extensions: owned(media_extensions(FlowMedia::Video)),
    }
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// How serious an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The flow cannot be saved or published.
    Error,
    /// Worth fixing; the flow still runs.
    Warning,
}

/// What is wrong, as a stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowIssueCode {
    /// No start node.
    MissingStart,
    /// More than one start node.
    MultipleStarts,
    /// Two nodes share an id.
    DuplicateNodeId,
    /// A node has an empty id.
    EmptyNodeId,
    /// A connection names a node that does not exist.
    DanglingConnection,
    /// A node cannot be reached from the start (warning).
    UnreachableNode,
    /// A one-path node has several connections leaving it; the first is followed (warning).
    MultipleOutgoing,
    /// An interval of 0 seconds or less, or none.
    IntervalMissing,
    /// An interval above 120 seconds.
    IntervalTooLong,
    /// A content element's interval is 0, not a number, or above 120.
    ContentIntervalInvalid,
    /// An empty text (message node, content text element).
    EmptyMessage,
    /// A media node or content element without a file.
    EmptyMedia,
    /// A content node without elements.
    EmptyContent,
    /// A content element of an unknown type.
    UnknownElement,
    /// A ticket node without a queue.
    TicketQueueMissing,
    /// A question without its message.
    QuestionMessageMissing,
    /// A question without its answer key.
    QuestionAnswerKeyMissing,
    /// A menu without its message.
    MenuMessageMissing,
    /// A menu without options.
    MenuWithoutOptions,
    /// A menu option without a positive number or without text.
    MenuOptionInvalid,
    /// Two options of a menu share a number.
    MenuDuplicateOption,
    /// A randomizer percent outside 0..=100 (or none).
    RandomizerPercentInvalid,
    /// A condition without its key, operator or value.
    ConditionIncomplete,
    /// A condition with an operator we do not know.
    ConditionUnknownOperator,
    /// A typebot node without its integration.
    TypebotIntegrationMissing,
    /// An openai node without a prompt.
    OpenAiPromptMissing,
    /// A node of a type we do not know.
    UnknownNodeType,
    /// More than [`MAX_NODES`] nodes.
    TooManyNodes,
    /// More than [`MAX_CONNECTIONS`] connections.
    TooManyConnections,
    /// A text longer than [`MAX_TEXT_CHARS`].
    TextTooLong,
}

impl FlowIssueCode {
    /// Whether this code is an error or a warning.
    pub fn severity(self) -> Severity {
        match self {
            FlowIssueCode::UnreachableNode | FlowIssueCode::MultipleOutgoing => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// The message shown to the designer, in Portuguese (the spec's wording where it has one).
    pub fn message_pt(self) -> &'static str {
        use FlowIssueCode::*;
        match self {
            MissingStart => "Adicione um nó de início ao fluxo",
            MultipleStarts => "O fluxo só pode ter um nó de início",
            DuplicateNodeId => "Dois nós têm o mesmo identificador",
            EmptyNodeId => "Um nó está sem identificador",
            DanglingConnection => "Conexão ligada a um nó que não existe",
            UnreachableNode => "Este nó não é alcançado a partir do início",
            MultipleOutgoing => "Este nó tem mais de uma saída; só a primeira será seguida",
            IntervalMissing => "Adicione o valor de intervalo",
            IntervalTooLong => "Máximo de tempo atingido 120 segundos",
            ContentIntervalInvalid => "Intervalo não pode ser 0 ou maior que 120!",
            EmptyMessage => "Campos de mensagem vazio!",
            EmptyMedia => "Delete os cards vazios(Imagem, Audio e Video)",
            EmptyContent => "Adicione ao menos um conteúdo",
            UnknownElement => "Conteúdo de tipo desconhecido",
            TicketQueueMissing => "Adicione uma fila",
            QuestionMessageMissing => "Adicione a mensagem da pergunta",
            QuestionAnswerKeyMissing => "Adicione a chave para salvar a resposta",
            MenuMessageMissing => "Adicione a mensagem do menu",
            MenuWithoutOptions => "Adicione ao menos uma opção ao menu",
            MenuOptionInvalid => "Toda opção do menu precisa de número e texto",
            MenuDuplicateOption => "Duas opções do menu têm o mesmo número",
            RandomizerPercentInvalid => "A porcentagem deve estar entre 0 e 100",
            ConditionIncomplete => "Preencha a variável, a condição e o valor",
            ConditionUnknownOperator => "Condição desconhecida",
            TypebotIntegrationMissing => "Selecione uma integração Typebot",
            OpenAiPromptMissing => "Adicione o prompt",
            UnknownNodeType => "Tipo de nó desconhecido",
            TooManyNodes => "O fluxo tem nós demais (máximo 500)",
            TooManyConnections => "O fluxo tem conexões demais (máximo 2000)",
            TextTooLong => "Texto longo demais (máximo 4096 caracteres)",
        }
    }
}

/// One problem found in a flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowIssue {
    /// The node it concerns (for a connection, the connection's source), if any.
    pub node_id: Option<String>,
    /// What is wrong.
    pub code: FlowIssueCode,
    /// Error or warning.
    pub severity: Severity,
    /// The message for the designer, in Portuguese.
    pub message_pt: String,
}

impl FlowIssue {
    /// An issue of `code` about `node_id`, with the code's severity and message.
    pub fn new(node_id: Option<&str>, code: FlowIssueCode) -> Self {
        Self {
            node_id: node_id.map(str::to_owned),
            code,
            severity: code.severity(),
            message_pt: code.message_pt().to_owned(),
        }
    }

    /// Whether this issue blocks saving.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Checks a flow: `Ok` when it has no error-level issue, else every issue (warnings included, in
/// the order [`check`] finds them).
///
/// # Errors
/// The issues, when at least one is an error.
pub fn validate(flow: &Flow) -> Result<(), Vec<FlowIssue>> {
    let issues = check(flow);
    if issues.iter().any(FlowIssue::is_error) {
        Err(issues)
    } else {
        Ok(())
    }
}

/// Every issue of a flow, errors and warnings: size first, then the graph, then each node in
/// saved order.
pub fn check(flow: &Flow) -> Vec<FlowIssue> {
    let mut issues = Vec::new();
    if flow.nodes.len() > MAX_NODES {
        issues.push(FlowIssue::new(None, FlowIssueCode::TooManyNodes));
    }
    if flow.connections.len() > MAX_CONNECTIONS {
        issues.push(FlowIssue::new(None, FlowIssueCode::TooManyConnections));
    }
    check_graph(flow, &mut issues);
    for node in &flow.nodes {
        check_node(&node.id, &node.data, &mut issues);
    }
    issues
}

fn check_graph(flow: &Flow, issues: &mut Vec<FlowIssue>) {
    let mut seen = BTreeSet::new();
    for node in &flow.nodes {
        if node.id.trim().is_empty() {
            issues.push(FlowIssue::new(Some(&node.id), FlowIssueCode::EmptyNodeId));
        } else if !seen.insert(node.id.as_str()) {
            issues.push(FlowIssue::new(
                Some(&node.id),
                FlowIssueCode::DuplicateNodeId,
            ));
        }
    }
    let starts: Vec<&str> = flow
        .nodes
        .iter()
        .filter(|n| matches!(n.data, NodeData::Start(_)))
        .map(|n| n.id.as_str())
        .collect();
    match starts.len() {
        0 => issues.push(FlowIssue::new(None, FlowIssueCode::MissingStart)),
        1 => {}
        _ => {
            for id in &starts[1..] {
                issues.push(FlowIssue::new(Some(id), FlowIssueCode::MultipleStarts));
            }
        }
    }
    let mut adjacency: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut dangling_reported = BTreeSet::new();
    for connection in &flow.connections {
        let source_ok = seen.contains(connection.source.as_str());
        let target_ok = seen.contains(connection.target.as_str());
        if !(source_ok && target_ok) {
            let about = if source_ok {
                connection.source.as_str()
            } else {
                connection.target.as_str()
            };
            if dangling_reported.insert((connection.source.as_str(), connection.target.as_str())) {
                issues.push(FlowIssue::new(
                    Some(about),
                    FlowIssueCode::DanglingConnection,
                ));
            }
            continue;
        }
        adjacency
            .entry(connection.source.as_str())
            .or_default()
            .push(connection.target.as_str());
    }
    for node in &flow.nodes {
        let one_path = !matches!(
            node.data,
            NodeData::Menu(_) | NodeData::Randomizer(_) | NodeData::Condition(_)
        );
        if one_path && adjacency.get(node.id.as_str()).is_some_and(|t| t.len() > 1) {
            issues.push(FlowIssue::new(
                Some(&node.id),
                FlowIssueCode::MultipleOutgoing,
            ));
        }
    }
    if let Some(start) = starts.first() {
        let mut reached = BTreeSet::from([*start]);
        let mut queue = VecDeque::from([*start]);
        while let Some(id) = queue.pop_front() {
            for target in adjacency.get(id).into_iter().flatten() {
                if reached.insert(target) {
                    queue.push_back(target);
                }
            }
        }
        let mut reported = BTreeSet::new();
        for node in &flow.nodes {
            let id = node.id.as_str();
            if !reached.contains(id)
                && !matches!(node.data, NodeData::Start(_))
                && reported.insert(id)
            {
                issues.push(FlowIssue::new(Some(id), FlowIssueCode::UnreachableNode));
            }
        }
    }
}

fn too_long(text: &str) -> bool {
    text.chars().count() > MAX_TEXT_CHARS
}

fn text_rule(id: &str, text: &str, issues: &mut Vec<FlowIssue>) {
    if text.trim().is_empty() {
        issues.push(FlowIssue::new(Some(id), FlowIssueCode::EmptyMessage));
    } else if too_long(text) {
        issues.push(FlowIssue::new(Some(id), FlowIssueCode::TextTooLong));
    }
}

fn check_elements(
    id: &str,
    elements: &[super::model::ContentElement],
    issues: &mut Vec<FlowIssue>,
) {
    if elements.is_empty() {
        issues.push(FlowIssue::new(Some(id), FlowIssueCode::EmptyContent));
    }
    let mut empty_media = false;
    let mut empty_text = false;
    let mut bad_interval = false;
    for element in elements {
        match element.element_kind() {
            Some(ElementKind::Message) => {
                if element.value.trim().is_empty() {
                    empty_text = true;
                } else if too_long(&element.value) {
                    issues.push(FlowIssue::new(Some(id), FlowIssueCode::TextTooLong));
                }
            }
            Some(ElementKind::Interval) => {
                let seconds =
                    super::model::value_i64(&serde_json::Value::String(element.value.clone()));
                if !seconds.is_some_and(|s| (1..=MAX_INTERVAL_SECONDS).contains(&s)) {
                    bad_interval = true;
                }
            }
            Some(ElementKind::Img | ElementKind::Audio | ElementKind::Video) => {
                if element.value.trim().is_empty() {
                    empty_media = true;
                }
            }
            None => issues.push(FlowIssue::new(Some(id), FlowIssueCode::UnknownElement)),
        }
    }
    if empty_text {
        issues.push(FlowIssue::new(Some(id), FlowIssueCode::EmptyMessage));
    }
    if bad_interval {
        issues.push(FlowIssue::new(
            Some(id),
            FlowIssueCode::ContentIntervalInvalid,
        ));
    }
    if empty_media {
        issues.push(FlowIssue::new(Some(id), FlowIssueCode::EmptyMedia));
    }
}

fn check_node(id: &str, data: &NodeData, issues: &mut Vec<FlowIssue>) {
    let mut push = |code| issues.push(FlowIssue::new(Some(id), code));
    match data {
        NodeData::Start(_) => {}
        NodeData::Message(d) => text_rule(id, &d.label, issues),
        NodeData::Interval(d) => match d.sec {
            Some(s) if s > MAX_INTERVAL_SECONDS => push(FlowIssueCode::IntervalTooLong),
            Some(s) if s >= 1 => {}
            _ => push(FlowIssueCode::IntervalMissing),
        },
        NodeData::Img(d) | NodeData::Audio(d) | NodeData::Video(d) => {
            if d.url.trim().is_empty() {
                push(FlowIssueCode::EmptyMedia);
            }
        }
        NodeData::Menu(d) => {
            if d.message.trim().is_empty() {
                push(FlowIssueCode::MenuMessageMissing);
            } else if too_long(&d.message) {
                push(FlowIssueCode::TextTooLong);
            }
            if d.array_option.is_empty() {
                push(FlowIssueCode::MenuWithoutOptions);
            }
            let mut numbers = BTreeSet::new();
            let mut invalid = false;
            let mut duplicate = false;
            let mut long = false;
            for option in &d.array_option {
                match option.number {
                    Some(n) if n > 0 => duplicate |= !numbers.insert(n),
                    _ => invalid = true,
                }
                invalid |= option.value.trim().is_empty();
                long |= too_long(&option.value);
            }
            if invalid {
                push(FlowIssueCode::MenuOptionInvalid);
            }
            if duplicate {
                push(FlowIssueCode::MenuDuplicateOption);
            }
            if long {
                push(FlowIssueCode::TextTooLong);
            }
        }
        NodeData::Randomizer(d) => {
            if !d.percent.is_some_and(|p| (0..=100).contains(&p)) {
                push(FlowIssueCode::RandomizerPercentInvalid);
            }
        }
        NodeData::Question(d) => {
            let message = d.message();
            if message.trim().is_empty() {
                push(FlowIssueCode::QuestionMessageMissing);
            } else if too_long(&message) {
                push(FlowIssueCode::TextTooLong);
            }
            if d.answer_key().is_empty() {
                push(FlowIssueCode::QuestionAnswerKeyMissing);
            }
        }
        NodeData::Content(d) => check_elements(id, &d.elements, issues),
        NodeData::SingleBlock(value) => {
            if let Some(d) = super::interpret::single_block_content(value) {
                check_elements(id, &d.elements, issues);
            }
        }
        NodeData::Ticket(d) => {
            if d.queue_id().is_none() {
                push(FlowIssueCode::TicketQueueMissing);
            }
        }
        NodeData::Typebot(d) => {
            let missing = match &d.typebot_integration {
                serde_json::Value::Null => true,
                serde_json::Value::Object(map) => map.is_empty(),
                serde_json::Value::String(s) => s.trim().is_empty(),
                _ => false,
            };
            if missing {
                push(FlowIssueCode::TypebotIntegrationMissing);
            }
        }
        NodeData::OpenAi(d) => {
            if d.effective().prompt.trim().is_empty() {
                push(FlowIssueCode::OpenAiPromptMissing);
            }
        }
        NodeData::Condition(d) => {
            if super::vars::bare_key(&d.key).is_empty()
                || d.condition.trim().is_empty()
                || (d.value.trim().is_empty()
                    && !Operator::parse(&d.condition).is_some_and(Operator::is_unary))
            {
                push(FlowIssueCode::ConditionIncomplete);
            } else if Operator::parse(&d.condition).is_none() {
                push(FlowIssueCode::ConditionUnknownOperator);
            } else if too_long(&d.value) {
                push(FlowIssueCode::TextTooLong);
            }
        }
        NodeData::Unknown { .. } => push(FlowIssueCode::UnknownNodeType),
    }
}
