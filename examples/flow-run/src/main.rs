//! Loads a flow (the JSON the flow editor saves) and runs it with `chatflow-core` as a library,
//! printing what a contact would see and what the server would do.
//!
//! `cargo run -p example-flow-run` walks the sample flow `flows/welcome.json` twice, once down each
//! branch of its menu. `cargo run -p example-flow-run -- FILE [REPLY]...` runs another flow file
//! with the given replies. Nothing here touches a database, a network or the clock: the
//! interpreter decides, timers are fired at once, and the seed makes the randomizer reproducible.

use std::collections::BTreeMap;
use std::process::ExitCode;

use chatflow_core::flow::{self, Effect, Flow, Input, RunState, Waiting};

/// The sample flow: start, a greeting, a menu with two branches, a question, an interval and a
/// ticket node per branch.
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/flows/welcome.json");

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| SAMPLE.to_owned());
    let replies: Vec<String> = args.collect();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let flow = match Flow::from_json(&text) {
        Ok(flow) => flow,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match flow::validate(&flow) {
        Ok(()) => println!("{path}: valid, {} nodes", flow.nodes.len()),
        Err(issues) => {
            for issue in issues {
                let node = issue.node_id.as_deref().unwrap_or("-");
                println!("issue at node {node}: {}", issue.message_pt);
            }
        }
    }
    let contact = BTreeMap::from([
        ("name".to_owned(), "Maria Lima".to_owned()),
        ("number".to_owned(), "5511999990001".to_owned()),
    ]);
    let walks: Vec<Vec<String>> = if replies.is_empty() {
        vec![
            vec!["1".to_owned(), "maria@example.com".to_owned()],
            vec!["Suporte técnico".to_owned()],
        ]
    } else {
        vec![replies]
    };
    for replies in walks {
        println!();
        println!("== replies: {replies:?}");
        if !walk(&flow, &contact, &replies) {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// Drives the interpreter step by step, as a host does: a reply for each question or menu, and
/// each timer fired as soon as it is asked for. Returns whether the run reached a stable point.
fn walk(flow: &Flow, contact: &BTreeMap<String, String>, replies: &[String]) -> bool {
    let mut step = flow::start(flow, 7, contact.clone());
    let mut pending = replies.iter();
    loop {
        for effect in &step.effects {
            println!("  {}", flow::simulate::describe_effect(effect));
        }
        let state: &RunState = &step.state;
        let input = match &state.waiting {
            _ if state.is_finished() => break,
            Waiting::Timer { timer, seconds, .. } => {
                println!("(a host would wait {seconds} s here)");
                Input::TimerFired {
                    timer: Some(*timer),
                }
            }
            Waiting::Reply { .. } => match pending.next() {
                Some(text) => {
                    println!("> contact: {text}");
                    Input::Message { text: text.clone() }
                }
                None => {
                    println!("(the flow waits for a reply)");
                    break;
                }
            },
            Waiting::Nothing => break,
        };
        step = flow::step(flow, step.state, input);
    }
    let queue = step.effects.iter().find_map(|e| match e {
        Effect::MoveToQueue { queue_id, .. } => Some(*queue_id),
        _ => None,
    });
    println!(
        "visited {} nodes: {}{}",
        step.state.visited.len(),
        step.state.visited.join(" -> "),
        queue.map_or(String::new(), |q| format!("; ticket moved to queue {q}"))
    );
    step.state.is_finished() || matches!(step.state.waiting, Waiting::Reply { .. })
}
