//! `chatflow flow validate` and `chatflow flow simulate`, run for real on flow files. These
//! commands need no database: every run here points `DATABASE_URL` at a server that does not
//! exist.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use chatflow_core::flow::{self, Flow};
use serde_json::{Value, json};

/// The sample flow shared with the example and the web app's tests.
fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/flow-run/flows/welcome.json")
}

fn chatflow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chatflow"))
        .args(args)
        .env("DATABASE_URL", "postgres://nobody@127.0.0.1:1/nothing")
        .output()
        .expect("the binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write_flow(dir: &tempfile::TempDir, name: &str, flow: &Value) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, flow.to_string()).expect("written");
    path.display().to_string()
}

#[test]
fn validate_accepts_the_sample_without_a_database() {
    let path = sample().display().to_string();
    let out = chatflow(&["flow", "validate", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "The flow is valid.\n");

    let out = chatflow(&["--json", "flow", "validate", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(body, json!({"valid": true, "issues": []}));
}

#[test]
fn validate_lists_issues_and_exits_1() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_flow(
        &dir,
        "bad.json",
        &json!({
            "nodes": [
                {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {}},
                {"id": "t", "type": "ticket", "position": {"x": 0, "y": 0}, "data": {}},
                {"id": "w", "type": "interval", "position": {"x": 0, "y": 0}, "data": {"sec": 500}}
            ],
            "connections": [{"source": "1", "target": "t"}]
        }),
    );
    let out = chatflow(&["--json", "flow", "validate", &path]);
    assert_eq!(out.status.code(), Some(1));
    let body: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(body["valid"], json!(false));
    let codes: Vec<&str> = body["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|i| i["code"].as_str().expect("a code"))
        .collect();
    assert_eq!(
        codes,
        [
            "unreachable_node",
            "ticket_queue_missing",
            "interval_too_long"
        ]
    );
    assert!(stderr(&out).contains("ERR_VALIDATION"), "{}", stderr(&out));

    let out = chatflow(&["flow", "validate", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("Adicione uma fila"), "{text}");
    assert!(
        text.contains("Máximo de tempo atingido 120 segundos"),
        "{text}"
    );
    assert!(text.starts_with("SEVERITY  NODE  CODE"), "{text}");
}

#[test]
fn unreadable_or_broken_files_are_refused() {
    let out = chatflow(&["flow", "validate", "/nonexistent/flow.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ERR_BAD_REQUEST"), "{}", stderr(&out));

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("broken.json");
    std::fs::write(&path, "{\"nodes\": [").expect("written");
    let out = chatflow(&["flow", "simulate", &path.display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("ERR_BAD_REQUEST"), "{}", stderr(&out));

    let sample = sample().display().to_string();
    let out = chatflow(&["flow", "simulate", &sample, "--var", "nokey"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
}

#[test]
fn simulate_prints_the_transcript() {
    let path = sample().display().to_string();
    let args = [
        "flow",
        "simulate",
        &path,
        "--input",
        "1",
        "--input",
        "maria@example.com",
        "--var",
        "name=Maria Lima",
    ];
    let out = chatflow(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let expected = "\
> start (seed 0)
  -> start [1]
  -> message [boasVindas]
  bot: Olá Maria Lima! Bem-vindo à Acme.
  -> menu [menuPrincipal]
  bot: Como podemos ajudar?
       [1] Comprar
       [2] Suporte técnico
  waits for a choice
> contact: 1
  -> question [perguntaEmail]
  bot: Qual é o seu e-mail, Maria?
  waits for a reply into {emailContato}
> contact: maria@example.com
  set emailContato = maria@example.com
  -> interval [intervalo]
  wait 5 s (timer 0)
> timer 0 fired
  -> ticket [ticketVendas]
  move to queue 1 (Vendas)
  end: moved_to_queue
";
    assert!(text.starts_with(expected), "{text}");
    assert!(text.contains("emailContato=maria@example.com"), "{text}");
    assert_eq!(stdout(&chatflow(&args)), text, "the same run twice");
}

#[test]
fn simulate_json_is_the_cores_transcript() {
    let path = sample().display().to_string();
    let out = chatflow(&[
        "--json",
        "flow",
        "simulate",
        &path,
        "--seed",
        "99",
        "--input",
        "2",
        "--input",
        "left over",
        "--var",
        "name=Ana",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed: Value = serde_json::from_str(&stdout(&out)).expect("JSON");

    let flow = Flow::from_json(&std::fs::read_to_string(sample()).expect("read")).expect("flow");
    let vars = BTreeMap::from([("name".to_owned(), "Ana".to_owned())]);
    let transcript = flow::simulate(&flow, 99, vars, &["2".to_owned(), "left over".to_owned()]);
    assert_eq!(
        printed,
        serde_json::to_value(&transcript).expect("serialises")
    );
    assert_eq!(printed["unusedInputs"], json!(["left over"]));
    assert_eq!(printed["state"]["finished"], json!("moved_to_queue"));
}

#[test]
fn simulate_warns_about_issues_but_still_runs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = write_flow(
        &dir,
        "warn.json",
        &json!({
            "nodes": [
                {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {}},
                {"id": "m", "type": "message", "position": {"x": 0, "y": 0}, "data": {"label": ""}}
            ],
            "connections": [{"source": "1", "target": "m"}]
        }),
    );
    let out = chatflow(&["flow", "simulate", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: node m: Campos de mensagem vazio!"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("end: completed"), "{}", stdout(&out));
}
