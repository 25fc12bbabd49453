//! A flow hands the conversation to an integration, on both engines, against local fake servers
//! of the real protocols: an `openai` node's assistant (OpenAI-compatible `/chat/completions`)
//! answers every message with the conversation as context until it asks for a human, and the
//! ticket moves to the node's queue; a `typebot` node's bot (Typebot's `startChat` /
//! `continueChat`) greets (with its choice input's options), chats, restarts and finishes on its
//! keywords; an assistant that
//! refuses the key hands the contact to the queue at once.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode as AxumStatus, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::automation::{
    configure_connection, published_flow, queue, received_when, say, ticket_when,
};
use crate::helpers::{Backend, TestApp};
use crate::tickets::{Inbox, inbound, inbox};

macro_rules! handoff_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::with_fake(crate::helpers::Backend::Sqlite, super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::with_fake(crate::helpers::Backend::Postgres, super::$name).await;
                }
            )*
        }
    };
}

handoff_tests!(
    the_assistant_answers_with_the_conversation_until_it_asks_for_a_human,
    typebot_greets_chats_restarts_and_finishes_on_its_keywords,
    an_assistant_that_refuses_the_key_hands_the_contact_to_the_queue,
    a_contact_waiting_on_the_assistant_does_not_hold_up_the_next_one,
    a_contact_waiting_on_the_assistant_does_not_hold_up_the_connection,
);

/// One request the fake received: its path, `Authorization` header and JSON body.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// A local server speaking the assistant's and Typebot's protocols, recording every request.
#[derive(Clone, Default)]
struct Fake {
    seen: Arc<Mutex<Vec<Seen>>>,
    base: String,
    /// Held by the assistant before it answers a last message containing "espera".
    gate: Arc<tokio::sync::Notify>,
}

impl Fake {
    fn seen(&self, path_part: &str) -> Vec<Seen> {
        self.seen
            .lock()
            .expect("the fake's log")
            .iter()
            .filter(|s| s.path.contains(path_part))
            .cloned()
            .collect()
    }

    fn record(&self, path: String, headers: &HeaderMap, body: Value) {
        self.seen.lock().expect("the fake's log").push(Seen {
            path,
            authorization: headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            body,
        });
    }
}

/// Starts the fake, then the server with its assistant pointed at the fake, then the test.
async fn with_fake<F, Fut>(backend: Backend, test: F)
where
    F: FnOnce(TestApp, Fake) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port for the fake");
    let fake = Fake {
        base: format!("http://{}", listener.local_addr().expect("bound")),
        ..Fake::default()
    };
    let router = Router::new()
        .route("/v1/chat/completions", post(completions))
        .route("/api/v1/typebots/{slug}/startChat", post(start_chat))
        .route(
            "/api/v1/sessions/{session}/continueChat",
            post(continue_chat),
        )
        .with_state(fake.clone());
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    let base = fake.base.clone();
    crate::helpers::run(
        backend,
        move |c| {
            c.sandbox = Some(true);
            c.openai_base_url = format!("{base}/v1");
        },
        move |app| test(app, fake),
    )
    .await;
    server.abort();
}

/// The assistant: `sk-bad` is refused (401 `invalid_api_key`); a last message asking for a
/// "humano" gets a goodbye and the transfer marker; anything else is echoed, a message with
/// "espera" only once the test opens the gate.
async fn completions(
    State(fake): State<Fake>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    fake.record("/v1/chat/completions".into(), &headers, body.clone());
    if headers
        .get(header::AUTHORIZATION)
        .is_some_and(|v| v.as_bytes() == b"Bearer sk-bad")
    {
        return (
            AxumStatus::UNAUTHORIZED,
            Json(json!({"error": {"message": "Incorrect API key", "code": "invalid_api_key"}})),
        )
            .into_response();
    }
    let last = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    if last.contains("espera") {
        fake.gate.notified().await;
    }
    let content = if last.contains("humano") {
        "Claro, vou transferir você.\nAção: Transferir para o setor de atendimento".to_owned()
    } else {
        format!("Assistente: {last}")
    };
    Json(json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}]
    }))
    .into_response()
}

