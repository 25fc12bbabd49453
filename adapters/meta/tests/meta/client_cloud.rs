//! Cloud API sends against the fake Graph server: the exact JSON it received, uploads,
//! retries and errors.

use chatflow_core::ErrorCode;
use chatflow_meta::fake::{FakeGraph, FakeSetup, Route, Scripted};
use chatflow_meta::graph::cloud::{
    CardOut, CloudAccount, CloudContent, CloudMessage, CloudSendError, ListRow, ListSection,
    MediaKind, MediaSource, Recipient, ReplyButton,
};
use chatflow_meta::graph::error::ErrorClass;
use serde_json::{Value, json};

use crate::client;

const TO: &str = "5511999990000";

fn to_phone(content: CloudContent) -> CloudMessage {
    CloudMessage {
        to: Recipient::Phone(TO.to_owned()),
        content,
        reply_to: None,
        idempotency_key: None,
    }
}

/// Sends and answers the JSON the fake received.
async fn sent_json(fake: &FakeGraph, message: &CloudMessage) -> (String, Value) {
    let sent = client(fake)
        .send_cloud(&fake.cloud_account(), message)
        .await
        .expect("sent");
    let calls = fake.calls_to(Route::CloudMessages);
    let last = calls.last().expect("a call");
    assert_eq!(last.status, 200);
    assert_eq!(
        last.authorization.as_deref(),
        Some(&*format!("Bearer {}", fake.setup().cloud_token))
    );
    assert_eq!(
        last.path,
        format!("/v25.0/{}/messages", fake.setup().phone_number_id)
    );
    (sent.id, last.json.clone().expect("a JSON body"))
}

#[tokio::test]
async fn a_text_reply_carries_its_context() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let message = CloudMessage {
        reply_to: Some("wamid.QUOTED".to_owned()),
        idempotency_key: Some("msg-42".to_owned()),
        ..to_phone(CloudContent::Text {
            body: "Temos azul e verde.".to_owned(),
            preview_url: false,
        })
    };
    let (id, body) = sent_json(&fake, &message).await;
    assert!(id.starts_with("wamid.FAKE"), "{id}");
    assert_eq!(
        body,
        json!({
            "messaging_product": "whatsapp",
            "recipient_type": "individual",
            "to": TO,
            "type": "text",
            "text": { "preview_url": false, "body": "Temos azul e verde." },
            "context": { "message_id": "wamid.QUOTED" },
            "biz_opaque_callback_data": "msg-42",
        })
    );
}

#[tokio::test]
async fn a_bsuid_is_sent_as_recipient() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let to = Recipient::parse("BR.9988776655443322").expect("a BSUID");
    assert_eq!(to, Recipient::Bsuid("BR.9988776655443322".to_owned()));
    let message = CloudMessage {
        to,
        ..to_phone(CloudContent::Text {
            body: "oi".to_owned(),
            preview_url: false,
        })
    };
    let (_, body) = sent_json(&fake, &message).await;
    assert_eq!(body["recipient"], "BR.9988776655443322");
    assert!(body.get("to").is_none());
    assert_eq!(
        Recipient::parse("+55 (11) 99999-0000").expect("a number"),
        Recipient::Phone(TO.to_owned())
    );
    for bad in ["", "abc", "br.123", "US.", "5511@lid"] {
        assert_eq!(
            Recipient::parse(bad).expect_err(bad).code,
            ErrorCode::ERR_WAPP_INVALID_CONTACT
        );
    }
}

