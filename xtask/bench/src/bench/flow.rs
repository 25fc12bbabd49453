//! Flow and routing scenarios: the flow interpreter's steps per second natively and compiled to
//! WASM (under Node, the way the browser runs it), and routing decisions per second. Pure CPU:
//! no server, no database.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chatflow_core::flow::{self, Flow};
use chatflow_core::ids::QueueId;
use chatflow_core::queue::Queue;
use chatflow_core::routing::{
    BotStage, BotState, MenuLabels, RoutingConnection, RoutingContact, RoutingInput,
    RoutingSettings, RoutingTicket, decide,
};
use chatflow_core::ticket::TicketStatus;
use chrono::{TimeZone, Utc};

use xtask::util::{cmd, project_root};

/// The sample flow and its case (the replies the web test and the CLI use too).
struct Sample {
    flow: Flow,
    seed: u64,
    vars: BTreeMap<String, String>,
    inputs: Vec<String>,
}

fn sample() -> Result<Sample> {
    let dir = project_root()
        .join("examples")
        .join("flow-run")
        .join("flows");
    let flow = Flow::from_json(&std::fs::read_to_string(dir.join("welcome.json"))?)
        .map_err(|e| anyhow::anyhow!("welcome.json: {e}"))?;
    let case: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("welcome.case.json"))?)?;
    Ok(Sample {
        flow,
        seed: case["seed"].as_str().unwrap_or("0").parse()?,
        vars: serde_json::from_value(case["vars"].clone())?,
        inputs: serde_json::from_value(case["inputs"].clone())?,
    })
}

/// Runs `f` (which returns how many units it did) repeatedly for `duration`; units per second.
fn per_second(duration: Duration, mut f: impl FnMut() -> u64) -> (u64, f64) {
    for _ in 0..200 {
        std::hint::black_box(f());
    }
    let started = Instant::now();
    let mut units = 0u64;
    while started.elapsed() < duration {
        units += f();
    }
    (units, units as f64 / started.elapsed().as_secs_f64())
}

fn queue(id: i64, name: &str) -> Queue {
    Queue {
        id: QueueId(id),
        name: name.into(),
        color: format!("#{id:06}"),
        order_queue: Some(id),
        greeting_message: format!("Bem-vindo a {name}"),
        out_of_hours_message: String::new(),
        close_ticket: false,
        ativar_roteador: false,
        tempo_roteador: 0,
        integration_id: None,
        file_list_id: None,
        schedules: Vec::new(),
        chatbots: Vec::new(),
    }
}

/// A pending ticket on a connection with three queues: its first message (greeting and menu),
/// and a reply choosing the second queue.
fn routing_inputs() -> Result<[RoutingInput; 2]> {
    let now = Utc
        .with_ymd_and_hms(2026, 11, 23, 13, 0, 0)
        .single()
        .context("a valid time")?;
    let first = RoutingInput {
        ticket: RoutingTicket {
            status: TicketStatus::Pending,
            queue_id: None,
            user_id: None,
            is_group: false,
            amount_used_bot_queues: 0,
            bot: BotState::default(),
            is_new: true,
            last_bot_message_at: None,
            using_integration: false,
        },
        contact: RoutingContact::default(),
        connection: RoutingConnection {
            greeting_message: "Olá! Escolha um setor:".into(),
            queue_ids: vec![QueueId(1), QueueId(2), QueueId(3)],
            max_use_bot_queues: 3,
            ..RoutingConnection::default()
        },
        queues: vec![
            queue(1, "Vendas"),
            queue(2, "Suporte"),
            queue(3, "Financeiro"),
        ],
        settings: RoutingSettings::default(),
        company_schedules: Vec::new(),
        time_zone: chrono_tz::America::Sao_Paulo,
        message: "Oi".into(),
        from_me: false,
        now,
        snapshots: Vec::new(),
        labels: MenuLabels::default(),
    };
    let mut reply = first.clone();
    reply.message = "2".into();
    reply.ticket.is_new = false;
    reply.ticket.amount_used_bot_queues = 1;
    reply.ticket.last_bot_message_at = Some(now - chrono::TimeDelta::minutes(1));
    reply.ticket.bot = BotState {
        stage: BotStage::QueueMenu,
        ..BotState::default()
    };
    Ok([first, reply])
}

/// Prints the flow and routing scenarios.
pub fn run(seconds: Duration) -> Result<()> {
    println!("\n--- flows and routing (CPU only) ---");
    let sample = sample()?;
    let (_, native) = per_second(seconds, || {
        let transcript = flow::simulate(
            &sample.flow,
            sample.seed,
            sample.vars.clone(),
            &sample.inputs,
        );
        std::hint::black_box(transcript.entries.len() as u64)
    });
    let steps_per_run = flow::simulate(
        &sample.flow,
        sample.seed,
        sample.vars.clone(),
        &sample.inputs,
    )
    .entries
    .len();
    println!(
        "{:<38}  {:>12.0} steps/s   ({:.0} runs/s of {steps_per_run} steps, welcome.json)",
        "flow interpreter, native",
        native,
        native / steps_per_run as f64
    );

    let root = project_root();
    let flows = root.join("examples").join("flow-run").join("flows");
    if root.join("web/src/wasm-pkg/chatflow_wasm_bg.wasm").exists() {
        let output = cmd(
            "node",
            &[
                "scripts/bench-wasm.mjs",
                &flows.join("welcome.json").to_string_lossy(),
                &flows.join("welcome.case.json").to_string_lossy(),
                &seconds.as_secs_f64().to_string(),
            ],
        )
        .current_dir(root.join("web"))
        .output()
        .context("running node")?;
        if !output.status.success() {
            bail!(
                "bench-wasm.mjs failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let measured: serde_json::Value = serde_json::from_slice(&output.stdout)?;
        let steps = measured["steps"].as_f64().unwrap_or(0.0);
        let elapsed = measured["seconds"].as_f64().unwrap_or(1.0);
        let wasm = steps / elapsed;
        println!(
            "{:<38}  {:>12.0} steps/s   ({:.2}x native; JSON in and out, as the panel calls it)",
            "flow interpreter, WASM in Node",
            wasm,
            wasm / native
        );
    } else {
        println!("flow interpreter, WASM: skipped (run `cargo xtask wasm` first)");
    }

    let inputs = routing_inputs()?;
    let (_, routing) = per_second(seconds, || {
        let mut effects = 0;
        for input in &inputs {
            effects += decide(input).effects.len();
        }
        std::hint::black_box(effects);
        inputs.len() as u64
    });
    println!(
        "{:<38}  {:>12.0} decisions/s (greeting + menu, then a queue choice)",
        "routing decisions", routing
    );
    Ok(())
}