/// Typebot's start: a new session (numbered by the starts so far) greeting the prefilled name in
/// bold, and an image bubble.
async fn start_chat(
    State(fake): State<Fake>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    fake.record(
        format!("/typebots/{slug}/startChat"),
        &headers,
        body.clone(),
    );
    let n = fake.seen("/startChat").len();
    let name = body["prefilledVariables"]["firstName"]
        .as_str()
        .unwrap_or("?")
        .to_owned();
    Json(json!({
        "sessionId": format!("sess-{n}"),
        "typebot": {"id": "tb1"},
        "messages": [
            {"id": "m1", "type": "text", "content": {"type": "richText", "richText": [
                {"type": "p", "children": [{"text": "Olá "}, {"text": name, "bold": true},
                                           {"text": ", sou o bot."}]}
            ]}},
            {"id": "m2", "type": "image", "content": {"url": "https://cdn.example.com/menu.png"}}
        ],
        "input": {"id": "i1", "type": "choice input", "items": [
            {"id": "c1", "content": "Bolos"}, {"id": "c2", "content": "Tortas"}
        ]}
    }))
}

/// Typebot's continue: echoes the text.
async fn continue_chat(
    State(fake): State<Fake>,
    Path(session): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    fake.record(
        format!("/sessions/{session}/continueChat"),
        &headers,
        body.clone(),
    );
    let text = body["message"]["text"].as_str().unwrap_or_default();
    Json(json!({
        "messages": [{"id": "r", "type": "text", "content": {"type": "richText", "richText": [
            {"type": "p", "children": [{"text": format!("[{session}] você disse: {text}")}]}
        ]}}]
    }))
}

/// start → message → openai node (`api_key`, handing over to `queue`).
fn assistant_graph(api_key: &str, queue: i64) -> Value {
    json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "hi", "type": "message", "position": {"x": 0, "y": 100},
             "data": {"label": "Vou chamar nossa assistente."}},
            {"id": "ai", "type": "openai", "position": {"x": 0, "y": 200},
             "data": {"typebotIntegration": {
                 "name": "Lia", "prompt": "Você é a assistente da Loja Azul.", "voice": "texto",
                 "apiKey": api_key, "maxTokens": 50, "temperature": 0.5, "maxMessages": 3,
                 "queueId": queue}}}
        ],
        "connections": [
            {"id": "e1", "source": "1", "target": "hi"},
            {"id": "e2", "source": "hi", "target": "ai"}
        ]
    })
}

/// Company "Alpha"'s inbox whose welcome flow hands new contacts to the assistant with
/// `api_key`, and the "Suporte" queue the assistant hands them to.
async fn assistant_inbox(app: &TestApp, api_key: &str) -> (Inbox, i64) {
    let a = inbox(app, "Alpha").await;
    let support = queue(app, &a, "Suporte", "#00ff00", "").await;
    let flow = published_flow(app, &a, "Assistente", assistant_graph(api_key, support)).await;
    configure_connection(app, &a, json!({"flowIdWelcome": flow})).await;
    (a, support)
}

async fn ticket_flags(app: &TestApp, inbox: &Inbox, number: &str) -> Value {
    ticket_when(app, inbox, number, |_| true).await
}

