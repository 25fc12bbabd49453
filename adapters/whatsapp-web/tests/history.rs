//! The phone's history (`Event::HistorySync`) as the inbox's `InboundEvent::History`: parts
//! built with the fake's history builder (zlib-compressed, as WhatsApp sends them), mapped with
//! `map_event`. Each message must be what the same message is live; attachments wait for the
//! import's download, which `download_again` does with the locator given here.

use std::sync::Arc;

use chatflow_core::ErrorCode;
use chatflow_core::inbox::channel::{HistoryChunk, InboundEvent, InboundMessage as Message};
use chatflow_core::inbox::model::MediaType;
use chatflow_whatsapp_web::client::MediaMessageKey;
use chatflow_whatsapp_web::fake::{
    FakeCall, FakeHistory, FakeWaClient, HistoryMessage, history_sync,
};
use chatflow_whatsapp_web::inbound::{
    MAX_MEDIA_BYTES, REUPLOAD_TIMEOUT, download_again, failed_media, history_chunk, map_event,
    map_message, media_of, open_locator,
};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::buffa::MessageField;
use chatflow_whatsapp_web::whatsapp_rust::chrono::{DateTime, TimeZone, Utc};
use chatflow_whatsapp_web::whatsapp_rust::types::events::{Event, InboundMessage, LazyHistorySync};
use chatflow_whatsapp_web::whatsapp_rust::types::message::{MessageInfo, MessageSource};
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::history_sync::HistorySyncType;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::message::protocol_message::Type as ProtocolType;

const NUMBER: &str = "5511999990000";
const LID: &str = "123456789012345@lid";
const GROUP: &str = "120363000000000001@g.us";

fn jid(s: &str) -> Jid {
    s.parse().expect("a valid address")
}

fn ana() -> Jid {
    jid(&format!("{NUMBER}@s.whatsapp.net"))
}

fn at() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 14, 15, 9, 26)
        .single()
        .expect("a valid time")
}

/// The one chunk `event` maps to.
fn chunk_of(event: &Event) -> HistoryChunk {
    match map_event(event).as_slice() {
        [InboundEvent::History(chunk)] => chunk.clone(),
        other => panic!("expected one history chunk, got {other:?}"),
    }
}

/// The messages of a part made of `history`.
fn messages(history: FakeHistory) -> Vec<Message> {
    chunk_of(&history.event()).messages
}

/// The one message of a part made of `history`.
fn only(history: FakeHistory) -> Message {
    match messages(history).as_slice() {
        [message] => message.clone(),
        other => panic!("expected one message, got {other:?}"),
    }
}

