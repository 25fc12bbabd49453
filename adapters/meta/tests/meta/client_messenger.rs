//! The Messenger/Instagram Send API against the fake: the send mode by the window.

use chatflow_core::ErrorCode;
use chatflow_meta::fake::{FakeGraph, FakeSetup, Route, Scripted};
use chatflow_meta::graph::error::ErrorClass;
use chatflow_meta::graph::messenger::{AttachmentKind, PageAccount, PageContent, PageSendError};
use chrono::TimeDelta;
use serde_json::json;

use crate::{at, client};

const PSID: &str = "6543210987654321";

fn page(fake: &FakeGraph) -> PageAccount {
    let first = &fake.setup().pages[0];
    PageAccount {
        page_id: first.id.clone(),
        access_token: first.token.clone(),
    }
}

#[tokio::test]
async fn within_24_hours_a_reply_is_a_response() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let now = at(1_764_100_000);
    let mid = client(&fake)
        .send_page(
            &page(&fake),
            PSID,
            &PageContent::Text("Entregamos sim!".to_owned()),
            Some(now - TimeDelta::hours(3)),
            now,
        )
        .await
        .expect("sent");
    assert!(mid.starts_with("m_FAKE"), "{mid}");
    let call = fake.calls_to(Route::PageMessages).pop().expect("the send");
    assert_eq!(
        call.path,
        format!("/v25.0/{}/messages", page(&fake).page_id)
    );
    assert_eq!(
        call.authorization.as_deref(),
        Some("Bearer EAAG-page-token-azul")
    );
    assert_eq!(
        call.json,
        Some(json!({
            "recipient": { "id": PSID },
            "messaging_type": "RESPONSE",
            "message": { "text": "Entregamos sim!" },
        }))
    );
}

#[tokio::test]
async fn after_24_hours_a_human_agent_tag_and_after_7_days_nothing() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let now = at(1_764_100_000);
    client(&fake)
        .send_page(
            &page(&fake),
            PSID,
            &PageContent::Attachment {
                kind: AttachmentKind::Image,
                url: "https://files.lojaazul.example/catalogo.jpg".to_owned(),
            },
            Some(now - TimeDelta::days(3)),
            now,
        )
        .await
        .expect("sent with the tag");
    let call = fake.calls_to(Route::PageMessages).pop().expect("the send");
    assert_eq!(
        call.json,
        Some(json!({
            "recipient": { "id": PSID },
            "messaging_type": "MESSAGE_TAG",
            "tag": "HUMAN_AGENT",
            "message": { "attachment": { "type": "image", "payload": {
                "url": "https://files.lojaazul.example/catalogo.jpg", "is_reusable": true } } },
        }))
    );
    let closed = client(&fake)
        .send_page(
            &page(&fake),
            PSID,
            &PageContent::Text("ainda aí?".to_owned()),
            Some(now - TimeDelta::days(8)),
            now,
        )
        .await
        .expect_err("closed");
    assert!(
        matches!(closed, PageSendError::WindowClosed(_)),
        "{closed:?}"
    );
    let core = closed.to_core();
    assert_eq!(core.code, ErrorCode::ERR_SENDING_WAPP_MSG);
    assert!(
        core.detail
            .as_deref()
            .is_some_and(|d| d.contains("window is closed"))
    );
    assert_eq!(
        fake.calls_to(Route::PageMessages).len(),
        1,
        "nothing sent when closed"
    );
}

#[tokio::test]
async fn meta_s_window_refusal_is_not_retried() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    fake.script(Route::PageMessages, [Scripted::MessengerWindowClosed]);
    let now = at(1_764_100_000);
    let error = client(&fake)
        .send_page(
            &page(&fake),
            PSID,
            &PageContent::Text("oi".to_owned()),
            Some(now),
            now,
        )
        .await
        .expect_err("refused");
    let PageSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.class, ErrorClass::WindowClosed);
    assert_eq!((graph.code, graph.subcode), (Some(10), Some(2_018_278)));
    assert_eq!(fake.calls_to(Route::PageMessages).len(), 1);
}

#[tokio::test]
async fn another_page_s_token_is_refused() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let wrong = PageAccount {
        access_token: fake.setup().pages[1].token.clone(),
        ..page(&fake)
    };
    let now = at(1_764_100_000);
    let error = client(&fake)
        .send_page(
            &wrong,
            PSID,
            &PageContent::Text("oi".to_owned()),
            Some(now),
            now,
        )
        .await
        .expect_err("refused");
    let PageSendError::Graph(graph) = error else {
        panic!("{error:?}")
    };
    assert_eq!(graph.code, Some(190));
    assert_eq!(fake.calls_to(Route::PageMessages).len(), 1);
}
