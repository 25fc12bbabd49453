//! The deterministic flow interpreter: [`step`] takes a flow, the run's state and one input, and
//! returns the new state and the effects the host carries out.
//!
//! A step runs from node to node until the flow waits (for a reply or a timer) or ends. It never
//! panics, whatever the flow: a missing node, an unknown type or a cycle without waits ends the
//! run with a reason. Randomness comes only from the seed given at [`Input::Start`] (ChaCha8,
//! one stream per draw), and time only from [`Input::TimerFired`], so the same flow, seed and
//! inputs always give the same effects, natively and in WASM.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::model::{ContentData, ElementKind, Flow, MenuData, NodeData, value_i64};
use super::validate::MAX_INTERVAL_SECONDS;
use super::vars;
use crate::QueueId;
use crate::inbox::search::normalize;

/// Most nodes one [`step`] may enter; a cycle without waits ends with
/// [`EndReason::StepBudget`] instead of looping (twice the largest valid flow).
pub const STEP_BUDGET: u32 = 1000;
/// Most nodes a whole run may enter (a cycle through an interval would otherwise run forever).
pub const RUN_BUDGET: u64 = 10_000;
/// Invalid replies to one menu or question before the run ends with
/// [`EndReason::InvalidAnswers`].
pub const MAX_INVALID_REPLIES: u32 = 3;
/// Most node ids kept in [`RunState::visited`]; later entries are counted in `steps` only.
pub const MAX_VISITED: usize = 1000;

/// What a run waits for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Waiting {
    /// Nothing: the run has not started, or has finished.
    #[default]
    Nothing,
    /// The contact's reply to the current menu or question.
    Reply {
        /// Menu or question.
        kind: ReplyKind,
        /// The variable a question stores the reply in.
        variable: Option<String>,
    },
    /// The timer of [`Effect::Wait`] with this number.
    Timer {
        /// The timer's number, as in the `Wait` effect.
        timer: u64,
        /// Its length in seconds.
        seconds: u32,
        /// What happens when it fires.
        resume: Resume,
    },
}

/// The kind of node that waits for a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    /// A menu: the reply picks an option.
    Menu,
    /// A question: the reply is stored.
    Question,
}

/// Where a run continues when its timer fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Resume {
    /// Along the interval node's connection.
    Next,
    /// At this element (in sending order) of the current content node.
    Element {
        /// The element's position in sending order.
        index: usize,
    },
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// A node with no way out was reached.
    Completed,
    /// A ticket node moved the conversation to a queue.
    MovedToQueue,
    /// A typebot or openai node handed the conversation to an integration.
    HandedOff,
    /// Three invalid replies to a menu or question.
    InvalidAnswers,
    /// The step or run budget ran out (a cycle without waits).
    StepBudget,
    /// The flow has no start node.
    NoStart,
    /// A connection leads to a node that does not exist.
    MissingNode,
    /// A node that cannot run (unknown type, ticket without queue).
    InvalidNode,
}

/// Why an input changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IgnoreReason {
    /// The run has not started: send [`Input::Start`] first.
    NotStarted,
    /// The run has finished.
    Finished,
    /// A message arrived while the run waits for a timer.
    WaitingForTimer,
    /// A timer fired while the run waits for a reply.
    WaitingForReply,
    /// A timer fired that is not the one the run waits for (a duplicate or an old one).
    StaleTimer,
}

/// The kind of media sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MediaKind {
    /// A picture.
    Image,
    /// An audio file or voice note.
    Audio,
    /// A video.
    Video,
}

/// The state of one run, kept by the host between steps (per ticket on the server).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunState {
    /// The current node: where the run waits, or where it ended.
    pub node: Option<String>,
    /// What the run waits for.
    pub waiting: Waiting,
    /// Why the run ended, once it has.
    pub finished: Option<EndReason>,
    /// Variables: contact fields and stored answers.
    pub vars: BTreeMap<String, String>,
    /// The seed of the run's random draws (serialised as text, so JavaScript keeps every bit).
    #[serde(with = "u64_text")]
    pub seed: u64,
    /// How many random draws were made.
    pub draws: u64,
    /// How many timers were started (the next timer's number).
    pub timers: u64,
    /// Invalid replies to the current menu or question.
    pub invalid_replies: u32,
    /// The nodes entered, in order (at most [`MAX_VISITED`]).
    pub visited: Vec<String>,
    /// How many nodes the run entered in all.
    pub steps: u64,
}