#[tokio::test]
async fn a_file_is_uploaded_then_sent_by_its_id() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let client = client(&fake);
    let account = fake.cloud_account();
    let pdf = b"%PDF-1.7 fake invoice".to_vec();
    let id = client
        .upload_media(
            &account,
            pdf.clone(),
            "application/pdf",
            "fatura-novembro.pdf",
        )
        .await
        .expect("uploaded");
    let upload = fake.calls_to(Route::CloudMedia).pop().expect("the upload");
    assert_eq!(upload.status, 200);
    assert!(
        upload
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("multipart/form-data"))
    );
    let part = |name: &str| {
        upload
            .parts
            .iter()
            .find(|p| p.name == name)
            .expect(name)
            .clone()
    };
    assert_eq!(part("messaging_product").bytes, b"whatsapp");
    assert_eq!(part("type").bytes, b"application/pdf");
    let file = part("file");
    assert_eq!(file.bytes, pdf);
    assert_eq!(file.file_name.as_deref(), Some("fatura-novembro.pdf"));
    assert_eq!(file.content_type.as_deref(), Some("application/pdf"));
    assert_eq!(fake.uploaded(&id).map(|u| u.0), Some(pdf));

    let (_, body) = sent_json(
        &fake,
        &to_phone(CloudContent::Media {
            kind: MediaKind::Document,
            source: MediaSource::Id(id.clone()),
            caption: "Sua fatura".to_owned(),
            file_name: Some("fatura-novembro.pdf".to_owned()),
        }),
    )
    .await;
    assert_eq!(body["type"], "document");
    assert_eq!(
        body["document"],
        json!({ "id": id, "caption": "Sua fatura", "filename": "fatura-novembro.pdf" })
    );
}

#[tokio::test]
async fn an_unknown_media_id_is_refused_by_the_fake_and_not_retried() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let error = client(&fake)
        .send_cloud(
            &fake.cloud_account(),
            &to_phone(CloudContent::Media {
                kind: MediaKind::Image,
                source: MediaSource::Id("404404".to_owned()),
                caption: String::new(),
                file_name: None,
            }),
        )
        .await
        .expect_err("unknown media");
    let CloudSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.code, Some(131_053));
    assert_eq!(graph.class, ErrorClass::Permanent);
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), 1);
}

#[tokio::test]
async fn locations_contacts_reactions_and_read_marks() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let (_, location) = sent_json(
        &fake,
        &to_phone(CloudContent::Location {
            latitude: -23.561414,
            longitude: -46.655881,
            name: "Loja Azul".to_owned(),
            address: "Av. Paulista, 1578".to_owned(),
        }),
    )
    .await;
    assert_eq!(
        location["location"],
        json!({ "latitude": -23.561414, "longitude": -46.655881, "name": "Loja Azul", "address": "Av. Paulista, 1578" })
    );
    let (_, contacts) = sent_json(
        &fake,
        &to_phone(CloudContent::Contacts(vec![CardOut {
            name: "Maria Souza".to_owned(),
            phones: vec!["+55 11 98888-7777".to_owned()],
        }])),
    )
    .await;
    assert_eq!(
        contacts["contacts"],
        json!([{ "name": { "formatted_name": "Maria Souza", "first_name": "Maria" },
                 "phones": [{ "phone": "+5511988887777", "type": "CELL", "wa_id": "5511988887777" }] }])
    );
    let (_, reaction) = sent_json(
        &fake,
        &to_phone(CloudContent::Reaction {
            message_id: "wamid.THEIRS".to_owned(),
            emoji: "🙏".to_owned(),
        }),
    )
    .await;
    assert_eq!(reaction["type"], "reaction");
    assert_eq!(
        reaction["reaction"],
        json!({ "message_id": "wamid.THEIRS", "emoji": "🙏" })
    );

    client(&fake)
        .mark_read_cloud(&fake.cloud_account(), "wamid.THEIRS")
        .await
        .expect("marked");
    let read = fake
        .calls_to(Route::CloudMessages)
        .pop()
        .expect("the read mark");
    assert_eq!(
        read.json,
        Some(
            json!({ "messaging_product": "whatsapp", "status": "read", "message_id": "wamid.THEIRS" })
        )
    );
}

