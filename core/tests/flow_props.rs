//! Property tests of the flow interpreter on generated flows, valid or not: it never panics,
//! every step ends with the run waiting or ended (or the input ignored), the same seed and inputs
//! give the same transcript, and a state saved to JSON and loaded again runs on identically.

use chatflow_core::flow::{self, Effect, Flow, Input, RunState, STEP_BUDGET, Waiting};
use proptest::prelude::*;
use serde_json::{Value, json};

const IDS: &[&str] = &["1", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "ghost"];
const HANDLES: &[Option<&str>] = &[
    None,
    Some("a"),
    Some("b"),
    Some("a1"),
    Some("a2"),
    Some("x"),
];
const TEXTS: &[&str] = &[
    "",
    " ",
    "1",
    "2",
    "3",
    "[1]",
    "Vendas",
    "vendas",
    "Olá {nome}",
    "{idade}",
    "12",
    "x",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(TEXTS).prop_map(str::to_owned),
        "[a-zA-Z0-9 {}çã,.]{0,12}",
    ]
}

fn element() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["message", "interval", "img", "audio", "video", "gif"][..]),
        prop_oneof![text(), (-3i64..200).prop_map(|n| n.to_string())],
        prop::sample::select(&["e0", "e1", "e2", "e3"][..]),
        any::<bool>(),
    )
        .prop_map(|(kind, value, number, record)| {
            json!({"type": kind, "value": value, "number": number, "record": record})
        })
}

fn node_data() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        Just(("start", json!({"label": "Inicio do fluxo"}))),
        text().prop_map(|t| ("message", json!({ "label": t }))),
        (-5i64..200).prop_map(|s| ("interval", json!({ "sec": s }))),
        (text(), any::<bool>()).prop_map(|(u, r)| ("img", json!({"url": u, "record": r}))),
        (text(), any::<bool>()).prop_map(|(u, r)| ("audio", json!({"url": u, "record": r}))),
        text().prop_map(|u| ("video", json!({ "url": u }))),
        (text(), prop::collection::vec((-1i64..4, text()), 0..4)).prop_map(|(m, options)| {
            let options: Vec<Value> = options
                .into_iter()
                .map(|(n, v)| json!({"number": n, "value": v}))
                .collect();
            ("menu", json!({"message": m, "arrayOption": options}))
        }),
        (-10i64..120).prop_map(|p| ("randomizer", json!({ "percent": p }))),
        (text(), text()).prop_map(|(m, k)| (
            "question",
            json!({"typebotIntegration": {"message": m, "answerKey": k}})
        )),
        (
            prop::collection::vec(prop::sample::select(&["e0", "e1", "e2", "e9"][..]), 0..4),
            prop::collection::vec(element(), 0..5)
        )
            .prop_map(|(seq, elements)| ("content", json!({"seq": seq, "elements": elements}))),
        prop::collection::vec(element(), 0..3)
            .prop_map(|elements| ("singleBlock", json!({ "elements": elements }))),
        prop_oneof![Just(Value::Null), (-2i64..5).prop_map(Value::from)]
            .prop_map(|q| ("ticket", json!({ "queue": q }))),
        Just(("typebot", json!({"typebotIntegration": {"id": 1}}))),
        text().prop_map(|p| ("openai", json!({"prompt": p, "apiKey": "k"}))),
        (
            text(),
            prop::sample::select(&["==", "!=", ">", "<=", "contains", "empty", "??"][..]),
            text()
        )
            .prop_map(|(k, c, v)| ("condition", json!({"key": k, "condition": c, "value": v}))),
        Just(("mystery", json!({"whatever": [1, 2]}))),
    ]
}

fn arbitrary_flow() -> impl Strategy<Value = Flow> {
    (
        prop::collection::vec((prop::sample::select(IDS), node_data()), 0..9),
        prop::collection::vec(
            (
                prop::sample::select(IDS),
                prop::sample::select(IDS),
                prop::sample::select(HANDLES),
            ),
            0..16,
        ),
    )
        .prop_map(|(nodes, edges)| {
            let nodes: Vec<Value> = nodes
                .into_iter()
                .map(|(id, (kind, data))| {
                    json!({"id": id, "type": kind, "position": {"x": 0, "y": 0}, "data": data})
                })
                .collect();
            let connections: Vec<Value> = edges
                .into_iter()
                .map(|(s, t, h)| json!({"source": s, "target": t, "sourceHandle": h}))
                .collect();
            serde_json::from_value(json!({"nodes": nodes, "connections": connections}))
                .expect("generated flows have the editor's shape")
        })
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        4 => text().prop_map(|text| Input::Message { text }),
        3 => Just(Input::TimerFired { timer: None }),
        1 => (0u64..4).prop_map(|t| Input::TimerFired { timer: Some(t) }),
        1 => any::<u64>().prop_map(|seed| Input::Start { seed, vars: Default::default() }),
    ]
}

