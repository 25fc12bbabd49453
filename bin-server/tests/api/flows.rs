//! The flow builder and phrase campaigns over HTTP on both engines: CRUD, search and pages,
//! duplicate, drafts with issues, publication (invalid 422, versions 1 and 2), versions and
//! restore, export/import, stats from run records, media checks, deletion refused while in use,
//! phrase campaigns with their validation, and plain users refused every write.

use chatflow_core::flow_ports::{FlowId, NewFlowRun};
use chatflow_core::inbox::model::NewTicket;
use chatflow_core::ports::ChannelKind;
use chatflow_core::ticket::TicketStatus;
use chatflow_core::{CompanyId, ContactId, TenantScope};
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, error_of, json_of};

app_tests!(
    flows_crud_search_and_pages,
    drafts_publish_versions_and_restore,
    export_and_import_round_trip,
    stats_count_runs_of_the_live_version,
    media_uploads_are_checked_and_served,
    phrase_campaigns_and_flows_in_use,
);

/// An admin's and a plain user's tokens in `company`.
async fn tokens(app: &TestApp, company: CompanyId, domain: &str) -> (String, String) {
    let admin = app
        .member(
            company,
            &format!("boss@{domain}"),
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let user = app
        .member(company, &format!("ana@{domain}"), MemberOptions::default())
        .await;
    (app.token_of(&admin).await, app.token_of(&user).await)
}

/// A valid flow: start → message `text`.
fn valid(text: &str) -> Value {
    json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "m", "type": "message", "position": {"x": 0, "y": 120}, "data": {"label": text}},
        ],
        "connections": [{"id": "e1", "source": "1", "target": "m"}],
    })
}