impl RunState {
    /// Whether the run has ended.
    pub fn is_finished(&self) -> bool {
        self.finished.is_some()
    }

    /// Whether the run was started and has neither ended nor lost its place.
    pub fn is_running(&self) -> bool {
        self.finished.is_none() && self.waiting != Waiting::Nothing
    }
}

/// Something that happened to the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Input {
    /// Start a new run (whatever the state was), with a seed and the contact's fields (`name`,
    /// `number`, `email`, ... see [`vars::with_contact_aliases`]).
    Start {
        /// The seed of random draws (a number or its text).
        #[serde(default, deserialize_with = "u64_text::deserialize")]
        seed: u64,
        /// Starting variables.
        #[serde(default)]
        vars: BTreeMap<String, String>,
    },
    /// The contact wrote.
    Message {
        /// The text (a caption, or empty for media without one).
        #[serde(default)]
        text: String,
    },
    /// A timer of [`Effect::Wait`] fired. With `timer`, only that timer counts (a host that
    /// delivers at least once may fire one twice); without, whichever the run waits for.
    TimerFired {
        /// The timer's number from the `Wait` effect.
        #[serde(default)]
        timer: Option<u64>,
    },
}

/// What the host must do, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Effect {
    /// The run entered a node (for drop-off statistics and the simulation panel).
    EnterNode {
        /// The node's id.
        node_id: String,
        /// The node's type.
        kind: String,
    },
    /// Send a text to the contact.
    SendText {
        /// The text, placeholders substituted.
        text: String,
    },
    /// Send a media file to the contact.
    SendMedia {
        /// Image, audio or video.
        kind: MediaKind,
        /// The stored file's name or address.
        url: String,
        /// The file's original name, when known.
        name: Option<String>,
        /// For audio: as a recorded voice note.
        record: bool,
    },
    /// Start a timer; feed [`Input::TimerFired`] with its number when it fires.
    Wait {
        /// Its length.
        seconds: u32,
        /// Its number.
        timer: u64,
    },
    /// The run waits for the contact's reply (stored in `variable` for a question).
    Ask {
        /// The answer key, for a question; none for a menu.
        variable: Option<String>,
    },
    /// A reply did not fit the menu (or a question got an empty reply).
    InvalidReply {
        /// Invalid replies so far to this node.
        attempts: u32,
    },
    /// A variable was set.
    SetVariable {
        /// Its name.
        key: String,
        /// Its value.
        value: String,
    },
    /// Move the ticket to a queue.
    MoveToQueue {
        /// The queue.
        queue_id: QueueId,
        /// Its name, when the flow holds it.
        queue_name: Option<String>,
    },
    /// Hand the conversation to a Typebot integration; the flow ends.
    StartTypebot {
        /// The typebot node (the host reads further settings from it).
        node_id: String,
        /// The integration as the node holds it.
        integration: Value,
    },
    /// Hand the conversation to an OpenAI-compatible assistant; the flow ends. The API key stays
    /// in the node: the host reads it from there.
    StartOpenAi {
        /// The openai node.
        node_id: String,
        /// The assistant's name.
        name: String,
        /// The system prompt.
        prompt: String,
        /// `texto` or a voice.
        voice: String,
        /// Maximum tokens per answer.
        max_tokens: i64,
        /// Sampling temperature.
        temperature: f64,
        /// Earlier messages sent as context.
        max_messages: i64,
        /// The queue to move to when the assistant hands over.
        queue_id: Option<QueueId>,
    },
    /// The input changed nothing.
    Ignored {
        /// Why.
        reason: IgnoreReason,
    },
    /// The run ended.
    End {
        /// Why.
        reason: EndReason,
    },
}

/// The result of one [`step`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The run's new state.
    pub state: RunState,
    /// What the host must do, in order.
    pub effects: Vec<Effect>,
}

/// A condition's comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// `==` (also `=`, `eq`, `equals`): numbers numerically, texts ignoring case and accents.
    Eq,
    /// `!=` (also `<>`, `ne`, `not_equals`).
    Ne,
    /// `contains`, ignoring case and accents.
    Contains,
    /// `not_contains`.
    NotContains,
    /// `starts_with`.
    StartsWith,
    /// `ends_with`.
    EndsWith,
    /// `>` (also `gt`): only when both sides are numbers.
    Gt,
    /// `<` (also `lt`).
    Lt,
    /// `>=` (also `gte`).
    Ge,
    /// `<=` (also `lte`).
    Le,
    /// `empty`: the variable is unset or blank (no value needed).
    Empty,
    /// `not_empty`.
    NotEmpty,
}

