//! Simulation: a whole run from a list of the contact's replies, as the CLI, the example and the
//! browser's simulation panel show it. Timers fire at once; replies are used in order, one each
//! time the run waits for a reply.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::interpret::{Effect, Input, RUN_BUDGET, RunState, Waiting, step};
use super::model::Flow;

/// One input and what it caused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    /// The input.
    pub input: Input,
    /// The effects, in order.
    pub effects: Vec<Effect>,
}

/// A simulated run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    /// Every input with its effects, in order.
    pub entries: Vec<TranscriptEntry>,
    /// The state after the last input.
    pub state: RunState,
    /// Replies left over when the run ended (or stopped waiting for replies).
    pub unused_inputs: Vec<String>,
}

/// Runs `flow` from its start with `seed` and `vars`, answering each wait for a reply with the
/// next of `inputs` and firing each timer at once, until the run ends or waits for a reply with
/// no input left.
pub fn simulate(
    flow: &Flow,
    seed: u64,
    vars: BTreeMap<String, String>,
    inputs: &[String],
) -> Transcript {
    let mut entries = Vec::new();
    let mut state = RunState::default();
    let mut pending = inputs.iter();
    let mut input = Input::Start { seed, vars };
    // Every step either enters a node or ends the run, and the run budget bounds node entries.
    let mut guard = RUN_BUDGET + 2;
    loop {
        let result = step(flow, state, input.clone());
        state = result.state;
        entries.push(TranscriptEntry {
            input,
            effects: result.effects,
        });
        guard = guard.saturating_sub(1);
        if state.is_finished() || guard == 0 {
            break;
        }
        input = match &state.waiting {
            Waiting::Timer { timer, .. } => Input::TimerFired {
                timer: Some(*timer),
            },
            Waiting::Reply { .. } => match pending.next() {
                Some(text) => Input::Message { text: text.clone() },
                None => break,
            },
            Waiting::Nothing => break,
        };
    }
    Transcript {
        entries,
        state,
        unused_inputs: pending.cloned().collect(),
    }
}

impl Transcript {
    /// The transcript as text for people: one `>` line per input, then its effects indented.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for entry in &self.entries {
            let _ = writeln!(out, "> {}", describe_input(&entry.input));
            for effect in &entry.effects {
                let _ = writeln!(out, "  {}", describe_effect(effect));
            }
        }
        match (&self.state.finished, &self.state.waiting) {
            (Some(_), _) => {}
            (None, Waiting::Reply { .. }) => out.push_str("(waiting for a reply)\n"),
            (None, Waiting::Timer { .. }) => out.push_str("(waiting for a timer)\n"),
            (None, Waiting::Nothing) => {}
        }
        if !self.unused_inputs.is_empty() {
            let _ = writeln!(out, "(unused inputs: {})", self.unused_inputs.join(" | "));
        }
        if !self.state.vars.is_empty() {
            let vars: Vec<String> = self
                .state
                .vars
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let _ = writeln!(out, "variables: {}", vars.join(", "));
        }
        out
    }
}

/// One line for an input.
pub fn describe_input(input: &Input) -> String {
    match input {
        Input::Start { seed, .. } => format!("start (seed {seed})"),
        Input::Message { text } => format!("contact: {text}"),
        Input::TimerFired { timer: Some(t) } => format!("timer {t} fired"),
        Input::TimerFired { timer: None } => "timer fired".to_owned(),
    }
}

/// One line for an effect; multi-line texts are indented under it.
pub fn describe_effect(effect: &Effect) -> String {
    match effect {
        Effect::EnterNode { node_id, kind } => format!("-> {kind} [{node_id}]"),
        Effect::SendText { text } => format!("bot: {}", text.replace('\n', "\n       ")),
        Effect::SendMedia {
            kind,
            url,
            name,
            record,
        } => {
            let kind = match kind {
                super::interpret::MediaKind::Image => "image",
                super::interpret::MediaKind::Audio if *record => "voice note",
                super::interpret::MediaKind::Audio => "audio",
                super::interpret::MediaKind::Video => "video",
            };
            match name {
                Some(name) => format!("bot sends {kind}: {url} ({name})"),
                None => format!("bot sends {kind}: {url}"),
            }
        }
        Effect::Wait { seconds, timer } => format!("wait {seconds} s (timer {timer})"),
        Effect::Ask { variable: Some(v) } => format!("waits for a reply into {{{v}}}"),
        Effect::Ask { variable: None } => "waits for a choice".to_owned(),
        Effect::InvalidReply { attempts } => format!("invalid reply ({attempts} so far)"),
        Effect::SetVariable { key, value } => format!("set {key} = {value}"),
        Effect::MoveToQueue {
            queue_id,
            queue_name,
        } => match queue_name {
            Some(name) => format!("move to queue {queue_id} ({name})"),
            None => format!("move to queue {queue_id}"),
        },
        Effect::StartTypebot { node_id, .. } => format!("hand off to Typebot [{node_id}]"),
        Effect::StartOpenAi { node_id, name, .. } => {
            format!("hand off to OpenAI \"{name}\" [{node_id}]")
        }
        Effect::Ignored { reason } => format!("ignored: {}", snake(reason)),
        Effect::End { reason } => format!("end: {}", snake(reason)),
    }
}

fn snake<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
