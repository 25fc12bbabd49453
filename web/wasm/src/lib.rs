//! The core's rules for the browser, through wasm-bindgen.
//!
//! A thin host: every function takes and returns JSON text (the same shapes the server and the
//! CLI use), so the web app needs no second model and runs exactly the code the server runs: the
//! flow interpreter (`chatflow_core::flow`), the form validators and password strength
//! (`chatflow_core::validation`), list membership of a ticket and the inbox's controls
//! (`chatflow_core::inbox::membership`), the flow limits and the schedule limits. Errors come back as
//! `{"error": "..."}` instead of exceptions. No business rule lives here: each function reads
//! its input, calls one core function and writes its answer.

use std::collections::BTreeMap;

use chatflow_core::flow::{self, Flow, Input, RunState};
use chatflow_core::inbox::membership::{self, ListView, ListedTicket, SignedIn};
use chatflow_core::validation::{self, FormValues};
use serde::Serialize;
use wasm_bindgen::prelude::wasm_bindgen;

/// `{"error": message}` as JSON text.
fn error(message: impl std::fmt::Display) -> String {
    serde_json::json!({ "error": message.to_string() }).to_string()
}

/// `value` as JSON text, or an error object when it cannot be written.
fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(error)
}

fn parse<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> Result<T, String> {
    serde_json::from_str(json).map_err(|e| error(format!("unreadable {what}: {e}")))
}

/// Validates a flow graph: `{"issues": FlowIssue[]}` (empty when the flow can be published).
#[wasm_bindgen(js_name = validateFlow)]
pub fn validate_flow(flow_json: &str) -> String {
    match parse::<Flow>("flow", flow_json) {
        Ok(flow) => {
            let issues = match flow::validate(&flow) {
                Ok(()) => Vec::new(),
                Err(issues) => issues,
            };
            to_json(&serde_json::json!({ "issues": issues }))
        }
        Err(e) => e,
    }
}

/// Starts a run: the `Step` (`{state, effects}`) after the start input. `seed` is the random
/// seed as decimal text (JavaScript numbers cannot hold every u64); `vars_json` an object of
/// starting variables (the contact's fields).
#[wasm_bindgen(js_name = startFlow)]
pub fn start_flow(flow_json: &str, seed: &str, vars_json: &str) -> String {
    let run = || -> Result<String, String> {
        let flow: Flow = parse("flow", flow_json)?;
        let seed: u64 = seed
            .trim()
            .parse()
            .map_err(|_| error(format!("unreadable seed {seed:?}")))?;
        let vars: BTreeMap<String, String> = parse("variables", vars_json)?;
        Ok(to_json(&flow::start(&flow, seed, vars)))
    };
    run().unwrap_or_else(|e| e)
}

/// One step of a run: the new `Step` for `input_json` (`{"type": "message", "text": ...}` or
/// `{"type": "timerFired", "timer": n}`) given the state a previous step returned.
#[wasm_bindgen(js_name = stepFlow)]
pub fn step_flow(flow_json: &str, state_json: &str, input_json: &str) -> String {
    let run = || -> Result<String, String> {
        let flow: Flow = parse("flow", flow_json)?;
        let state: RunState = parse("state", state_json)?;
        let input: Input = parse("input", input_json)?;
        Ok(to_json(&flow::step(&flow, state, input)))
    };
    run().unwrap_or_else(|e| e)
}

/// A whole run from a list of replies (timers fire at once), as `chatflow flow simulate` prints
/// it with `--json`: the `Transcript`.
#[wasm_bindgen(js_name = simulateFlow)]
pub fn simulate_flow(flow_json: &str, seed: &str, vars_json: &str, inputs_json: &str) -> String {
    let run = || -> Result<String, String> {
        let flow: Flow = parse("flow", flow_json)?;
        let seed: u64 = seed
            .trim()
            .parse()
            .map_err(|_| error(format!("unreadable seed {seed:?}")))?;
        let vars: BTreeMap<String, String> = parse("variables", vars_json)?;
        let inputs: Vec<String> = parse("inputs", inputs_json)?;
        Ok(to_json(&flow::simulate(&flow, seed, vars, &inputs)))
    };
    run().unwrap_or_else(|e| e)
}

