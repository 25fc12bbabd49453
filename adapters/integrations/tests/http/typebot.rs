//! `HttpTypebot` against a fake Typebot viewer.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use chatflow_core::ErrorCode;
use chatflow_core::integrations::{TypebotClient, TypebotContinue, TypebotOutput, TypebotStart};
use chatflow_integrations::{HttpOptions, HttpTypebot};
use serde_json::{Value, json};

use crate::fake::{Fake, Reply, fast_options};

const SESSION: &str = "cm3x7k2p10001abcd9e8f7g6h";

/// What Typebot's `startChat` answers for a published bot: a greeting in rich text, an image,
/// an embed (skipped), and the input it waits for.
fn start_answer() -> Value {
    json!({
        "sessionId": SESSION,
        "resultId": "cm3x7k2p20002ijkl5m4n3o2p",
        "typebot": {
            "id": "cm3x6a1b20000qrst1u2v3w4x",
            "version": "6",
            "theme": {"general": {"font": "Open Sans"}},
            "settings": {"general": {"isBrandingEnabled": false}}
        },
        "messages": [
            {"id": "b1", "type": "text", "content": {"type": "richText", "richText": [
                {"type": "p", "children": [
                    {"text": "Olá, "},
                    {"text": "Maria", "bold": true},
                    {"text": "! Bem-vinda à "},
                    {"text": "Loja Azul", "italic": true},
                    {"text": "."}
                ]},
                {"type": "p", "children": [{"text": "Escolha uma opção:"}]}
            ]}},
            {"id": "b2", "type": "image", "content": {
                "url": "https://s3.typebot.io/public/workspaces/w1/typebots/t1/blocks/b2/logo.png",
                "clickLink": {"url": "https://loja.example"}
            }},
            {"id": "b3", "type": "embed", "content": {"url": "https://maps.example/embed", "height": 400}}
        ],
        "input": {"id": "i1", "type": "choice input", "items": [
            {"id": "c1", "content": "Pedidos"}, {"id": "c2", "content": "Falar com atendente"}
        ]},
        "dynamicTheme": {},
        "logs": []
    })
}

fn continue_answer() -> Value {
    json!({
        "messages": [
            {"id": "b4", "type": "text", "content": {"type": "richText", "richText": [
                {"type": "p", "children": [{"text": "Ouça nosso recado:"}]}
            ]}},
            {"id": "b5", "type": "audio", "content": {"url": "https://s3.typebot.io/public/a/recado.mp3"}},
            {"id": "b6", "type": "video", "content": {"type": "url", "url": "https://cdn.example/tour.mp4"}}
        ],
        "input": {"id": "i2", "type": "text input", "options": {"labels": {"placeholder": "Digite..."}}},
        "lastMessageNewFormat": null
    })
}

fn variables() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("name".to_owned(), "Maria".to_owned()),
        ("number".to_owned(), "5511987654321".to_owned()),
    ])
}

fn typebot() -> HttpTypebot {
    HttpTypebot::new(fast_options()).expect("a client")
}

#[tokio::test]
async fn start_chat_sends_the_variables_and_reads_the_bubbles() {
    let fake = Fake::start(|_, _| Reply::json(200, start_answer())).await;
    let reply = typebot()
        .start(&TypebotStart {
            base_url: format!("{}/", fake.base),
            slug: "atendimento-loja-azul".into(),
            variables: variables(),
        })
        .await
        .expect("started");
    assert_eq!(reply.session_id, SESSION);
    assert_eq!(
        reply.messages,
        [
            TypebotOutput::Text(
                "Olá, *Maria*! Bem-vinda à _Loja Azul_.\nEscolha uma opção:".into()
            ),
            TypebotOutput::Image {
                url: "https://s3.typebot.io/public/workspaces/w1/typebots/t1/blocks/b2/logo.png"
                    .into()
            },
            // The choice input the bot waits for, as its options.
            TypebotOutput::Text("- Pedidos\n- Falar com atendente".into()),
        ]
    );

    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(
        seen[0].path,
        "/api/v1/typebots/atendimento-loja-azul/startChat"
    );
    assert_eq!(
        seen[0].authorization, None,
        "a published bot needs no token"
    );
    assert_eq!(seen[0].content_type.as_deref(), Some("application/json"));
    assert_eq!(
        seen[0].body,
        json!({
            "isStreamEnabled": false,
            "isOnlyRegistering": false,
            "prefilledVariables": {"name": "Maria", "number": "5511987654321"},
            "textBubbleContentFormat": "richText"
        })
    );
}