async fn create(app: &TestApp, token: &str, name: &str) -> i64 {
    let flow = json_of(
        app.post("/flowbuilder", token, &json!({"name": name}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    flow["id"].as_i64().expect("an id")
}

async fn save(app: &TestApp, token: &str, id: i64, graph: &Value) -> Value {
    let mut body = graph.clone();
    body["idFlow"] = json!(id);
    json_of(
        app.post("/flowbuilder/flow", token, &body).await,
        StatusCode::OK,
    )
    .await
}

async fn flows_crud_search_and_pages(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, user) = tokens(&app, company, "alpha.test").await;
    for i in 1..=21 {
        create(&app, &admin, &format!("Fluxo {i:02}")).await;
    }
    let quick = create(&app, &admin, "Ação Rápida").await;

    let first = json_of(app.get("/flowbuilder", &user).await, StatusCode::OK).await;
    assert_eq!(first["count"], 22);
    assert_eq!(first["hasMore"], true);
    let names: Vec<&str> = first["flows"]
        .as_array()
        .expect("flows")
        .iter()
        .map(|f| f["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 20);
    assert_eq!(names[0], "Ação Rápida", "ordered by name");
    let second = json_of(
        app.get("/flowbuilder?pageNumber=2", &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["flows"].as_array().expect("flows").len(), 2);
    assert_eq!(second["hasMore"], false);
    let found = json_of(
        app.get("/flowbuilder?searchParam=ACAO", &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(found["count"], 1);
    let summary = &found["flows"][0];
    assert_eq!(summary["id"], quick);
    assert_eq!(summary["active"], true);
    assert_eq!(summary["publishedVersion"], Value::Null);
    assert_eq!(summary["hasDraft"], false);
    assert!(summary["updatedAt"].is_string());

    // Names are 2 to 50 characters.
    let response = app
        .post("/flowbuilder", &admin, &json!({"name": "x"}))
        .await;
    let body = json_of(response, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["error"], "ERR_VALIDATION");
    assert_eq!(body["fields"][0]["field"], "name");
    assert_error(
        app.post("/flowbuilder", &admin, &json!({"name": "x".repeat(51)}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;

    let renamed = json_of(
        app.put(
            "/flowbuilder",
            &admin,
            &json!({"flowId": quick, "name": "Atalho"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(renamed["name"], "Atalho");

    // Plain users read but never write.
    for response in [
        app.post("/flowbuilder", &user, &json!({"name": "Meu"}))
            .await,
        app.put(
            "/flowbuilder",
            &user,
            &json!({"flowId": quick, "name": "Meu"}),
        )
        .await,
        app.delete(&format!("/flowbuilder/{quick}"), &user).await,
        app.post("/flowbuilder/duplicate", &user, &json!({"flowId": quick}))
            .await,
        app.post(
            "/flowbuilder/flow",
            &user,
            &json!({"idFlow": quick, "nodes": [], "connections": []}),
        )
        .await,
        app.post(&format!("/flowbuilder/{quick}/publish"), &user, &json!({}))
            .await,
        app.post(
            "/flowbuilder/import",
            &user,
            &json!({"format": "chatflow-flow", "version": 1, "name": "Meu", "flow": valid("x")}),
        )
        .await,
    ] {
        assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    }

    assert_eq!(
        app.delete(&format!("/flowbuilder/{quick}"), &admin)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.get(&format!("/flowbuilder/flow/{quick}"), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_FLOW_FOUND",
    )
    .await;
    assert_error(
        app.delete(&format!("/flowbuilder/{quick}"), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_FLOW_FOUND",
    )
    .await;
}

async fn drafts_publish_versions_and_restore(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, user) = tokens(&app, company, "alpha.test").await;
    let id = create(&app, &admin, "Boas-vindas").await;

    let empty = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        empty["flow"],
        json!({"id": id, "name": "Boas-vindas", "active": true, "flow": null, "version": null, "draft": false})
    );
    // Publishing with nothing to publish is refused with the issues of an empty graph.
    let refused = json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &admin, &json!({}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    assert_eq!(refused["error"], "ERR_FLOW_INVALID");

    // A draft without a start node is saved, with its issues.
    let broken = json!({
        "nodes": [{"id": "m", "type": "message", "position": {"x": 0, "y": 0}, "data": {"label": "Oi"}}],
        "connections": [],
    });
    let saved = save(&app, &admin, id, &broken).await;
    assert_eq!(saved["flow"]["hasDraft"], true);
    let issues = saved["issues"].as_array().expect("issues");
    assert!(!issues.is_empty(), "a graph without start has issues");
    assert!(
        issues.iter().all(|i| i["code"].is_string()
            && i["message"].is_string()
            && i.get("nodeId").is_some())
    );
    let refused = json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &admin, &json!({}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    assert_eq!(refused["error"], "ERR_FLOW_INVALID");
    assert_eq!(refused["issues"], saved["issues"]);
    let still = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(still["flow"]["version"], Value::Null);

    // A valid draft publishes as version 1 and stops being a draft.
    let saved = save(&app, &admin, id, &valid("Olá")).await;
    assert!(
        saved["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .all(|i| i["severity"] != "error")
    );
    let v1 = json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &admin, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(v1["version"], 1);
    assert!(v1["publishedAt"].is_string());
    let live = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(live["flow"]["version"], 1);
    assert_eq!(live["flow"]["draft"], false);
    assert_eq!(live["flow"]["flow"]["nodes"][1]["data"]["label"], "Olá");

    // Editing makes a draft again; publishing it is version 2.
    save(&app, &admin, id, &valid("Olá de novo")).await;
    let editing = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(editing["flow"]["draft"], true);
    assert_eq!(editing["flow"]["version"], 1);
    assert_eq!(
        editing["flow"]["flow"]["nodes"][1]["data"]["label"],
        "Olá de novo"
    );
    let v2 = json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &admin, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(v2["version"], 2);
    let versions = json_of(
        app.get(&format!("/flowbuilder/{id}/versions"), &user).await,
        StatusCode::OK,
    )
    .await;
    let numbers: Vec<i64> = versions
        .as_array()
        .expect("versions")
        .iter()
        .map(|v| v["version"].as_i64().expect("number"))
        .collect();
    assert_eq!(numbers, [2, 1]);
    assert_eq!(versions[0]["publishedBy"]["name"], "boss");

    // Restoring version 1 makes its graph the draft; the live version stays 2.
    let restored = json_of(
        app.post(
            &format!("/flowbuilder/{id}/versions/1/restore"),
            &admin,
            &json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(restored["flow"]["draft"], true);
    assert_eq!(restored["flow"]["version"], 2);
    assert_eq!(restored["flow"]["flow"]["nodes"][1]["data"]["label"], "Olá");
    assert_error(
        app.post(
            &format!("/flowbuilder/{id}/versions/9/restore"),
            &admin,
            &json!({}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;

    // A duplicate holds the draft, unpublished.
    let copy = json_of(
        app.post("/flowbuilder/duplicate", &admin, &json!({"flowId": id}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(copy["name"], "Boas-vindas - cópia");
    assert_eq!(copy["publishedVersion"], Value::Null);
    assert_eq!(copy["hasDraft"], true);
    let copied = json_of(
        app.get(&format!("/flowbuilder/flow/{}", copy["id"]), &admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(copied["flow"]["flow"], restored["flow"]["flow"]);
}

async fn export_and_import_round_trip(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, _) = tokens(&app, company, "alpha.test").await;
    let id = create(&app, &admin, "Vendas").await;
    save(&app, &admin, id, &valid("Compre já")).await;
    let response = app.get(&format!("/flowbuilder/{id}/export"), &admin).await;
    assert_eq!(response.status(), StatusCode::OK);
    let disposition = response
        .headers()
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(disposition.starts_with("attachment"), "{disposition}");
    let file: Value = response.json().await.expect("JSON");
    assert_eq!(file["format"], "chatflow-flow");
    assert_eq!(file["version"], 1);
    assert_eq!(file["name"], "Vendas");

    let imported = json_of(
        app.post("/flowbuilder/import", &admin, &file).await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(imported["name"], "Vendas");
    assert_eq!(imported["hasDraft"], true);
    assert_eq!(imported["publishedVersion"], Value::Null);
    let back = json_of(
        app.get(&format!("/flowbuilder/flow/{}", imported["id"]), &admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(back["flow"]["flow"], file["flow"]);

    let renamed = json_of(
        app.post(
            "/flowbuilder/import",
            &admin,
            &json!({"name": "Vendas 2", "file": file}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(renamed["name"], "Vendas 2");
    assert_error(
        app.post(
            "/flowbuilder/import",
            &admin,
            &json!({"format": "other", "version": 1, "name": "X1", "flow": valid("x")}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;
}

async fn stats_count_runs_of_the_live_version(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, user) = tokens(&app, company, "alpha.test").await;
    let id = create(&app, &admin, "Fluxo").await;
    let none = json_of(
        app.get(&format!("/flowbuilder/{id}/stats"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(none, json!({"version": null, "nodes": {}}));
    save(&app, &admin, id, &valid("Oi")).await;
    json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &admin, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;

    let scope = TenantScope::new(company);
    let mut runs = Vec::new();
    for (i, (version, visited, node, status)) in [
        (1, vec!["1", "m"], "m", "ended"),
        (1, vec!["1"], "1", "waiting"),
        (1, vec!["1", "m"], "m", "running"),
        (7, vec!["1", "m"], "m", "ended"),
    ]
    .into_iter()
    .enumerate()
    {
        let contact = json_of(
            app.post(
                "/contacts",
                &admin,
                &json!({"name": "Ana", "number": format!("551194444000{i}")}),
            )
            .await,
            StatusCode::OK,
        )
        .await;
        let ticket = app
            .ports
            .tickets
            .create(
                scope,
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
        runs.push(
            app.ports
                .flows
                .insert_run(
                    scope,
                    &NewFlowRun {
                        ticket_id: ticket.id,
                        flow_id: FlowId(id),
                        version,
                        state: json!({"visited": visited}).to_string(),
                        current_node: Some(node.to_owned()),
                        status: status.to_owned(),
                        timer: None,
                        memory: None,
                    },
                )
                .await
                .expect("run recorded"),
        );
    }
    assert_eq!(runs.len(), 4);
    let stats = json_of(
        app.get(&format!("/flowbuilder/{id}/stats"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        stats,
        json!({"version": 1, "nodes": {
            "1": {"entered": 3, "stopped": 1},
            "m": {"entered": 2, "stopped": 1},
        }})
    );
}

/// A 1×1 PNG's first bytes (the type is taken from the name and the content type).
const PNG_BYTES: &[u8] = b"\x89PNG\r\n\x1a\n0000";

async fn upload(
    app: &TestApp,
    token: &str,
    path: &str,
    files: &[(&str, &str, Vec<u8>)],
) -> reqwest::Response {
    let mut form = Form::new();
    for (name, mime, bytes) in files {
        let part = Part::bytes(bytes.clone())
            .file_name((*name).to_owned())
            .mime_str(mime)
            .expect("mime");
        form = form.part("medias", part);
    }
    app.client
        .post(app.url(path))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .expect("sent")
}

async fn media_uploads_are_checked_and_served(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, user) = tokens(&app, company, "alpha.test").await;
    let stored = json_of(
        upload(
            &app,
            &admin,
            "/flowbuilder/img",
            &[("foto.png", "image/png", PNG_BYTES.to_vec())],
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let name = stored["names"][0].as_str().expect("a stored name");
    let served = app.get(&format!("/flowbuilder/media/{name}"), &user).await;
    assert_eq!(served.status(), StatusCode::OK);
    assert_eq!(
        served
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/png")
    );
    assert_eq!(served.bytes().await.expect("bytes").as_ref(), PNG_BYTES);
    assert_error(
        app.get("/flowbuilder/media/nope.png", &user).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;

    // Wrong type for the node, or too large.
    for (path, file, mime) in [
        ("/flowbuilder/img", "nota.txt", "text/plain"),
        ("/flowbuilder/img", "som.mp3", "audio/mpeg"),
        ("/flowbuilder/audio", "foto.png", "image/png"),
        ("/flowbuilder/video", "som.ogg", "audio/ogg"),
        ("/flowbuilder/content", "doc.pdf", "application/pdf"),
    ] {
        let (status, code) =
            error_of(upload(&app, &admin, path, &[(file, mime, vec![1, 2, 3])]).await).await;
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, "ERR_FLOW_MEDIA_TYPE"),
            "{path} {file}"
        );
    }
    let (status, code) = error_of(
        upload(
            &app,
            &admin,
            "/flowbuilder/img",
            &[("grande.jpg", "image/jpeg", vec![0; 2 * 1024 * 1024 + 1])],
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, "ERR_FLOW_MEDIA_TOO_LARGE")
    );
    let (status, code) = error_of(
        upload(
            &app,
            &admin,
            "/flowbuilder/audio",
            &[("longo.mp3", "audio/mpeg", vec![0; 5 * 1024 * 1024 + 1])],
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::PAYLOAD_TOO_LARGE, "ERR_FLOW_MEDIA_TOO_LARGE")
    );

    // Audio (opus content too), video, and several files for a content node.
    for (path, file, mime) in [
        ("/flowbuilder/audio", "voz.ogg", "audio/ogg; codecs=opus"),
        ("/flowbuilder/audio", "voz.opus", "audio/opus"),
        ("/flowbuilder/video", "clip.mp4", "video/mp4"),
    ] {
        json_of(
            upload(&app, &admin, path, &[(file, mime, vec![7; 16])]).await,
            StatusCode::OK,
        )
        .await;
    }
    let many = json_of(
        upload(
            &app,
            &admin,
            "/flowbuilder/content",
            &[
                ("a.png", "image/png", PNG_BYTES.to_vec()),
                ("b.mp4", "video/mp4", vec![7; 16]),
            ],
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(many["names"].as_array().expect("names").len(), 2);

    assert_error(
        upload(
            &app,
            &user,
            "/flowbuilder/img",
            &[("foto.png", "image/png", PNG_BYTES.to_vec())],
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
}

async fn phrase_campaigns_and_flows_in_use(app: TestApp) {
    let company = app.company("Alpha").await;
    let (admin, user) = tokens(&app, company, "alpha.test").await;
    let flow = create(&app, &admin, "Promo").await;

    let body = json_of(
        app.post("/flowcampaign", &admin, &json!({"whatsappId": null}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
    )
    .await;
    let mut fields: Vec<&str> = body["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| f["field"].as_str().expect("field"))
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, ["flowId", "name", "phrase"]);
    assert_error(
        app.post(
            "/flowcampaign",
            &admin,
            &json!({"name": "P", "flowId": 999_999, "phrase": "oi"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_FLOW_FOUND",
    )
    .await;
    assert_error(
        app.post(
            "/flowcampaign",
            &admin,
            &json!({"name": "P", "flowId": flow, "whatsappId": 999_999, "phrase": "oi"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;

    let campaign = json_of(
        app.post(
            "/flowcampaign",
            &admin,
            &json!({"name": "Black Friday", "flowId": flow, "whatsappId": null, "phrase": "quero desconto"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let cid = campaign["id"].as_i64().expect("id");
    assert_eq!(
        campaign,
        json!({"id": cid, "name": "Black Friday", "flowId": flow, "whatsappId": null,
               "phrase": "quero desconto", "status": true})
    );
    let list = json_of(app.get("/flowcampaign", &user).await, StatusCode::OK).await;
    assert_eq!(list, json!({"flow": [campaign]}));
    let details = json_of(
        app.get(&format!("/flowcampaign/{cid}"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(details["details"]["id"], cid);

    let updated = json_of(
        app.put(
            "/flowcampaign",
            &admin,
            &json!({"id": cid, "name": "Black Friday", "flowId": flow, "whatsappId": null,
                    "phrase": "desconto", "status": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(updated["status"], false);
    assert_eq!(updated["phrase"], "desconto");

    // The campaign holds the flow.
    assert_error(
        app.delete(&format!("/flowbuilder/{flow}"), &admin).await,
        StatusCode::CONFLICT,
        "ERR_FLOW_IN_USE",
    )
    .await;

    // Plain users read campaigns but never write them.
    for response in [
        app.post(
            "/flowcampaign",
            &user,
            &json!({"name": "X", "flowId": flow, "phrase": "x"}),
        )
        .await,
        app.put(
            "/flowcampaign",
            &user,
            &json!({"id": cid, "name": "X", "flowId": flow, "phrase": "x"}),
        )
        .await,
        app.delete(&format!("/flowcampaign/{cid}"), &user).await,
    ] {
        assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    }

    assert_eq!(
        app.delete(&format!("/flowcampaign/{cid}"), &admin)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
    assert_error(
        app.get(&format!("/flowcampaign/{cid}"), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_FLOW_CAMPAIGN_FOUND",
    )
    .await;
    assert_eq!(
        app.delete(&format!("/flowbuilder/{flow}"), &admin)
            .await
            .status(),
        StatusCode::NO_CONTENT
    );
}
