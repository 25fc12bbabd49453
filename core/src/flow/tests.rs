//! Unit tests of the flow model, validation and interpreter.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::QueueId;

/// A flow from `(id, type, data)` nodes and `(source, target, handle)` connections.
fn flow(nodes: &[(&str, &str, Value)], edges: &[(&str, &str, Option<&str>)]) -> Flow {
    let nodes: Vec<Value> = nodes
        .iter()
        .map(|(id, kind, data)| json!({"id": id, "type": kind, "position": {"x": 0, "y": 0}, "data": data}))
        .collect();
    let connections: Vec<Value> = edges
        .iter()
        .map(|(s, t, h)| json!({"source": s, "target": t, "sourceHandle": h}))
        .collect();
    serde_json::from_value(json!({"nodes": nodes, "connections": connections})).expect("a flow")
}

fn start_node() -> (&'static str, &'static str, Value) {
    ("1", "start", json!({"label": "Inicio do fluxo"}))
}

fn no_vars() -> BTreeMap<String, String> {
    BTreeMap::new()
}

fn texts(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::SendText { text } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn end_reason(effects: &[Effect]) -> Option<EndReason> {
    effects.iter().find_map(|e| match e {
        Effect::End { reason } => Some(*reason),
        _ => None,
    })
}

fn msg(text: &str) -> Input {
    Input::Message {
        text: text.to_owned(),
    }
}

fn sample() -> Flow {
    Flow::from_json(include_str!(
        "../../../examples/flow-run/flows/welcome.json"
    ))
    .expect("the sample flow parses")
}

fn menu_flow() -> Flow {
    flow(
        &[
            start_node(),
            (
                "m",
                "menu",
                json!({"message": "Escolha:", "arrayOption": [
                    {"number": 1, "value": "Vendas"},
                    {"number": "2", "value": "Atendimento técnico"}
                ]}),
            ),
            ("v", "message", json!({"label": "vendas"})),
            ("s", "message", json!({"label": "suporte"})),
        ],
        &[
            ("1", "m", None),
            ("m", "v", Some("a1")),
            ("m", "s", Some("a2")),
        ],
    )
}

// ---- model ------------------------------------------------------------------------------------

#[test]
fn the_sample_flow_parses_round_trips_and_is_valid() {
    let f = sample();
    assert_eq!(f.nodes.len(), 8);
    assert_eq!(f.connections.len(), 7);
    assert_eq!(validate(&f), Ok(()));
    let again: Flow =
        serde_json::from_value(serde_json::to_value(&f).expect("serialises")).expect("parses");
    assert_eq!(again, f);
}

#[test]
fn unknown_fields_and_loose_types_are_tolerated_and_kept() {
    let text = r#"{"nodes":[{"id":"i","type":"interval","position":{"x":"1","y":2},
        "data":{"sec":"7","label":"Intervalo 7 seg.","color":"red"},"width":120,"selected":true}],
        "connections":[{"source":"i","target":"x","sourceHandle":null,"animated":true}]}"#;
    let f = Flow::from_json(text).expect("parses");
    let NodeData::Interval(d) = &f.nodes[0].data else {
        panic!("an interval")
    };
    assert_eq!(d.sec, Some(7));
    assert_eq!(f.nodes[0].position.x, 1.0);
    let back = serde_json::to_value(&f).expect("serialises");
    assert_eq!(back["nodes"][0]["width"], json!(120));
    assert_eq!(back["nodes"][0]["data"]["color"], json!("red"));
    assert_eq!(back["nodes"][0]["type"], json!("interval"));
    assert_eq!(back["connections"][0]["animated"], json!(true));
}

#[test]
fn broken_documents_are_refused_with_bad_request() {
    for text in [
        "",
        "[]",
        r#"{"nodes": 3}"#,
        r#"{"nodes":[{"type":"start"}]}"#,
    ] {
        let err = Flow::from_json(text).expect_err(text);
        assert_eq!(err.code, crate::ErrorCode::ERR_BAD_REQUEST, "{text}");
    }
    assert_eq!(Flow::from_json("{}").expect("empty flow"), Flow::default());
}

#[test]
fn content_elements_follow_seq_then_the_unlisted_ones() {
    let data: ContentData = serde_json::from_value(json!({
        "seq": ["b", "a", "zz", "a"],
        "elements": [
            {"type": "message", "value": "A", "number": "a"},
            {"type": "message", "value": "B", "number": "b"},
            {"type": "message", "value": "C", "number": "c"}
        ]
    }))
    .expect("content");
    let order: Vec<&str> = data.ordered().iter().map(|e| e.value.as_str()).collect();
    assert_eq!(order, ["B", "A", "C"]);
}