impl Operator {
    /// The operator written `text` (trimmed, case-insensitive), if known.
    pub fn parse(text: &str) -> Option<Operator> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "==" | "=" | "===" | "eq" | "equals" => Operator::Eq,
            "!=" | "<>" | "!==" | "ne" | "not_equals" => Operator::Ne,
            "contains" => Operator::Contains,
            "not_contains" => Operator::NotContains,
            "starts_with" => Operator::StartsWith,
            "ends_with" => Operator::EndsWith,
            ">" | "gt" => Operator::Gt,
            "<" | "lt" => Operator::Lt,
            ">=" | "gte" => Operator::Ge,
            "<=" | "lte" => Operator::Le,
            "empty" | "is_empty" => Operator::Empty,
            "not_empty" | "is_not_empty" => Operator::NotEmpty,
            _ => return None,
        })
    }

    /// Whether the operator needs no value.
    pub fn is_unary(self) -> bool {
        matches!(self, Operator::Empty | Operator::NotEmpty)
    }

    /// Compares `left` (the variable) with `right` (the value).
    pub fn evaluate(self, left: &str, right: &str) -> bool {
        let numbers = parse_number(left).zip(parse_number(right));
        let (l, r) = (normalize(left), normalize(right));
        match self {
            Operator::Eq => numbers.map_or(l == r, |(a, b)| a == b),
            Operator::Ne => !Operator::Eq.evaluate(left, right),
            Operator::Contains => l.contains(&r),
            Operator::NotContains => !l.contains(&r),
            Operator::StartsWith => l.starts_with(&r),
            Operator::EndsWith => l.ends_with(&r),
            Operator::Gt => numbers.is_some_and(|(a, b)| a > b),
            Operator::Lt => numbers.is_some_and(|(a, b)| a < b),
            Operator::Ge => numbers.is_some_and(|(a, b)| a >= b),
            Operator::Le => numbers.is_some_and(|(a, b)| a <= b),
            Operator::Empty => left.trim().is_empty(),
            Operator::NotEmpty => !left.trim().is_empty(),
        }
    }
}

/// A number written `12`, `-3.5` or, Brazilian style, `3,5`.
fn parse_number(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let text = if text.contains(',') && !text.contains('.') {
        text.replace(',', ".")
    } else {
        text.to_owned()
    };
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// The content elements of a `singleBlock` node, when its data has an `elements` list.
pub fn single_block_content(value: &Value) -> Option<ContentData> {
    value
        .get("elements")
        .filter(|e| e.is_array())
        .and_then(|_| serde_json::from_value(value.clone()).ok())
}

/// Runs one input through the flow: from the state's place until the run waits or ends.
pub fn step(flow: &Flow, state: RunState, input: Input) -> Step {
    let mut run = Run {
        flow,
        state,
        effects: Vec::new(),
        budget: STEP_BUDGET,
    };
    match input {
        Input::Start { seed, vars } => {
            run.state = RunState {
                seed,
                vars: vars::with_contact_aliases(vars),
                ..RunState::default()
            };
            let start = flow
                .nodes
                .iter()
                .find(|n| matches!(n.data, NodeData::Start(_)))
                .map(|n| n.id.clone());
            match start {
                Some(id) => run.go(Control::Goto(id)),
                None => run.end(EndReason::NoStart),
            }
        }
        Input::Message { text } => run.message(&text),
        Input::TimerFired { timer } => run.timer_fired(timer),
    }
    Step {
        state: run.state,
        effects: run.effects,
    }
}

/// Starts a run: [`step`] with [`Input::Start`] on a fresh state.
pub fn start(flow: &Flow, seed: u64, vars: BTreeMap<String, String>) -> Step {
    step(flow, RunState::default(), Input::Start { seed, vars })
}

/// What to do after a node.
enum Control {
    /// Enter this node next.
    Goto(String),
    /// The run waits or has ended.
    Stop,
}

struct Run<'a> {
    flow: &'a Flow,
    state: RunState,
    effects: Vec<Effect>,
    budget: u32,
}