#[tokio::test]
async fn continue_chat_sends_the_text_to_the_session() {
    let fake = Fake::start(|_, _| Reply::json(200, continue_answer())).await;
    let reply = typebot()
        .continue_chat(&TypebotContinue {
            base_url: format!("{}/viewer", fake.base),
            session_id: SESSION.into(),
            message: "Pedidos".into(),
        })
        .await
        .expect("continued");
    assert_eq!(reply.session_id, SESSION);
    assert_eq!(
        reply.messages,
        [
            TypebotOutput::Text("Ouça nosso recado:".into()),
            TypebotOutput::Audio {
                url: "https://s3.typebot.io/public/a/recado.mp3".into()
            },
            TypebotOutput::Video {
                url: "https://cdn.example/tour.mp4".into()
            },
        ]
    );
    let seen = fake.seen();
    assert_eq!(
        seen[0].path,
        format!("/viewer/api/v1/sessions/{SESSION}/continueChat")
    );
    assert_eq!(
        seen[0].body,
        json!({"message": {"type": "text", "text": "Pedidos"}, "textBubbleContentFormat": "richText"})
    );
}

#[tokio::test]
async fn a_503_is_retried_then_the_chat_starts() {
    let fake = Fake::start(|n, _| {
        if n == 0 {
            Reply::raw(
                503,
                "text/html",
                "<html><body>502 Bad Gateway</body></html>",
            )
        } else {
            Reply::json(200, start_answer())
        }
    })
    .await;
    let reply = typebot()
        .start(&TypebotStart {
            base_url: fake.base.clone(),
            slug: "atendimento-loja-azul".into(),
            variables: BTreeMap::new(),
        })
        .await
        .expect("started after a retry");
    assert_eq!(reply.session_id, SESSION);
    assert_eq!(fake.calls(), 2);
    assert_eq!(
        fake.seen()[0].body.get("prefilledVariables"),
        None,
        "no variables: none sent"
    );
}

#[tokio::test]
async fn an_unknown_session_fails_at_once() {
    let fake = Fake::start(|_, _| {
        Reply::json(
            404,
            json!({"message": "Session not found.", "code": "NOT_FOUND", "issues": []}),
        )
    })
    .await;
    let err = typebot()
        .continue_chat(&TypebotContinue {
            base_url: fake.base.clone(),
            session_id: "expired".into(),
            message: "oi".into(),
        })
        .await
        .expect_err("no such session");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert!(
        err.detail.as_deref().is_some_and(
            |d| d.contains("typebot at 127.0.0.1") && d.contains("HTTP 404 (NOT_FOUND)")
        ),
        "{err}"
    );
    assert_eq!(fake.calls(), 1);
}

#[tokio::test]
async fn a_slow_viewer_times_out() {
    let fake =
        Fake::start(|_, _| Reply::json(200, start_answer()).after(Duration::from_secs(3))).await;
    let client = HttpTypebot::new(HttpOptions {
        request_timeout: Duration::from_millis(300),
        ..fast_options()
    })
    .expect("client");
    let started = Instant::now();
    let err = client
        .start(&TypebotStart {
            base_url: fake.base.clone(),
            slug: "lento".into(),
            variables: BTreeMap::new(),
        })
        .await
        .expect_err("too slow");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("no answer in time")),
        "{err}"
    );
    assert_eq!(fake.calls(), 1);
}

#[tokio::test]
async fn malformed_answers_are_refused() {
    let fake = Fake::start(|n, _| match n {
        0 => Reply::raw(
            200,
            "application/json",
            "{\"sessionId\": \"abc\", \"messages\": [}",
        ),
        _ => Reply::json(200, json!({"messages": []})),
    })
    .await;
    let start = TypebotStart {
        base_url: fake.base.clone(),
        slug: "loja".into(),
        variables: BTreeMap::new(),
    };
    let err = typebot().start(&start).await.expect_err("malformed");
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("unreadable answer")),
        "{err}"
    );
    let err = typebot().start(&start).await.expect_err("no session");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("no sessionId")),
        "{err}"
    );
    assert_eq!(fake.calls(), 2);
}

#[tokio::test]
async fn slugs_and_sessions_stay_inside_their_path_segment() {
    let fake = Fake::start(|_, _| Reply::json(200, continue_answer())).await;
    typebot()
        .continue_chat(&TypebotContinue {
            base_url: fake.base.clone(),
            session_id: "../../admin?x=1".into(),
            message: "oi".into(),
        })
        .await
        .expect("answered");
    assert_eq!(
        fake.seen()[0].path,
        "/api/v1/sessions/..%2F..%2Fadmin%3Fx=1/continueChat"
    );
    let err = typebot()
        .start(&TypebotStart {
            base_url: fake.base.clone(),
            slug: "  ".into(),
            variables: BTreeMap::new(),
        })
        .await
        .expect_err("no slug");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert_eq!(fake.calls(), 1);
}