/// Runs `inputs` after a start with `seed`, returning every step's effects and the states.
fn run(flow: &Flow, seed: u64, inputs: &[Input]) -> Vec<(Vec<Effect>, RunState)> {
    let mut out = Vec::new();
    let mut state = RunState::default();
    let all = std::iter::once(Input::Start {
        seed,
        vars: [("name".to_owned(), "Ana Lima".to_owned())].into(),
    })
    .chain(inputs.iter().cloned());
    for input in all {
        let step = flow::step(flow, state, input);
        state = step.state.clone();
        out.push((step.effects, step.state));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_step_waits_or_ends_within_the_budget(
        flow in arbitrary_flow(),
        seed in any::<u64>(),
        inputs in prop::collection::vec(input(), 0..12),
    ) {
        let _ = flow::check(&flow);
        for (effects, state) in run(&flow, seed, &inputs) {
            let ignored = matches!(effects.as_slice(), [Effect::Ignored { .. }]);
            let settled = state.finished.is_some() || state.waiting != Waiting::Nothing;
            prop_assert!(ignored || settled, "effects {effects:?} left {state:?}");
            let entered = effects.iter().filter(|e| matches!(e, Effect::EnterNode { .. })).count();
            prop_assert!(entered <= STEP_BUDGET as usize);
            let ends = effects.iter().filter(|e| matches!(e, Effect::End { .. })).count();
            prop_assert!(ends <= 1);
            if ends == 1 {
                let last_is_end = matches!(effects.last(), Some(Effect::End { .. }));
                prop_assert!(last_is_end, "the end is the last effect");
                prop_assert!(state.finished.is_some());
            }
        }
    }

    #[test]
    fn the_same_seed_and_inputs_give_the_same_transcript(
        flow in arbitrary_flow(),
        seed in any::<u64>(),
        inputs in prop::collection::vec(input(), 0..12),
    ) {
        prop_assert_eq!(run(&flow, seed, &inputs), run(&flow, seed, &inputs));
    }

    #[test]
    fn a_state_saved_as_json_runs_on_identically(
        flow in arbitrary_flow(),
        seed in any::<u64>(),
        inputs in prop::collection::vec(input(), 1..10),
    ) {
        let (first, rest) = inputs.split_at(inputs.len() / 2);
        let before = run(&flow, seed, first);
        let state = before.last().map(|(_, s)| s.clone()).unwrap_or_default();
        let saved = serde_json::to_string(&state).expect("the state serialises");
        let mut loaded: RunState = serde_json::from_str(&saved).expect("the state loads");
        prop_assert_eq!(&loaded, &state);
        let mut direct = state;
        for input in rest {
            let a = flow::step(&flow, direct, input.clone());
            let b = flow::step(&flow, loaded, input.clone());
            prop_assert_eq!(&a, &b);
            direct = a.state;
            loaded = b.state;
        }
    }

    #[test]
    fn simulation_always_finishes(
        flow in arbitrary_flow(),
        seed in any::<u64>(),
        replies in prop::collection::vec(text(), 0..8),
    ) {
        let transcript = flow::simulate(&flow, seed, Default::default(), &replies);
        prop_assert_eq!(&transcript, &flow::simulate(&flow, seed, Default::default(), &replies));
        let _ = transcript.to_text();
        let waits_for_reply = matches!(transcript.state.waiting, Waiting::Reply { .. });
        prop_assert!(transcript.state.is_finished() || waits_for_reply, "it ended or needs a reply");
    }

    #[test]
    fn arbitrary_text_never_panics_the_parser(text in "\\PC{0,200}") {
        if let Ok(flow) = Flow::from_json(&text) {
            let _ = flow::check(&flow);
        }
    }
}

#[test]
fn arbitrary_json_shapes_parse_or_fail_cleanly() {
    let cases = [
        json!({"nodes": [{"id": 1, "type": "menu", "data": {"arrayOption": "x"}}]}),
        json!({"nodes": [{"id": "a", "type": "menu", "data": {"arrayOption": [1, 2]}}]}),
        json!({"nodes": [{"id": "a", "type": "content", "data": {"elements": [null]}}]}),
        json!({"nodes": [{"id": "a", "type": "interval", "data": {"sec": 1e300}}]}),
        json!({"nodes": [{"id": "a", "type": "ticket", "data": {"queue": [1]}}]}),
        json!({"nodes": null, "connections": null}),
        json!({"nodes": [{"id": "a", "type": "start", "data": "text", "position": null}]}),
    ];
    for case in cases {
        if let Ok(flow) = Flow::from_json(&case.to_string()) {
            let _ = flow::check(&flow);
            let _ = flow::simulate(&flow, 1, Default::default(), &["1".to_owned()]);
        }
    }
}
