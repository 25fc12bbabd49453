//! The library's decrypted messages and events as the inbox's events: messages built the way the
//! library hands them to the durability hook (a `wa::Message` and its `MessageInfo`), mapped
//! with `map_message` / `map_event`.

use std::sync::Arc;

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage as Message};
use chatflow_core::inbox::model::MediaType;
use chatflow_whatsapp_web::inbound::map::{self, MediaInfo, media_of};
use chatflow_whatsapp_web::inbound::{map_event, map_message};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::buffa::MessageField;
use chatflow_whatsapp_web::whatsapp_rust::chrono::{DateTime, TimeZone, Utc};
use chatflow_whatsapp_web::whatsapp_rust::types::call::{MissedCall, MissedReason};
use chatflow_whatsapp_web::whatsapp_rust::types::events::{
    Event, InboundMessage, OfflineSyncCompleted, Receipt,
};
use chatflow_whatsapp_web::whatsapp_rust::types::message::{MessageInfo, MessageSource};
use chatflow_whatsapp_web::whatsapp_rust::types::presence::ReceiptType;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::message::protocol_message::Type as ProtocolType;

const NUMBER: &str = "5511999990000";
const LID: &str = "123456789012345@lid";
const GROUP: &str = "120363000000000001@g.us";

fn jid(s: &str) -> Jid {
    s.parse().expect("a valid address")
}

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 15, 9, 26)
        .single()
        .expect("a valid time")
}

/// A one-to-one message from `from` (a phone number or a LID, with a device).
fn dm_info(from: &str, alt: Option<&str>) -> MessageInfo {
    let sender = jid(from);
    MessageInfo {
        source: MessageSource {
            chat: sender.to_non_ad(),
            sender,
            sender_alt: alt.map(jid),
            ..Default::default()
        },
        id: "3EB0A1B2C3D4E5F6A7B8C9".into(),
        push_name: "Ana Souza".into(),
        timestamp: at(),
        ..Default::default()
    }
}

fn from_contact() -> MessageInfo {
    dm_info(&format!("{NUMBER}:3@s.whatsapp.net"), None)
}

fn inbound(message: wa::Message, info: MessageInfo) -> InboundMessage {
    InboundMessage::builder()
        .message(Arc::new(message))
        .info(Arc::new(info))
        .build()
}

fn mapped(message: wa::Message, info: MessageInfo) -> Option<InboundEvent> {
    map_message(&inbound(message, info))
}

/// The inbox message a contact's plain message becomes, for the fields a test changes.
fn expected(body: &str, media_type: MediaType) -> Message {
    Message {
        external_id: "3EB0A1B2C3D4E5F6A7B8C9".into(),
        chat: NUMBER.into(),
        chat_name: "Ana Souza".into(),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.into(),
        media_type,
        media: None,
        quoted_external_id: None,
        timestamp: at(),
        aliases: Vec::new(),
        media_failed: None,
    }
}

