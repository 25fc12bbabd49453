//! Tickets over HTTP on both engines (with the sandbox channel): inbound delivery and
//! duplicates, the inbox tabs per profile, LGPD masking, creating with a conflict, every
//! transition, logs, notes, delete permission, close-all, and company B reaching nothing of
//! company A's tickets.

use std::time::Duration;

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_core::inbox::model::MediaType;
use chatflow_core::service::inbox::ingest;
use chatflow_core::{CompanyId, TenantScope, WhatsappId};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

/// Like `app_tests!`, with the sandbox channel switched on (on both engines).
macro_rules! inbox_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    crate::helpers::run(crate::helpers::Backend::Sqlite, |c| c.sandbox = Some(true), super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    crate::helpers::run(crate::helpers::Backend::Postgres, |c| c.sandbox = Some(true), super::$name).await;
                }
            )*
        }
    };
}
pub(crate) use inbox_tests;

inbox_tests!(
    duplicate_inbound_delivery_stores_once,
    tabs_and_visibility_per_profile,
    lgpd_masks_numbers_for_plain_users,
    create_conflict_names_the_existing_ticket,
    every_transition_and_its_log,
    notes_delete_permission_and_close_all,
    company_b_reaches_none_of_company_a_tickets,
    cached_tabs_follow_renames_and_tags,
);

/// A company with an admin, a plain user and a connected sandbox connection.
pub(crate) struct Inbox {
    pub company: CompanyId,
    pub admin: String,
    pub admin_id: i64,
    pub user: String,
    pub user_id: i64,
    pub connection: i64,
}