impl<'a> Run<'a> {
    fn emit(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    fn end(&mut self, reason: EndReason) {
        self.state.waiting = Waiting::Nothing;
        self.state.finished = Some(reason);
        self.emit(Effect::End { reason });
    }

    fn ignore(&mut self, reason: IgnoreReason) {
        self.emit(Effect::Ignored { reason });
    }

    /// Enters nodes until the run waits or ends.
    fn go(&mut self, mut control: Control) {
        while let Control::Goto(id) = control {
            if self.budget == 0 || self.state.steps >= RUN_BUDGET {
                self.state.node = Some(id);
                self.end(EndReason::StepBudget);
                return;
            }
            self.budget -= 1;
            control = self.enter(id);
        }
    }

    /// Follows the connection leaving `id` through `handle` (any connection when `None`), or
    /// ends the run as completed when there is none.
    fn follow(&mut self, id: &str, handle: Option<&str>) -> Control {
        let target = self
            .flow
            .outgoing(id)
            .find(|c| handle.is_none_or(|h| c.source_handle.as_deref() == Some(h)))
            .map(|c| c.target.clone());
        match target {
            Some(target) => Control::Goto(target),
            None => {
                self.end(EndReason::Completed);
                Control::Stop
            }
        }
    }

    fn enter(&mut self, id: String) -> Control {
        let flow = self.flow;
        let Some(node) = flow.node(&id) else {
            self.state.node = Some(id);
            self.end(EndReason::MissingNode);
            return Control::Stop;
        };
        self.state.steps += 1;
        if self.state.visited.len() < MAX_VISITED {
            self.state.visited.push(id.clone());
        }
        self.state.node = Some(id.clone());
        self.emit(Effect::EnterNode {
            node_id: id.clone(),
            kind: node.kind().to_owned(),
        });
        match &node.data {
            NodeData::Start(_) => self.follow(&id, None),
            NodeData::Message(d) => {
                let text = vars::substitute(&d.label, &self.state.vars);
                self.emit(Effect::SendText { text });
                self.follow(&id, None)
            }
            NodeData::Img(d) | NodeData::Audio(d) | NodeData::Video(d) => {
                let kind = match node.data {
                    NodeData::Img(_) => MediaKind::Image,
                    NodeData::Audio(_) => MediaKind::Audio,
                    _ => MediaKind::Video,
                };
                self.emit(Effect::SendMedia {
                    kind,
                    url: d.url.clone(),
                    name: None,
                    record: kind == MediaKind::Audio && d.record,
                });
                self.follow(&id, None)
            }
            NodeData::Interval(d) => {
                let seconds = d.sec.unwrap_or(0).clamp(0, MAX_INTERVAL_SECONDS);
                if seconds == 0 {
                    self.follow(&id, None)
                } else {
                    self.wait(seconds, Resume::Next);
                    Control::Stop
                }
            }
            NodeData::Menu(d) => {
                self.state.invalid_replies = 0;
                self.send_menu(d);
                Control::Stop
            }
            NodeData::Question(d) => {
                self.state.invalid_replies = 0;
                let text = vars::substitute(&d.message(), &self.state.vars);
                self.emit(Effect::SendText { text });
                self.ask(ReplyKind::Question, Some(d.answer_key()));
                Control::Stop
            }
            NodeData::Content(d) => self.content(&id, d, 0),
            NodeData::SingleBlock(value) => match single_block_content(value) {
                Some(d) => self.content(&id, &d, 0),
                None => self.follow(&id, None),
            },
            NodeData::Randomizer(d) => {
                let percent = d.percent.unwrap_or(0).clamp(0, 100);
                let handle = if i64::from(self.roll()) < percent {
                    "a"
                } else {
                    "b"
                };
                self.follow(&id, Some(handle))
            }
            NodeData::Condition(d) => {
                let left = vars::lookup(&self.state.vars, vars::bare_key(&d.key))
                    .unwrap_or_default()
                    .to_owned();
                let right = vars::substitute(&d.value, &self.state.vars);
                let holds =
                    Operator::parse(&d.condition).is_some_and(|op| op.evaluate(&left, &right));
                self.follow(&id, Some(if holds { "a" } else { "b" }))
            }
            NodeData::Ticket(d) => {
                match d.queue_id() {
                    Some(queue) => {
                        self.emit(Effect::MoveToQueue {
                            queue_id: QueueId(queue),
                            queue_name: d.queue_name(),
                        });
                        self.end(EndReason::MovedToQueue);
                    }
                    None => self.end(EndReason::InvalidNode),
                }
                Control::Stop
            }
            NodeData::Typebot(d) => {
                self.emit(Effect::StartTypebot {
                    node_id: id.clone(),
                    integration: d.typebot_integration.clone(),
                });
                self.end(EndReason::HandedOff);
                Control::Stop
            }
            NodeData::OpenAi(d) => {
                let s = d.effective();
                self.emit(Effect::StartOpenAi {
                    node_id: id.clone(),
                    name: s.name.clone(),
                    prompt: s.prompt.clone(),
                    voice: s.voice.clone(),
                    max_tokens: s.max_tokens.unwrap_or(100),
                    temperature: s.temperature.unwrap_or(1.0),
                    max_messages: s.max_messages.unwrap_or(10),
                    queue_id: s.queue_id.filter(|q| *q > 0).map(QueueId),
                });
                self.end(EndReason::HandedOff);
                Control::Stop
            }
            NodeData::Unknown { .. } => {
                self.end(EndReason::InvalidNode);
                Control::Stop
            }
        }
    }

    fn wait(&mut self, seconds: i64, resume: Resume) {
        let seconds = u32::try_from(seconds).unwrap_or(0);
        let timer = self.state.timers;
        self.state.timers += 1;
        self.state.waiting = Waiting::Timer {
            timer,
            seconds,
            resume,
        };
        self.emit(Effect::Wait { seconds, timer });
    }

    fn ask(&mut self, kind: ReplyKind, variable: Option<String>) {
        self.state.waiting = Waiting::Reply {
            kind,
            variable: variable.clone(),
        };
        self.emit(Effect::Ask { variable });
    }

    /// The menu's text: its message, then one `[n] option` line per numbered option.
    fn send_menu(&mut self, menu: &MenuData) {
        let mut text = vars::substitute(&menu.message, &self.state.vars);
        for option in &menu.array_option {
            if let Some(number) = option.number {
                text.push_str(&format!(
                    "\n[{number}] {}",
                    vars::substitute(&option.value, &self.state.vars)
                ));
            }
        }
        self.emit(Effect::SendText { text });
        self.ask(ReplyKind::Menu, None);
    }

    /// Sends the content elements from `from` (in sending order), stopping at a pause.
    fn content(&mut self, id: &str, data: &ContentData, from: usize) -> Control {
        let elements = data.ordered();
        for (index, element) in elements.iter().enumerate().skip(from) {
            let media = |kind| Effect::SendMedia {
                kind,
                url: element.value.clone(),
                name: (!element.original.is_empty()).then(|| element.original.clone()),
                record: kind == MediaKind::Audio && element.record,
            };
            match element.element_kind() {
                Some(ElementKind::Message) => {
                    let text = vars::substitute(&element.value, &self.state.vars);
                    self.emit(Effect::SendText { text });
                }
                Some(ElementKind::Img) => self.emit(media(MediaKind::Image)),
                Some(ElementKind::Audio) => self.emit(media(MediaKind::Audio)),
                Some(ElementKind::Video) => self.emit(media(MediaKind::Video)),
                Some(ElementKind::Interval) => {
                    let seconds = value_i64(&Value::String(element.value.clone()))
                        .unwrap_or(0)
                        .clamp(0, MAX_INTERVAL_SECONDS);
                    if seconds > 0 {
                        self.wait(seconds, Resume::Element { index: index + 1 });
                        return Control::Stop;
                    }
                }
                None => {}
            }
        }
        self.follow(id, None)
    }

    /// A number in 0..100 from the run's seed and draw counter.
    fn roll(&mut self) -> u32 {
        let mut rng = ChaCha8Rng::seed_from_u64(self.state.seed);
        rng.set_stream(self.state.draws);
        self.state.draws += 1;
        let scaled = (u64::from(rng.next_u32()) * 100) >> 32;
        u32::try_from(scaled).unwrap_or(0)
    }

    fn current_node(&self) -> Option<(String, &'a NodeData)> {
        let id = self.state.node.clone()?;
        let flow: &'a Flow = self.flow;
        let node = flow.node(&id)?;
        Some((id, &node.data))
    }

    fn message(&mut self, text: &str) {
        if self.state.finished.is_some() {
            return self.ignore(IgnoreReason::Finished);
        }
        let kind = match &self.state.waiting {
            Waiting::Nothing => return self.ignore(IgnoreReason::NotStarted),
            Waiting::Timer { .. } => return self.ignore(IgnoreReason::WaitingForTimer),
            Waiting::Reply { kind, .. } => *kind,
        };
        let Some((id, data)) = self.current_node() else {
            return self.end(EndReason::MissingNode);
        };
        match (kind, data) {
            (ReplyKind::Menu, NodeData::Menu(menu)) => match match_option(menu, text) {
                Some(number) => {
                    self.state.waiting = Waiting::Nothing;
                    self.state.invalid_replies = 0;
                    let control = self.follow(&id, Some(&format!("a{number}")));
                    self.go(control);
                }
                None => {
                    if self.invalid_reply() {
                        self.send_menu(menu);
                    }
                }
            },
            (ReplyKind::Question, NodeData::Question(question)) => {
                let answer = text.trim();
                if answer.is_empty() {
                    if self.invalid_reply() {
                        let text = vars::substitute(&question.message(), &self.state.vars);
                        self.emit(Effect::SendText { text });
                        self.ask(ReplyKind::Question, Some(question.answer_key()));
                    }
                    return;
                }
                let key = question.answer_key();
                self.state.waiting = Waiting::Nothing;
                self.state.invalid_replies = 0;
                if !key.is_empty() {
                    self.state.vars.insert(key.clone(), answer.to_owned());
                    self.emit(Effect::SetVariable {
                        key,
                        value: answer.to_owned(),
                    });
                }
                let control = self.follow(&id, None);
                self.go(control);
            }
            // The state does not fit the flow (another version, or a hand-edited state).
            _ => self.end(EndReason::InvalidNode),
        }
    }

    /// Counts an invalid reply; ends the run and returns `false` at the limit.
    fn invalid_reply(&mut self) -> bool {
        self.state.invalid_replies = self.state.invalid_replies.saturating_add(1);
        self.emit(Effect::InvalidReply {
            attempts: self.state.invalid_replies,
        });
        if self.state.invalid_replies >= MAX_INVALID_REPLIES {
            self.end(EndReason::InvalidAnswers);
            false
        } else {
            true
        }
    }

    fn timer_fired(&mut self, fired: Option<u64>) {
        if self.state.finished.is_some() {
            return self.ignore(IgnoreReason::Finished);
        }
        let (timer, resume) = match &self.state.waiting {
            Waiting::Nothing => return self.ignore(IgnoreReason::NotStarted),
            Waiting::Reply { .. } => return self.ignore(IgnoreReason::WaitingForReply),
            Waiting::Timer { timer, resume, .. } => (*timer, *resume),
        };
        if fired.is_some_and(|f| f != timer) {
            return self.ignore(IgnoreReason::StaleTimer);
        }
        self.state.waiting = Waiting::Nothing;
        let Some((id, data)) = self.current_node() else {
            return self.end(EndReason::MissingNode);
        };
        let control = match (resume, data) {
            (Resume::Next, _) => self.follow(&id, None),
            (Resume::Element { index }, NodeData::Content(d)) => self.content(&id, d, index),
            (Resume::Element { index }, NodeData::SingleBlock(value)) => {
                match single_block_content(value) {
                    Some(d) => self.content(&id, &d, index),
                    None => self.follow(&id, None),
                }
            }
            (Resume::Element { .. }, _) => {
                self.end(EndReason::InvalidNode);
                Control::Stop
            }
        };
        self.go(control);
    }
}

/// The number of the option a reply picks: by number (`2`, `[2]`, `2.`, `2)`) or by the option's
/// text, ignoring case, accents and surrounding spaces.
pub fn match_option(menu: &MenuData, reply: &str) -> Option<i64> {
    let trimmed = reply.trim();
    let bare = trimmed
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(trimmed)
        .trim_end_matches(['.', ')'])
        .trim();
    if let Ok(number) = bare.parse::<i64>() {
        return menu
            .array_option
            .iter()
            .filter_map(|o| o.number)
            .find(|n| *n == number);
    }
    let wanted = normalize(trimmed);
    if wanted.is_empty() {
        return None;
    }
    menu.array_option
        .iter()
        .filter(|o| normalize(&o.value) == wanted)
        .find_map(|o| o.number)
}

/// Seeds are 64-bit; JavaScript numbers keep 53 bits, so the state writes them as text and
/// accepts a number or a text.
mod u64_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(value)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum NumberOrText {
            Number(u64),
            Text(String),
        }
        match NumberOrText::deserialize(deserializer)? {
            NumberOrText::Number(n) => Ok(n),
            NumberOrText::Text(s) => s
                .trim()
                .parse()
                .map_err(|_| serde::de::Error::custom(format!("{s:?} is not a seed"))),
        }
    }
}