/// A contact's message as the inbox gets it, for the fields a test changes.
fn expected(id: &str, body: &str, media_type: MediaType) -> Message {
    Message {
        external_id: id.into(),
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

fn from_ana(id: &str, message: wa::Message) -> HistoryMessage {
    HistoryMessage::text(&ana(), id, "", at())
        .named("Ana Souza")
        .with_message(message)
}

fn text(body: &str) -> wa::Message {
    wa::Message {
        conversation: Some(body.into()),
        ..Default::default()
    }
}

fn image() -> wa::Message {
    wa::Message {
        image_message: MessageField::some(wa::message::ImageMessage {
            caption: Some("a nota fiscal".into()),
            mimetype: Some("image/jpeg".into()),
            direct_path: Some("/v/t62.7118-24/12345".into()),
            media_key: Some(vec![7; 32]),
            file_enc_sha256: Some(vec![8; 32]),
            file_sha256: Some(vec![9; 32]),
            file_length: Some(2048),
            jpeg_thumbnail: Some(vec![1; 64]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

// ------------------------------------------------------------------ as live

#[test]
fn a_text_is_the_message_it_would_have_been_live() {
    let history = only(FakeHistory::new().message(from_ana("3EB0OLD1", text("Olá, tudo bem?"))));
    assert_eq!(
        history,
        expected("3EB0OLD1", "Olá, tudo bem?", MediaType::Chat)
    );
    // The live path, fed the same message, says the same.
    let live = InboundMessage::builder()
        .message(Arc::new(text("Olá, tudo bem?")))
        .info(Arc::new(MessageInfo {
            source: MessageSource {
                chat: ana(),
                sender: jid(&format!("{NUMBER}:3@s.whatsapp.net")),
                ..Default::default()
            },
            id: "3EB0OLD1".into(),
            push_name: "Ana Souza".into(),
            timestamp: at(),
            ..Default::default()
        }))
        .build();
    assert_eq!(map_message(&live), Some(InboundEvent::Message(history)));
}

#[test]
fn quotes_locations_contact_cards_and_documents_map_as_live() {
    let quoting = wa::Message {
        extended_text_message: MessageField::some(wa::message::ExtendedTextMessage {
            text: Some("sobre isso".into()),
            context_info: MessageField::some(wa::ContextInfo {
                stanza_id: Some("3EB0QUOTED".into()),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let location = wa::Message {
        location_message: MessageField::some(wa::message::LocationMessage {
            degrees_latitude: Some(-23.55),
            degrees_longitude: Some(-46.63),
            name: Some("Loja Centro".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let card = wa::Message {
        contact_message: MessageField::some(wa::message::ContactMessage {
            display_name: Some("Bruno".into()),
            vcard: Some(
                "BEGIN:VCARD\nVERSION:3.0\nFN:Bruno\nTEL;waid=5511888880000:+55 11 88888-0000\nEND:VCARD"
                    .into(),
            ),
            ..Default::default()
        }),
        ..Default::default()
    };
    let document = wa::Message {
        document_message: MessageField::some(wa::message::DocumentMessage {
            file_name: Some("contrato.pdf".into()),
            mimetype: Some("application/pdf".into()),
            direct_path: Some("/v/doc".into()),
            media_key: Some(vec![3; 32]),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mapped = messages(
        FakeHistory::new()
            .message(from_ana("Q", quoting))
            .message(from_ana("L", location))
            .message(from_ana("C", card))
            .message(from_ana("D", document)),
    );
    let summary: Vec<(&str, MediaType, &str, Option<&str>)> = mapped
        .iter()
        .map(|m| {
            (
                m.external_id.as_str(),
                m.media_type,
                m.body.as_str(),
                m.quoted_external_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("Q", MediaType::Chat, "sobre isso", Some("3EB0QUOTED")),
            (
                "L",
                MediaType::Location,
                "Loja Centro\nhttps://maps.google.com/maps?q=-23.55,-46.63",
                None
            ),
            ("C", MediaType::ContactCard, "Bruno\n5511888880000", None),
            ("D", MediaType::Application, "contrato.pdf", None),
        ]
    );
    // The document waits for its download under its own name.
    let document = mapped[3].media_failed.as_ref().expect("a file to download");
    assert_eq!(document.file_name, "contrato.pdf");
    assert_eq!(document.mime_type, "application/pdf");
}

// -------------------------------------------------------------- attachments

#[tokio::test]
async fn an_image_comes_without_its_file_and_the_locator_downloads_it() {
    let message = only(FakeHistory::new().message(from_ana("3EB0IMG", image())));
    assert_eq!(message.media, None, "not downloaded with the history");
    let failed = message
        .media_failed
        .clone()
        .expect("what the download needs");
    assert_eq!(
        Message {
            media_failed: None,
            ..message
        },
        expected("3EB0IMG", "a nota fiscal", MediaType::Image)
    );
    assert_eq!(failed.media_type, MediaType::Image);
    assert_eq!(failed.file_name, "3EB0IMG.jpg");
    assert_eq!(failed.mime_type, "image/jpeg");
    // The live path's locator, for the same message.
    let info = media_of(&image()).expect("an attachment");
    let key = MediaMessageKey {
        chat: ana(),
        id: "3EB0IMG".into(),
        from_me: false,
        participant: None,
    };
    assert_eq!(
        *failed,
        failed_media(&image(), "3EB0IMG", &info, Some(&key))
    );
    let (_, kept) = open_locator(&failed.locator).expect("our locator");
    assert_eq!(kept, Some(key), "the key a re-upload needs");

    // The import's download goes through the same path as a live retry.
    let client = FakeWaClient::new();
    client.push_download(b"jpeg bytes".to_vec());
    let media = download_again(&client, &failed).await.expect("downloaded");
    assert_eq!(media.bytes, b"jpeg bytes");
    assert_eq!(media.file_name, "3EB0IMG.jpg");
    assert_eq!(media.media_type, MediaType::Image);
    let mut without_thumbnail = image();
    if let Some(image) = without_thumbnail.image_message.as_option_mut() {
        image.jpeg_thumbnail = None;
    }
    assert_eq!(
        client.calls(),
        [FakeCall::Download {
            message: without_thumbnail
        }]
    );
}

// ------------------------------------------------- a file WhatsApp no longer holds

/// A group member's photo, as a history part keeps it (its key names the writer).
fn group_photo() -> Message {
    let group = jid(GROUP);
    let bia = jid("5511888880000@s.whatsapp.net");
    only(
        FakeHistory::new().message(
            HistoryMessage::text(&group, "3EB0GONE", "", at())
                .by(&bia)
                .with_message(image()),
        ),
    )
}

fn image_at(path: &str) -> wa::Message {
    let mut moved = image();
    if let Some(image) = moved.image_message.as_option_mut() {
        image.jpeg_thumbnail = None;
        image.direct_path = Some(path.into());
    }
    moved
}

/// A 410 from the media host: the phone is asked to upload the file again (the message's key
/// and media key), and the download from the new path brings it.
#[tokio::test]
async fn a_file_gone_from_the_servers_is_uploaded_again_by_the_phone() {
    let failed = group_photo().media_failed.expect("what the download needs");
    let client = FakeWaClient::new();
    client.push_download_gone(410);
    client.answer_reupload("/v/t62.7118-24/reuploaded");
    client.push_download(b"jpeg bytes".to_vec());

    let media = download_again(&client, &failed).await.expect("downloaded");
    assert_eq!(media.bytes, b"jpeg bytes");
    assert_eq!(media.file_name, "3EB0GONE.jpg");
    assert_eq!(
        client.calls(),
        [
            FakeCall::Download {
                message: image_at("/v/t62.7118-24/12345")
            },
            FakeCall::MediaReupload {
                key: MediaMessageKey {
                    chat: jid(GROUP),
                    id: "3EB0GONE".into(),
                    from_me: false,
                    participant: Some(jid("5511888880000@s.whatsapp.net")),
                },
                media_key: vec![7; 32],
            },
            FakeCall::Download {
                message: image_at("/v/t62.7118-24/reuploaded")
            },
        ]
    );
}

/// A phone that does not answer within the bound leaves the download failed.
#[tokio::test(start_paused = true)]
async fn a_phone_that_does_not_answer_leaves_the_download_failed() {
    let failed = group_photo().media_failed.expect("what the download needs");
    let client = FakeWaClient::new();
    client.push_download_gone(404);
    let started = tokio::time::Instant::now();
    let error = download_again(&client, &failed)
        .await
        .expect_err("not downloaded");
    assert_eq!(error.code, ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA);
    assert!(
        started.elapsed() >= REUPLOAD_TIMEOUT,
        "waited for the phone"
    );
    assert!(
        error
            .detail
            .as_deref()
            .unwrap_or_default()
            .contains("did not answer"),
        "{error:?}"
    );
    let downloads = client
        .calls()
        .iter()
        .filter(|c| matches!(c, FakeCall::Download { .. }))
        .count();
    assert_eq!(downloads, 1, "no second download without a new path");

    // A phone that answers it cannot upload the file fails too.
    client.push_download_gone(410);
    client.refuse_reupload("the phone deleted the file");
    let error = download_again(&client, &failed)
        .await
        .expect_err("not downloaded");
    assert_eq!(error.code, ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA);
}

/// A locator written before the key was kept (the message's base64 alone) still downloads; a
/// file gone then is a plain failure, with no re-upload asked.
#[tokio::test]
async fn an_old_locator_still_downloads_without_a_reupload() {
    use base64::Engine as _;
    use chatflow_whatsapp_web::whatsapp_rust::buffa::Message as _;
    let info = media_of(&image()).expect("an attachment");
    let mut old = failed_media(&image(), "3EB0OLD", &info, None);
    old.locator = base64::engine::general_purpose::STANDARD
        .encode(image_at("/v/t62.7118-24/12345").encode_to_vec());
    let (message, key) = open_locator(&old.locator).expect("an old locator opens");
    assert_eq!((message, key), (image_at("/v/t62.7118-24/12345"), None));

    let client = FakeWaClient::new();
    client.push_download(b"jpeg bytes".to_vec());
    let media = download_again(&client, &old).await.expect("downloaded");
    assert_eq!(media.bytes, b"jpeg bytes");

    client.push_download_gone(410);
    let error = download_again(&client, &old)
        .await
        .expect_err("gone, and no key to ask with");
    assert_eq!(error.code, ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA);
    assert!(
        !client
            .calls()
            .iter()
            .any(|c| matches!(c, FakeCall::MediaReupload { .. })),
        "no re-upload without the message's key"
    );
}

#[test]
fn an_attachment_over_the_download_limit_comes_as_its_kind_only() {
    let mut big = image();
    if let Some(image) = big.image_message.as_option_mut() {
        image.file_length = Some(MAX_MEDIA_BYTES + 1);
    }
    let message = only(FakeHistory::new().message(from_ana("3EB0BIG", big)));
    assert_eq!(message.media_type, MediaType::Image);
    assert_eq!(message.media_failed, None, "nothing to download");
}

// ------------------------------------------------------------- who and where

#[test]
fn a_message_sent_from_the_phone_is_named_by_the_conversation() {
    let sent = HistoryMessage::text(&ana(), "3EB0MINE", "já enviamos", at())
        .from_me()
        .named("Loja");
    assert_eq!(
        only(FakeHistory::new().message(sent.clone())),
        Message {
            external_id: "3EB0MINE".into(),
            // Our own push name names no contact.
            chat_name: String::new(),
            from_me: true,
            ..expected("3EB0MINE", "já enviamos", MediaType::Chat)
        }
    );
    // The conversation's name does.
    let named = only(
        FakeHistory::new()
            .chat_name(&ana(), "Ana (cliente)")
            .message(sent),
    );
    assert_eq!(named.chat_name, "Ana (cliente)");
    // A contact's push name wins over the conversation's name, as live.
    let theirs = only(
        FakeHistory::new()
            .chat_name(&ana(), "Ana (cliente)")
            .message(from_ana("3EB0THEIRS", text("oi"))),
    );
    assert_eq!(theirs.chat_name, "Ana Souza");
}

#[test]
fn a_group_message_names_the_group_and_the_writers_number() {
    let group = jid(GROUP);
    let writer = jid("123456789012345:2@lid");
    let history = FakeHistory::new()
        .chat_name(&group, "Clientes VIP")
        .lid_mapping(&jid(LID), &ana())
        .message(
            HistoryMessage::text(&group, "3EB0GRP", "bom dia, grupo", at())
                .by(&writer)
                .named("Ana Souza"),
        )
        .message(HistoryMessage::text(&group, "3EB0GRP2", "oi", at()).by(&jid("999@lid")))
        .message(HistoryMessage::text(&group, "3EB0GRP3", "nosso aviso", at()).from_me());
    let mapped = messages(history);
    assert_eq!(
        mapped[0],
        Message {
            chat: GROUP.into(),
            chat_name: "Clientes VIP".into(),
            is_group: true,
            participant: Some(NUMBER.into()),
            ..expected("3EB0GRP", "bom dia, grupo", MediaType::Chat)
        }
    );
    // A writer whose number the part does not tell is named by their LID.
    assert_eq!(mapped[1].participant.as_deref(), Some("999@lid"));
    // Ours names no participant.
    assert_eq!(
        (
            mapped[2].from_me,
            mapped[2].participant.as_deref(),
            mapped[2].chat_name.as_str()
        ),
        (true, None, "Clientes VIP")
    );
}

#[test]
fn a_lid_chat_is_the_number_the_part_maps_it_to_with_the_lid_as_alias() {
    let lid_chat = jid(LID);
    let message = only(
        FakeHistory::new()
            .lid_mapping(&lid_chat, &ana())
            .message(HistoryMessage::text(&lid_chat, "3EB0LID", "oi", at()).named("Ana Souza")),
    );
    assert_eq!(
        message,
        Message {
            aliases: vec![LID.into()],
            ..expected("3EB0LID", "oi", MediaType::Chat)
        }
    );
    // Sent from the phone to that chat: the same contact.
    let mine = only(
        FakeHistory::new()
            .lid_mapping(&lid_chat, &ana())
            .message(HistoryMessage::text(&lid_chat, "3EB0LIDME", "olá", at()).from_me()),
    );
    assert_eq!(
        (mine.chat.as_str(), mine.aliases.as_slice()),
        (NUMBER, &[LID.to_owned()][..])
    );
    // A chat by number whose LID the part tells carries the LID along.
    let by_number = only(
        FakeHistory::new()
            .lid_mapping(&lid_chat, &ana())
            .message(from_ana("3EB0PN", text("oi"))),
    );
    assert_eq!(by_number.aliases, [LID]);
    // Without a mapping the LID stays the chat.
    let unknown =
        only(FakeHistory::new().message(HistoryMessage::text(&lid_chat, "3EB0ALONE", "oi", at())));
    assert_eq!((unknown.chat.as_str(), unknown.aliases.len()), (LID, 0));
}

#[test]
fn a_conversations_own_number_resolves_its_lid() {
    let lid_chat = jid(LID);
    let mut history = FakeHistory::new()
        .message(HistoryMessage::text(&lid_chat, "3EB0CONV", "oi", at()))
        .to_proto();
    history.conversations[0].pn_jid = Some(ana().to_string());
    let message =
        match chatflow_whatsapp_web::inbound::history::history_messages(&history).as_slice() {
            [message] => message.clone(),
            other => panic!("expected one message, got {other:?}"),
        };
    assert_eq!(
        (message.chat.as_str(), message.aliases.as_slice()),
        (NUMBER, &[LID.to_owned()][..])
    );
}

// ------------------------------------------------------------ what is left out

fn protocol(kind: ProtocolType) -> wa::Message {
    wa::Message {
        protocol_message: MessageField::some(wa::message::ProtocolMessage {
            key: MessageField::some(wa::MessageKey {
                remote_jid: Some(ana().to_string()),
                id: Some("3EB0TARGET".into()),
                ..Default::default()
            }),
            r#type: Some(kind),
            edited_message: MessageField::some(text("editado")),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[test]
fn what_is_no_message_of_a_chat_is_left_out() {
    let reaction = wa::Message {
        reaction_message: MessageField::some(wa::message::ReactionMessage {
            key: MessageField::some(wa::MessageKey {
                id: Some("3EB0TARGET".into()),
                ..Default::default()
            }),
            text: Some("👍".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let stub = wa::WebMessageInfo {
        key: MessageField::some(wa::MessageKey {
            remote_jid: Some(ana().to_string()),
            from_me: Some(false),
            id: Some("3EB0STUB".into()),
            ..Default::default()
        }),
        message_timestamp: Some(1_741_964_966),
        message_stub_type: Some(wa::web_message_info::StubType::REVOKE),
        ..Default::default()
    };
    let mut without_time = from_ana("3EB0NOTIME", text("sem hora")).web_message_info();
    without_time.message_timestamp = None;
    let status = Jid::status_broadcast();
    let newsletter = jid("120363999999999999@newsletter");
    let history = FakeHistory::new()
        .message(from_ana("3EB0REVOKE", protocol(ProtocolType::REVOKE)))
        .message(from_ana("3EB0EDIT", protocol(ProtocolType::MESSAGE_EDIT)))
        .message(from_ana(
            "3EB0EPHEMERAL",
            protocol(ProtocolType::EPHEMERAL_SETTING),
        ))
        .message(from_ana("3EB0REACT", reaction))
        .message(from_ana("3EB0EMPTY", text("")))
        .web_message(&ana(), stub)
        .web_message(&ana(), without_time)
        .message(HistoryMessage::text(&status, "3EB0STATUS", "meu status", at()).by(&ana()))
        .message(HistoryMessage::text(
            &newsletter,
            "3EB0NEWS",
            "novidades",
            at(),
        ))
        .message(from_ana("3EB0KEPT", text("este fica")))
        .progress(40);
    let chunk = chunk_of(&history.event());
    let kept: Vec<&str> = chunk
        .messages
        .iter()
        .map(|m| m.external_id.as_str())
        .collect();
    assert_eq!(kept, ["3EB0KEPT"]);
    assert_eq!(chunk.progress, Some(40));
}

// ------------------------------------------------------------------ the part

#[test]
fn the_part_carries_the_phones_progress() {
    let event = history_sync(
        [
            from_ana("A", text("um")),
            HistoryMessage::text(&jid(GROUP), "B", "dois", at()).by(&ana()),
        ],
        Some(100),
    );
    let chunk = chunk_of(&event);
    assert_eq!(chunk.progress, Some(100));
    let ids: Vec<&str> = chunk
        .messages
        .iter()
        .map(|m| m.external_id.as_str())
        .collect();
    assert_eq!(ids, ["A", "B"]);
    // Without progress, none is said.
    assert_eq!(
        chunk_of(&history_sync([from_ana("A", text("um"))], None)).progress,
        None
    );
    // A part with no message still tells its progress (the import may be complete)...
    assert_eq!(
        chunk_of(&FakeHistory::new().progress(100).event()),
        HistoryChunk {
            messages: Vec::new(),
            progress: Some(100),
            on_demand: false,
        }
    );
    // ...and one with neither is nothing.
    assert_eq!(map_event(&FakeHistory::new().event()), []);
}

#[test]
fn full_recent_and_on_demand_parts_carry_messages_the_others_nothing() {
    for kind in [
        HistorySyncType::FULL,
        HistorySyncType::RECENT,
        HistorySyncType::ON_DEMAND,
    ] {
        let part = FakeHistory::of_type(kind)
            .message(from_ana("A", text("um")))
            .event();
        assert_eq!(chunk_of(&part).messages.len(), 1, "{kind:?}");
    }
    for kind in [
        HistorySyncType::PUSH_NAME,
        HistorySyncType::INITIAL_STATUS_V3,
        HistorySyncType::NON_BLOCKING_DATA,
    ] {
        let part = FakeHistory::of_type(kind)
            .message(from_ana("A", text("um")))
            .progress(50)
            .event();
        assert_eq!(map_event(&part), [], "{kind:?}");
    }
}

#[test]
fn a_part_that_does_not_decode_is_nothing() {
    let broken = LazyHistorySync::new(vec![0xFF, 0xFF, 0xFF].into(), 16, 0, None, Some(10));
    assert_eq!(history_chunk(&broken), None);
}