// ---- validation ---------------------------------------------------------------------------------

fn issues_of(f: &Flow) -> Vec<(Option<String>, FlowIssueCode, String)> {
    check(f)
        .into_iter()
        .map(|i| (i.node_id, i.code, i.message_pt))
        .collect()
}

/// Asserts that a flow made of a start node linked to `node` has exactly the issue `code` on
/// it, with the Portuguese `message`.
fn assert_single_issue(kind: &str, data: Value, code: FlowIssueCode, message: &str) {
    let f = flow(&[start_node(), ("n", kind, data)], &[("1", "n", None)]);
    assert_eq!(
        issues_of(&f),
        vec![(Some("n".to_owned()), code, message.to_owned())],
        "{kind}"
    );
    assert!(validate(&f).is_err());
}

#[test]
fn interval_zero_or_missing_needs_a_value() {
    assert_single_issue(
        "interval",
        json!({"sec": 0}),
        FlowIssueCode::IntervalMissing,
        "Adicione o valor de intervalo",
    );
    assert_single_issue(
        "interval",
        json!({}),
        FlowIssueCode::IntervalMissing,
        "Adicione o valor de intervalo",
    );
}

#[test]
fn interval_above_120_is_too_long() {
    assert_single_issue(
        "interval",
        json!({"sec": 121}),
        FlowIssueCode::IntervalTooLong,
        "Máximo de tempo atingido 120 segundos",
    );
    let ok = flow(
        &[start_node(), ("n", "interval", json!({"sec": 120}))],
        &[("1", "n", None)],
    );
    assert_eq!(validate(&ok), Ok(()));
}

#[test]
fn content_interval_must_be_1_to_120() {
    for value in ["0", "121", "x"] {
        assert_single_issue(
            "content",
            json!({"seq": ["i"], "elements": [{"type": "interval", "value": value, "number": "i"}]}),
            FlowIssueCode::ContentIntervalInvalid,
            "Intervalo não pode ser 0 ou maior que 120!",
        );
    }
}

#[test]
fn empty_texts_are_refused() {
    assert_single_issue(
        "message",
        json!({"label": "   "}),
        FlowIssueCode::EmptyMessage,
        "Campos de mensagem vazio!",
    );
    assert_single_issue(
        "content",
        json!({"elements": [{"type": "message", "value": ""}]}),
        FlowIssueCode::EmptyMessage,
        "Campos de mensagem vazio!",
    );
}

#[test]
fn empty_media_cards_are_refused() {
    for kind in ["img", "audio", "video"] {
        assert_single_issue(
            kind,
            json!({"url": ""}),
            FlowIssueCode::EmptyMedia,
            "Delete os cards vazios(Imagem, Audio e Video)",
        );
    }
    assert_single_issue(
        "content",
        json!({"elements": [{"type": "video", "value": ""}]}),
        FlowIssueCode::EmptyMedia,
        "Delete os cards vazios(Imagem, Audio e Video)",
    );
}

#[test]
fn ticket_needs_a_queue() {
    for data in [
        json!({}),
        json!({"queue": null}),
        json!({"queue": {"name": "x"}}),
    ] {
        assert_single_issue(
            "ticket",
            data,
            FlowIssueCode::TicketQueueMissing,
            "Adicione uma fila",
        );
    }
}

#[test]
fn question_needs_message_and_answer_key() {
    assert_single_issue(
        "question",
        json!({"typebotIntegration": {"message": "", "answerKey": "k"}}),
        FlowIssueCode::QuestionMessageMissing,
        "Adicione a mensagem da pergunta",
    );
    assert_single_issue(
        "question",
        json!({"typebotIntegration": {"message": "Idade?", "answerKey": " "}}),
        FlowIssueCode::QuestionAnswerKeyMissing,
        "Adicione a chave para salvar a resposta",
    );
}

#[test]
fn menu_needs_message_options_and_unique_numbers() {
    assert_single_issue(
        "menu",
        json!({"message": "", "arrayOption": [{"number": 1, "value": "a"}]}),
        FlowIssueCode::MenuMessageMissing,
        "Adicione a mensagem do menu",
    );
    assert_single_issue(
        "menu",
        json!({"message": "Escolha", "arrayOption": []}),
        FlowIssueCode::MenuWithoutOptions,
        "Adicione ao menos uma opção ao menu",
    );
    assert_single_issue(
        "menu",
        json!({"message": "Escolha", "arrayOption": [{"number": 1, "value": "a"}, {"number": 1, "value": "b"}]}),
        FlowIssueCode::MenuDuplicateOption,
        "Duas opções do menu têm o mesmo número",
    );
    assert_single_issue(
        "menu",
        json!({"message": "Escolha", "arrayOption": [{"value": "a"}]}),
        FlowIssueCode::MenuOptionInvalid,
        "Toda opção do menu precisa de número e texto",
    );
}

