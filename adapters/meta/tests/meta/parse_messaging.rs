//! Messenger and Instagram deliveries parsed into the inbox's events.

use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::model::{MediaType, ProviderKind};
use chatflow_meta::webhook::{MediaRef, MetaChannel, ParseOptions};
use chatflow_meta::{ACK_DELIVERED, ACK_READ};
use chrono::DateTime;

use crate::{message, parsed, parsed_with};

const PAGE: &str = "110000000000001";
const PSID: &str = "6543210987654321";
const IG: &str = "17841400000000001";
const IGSID: &str = "987654321098765";
/// Our Meta app (the fake's app id).
const OUR_APP: &str = "1234567890123456";

fn ours() -> ParseOptions {
    ParseOptions {
        own_app_ids: vec![OUR_APP.to_owned()],
    }
}

#[test]
fn messenger_messages_attachments_echoes_and_postbacks() {
    let delivery = parsed_with("messenger_messages.json", &ours());
    for item in &delivery.items {
        assert_eq!(item.channel, MetaChannel::Messenger);
        assert_eq!(item.account, PAGE);
    }
    assert_eq!(MetaChannel::Messenger.provider(), ProviderKind::Facebook);
    let got: Vec<(String, String, bool, MediaType, String, Option<String>)> = delivery
        .items
        .iter()
        .map(|i| {
            let m = message(&i.event);
            (
                m.external_id.clone(),
                m.chat.clone(),
                m.from_me,
                m.media_type,
                m.body.clone(),
                m.quoted_external_id.clone(),
            )
        })
        .collect();
    let row = |id: &str, from_me: bool, kind: MediaType, body: &str, quoted: Option<&str>| {
        (
            id.to_owned(),
            PSID.to_owned(),
            from_me,
            kind,
            body.to_owned(),
            quoted.map(str::to_owned),
        )
    };
    assert_eq!(
        got,
        [
            row(
                "m_TEXT01",
                false,
                MediaType::Chat,
                "Olá, vocês entregam em Campinas?",
                None
            ),
            row(
                "m_REPLY01",
                false,
                MediaType::Chat,
                "essa aqui",
                Some("m_OURS01")
            ),
            // Two attachments: two messages, the text with the first, the second under `mid#2`.
            row("m_ATT01", false, MediaType::Image, "fotos do defeito", None),
            row("m_ATT01#2", false, MediaType::Application, "", None),
            // Sent from Meta's inbox (another app): the company's message, to the customer.
            row(
                "m_ECHO_INBOX",
                true,
                MediaType::Chat,
                "Entregamos sim!",
                None
            ),
            row(
                "m_POSTBACK01",
                false,
                MediaType::Chat,
                "Falar com atendente",
                None
            ),
            row(
                "m_SHARE01",
                false,
                MediaType::Chat,
                "Catálogo de verão\nhttps://lojaazul.example/catalogo",
                None
            ),
            row(
                "m_LOC01",
                false,
                MediaType::Location,
                "Minha casa\nhttps://maps.google.com/maps?q=-22.9056,-47.0608",
                None
            ),
        ]
    );
    assert_eq!(
        delivery.items[2].media,
        Some(MediaRef::Url {
            url: "https://scontent.xx.fbcdn.net/v/t1.15752-9/a.jpg?oh=1".to_owned(),
            mime_type: None,
        })
    );
    assert!(delivery.items[3].media.is_some());
    assert!(delivery.items[0].media.is_none());
    assert_eq!(
        message(&delivery.items[0].event).timestamp,
        DateTime::from_timestamp_millis(1_764_000_001_000).expect("a time")
    );
    // Our own app's echo and the referral are left out, with reasons.
    let skipped: Vec<&str> = delivery.skipped.iter().map(|s| s.what.as_str()).collect();
    assert_eq!(skipped, ["echo", "messaging event referral"]);
}

#[test]
fn without_our_app_id_our_echo_is_kept_as_sent_by_the_company() {
    let delivery = parsed("messenger_messages.json");
    let echo = delivery
        .items
        .iter()
        .map(|i| message(&i.event))
        .find(|m| m.external_id == "m_ECHO_OURS")
        .expect("the echo");
    assert!(echo.from_me);
    assert_eq!(echo.chat, PSID);
}