fn message_of(event: Option<InboundEvent>) -> Message {
    match event {
        Some(InboundEvent::Message(m)) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

fn text(body: &str) -> wa::Message {
    wa::Message {
        conversation: Some(body.into()),
        ..Default::default()
    }
}

fn quoting(id: &str) -> MessageField<wa::ContextInfo> {
    MessageField::some(wa::ContextInfo {
        stanza_id: Some(id.into()),
        participant: Some(format!("{NUMBER}@s.whatsapp.net")),
        ..Default::default()
    })
}

// ------------------------------------------------------------------------------- texts

#[test]
fn a_text_from_a_contact_is_a_message_in_their_number() {
    assert_eq!(
        mapped(text("Olá, tudo bem?"), from_contact()),
        Some(InboundEvent::Message(expected(
            "Olá, tudo bem?",
            MediaType::Chat
        )))
    );
}

#[test]
fn an_extended_text_keeps_the_quoted_message() {
    let message = wa::Message {
        extended_text_message: MessageField::some(wa::message::ExtendedTextMessage {
            text: Some("veja https://example.org".into()),
            context_info: quoting("3EB0QUOTED"),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(message, from_contact())),
        Message {
            quoted_external_id: Some("3EB0QUOTED".into()),
            ..expected("veja https://example.org", MediaType::Chat)
        }
    );
}

#[test]
fn disappearing_and_view_once_wrappers_are_looked_through() {
    let inner = wa::Message {
        image_message: MessageField::some(wa::message::ImageMessage {
            caption: Some("once".into()),
            view_once: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    let view_once = wa::Message {
        view_once_message: MessageField::some(wa::message::FutureProofMessage {
            message: MessageField::some(inner),
        }),
        ..Default::default()
    };
    let ephemeral = wa::Message {
        ephemeral_message: MessageField::some(wa::message::FutureProofMessage {
            message: MessageField::some(view_once),
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(ephemeral, from_contact())),
        expected("once", MediaType::Image)
    );
}

// ------------------------------------------------------------------------------- media

#[test]
fn a_photo_is_an_image_with_its_caption_and_no_file_yet() {
    let message = wa::Message {
        image_message: MessageField::some(wa::message::ImageMessage {
            mimetype: Some("image/png".into()),
            caption: Some("o recibo".into()),
            direct_path: Some("/v/t62.7118-24/123".into()),
            context_info: quoting("3EB0PHOTOQ"),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        media_of(&message),
        Some(MediaInfo {
            media_type: MediaType::Image,
            mime_type: "image/png".into(),
            file_name: None,
            voice_note: false,
        })
    );
    assert_eq!(
        message_of(mapped(message, from_contact())),
        Message {
            quoted_external_id: Some("3EB0PHOTOQ".into()),
            ..expected("o recibo", MediaType::Image)
        }
    );
}

#[test]
fn videos_and_round_video_notes_are_videos() {
    let video = wa::message::VideoMessage {
        caption: Some("olha".into()),
        ..Default::default()
    };
    let message = wa::Message {
        video_message: MessageField::some(video.clone()),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(message, from_contact())),
        expected("olha", MediaType::Video)
    );
    let note = wa::Message {
        ptv_message: MessageField::some(wa::message::VideoMessage::default()),
        ..Default::default()
    };
    assert_eq!(
        media_of(&note).map(|m| (m.media_type, m.mime_type)),
        Some((MediaType::Video, "video/mp4".to_owned()))
    );
    assert_eq!(
        message_of(mapped(note, from_contact())),
        expected("", MediaType::Video)
    );
}

#[test]
fn a_voice_note_is_an_audio_recorded_as_such() {
    let message = wa::Message {
        audio_message: MessageField::some(wa::message::AudioMessage {
            mimetype: Some("audio/ogg; codecs=opus".into()),
            ptt: Some(true),
            seconds: Some(7),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        media_of(&message),
        Some(MediaInfo {
            media_type: MediaType::Audio,
            mime_type: "audio/ogg; codecs=opus".into(),
            file_name: None,
            voice_note: true,
        })
    );
    assert_eq!(
        message_of(mapped(message, from_contact())),
        expected("", MediaType::Audio)
    );
    let music = wa::Message {
        audio_message: MessageField::some(wa::message::AudioMessage::default()),
        ..Default::default()
    };
    assert_eq!(
        media_of(&music).map(|m| (m.mime_type, m.voice_note)),
        Some(("audio/mpeg".to_owned(), false))
    );
}

#[test]
fn a_document_shows_its_caption_or_else_its_file_name() {
    let document = wa::message::DocumentMessage {
        mimetype: Some("application/pdf".into()),
        file_name: Some("contrato.pdf".into()),
        title: Some("contrato".into()),
        ..Default::default()
    };
    let plain = wa::Message {
        document_message: MessageField::some(document.clone()),
        ..Default::default()
    };
    assert_eq!(
        media_of(&plain),
        Some(MediaInfo {
            media_type: MediaType::Application,
            mime_type: "application/pdf".into(),
            file_name: Some("contrato.pdf".into()),
            voice_note: false,
        })
    );
    assert_eq!(
        message_of(mapped(plain, from_contact())),
        expected("contrato.pdf", MediaType::Application)
    );
    // A captioned document comes wrapped.
    let captioned = wa::Message {
        document_with_caption_message: MessageField::some(wa::message::FutureProofMessage {
            message: MessageField::some(wa::Message {
                document_message: MessageField::some(wa::message::DocumentMessage {
                    caption: Some("segue o contrato".into()),
                    ..document
                }),
                ..Default::default()
            }),
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(captioned, from_contact())),
        expected("segue o contrato", MediaType::Application)
    );
}

#[test]
fn a_sticker_is_a_webp_image() {
    let message = wa::Message {
        sticker_message: MessageField::some(wa::message::StickerMessage {
            mimetype: Some("application/was".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        media_of(&message),
        Some(MediaInfo {
            media_type: MediaType::Image,
            mime_type: "image/webp".into(),
            file_name: None,
            voice_note: false,
        })
    );
    assert_eq!(
        message_of(mapped(message, from_contact())),
        expected("", MediaType::Image)
    );
}

// ------------------------------------------------------------------- locations, cards

#[test]
fn a_location_shows_its_name_address_and_a_map_link() {
    let message = wa::Message {
        location_message: MessageField::some(wa::message::LocationMessage {
            degrees_latitude: Some(-23.5505),
            degrees_longitude: Some(-46.6333),
            name: Some("Loja Centro".into()),
            address: Some("Praça da Sé, São Paulo".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(message, from_contact())),
        expected(
            "Loja Centro\nPraça da Sé, São Paulo\nhttps://maps.google.com/maps?q=-23.5505,-46.6333",
            MediaType::Location
        )
    );
    let live = wa::Message {
        live_location_message: MessageField::some(wa::message::LiveLocationMessage {
            degrees_latitude: Some(1.5),
            degrees_longitude: Some(2.25),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(live, from_contact())),
        expected(
            "https://maps.google.com/maps?q=1.5,2.25",
            MediaType::Location
        )
    );
}

const VCARD: &str = "BEGIN:VCARD\r\nVERSION:3.0\r\nN:Souza;Bruno;;;\r\nFN:Bruno Souza\r\n\
item1.TEL;type=CELL;waid=5521988887777:+55 21 98888-7777\r\nitem1.X-ABLabel:Celular\r\n\
TEL;type=WORK:+55 21 3333-4444\r\nEND:VCARD";

#[test]
fn a_contact_card_shows_the_name_and_numbers() {
    let message = wa::Message {
        contact_message: MessageField::some(wa::message::ContactMessage {
            display_name: Some("Bruno".into()),
            vcard: Some(VCARD.into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(message, from_contact())),
        expected("Bruno\n5521988887777\n552133334444", MediaType::ContactCard)
    );
    // Without a display name the card's FN names it; folded lines are joined.
    let folded =
        "BEGIN:VCARD\nFN:Carla\n  Dias\nTEL;waid=5531977776666:+55 31 97777-6666\nEND:VCARD";
    let several = wa::Message {
        contacts_array_message: MessageField::some(wa::message::ContactsArrayMessage {
            display_name: Some("2 contatos".into()),
            contacts: vec![
                wa::message::ContactMessage {
                    vcard: Some(folded.into()),
                    ..Default::default()
                },
                wa::message::ContactMessage {
                    display_name: Some("Bruno".into()),
                    vcard: Some(VCARD.into()),
                    ..Default::default()
                },
            ],
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(several, from_contact())).body,
        "Carla Dias\n5531977776666\n\nBruno\n5521988887777\n552133334444"
    );
}

// ------------------------------------------------------- reactions, edits, deletions

fn key(id: &str) -> MessageField<wa::MessageKey> {
    MessageField::some(wa::MessageKey {
        remote_jid: Some(format!("{NUMBER}@s.whatsapp.net")),
        from_me: Some(true),
        id: Some(id.into()),
        ..Default::default()
    })
}

fn reaction(emoji: &str) -> wa::Message {
    wa::Message {
        reaction_message: MessageField::some(wa::message::ReactionMessage {
            key: key("3EB0OURS"),
            text: Some(emoji.into()),
            sender_timestamp_ms: Some(1_773_500_966_000),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn a_contacts_reaction_is_set_and_removed() {
    assert_eq!(
        mapped(reaction("👍"), from_contact()),
        Some(InboundEvent::Reaction {
            external_id: "3EB0OURS".into(),
            chat: NUMBER.into(),
            emoji: "👍".into(),
        })
    );
    assert_eq!(
        mapped(reaction(""), from_contact()),
        Some(InboundEvent::Reaction {
            external_id: "3EB0OURS".into(),
            chat: NUMBER.into(),
            emoji: String::new(),
        })
    );
}

#[test]
fn a_reaction_made_on_the_connected_phone_is_left_out() {
    let mut info = from_contact();
    info.source.is_from_me = true;
    assert_eq!(mapped(reaction("❤️"), info), None);
}

fn protocol(kind: ProtocolType, edited: Option<wa::Message>) -> wa::Message {
    wa::Message {
        protocol_message: MessageField::some(wa::message::ProtocolMessage {
            key: key("3EB0ORIGINAL"),
            r#type: Some(kind),
            edited_message: edited.map(MessageField::some).unwrap_or_default(),
            timestamp_ms: Some(1_773_500_999_500),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn an_edit_carries_the_new_text_and_its_time() {
    let edit = protocol(ProtocolType::MESSAGE_EDIT, Some(text("corrigido")));
    let expected = Some(InboundEvent::Edit {
        external_id: "3EB0ORIGINAL".into(),
        body: "corrigido".into(),
        timestamp: DateTime::from_timestamp_millis(1_773_500_999_500).expect("a valid time"),
    });
    assert_eq!(mapped(edit.clone(), from_contact()), expected);
    // The phone sends edits wrapped as an edited message.
    let wrapped = wa::Message {
        edited_message: MessageField::some(wa::message::FutureProofMessage {
            message: MessageField::some(edit),
        }),
        ..Default::default()
    };
    assert_eq!(mapped(wrapped, from_contact()), expected);
    // A new caption is the new text too.
    let caption = protocol(
        ProtocolType::MESSAGE_EDIT,
        Some(wa::Message {
            image_message: MessageField::some(wa::message::ImageMessage {
                caption: Some("nova legenda".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
    );
    assert!(matches!(
        mapped(caption, from_contact()),
        Some(InboundEvent::Edit { body, .. }) if body == "nova legenda"
    ));
}

#[test]
fn a_revoke_deletes_the_message_for_everyone() {
    assert_eq!(
        mapped(protocol(ProtocolType::REVOKE, None), from_contact()),
        Some(InboundEvent::Delete {
            external_id: "3EB0ORIGINAL".into()
        })
    );
}

// ------------------------------------------------------------- who and where

#[test]
fn a_lid_sender_with_a_phone_alias_is_their_number() {
    let info = dm_info(
        "123456789012345:7@lid",
        Some(&format!("{NUMBER}@s.whatsapp.net")),
    );
    // The LID goes along: the same person, one contact.
    assert_eq!(
        message_of(mapped(text("oi"), info)),
        Message {
            aliases: vec![LID.into()],
            ..expected("oi", MediaType::Chat)
        }
    );
    // Addressed by number with the LID as the alternative: the same.
    let info = dm_info(
        &format!("{NUMBER}:3@s.whatsapp.net"),
        Some("123456789012345@lid"),
    );
    assert_eq!(message_of(mapped(text("oi"), info)).aliases, vec![LID]);
}

#[test]
fn a_lid_sender_without_a_phone_alias_keeps_the_lid() {
    let info = dm_info("123456789012345:7@lid", None);
    let message = message_of(mapped(text("oi"), info));
    assert_eq!(message.chat, LID);
    assert_eq!(message.chat_name, "Ana Souza");
    // A reaction under a LID names the same chat.
    let info = dm_info("123456789012345@lid", None);
    assert!(matches!(
        mapped(reaction("😂"), info),
        Some(InboundEvent::Reaction { chat, .. }) if chat == LID
    ));
}

fn group_info(sender: &str, alt: Option<&str>) -> MessageInfo {
    MessageInfo {
        source: MessageSource {
            chat: jid(GROUP),
            sender: jid(sender),
            is_group: true,
            sender_alt: alt.map(jid),
            ..Default::default()
        },
        id: "3EB0A1B2C3D4E5F6A7B8C9".into(),
        push_name: "Ana Souza".into(),
        timestamp: at(),
        ..Default::default()
    }
}

#[test]
fn a_group_message_names_the_group_and_the_participants_number() {
    let info = group_info(
        "123456789012345:2@lid",
        Some(&format!("{NUMBER}:2@s.whatsapp.net")),
    );
    assert_eq!(
        message_of(mapped(text("bom dia, grupo"), info)),
        Message {
            chat: GROUP.into(),
            // The push name is the participant's: it does not rename the group.
            chat_name: String::new(),
            is_group: true,
            participant: Some(NUMBER.into()),
            ..expected("bom dia, grupo", MediaType::Chat)
        }
    );
    // A participant known only by LID is named by it.
    let info = group_info("123456789012345:2@lid", None);
    assert_eq!(
        message_of(mapped(text("oi"), info)).participant.as_deref(),
        Some(LID)
    );
    // Reactions in a group name the group.
    let info = group_info(&format!("{NUMBER}@s.whatsapp.net"), None);
    assert!(matches!(
        mapped(reaction("🙏"), info),
        Some(InboundEvent::Reaction { chat, .. }) if chat == GROUP
    ));
}

#[test]
fn a_message_sent_from_the_phone_belongs_to_its_recipient() {
    // The phone's own device sends under our LID to the contact's LID; the stanza names the
    // contact's number.
    let own = jid("987654321098765:0@lid");
    let info = MessageInfo {
        source: MessageSource {
            chat: jid(LID),
            sender: own,
            is_from_me: true,
            recipient: Some(jid(LID)),
            ..Default::default()
        },
        id: "3EB0FROMPHONE".into(),
        push_name: "Loja".into(),
        timestamp: at(),
        peer_recipient_pn: Some(jid(&format!("{NUMBER}@s.whatsapp.net"))),
        ..Default::default()
    };
    let sent = wa::Message {
        device_sent_message: MessageField::some(wa::message::DeviceSentMessage {
            destination_jid: Some(format!("{NUMBER}@s.whatsapp.net")),
            message: MessageField::some(text("já enviamos")),
            ..Default::default()
        }),
        ..Default::default()
    };
    assert_eq!(
        message_of(mapped(sent, info)),
        Message {
            external_id: "3EB0FROMPHONE".into(),
            // Our own push name names no contact.
            chat_name: String::new(),
            from_me: true,
            aliases: vec![LID.into()],
            ..expected("já enviamos", MediaType::Chat)
        }
    );
}

// -------------------------------------------------------------- what shows nothing

#[test]
fn messages_the_inbox_shows_nothing_of_map_to_nothing() {
    let key_distribution = wa::Message {
        sender_key_distribution_message: MessageField::some(
            wa::message::SenderKeyDistributionMessage {
                group_id: Some(GROUP.into()),
                ..Default::default()
            },
        ),
        ..Default::default()
    };
    let ephemeral_setting = protocol(ProtocolType::EPHEMERAL_SETTING, None);
    let poll = wa::Message {
        poll_creation_message: MessageField::some(wa::message::PollCreationMessage {
            name: Some("pizza?".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    for (what, message) in [
        ("key distribution", key_distribution),
        ("ephemeral setting", ephemeral_setting),
        ("poll", poll),
        ("empty text", text("")),
        ("nothing at all", wa::Message::default()),
    ] {
        assert_eq!(mapped(message, from_contact()), None, "{what}");
    }
    // A status update is no chat of the inbox.
    let mut status = from_contact();
    status.source.chat = Jid::status_broadcast();
    assert_eq!(mapped(text("meu status"), status), None);
}

#[test]
fn a_broadcast_list_message_reaches_the_senders_chat() {
    let mut info = from_contact();
    info.source.chat = jid("1700000000@broadcast");
    info.source.is_group = true;
    info.source.broadcast_list_owner = Some(info.source.sender.clone());
    assert_eq!(
        message_of(mapped(text("promoção"), info)),
        expected("promoção", MediaType::Chat)
    );
}

// ------------------------------------------------------- receipts and calls

fn receipt(kind: ReceiptType, ids: &[&str]) -> Event {
    Event::Receipt(
        Receipt::builder()
            .source(MessageSource {
                chat: jid(&format!("{NUMBER}@s.whatsapp.net")),
                sender: jid(&format!("{NUMBER}:3@s.whatsapp.net")),
                ..Default::default()
            })
            .message_ids(ids.iter().map(|id| (*id).to_owned()).collect())
            .timestamp(at())
            .r#type(kind)
            .offline(false)
            .build(),
    )
}

fn acks(events: Vec<InboundEvent>) -> Vec<(String, i64)> {
    events
        .into_iter()
        .map(|e| match e {
            InboundEvent::Ack { external_id, ack } => (external_id, ack),
            other => panic!("expected an ack, got {other:?}"),
        })
        .collect()
}

#[test]
fn receipts_are_acks_per_message() {
    assert_eq!(
        acks(map_event(&receipt(ReceiptType::Delivered, &["A", "B"]))),
        [("A".to_owned(), 2), ("B".to_owned(), 2)]
    );
    for (kind, ack) in [
        (ReceiptType::Sent, map::ACK_SENT),
        (ReceiptType::Delivered, map::ACK_DELIVERED),
        (ReceiptType::Read, map::ACK_READ),
        (ReceiptType::Played, map::ACK_PLAYED),
        (ReceiptType::ServerError, map::ACK_ERROR),
    ] {
        assert_eq!(
            acks(map_event(&receipt(kind.clone(), &["A"]))),
            [("A".to_owned(), ack)],
            "{kind:?}"
        );
    }
    assert_eq!(
        [
            map::ACK_ERROR,
            map::ACK_SENT,
            map::ACK_DELIVERED,
            map::ACK_READ,
            map::ACK_PLAYED
        ],
        [-1, 1, 2, 3, 4]
    );
    // Our own devices' reads, retries and the like say nothing about the contact.
    for kind in [
        ReceiptType::ReadSelf,
        ReceiptType::PlayedSelf,
        ReceiptType::Retry,
        ReceiptType::Sender,
        ReceiptType::Inactive,
        ReceiptType::HistorySync,
    ] {
        assert_eq!(map_event(&receipt(kind.clone(), &["A"])), [], "{kind:?}");
    }
}

#[test]
fn a_missed_call_is_one_event_in_the_callers_chat() {
    let call = Event::MissedCall(MissedCall::new(
        jid(&format!("{NUMBER}:5@s.whatsapp.net")),
        "CALL0123456789ABCDEF".into(),
        at(),
        MissedReason::Offline,
    ));
    assert_eq!(
        map_event(&call),
        [InboundEvent::MissedCall {
            external_id: "CALL0123456789ABCDEF".into(),
            chat: NUMBER.into(),
            chat_name: String::new(),
            timestamp: at(),
        }]
    );
    let from_lid = Event::MissedCall(MissedCall::new(
        jid("123456789012345:1@lid"),
        "CALL2".into(),
        at(),
        MissedReason::Remote,
    ));
    assert!(matches!(
        map_event(&from_lid).as_slice(),
        [InboundEvent::MissedCall { chat, .. }] if chat == LID
    ));
}

#[test]
fn a_number_change_names_the_new_number_with_the_old_identities() {
    let change = Event::ContactNumberChanged(
        chatflow_whatsapp_web::whatsapp_rust::types::events::ContactNumberChanged::builder()
            .old_jid(jid(&format!("{NUMBER}@s.whatsapp.net")))
            .new_jid(jid("5511888880000@s.whatsapp.net"))
            .old_lid(jid(LID))
            .new_lid(jid("555@lid"))
            .timestamp(at())
            .build(),
    );
    assert_eq!(
        map_event(&change),
        [InboundEvent::Identities {
            chat: "5511888880000".into(),
            aliases: vec!["555@lid".into(), NUMBER.into(), LID.into()],
        }]
    );
}

#[test]
fn session_and_other_events_are_not_the_ingestors() {
    let messages = Event::Messages(
        chatflow_whatsapp_web::whatsapp_rust::types::events::MessageBatch::builder()
            .messages(vec![inbound(text("oi"), from_contact())].into())
            .origin(chatflow_whatsapp_web::whatsapp_rust::types::events::BatchOrigin::Live)
            .build(),
    );
    // Messages come through the hook, not as events.
    assert_eq!(map_event(&messages), []);
}

/// The end of WhatsApp's offline backlog is the inbox's `CaughtUp`, whatever its count (an empty
/// backlog ends too).
#[test]
fn the_end_of_the_offline_backlog_is_caught_up() {
    for count in [0, 12] {
        assert_eq!(
            map_event(&Event::OfflineSyncCompleted(
                OfflineSyncCompleted::builder().count(count).build()
            )),
            [InboundEvent::CaughtUp]
        );
    }
}