/// The failing fields of one form's values (`{"form": "user" | "contact" | "signup" | "note" |
/// "tag" | "queue" | "connection" | "newPassword", ...values}`): `{"fields": FieldError[]}`.
#[wasm_bindgen(js_name = checkForm)]
pub fn check_form(values_json: &str) -> String {
    match parse::<FormValues>("form", values_json) {
        Ok(form) => to_json(&serde_json::json!({ "fields": validation::check_form(&form) })),
        Err(e) => e,
    }
}

/// A password's strength: `{"score": 0..5, "label": "weak" | "medium" | "strong", "warn": bool}`
/// (`warn`: the login page's low-strength dialog).
#[wasm_bindgen(js_name = passwordStrength)]
pub fn password_strength(password: &str) -> String {
    let strength = validation::password_strength(password);
    to_json(&serde_json::json!({
        "score": strength.score,
        "label": strength.label,
        "warn": validation::needs_strength_warning(strength.score),
    }))
}

/// Whether an e-mail address is valid: `{"valid": bool}`.
#[wasm_bindgen(js_name = isValidEmail)]
pub fn is_valid_email(email: &str) -> String {
    to_json(&serde_json::json!({ "valid": validation::is_valid_email(email) }))
}

/// Whether a ticket belongs in an inbox list of the signed-in user: `{"belongs": bool}`.
/// `user_json` is the session's user (`SignedIn`), `list_json` the list (`ListView`),
/// `ticket_json` the ticket's facts (`ListedTicket`).
#[wasm_bindgen(js_name = belongsToList)]
pub fn belongs_to_list(user_json: &str, list_json: &str, ticket_json: &str) -> String {
    let run = || -> Result<String, String> {
        let user: SignedIn = parse("user", user_json)?;
        let list: ListView = parse("list", list_json)?;
        let ticket: ListedTicket = parse("ticket", ticket_json)?;
        let belongs = membership::belongs_to_list(&user.actor(), &list, &ticket);
        Ok(to_json(&serde_json::json!({ "belongs": belongs })))
    };
    run().unwrap_or_else(|e| e)
}

/// The inbox controls of the signed-in user (`InboxControls`).
#[wasm_bindgen(js_name = inboxControls)]
pub fn inbox_controls(user_json: &str) -> String {
    match parse::<SignedIn>("user", user_json) {
        Ok(user) => to_json(&membership::inbox_controls(&user.actor())),
        Err(e) => e,
    }
}

/// The limits of every flow (`FlowLimits`).
#[wasm_bindgen(js_name = flowLimits)]
pub fn flow_limits() -> String {
    to_json(&flow::flow_limits())
}

/// The bounds of every schedule (`ScheduleLimits`).
#[wasm_bindgen(js_name = scheduleLimits)]
pub fn schedule_limits() -> String {
    to_json(&chatflow_core::schedule::schedule_limits())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLOW: &str = r#"{"nodes":[
        {"id":"1","type":"start","position":{"x":0,"y":0},"data":{"label":"Inicio do fluxo"}},
        {"id":"m","type":"message","position":{"x":0,"y":0},"data":{"label":"Olá {nome}"}}
      ],"connections":[{"source":"1","target":"m"}]}"#;

    #[test]
    fn a_run_greets_with_the_contact_name() {
        let step: serde_json::Value =
            serde_json::from_str(&start_flow(FLOW, "7", r#"{"nome":"Ana"}"#)).expect("json");
        let texts: Vec<&str> = step["effects"]
            .as_array()
            .expect("effects")
            .iter()
            .filter(|e| e["type"] == "sendText")
            .filter_map(|e| e["text"].as_str())
            .collect();
        assert_eq!(texts, ["Olá Ana"]);
    }

    #[test]
    fn bad_input_is_an_error_object() {
        let out: serde_json::Value =
            serde_json::from_str(&start_flow("{", "1", "{}")).expect("json");
        assert!(out["error"].as_str().expect("error").contains("flow"));
        let out: serde_json::Value =
            serde_json::from_str(&start_flow(FLOW, "x", "{}")).expect("json");
        assert!(out["error"].as_str().expect("error").contains("seed"));
    }

    #[test]
    fn validation_lists_issues() {
        let out: serde_json::Value =
            serde_json::from_str(&validate_flow(r#"{"nodes":[],"connections":[]}"#)).expect("json");
        assert!(!out["issues"].as_array().expect("issues").is_empty());
    }
}