#[test]
fn randomizer_percent_is_0_to_100() {
    assert_single_issue(
        "randomizer",
        json!({"percent": 101}),
        FlowIssueCode::RandomizerPercentInvalid,
        "A porcentagem deve estar entre 0 e 100",
    );
    let ok = flow(
        &[start_node(), ("n", "randomizer", json!({"percent": 0}))],
        &[("1", "n", None)],
    );
    assert_eq!(validate(&ok), Ok(()));
}

#[test]
fn condition_needs_all_parts_and_a_known_operator() {
    assert_single_issue(
        "condition",
        json!({"key": "idade", "condition": ">", "value": ""}),
        FlowIssueCode::ConditionIncomplete,
        "Preencha a variável, a condição e o valor",
    );
    assert_single_issue(
        "condition",
        json!({"key": "idade", "condition": "~=", "value": "3"}),
        FlowIssueCode::ConditionUnknownOperator,
        "Condição desconhecida",
    );
    let unary = flow(
        &[
            start_node(),
            (
                "n",
                "condition",
                json!({"key": "{email}", "condition": "not_empty", "value": ""}),
            ),
        ],
        &[("1", "n", None)],
    );
    assert_eq!(validate(&unary), Ok(()));
}

#[test]
fn unknown_node_types_are_errors() {
    assert_single_issue(
        "teleport",
        json!({}),
        FlowIssueCode::UnknownNodeType,
        "Tipo de nó desconhecido",
    );
}

#[test]
fn exactly_one_start_is_required() {
    let none = flow(&[("m", "message", json!({"label": "oi"}))], &[]);
    assert_eq!(
        issues_of(&none),
        vec![(
            None,
            FlowIssueCode::MissingStart,
            "Adicione um nó de início ao fluxo".to_owned()
        )]
    );
    let two = flow(&[start_node(), ("2", "start", json!({}))], &[]);
    assert_eq!(
        issues_of(&two),
        vec![(
            Some("2".to_owned()),
            FlowIssueCode::MultipleStarts,
            "O fluxo só pode ter um nó de início".to_owned()
        )]
    );
}

#[test]
fn connections_must_point_at_existing_nodes() {
    let f = flow(&[start_node()], &[("1", "ghost", None)]);
    let codes: Vec<FlowIssueCode> = check(&f).iter().map(|i| i.code).collect();
    assert_eq!(codes, [FlowIssueCode::DanglingConnection]);
    assert_eq!(
        check(&f)[0].message_pt,
        "Conexão ligada a um nó que não existe"
    );
    assert!(validate(&f).is_err());
}

#[test]
fn duplicate_node_ids_are_errors() {
    let f = flow(
        &[
            start_node(),
            ("m", "message", json!({"label": "a"})),
            ("m", "message", json!({"label": "b"})),
        ],
        &[("1", "m", None)],
    );
    let codes: Vec<FlowIssueCode> = check(&f).iter().map(|i| i.code).collect();
    assert_eq!(codes, [FlowIssueCode::DuplicateNodeId]);
}

#[test]
fn unreachable_nodes_and_extra_exits_are_warnings_only() {
    let f = flow(
        &[
            start_node(),
            ("a", "message", json!({"label": "a"})),
            ("b", "message", json!({"label": "b"})),
            ("orphan", "message", json!({"label": "c"})),
        ],
        &[("1", "a", None), ("1", "b", None)],
    );
    let issues = check(&f);
    let codes: Vec<(FlowIssueCode, Severity)> =
        issues.iter().map(|i| (i.code, i.severity)).collect();
    assert_eq!(
        codes,
        [
            (FlowIssueCode::MultipleOutgoing, Severity::Warning),
            (FlowIssueCode::UnreachableNode, Severity::Warning)
        ]
    );
    assert_eq!(issues[1].node_id.as_deref(), Some("orphan"));
    assert_eq!(validate(&f), Ok(()));
}

#[test]
fn size_limits_are_enforced() {
    let mut nodes = vec![start_node()];
    let many: Vec<(String, Value)> = (0..MAX_NODES)
        .map(|i| (format!("n{i}"), json!({"label": "x"})))
        .collect();
    for (id, data) in &many {
        nodes.push((id.as_str(), "message", data.clone()));
    }
    let f = flow(&nodes, &[]);
    assert!(
        check(&f)
            .iter()
            .any(|i| i.code == FlowIssueCode::TooManyNodes)
    );

    let edges: Vec<(&str, &str, Option<&str>)> =
        (0..=MAX_CONNECTIONS).map(|_| ("1", "1", None)).collect();
    let f = flow(&[start_node()], &edges);
    assert!(
        check(&f)
            .iter()
            .any(|i| i.code == FlowIssueCode::TooManyConnections)
    );

    let long = "x".repeat(MAX_TEXT_CHARS + 1);
    assert_single_issue(
        "message",
        json!({"label": long}),
        FlowIssueCode::TextTooLong,
        "Texto longo demais (máximo 4096 caracteres)",
    );
}

