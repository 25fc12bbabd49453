//! The WhatsApp Web provider (`beta`) through the server, on both engines, with its sessions on
//! the scripted fake (`chatflow_whatsapp_web::fake`) in place of the library's socket: everything
//! between the library's events and the API is the real code (the supervisor, the provider, the
//! ingestion, the realtime log).
//!
//! - The providers the server runs and the default of a new connection.
//! - A session started from the API shows its QR code, links by pair code, connects with the
//!   phone's number; a message from a contact becomes a pending ticket; the attendant's answer
//!   reaches WhatsApp under an idempotent id; a receipt moves its ack; an edit and a reaction
//!   reach the client; disconnecting logs the device out.
//! - Another company can neither drive the connection nor read what it received.
//! - Two servers on one database: a session runs on one of them; when that one shuts down, the
//!   other takes the connection over.
//! - A file that could not be downloaded shows its error and is tried again on request; another
//!   company cannot.
//! - A company that takes no calls: a ringing call is declined, shown in the ticket and answered
//!   once; a company that takes calls lets the phone ring.
//! - One person is one contact: a LID, the number with the LID, the LID the session can resolve,
//!   and a number change all reach the same contact and ticket.
//! - With the import of old messages on, the link asks for the whole history; the phone's history
//!   becomes pending tickets in the import queue, oldest first at the messages' own times, with
//!   nothing sent to the contacts; the progress is reported and the button closes the tickets.
//! - The contacts whose tickets one batch of messages opened get their pictures from the phone
//!   by one job (one connection read), a picture or none each; a later ticket within the day
//!   does not look again.
//! - The contacts the phone syncs (its address book) are what `POST /contacts/import/chats`
//!   imports from the connection, by number and with the address book's names; another company
//!   cannot import from it.

use std::sync::Arc;
use std::time::Duration;

use chatflow_core::WhatsappId;
use chatflow_whatsapp_web::client::NumberCheck;
use chatflow_whatsapp_web::fake::{
    FakeCall, FakeHistory, FakeOp, FakeSessionHandle, HistoryMessage, contact_update,
    push_name_update, text_from,
};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::call::{
    CallAction, IncomingCall, MissedCall, MissedReason,
};
use chatflow_whatsapp_web::whatsapp_rust::types::events::{
    ContactNumberChanged, Event, InboundMessage, PairSuccess, PairingQrCode, Receipt,
};
use chatflow_whatsapp_web::whatsapp_rust::types::message::MessageSource;
use chatflow_whatsapp_web::whatsapp_rust::types::presence::ReceiptType;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Backend, MemberOptions, TestApp, assert_error, json_of, run};
use crate::tickets::inbox_tests;

const CONTACT: &str = "5511977776666";
const PHONE: &str = "5511988887777";

inbox_tests!(
    a_whatsapp_web_connection_end_to_end,
    another_company_cannot_drive_or_read_the_connection,
    a_second_server_takes_the_session_over,
    a_group_is_named_by_its_subject,
    one_person_under_a_lid_and_a_number_is_one_contact,
    a_file_that_could_not_be_downloaded_is_tried_again,
    calls_are_declined_and_answered_when_the_company_takes_none,
    the_phones_history_is_imported_when_the_import_is_on,
    the_phones_contacts_are_imported_from_the_connection,
);

/// The tests that count the jobs they run: on the manual clock, no background worker.
mod clocked {
    use super::new_contacts_pictures_are_looked_up_by_one_job_per_batch;
    crate::clocked_tests!(new_contacts_pictures_are_looked_up_by_one_job_per_batch);
}

/// Without the sandbox, the server runs `beta` only and new connections get it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_sandbox_beta_is_the_only_provider() {
    run(
        Backend::Sqlite,
        |c| c.sandbox = Some(false),
        |app: TestApp| async move {
            let (_, token) = admin(&app, "Solo").await;
            let providers =
                json_of(app.get("/whatsapp/providers", &token).await, StatusCode::OK).await;
            assert_eq!(providers, json!({"providers": ["beta"], "default": "beta"}));
        },
    )
    .await;
}