#[tokio::test]
async fn templates_with_their_variables_and_the_account_s_list() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let template = |params: &[&str]| {
        to_phone(CloudContent::Template {
            name: "order_update".to_owned(),
            language: "pt_BR".to_owned(),
            body_parameters: params.iter().map(|p| (*p).to_owned()).collect(),
        })
    };
    let (_, body) = sent_json(&fake, &template(&["Pablo", "#4471"])).await;
    assert_eq!(
        body["template"],
        json!({
            "name": "order_update",
            "language": { "code": "pt_BR" },
            "components": [{ "type": "body", "parameters": [
                { "type": "text", "text": "Pablo" }, { "type": "text", "text": "#4471" } ] }],
        })
    );
    // One variable short: Graph's 132000, permanent, one call.
    let before = fake.calls_to(Route::CloudMessages).len();
    let error = client(&fake)
        .send_cloud(&fake.cloud_account(), &template(&["Pablo"]))
        .await
        .expect_err("a parameter short");
    assert_eq!(error.to_core().code, ErrorCode::ERR_SENDING_WAPP_MSG);
    let CloudSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.code, Some(132_000));
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), before + 1);

    let templates = client(&fake)
        .templates(&fake.cloud_account())
        .await
        .expect("the list");
    // Three templates over two pages of the fake.
    assert_eq!(fake.calls_to(Route::Templates).len(), 2);
    let names: Vec<(&str, &str, usize)> = templates
        .iter()
        .map(|t| (t.name.as_str(), t.status.as_str(), t.body_variables))
        .collect();
    assert_eq!(
        names,
        [
            ("hello_world", "APPROVED", 0),
            ("order_update", "APPROVED", 2),
            ("promo_old", "PAUSED", 1)
        ]
    );
    assert_eq!(
        templates[1].body,
        "Olá {{1}}, seu pedido {{2}} saiu para entrega."
    );
    assert_eq!(fake.calls_to(Route::Templates)[1].query("after"), Some("2"));
}

#[tokio::test]
async fn interactive_buttons_and_lists() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let buttons = CloudContent::Buttons {
        body: "Escolha um setor".to_owned(),
        buttons: vec![
            ReplyButton {
                id: "queue-1".to_owned(),
                title: "Vendas".to_owned(),
            },
            ReplyButton {
                id: "queue-2".to_owned(),
                title: "Financeiro".to_owned(),
            },
            ReplyButton {
                id: "queue-3".to_owned(),
                title: "Suporte técnico".to_owned(),
            },
        ],
    };
    let (_, body) = sent_json(&fake, &to_phone(buttons)).await;
    assert_eq!(
        body["interactive"],
        json!({
            "type": "button",
            "body": { "text": "Escolha um setor" },
            "action": { "buttons": [
                { "type": "reply", "reply": { "id": "queue-1", "title": "Vendas" } },
                { "type": "reply", "reply": { "id": "queue-2", "title": "Financeiro" } },
                { "type": "reply", "reply": { "id": "queue-3", "title": "Suporte técnico" } },
            ] },
        })
    );
    let list = CloudContent::List {
        body: "Como podemos ajudar?".to_owned(),
        button: "Ver opções".to_owned(),
        sections: vec![
            ListSection {
                title: "Pedidos".to_owned(),
                rows: vec![
                    ListRow {
                        id: "r1".to_owned(),
                        title: "Rastrear pedido".to_owned(),
                        description: "Onde está meu pedido".to_owned(),
                    },
                    ListRow {
                        id: "r2".to_owned(),
                        title: "Trocar produto".to_owned(),
                        description: String::new(),
                    },
                ],
            },
            ListSection {
                title: "Pagamentos".to_owned(),
                rows: vec![ListRow {
                    id: "r3".to_owned(),
                    title: "2ª via de boleto".to_owned(),
                    description: String::new(),
                }],
            },
        ],
    };
    let (_, body) = sent_json(&fake, &to_phone(list)).await;
    assert_eq!(
        body["interactive"],
        json!({
            "type": "list",
            "body": { "text": "Como podemos ajudar?" },
            "action": { "button": "Ver opções", "sections": [
                { "title": "Pedidos", "rows": [
                    { "id": "r1", "title": "Rastrear pedido", "description": "Onde está meu pedido" },
                    { "id": "r2", "title": "Trocar produto" } ] },
                { "title": "Pagamentos", "rows": [ { "id": "r3", "title": "2ª via de boleto" } ] },
            ] },
        })
    );
}