pub(crate) async fn inbox(app: &TestApp, name: &str) -> Inbox {
    let company = app.company(name).await;
    let slug = name.to_lowercase();
    let admin = app
        .member(
            company,
            &format!("boss@{slug}.test"),
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let user = app
        .member(
            company,
            &format!("ana@{slug}.test"),
            MemberOptions::default(),
        )
        .await;
    let admin_token = app.token_of(&admin).await;
    let created = json_of(
        app.post("/whatsapp", &admin_token, &json!({"name": "Line"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    app.post(&format!("/whatsappsession/{id}"), &admin_token, &json!({}))
        .await;
    wait_for_status(app, &admin_token, id, "qrcode").await;
    let scanned = app
        .post(&format!("/sandbox/{id}/scan"), &admin_token, &json!({}))
        .await;
    assert_eq!(scanned.status(), StatusCode::NO_CONTENT);
    wait_for_status(app, &admin_token, id, "CONNECTED").await;
    Inbox {
        company,
        admin: admin_token,
        admin_id: admin.id.0,
        user: app.token_of(&user).await,
        user_id: user.id.0,
        connection: id,
    }
}

async fn wait_for_status(app: &TestApp, token: &str, id: i64, status: &str) -> Value {
    for _ in 0..50 {
        let read = json_of(
            app.get(&format!("/whatsapp/{id}"), token).await,
            StatusCode::OK,
        )
        .await;
        if read["status"] == status {
            return read;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("connection {id} never reached {status}");
}

/// A text message from `from`, as a channel hands it over.
pub(crate) fn inbound(external: &str, from: &str, body: &str) -> InboundMessage {
    InboundMessage {
        external_id: external.to_owned(),
        chat: from.to_owned(),
        chat_name: format!("Contact {from}"),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.to_owned(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: chrono::Utc::now(),
        aliases: Vec::new(),
        media_failed: None,
    }
}

/// A message from `from` reaching the connection through the inbound sink's use case.
pub(crate) async fn deliver(app: &TestApp, inbox: &Inbox, external: &str, from: &str, body: &str) {
    ingest::deliver(
        &app.ports,
        TenantScope::new(inbox.company),
        WhatsappId(inbox.connection),
        InboundEvent::Message(inbound(external, from, body)),
    )
    .await
    .expect("delivered");
}

pub(crate) async fn list(app: &TestApp, token: &str, query: &str) -> Value {
    json_of(
        app.get(&format!("/tickets?{query}"), token).await,
        StatusCode::OK,
    )
    .await
}

/// The only ticket of the admin's full list.
pub(crate) async fn only_ticket(app: &TestApp, inbox: &Inbox) -> Value {
    let page = list(app, &inbox.admin, "showAll=true").await;
    assert_eq!(page["tickets"].as_array().map(Vec::len), Some(1), "{page}");
    page["tickets"][0].clone()
}

async fn duplicate_inbound_delivery_stores_once(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "wamid-1", "5511987650001", "Olá").await;
    deliver(&app, &a, "wamid-1", "5511987650001", "Olá").await;
    let ticket = only_ticket(&app, &a).await;
    assert_eq!(ticket["unreadMessages"], 1);
    assert_eq!(ticket["status"], "pending");
    assert_eq!(ticket["lastMessage"], "Olá");
    let uuid = ticket["uuid"].as_str().expect("uuid");
    let page = json_of(
        app.get(&format!("/messages/{uuid}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["messages"].as_array().map(Vec::len), Some(1));
    // Opening the ticket reset its unread count.
    let ticket = only_ticket(&app, &a).await;
    assert_eq!(ticket["unreadMessages"], 0);
    // A message arriving while it is open: marked read by `POST /tickets/{id}/read`.
    deliver(&app, &a, "wamid-2", "5511987650001", "Ainda aí?").await;
    assert_eq!(only_ticket(&app, &a).await["unreadMessages"], 1);
    let id = ticket["id"].as_i64().expect("id");
    let read = app
        .post(&format!("/tickets/{id}/read"), &a.admin, &json!({}))
        .await;
    assert_eq!(read.status(), StatusCode::NO_CONTENT);
    assert_eq!(only_ticket(&app, &a).await["unreadMessages"], 0);
}

async fn tabs_and_visibility_per_profile(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "m1", "5511987650002", "oi").await;
    let pending = list(&app, &a.admin, "status=pending").await;
    assert_eq!(pending["tickets"].as_array().map(Vec::len), Some(1));
    assert_eq!(pending["count"], 1);
    assert_eq!(pending["hasMore"], false);
    assert_eq!(
        list(&app, &a.admin, "status=open").await["tickets"],
        json!([])
    );
    // A plain user without allTicket does not see tickets without a queue.
    assert_eq!(
        list(&app, &a.user, "status=pending").await["tickets"],
        json!([])
    );
    let id = pending["tickets"][0]["id"].as_i64().expect("id");
    assert_error(
        app.get(&format!("/tickets/{id}"), &a.user).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_TICKET_FOUND",
    )
    .await;
    // The admin accepts: it is open and the admin's; the plain user still sees nothing of it.
    let accepted = json_of(
        app.put(
            &format!("/tickets/{id}"),
            &a.admin,
            &json!({"status": "open"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(accepted["status"], "open");
    assert_eq!(accepted["userId"], a.admin_id);
    assert_eq!(
        list(&app, &a.admin, "status=open").await["tickets"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    assert_eq!(
        list(&app, &a.user, "status=open&showAll=true").await["tickets"],
        json!([])
    );
    // Search by number and on message bodies.
    let found = list(&app, &a.admin, "searchParam=87650002&showAll=true").await;
    assert_eq!(found["tickets"].as_array().map(Vec::len), Some(1));
    let none = list(&app, &a.admin, "searchParam=xyz&showAll=true").await;
    assert_eq!(none["tickets"], json!([]));
    // Malformed filters are a 400.
    assert_error(
        app.get("/tickets?queueIds=notjson", &a.admin).await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;
    // Cursor pages.
    for i in 0..25 {
        deliver(
            &app,
            &a,
            &format!("p{i}"),
            &format!("55119000000{i:02}"),
            "x",
        )
        .await;
    }
    let first = list(&app, &a.admin, "status=pending").await;
    assert_eq!(first["tickets"].as_array().map(Vec::len), Some(20));
    assert_eq!(first["count"], 25);
    let cursor = first["nextCursor"].as_str().expect("cursor");
    let second = list(&app, &a.admin, &format!("status=pending&cursor={cursor}")).await;
    assert_eq!(second["tickets"].as_array().map(Vec::len), Some(5));
    assert_eq!(second["count"], Value::Null);
    assert_eq!(second["hasMore"], false);
}

async fn lgpd_masks_numbers_for_plain_users(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "l1", "5511987650003", "oi").await;
    let ticket = only_ticket(&app, &a).await;
    let id = ticket["id"].as_i64().expect("id");
    // Hand it to the plain user so they may see it.
    let contact = ticket["contactId"].as_i64().expect("contact");
    app.put(
        &format!("/tickets/{id}"),
        &a.admin,
        &json!({"status": "closed", "sendFarewellMessage": false}),
    )
    .await;
    let created = json_of(
        app.post(
            "/tickets",
            &a.admin,
            &json!({"contactId": contact, "whatsappId": a.connection, "userId": a.user_id, "status": "open"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let mine = created["id"].as_i64().expect("id");
    for key in ["enableLGPD", "lgpdHideNumber"] {
        app.ports
            .settings
            .set_company_setting(TenantScope::new(a.company), key, "enabled", &[])
            .await
            .expect("setting");
    }
    let seen = json_of(
        app.get(&format!("/tickets/{mine}"), &a.user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["contact"]["number"], "5511*******03");
    let listed = list(&app, &a.user, "status=open").await;
    assert_eq!(listed["tickets"][0]["contact"]["number"], "5511*******03");
    let admin_view = json_of(
        app.get(&format!("/tickets/{mine}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(admin_view["contact"]["number"], "5511987650003");
}

async fn create_conflict_names_the_existing_ticket(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "c1", "5511987650004", "oi").await;
    let ticket = only_ticket(&app, &a).await;
    let response = app
        .post(
            "/tickets",
            &a.admin,
            &json!({"contactId": ticket["contactId"], "whatsappId": a.connection, "status": "open"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"], "ERR_OTHER_OPEN_TICKET");
    assert_eq!(body["ticket"]["id"], ticket["id"]);
    assert_eq!(body["ticket"]["uuid"], ticket["uuid"]);
    assert_error(
        app.post("/tickets", &a.admin, &json!({"contactId": 999_999}))
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
}

async fn every_transition_and_its_log(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "t1", "5511987650005", "oi").await;
    let id = only_ticket(&app, &a).await["id"].as_i64().expect("id");
    let put = |body: Value| {
        let app = &app;
        let token = a.admin.clone();
        async move { app.put(&format!("/tickets/{id}"), &token, &body).await }
    };
    let open = json_of(put(json!({"status": "open"})).await, StatusCode::OK).await;
    assert_eq!(open["status"], "open");
    // Accepting again is not a transition.
    let back = json_of(put(json!({"status": "pending"})).await, StatusCode::OK).await;
    assert_eq!(back["status"], "pending");
    assert_eq!(back["userId"], Value::Null);
    // Ignoring a pending ticket closes it without farewell.
    let ignored = json_of(put(json!({"status": "closed"})).await, StatusCode::OK).await;
    assert_eq!(ignored["status"], "closed");
    let reopened = json_of(put(json!({"status": "open"})).await, StatusCode::OK).await;
    assert_eq!(reopened["status"], "open");
    // A transfer needs a queue.
    assert_error(
        put(json!({"userId": a.user_id})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_QUEUE_REQUIRED",
    )
    .await;
    let resolved = json_of(
        put(json!({"status": "closed", "sendFarewellMessage": true})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(resolved["status"], "closed");
    let logs = json_of(
        app.get(&format!("/tickets-log/{id}"), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    let kinds: Vec<&str> = logs
        .as_array()
        .expect("logs")
        .iter()
        .filter_map(|l| l["type"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["create", "open", "pending", "closed", "reopen", "closed"]
    );
    // useIntegration alone.
    let flagged = json_of(put(json!({"useIntegration": true})).await, StatusCode::OK).await;
    assert_eq!(flagged["useIntegration"], true);
}

/// A tab's first page is served from a cache keyed by the company's event sequence; renaming
/// the attendant (a user write, published after its commit) and tagging the ticket move the
/// sequence, so the next read shows them.
async fn cached_tabs_follow_renames_and_tags(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "c1", "5511987650011", "oi").await;
    let id = only_ticket(&app, &a).await["id"].as_i64().expect("id");
    json_of(
        app.put(
            &format!("/tickets/{id}"),
            &a.admin,
            &json!({"status": "open"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let tab = "status=open&showAll=true";
    let first = list(&app, &a.admin, tab).await;
    assert_eq!(first, list(&app, &a.admin, tab).await, "same page twice");
    assert_eq!(first["tickets"][0]["user"]["id"], a.admin_id);

    let mut me = json_of(
        app.get(&format!("/users/{}", a.admin_id), &a.admin).await,
        StatusCode::OK,
    )
    .await;
    me["name"] = json!("Chefe Renomeado");
    json_of(
        app.put(&format!("/users/{}", a.admin_id), &a.admin, &me)
            .await,
        StatusCode::OK,
    )
    .await;
    let renamed = list(&app, &a.admin, tab).await;
    assert_eq!(renamed["tickets"][0]["user"]["name"], "Chefe Renomeado");

    let tag = json_of(
        app.post(
            "/tags",
            &a.admin,
            &json!({"name": "VIP", "color": "#00aa00"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let tag_id = tag["id"].as_i64().expect("tag id");
    let linked = app
        .put(&format!("/ticket-tags/{id}/{tag_id}"), &a.admin, &json!({}))
        .await;
    assert!(linked.status().is_success(), "{}", linked.status());
    let tagged = list(&app, &a.admin, tab).await;
    assert_eq!(tagged["tickets"][0]["tags"][0]["name"], "VIP");
    // The tag filter sees it too.
    let filtered = list(&app, &a.admin, &format!("{tab}&tags=[{tag_id}]")).await;
    assert_eq!(filtered["tickets"].as_array().map(Vec::len), Some(1));

    // A plain user's cached page follows the LGPD settings as they change.
    let queue = json_of(
        app.post(
            "/queue",
            &a.admin,
            &json!({"name": "Suporte", "color": "#123456", "greetingMessage": "Oi"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    json_of(
        app.put(
            &format!("/tickets/{id}"),
            &a.admin,
            &json!({"userId": a.user_id, "queueId": queue["id"], "status": "open"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let mine = "status=open";
    let before = list(&app, &a.user, mine).await;
    assert_eq!(before["tickets"][0]["contact"]["number"], "5511987650011");
    assert_eq!(list(&app, &a.user, mine).await, before, "cached");
    for key in ["enableLGPD", "lgpdHideNumber"] {
        json_of(
            app.put(
                &format!("/settings/{key}"),
                &a.admin,
                &json!({"value": "enabled"}),
            )
            .await,
            StatusCode::OK,
        )
        .await;
    }
    let masked = list(&app, &a.user, mine).await;
    assert_eq!(masked["tickets"][0]["contact"]["number"], "5511*******11");
}

async fn notes_delete_permission_and_close_all(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    deliver(&app, &a, "n1", "5511987650006", "oi").await;
    deliver(&app, &a, "n2", "5511987650007", "oi").await;
    let page = list(&app, &a.admin, "showAll=true").await;
    let id = page["tickets"][0]["id"].as_i64().expect("id");
    let note = json_of(
        app.post(
            "/ticket-notes",
            &a.admin,
            &json!({"note": "ligar amanhã", "ticketId": id}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(note["note"], "ligar amanhã");
    let notes = json_of(
        app.get(&format!("/ticket-notes/list?ticketId={id}"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(notes.as_array().map(Vec::len), Some(1));
    assert_error(
        app.post(
            "/ticket-notes",
            &a.admin,
            &json!({"note": "  ", "ticketId": id}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    let note_id = note["id"].as_i64().expect("note id");
    assert_eq!(
        app.delete(&format!("/ticket-notes/{note_id}"), &a.admin)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    // Plain users may not delete tickets nor close all.
    assert_error(
        app.delete(&format!("/tickets/{id}"), &a.user).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.post("/tickets/closeAll", &a.user, &json!({"status": "pending"}))
            .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_eq!(
        app.delete(&format!("/tickets/{id}"), &a.admin)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    let closed = json_of(
        app.post(
            "/tickets/closeAll",
            &a.admin,
            &json!({"status": "pending", "selectedQueueIds": []}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(closed["closed"], 1);
    assert_eq!(
        list(&app, &a.admin, "status=pending").await["tickets"],
        json!([])
    );
}

async fn company_b_reaches_none_of_company_a_tickets(app: TestApp) {
    let a = inbox(&app, "Alpha").await;
    let b = inbox(&app, "Beta").await;
    deliver(&app, &a, "x1", "5511987650008", "oi").await;
    let ticket = only_ticket(&app, &a).await;
    let id = ticket["id"].as_i64().expect("id");
    let uuid = ticket["uuid"].as_str().expect("uuid");
    let contact = ticket["contactId"].as_i64().expect("contact");
    assert_eq!(
        list(&app, &b.admin, "showAll=true").await["tickets"],
        json!([])
    );
    for response in [
        app.get(&format!("/tickets/{id}"), &b.admin).await,
        app.get(&format!("/tickets/u/{uuid}"), &b.admin).await,
        app.put(
            &format!("/tickets/{id}"),
            &b.admin,
            &json!({"status": "open"}),
        )
        .await,
        app.delete(&format!("/tickets/{id}"), &b.admin).await,
        app.get(&format!("/tickets-log/{id}"), &b.admin).await,
        app.get(&format!("/ticket-notes/list?ticketId={id}"), &b.admin)
            .await,
        app.post(
            "/ticket-notes",
            &b.admin,
            &json!({"note": "x", "ticketId": id}),
        )
        .await,
        app.get(&format!("/messages/{uuid}"), &b.admin).await,
        app.post(&format!("/messages/{id}"), &b.admin, &json!({"body": "x"}))
            .await,
        app.post(&format!("/tickets/{id}/read"), &b.admin, &json!({}))
            .await,
    ] {
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
    assert_error(
        app.post("/tickets", &b.admin, &json!({"contactId": contact}))
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
    let closed = json_of(
        app.post("/tickets/closeAll", &b.admin, &json!({"status": "pending"}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(closed["closed"], 0);
    let still = only_ticket(&app, &a).await;
    assert_eq!(still["status"], "pending");
}
