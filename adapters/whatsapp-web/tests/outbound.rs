//! Outbound through the fake client: addresses, the proto of each kind of content, quotes, the
//! idempotent message id, uploads, and failures as the spec's codes.

use chatflow_core::inbox::channel::{
    ChannelMedia, ContactCard, Outbound, OutboundContent, f64_bits,
};
use chatflow_core::inbox::model::MediaType;
use chatflow_core::{ErrorCode, WhatsappId};
use chatflow_whatsapp_web::client::MediaKind;
use chatflow_whatsapp_web::fake::{FakeOp, FakeWaClient};
use chatflow_whatsapp_web::outbound::{
    QuotedMessage, VOICE_NOTE_MIME, message_id, send_outbound, to_jid, vcard,
};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;

const CONNECTION: WhatsappId = WhatsappId(42);

fn outbound(to: &str, content: OutboundContent) -> Outbound {
    Outbound {
        connection: CONNECTION,
        to: to.to_owned(),
        content,
        quoted_external_id: None,
        quoted: None,
        idempotency_key: Some("message-1".to_owned()),
    }
}

fn text(body: &str) -> OutboundContent {
    OutboundContent::Text {
        body: body.to_owned(),
    }
}

fn media(media_type: MediaType, file_name: &str, mime: &str, caption: &str) -> OutboundContent {
    OutboundContent::Media {
        media: ChannelMedia {
            media_type,
            file_name: file_name.to_owned(),
            mime_type: mime.to_owned(),
            bytes: format!("the bytes of {file_name}").into_bytes(),
        },
        caption: caption.to_owned(),
    }
}

/// Sends `outbound` through a connected fake and answers the one proto it sent.
async fn sent(outbound: &Outbound) -> (FakeWaClient, Jid, wa::Message, String) {
    let client = FakeWaClient::new();
    let id = send_outbound(&client, outbound, None).await.expect("sent");
    let mut sends = client.sent();
    assert_eq!(sends.len(), 1);
    let (to, message, sent_id) = sends.remove(0);
    assert_eq!(
        sent_id, id,
        "the answer is the id the message went out under"
    );
    (client, to, message, id)
}

fn jid(s: &str) -> Jid {
    s.parse().expect("a jid")
}

#[test]
fn addresses_become_whatsapp_addresses() {
    let valid = [
        ("5511999990000", "5511999990000@s.whatsapp.net"),
        ("+55 11 99999-0000", "5511999990000@s.whatsapp.net"),
        ("+1 (415) 555.0100", "14155550100@s.whatsapp.net"),
        ("  5511999990000  ", "5511999990000@s.whatsapp.net"),
        (
            "5511999990000@s.whatsapp.net",
            "5511999990000@s.whatsapp.net",
        ),
        ("5511999990000@c.us", "5511999990000@s.whatsapp.net"),
        ("120363025246125486@g.us", "120363025246125486@g.us"),
        (
            "5511999990000-1612345678@g.us",
            "5511999990000-1612345678@g.us",
        ),
        ("123456789012345@lid", "123456789012345@lid"),
    ];
    for (to, expected) in valid {
        assert_eq!(
            to_jid(to).map(|j| j.to_string()).ok().as_deref(),
            Some(expected),
            "{to:?}"
        );
    }
    let invalid = [
        "",
        "+",
        "12345",
        "1234567890123456",
        "55 11 9999O-0000",
        "5511999990000@example.com",
        "abc@g.us",
        "@g.us",
        "120363-@g.us",
        "12a@lid",
        "@lid",
        "5511999990000:3@s.whatsapp.net",
        "+5511999990000@s.whatsapp.net",
        "hello",
        "++5511999990000",
    ];
    for to in invalid {
        let error = to_jid(to).expect_err(to);
        assert_eq!(error.code, ErrorCode::ERR_WAPP_INVALID_CONTACT, "{to:?}");
    }
}

