//! Downloads of inbound files: Cloud media ids with their sha256, CDN URLs.

use base64::Engine as _;
use chatflow_core::ErrorCode;
use chatflow_core::inbox::channel::{ChannelMedia, InboundEvent};
use chatflow_core::inbox::model::MediaType;
use chatflow_meta::fake::{FakeGraph, FakeSetup, Route, WebhookDriver};
use chatflow_meta::graph::media::sha256_matches;
use chatflow_meta::webhook::{MediaRef, ParseOptions, parse};
use serde_json::json;
use sha2::{Digest as _, Sha256};

use crate::{client, received_at};

const JPEG: &[u8] = b"\xff\xd8\xff\xe0 a tiny fake jpeg";

#[tokio::test]
async fn a_cloud_file_is_fetched_with_the_token_and_its_hash_checked() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let id = fake.serve_media(JPEG, "image/jpeg");
    let file = client(&fake)
        .download_cloud_media(&fake.setup().cloud_token, &id, None)
        .await
        .expect("downloaded");
    assert_eq!(file.bytes, JPEG);
    assert_eq!(file.mime_type, "image/jpeg");
    let calls = fake.calls();
    assert_eq!(
        calls.iter().map(|c| c.route).collect::<Vec<_>>(),
        [Some(Route::MediaInfo), Some(Route::MediaDownload)]
    );
    assert!(
        calls
            .iter()
            .all(|c| c.authorization.as_deref() == Some("Bearer EAAG-cloud-token-5f1d"))
    );
}

#[tokio::test]
async fn a_file_whose_sha256_differs_is_refused() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let wrong = hex::encode(Sha256::digest(b"something else"));
    let id = fake.serve_media_with_sha256(JPEG, "image/jpeg", &wrong);
    let error = client(&fake)
        .download_cloud_media(&fake.setup().cloud_token, &id, None)
        .await
        .expect_err("sha256 mismatch");
    assert!(error.message.contains("sha256"), "{error}");
    assert_eq!(
        error
            .to_core(chatflow_meta::graph::Operation::Download)
            .code,
        ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA
    );
}

#[tokio::test]
async fn the_token_goes_only_to_graph_s_hosts() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let id = fake.serve_media_at(JPEG, "image/jpeg", "https://evil.example/steal");
    let error = client(&fake)
        .download_cloud_media(&fake.setup().cloud_token, &id, None)
        .await
        .expect_err("untrusted host");
    assert!(error.message.contains("evil.example"), "{error}");
    // Only the media object was asked for.
    assert_eq!(fake.calls().len(), 1);
}

#[test]
fn hashes_match_in_hex_or_base64() {
    let digest = Sha256::digest(JPEG);
    assert!(sha256_matches(JPEG, &hex::encode(digest)));
    assert!(sha256_matches(JPEG, &hex::encode(digest).to_uppercase()));
    assert!(sha256_matches(
        JPEG,
        &base64::engine::general_purpose::STANDARD.encode(digest)
    ));
    assert!(!sha256_matches(JPEG, &hex::encode(Sha256::digest(b"x"))));
    assert!(!sha256_matches(JPEG, "not a hash"));
}

#[tokio::test]
async fn a_parsed_message_is_completed_with_its_file_or_kept_without_it() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let id = fake.serve_media(JPEG, "image/jpeg");
    let driver = WebhookDriver::new("secret");
    let value = |media_id: &str, message_id: &str| {
        json!({
            "contacts": [{ "profile": { "name": "Pablo" }, "wa_id": "5511999990000" }],
            "messages": [{ "from": "5511999990000", "id": message_id, "timestamp": "1749416400",
                           "type": "image", "image": { "id": media_id, "mime_type": "image/jpeg",
                           "sha256": hex::encode(Sha256::digest(JPEG)), "caption": "olha" } }],
        })
    };
    let phone = fake.setup().phone_number_id.clone();
    let good = driver.cloud("waba", &phone, value(&id, "wamid.IMG"));
    let gone = driver.cloud("waba", &phone, value("555000555", "wamid.GONE"));
    let client = client(&fake);
    for (signed, expect_file) in [(good, true), (gone, false)] {
        let delivery =
            parse(&signed.body, &ParseOptions::default(), received_at()).expect("parsed");
        let item = delivery.items.into_iter().next().expect("an item");
        let media = item.media.clone().expect("a file");
        let downloaded = client
            .fetch_media(
                &fake.setup().cloud_token,
                &media,
                "wamid.IMG",
                MediaType::Image,
            )
            .await;
        let InboundEvent::Message(message) = item.with_media(downloaded) else {
            panic!("a message")
        };
        assert_eq!(message.body, "olha");
        if expect_file {
            assert_eq!(
                message.media,
                Some(ChannelMedia {
                    media_type: MediaType::Image,
                    file_name: "wamid_IMG.jpg".to_owned(),
                    mime_type: "image/jpeg".to_owned(),
                    bytes: JPEG.to_vec(),
                })
            );
            assert!(message.media_failed.is_none());
        } else {
            assert!(message.media.is_none());
            let failed = message.media_failed.expect("kept for a later try");
            assert_eq!(failed.media_type, MediaType::Image);
            assert_eq!(MediaRef::from_locator(&failed.locator), Some(media));
        }
    }
}

#[tokio::test]
async fn a_messenger_attachment_is_fetched_without_a_token() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let url = fake.serve_cdn("foto.png", b"\x89PNG fake", "image/png");
    let media = MediaRef::Url {
        url,
        mime_type: None,
    };
    let file = client(&fake)
        .fetch_media("unused", &media, "m_ATT01", MediaType::Image)
        .await
        .expect("downloaded");
    assert_eq!(file.mime_type, "image/png");
    assert_eq!(file.file_name, "m_ATT01.png");
    assert_eq!(file.bytes, b"\x89PNG fake");
    let call = fake.calls().pop().expect("the download");
    assert_eq!(call.route, Some(Route::Cdn));
    assert_eq!(call.authorization, None);
    // Plain HTTP elsewhere is refused.
    let error = client(&fake)
        .download_url("http://cdn.example/x.png")
        .await
        .expect_err("not https");
    assert!(error.message.contains("HTTPS"), "{error}");
}
