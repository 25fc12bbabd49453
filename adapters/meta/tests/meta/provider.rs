//! The Cloud API channel port over the client, against the fake.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{
    ChannelMedia, ChannelProvider, ContactCard, FailedMedia, Outbound, OutboundContent,
    ReadMessage, f64_bits::F64,
};
use chatflow_core::inbox::model::{MediaType, ProviderKind};
use chatflow_core::{CompanyId, Error, ErrorCode, TenantScope, WhatsappId};
use chatflow_meta::fake::{FakeGraph, FakeSetup, Route};
use chatflow_meta::graph::cloud::CloudAccount;
use chatflow_meta::webhook::MediaRef;
use chatflow_meta::{CloudAccounts, CloudProvider};
use serde_json::json;

use crate::client;

const SCOPE: TenantScope = TenantScope::new(CompanyId(7));
const CONNECTION: WhatsappId = WhatsappId(42);
const TO: &str = "5511999990000";

/// Credentials by (company, connection), as the host will keep them.
struct Accounts(HashMap<(TenantScope, WhatsappId), CloudAccount>);

#[async_trait]
impl CloudAccounts for Accounts {
    async fn account(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> chatflow_core::Result<CloudAccount> {
        self.0
            .get(&(scope, connection))
            .cloned()
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))
    }
}

fn provider(fake: &FakeGraph) -> CloudProvider {
    let accounts = Accounts(HashMap::from([((SCOPE, CONNECTION), fake.cloud_account())]));
    CloudProvider::new(client(fake), Arc::new(accounts))
}

fn outbound(content: OutboundContent) -> Outbound {
    Outbound {
        connection: CONNECTION,
        to: TO.to_owned(),
        content,
        quoted_external_id: None,
        quoted: None,
        idempotency_key: None,
    }
}

fn last_sent(fake: &FakeGraph) -> serde_json::Value {
    fake.calls_to(Route::CloudMessages)
        .pop()
        .and_then(|c| c.json)
        .expect("a sent message")
}

#[tokio::test]
async fn texts_files_cards_and_locations_go_out() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let provider = provider(&fake);
    assert_eq!(provider.kind(), ProviderKind::Cloud);
    provider
        .start(SCOPE, CONNECTION)
        .await
        .expect("the account works");

    let id = provider
        .send(
            SCOPE,
            &Outbound {
                quoted_external_id: Some("wamid.Q".to_owned()),
                idempotency_key: Some("17".to_owned()),
                ..outbound(OutboundContent::Text {
                    body: "Bom dia!".to_owned(),
                })
            },
        )
        .await
        .expect("sent");
    assert!(id.starts_with("wamid.FAKE"));
    let body = last_sent(&fake);
    assert_eq!(body["text"]["body"], "Bom dia!");
    assert_eq!(body["context"]["message_id"], "wamid.Q");
    assert_eq!(body["biz_opaque_callback_data"], "17");

    // A voice note: uploaded, then sent by id, without its caption.
    provider
        .send(
            SCOPE,
            &outbound(OutboundContent::Media {
                media: ChannelMedia {
                    media_type: MediaType::Audio,
                    file_name: "audio-1764.mp3".to_owned(),
                    mime_type: "audio/mpeg".to_owned(),
                    bytes: b"ID3 fake mp3".to_vec(),
                },
                caption: "ignored".to_owned(),
            }),
        )
        .await
        .expect("sent");
    let upload = fake
        .calls_to(Route::CloudMedia)
        .pop()
        .expect("uploaded first");
    let file = upload
        .parts
        .iter()
        .find(|p| p.name == "file")
        .expect("the file");
    assert_eq!(file.bytes, b"ID3 fake mp3");
    let body = last_sent(&fake);
    assert_eq!(body["type"], "audio");
    let media_id = body["audio"]["id"].as_str().expect("an id").to_owned();
    assert_eq!(
        fake.uploaded(&media_id).map(|u| u.1),
        Some("audio/mpeg".to_owned())
    );
    assert_eq!(body["audio"], json!({ "id": media_id }));

    // A document keeps its file name and caption.
    provider
        .send(
            SCOPE,
            &outbound(OutboundContent::Media {
                media: ChannelMedia {
                    media_type: MediaType::Application,
                    file_name: "contrato.pdf".to_owned(),
                    mime_type: "application/pdf".to_owned(),
                    bytes: b"%PDF".to_vec(),
                },
                caption: "Segue o contrato".to_owned(),
            }),
        )
        .await
        .expect("sent");
    let body = last_sent(&fake);
    assert_eq!(body["document"]["filename"], "contrato.pdf");
    assert_eq!(body["document"]["caption"], "Segue o contrato");

    provider
        .send(
            SCOPE,
            &outbound(OutboundContent::Contact {
                card: ContactCard {
                    name: "Suporte Loja Azul".to_owned(),
                    number: "551130000000".to_owned(),
                },
            }),
        )
        .await
        .expect("sent");
    assert_eq!(
        last_sent(&fake)["contacts"][0]["phones"][0]["wa_id"],
        "551130000000"
    );

    provider
        .send(
            SCOPE,
            &outbound(OutboundContent::Location {
                latitude: F64::new(-23.5),
                longitude: F64::new(-46.6),
                name: "Loja".to_owned(),
            }),
        )
        .await
        .expect("sent");
    assert_eq!(
        last_sent(&fake)["location"],
        json!({ "latitude": -23.5, "longitude": -46.6, "name": "Loja" })
    );
}