#[test]
fn ids_are_shaped_like_whatsapp_web_ids_and_derived_from_the_key() {
    let id = message_id(CONNECTION, Some("message-1"));
    assert_eq!(id.len(), 22);
    assert!(id.starts_with("3EB0"));
    assert!(
        id[4..]
            .chars()
            .all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c)),
        "{id}"
    );
    assert_eq!(id, message_id(CONNECTION, Some("message-1")));
    // The first 9 bytes of sha256(42 as 8 big-endian bytes ‖ "message-1"), computed apart.
    assert_eq!(id, "3EB06454D023DE2D6524F8");
    assert_ne!(id, message_id(CONNECTION, Some("message-2")));
    assert_ne!(id, message_id(WhatsappId(43), Some("message-1")));

    let random = message_id(CONNECTION, None);
    assert_eq!(random.len(), 22);
    assert!(random.starts_with("3EB0"));
    assert_ne!(random, message_id(CONNECTION, None));
}

#[tokio::test]
async fn a_retried_send_goes_out_under_the_same_id() {
    let client = FakeWaClient::new();
    let message = outbound("5511999990000", text("hello"));
    client.fail_next(FakeOp::Send, "socket closed mid-send");
    let error = send_outbound(&client, &message, None)
        .await
        .expect_err("the scripted failure");
    assert_eq!(error.code, ErrorCode::ERR_SENDING_WAPP_MSG);
    let id = send_outbound(&client, &message, None)
        .await
        .expect("the retry");
    let ids: Vec<String> = client.sent().into_iter().map(|(_, _, id)| id).collect();
    assert_eq!(ids, [id.clone(), id.clone()]);
    assert_eq!(id, message_id(CONNECTION, Some("message-1")));

    // Two messages without a key get two ids.
    let keyless = Outbound {
        idempotency_key: None,
        ..message
    };
    let a = send_outbound(&client, &keyless, None).await.expect("sent");
    let b = send_outbound(&client, &keyless, None).await.expect("sent");
    assert_ne!(a, b);
}

#[tokio::test]
async fn text_goes_out_plain_or_as_an_extended_text_with_its_quote() {
    let (_, to, message, _) = sent(&outbound("+55 11 99999-0000", text("hello"))).await;
    assert_eq!(to, jid("5511999990000@s.whatsapp.net"));
    assert_eq!(
        message,
        wa::Message {
            conversation: Some("hello".to_owned()),
            ..Default::default()
        }
    );

    // Only the quoted id is known: the reply carries it alone.
    let reply = Outbound {
        quoted_external_id: Some("3EB0QUOTED".to_owned()),
        ..outbound("5511999990000", text("yes"))
    };
    let (_, _, message, _) = sent(&reply).await;
    assert_eq!(message.conversation, None);
    let extended = message.extended_text_message.as_option().expect("extended");
    assert_eq!(extended.text.as_deref(), Some("yes"));
    let context = extended.context_info.as_option().expect("a quote");
    assert_eq!(context.stanza_id.as_deref(), Some("3EB0QUOTED"));
    assert_eq!(context.participant, None);
    assert!(context.quoted_message.as_option().is_none());

    // With the quoted message known: its sender and content go with it.
    let client = FakeWaClient::new();
    let quoted = QuotedMessage {
        sender: jid("5511999990000@s.whatsapp.net"),
        message: wa::Message {
            conversation: Some("are you open?".to_owned()),
            ..Default::default()
        },
    };
    send_outbound(&client, &reply, Some(&quoted))
        .await
        .expect("sent");
    let (_, message, _) = client.sent().remove(0);
    let context = message
        .extended_text_message
        .as_option()
        .and_then(|m| m.context_info.as_option())
        .expect("a quote");
    assert_eq!(context.stanza_id.as_deref(), Some("3EB0QUOTED"));
    assert_eq!(
        context.participant.as_deref(),
        Some("5511999990000@s.whatsapp.net")
    );
    assert_eq!(context.remote_jid, None, "a quote from the same chat");
    assert_eq!(
        context
            .quoted_message
            .as_option()
            .and_then(|m| m.conversation.as_deref()),
        Some("are you open?")
    );
}