async fn the_assistant_answers_with_the_conversation_until_it_asks_for_a_human(
    app: TestApp,
    fake: Fake,
) {
    let (a, support) = assistant_inbox(&app, "sk-test-1").await;

    let maria = "5511987720001";
    say(&app, &a, maria, "oi").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 2).await;
    assert_eq!(got[0], "Vou chamar nossa assistente.");
    assert_eq!(got[1], "Assistente: oi");
    let first = fake.seen("/chat/completions");
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].authorization.as_deref(), Some("Bearer sk-test-1"));
    let body = &first[0].body;
    assert_eq!(body["max_tokens"], 50);
    assert_eq!(body["temperature"], 0.5);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "oi"})
    );
    let system = body["messages"][0]["content"].as_str().expect("system");
    assert!(
        system.starts_with("Você é a assistente da Loja Azul."),
        "{system}"
    );
    assert!(system.contains("Maria Souza"), "{system}");
    let held = ticket_flags(&app, &a, maria).await;
    assert_eq!(held["useIntegration"], true);
    assert_eq!(held["status"], "pending");
    assert_eq!(held["queueId"], Value::Null);

    // The next message is answered with the conversation as context: at most maxMessages (3)
    // turns, oldest first, ending with the contact's message (the first answer had only "oi":
    // the flow's own line after it is not what the assistant answers).
    say(&app, &a, maria, "qual o horário?").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 3).await;
    assert_eq!(got[2], "Assistente: qual o horário?");
    let second = fake.seen("/chat/completions");
    assert_eq!(second.len(), 2);
    let turns: Vec<(String, String)> = second[1].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .skip(1)
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        turns,
        vec![
            (
                "assistant".to_owned(),
                "Vou chamar nossa assistente.".to_owned()
            ),
            ("assistant".to_owned(), "Assistente: oi".to_owned()),
            ("user".to_owned(), "qual o horário?".to_owned()),
        ]
    );

    // Asking for a human: the goodbye is sent without the marker, the ticket enters the queue
    // and the assistant lets go.
    say(&app, &a, maria, "quero falar com um humano").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 4).await;
    assert_eq!(got[3], "Claro, vou transferir você.");
    let moved = ticket_when(&app, &a, maria, |t| t["queueId"] == support).await;
    assert_eq!(moved["useIntegration"], false);
    assert_eq!(moved["status"], "pending");

    // From then on the contact waits for a person: no more calls, nothing sent.
    say(&app, &a, maria, "alô?").await;
    app.inbound_settled().await;
    assert_eq!(fake.seen("/chat/completions").len(), 3);
    assert_eq!(received_when(&app, &a, maria, |_| true).await.len(), 4);

    // Another company's contacts never reach this company's assistant.
    let b = inbox(&app, "Beta").await;
    say(&app, &b, "5511987720009", "oi").await;
    app.inbound_settled().await;
    assert_eq!(fake.seen("/chat/completions").len(), 3);
}

async fn typebot_greets_chats_restarts_and_finishes_on_its_keywords(app: TestApp, fake: Fake) {
    let a = inbox(&app, "Alpha").await;
    let graph = json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "tb", "type": "typebot", "position": {"x": 0, "y": 100},
             "data": {"typebotIntegration": {
                 "name": "Vendas", "type": "typebot", "urlN8N": format!("{}/", fake.base),
                 "typebotSlug": "vendas-bot", "typebotExpires": 0,
                 "typebotKeywordFinish": "sair", "typebotKeywordRestart": "reiniciar",
                 "typebotRestartMessage": "Recomeçando…",
                 "typebotUnknownMessage": "Não entendi, escreva por favor."}}}
        ],
        "connections": [{"id": "e1", "source": "1", "target": "tb"}]
    });
    let flow = published_flow(&app, &a, "Typebot", graph).await;
    configure_connection(&app, &a, json!({"flowIdWelcome": flow})).await;

    let maria = "5511987730001";
    say(&app, &a, maria, "oi").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 3).await;
    assert_eq!(got[0], "Olá *Maria*, sou o bot.");
    assert_eq!(got[1], "https://cdn.example.com/menu.png");
    assert_eq!(got[2], "- Bolos\n- Tortas");
    let starts = fake.seen("/startChat");
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0].path, "/typebots/vendas-bot/startChat");
    let vars = &starts[0].body["prefilledVariables"];
    assert_eq!(vars["name"], "Maria Souza");
    assert_eq!(vars["number"], maria);
    assert_eq!(ticket_flags(&app, &a, maria).await["useIntegration"], true);

    say(&app, &a, maria, "quero um bolo").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 4).await;
    assert_eq!(got[3], "[sess-1] você disse: quero um bolo");
    let continued = fake.seen("/continueChat");
    assert_eq!(continued[0].path, "/sessions/sess-1/continueChat");
    assert_eq!(continued[0].body["message"]["text"], "quero um bolo");

    // The restart keyword: the restart message, then a new session greets again.
    say(&app, &a, maria, "Reiniciar").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 8).await;
    assert_eq!(got[4], "Recomeçando…");
    assert_eq!(got[5], "Olá *Maria*, sou o bot.");
    say(&app, &a, maria, "de novo").await;
    let got = received_when(&app, &a, maria, |m| m.len() >= 9).await;
    assert_eq!(got[8], "[sess-2] você disse: de novo");

    // The finish keyword ends the session: nothing is sent, later messages reach no bot.
    say(&app, &a, maria, "SAIR").await;
    let done = ticket_when(&app, &a, maria, |t| t["useIntegration"] == false).await;
    assert_eq!(done["status"], "pending");
    say(&app, &a, maria, "ainda aí?").await;
    app.inbound_settled().await;
    assert_eq!(fake.seen("/continueChat").len(), 2);
    assert_eq!(fake.seen("/startChat").len(), 2);
    assert_eq!(received_when(&app, &a, maria, |_| true).await.len(), 9);
}