#[test]
fn issues_serialise_with_snake_case_codes() {
    let issue = FlowIssue::new(Some("n"), FlowIssueCode::TicketQueueMissing);
    assert_eq!(
        serde_json::to_value(&issue).expect("serialises"),
        json!({"nodeId": "n", "code": "ticket_queue_missing", "severity": "error", "messagePt": "Adicione uma fila"})
    );
}

// ---- interpreter: node types -------------------------------------------------------------------

#[test]
fn start_and_message_send_text_then_complete() {
    let f = flow(
        &[
            start_node(),
            ("m", "message", json!({"label": "Olá {nome}!"})),
        ],
        &[("1", "m", None)],
    );
    let vars = BTreeMap::from([("name".to_owned(), "Maria".to_owned())]);
    let s = start(&f, 1, vars);
    assert_eq!(
        s.effects,
        vec![
            Effect::EnterNode {
                node_id: "1".into(),
                kind: "start".into()
            },
            Effect::EnterNode {
                node_id: "m".into(),
                kind: "message".into()
            },
            Effect::SendText {
                text: "Olá Maria!".into()
            },
            Effect::End {
                reason: EndReason::Completed
            },
        ]
    );
    assert_eq!(s.state.visited, ["1", "m"]);
    assert_eq!(s.state.finished, Some(EndReason::Completed));
}

#[test]
fn a_flow_without_start_ends_at_once() {
    let f = flow(&[("m", "message", json!({"label": "x"}))], &[]);
    let s = start(&f, 0, no_vars());
    assert_eq!(
        s.effects,
        vec![Effect::End {
            reason: EndReason::NoStart
        }]
    );
}

#[test]
fn media_nodes_send_their_files() {
    let f = flow(
        &[
            start_node(),
            ("i", "img", json!({"url": "foto.png"})),
            ("a", "audio", json!({"url": "voz.ogg", "record": true})),
            ("v", "video", json!({"url": "filme.mp4", "record": true})),
        ],
        &[("1", "i", None), ("i", "a", None), ("a", "v", None)],
    );
    let media: Vec<Effect> = start(&f, 0, no_vars())
        .effects
        .into_iter()
        .filter(|e| matches!(e, Effect::SendMedia { .. }))
        .collect();
    assert_eq!(
        media,
        vec![
            Effect::SendMedia {
                kind: MediaKind::Image,
                url: "foto.png".into(),
                name: None,
                record: false
            },
            Effect::SendMedia {
                kind: MediaKind::Audio,
                url: "voz.ogg".into(),
                name: None,
                record: true
            },
            Effect::SendMedia {
                kind: MediaKind::Video,
                url: "filme.mp4".into(),
                name: None,
                record: false
            },
        ]
    );
}

#[test]
fn interval_waits_then_continues_on_its_timer_only() {
    let f = flow(
        &[
            start_node(),
            ("w", "interval", json!({"sec": 5})),
            ("m", "message", json!({"label": "depois"})),
        ],
        &[("1", "w", None), ("w", "m", None)],
    );
    let s = start(&f, 0, no_vars());
    assert_eq!(
        s.effects.last(),
        Some(&Effect::Wait {
            seconds: 5,
            timer: 0
        })
    );
    let s2 = step(&f, s.state.clone(), msg("oi"));
    assert_eq!(
        s2.effects,
        vec![Effect::Ignored {
            reason: IgnoreReason::WaitingForTimer
        }]
    );
    assert_eq!(s2.state, s.state);
    let stale = step(&f, s.state.clone(), Input::TimerFired { timer: Some(9) });
    assert_eq!(
        stale.effects,
        vec![Effect::Ignored {
            reason: IgnoreReason::StaleTimer
        }]
    );
    let s3 = step(&f, s.state, Input::TimerFired { timer: Some(0) });
    assert_eq!(texts(&s3.effects), ["depois"]);
    assert_eq!(end_reason(&s3.effects), Some(EndReason::Completed));
    let again = step(&f, s3.state, Input::TimerFired { timer: Some(0) });
    assert_eq!(
        again.effects,
        vec![Effect::Ignored {
            reason: IgnoreReason::Finished
        }]
    );
}

