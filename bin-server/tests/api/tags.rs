//! Tags over HTTP on both engines: CRUD and validation, the kanban filter and the page, contact
//! tags (sync and list), ticket tags, and company B reaching none of company A's tags.

use chatflow_core::inbox::model::NewTicket;
use chatflow_core::ports::ChannelKind;
use chatflow_core::ticket::TicketStatus;
use chatflow_core::{CompanyId, ContactId, TenantScope};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, error_of, json_of};

app_tests!(tags_crud_and_contact_tags, ticket_tags_stay_in_the_company);

async fn user_of(app: &TestApp, company: CompanyId, email: &str) -> String {
    let member = app.member(company, email, MemberOptions::default()).await;
    app.token_of(&member).await
}

async fn tags_crud_and_contact_tags(app: TestApp) {
    let company = app.company("Alpha").await;
    let user = user_of(&app, company, "ana@alpha.test").await;
    assert_error(
        app.post("/tags", &user, &json!({"name": "ab"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    let vip = json_of(
        app.post(
            "/tags",
            &user,
            &json!({"name": " vip ", "color": "#ff0000"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(vip["name"], "vip");
    assert_eq!(vip["kanban"], 0);
    let lane = json_of(
        app.post(
            "/tags",
            &user,
            &json!({"name": "Em atendimento", "kanban": 1}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert!(
        lane["color"].as_str().is_some_and(|c| !c.is_empty()),
        "a default colour"
    );
    let kanban = json_of(app.get("/tags/list?kanban=1", &user).await, StatusCode::OK).await;
    assert_eq!(kanban, json!([lane]));
    let all = json_of(app.get("/tags/list", &user).await, StatusCode::OK).await;
    assert_eq!(all.as_array().expect("list").len(), 2);
    let page = json_of(
        app.get("/tags?searchParam=ATEND", &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["count"], 1);
    assert_eq!(page["hasMore"], false);
    assert_eq!(page["tags"][0]["name"], "Em atendimento");

    let renamed = json_of(
        app.put(
            &format!("/tags/{}", vip["id"]),
            &user,
            &json!({"name": "cliente vip", "color": "#00ff00"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["name"], "cliente vip");

    let contact = json_of(
        app.post(
            "/contacts",
            &user,
            &json!({"name": "Ana", "number": "5511944440001"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let synced = json_of(
        app.post(
            "/tags/sync",
            &user,
            &json!({"contactId": contact["id"], "tags": [{"id": vip["id"]}, {"id": lane["id"]}]}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(synced["tags"].as_array().expect("tags").len(), 2);
    let listed = json_of(
        app.get(&format!("/contactTags/{}", contact["id"]), &user)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(listed, synced["tags"]);
    // Syncing an empty list clears them.
    let cleared = json_of(
        app.post(
            "/tags/sync",
            &user,
            &json!({"contactId": contact["id"], "tags": []}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleared["tags"], json!([]));

    // Deleting a company tag is for admins: a plain user is refused and the tag stays.
    assert_error(
        app.delete(&format!("/tags/{}", vip["id"]), &user).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let kept = json_of(app.get("/tags/list", &user).await, StatusCode::OK).await;
    assert!(
        kept.to_string().contains(&format!("\"id\":{}", vip["id"])),
        "{kept}"
    );
    let admin = app
        .member(
            company,
            "boss@alpha.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    let deleted = app.delete(&format!("/tags/{}", vip["id"]), &admin).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_error(
        app.delete(&format!("/tags/{}", vip["id"]), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
}

async fn ticket_tags_stay_in_the_company(app: TestApp) {
    let a = app.company("Alpha").await;
    let b = app.company("Beta").await;
    let a_user = user_of(&app, a, "ana@alpha.test").await;
    let b_user = user_of(&app, b, "bob@beta.test").await;
    let contact = json_of(
        app.post(
            "/contacts",
            &a_user,
            &json!({"name": "Ana", "number": "5511944440002"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let ticket = app
        .ports
        .tickets
        .create(
            TenantScope::new(a),
            &NewTicket {
                contact_id: ContactId(contact["id"].as_i64().expect("id")),
                whatsapp_id: None,
                queue_id: None,
                user_id: None,
                status: TicketStatus::Pending,
                is_group: false,
                channel: ChannelKind::Whatsapp,
            },
            uuid::Uuid::new_v4(),
        )
        .await
        .expect("ticket created");
    let a_tag: Value = json_of(
        app.post("/tags", &a_user, &json!({"name": "urgent"})).await,
        StatusCode::OK,
    )
    .await;
    let b_tag: Value = json_of(
        app.post("/tags", &b_user, &json!({"name": "beta-tag"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let path = format!("/ticket-tags/{}/{}", ticket.id.0, a_tag["id"]);
    assert_eq!(
        app.put(&path, &a_user, &json!({})).await.status(),
        StatusCode::NO_CONTENT
    );
    let stored = app
        .ports
        .tickets
        .get(TenantScope::new(a), ticket.id)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(stored.tags.len(), 1, "the ticket carries the tag");

    // B can neither tag A's ticket, nor put B's tag on it, nor clear it.
    for response in [
        app.put(&path, &b_user, &json!({})).await,
        app.put(
            &format!("/ticket-tags/{}/{}", ticket.id.0, b_tag["id"]),
            &b_user,
            &json!({}),
        )
        .await,
        app.put(
            &format!("/ticket-tags/{}/{}", ticket.id.0, b_tag["id"]),
            &a_user,
            &json!({}),
        )
        .await,
        app.delete(&format!("/ticket-tags/{}", ticket.id.0), &b_user)
            .await,
    ] {
        let (status, _) = error_of(response).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
    let clear = app
        .delete(&format!("/ticket-tags/{}", ticket.id.0), &a_user)
        .await;
    assert_eq!(clear.status(), StatusCode::NO_CONTENT);
    let stored = app
        .ports
        .tickets
        .get(TenantScope::new(a), ticket.id)
        .await
        .expect("get")
        .expect("ticket");
    assert!(stored.tags.is_empty());
}