#[tokio::test]
async fn reactions_read_marks_and_what_the_cloud_api_cannot_do() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let provider = provider(&fake);
    provider
        .react(SCOPE, CONNECTION, TO, "wamid.THEIRS", false, "❤️")
        .await
        .expect("reacted");
    assert_eq!(
        last_sent(&fake)["reaction"],
        json!({ "message_id": "wamid.THEIRS", "emoji": "❤️" })
    );
    let read = [
        ReadMessage {
            external_id: "wamid.A".to_owned(),
            participant: None,
        },
        ReadMessage {
            external_id: "wamid.B".to_owned(),
            participant: None,
        },
    ];
    provider
        .mark_read(SCOPE, CONNECTION, TO, &read)
        .await
        .expect("marked");
    assert_eq!(last_sent(&fake)["message_id"], "wamid.B");
    assert_eq!(
        fake.calls_to(Route::CloudMessages).len(),
        2,
        "one read mark for the chat"
    );

    let calls = fake.calls().len();
    for error in [
        provider
            .edit(SCOPE, CONNECTION, TO, "wamid.X", "novo")
            .await
            .expect_err("no edit"),
        provider
            .delete(SCOPE, CONNECTION, TO, "wamid.X")
            .await
            .expect_err("no delete"),
        provider.new_qr(SCOPE, CONNECTION).await.expect_err("no QR"),
        provider
            .profile(SCOPE, CONNECTION, TO)
            .await
            .expect_err("no profile"),
    ] {
        assert_eq!(error.code, ErrorCode::ERR_CHANNEL_NOT_SUPPORTED);
    }
    assert_eq!(fake.calls().len(), calls, "none of them reached Graph");
}

#[tokio::test]
async fn another_company_s_connection_has_no_account() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let provider = provider(&fake);
    let error = provider
        .send(
            TenantScope::new(CompanyId(8)),
            &outbound(OutboundContent::Text {
                body: "x".to_owned(),
            }),
        )
        .await
        .expect_err("not ours");
    assert_eq!(error.code, ErrorCode::ERR_NO_WAPP_FOUND);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn a_stale_token_fails_the_start_as_credentials() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let stale = CloudAccount {
        access_token: "stale".to_owned(),
        ..fake.cloud_account()
    };
    let provider = CloudProvider::new(
        client(&fake),
        Arc::new(Accounts(HashMap::from([((SCOPE, CONNECTION), stale)]))),
    );
    let error = provider
        .start(SCOPE, CONNECTION)
        .await
        .expect_err("refused");
    assert_eq!(error.code, ErrorCode::ERR_INVALID_CREDENTIALS);
}

#[tokio::test]
async fn a_failed_attachment_is_downloaded_again_from_its_locator() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let provider = provider(&fake);
    let id = fake.serve_media(b"%PDF-1.4 again", "application/pdf");
    let failed = FailedMedia {
        media_type: MediaType::Application,
        file_name: "boleto.pdf".to_owned(),
        mime_type: "application/pdf".to_owned(),
        locator: MediaRef::Cloud {
            id,
            mime_type: "application/pdf".to_owned(),
            sha256: None,
            file_name: Some("boleto.pdf".to_owned()),
            voice: false,
        }
        .to_locator(),
    };
    let file = provider
        .download_media(SCOPE, CONNECTION, &failed)
        .await
        .expect("downloaded");
    assert_eq!(file.bytes, b"%PDF-1.4 again");
    assert_eq!(file.file_name, "boleto.pdf");
    let garbage = FailedMedia {
        locator: "wa:keys".to_owned(),
        ..failed
    };
    assert_eq!(
        provider
            .download_media(SCOPE, CONNECTION, &garbage)
            .await
            .expect_err("not ours")
            .code,
        ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA
    );
}