#[test]
fn menu_lists_options_and_follows_the_chosen_handle() {
    let f = menu_flow();
    let s = start(&f, 0, no_vars());
    assert_eq!(
        texts(&s.effects),
        ["Escolha:\n[1] Vendas\n[2] Atendimento técnico"]
    );
    assert_eq!(s.effects.last(), Some(&Effect::Ask { variable: None }));
    let chosen = step(&f, s.state, msg(" 2 "));
    assert_eq!(texts(&chosen.effects), ["suporte"]);
}

#[test]
fn menu_matches_by_number_or_text_ignoring_case_and_accents() {
    let f = menu_flow();
    let NodeData::Menu(menu) = &f.nodes[1].data else {
        panic!("a menu")
    };
    assert_eq!(match_option(menu, "1"), Some(1));
    assert_eq!(match_option(menu, "[2]"), Some(2));
    assert_eq!(match_option(menu, "2."), Some(2));
    assert_eq!(match_option(menu, "  vendas "), Some(1));
    assert_eq!(match_option(menu, "ATENDIMENTO TECNICO"), Some(2));
    assert_eq!(match_option(menu, "3"), None);
    assert_eq!(match_option(menu, "venda"), None);
    assert_eq!(match_option(menu, ""), None);
}

#[test]
fn three_invalid_menu_replies_end_the_run() {
    let f = menu_flow();
    let mut state = start(&f, 0, no_vars()).state;
    for attempt in 1..=2 {
        let s = step(&f, state, msg("banana"));
        assert_eq!(s.effects[0], Effect::InvalidReply { attempts: attempt });
        assert_eq!(texts(&s.effects).len(), 1, "the menu is repeated");
        assert!(s.state.finished.is_none());
        state = s.state;
    }
    let s = step(&f, state, msg("banana"));
    assert_eq!(
        s.effects,
        vec![
            Effect::InvalidReply { attempts: 3 },
            Effect::End {
                reason: EndReason::InvalidAnswers
            }
        ]
    );
}

#[test]
fn a_valid_reply_resets_the_invalid_count() {
    let f = flow(
        &[
            start_node(),
            (
                "m",
                "menu",
                json!({"message": "?", "arrayOption": [{"number": 1, "value": "de novo"}]}),
            ),
        ],
        &[("1", "m", None), ("m", "m", Some("a1"))],
    );
    let mut state = start(&f, 0, no_vars()).state;
    for reply in ["x", "x", "1", "x", "x"] {
        state = step(&f, state, msg(reply)).state;
    }
    assert!(state.finished.is_none());
    assert_eq!(state.invalid_replies, 2);
}

#[test]
fn an_option_without_a_connection_completes_the_run() {
    let f = flow(
        &[
            start_node(),
            (
                "m",
                "menu",
                json!({"message": "?", "arrayOption": [{"number": 1, "value": "a"}]}),
            ),
        ],
        &[("1", "m", None)],
    );
    let s = start(&f, 0, no_vars());
    let s = step(&f, s.state, msg("1"));
    assert_eq!(end_reason(&s.effects), Some(EndReason::Completed));
}

#[test]
fn question_stores_the_reply_and_substitutes_it_later() {
    let f = flow(
        &[
            start_node(),
            (
                "q",
                "question",
                json!({"typebotIntegration": {"message": "Sua cidade, {firstName}?", "answerKey": "cidade"}}),
            ),
            (
                "m",
                "message",
                json!({"label": "Moramos em {cidade} também!"}),
            ),
        ],
        &[("1", "q", None), ("q", "m", None)],
    );
    let vars = BTreeMap::from([("name".to_owned(), "Ana Souza".to_owned())]);
    let s = start(&f, 0, vars);
    assert_eq!(texts(&s.effects), ["Sua cidade, Ana?"]);
    assert_eq!(
        s.effects.last(),
        Some(&Effect::Ask {
            variable: Some("cidade".into())
        })
    );
    let empty = step(&f, s.state.clone(), msg("   "));
    assert_eq!(empty.effects[0], Effect::InvalidReply { attempts: 1 });
    let s = step(&f, s.state, msg("  Recife "));
    assert_eq!(
        s.effects[0],
        Effect::SetVariable {
            key: "cidade".into(),
            value: "Recife".into()
        }
    );
    assert_eq!(texts(&s.effects), ["Moramos em Recife também!"]);
    assert_eq!(
        s.state.vars.get("cidade").map(String::as_str),
        Some("Recife")
    );
}

#[test]
fn a_flat_question_is_read_too() {
    let f = flow(
        &[
            start_node(),
            (
                "q",
                "question",
                json!({"message": "Idade?", "answerKey": "{idade}"}),
            ),
        ],
        &[("1", "q", None)],
    );
    assert_eq!(validate(&f), Ok(()));
    let s = start(&f, 0, no_vars());
    assert_eq!(
        s.effects.last(),
        Some(&Effect::Ask {
            variable: Some("idade".into())
        })
    );
}