#[tokio::test]
async fn limits_are_checked_before_anything_is_sent() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let four: Vec<ReplyButton> = (1..=4)
        .map(|i| ReplyButton {
            id: format!("b{i}"),
            title: format!("Opção {i}"),
        })
        .collect();
    let long_title = vec![ReplyButton {
        id: "b".to_owned(),
        title: "Um título longo demais aqui".to_owned(),
    }];
    let same_ids = vec![
        ReplyButton {
            id: "b".to_owned(),
            title: "A".to_owned(),
        },
        ReplyButton {
            id: "b".to_owned(),
            title: "B".to_owned(),
        },
    ];
    let eleven_rows = vec![ListSection {
        title: String::new(),
        rows: (1..=11)
            .map(|i| ListRow {
                id: format!("r{i}"),
                title: format!("Linha {i}"),
                description: String::new(),
            })
            .collect(),
    }];
    for content in [
        CloudContent::Buttons {
            body: "x".to_owned(),
            buttons: four,
        },
        CloudContent::Buttons {
            body: "x".to_owned(),
            buttons: long_title,
        },
        CloudContent::Buttons {
            body: "x".to_owned(),
            buttons: same_ids,
        },
        CloudContent::Buttons {
            body: String::new(),
            buttons: vec![ReplyButton {
                id: "a".to_owned(),
                title: "A".to_owned(),
            }],
        },
        CloudContent::List {
            body: "x".to_owned(),
            button: "Ver".to_owned(),
            sections: eleven_rows,
        },
        CloudContent::Text {
            body: "   ".to_owned(),
            preview_url: false,
        },
        CloudContent::Text {
            body: "a".repeat(4097),
            preview_url: false,
        },
        CloudContent::Media {
            kind: MediaKind::Audio,
            source: MediaSource::Id("1".to_owned()),
            caption: "no".to_owned(),
            file_name: None,
        },
        CloudContent::Media {
            kind: MediaKind::Image,
            source: MediaSource::Link("http://insecure".to_owned()),
            caption: String::new(),
            file_name: None,
        },
        CloudContent::Location {
            latitude: 91.0,
            longitude: 0.0,
            name: String::new(),
            address: String::new(),
        },
        CloudContent::Template {
            name: "hello_world".to_owned(),
            language: String::new(),
            body_parameters: vec![],
        },
    ] {
        let error = client(&fake)
            .send_cloud(&fake.cloud_account(), &to_phone(content.clone()))
            .await
            .expect_err("over a limit");
        assert!(
            matches!(error, CloudSendError::Invalid(_)),
            "{content:?}: {error:?}"
        );
        assert_eq!(error.to_core().code, ErrorCode::ERR_VALIDATION);
    }
    assert!(fake.calls().is_empty(), "nothing reached Graph");
}

#[tokio::test]
async fn the_fake_itself_refuses_what_breaks_graph_s_rules() {
    // Posted around the client: the fake's checks are real, not only the client's.
    let fake = FakeGraph::start(FakeSetup::default()).await;
    chatflow_meta::graph::install_crypto_provider();
    let url = format!(
        "{}/v25.0/{}/messages",
        fake.base,
        fake.setup().phone_number_id
    );
    let post = |body: Value, token: String| {
        let url = url.clone();
        async move {
            let response = reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .expect("the fake answers");
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.expect("JSON"))
        }
    };
    let token = fake.setup().cloud_token.clone();
    let buttons: Vec<Value> = (1..=4)
        .map(|i| json!({ "type": "reply", "reply": { "id": format!("b{i}"), "title": "ok" } }))
        .collect();
    let (status, body) = post(
        json!({ "messaging_product": "whatsapp", "to": TO, "type": "interactive",
                "interactive": { "type": "button", "body": { "text": "x" }, "action": { "buttons": buttons } } }),
        token.clone(),
    )
    .await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!(100)));
    let (status, _) = post(
        json!({ "to": TO, "type": "text", "text": { "body": "no product" } }),
        token.clone(),
    )
    .await;
    assert_eq!(status, 400);
    let (status, body) = post(
        json!({ "messaging_product": "whatsapp", "to": TO, "type": "text", "text": { "body": "x" } }),
        "wrong-token".to_owned(),
    )
    .await;
    assert_eq!((status, body["error"]["code"].clone()), (401, json!(190)));
    let (status, _) = post(
        json!({ "messaging_product": "whatsapp", "to": TO, "type": "text", "text": { "body": "ok" } }),
        token,
    )
    .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_rate_limit_is_retried_then_succeeds() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(
        Route::CloudMessages,
        [Scripted::RateLimited, Scripted::ServerError],
    );
    let message = to_phone(CloudContent::Text {
        body: "de novo".to_owned(),
        preview_url: false,
    });
    let (id, _) = sent_json(&fake, &message).await;
    let calls = fake.calls_to(Route::CloudMessages);
    assert_eq!(
        calls.iter().map(|c| c.status).collect::<Vec<_>>(),
        [400, 500, 200],
        "two refusals, then the send"
    );
    assert!(
        calls.iter().all(|c| c.json == calls[0].json),
        "the same message each time"
    );
    assert!(id.starts_with("wamid.FAKE"));
}