#[test]
fn messenger_receipts_reactions_and_edits() {
    let delivery = parsed("messenger_receipts.json");
    let events: Vec<InboundEvent> = delivery.items.iter().map(|i| i.event.clone()).collect();
    let reaction = |mid: &str, emoji: &str| InboundEvent::Reaction {
        external_id: mid.to_owned(),
        chat: PSID.to_owned(),
        emoji: emoji.to_owned(),
    };
    assert_eq!(
        events,
        [
            InboundEvent::Ack {
                external_id: "m_OUT01".to_owned(),
                ack: ACK_DELIVERED
            },
            InboundEvent::Ack {
                external_id: "m_OUT02".to_owned(),
                ack: ACK_DELIVERED
            },
            reaction("m_OUT01", "❤️"),
            // No emoji given: the reaction's name picks one.
            reaction("m_OUT02", "😮"),
            reaction("m_OUT01", ""),
            InboundEvent::Edit {
                external_id: "m_TEXT01".to_owned(),
                body: "Olá, vocês entregam em Campinas e Valinhos?".to_owned(),
                timestamp: DateTime::from_timestamp_millis(1_764_000_105_000).expect("a time"),
            },
        ]
    );
    // A read watermark names no message: skipped.
    assert_eq!(delivery.skipped.len(), 1);
    assert_eq!(delivery.skipped[0].what, "read");
}

#[test]
fn instagram_messages_stories_deletions_and_receipts() {
    let delivery = parsed("instagram.json");
    for item in &delivery.items {
        assert_eq!(item.channel, MetaChannel::Instagram);
        assert_eq!(item.account, IG);
    }
    assert_eq!(MetaChannel::Instagram.provider(), ProviderKind::Instagram);
    let events: Vec<&InboundEvent> = delivery.items.iter().map(|i| &i.event).collect();
    assert_eq!(events.len(), 10, "{events:?}");
    let text = message(events[0]);
    assert_eq!(text.chat, IGSID);
    assert_eq!(text.body, "amei essa bolsa");
    // A story mention: the story's URL, never downloaded.
    let mention = message(events[1]);
    assert_eq!(
        mention.body,
        "https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1789&signature=abc"
    );
    assert_eq!(mention.media_type, MediaType::Chat);
    assert!(delivery.items[1].media.is_none());
    // A story reply: the text, then the story.
    assert_eq!(
        message(events[2]).body,
        "tem no azul?\nhttps://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1790&signature=def"
    );
    assert_eq!(
        events[3],
        &InboundEvent::Delete {
            external_id: "ig_DELETED01".to_owned()
        }
    );
    assert_eq!(
        events[4],
        &InboundEvent::Reaction {
            external_id: "ig_OUT01".to_owned(),
            chat: IGSID.to_owned(),
            emoji: "❤️".to_owned(),
        }
    );
    assert_eq!(
        events[5],
        &InboundEvent::Ack {
            external_id: "ig_OUT01".to_owned(),
            ack: ACK_READ
        }
    );
    assert_eq!(
        message(events[6]).body,
        "Look do dia\nhttps://www.instagram.com/reel/C0ABCDEF/"
    );
    assert_eq!(message(events[7]).body, "[unsupported: unsupported]");
    let echo = message(events[8]);
    assert!(echo.from_me);
    assert_eq!(echo.chat, IGSID);
    assert_eq!(echo.body, "Temos sim! Quer o link?");
    let audio = message(events[9]);
    assert_eq!(audio.media_type, MediaType::Audio);
    assert!(matches!(
        delivery.items[9].media,
        Some(MediaRef::Url { .. })
    ));
    assert!(delivery.skipped.is_empty(), "{:?}", delivery.skipped);
}

#[test]
fn redeliveries_repeat_the_same_ids() {
    assert_eq!(parsed("instagram.json"), parsed("instagram.json"));
    assert_eq!(
        parsed("messenger_messages.json"),
        parsed("messenger_messages.json")
    );
}