#[test]
fn content_sends_elements_in_seq_order_pausing_at_intervals() {
    let f = flow(
        &[
            start_node(),
            (
                "c",
                "content",
                json!({
                    "seq": ["message0", "interval1", "img2", "audio3"],
                    "elements": [
                        {"type": "audio", "value": "a.ogg", "original": "bom dia.ogg", "number": "audio3", "record": true},
                        {"type": "img", "value": "f.png", "original": "foto.png", "number": "img2"},
                        {"type": "interval", "value": "3", "number": "interval1"},
                        {"type": "message", "value": "Olá {nome}", "number": "message0"}
                    ]
                }),
            ),
            ("fim", "message", json!({"label": "fim"})),
        ],
        &[("1", "c", None), ("c", "fim", None)],
    );
    let vars = BTreeMap::from([("nome".to_owned(), "Rui".to_owned())]);
    let s = start(&f, 0, vars);
    assert_eq!(texts(&s.effects), ["Olá Rui"]);
    assert_eq!(
        s.effects.last(),
        Some(&Effect::Wait {
            seconds: 3,
            timer: 0
        })
    );
    let s = step(&f, s.state, Input::TimerFired { timer: None });
    assert_eq!(
        s.effects,
        vec![
            Effect::SendMedia {
                kind: MediaKind::Image,
                url: "f.png".into(),
                name: Some("foto.png".into()),
                record: false
            },
            Effect::SendMedia {
                kind: MediaKind::Audio,
                url: "a.ogg".into(),
                name: Some("bom dia.ogg".into()),
                record: true
            },
            Effect::EnterNode {
                node_id: "fim".into(),
                kind: "message".into()
            },
            Effect::SendText { text: "fim".into() },
            Effect::End {
                reason: EndReason::Completed
            },
        ]
    );
}

#[test]
fn a_single_block_with_elements_runs_like_content() {
    let f = flow(
        &[
            start_node(),
            (
                "b",
                "singleBlock",
                json!({"elements": [{"type": "message", "value": "bloco", "number": "m"}], "seq": ["m"]}),
            ),
        ],
        &[("1", "b", None)],
    );
    assert_eq!(texts(&start(&f, 0, no_vars()).effects), ["bloco"]);
}

#[test]
fn randomizer_is_deterministic_from_the_seed_and_respects_extremes() {
    let build = |percent: i64| {
        flow(
            &[
                start_node(),
                ("r", "randomizer", json!({"percent": percent})),
                ("a", "message", json!({"label": "A"})),
                ("b", "message", json!({"label": "B"})),
            ],
            &[
                ("1", "r", None),
                ("r", "a", Some("a")),
                ("r", "b", Some("b")),
            ],
        )
    };
    assert_eq!(texts(&start(&build(100), 7, no_vars()).effects), ["A"]);
    assert_eq!(texts(&start(&build(0), 7, no_vars()).effects), ["B"]);
    let half = build(50);
    let picks: Vec<Vec<String>> = (0..200)
        .map(|seed| texts(&start(&half, seed, no_vars()).effects))
        .collect();
    let again: Vec<Vec<String>> = (0..200)
        .map(|seed| texts(&start(&half, seed, no_vars()).effects))
        .collect();
    assert_eq!(picks, again);
    let a = picks.iter().filter(|p| p[0] == "A").count();
    assert!((60..=140).contains(&a), "about half take A, got {a}");
}

#[test]
fn successive_draws_of_one_run_differ_by_stream() {
    // A randomizer in a loop through a menu: the draw counter advances per draw.
    let f = flow(
        &[
            start_node(),
            ("r", "randomizer", json!({"percent": 50})),
            ("a", "message", json!({"label": "A"})),
            ("b", "message", json!({"label": "B"})),
            (
                "m",
                "menu",
                json!({"message": "?", "arrayOption": [{"number": 1, "value": "mais"}]}),
            ),
        ],
        &[
            ("1", "r", None),
            ("r", "a", Some("a")),
            ("r", "b", Some("b")),
            ("a", "m", None),
            ("b", "m", None),
            ("m", "r", Some("a1")),
        ],
    );
    let mut s = start(&f, 42, no_vars());
    let mut seen = vec![texts(&s.effects)[0].clone()];
    for _ in 0..30 {
        s = step(&f, s.state, msg("1"));
        seen.push(texts(&s.effects)[0].clone());
    }
    assert_eq!(s.state.draws, 31);
    assert!(seen.iter().any(|t| t == "A") && seen.iter().any(|t| t == "B"));
}

