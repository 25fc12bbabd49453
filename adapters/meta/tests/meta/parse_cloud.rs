//! Cloud API deliveries parsed into the inbox's events.

use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::model::MediaType;
use chatflow_meta::webhook::{MediaRef, MetaChannel, ParseOptions, SendFailure, parse};
use chatflow_meta::{ACK_DELIVERED, ACK_FAILED, ACK_PLAYED, ACK_READ, ACK_SENT};

use crate::{at, fixture, message, parsed, received_at};

const PHONE_NUMBER_ID: &str = "106540352242922";

#[test]
fn a_text_with_its_quote_contact_name_and_bsuid_alias() {
    let delivery = parsed("cloud_text.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    assert_eq!(delivery.items.len(), 1);
    let item = &delivery.items[0];
    assert_eq!(item.channel, MetaChannel::Cloud);
    assert_eq!(
        item.channel.provider(),
        chatflow_core::inbox::model::ProviderKind::Cloud
    );
    assert_eq!(item.account, PHONE_NUMBER_ID);
    assert_eq!(item.media, None);
    let m = message(&item.event);
    assert_eq!(
        m.external_id,
        "wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA="
    );
    assert_eq!(m.chat, "16505551234");
    assert_eq!(m.aliases, ["US.13491208655302741918"]);
    assert_eq!(m.chat_name, "Sheena Nelson");
    assert_eq!(m.body, "Does it come in another color?");
    assert_eq!(m.media_type, MediaType::Chat);
    assert!(!m.from_me && !m.is_group);
    assert_eq!(
        m.quoted_external_id.as_deref(),
        Some("wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBI0QTRCRkQwQjk2QTQ2MEQ4AA==")
    );
    assert_eq!(m.timestamp, at(1_749_416_383));
}

#[test]
fn a_redelivery_yields_the_same_events() {
    let first = parsed("cloud_media.json");
    let again = parsed("cloud_media.json");
    assert_eq!(first, again);
    let ids: Vec<String> = first
        .items
        .iter()
        .map(|i| message(&i.event).external_id.clone())
        .collect();
    assert_eq!(
        ids,
        [
            "wamid.IMAGE01",
            "wamid.VIDEO01",
            "wamid.VOICE01",
            "wamid.DOC01",
            "wamid.STICKER01"
        ]
    );
}

#[test]
fn files_come_with_what_their_download_needs() {
    let delivery = parsed("cloud_media.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    let got: Vec<(MediaType, String, MediaRef)> = delivery
        .items
        .iter()
        .map(|i| {
            let m = message(&i.event);
            assert_eq!(m.media, None, "not downloaded while parsing");
            assert_eq!(m.media_failed, None);
            assert_eq!(m.chat, "5511999990000");
            assert_eq!(m.aliases, ["BR.1502576394655843"]);
            (
                m.media_type,
                m.body.clone(),
                i.media.clone().expect("a file to download"),
            )
        })
        .collect();
    let cloud =
        |id: &str, mime: &str, sha: &str, name: Option<&str>, voice: bool| MediaRef::Cloud {
            id: id.to_owned(),
            mime_type: mime.to_owned(),
            sha256: Some(sha.to_owned()),
            file_name: name.map(str::to_owned),
            voice,
        };
    assert_eq!(
        got,
        vec![
            (
                MediaType::Image,
                "Este aqui".to_owned(),
                cloud(
                    "1003383421387256",
                    "image/jpeg",
                    "Xp0bpk0xqLOZKsRcPLd7Ni1gqjfxGD9lUiRTm8rGyo8=",
                    None,
                    false
                )
            ),
            (
                MediaType::Video,
                String::new(),
                cloud("1003383421387257", "video/mp4", "ZjAxYmE1", None, false)
            ),
            (
                MediaType::Audio,
                String::new(),
                cloud(
                    "1003383421387258",
                    "audio/ogg; codecs=opus",
                    "aGVsbG8=",
                    None,
                    true
                )
            ),
            // A document without a caption shows its file name, and is stored under it.
            (
                MediaType::Application,
                "orcamento-2026.pdf".to_owned(),
                cloud(
                    "1003383421387259",
                    "application/pdf",
                    "ZG9j",
                    Some("orcamento-2026.pdf"),
                    false
                )
            ),
            // A sticker is a WebP image.
            (
                MediaType::Image,
                String::new(),
                cloud("1003383421387260", "image/webp", "c3RpY2s=", None, false)
            ),
        ]
    );
    let doc = &got[3].2;
    assert_eq!(doc.file_name_for("wamid.DOC01"), "orcamento-2026.pdf");
    assert_eq!(got[0].2.file_name_for("wamid.IMAGE01"), "wamid_IMAGE01.jpg");
    assert_eq!(
        MediaRef::from_locator(&doc.to_locator()).as_ref(),
        Some(doc)
    );
}

#[test]
fn locations_and_contact_cards_as_the_inbox_shows_them() {
    let delivery = parsed("cloud_location_contacts.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    let location = message(&delivery.items[0].event);
    assert_eq!(location.media_type, MediaType::Location);
    assert_eq!(
        location.body,
        "MASP\nAv. Paulista, 1578 - Bela Vista, São Paulo\nhttps://maps.google.com/maps?q=-23.561414,-46.655881"
    );
    let cards = message(&delivery.items[1].event);
    assert_eq!(cards.media_type, MediaType::ContactCard);
    assert_eq!(
        cards.body,
        "Maria Souza\n5511988887777\n551133332222\n\nJoão Lima\n5521977776666"
    );
}

#[test]
fn interactive_and_template_replies_are_the_chosen_text() {
    let delivery = parsed("cloud_interactive.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    let got: Vec<(&str, &str, Option<&str>)> = delivery
        .items
        .iter()
        .map(|i| {
            let m = message(&i.event);
            assert_eq!(m.media_type, MediaType::Chat);
            (
                m.external_id.as_str(),
                m.body.as_str(),
                m.quoted_external_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("wamid.BTN01", "Financeiro", Some("wamid.MENU01")),
            ("wamid.ROW01", "2ª via de boleto", Some("wamid.LIST01")),
            ("wamid.QR01", "Parar promoções", Some("wamid.TPL01")),
        ]
    );
}

#[test]
fn reactions_and_their_removal() {
    let delivery = parsed("cloud_reaction.json");
    assert_eq!(
        delivery
            .items
            .iter()
            .map(|i| i.event.clone())
            .collect::<Vec<_>>(),
        [
            InboundEvent::Reaction {
                external_id: "wamid.OURS01".to_owned(),
                chat: "5511999990000".to_owned(),
                emoji: "👍".to_owned(),
            },
            InboundEvent::Reaction {
                external_id: "wamid.OURS01".to_owned(),
                chat: "5511999990000".to_owned(),
                emoji: String::new(),
            },
        ]
    );
}

#[test]
fn unknown_and_unsupported_types_become_notices_and_never_sink_the_delivery() {
    let delivery = parsed("cloud_unsupported.json");
    let got: Vec<(&str, &str)> = delivery
        .items
        .iter()
        .map(|i| {
            let m = message(&i.event);
            (m.external_id.as_str(), m.body.as_str())
        })
        .collect();
    assert_eq!(
        got,
        [
            ("wamid.UNSUP01", "[unsupported: poll_creation]"),
            ("wamid.ORDER01", "[unsupported: order]"),
            ("wamid.FUTURE01", "[unsupported: hologram]"),
            ("wamid.TEXT02", "ainda estou aqui"),
        ]
    );
    let skipped: Vec<&str> = delivery.skipped.iter().map(|s| s.what.as_str()).collect();
    assert_eq!(
        skipped,
        [
            "message type request_welcome",
            "message",
            "field message_template_status_update"
        ]
    );
    assert!(
        delivery.skipped[1].reason.starts_with("unreadable"),
        "{:?}",
        delivery.skipped[1]
    );
}

#[test]
fn statuses_become_acks_and_a_failure_keeps_its_reason() {
    let delivery = parsed("cloud_statuses.json");
    let acks: Vec<(String, i64)> = delivery
        .items
        .iter()
        .map(|i| match &i.event {
            InboundEvent::Ack { external_id, ack } => (external_id.clone(), *ack),
            other => panic!("not an ack: {other:?}"),
        })
        .collect();
    assert_eq!(
        acks,
        [
            ("wamid.OUT01".to_owned(), ACK_SENT),
            ("wamid.OUT01".to_owned(), ACK_DELIVERED),
            ("wamid.OUT01".to_owned(), ACK_READ),
            ("wamid.OUT02".to_owned(), ACK_PLAYED),
            ("wamid.OUT03".to_owned(), ACK_FAILED),
        ]
    );
    assert!(delivery.items[..4].iter().all(|i| i.failure.is_none()));
    assert_eq!(
        delivery.items[4].failure,
        Some(SendFailure {
            code: Some(131_047),
            title: "Re-engagement message".to_owned(),
            message: "Re-engagement message: Message failed to send because more than 24 hours have passed since the customer last replied to this number.".to_owned(),
        })
    );
    assert_eq!(delivery.skipped.len(), 1);
    assert_eq!(delivery.skipped[0].what, "status deleted");
}

#[test]
fn a_user_without_a_number_is_known_by_the_bsuid() {
    let delivery = parsed("cloud_bsuid_only.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    let m = message(&delivery.items[0].event);
    assert_eq!(m.chat, "BR.9988776655443322");
    assert!(m.aliases.is_empty());
    assert!(!chatflow_core::inbox::identities::is_phone(&m.chat));
    assert!(chatflow_core::inbox::identities::needs_lookup(m));
    // No profile name: the username is shown.
    assert_eq!(m.chat_name, "@ana.s");
    assert_eq!(m.body, "oi, vi o anúncio");
}

#[test]
fn number_and_bsuid_changes_become_identities() {
    let delivery = parsed("cloud_system.json");
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
    let events: Vec<InboundEvent> = delivery.items.into_iter().map(|i| i.event).collect();
    assert_eq!(
        events,
        [
            InboundEvent::Identities {
                chat: "5511977770000".to_owned(),
                aliases: vec!["5511999990000".to_owned(), "BR.1502576394655843".to_owned()],
            },
            InboundEvent::Identities {
                chat: "5521966665555".to_owned(),
                aliases: vec!["BR.77001".to_owned(), "BR.66001".to_owned()],
            },
        ]
    );
}

#[test]
fn coexistence_edits_and_revokes_and_a_missing_time() {
    let body = serde_json::json!({
        "object": "whatsapp_business_account",
        "entry": [{ "id": "1", "changes": [{ "field": "messages", "value": {
            "metadata": { "phone_number_id": PHONE_NUMBER_ID },
            "messages": [
                { "from": "5511999990000", "id": "wamid.E1", "type": "edit",
                  "edit": { "original_message_id": "wamid.ORIG", "message": { "type": "text", "text": { "body": "corrigido" } } } },
                { "from": "5511999990000", "id": "wamid.R1", "timestamp": "1749417200", "type": "revoke",
                  "revoke": { "original_message_id": "wamid.ORIG" } },
                { "id": "wamid.NOBODY", "timestamp": "1749417201", "type": "text", "text": { "body": "?" } }
            ]
        }}]}]
    });
    let delivery = parse(
        body.to_string().as_bytes(),
        &ParseOptions::default(),
        received_at(),
    )
    .expect("readable");
    assert_eq!(
        delivery
            .items
            .iter()
            .map(|i| i.event.clone())
            .collect::<Vec<_>>(),
        [
            InboundEvent::Edit {
                external_id: "wamid.ORIG".to_owned(),
                body: "corrigido".to_owned(),
                // No timestamp: the delivery's arrival stands in.
                timestamp: received_at(),
            },
            InboundEvent::Delete {
                external_id: "wamid.ORIG".to_owned()
            },
        ]
    );
    assert_eq!(delivery.skipped.len(), 1);
    assert!(delivery.skipped[0].reason.starts_with("no sender"));
}

#[test]
fn what_is_not_a_delivery() {
    assert!(parse(b"not json", &ParseOptions::default(), received_at()).is_err());
    assert!(parse(b"[1,2]", &ParseOptions::default(), received_at()).is_err());
    let other = parse(
        br#"{"object":"user","entry":[]}"#,
        &ParseOptions::default(),
        received_at(),
    )
    .expect("readable");
    assert!(other.items.is_empty());
    assert_eq!(other.skipped[0].what, "object user");
    // A fixture really is what the parser reads (guards against an empty fixture file).
    assert!(fixture("cloud_text.json").len() > 100);
}