#[tokio::test]
async fn media_is_uploaded_as_its_kind_and_the_message_carries_the_upload() {
    let cases = [
        (
            MediaType::Image,
            "photo.jpg",
            "image/jpeg",
            MediaKind::Image,
        ),
        (MediaType::Video, "clip.mp4", "video/mp4", MediaKind::Video),
        (
            MediaType::Audio,
            "audio-1.mp3",
            "audio/mpeg",
            MediaKind::Audio,
        ),
        (
            MediaType::Application,
            "invoice.pdf",
            "application/pdf",
            MediaKind::Document,
        ),
    ];
    for (media_type, file_name, mime, kind) in cases {
        let content = media(media_type, file_name, mime, "see this");
        let (client, _, message, _) = sent(&outbound("5511999990000", content)).await;
        let bytes = format!("the bytes of {file_name}").into_bytes();
        assert_eq!(client.uploads(), [(bytes.clone(), kind)], "{file_name}");
        let up = FakeWaClient::uploaded_for(&bytes, kind);
        let expected_fields = (
            Some(up.url.clone()),
            Some(up.direct_path.clone()),
            Some(up.media_key.to_vec()),
            Some(up.file_enc_sha256.to_vec()),
            Some(up.file_sha256.to_vec()),
            Some(up.file_length),
            Some(up.media_key_timestamp),
        );
        match kind {
            MediaKind::Image => {
                let m = message.image_message.as_option().expect("an image");
                assert_eq!(
                    (
                        m.url.clone(),
                        m.direct_path.clone(),
                        m.media_key.clone(),
                        m.file_enc_sha256.clone(),
                        m.file_sha256.clone(),
                        m.file_length,
                        m.media_key_timestamp
                    ),
                    expected_fields
                );
                assert_eq!(m.caption.as_deref(), Some("see this"));
                assert_eq!(m.mimetype.as_deref(), Some("image/jpeg"));
            }
            MediaKind::Video => {
                let m = message.video_message.as_option().expect("a video");
                assert_eq!(
                    (
                        m.url.clone(),
                        m.direct_path.clone(),
                        m.media_key.clone(),
                        m.file_enc_sha256.clone(),
                        m.file_sha256.clone(),
                        m.file_length,
                        m.media_key_timestamp
                    ),
                    expected_fields
                );
                assert_eq!(m.caption.as_deref(), Some("see this"));
                assert_eq!(m.mimetype.as_deref(), Some("video/mp4"));
            }
            MediaKind::Audio => {
                let m = message.audio_message.as_option().expect("an audio");
                assert_eq!(
                    (
                        m.url.clone(),
                        m.direct_path.clone(),
                        m.media_key.clone(),
                        m.file_enc_sha256.clone(),
                        m.file_sha256.clone(),
                        m.file_length,
                        m.media_key_timestamp
                    ),
                    expected_fields
                );
                assert_eq!(m.mimetype.as_deref(), Some("audio/mpeg"));
                assert_eq!(m.ptt, Some(false), "an MP3 is plain audio");
            }
            MediaKind::Document | MediaKind::Sticker => {
                let m = message.document_message.as_option().expect("a document");
                assert_eq!(
                    (
                        m.url.clone(),
                        m.direct_path.clone(),
                        m.media_key.clone(),
                        m.file_enc_sha256.clone(),
                        m.file_sha256.clone(),
                        m.file_length,
                        m.media_key_timestamp
                    ),
                    expected_fields
                );
                assert_eq!(m.caption.as_deref(), Some("see this"));
                assert_eq!(m.mimetype.as_deref(), Some("application/pdf"));
                assert_eq!(m.file_name.as_deref(), Some("invoice.pdf"));
                assert_eq!(m.title.as_deref(), Some("invoice.pdf"));
            }
        }
        assert_eq!(
            [
                message.image_message.is_set(),
                message.video_message.is_set(),
                message.audio_message.is_set(),
                message.document_message.is_set(),
            ]
            .iter()
            .filter(|set| **set)
            .count(),
            1,
            "{file_name}: one media part"
        );
    }
}

#[tokio::test]
async fn an_ogg_audio_goes_out_as_a_voice_note() {
    let content = media(MediaType::Audio, "note.opus", "audio/ogg", "");
    let (client, _, message, _) = sent(&outbound("5511999990000", content)).await;
    assert_eq!(client.uploads()[0].1, MediaKind::Audio);
    let audio = message.audio_message.as_option().expect("an audio");
    assert_eq!(audio.ptt, Some(true));
    assert_eq!(audio.mimetype.as_deref(), Some(VOICE_NOTE_MIME));
}