#[test]
fn condition_operators_compare_texts_and_numbers() {
    let cases = [
        ("==", "Maria", "maria", true),
        ("==", "São Paulo", "sao paulo", true),
        ("==", "10", "10.0", true),
        ("=", "a", "b", false),
        ("!=", "a", "b", true),
        ("!=", "5", "5,0", false),
        ("contains", "Quero comprar", "COMPRA", true),
        ("not_contains", "Quero comprar", "vender", true),
        ("starts_with", "Olá mundo", "ola", true),
        ("ends_with", "Olá mundo", "MUNDO", true),
        (">", "10", "9", true),
        (">", "10", "abc", false),
        ("<", "2,5", "3", true),
        (">=", "3", "3", true),
        ("<=", "4", "3", false),
        ("gt", "100", "99.5", true),
        ("empty", "  ", "", true),
        ("not_empty", "x", "", true),
    ];
    for (op, left, right, expected) in cases {
        let operator = Operator::parse(op).expect(op);
        assert_eq!(
            operator.evaluate(left, right),
            expected,
            "{left} {op} {right}"
        );
    }
    assert_eq!(Operator::parse("~"), None);
}

#[test]
fn condition_node_branches_on_a_variable() {
    let f = flow(
        &[
            start_node(),
            (
                "c",
                "condition",
                json!({"key": "{idade}", "condition": ">=", "value": "18"}),
            ),
            ("a", "message", json!({"label": "adulto"})),
            ("b", "message", json!({"label": "menor"})),
        ],
        &[
            ("1", "c", None),
            ("c", "a", Some("a")),
            ("c", "b", Some("b")),
        ],
    );
    let with = |age: &str| {
        let vars = BTreeMap::from([("idade".to_owned(), age.to_owned())]);
        texts(&start(&f, 0, vars).effects)
    };
    assert_eq!(with("18"), ["adulto"]);
    assert_eq!(with("17"), ["menor"]);
    assert_eq!(texts(&start(&f, 0, no_vars()).effects), ["menor"]);
}

#[test]
fn ticket_moves_to_the_queue_and_ends() {
    for queue in [json!(3), json!("3"), json!({"id": 3, "name": "Financeiro"})] {
        let f = flow(
            &[start_node(), ("t", "ticket", json!({ "queue": queue }))],
            &[("1", "t", None)],
        );
        let effects = start(&f, 0, no_vars()).effects;
        let moved = effects.iter().find_map(|e| match e {
            Effect::MoveToQueue { queue_id, .. } => Some(*queue_id),
            _ => None,
        });
        assert_eq!(moved, Some(QueueId(3)));
        assert_eq!(end_reason(&effects), Some(EndReason::MovedToQueue));
    }
    let f = flow(
        &[start_node(), ("t", "ticket", json!({}))],
        &[("1", "t", None)],
    );
    assert_eq!(
        end_reason(&start(&f, 0, no_vars()).effects),
        Some(EndReason::InvalidNode)
    );
}

#[test]
fn typebot_and_openai_hand_off_without_leaking_the_key() {
    let f = flow(
        &[
            start_node(),
            (
                "t",
                "typebot",
                json!({"typebotIntegration": {"id": 4, "name": "bot"}}),
            ),
        ],
        &[("1", "t", None)],
    );
    let effects = start(&f, 0, no_vars()).effects;
    assert!(effects.contains(&Effect::StartTypebot {
        node_id: "t".into(),
        integration: json!({"id": 4, "name": "bot"})
    }));
    assert_eq!(end_reason(&effects), Some(EndReason::HandedOff));

    let f = flow(
        &[
            start_node(),
            (
                "o",
                "openai",
                json!({"name": "Assistente", "prompt": "Seja gentil", "apiKey": "sk-secret", "queueId": 2}),
            ),
        ],
        &[("1", "o", None)],
    );
    let effects = start(&f, 0, no_vars()).effects;
    assert!(effects.contains(&Effect::StartOpenAi {
        node_id: "o".into(),
        name: "Assistente".into(),
        prompt: "Seja gentil".into(),
        voice: String::new(),
        max_tokens: 100,
        temperature: 1.0,
        max_messages: 10,
        queue_id: Some(QueueId(2)),
    }));
    let json = serde_json::to_string(&effects).expect("serialises");
    assert!(!json.contains("sk-secret"));
    assert_eq!(end_reason(&effects), Some(EndReason::HandedOff));
}