async fn admin(app: &TestApp, name: &str) -> (chatflow_core::CompanyId, String) {
    let company = app.company(name).await;
    let member = app
        .member(
            company,
            &format!("boss@{}.test", name.to_lowercase()),
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    (company, app.token_of(&member).await)
}

/// Polls `GET /whatsapp/{id}` until `ready` holds for it (panics after 10 s).
pub(crate) async fn connection_when(
    app: &TestApp,
    token: &str,
    id: i64,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = json_of(
            app.get(&format!("/whatsapp/{id}"), token).await,
            StatusCode::OK,
        )
        .await;
        if ready(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the connection never got ready: {last}");
}

/// The next fake session the server starts (panics after 10 s).
async fn next_session(app: &TestApp) -> FakeSessionHandle {
    tokio::time::timeout(Duration::from_secs(10), app.whatsapp.next_session())
        .await
        .expect("the server starts a WhatsApp session")
}

/// A connection created with `body` (a `POST /whatsapp` body), its session started and the fake
/// phone linked: its id and the running session.
async fn linked(app: &TestApp, token: &str, body: Value) -> (i64, FakeSessionHandle) {
    let created = json_of(app.post("/whatsapp", token, &body).await, StatusCode::OK).await;
    let id = created["id"].as_i64().expect("id");
    assert_eq!(
        app.post(&format!("/whatsappsession/{id}"), token, &json!({}))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let run = next_session(app).await;
    run.connect();
    (id, run)
}

/// Polls until `ready` holds (panics after 10 s).
async fn eventually(what: &str, ready: impl Fn() -> bool) {
    for _ in 0..200 {
        if ready() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} never happened");
}

/// The pending ticket of `number`: its id and uuid, once it exists (panics after 10 s).
async fn ticket_of(app: &TestApp, token: &str, number: &str) -> (i64, String) {
    for _ in 0..200 {
        let page = json_of(
            app.get("/tickets?showAll=true&status=pending", token).await,
            StatusCode::OK,
        )
        .await;
        let found = page["tickets"].as_array().and_then(|list| {
            list.iter()
                .find(|t| t["contact"]["number"] == number)
                .map(|t| {
                    (
                        t["id"].as_i64().unwrap_or_default(),
                        t["uuid"].as_str().unwrap_or_default().to_owned(),
                    )
                })
        });
        if let Some(found) = found {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no pending ticket for {number}");
}

async fn messages_of(app: &TestApp, token: &str, uuid: &str) -> Vec<Value> {
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), token).await,
        StatusCode::OK,
    )
    .await;
    page["messages"].as_array().cloned().unwrap_or_default()
}

fn jid(text: &str) -> Jid {
    text.parse().expect("an address")
}

/// A text message from the contact, as the library hands it to the durability hook.
fn from_contact(id: &str, body: &str) -> InboundMessage {
    text_from(
        &jid(&format!("{CONTACT}@s.whatsapp.net")),
        id,
        body,
        "Ana Souza",
    )
}

async fn a_whatsapp_web_connection_end_to_end(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let providers = json_of(app.get("/whatsapp/providers", &token).await, StatusCode::OK).await;
    assert_eq!(
        providers,
        json!({"providers": ["beta", "sandbox"], "default": "sandbox"}),
        "a host running the sandbox offers both, the sandbox by default"
    );
    let created = json_of(
        app.post(
            "/whatsapp",
            &token,
            &json!({"name": "Sales", "provider": "beta"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(created["provider"], "beta");
    let id = created["id"].as_i64().expect("id");

    // Starting the session builds a fresh client, reported OPENING, then its QR code.
    assert_eq!(
        app.post(&format!("/whatsappsession/{id}"), &token, &json!({}))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let run = next_session(&app).await;
    assert_eq!(run.connection.0, id);
    run.emit(Event::PairingQrCode(
        PairingQrCode::builder()
            .code("2@qr-one,abc,def".to_owned())
            .timeout(Duration::from_secs(60))
            .build(),
    ));
    let shown = connection_when(&app, &token, id, |c| c["status"] == "qrcode").await;
    assert!(
        shown["qrcode"]
            .as_str()
            .is_some_and(|q| q.starts_with("data:image/svg+xml")),
        "the QR code is drawn for the dialog: {shown}"
    );

    // Linking by pair code: the running client asks WhatsApp, the code is shown.
    run.client().set_pair_code("ABCD1234");
    assert_eq!(
        app.post(
            &format!("/whatsappsession/{id}/paircode"),
            &token,
            &json!({"number": PHONE})
        )
        .await
        .status(),
        StatusCode::NO_CONTENT
    );
    assert!(run.client().calls().contains(&FakeCall::PairWithCode {
        phone: PHONE.to_owned()
    }));
    let pairing = connection_when(&app, &token, id, |c| c["status"] == "PAIRING").await;
    assert_eq!(pairing["pairingCode"], "ABCD1234");

    // The phone accepts: connected, with the account's number.
    run.emit(Event::PairSuccess(
        PairSuccess::builder()
            .id(jid(&format!("{PHONE}:12@s.whatsapp.net")))
            .lid(jid("99887766@lid"))
            .business_name(String::new())
            .platform("android".to_owned())
            .build(),
    ));
    run.connect();
    let connected = connection_when(&app, &token, id, |c| c["status"] == "CONNECTED").await;
    assert_eq!(connected["number"], PHONE);
    assert!(connected["qrcode"].as_str().is_none_or(str::is_empty));

    // A new contact's number is checked with WhatsApp: refused without an account, stored in
    // WhatsApp's own form with one; a check WhatsApp fails to answer says so.
    assert_error(
        app.post(
            "/contacts",
            &token,
            &json!({"name": "Sem WhatsApp", "number": "5511955554444"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_WAPP_INVALID_CONTACT",
    )
    .await;
    run.client().set_number(NumberCheck {
        jid: jid("5511955554444@s.whatsapp.net"),
        is_registered: true,
        lid: Some(jid("123456789@lid")),
        pn: Some(jid("551155554444@s.whatsapp.net")),
    });
    let checked = json_of(
        app.post(
            "/contacts",
            &token,
            &json!({"name": "Com WhatsApp", "number": "+55 11 95555-4444"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        checked["number"], "551155554444",
        "WhatsApp's form of the number"
    );
    run.client().fail_next(FakeOp::IsOnWhatsapp, "timed out");
    assert_error(
        app.post(
            "/contacts",
            &token,
            &json!({"name": "Talvez", "number": "5511933332222"}),
        )
        .await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_CHECK_CONTACT",
    )
    .await;

    // A message from a contact: the hook's commit returns once it is stored (WhatsApp gets
    // the ack only then); a redelivery stores nothing more.
    let batch = [from_contact(
        "3A0000000000000000AA",
        "Oi, quero um orçamento",
    )];
    run.ingestor.commit(&batch).await.expect("committed");
    run.ingestor
        .commit(&batch)
        .await
        .expect("a redelivery is acknowledged");
    let (ticket, uuid) = ticket_of(&app, &token, CONTACT).await;
    let messages = messages_of(&app, &token, &uuid).await;
    assert_eq!(messages.len(), 1, "stored once: {messages:?}");
    // Opening the ticket read the message: the contact's phone is told (blue ticks).
    let reads: Vec<FakeCall> = run
        .client()
        .calls()
        .into_iter()
        .filter(|c| matches!(c, FakeCall::MarkRead { .. }))
        .collect();
    assert_eq!(
        reads,
        vec![FakeCall::MarkRead {
            chat: jid(&format!("{CONTACT}@s.whatsapp.net")),
            sender: None,
            ids: vec!["3A0000000000000000AA".to_owned()],
        }]
    );
    assert_eq!(messages[0]["body"], "Oi, quero um orçamento");
    assert_eq!(messages[0]["fromMe"], false);
    let contact = &json_of(
        app.get(&format!("/tickets/{ticket}"), &token).await,
        StatusCode::OK,
    )
    .await["contact"];
    assert_eq!(
        contact["name"], "Ana Souza",
        "the push name names a new contact"
    );

    // A photo: the hook downloads it through the session before the commit, so the file is
    // stored with its message.
    run.client()
        .push_download(vec![0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]);
    let mut photo = from_contact("3A0000000000000000PH", "");
    photo.message = Arc::new(wa::Message {
        image_message: wa::message::ImageMessage {
            mimetype: Some("image/jpeg".into()),
            caption: Some("a peça".into()),
            file_length: Some(7),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    });
    run.ingestor
        .commit_with_media(&[photo], run.client().as_ref())
        .await
        .expect("committed");
    let messages = messages_of(&app, &token, &uuid).await;
    let stored = messages
        .iter()
        .find(|m| m["body"] == "a peça")
        .expect("the photo is stored");
    assert_eq!(stored["mediaType"], "image");
    assert_eq!(stored["mediaName"], "3A0000000000000000PH.jpg");
    let url = stored["mediaUrl"].as_str().expect("a file");
    let file = app.get(url, &token).await;
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(
        file.bytes().await.expect("bytes").to_vec(),
        vec![0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]
    );

    // The attendant answers: the client sends it to the contact under our idempotent id.
    let sent = json_of(
        app.post(
            &format!("/messages/{ticket}"),
            &token,
            &json!({"body": "Claro! Qual produto?", "signMessage": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let external = sent["externalId"]
        .as_str()
        .expect("the channel's id")
        .to_owned();
    assert!(
        external.starts_with("3EB0") && external.len() == 22,
        "{external}"
    );
    let sends = run.client().sent();
    assert_eq!(sends.len(), 1);
    assert_eq!(sends[0].0, jid(&format!("{CONTACT}@s.whatsapp.net")));
    assert_eq!(
        sends[0].1.conversation.as_deref(),
        Some("Claro! Qual produto?")
    );
    assert_eq!(sends[0].2, external);

    // A reply quoting the contact's message carries its writer and text (what the phone shows).
    let contact_message = messages
        .iter()
        .find(|m| m["body"] == "Oi, quero um orçamento")
        .and_then(|m| m["id"].as_i64())
        .expect("the contact's message");
    json_of(
        app.post(
            &format!("/messages/{ticket}"),
            &token,
            &json!({"body": "Sobre isso:", "quotedMsg": {"id": contact_message}, "signMessage": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let sends = run.client().sent();
    let reply = &sends.last().expect("the reply").1;
    let context = reply
        .extended_text_message
        .as_option()
        .and_then(|m| m.context_info.as_option())
        .expect("a quote");
    assert_eq!(context.stanza_id.as_deref(), Some("3A0000000000000000AA"));
    assert_eq!(
        context.participant.as_deref(),
        Some(format!("{CONTACT}@s.whatsapp.net").as_str())
    );
    assert_eq!(
        context
            .quoted_message
            .as_option()
            .and_then(|q| q.conversation.as_deref()),
        Some("Oi, quero um orçamento")
    );

    // WhatsApp's receipts move the ack: delivered, then read.
    for (kind, ack) in [(ReceiptType::Delivered, 2), (ReceiptType::Read, 3)] {
        run.emit(Event::Receipt(
            Receipt::builder()
                .source(MessageSource {
                    chat: jid(&format!("{CONTACT}@s.whatsapp.net")),
                    sender: jid(&format!("{CONTACT}@s.whatsapp.net")),
                    ..Default::default()
                })
                .message_ids(vec![external.clone()])
                .timestamp(chrono::Utc::now())
                .r#type(kind)
                .offline(false)
                .build(),
        ));
        for _ in 0..200 {
            let messages = messages_of(&app, &token, &uuid).await;
            if messages
                .iter()
                .any(|m| m["externalId"] == external.as_str() && m["ack"] == ack)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let messages = messages_of(&app, &token, &uuid).await;
        let answer = messages
            .iter()
            .find(|m| m["externalId"] == external.as_str())
            .expect("the answer");
        assert_eq!(answer["ack"], ack, "{answer}");
    }

    // Editing and reacting reach the client.
    let message = sent["id"].as_i64().expect("id");
    json_of(
        app.post(
            &format!("/messages/edit/{message}"),
            &token,
            &json!({"body": "Claro! Qual modelo?"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let inbound = messages
        .iter()
        .find(|m| m["body"] == "Oi, quero um orçamento")
        .and_then(|m| m["id"].as_i64())
        .expect("the contact's message");
    json_of(
        app.post(
            &format!("/messages/{inbound}/react"),
            &token,
            &json!({"emoji": "👍"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let calls = run.client().calls();
    assert!(
        calls
            .iter()
            .any(|c| matches!(c, FakeCall::Edit { original_id, .. } if *original_id == external)),
        "{calls:?}"
    );
    assert!(
        calls.iter().any(|c| matches!(c, FakeCall::React { key, emoji, .. }
            if key.id.as_deref() == Some("3A0000000000000000AA") && key.from_me == Some(false) && emoji == "👍")),
        "{calls:?}"
    );

    // Disconnecting logs the device out: its keys go, the connection waits for a new link.
    assert_eq!(
        app.delete(&format!("/whatsappsession/{id}"), &token)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert!(run.client().calls().contains(&FakeCall::Logout));
    connection_when(&app, &token, id, |c| c["status"] == "DISCONNECTED").await;
    eventually("the run's end", || run.ended().is_some()).await;
    assert!(
        !app.state
            .whatsapp
            .supervisor()
            .expect("started")
            .is_running(WhatsappId(id)),
        "no session runs after the logout"
    );
    // Sending now answers that the session is down.
    assert_error(
        app.post(
            &format!("/messages/{ticket}"),
            &token,
            &json!({"body": "ainda aí?"}),
        )
        .await,
        StatusCode::BAD_GATEWAY,
        "ERR_SENDING_WAPP_MSG",
    )
    .await;
}

async fn another_company_cannot_drive_or_read_the_connection(app: TestApp) {
    let (_, token_a) = admin(&app, "Alpha").await;
    let (_, token_b) = admin(&app, "Bravo").await;
    let created = json_of(
        app.post(
            "/whatsapp",
            &token_a,
            &json!({"name": "Sales", "provider": "beta"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    for (method, path) in [
        ("POST", format!("/whatsappsession/{id}")),
        ("PUT", format!("/whatsappsession/{id}")),
        ("DELETE", format!("/whatsappsession/{id}")),
        ("POST", format!("/whatsappsession/{id}/paircode")),
        ("GET", format!("/whatsapp/{id}")),
    ] {
        let response = match method {
            "POST" => app.post(&path, &token_b, &json!({"number": PHONE})).await,
            "PUT" => app.put(&path, &token_b, &json!({})).await,
            "DELETE" => app.delete(&path, &token_b).await,
            _ => app.get(&path, &token_b).await,
        };
        assert_error(response, StatusCode::NOT_FOUND, "ERR_NO_WAPP_FOUND").await;
    }
    // The calls were refused before reaching the provider: no session task was started.
    let supervisor = app.state.whatsapp.supervisor().expect("started");
    assert!(!supervisor.is_running(WhatsappId(id)), "no session started");

    // Company A's session receives a message: company B sees no ticket of it.
    assert_eq!(
        app.post(&format!("/whatsappsession/{id}"), &token_a, &json!({}))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let run = next_session(&app).await;
    run.connect();
    run.ingestor
        .commit(&[from_contact("3A0000000000000000BB", "Olá")])
        .await
        .expect("committed");
    ticket_of(&app, &token_a, CONTACT).await;
    let page = json_of(
        app.get("/tickets?showAll=true&status=pending", &token_b)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["tickets"].as_array().map(Vec::len), Some(0));
}

async fn a_second_server_takes_the_session_over(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let created = json_of(
        app.post(
            "/whatsapp",
            &token,
            &json!({"name": "Sales", "provider": "beta"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let id = created["id"].as_i64().expect("id");

    // The second server runs the session: it holds the connection's lease.
    let (second, running) = app.another_server().await;
    assert_eq!(
        second
            .post(&format!("/whatsappsession/{id}"), &token, &json!({}))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let first_run = next_session(&second).await;
    first_run.connect();
    connection_when(&app, &token, id, |c| c["status"] == "CONNECTED").await;
    assert!(
        !app.state
            .whatsapp
            .supervisor()
            .expect("started")
            .is_running(WhatsappId(id)),
        "the first server leaves it alone"
    );

    // The second server shuts down: its session stops gracefully and hands the lease over, and
    // the first server's takeover scan starts the connection on its own fake.
    running.stop().await;
    assert!(first_run.was_shutdown(), "{:?}", first_run.ended());
    let taken = tokio::time::timeout(Duration::from_secs(30), app.whatsapp.next_session())
        .await
        .expect("the first server takes the connection over");
    assert_eq!(taken.connection.0, id);
    taken.connect();
    connection_when(&app, &token, id, |c| c["status"] == "CONNECTED").await;
    taken
        .ingestor
        .commit(&[from_contact("3A0000000000000000CC", "Ainda aí?")])
        .await
        .expect("committed");
    let (_, uuid) = ticket_of(&app, &token, CONTACT).await;
    assert_eq!(messages_of(&app, &token, &uuid).await.len(), 1);
}

async fn a_group_is_named_by_its_subject(app: TestApp) {
    const GROUP: &str = "120363025000000000@g.us";
    let (_, token) = admin(&app, "Alpha").await;
    let (_, run) = linked(
        &app,
        &token,
        json!({"name": "Grupos", "provider": "beta", "allowGroup": true, "groupAsTicket": true}),
    )
    .await;
    run.client()
        .set_group_subject(&jid(GROUP), "Fornecedores SP");
    for (n, body) in ["Bom dia", "Alguém aí?"].into_iter().enumerate() {
        let mut message = from_contact(&format!("3A00000000000000000{n}"), body);
        let info = Arc::make_mut(&mut message.info);
        info.source.chat = jid(GROUP);
        info.source.is_group = true;
        run.ingestor
            .commit_with_media(&[message], run.client().as_ref())
            .await
            .expect("committed");
    }
    let mut found = None;
    for _ in 0..200 {
        let page = json_of(
            app.get("/tickets?showAll=true&status=pending", &token)
                .await,
            StatusCode::OK,
        )
        .await;
        found = page["tickets"].as_array().and_then(|list| {
            list.iter().find(|t| t["isGroup"] == true).map(|t| {
                (
                    t["id"].as_i64().unwrap_or_default(),
                    t["uuid"].as_str().unwrap_or_default().to_owned(),
                )
            })
        });
        if found.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (ticket, uuid) = found.expect("the group's ticket");
    let contact = &json_of(
        app.get(&format!("/tickets/{ticket}"), &token).await,
        StatusCode::OK,
    )
    .await["contact"];
    assert_eq!(contact["name"], "Fornecedores SP");
    assert_eq!(contact["isGroup"], true);
    assert_eq!(messages_of(&app, &token, &uuid).await.len(), 2);
    let asked = run
        .client()
        .calls()
        .into_iter()
        .filter(|c| matches!(c, FakeCall::GroupSubject { .. }))
        .count();
    assert_eq!(asked, 1, "the subject is asked once per run");
}

async fn new_contacts_pictures_are_looked_up_by_one_job_per_batch(app: TestApp) {
    const OTHER: &str = "5511955554444";
    const THIRD: &str = "5511933332222";
    const PICTURE: &str = "https://pps.whatsapp.net/v/t61/ana.jpg";
    let (_, token) = admin(&app, "Alpha").await;
    let (id, run) = linked(&app, &token, json!({"name": "Loja", "provider": "beta"})).await;
    connection_when(&app, &token, id, |c| c["status"] == "CONNECTED").await;
    // All three are on WhatsApp; Ana shows a picture.
    let address = |number: &str| jid(&format!("{number}@s.whatsapp.net"));
    for number in [CONTACT, OTHER, THIRD] {
        run.client().set_number(NumberCheck {
            jid: address(number),
            is_registered: true,
            lid: None,
            pn: Some(address(number)),
        });
    }
    run.client().set_profile_picture(&address(CONTACT), PICTURE);
    // The lookups so far, and the jobs run until there are `count` of them (the automation
    // queues the job once the batch is stored, after the phone's acknowledgement).
    let looked_up = || -> Vec<Jid> {
        run.client()
            .calls()
            .into_iter()
            .filter_map(|c| match c {
                FakeCall::ProfilePicture { jid } => Some(jid),
                _ => None,
            })
            .collect()
    };
    let run_jobs_until = |count: usize| {
        let app = &app;
        let looked_up = &looked_up;
        async move {
            let mut ran = Vec::new();
            for _ in 0..200 {
                ran.extend(app.due_jobs.run().await.expect("the due jobs run"));
                if looked_up().len() >= count {
                    return ran;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            panic!("{count} lookups never happened: {ran:?}");
        }
    };

    // Two new contacts in one batch: Ana has a picture, the other shows none.
    let other = text_from(&address(OTHER), "3A0000000000000000P2", "Boa tarde", "Caio");
    run.ingestor
        .commit(&[from_contact("3A0000000000000000P1", "Olá"), other])
        .await
        .expect("committed");
    let ran = run_jobs_until(2).await;
    assert_eq!(
        ran.iter()
            .filter(|k| k.starts_with("refreshPicture"))
            .count(),
        1,
        "one lookup job for the batch: {ran:?}"
    );
    for (number, picture) in [(CONTACT, json!(PICTURE)), (OTHER, Value::Null)] {
        let (ticket, _) = ticket_of(&app, &token, number).await;
        let shown = json_of(
            app.get(&format!("/tickets/{ticket}"), &token).await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(shown["contact"]["urlPicture"], picture, "{number}: {shown}");
    }

    // Ana's ticket closed and a new one opened the same day: her picture is not due again.
    // A new contact's batch after hers (batches are handled in order) shows when hers is done.
    let (ticket, _) = ticket_of(&app, &token, CONTACT).await;
    assert_eq!(
        app.put(
            &format!("/tickets/{ticket}"),
            &token,
            &json!({"status": "closed"})
        )
        .await
        .status(),
        StatusCode::OK
    );
    run.ingestor
        .commit(&[from_contact("3A0000000000000000P3", "Voltei")])
        .await
        .expect("committed");
    let third = text_from(&address(THIRD), "3A0000000000000000P4", "Oi", "Duda");
    run.ingestor.commit(&[third]).await.expect("committed");
    run_jobs_until(3).await;
    assert_eq!(
        looked_up(),
        vec![address(CONTACT), address(OTHER), address(THIRD)],
        "Ana looked up once within the day"
    );
}

/// The duplicate-ticket defect of the peer products, proved absent: a person who writes first
/// under their LID alone, then under their number with the LID along, then under the LID alone
/// again (the session now knowing the number), and who then changes number, is one contact with
/// one ticket throughout.
async fn one_person_under_a_lid_and_a_number_is_one_contact(app: TestApp) {
    const LID: &str = "201234567890123@lid";
    let (_, token) = admin(&app, "Alpha").await;
    let (_, run) = linked(&app, &token, json!({"name": "Loja", "provider": "beta"})).await;
    let commit = |message: InboundMessage| {
        let run = &run;
        async move {
            run.ingestor
                .commit_with_media(&[message], run.client().as_ref())
                .await
                .expect("committed");
        }
    };

    // 1. The LID alone: a contact under the LID.
    commit(text_from(
        &jid(LID),
        "3A1D0000000000000001",
        "Primeira",
        "Ana",
    ))
    .await;
    let (ticket, uuid) = ticket_of(&app, &token, LID).await;
    let contacts = json_of(app.get("/contacts", &token).await, StatusCode::OK).await;
    let contact_id = contacts["contacts"][0]["id"].as_i64().expect("contact id");
    let identities = || async {
        let contact = json_of(
            app.get(&format!("/contacts/{contact_id}"), &token).await,
            StatusCode::OK,
        )
        .await;
        (contact["number"].clone(), contact["aliases"].clone())
    };
    assert_eq!(identities().await, (json!(LID), json!([])));

    // 2. The number, with the LID along: the same contact, now under the number.
    let mut second = text_from(
        &jid(&format!("{CONTACT}@s.whatsapp.net")),
        "3A1D0000000000000002",
        "Segunda",
        "Ana",
    );
    Arc::make_mut(&mut second.info).source.sender_alt = Some(jid(LID));
    commit(second).await;
    assert_eq!(
        ticket_of(&app, &token, CONTACT).await,
        (ticket, uuid.clone())
    );

    // 3. The LID alone again, the session knowing the number: asked, and the same contact.
    run.client().set_phone_number(&jid(LID), CONTACT);
    commit(text_from(
        &jid(LID),
        "3A1D0000000000000003",
        "Terceira",
        "Ana",
    ))
    .await;
    assert!(
        run.client()
            .calls()
            .iter()
            .any(|c| matches!(c, FakeCall::PhoneNumberOf { lid } if *lid == jid(LID)))
    );
    let bodies: Vec<String> = messages_of(&app, &token, &uuid)
        .await
        .iter()
        .map(|m| m["body"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(bodies, ["Primeira", "Segunda", "Terceira"]);
    let contacts = json_of(app.get("/contacts", &token).await, StatusCode::OK).await;
    let list = contacts["contacts"].as_array().expect("contacts");
    assert_eq!(list.len(), 1, "{contacts}");
    assert_eq!(list[0]["number"], CONTACT);
    assert_eq!(identities().await, (json!(CONTACT), json!([LID])));

    // 4. A number change: the contact and its ticket move to the new number.
    let new_number = "5511955554444";
    assert!(
        run.emit(Event::ContactNumberChanged(
            ContactNumberChanged::builder()
                .old_jid(jid(&format!("{CONTACT}@s.whatsapp.net")))
                .new_jid(jid(&format!("{new_number}@s.whatsapp.net")))
                .old_lid(jid(LID))
                .new_lid(jid(LID))
                .timestamp(chrono::Utc::now())
                .build(),
        ))
    );
    assert_eq!(ticket_of(&app, &token, new_number).await, (ticket, uuid));
    let contacts = json_of(app.get("/contacts", &token).await, StatusCode::OK).await;
    assert_eq!(contacts["contacts"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        identities().await,
        (json!(new_number), json!([LID, CONTACT])),
        "the old number and the LID are the contact's aliases, sorted"
    );
    let (_, intruder) = admin(&app, "Beta").await;
    assert_error(
        app.get(&format!("/contacts/{contact_id}"), &intruder).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
}

/// An attachment WhatsApp would not give when its message arrived: the message is stored with
/// `ERR_WAPP_DOWNLOAD_MEDIA` and no file; a retry that fails again says so and changes nothing;
/// once WhatsApp gives it, the retry stores it and the message shows it. Another company can
/// neither retry nor learn anything.
async fn a_file_that_could_not_be_downloaded_is_tried_again(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let (_, intruder) = admin(&app, "Beta").await;
    let (_, run) = linked(&app, &token, json!({"name": "Loja", "provider": "beta"})).await;

    // No download scripted: each of the hook's tries fails; the message is stored anyway.
    let mut photo = from_contact("3A0000000000000000F1", "");
    photo.message = Arc::new(wa::Message {
        image_message: wa::message::ImageMessage {
            mimetype: Some("image/jpeg".into()),
            caption: Some("o recibo".into()),
            file_length: Some(5),
            direct_path: Some("/v/t62.7118-24/receipt".into()),
            media_key: Some(vec![7; 32]),
            jpeg_thumbnail: Some(vec![0xAB; 64]),
            ..Default::default()
        }
        .into(),
        ..Default::default()
    });
    run.ingestor
        .commit_with_media(&[photo], run.client().as_ref())
        .await
        .expect("committed");
    let (_, uuid) = ticket_of(&app, &token, CONTACT).await;
    let stored = messages_of(&app, &token, &uuid)
        .await
        .into_iter()
        .find(|m| m["body"] == "o recibo")
        .expect("the photo's message is stored");
    assert_eq!(stored["mediaError"], "ERR_WAPP_DOWNLOAD_MEDIA");
    assert_eq!(stored["mediaUrl"], Value::Null);
    assert_eq!(stored["mediaName"], "3A0000000000000000F1.jpg");
    let message = stored["id"].as_i64().expect("id");
    let retry = format!("/messages/{message}/media/retry");

    // Another company: not found, nothing tried.
    let downloads = |run: &FakeSessionHandle| {
        run.client()
            .calls()
            .into_iter()
            .filter(|c| matches!(c, FakeCall::Download { .. }))
            .count()
    };
    let before = downloads(&run);
    assert_error(
        app.post(&retry, &intruder, &json!({})).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_eq!(downloads(&run), before);

    // Still not available: the error, and the message keeps its state.
    assert_error(
        app.post(&retry, &token, &json!({})).await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_DOWNLOAD_MEDIA",
    )
    .await;
    assert_eq!(downloads(&run), before + 1);

    // WhatsApp gives it now: stored, shown, served.
    run.client().push_download(vec![0xFF, 0xD8, 0xFF, 0xE0, 9]);
    let recovered = json_of(app.post(&retry, &token, &json!({})).await, StatusCode::OK).await;
    assert_eq!(recovered["mediaError"], Value::Null);
    let url = recovered["mediaUrl"].as_str().expect("a file");
    let file = app.get(url, &token).await;
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(
        file.bytes().await.expect("bytes").to_vec(),
        vec![0xFF, 0xD8, 0xFF, 0xE0, 9]
    );
    // The retry asked for the same media (its path and key), without the inline preview.
    let asked = run
        .client()
        .calls()
        .into_iter()
        .rev()
        .find_map(|c| match c {
            FakeCall::Download { message } => Some(message),
            _ => None,
        })
        .expect("a download");
    let image = asked.image_message.as_option().expect("the photo");
    assert_eq!(image.direct_path.as_deref(), Some("/v/t62.7118-24/receipt"));
    assert_eq!(image.media_key.as_deref(), Some(&[7u8; 32][..]));
    assert_eq!(image.jpeg_thumbnail, None);

    // Done: a further retry answers the message as it is, without asking WhatsApp.
    let count = downloads(&run);
    let again = json_of(app.post(&retry, &token, &json!({})).await, StatusCode::OK).await;
    assert_eq!(again["mediaUrl"], recovered["mediaUrl"]);
    assert_eq!(downloads(&run), count);
}

/// A call offer from the contact, ringing now.
fn ringing(call_id: &str) -> Event {
    Event::IncomingCall(
        IncomingCall::builder()
            .from(jid(&format!("{CONTACT}@s.whatsapp.net")))
            .stanza_id(format!("stanza-{call_id}"))
            .notify("Ana Souza".to_owned())
            .timestamp(chrono::Utc::now())
            .offline(false)
            .action(CallAction::Offer {
                call_id: call_id.to_owned(),
                call_creator: jid(&format!("{CONTACT}:4@s.whatsapp.net")),
                caller_pn: None,
                caller_country_code: None,
                device_class: None,
                joinable: false,
                is_video: false,
                audio: Vec::new(),
                group_jid: None,
            })
            .build(),
    )
}

async fn calls_are_declined_and_answered_when_the_company_takes_none(app: TestApp) {
    const REPLY: &str = "Não atendemos ligações: escreva por aqui, por favor.";
    let (_, token) = admin(&app, "Alpha").await;
    for (key, value) in [
        ("AcceptCallWhatsappMessage", REPLY),
        ("acceptCallWhatsapp", "disabled"),
    ] {
        let response = app
            .put(
                &format!("/settings/{key}"),
                &token,
                &json!({ "value": value }),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{key}");
    }
    let (_, run) = linked(&app, &token, json!({"name": "Loja", "provider": "beta"})).await;
    let declined = |run: &FakeSessionHandle, id: &str| {
        run.client()
            .calls()
            .into_iter()
            .filter(|c| matches!(c, FakeCall::RejectCall { call_id, .. } if call_id == id))
            .count()
    };
    let replies = |run: &FakeSessionHandle| {
        run.client()
            .sent()
            .iter()
            .filter(|(_, m, _)| m.conversation.as_deref() == Some(REPLY))
            .count()
    };

    // The call rings: declined (to the caller, naming the call's creator), a call-log line in
    // the contact's ticket, and the company's answer.
    assert!(run.emit(ringing("CALL0001")));
    eventually("the call is declined and answered", || {
        declined(&run, "CALL0001") == 1 && replies(&run) == 1
    })
    .await;
    let rejected = run
        .client()
        .calls()
        .into_iter()
        .find_map(|c| match c {
            FakeCall::RejectCall { peer, creator, .. } => Some((peer, creator)),
            _ => None,
        })
        .expect("declined");
    assert_eq!(rejected.0, jid(&format!("{CONTACT}@s.whatsapp.net")));
    assert_eq!(rejected.1, jid(&format!("{CONTACT}:4@s.whatsapp.net")));
    let (_, uuid) = ticket_of(&app, &token, CONTACT).await;
    let kinds: Vec<(String, bool)> = messages_of(&app, &token, &uuid)
        .await
        .iter()
        .map(|m| {
            (
                m["mediaType"].as_str().unwrap_or_default().to_owned(),
                m["fromMe"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [("call_log".to_owned(), false), ("chat".to_owned(), true)]
    );

    // The same call again (a redelivery) and its missed-call event: nothing more.
    assert!(run.emit(ringing("CALL0001")));
    assert!(run.emit(Event::MissedCall(MissedCall::new(
        jid(&format!("{CONTACT}@s.whatsapp.net")),
        "CALL0001".into(),
        chrono::Utc::now(),
        MissedReason::Remote,
    ))));
    // A company that takes calls again: the next call rings on the phone.
    let response = app
        .put(
            "/settings/acceptCallWhatsapp",
            &token,
            &json!({"value": "enabled"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(run.emit(ringing("CALL0002")));
    // The lane is ordered: once a missed call sent after them is in, they were handled.
    assert!(run.emit(Event::MissedCall(MissedCall::new(
        jid(&format!("{CONTACT}@s.whatsapp.net")),
        "CALL0003".into(),
        chrono::Utc::now(),
        MissedReason::Remote,
    ))));
    let mut listed = Vec::new();
    for _ in 0..200 {
        listed = messages_of(&app, &token, &uuid).await;
        if listed.iter().any(|m| m["externalId"] == "CALL0003") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let lines = listed
        .iter()
        .filter(|m| m["mediaType"] == "call_log")
        .count();
    assert_eq!(
        lines, 2,
        "one line for the declined call, one for the marker: {listed:?}"
    );
    // Declining a call again is harmless; the answer and the call-log line are once.
    assert!(declined(&run, "CALL0001") >= 1);
    assert_eq!(replies(&run), 1, "answered once");
    assert_eq!(
        declined(&run, "CALL0002"),
        0,
        "a company that takes calls lets it ring"
    );
}

async fn the_phones_history_is_imported_when_the_import_is_on(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let (_, intruder) = admin(&app, "Beta").await;
    let queue = json_of(
        app.post(
            "/queue",
            &token,
            &json!({"name": "Histórico", "color": "#555555"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await["id"]
        .as_i64()
        .expect("queue id");
    let now = chrono::Utc::now();
    let created = json_of(
        app.post(
            "/whatsapp",
            &token,
            &json!({
                "name": "Loja",
                "provider": "beta",
                "enableImportMessage": true,
                "importOldMessages": (now - chrono::TimeDelta::days(30)).to_rfc3339(),
                "importRecentMessages": now.to_rfc3339(),
                "queueIdImportMessages": queue,
            }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    assert_eq!(
        app.post(&format!("/whatsappsession/{id}"), &token, &json!({}))
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let run = next_session(&app).await;
    assert!(
        run.full_history,
        "the link asks the phone for its whole history"
    );
    run.connect();

    // The phone's history: two messages with the contact (one sent from the phone), one with
    // someone else, one older than the window.
    let contact = jid(&format!("{CONTACT}@s.whatsapp.net"));
    let other = jid("5511955554444@s.whatsapp.net");
    let day =
        |n: i64| chrono::DateTime::from_timestamp(now.timestamp() - n * 86_400, 0).expect("a time");
    let history = FakeHistory::new()
        .message(
            HistoryMessage::text(&contact, "3EB0HIST0001", "pedido 123?", day(3))
                .named("Ana Souza"),
        )
        .message(HistoryMessage::text(&contact, "3EB0HIST0002", "enviado ontem", day(2)).from_me())
        .message(HistoryMessage::text(&other, "3EB0HIST0003", "obrigado", day(1)).named("Caio"))
        .message(HistoryMessage::text(
            &contact,
            "3EB0HIST0000",
            "muito antigo",
            day(90),
        ))
        .progress(100)
        .event();
    assert!(run.emit(history));

    let finished = connection_when(&app, &token, id, |c| {
        c["statusImportMessages"] == "renderButtonCloseTickets"
    })
    .await;
    assert_eq!(finished["status"], "CONNECTED");
    let (_, uuid) = ticket_of(&app, &token, CONTACT).await;
    let messages = messages_of(&app, &token, &uuid).await;
    let bodies: Vec<&str> = messages.iter().filter_map(|m| m["body"].as_str()).collect();
    assert_eq!(
        bodies,
        ["pedido 123?", "enviado ontem"],
        "oldest first, the old one left out"
    );
    assert_eq!(messages[0]["createdAt"], json!(day(3)));
    assert_eq!(messages[1]["fromMe"], true);
    let (_, other_uuid) = ticket_of(&app, &token, "5511955554444").await;
    assert_eq!(messages_of(&app, &token, &other_uuid).await.len(), 1);
    // History sends nothing to the contacts.
    assert!(
        run.client().sent().is_empty(),
        "nothing was sent: {:?}",
        run.client().sent()
    );
    // The progress reached the company's sockets, ending with a refresh.
    let events: Vec<String> = app
        .ports
        .event_log
        .read(
            chatflow_core::TenantScope::new(chatflow_core::CompanyId(
                finished["companyId"].as_i64().expect("company"),
            )),
            0,
            10_000,
        )
        .await
        .expect("events")
        .into_iter()
        .filter(|e| e.event.name(e.company_id).starts_with("importMessages-"))
        .map(|e| match e.event {
            chatflow_core::events::Event::ImportProgress { this, all, .. } => {
                format!("{this}/{all}")
            }
            _ => "refresh".to_owned(),
        })
        .collect();
    assert_eq!(events.first().map(String::as_str), Some("-1/3"));
    assert!(events.contains(&"3/3".to_owned()), "{events:?}");
    assert_eq!(events.last().map(String::as_str), Some("refresh"));

    // Another company cannot close them; the company's button does.
    assert_error(
        app.post(&format!("/closedimported/{id}"), &intruder, &json!({}))
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;
    let closed = json_of(
        app.post(&format!("/closedimported/{id}"), &token, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(closed["closed"], 2);
    connection_when(&app, &token, id, |c| c["statusImportMessages"].is_null()).await;
}

/// The phone's address book, synced after the link, is what the contacts import brings in from
/// the connection: each contact by number (a LID contact by the number its entry names) with
/// the address book's name (a push name does not replace it); groups stay out. Another company
/// cannot import from the connection.
async fn the_phones_contacts_are_imported_from_the_connection(app: TestApp) {
    use chatflow_core::inbox::channel::ChannelProvider;

    let (company, token) = admin(&app, "Alpha").await;
    let (_, intruder) = admin(&app, "Beta").await;
    let (id, run) = linked(&app, &token, json!({"name": "Loja", "provider": "beta"})).await;
    connection_when(&app, &token, id, |c| c["status"] == "CONNECTED").await;

    // Connected, nothing synced yet: no chats to import, and no error.
    let report = json_of(
        app.post("/contacts/import/chats", &token, &json!({"whatsappId": id}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        report,
        json!({"whatsappId": id, "chats": 0, "imported": 0, "existing": 0, "ignored": 0})
    );

    // The phone syncs its address book.
    let at = chrono::Utc::now() - chrono::TimeDelta::days(1);
    let ana = jid(&format!("{CONTACT}@s.whatsapp.net"));
    run.emit(contact_update(
        &ana,
        Some("Ana Souza"),
        Some("Ana"),
        None,
        at,
    ));
    run.emit(contact_update(
        &jid("123456789012345@lid"),
        None,
        Some("Bruno"),
        Some(&jid("5511977770000@s.whatsapp.net")),
        at + chrono::TimeDelta::minutes(1),
    ));
    run.emit(contact_update(
        &jid("120363000000000001@g.us"),
        Some("Equipe"),
        None,
        None,
        at,
    ));
    run.emit(push_name_update(&ana, &ana, "Aninha", at));
    let scope = chatflow_core::TenantScope::new(company);
    let connection = WhatsappId(id);
    let mut listed = 0;
    for _ in 0..200 {
        listed = app
            .state
            .whatsapp
            .list_chats(scope, connection)
            .await
            .map_or(0, |chats| chats.len());
        if listed == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(listed, 2, "the synced contacts are listed");

    let report = json_of(
        app.post("/contacts/import/chats", &token, &json!({"whatsappId": id}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        report,
        json!({"whatsappId": id, "chats": 2, "imported": 2, "existing": 0, "ignored": 0})
    );
    for (number, name) in [(CONTACT, "Ana Souza"), ("5511977770000", "Bruno")] {
        let found = json_of(
            app.get(&format!("/contacts?searchParam={number}"), &token)
                .await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(found["contacts"][0]["number"], number, "{found}");
        assert_eq!(found["contacts"][0]["name"], name, "{found}");
    }

    // Another company can import nothing from the connection, and has no contact of it.
    for path in ["/contacts/import/chats", "/contacts/import"] {
        assert_error(
            app.post(path, &intruder, &json!({"whatsappId": id})).await,
            StatusCode::NOT_FOUND,
            "ERR_NO_WAPP_FOUND",
        )
        .await;
    }
    let listed = json_of(app.get("/contacts", &intruder).await, StatusCode::OK).await;
    assert_eq!(listed["contacts"], json!([]));
}