#[tokio::test]
async fn media_without_a_caption_or_type_gets_none_and_a_default_type() {
    let content = media(MediaType::Image, "x.jpg", "", "");
    let (_, _, message, _) = sent(&outbound("5511999990000", content)).await;
    let image = message.image_message.as_option().expect("an image");
    assert_eq!(image.caption, None);
    assert_eq!(image.mimetype.as_deref(), Some("image/jpeg"));
}

#[tokio::test]
async fn a_quoted_media_message_carries_its_quote() {
    let reply = Outbound {
        quoted_external_id: Some("3EB0QUOTED".to_owned()),
        ..outbound(
            "5511999990000",
            media(MediaType::Image, "p.jpg", "image/jpeg", ""),
        )
    };
    let (_, _, message, _) = sent(&reply).await;
    let context = message
        .image_message
        .as_option()
        .and_then(|m| m.context_info.as_option())
        .expect("a quote");
    assert_eq!(context.stanza_id.as_deref(), Some("3EB0QUOTED"));
}

#[tokio::test]
async fn a_contact_card_goes_out_as_a_vcard() {
    let card = ContactCard {
        name: "Ana; Souza, Jr".to_owned(),
        number: "+55 11 98888-7777".to_owned(),
    };
    assert_eq!(
        vcard(&card),
        "BEGIN:VCARD\nVERSION:3.0\nN:;Ana\\; Souza\\, Jr;;;\nFN:Ana\\; Souza\\, Jr\n\
         TEL;type=CELL;type=VOICE;waid=5511988887777:+5511988887777\nEND:VCARD"
    );
    let (_, _, message, _) = sent(&outbound(
        "5511999990000",
        OutboundContent::Contact { card: card.clone() },
    ))
    .await;
    let contact = message.contact_message.as_option().expect("a contact");
    assert_eq!(contact.display_name.as_deref(), Some("Ana; Souza, Jr"));
    assert_eq!(contact.vcard.as_deref(), Some(vcard(&card).as_str()));
}

#[tokio::test]
async fn a_location_goes_out_as_a_pin() {
    let (_, _, message, _) = sent(&outbound(
        "120363025246125486@g.us",
        OutboundContent::Location {
            latitude: f64_bits::F64::new(-23.5505),
            longitude: f64_bits::F64::new(-46.6333),
            name: "Praça da Sé".to_owned(),
        },
    ))
    .await;
    let pin = message.location_message.as_option().expect("a location");
    assert_eq!(pin.degrees_latitude, Some(-23.5505));
    assert_eq!(pin.degrees_longitude, Some(-46.6333));
    assert_eq!(pin.name.as_deref(), Some("Praça da Sé"));
}

#[tokio::test]
async fn failures_answer_the_spec_codes_and_send_nothing_they_should_not() {
    // Not an address: nothing is tried.
    let client = FakeWaClient::new();
    let error = send_outbound(&client, &outbound("not a number", text("hi")), None)
        .await
        .expect_err("invalid");
    assert_eq!(error.code, ErrorCode::ERR_WAPP_INVALID_CONTACT);
    assert!(client.calls().is_empty());

    // Not connected: nothing is uploaded or sent.
    client.set_connected(false);
    let photo = outbound(
        "5511999990000",
        media(MediaType::Image, "p.jpg", "image/jpeg", ""),
    );
    let error = send_outbound(&client, &photo, None)
        .await
        .expect_err("not connected");
    assert_eq!(error.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    assert!(client.calls().is_empty());

    // A failed upload: the message is not sent.
    client.set_connected(true);
    client.fail_next(FakeOp::Upload, "media host refused");
    let error = send_outbound(&client, &photo, None)
        .await
        .expect_err("upload failed");
    assert_eq!(error.code, ErrorCode::ERR_SENDING_WAPP_MSG);
    assert!(
        error
            .detail
            .as_deref()
            .is_some_and(|d| d.contains("media host refused")),
        "{error:?}"
    );
    assert_eq!(client.uploads().len(), 1);
    assert!(client.sent().is_empty());

    // A refused send.
    client.fail_next(FakeOp::Send, "server nack 479");
    let error = send_outbound(&client, &outbound("5511999990000", text("hi")), None)
        .await
        .expect_err("send failed");
    assert_eq!(error.code, ErrorCode::ERR_SENDING_WAPP_MSG);
}
