//! The flow builder's model, validation and deterministic interpreter.
//!
//! A [`Flow`] is the graph the web editor (React Flow) saves: nodes `{id, type, position, data,
//! style?}` and connections `{id?, source, target, sourceHandle?, targetHandle?}`. [`validate`]
//! applies the editor's rules and the graph's shape; [`step`] runs a flow one input at a time,
//! from a serialisable [`RunState`] to a new state and the [`Effect`]s the host carries out.
//!
//! The same code runs on the server (a flow per ticket, its state stored, intervals as durable
//! timers), in the CLI and in the browser through WASM (the simulation panel). Everything is
//! serde-serialisable, pure and total: no I/O, no clock (timers are inputs), no randomness but
//! the run's seed, and no panic on any flow or input. `docs/flows.md` describes the JSON format,
//! each node's behaviour, the branch handles and every choice made where the spec is silent.
//!
//! Files: [`model`] (the graph and typed node data), [`validate`] (issues), [`interpret`] (the
//! interpreter), [`vars`] (variables and placeholders), [`simulate`] (whole runs and transcripts).

pub mod interpret;
pub mod model;
pub mod simulate;
pub mod validate;
pub mod vars;

#[cfg(test)]
mod tests;

pub use interpret::{
    Effect, EndReason, IgnoreReason, Input, MAX_INVALID_REPLIES, MAX_VISITED, MediaKind, Operator,
    RUN_BUDGET, ReplyKind, Resume, RunState, STEP_BUDGET, Step, Waiting, match_option, start, step,
};
pub use model::{
    Connection, ContentData, ContentElement, Flow, MenuData, MenuOption, Node, NodeData, Position,
};
pub use simulate::{Transcript, TranscriptEntry, simulate};
pub use validate::{
    CONDITION_OPERATORS, FlowIssue, FlowIssueCode, FlowLimits, FlowMedia, MAX_CONNECTIONS,
    MAX_INTERVAL_SECONDS, MAX_NODES, MAX_TEXT_CHARS, Severity, check, flow_limits,
    media_extensions, validate,
};