#[test]
fn a_cycle_without_waits_ends_on_the_step_budget() {
    let f = flow(
        &[
            start_node(),
            ("a", "message", json!({"label": "a"})),
            ("b", "message", json!({"label": "b"})),
        ],
        &[("1", "a", None), ("a", "b", None), ("b", "a", None)],
    );
    let s = start(&f, 0, no_vars());
    assert_eq!(end_reason(&s.effects), Some(EndReason::StepBudget));
    assert_eq!(s.state.steps, u64::from(STEP_BUDGET));
    assert_eq!(s.state.visited.len(), MAX_VISITED);
}

#[test]
fn a_connection_to_a_missing_node_ends_the_run() {
    let f = flow(&[start_node()], &[("1", "ghost", None)]);
    assert_eq!(
        end_reason(&start(&f, 0, no_vars()).effects),
        Some(EndReason::MissingNode)
    );
}

#[test]
fn inputs_before_start_or_after_the_end_are_ignored() {
    let f = menu_flow();
    let s = step(&f, RunState::default(), msg("1"));
    assert_eq!(
        s.effects,
        vec![Effect::Ignored {
            reason: IgnoreReason::NotStarted
        }]
    );
    let waiting = start(&f, 0, no_vars()).state;
    let s = step(&f, waiting, Input::TimerFired { timer: None });
    assert_eq!(
        s.effects,
        vec![Effect::Ignored {
            reason: IgnoreReason::WaitingForReply
        }]
    );
}

#[test]
fn state_and_inputs_round_trip_through_json_with_the_seed_as_text() {
    let f = sample();
    let s = start(&f, u64::MAX, no_vars());
    let json = serde_json::to_value(&s.state).expect("serialises");
    assert_eq!(json["seed"], json!(u64::MAX.to_string()));
    let back: RunState = serde_json::from_value(json).expect("parses");
    assert_eq!(back, s.state);
    let input: Input =
        serde_json::from_value(json!({"type": "start", "seed": "12", "vars": {"name": "Ana"}}))
            .expect("input");
    assert!(matches!(input, Input::Start { seed: 12, .. }));
    let input: Input = serde_json::from_value(json!({"type": "timerFired"})).expect("timer input");
    assert_eq!(input, Input::TimerFired { timer: None });
    assert_eq!(
        serde_json::to_value(Effect::SendText { text: "x".into() }).expect("effect"),
        json!({"type": "sendText", "text": "x"})
    );
}

// ---- simulation ---------------------------------------------------------------------------------

#[test]
fn the_sample_flow_simulates_both_branches() {
    let f = sample();
    let vars = BTreeMap::from([("name".to_owned(), "Maria Lima".to_owned())]);
    let sales = simulate(&f, 1, vars.clone(), &["1".into(), "maria@x.test".into()]);
    assert_eq!(sales.state.finished, Some(EndReason::MovedToQueue));
    let all: Vec<Effect> = sales
        .entries
        .iter()
        .flat_map(|e| e.effects.clone())
        .collect();
    assert_eq!(
        texts(&all),
        [
            "Olá Maria Lima! Bem-vindo à Acme.",
            "Como podemos ajudar?\n[1] Comprar\n[2] Suporte técnico",
            "Qual é o seu e-mail, Maria?"
        ]
    );
    assert!(all.contains(&Effect::Wait {
        seconds: 5,
        timer: 0
    }));
    assert!(all.contains(&Effect::MoveToQueue {
        queue_id: QueueId(1),
        queue_name: Some("Vendas".into())
    }));
    assert_eq!(
        sales.state.vars.get("emailContato").map(String::as_str),
        Some("maria@x.test")
    );
    assert_eq!(sales.entries.len(), 4, "start, menu reply, answer, timer");

    let support = simulate(&f, 1, vars, &["suporte tecnico".into(), "sobra".into()]);
    assert_eq!(support.state.finished, Some(EndReason::MovedToQueue));
    assert_eq!(support.unused_inputs, ["sobra"]);
    let text = support.to_text();
    assert!(text.contains("move to queue 2 (Suporte)"), "{text}");
    assert!(text.contains("(unused inputs: sobra)"), "{text}");

    let waiting = simulate(&f, 1, BTreeMap::new(), &[]);
    assert!(waiting.to_text().ends_with("(waiting for a reply)\n"));
}

#[test]
fn the_editor_operators_are_the_interpreters() {
    let limits = flow_limits();
    let parsed: Vec<Operator> = limits
        .condition_operators
        .iter()
        .map(|o| Operator::parse(o).unwrap_or_else(|| panic!("{o} is not an operator")))
        .collect();
    let distinct: std::collections::HashSet<_> = parsed.iter().map(|o| format!("{o:?}")).collect();
    assert_eq!(distinct.len(), parsed.len(), "each operator once");
    assert_eq!(limits.max_interval_seconds, MAX_INTERVAL_SECONDS);
    assert_eq!(limits.max_image_bytes, 2 * crate::limits::MIB);
}