async fn an_assistant_that_refuses_the_key_hands_the_contact_to_the_queue(
    app: TestApp,
    fake: Fake,
) {
    let (a, support) = assistant_inbox(&app, "sk-bad").await;

    let maria = "5511987740001";
    say(&app, &a, maria, "oi").await;
    let moved = ticket_when(&app, &a, maria, |t| t["queueId"] == support).await;
    assert_eq!(moved["useIntegration"], false);
    assert_eq!(moved["status"], "pending");
    // One attempt: a refused key is not retried.
    assert_eq!(fake.seen("/chat/completions").len(), 1);
    let got = received_when(&app, &a, maria, |m| !m.is_empty()).await;
    assert_eq!(got, vec!["Vou chamar nossa assistente.".to_owned()]);
    assert_eq!(
        app.get("/tickets?showAll=true", &a.admin).await.status(),
        StatusCode::OK
    );
}

/// Two new contacts' first messages handed over in one batch (a connection's backlog): while the
/// first waits on a slow assistant, the second is greeted and answered; one ticket's automation
/// does not hold up another's.
async fn a_contact_waiting_on_the_assistant_does_not_hold_up_the_next_one(
    app: TestApp,
    fake: Fake,
) {
    use chatflow_core::inbox::channel::{InboundEvent, Queued};

    let (a, _) = assistant_inbox(&app, "sk-test-2").await;

    let (ana, bia) = ("5511987720021", "5511987720022");
    let events = vec![
        Queued {
            event: InboundEvent::Message(inbound("slow-1", ana, "espera um pouco")),
            attempts: 1,
        },
        Queued {
            event: InboundEvent::Message(inbound("quick-1", bia, "oi")),
            attempts: 1,
        },
    ];
    let ports = app.ports.clone();
    let (scope, connection) = (
        chatflow_core::TenantScope::new(a.company),
        chatflow_core::WhatsappId(a.connection),
    );
    let batch = tokio::spawn(async move {
        chatflow_core::service::inbox::ingest::deliver_batch(&ports, scope, connection, events)
            .await
    });
    let got = received_when(&app, &a, bia, |m| m.len() >= 2).await;
    assert_eq!(got[1], "Assistente: oi", "answered while the other waits");
    assert!(
        !batch.is_finished(),
        "the first contact still waits on the assistant"
    );
    assert_eq!(
        received_when(&app, &a, ana, |m| !m.is_empty()).await,
        ["Vou chamar nossa assistente."]
    );

    fake.gate.notify_one();
    let done = batch.await.expect("the batch ran");
    assert!(done.failed.is_none(), "{:?}", done.failed);
    assert_eq!(done.handled.len(), 2);
    let got = received_when(&app, &a, ana, |m| m.len() >= 2).await;
    assert_eq!(got[1], "Assistente: espera um pouco");
}

/// On the server, the automation runs off the inbound path: a contact whose turn waits on the
/// assistant holds up neither the connection's next messages (a later batch) nor their answers.
async fn a_contact_waiting_on_the_assistant_does_not_hold_up_the_connection(
    app: TestApp,
    fake: Fake,
) {
    let (a, _) = assistant_inbox(&app, "sk-test-3").await;
    let (ana, bia) = ("5511987720031", "5511987720032");
    say(&app, &a, ana, "espera um pouco").await;
    // Ana's turn reached the assistant, which holds it until the gate opens.
    assert_eq!(
        received_when(&app, &a, ana, |m| !m.is_empty()).await,
        ["Vou chamar nossa assistente."]
    );
    say(&app, &a, bia, "oi").await;
    let got = received_when(&app, &a, bia, |m| m.len() >= 2).await;
    assert_eq!(got[1], "Assistente: oi", "answered while Ana's turn waits");
    assert!(
        !app.state.automation.idle(),
        "Ana's turn still waits on the assistant"
    );
    assert_eq!(received_when(&app, &a, ana, |_| true).await.len(), 1);

    fake.gate.notify_one();
    let got = received_when(&app, &a, ana, |m| m.len() >= 2).await;
    assert_eq!(got[1], "Assistente: espera um pouco");
}