#[tokio::test]
async fn retries_stop_after_the_policy_s_attempts() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(
        Route::CloudMessages,
        std::iter::repeat_n(Scripted::AppRateLimited, 10),
    );
    let error = client(&fake)
        .send_cloud(
            &fake.cloud_account(),
            &to_phone(CloudContent::Text {
                body: "x".to_owned(),
                preview_url: false,
            }),
        )
        .await
        .expect_err("throttled throughout");
    let CloudSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.class, ErrorClass::Retryable);
    assert_eq!(graph.code, Some(4));
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), 4);
}

#[tokio::test]
async fn a_permanent_error_is_not_retried() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(
        Route::CloudMessages,
        [Scripted::Permanent {
            code: 131_026,
            message: "(#131026) Message Undeliverable".to_owned(),
        }],
    );
    let error = client(&fake)
        .send_cloud(
            &fake.cloud_account(),
            &to_phone(CloudContent::Text {
                body: "x".to_owned(),
                preview_url: false,
            }),
        )
        .await
        .expect_err("undeliverable");
    let core = error.to_core();
    assert_eq!(core.code, ErrorCode::ERR_SENDING_WAPP_MSG);
    assert!(
        core.detail
            .as_deref()
            .is_some_and(|d| d.contains("Message Undeliverable"))
    );
    let CloudSendError::Graph(graph) = error else {
        panic!("not a Graph error")
    };
    assert_eq!(graph.class, ErrorClass::Permanent);
    // The call returned after one attempt: nothing else can come later.
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), 1);
}

#[tokio::test]
async fn outside_the_window_is_a_distinct_error() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(Route::CloudMessages, [Scripted::WindowClosed]);
    let error = client(&fake)
        .send_cloud(
            &fake.cloud_account(),
            &to_phone(CloudContent::Text {
                body: "oi?".to_owned(),
                preview_url: false,
            }),
        )
        .await
        .expect_err("window closed");
    let CloudSendError::Graph(graph) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.class, ErrorClass::WindowClosed);
    assert_eq!(graph.code, Some(131_047));
    assert!(graph.message.contains("24 hours"), "{}", graph.message);
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), 1);
}

#[tokio::test]
async fn a_wrong_token_is_refused_and_named_a_credentials_problem() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let account = CloudAccount {
        access_token: "stale".to_owned(),
        ..fake.cloud_account()
    };
    let error = client(&fake)
        .phone_number(&account)
        .await
        .expect_err("refused");
    assert_eq!(error.code, Some(190));
    assert_eq!(
        error.to_core(chatflow_meta::graph::Operation::Account).code,
        ErrorCode::ERR_INVALID_CREDENTIALS
    );
    assert_eq!(fake.calls_to(Route::PhoneNumber).len(), 1);
    let number = client(&fake)
        .phone_number(&fake.cloud_account())
        .await
        .expect("the number");
    assert_eq!(number, "15550783881");
}

#[tokio::test]
async fn a_send_without_an_answer_is_uncertain_and_not_repeated() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(
        Route::CloudMessages,
        [Scripted::Hang(std::time::Duration::from_secs(30))],
    );
    let mut config = fake.config();
    config.request_timeout = std::time::Duration::from_millis(300);
    let client = chatflow_meta::GraphClient::new(config).expect("a client");
    let error = client
        .send_cloud(
            &fake.cloud_account(),
            &to_phone(CloudContent::Text {
                body: "chegou?".to_owned(),
                preview_url: false,
            }),
        )
        .await
        .expect_err("no answer in time");
    let CloudSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.class, ErrorClass::Uncertain, "{graph}");
    // The client returned after its one attempt: a repeat could have sent the message twice.
    assert_eq!(fake.calls_to(Route::CloudMessages).len(), 1);
}
