//! A user of company B aims every endpoint of this issue at company A's ids: each answer is 404
//! or 403, never A's data, and nothing of A changes.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, error_of, json_of};
use crate::users::PNG;

app_tests!(
    company_b_never_reaches_company_a,
    company_b_never_reaches_company_a_flows
);

async fn company_b_never_reaches_company_a(app: TestApp) {
    let a = app.company("Alpha").await;
    let b = app.company("Beta").await;
    let a_admin = app
        .member(
            a,
            "boss@alpha.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let a_user = app
        .member(a, "ana@alpha.test", MemberOptions::default())
        .await;
    let b_admin = app
        .member(
            b,
            "boss@beta.test",
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    let b_user = app
        .member(b, "bob@beta.test", MemberOptions::default())
        .await;
    let a_token = app.token_of(&a_admin).await;
    // Company A has an avatar and a changed setting, so there is something to leak.
    let part = Part::bytes(PNG.to_vec())
        .file_name("a.png")
        .mime_str("image/png")
        .expect("mime");
    let uploaded = app
        .client
        .post(app.url(&format!("/users/{}/media-upload", a_user.id)))
        .bearer_auth(&a_token)
        .multipart(Form::new().part("profileImage", part))
        .send()
        .await
        .expect("sent");
    assert_eq!(uploaded.status(), StatusCode::OK);
    assert_eq!(
        app.put(
            "/settings/userRating",
            &a_token,
            &json!({"value": "enabled"})
        )
        .await
        .status(),
        StatusCode::OK
    );

    // Company A has a queue with a chatbot menu; B has a queue of its own.
    let a_queue = json_of(
        app.post(
            "/queue",
            &a_token,
            &json!({"name": "Vendas A", "color": "#ff0000", "chatbots": [
                {"name": "Comercial", "greetingMessage": "Escolha", "options": [{"name": "Planos"}]}
            ]}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let a_queue_id = a_queue["id"].as_i64().expect("id");
    let a_option_id = a_queue["chatbots"][0]["id"].as_i64().expect("id");
    let b_queue = json_of(
        app.post(
            "/queue",
            &app.token_of(&b_admin).await,
            &json!({"name": "Vendas B", "color": "#00ff00"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let b_queue_id = b_queue["id"].as_i64().expect("id");

    for b_member in [&b_admin, &b_user] {
        let token = app.token_of(b_member).await;
        let user_path = format!("/users/{}", a_user.id);
        let queue_path = format!("/queue/{a_queue_id}");
        let chatbot_path = format!("/chatbot/{a_option_id}");
        let schedules_path = format!("/companies/{a}/schedules");
        let queue_body = json!({"name": "Hacked", "color": "#000000", "greetingMessage": "x"});
        let attempts = vec![
            ("GET queue", app.get(&queue_path, &token).await),
            ("PUT queue", app.put(&queue_path, &token, &queue_body).await),
            ("DELETE queue", app.delete(&queue_path, &token).await),
            ("GET chatbot", app.get(&chatbot_path, &token).await),
            (
                "PUT chatbot",
                app.put(&chatbot_path, &token, &json!({"name": "Hacked"}))
                    .await,
            ),
            ("DELETE chatbot", app.delete(&chatbot_path, &token).await),
            (
                "POST chatbot in A's queue",
                app.post(
                    "/chatbot",
                    &token,
                    &json!({"queueId": a_queue_id, "name": "Hacked"}),
                )
                .await,
            ),
            (
                "POST chatbot under A's option",
                app.post(
                    "/chatbot",
                    &token,
                    &json!({"queueId": b_queue_id, "parentId": a_option_id, "name": "Hacked"}),
                )
                .await,
            ),
            ("GET schedules", app.get(&schedules_path, &token).await),
            (
                "PUT schedules",
                app.put(
                    &schedules_path,
                    &token,
                    &json!({"schedules": chatflow_core::queue::default_schedules()}),
                )
                .await,
            ),
            ("GET user", app.get(&user_path, &token).await),
            (
                "PUT user",
                app.put(
                    &user_path,
                    &token,
                    &json!({"name": "Hacked", "password": "hacked-1"}),
                )
                .await,
            ),
            ("DELETE user", app.delete(&user_path, &token).await),
            (
                "GET avatar",
                app.get(&format!("/users/{}/avatar", a_user.id), &token)
                    .await,
            ),
            (
                "PUT width",
                app.put(
                    &format!("/users/toggleChangeWidht/{}", a_user.id),
                    &token,
                    &json!({"defaultTicketsManagerWidth": 500}),
                )
                .await,
            ),
            ("upload avatar", {
                let part = Part::bytes(PNG.to_vec())
                    .file_name("b.png")
                    .mime_str("image/png")
                    .expect("mime");
                app.client
                    .post(app.url(&format!("/users/{}/media-upload", a_user.id)))
                    .bearer_auth(&token)
                    .multipart(Form::new().part("profileImage", part))
                    .send()
                    .await
                    .expect("sent")
            }),
            (
                "GET company",
                app.get(&format!("/companies/{a}"), &token).await,
            ),
            (
                "GET plan",
                app.get(&format!("/companies/listPlan/{a}"), &token).await,
            ),
            (
                "GET companySettings",
                app.get(&format!("/companySettings/{a}"), &token).await,
            ),
        ];
        for (what, response) in attempts {
            let (status, code) = error_of(response).await;
            assert!(
                status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
                "{what} by {}: {status} {code}",
                b_member.email
            );
        }

        // B's admin gets 404 for A's queue and option ids, never a refusal that confirms them.
        if b_member.id == b_admin.id {
            for path in [&queue_path, &chatbot_path] {
                assert_eq!(
                    app.get(path, &token).await.status(),
                    StatusCode::NOT_FOUND,
                    "{path}"
                );
            }
        }
        // The queue list is B's own.
        let queues = json_of(app.get("/queue", &token).await, StatusCode::OK).await;
        assert_eq!(queues, json!([b_queue]));

        // Lists show B's users only.
        let brief = app
            .get("/users/list", &token)
            .await
            .text()
            .await
            .expect("body");
        assert!(
            !brief.contains("alpha.test") && !brief.contains(&format!("\"id\":{}", a_user.id)),
            "{brief}"
        );
        if b_member.id == b_admin.id {
            let table = app
                .get("/users/?searchParam=ana", &token)
                .await
                .text()
                .await
                .expect("body");
            assert!(!table.contains("alpha"), "{table}");
            // Settings are B's own: A's change does not show, and B's change stays in B.
            let settings = json_of(app.get("/settings", &token).await, StatusCode::OK).await;
            let rating = settings
                .as_array()
                .expect("a list")
                .iter()
                .find(|s| s["key"] == "userRating")
                .expect("userRating");
            assert_eq!(rating["value"], "disabled");
            assert_eq!(
                app.put(
                    "/settings/userRating",
                    &token,
                    &json!({"value": "disabled"})
                )
                .await
                .status(),
                StatusCode::OK
            );
            let one = json_of(
                app.get("/companySettingOne?column=userRating", &token)
                    .await,
                StatusCode::OK,
            )
            .await;
            assert_eq!(one["value"], "disabled");
        }
    }

    // Nothing of A changed.
    let still = json_of(
        app.get(&format!("/users/{}", a_user.id), &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(still["name"], "ana");
    assert_eq!(still["defaultTicketsManagerWidth"], 550);
    assert_eq!(
        app.login_with(
            &crate::helpers::browser(),
            &a_user.email,
            crate::helpers::PASSWORD
        )
        .await
        .status(),
        StatusCode::OK
    );
    let a_setting = json_of(
        app.get("/setting/userRating", &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(a_setting["value"], "enabled");
    assert_eq!(
        json_of(
            app.get(&format!("/queue/{a_queue_id}"), &a_token).await,
            StatusCode::OK
        )
        .await,
        a_queue
    );
    let a_hours = json_of(
        app.get(&format!("/companies/{a}/schedules"), &a_token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        a_hours,
        json!({"schedules": chatflow_core::queue::default_schedules()})
    );
    let a_avatar = app
        .get(&format!("/users/{}/avatar", a_user.id), &a_token)
        .await;
    assert_eq!(a_avatar.bytes().await.expect("bytes").as_ref(), PNG);
}

/// Company B's admin aims every flow builder and phrase campaign endpoint at company A's ids:
/// 404 every time, and A's flow, versions, draft and campaign stay as they were.
async fn company_b_never_reaches_company_a_flows(app: TestApp) {
    let a = app.company("Alpha").await;
    let b = app.company("Beta").await;
    let admin = MemberOptions {
        admin: true,
        ..Default::default()
    };
    let a_admin = app.member(a, "boss@alpha.test", admin.clone()).await;
    let b_admin = app.member(b, "boss@beta.test", admin).await;
    let a_token = app.token_of(&a_admin).await;
    let b_token = app.token_of(&b_admin).await;
    let graph = json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "m", "type": "message", "position": {"x": 0, "y": 90}, "data": {"label": "Oi"}},
        ],
        "connections": [{"source": "1", "target": "m"}],
    });
    let flow = json_of(
        app.post("/flowbuilder", &a_token, &json!({"name": "Segredo"}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    let id = flow["id"].as_i64().expect("id");
    let mut body = graph.clone();
    body["idFlow"] = json!(id);
    json_of(
        app.post("/flowbuilder/flow", &a_token, &body).await,
        StatusCode::OK,
    )
    .await;
    json_of(
        app.post(&format!("/flowbuilder/{id}/publish"), &a_token, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    let campaign = json_of(
        app.post(
            "/flowcampaign",
            &a_token,
            &json!({"name": "Promo", "flowId": id, "phrase": "promo"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let cid = campaign["id"].as_i64().expect("id");
    let before = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &a_token).await,
        StatusCode::OK,
    )
    .await;

    let mut b_body = graph.clone();
    b_body["idFlow"] = json!(id);
    let flow_calls = [
        app.get(&format!("/flowbuilder/flow/{id}"), &b_token).await,
        app.put(
            "/flowbuilder",
            &b_token,
            &json!({"flowId": id, "name": "Roubado"}),
        )
        .await,
        app.delete(&format!("/flowbuilder/{id}"), &b_token).await,
        app.post("/flowbuilder/duplicate", &b_token, &json!({"flowId": id}))
            .await,
        app.post("/flowbuilder/flow", &b_token, &b_body).await,
        app.post(&format!("/flowbuilder/{id}/publish"), &b_token, &json!({}))
            .await,
        app.get(&format!("/flowbuilder/{id}/versions"), &b_token)
            .await,
        app.post(
            &format!("/flowbuilder/{id}/versions/1/restore"),
            &b_token,
            &json!({}),
        )
        .await,
        app.get(&format!("/flowbuilder/{id}/stats"), &b_token).await,
        app.get(&format!("/flowbuilder/{id}/export"), &b_token)
            .await,
        app.post(
            "/flowcampaign",
            &b_token,
            &json!({"name": "Minha", "flowId": id, "phrase": "x"}),
        )
        .await,
    ];
    for response in flow_calls {
        let url = response.url().to_string();
        let (status, code) = error_of(response).await;
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::NOT_FOUND, "ERR_NO_FLOW_FOUND"),
            "{url}"
        );
    }
    let campaign_calls = [
        app.get(&format!("/flowcampaign/{cid}"), &b_token).await,
        app.put(
            "/flowcampaign",
            &b_token,
            &json!({"id": cid, "name": "Minha", "flowId": id, "phrase": "x"}),
        )
        .await,
        app.delete(&format!("/flowcampaign/{cid}"), &b_token).await,
    ];
    for response in campaign_calls {
        let url = response.url().to_string();
        let (status, code) = error_of(response).await;
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::NOT_FOUND, "ERR_NO_FLOW_CAMPAIGN_FOUND"),
            "{url}"
        );
    }
    // B's lists hold nothing of A's.
    let page = json_of(app.get("/flowbuilder", &b_token).await, StatusCode::OK).await;
    assert_eq!(page["count"], 0);
    let campaigns = json_of(app.get("/flowcampaign", &b_token).await, StatusCode::OK).await;
    assert_eq!(campaigns, json!({"flow": []}));
    // A stored medium is served only to its company.
    let part = Part::bytes(PNG.to_vec())
        .file_name("a.png")
        .mime_str("image/png")
        .expect("mime");
    let stored: serde_json::Value = app
        .client
        .post(app.url("/flowbuilder/img"))
        .bearer_auth(&a_token)
        .multipart(Form::new().part("medias", part))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("JSON");
    let name = stored["names"][0].as_str().expect("a stored name");
    assert_eq!(
        app.get(&format!("/flowbuilder/media/{name}"), &a_token)
            .await
            .status(),
        StatusCode::OK
    );
    let (status, _) = error_of(
        app.get(&format!("/flowbuilder/media/{name}"), &b_token)
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Nothing of A changed.
    let after = json_of(
        app.get(&format!("/flowbuilder/flow/{id}"), &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(after, before);
    let versions = json_of(
        app.get(&format!("/flowbuilder/{id}/versions"), &a_token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(versions.as_array().map(Vec::len), Some(1));
    let still = json_of(
        app.get(&format!("/flowcampaign/{cid}"), &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(still["details"], campaign);
}

mod foreign_ids {
    use reqwest::StatusCode;
    use serde_json::{Value, json};

    use crate::helpers::{TestApp, error_of, json_of};
    use crate::tickets::{inbox, inbox_tests};

    inbox_tests!(company_b_cannot_point_its_writes_at_company_a_ids);

    /// The JSON of a successful answer.
    async fn ok(response: reqwest::Response) -> Value {
        let status = response.status();
        let url = response.url().to_string();
        let text = response.text().await.expect("a body");
        assert!(status.is_success(), "{url}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// Every write of company B that names one of company A's ids (queue, user, connection,
    /// contact, tag, flow, ticket) is refused with the "not found"-style answer of
    /// `POST /tickets`, and nothing of A shows on B's rows afterwards.
    async fn company_b_cannot_point_its_writes_at_company_a_ids(app: TestApp) {
        let a = inbox(&app, "Alpha").await;
        let b = inbox(&app, "Beta").await;
        let a_queue = ok(app
            .post(
                "/queue",
                &a.admin,
                &json!({"name": "Fila Alfa", "color": "#123456"}),
            )
            .await)
        .await["id"]
            .as_i64()
            .expect("queue id");
        let a_contact = ok(app
            .post(
                "/contacts",
                &a.admin,
                &json!({"name": "Cliente Alfa", "number": "5511900000001"}),
            )
            .await)
        .await["id"]
            .as_i64()
            .expect("contact id");
        let a_ticket = ok(app
            .post("/tickets", &a.admin, &json!({"contactId": a_contact}))
            .await)
        .await["id"]
            .as_i64()
            .expect("ticket id");
        let a_tag = ok(app
            .post("/tags", &a.admin, &json!({"name": "Etiqueta Alfa"}))
            .await)
        .await["id"]
            .as_i64()
            .expect("tag id");
        let a_flow = ok(app
            .post("/flowbuilder", &a.admin, &json!({"name": "Fluxo Alfa"}))
            .await)
        .await["id"]
            .as_i64()
            .expect("flow id");

        let b_contact = ok(app
            .post(
                "/contacts",
                &b.admin,
                &json!({"name": "Cliente Beta", "number": "5511900000002"}),
            )
            .await)
        .await["id"]
            .as_i64()
            .expect("contact id");
        let b_ticket = ok(app
            .post("/tickets", &b.admin, &json!({"contactId": b_contact}))
            .await)
        .await["id"]
            .as_i64()
            .expect("ticket id");
        let b_ticket_path = format!("/tickets/{b_ticket}");
        let b_user_path = format!("/users/{}", b.user_id);
        let soon = (chrono::Utc::now() + chrono::TimeDelta::hours(1)).to_rfc3339();
        let schedule = |extra: Value| {
            let mut body = json!({"body": "Lembrete Beta", "contactId": b_contact, "sendAt": soon});
            for (k, v) in extra.as_object().expect("an object") {
                body[k] = v.clone();
            }
            body
        };

        let not_found = "404";
        let invalid = "422";
        let probes: Vec<(&str, reqwest::Response, &str, &str)> = vec![
            (
                "PUT /tickets queueId",
                app.put(&b_ticket_path, &b.admin, &json!({"queueId": a_queue}))
                    .await,
                invalid,
                "ERR_VALIDATION",
            ),
            (
                "PUT /tickets userId",
                app.put(&b_ticket_path, &b.admin, &json!({"userId": a.user_id}))
                    .await,
                not_found,
                "ERR_NO_USER_FOUND",
            ),
            (
                "PUT /tickets queueId and userId",
                app.put(
                    &b_ticket_path,
                    &b.admin,
                    &json!({"queueId": a_queue, "userId": a.user_id, "status": "open"}),
                )
                .await,
                invalid,
                "ERR_VALIDATION",
            ),
            (
                "POST /tickets contactId",
                app.post("/tickets", &b.admin, &json!({"contactId": a_contact}))
                    .await,
                not_found,
                "ERR_NO_CONTACT_FOUND",
            ),
            (
                "POST /tickets whatsappId",
                app.post(
                    "/tickets",
                    &b.admin,
                    &json!({"contactId": b_contact, "whatsappId": a.connection}),
                )
                .await,
                not_found,
                "ERR_NO_WAPP_FOUND",
            ),
            (
                "POST /users whatsappId",
                app.post(
                    "/users",
                    &b.admin,
                    &json!({"name": "Novo", "email": "novo@beta.test", "password": "novo-pass-1",
                            "profile": "user", "whatsappId": a.connection}),
                )
                .await,
                not_found,
                "ERR_NO_WAPP_FOUND",
            ),
            (
                "PUT /users whatsappId",
                app.put(&b_user_path, &b.admin, &json!({"whatsappId": a.connection}))
                    .await,
                not_found,
                "ERR_NO_WAPP_FOUND",
            ),
            (
                "PUT /users queueIds",
                app.put(&b_user_path, &b.admin, &json!({"queueIds": [a_queue]}))
                    .await,
                invalid,
                "ERR_VALIDATION",
            ),
            (
                "PUT /whatsapp queueIds",
                app.put(
                    &format!("/whatsapp/{}", b.connection),
                    &b.admin,
                    &json!({"name": "Line", "queueIds": [a_queue]}),
                )
                .await,
                invalid,
                "ERR_VALIDATION",
            ),
            (
                "PUT /whatsapp flowIdWelcome",
                app.put(
                    &format!("/whatsapp/{}", b.connection),
                    &b.admin,
                    &json!({"name": "Line", "flowIdWelcome": a_flow}),
                )
                .await,
                not_found,
                "ERR_NO_FLOW_FOUND",
            ),
            (
                "POST /schedules contactId",
                app.post(
                    "/schedules",
                    &b.admin,
                    &schedule(json!({"contactId": a_contact})),
                )
                .await,
                not_found,
                "ERR_NO_CONTACT_FOUND",
            ),
            (
                "POST /schedules whatsappId",
                app.post(
                    "/schedules",
                    &b.admin,
                    &schedule(json!({"whatsappId": a.connection})),
                )
                .await,
                not_found,
                "ERR_NO_WAPP_FOUND",
            ),
            (
                "POST /schedules ticketUserId",
                app.post(
                    "/schedules",
                    &b.admin,
                    &schedule(json!({"ticketUserId": a.user_id})),
                )
                .await,
                not_found,
                "ERR_NO_USER_FOUND",
            ),
            (
                "POST /schedules queueId",
                app.post(
                    "/schedules",
                    &b.admin,
                    &schedule(json!({"queueId": a_queue})),
                )
                .await,
                invalid,
                "ERR_VALIDATION",
            ),
            (
                "PUT /ticket-tags A's tag",
                app.put(
                    &format!("/ticket-tags/{b_ticket}/{a_tag}"),
                    &b.admin,
                    &json!({}),
                )
                .await,
                not_found,
                "ERR_NOT_FOUND",
            ),
            (
                "POST /ticket-notes A's ticket",
                app.post(
                    "/ticket-notes",
                    &b.admin,
                    &json!({"ticketId": a_ticket, "note": "x"}),
                )
                .await,
                not_found,
                "ERR_NO_TICKET_FOUND",
            ),
            (
                "POST /tags/sync A's contact",
                app.post(
                    "/tags/sync",
                    &b.admin,
                    &json!({"contactId": a_contact, "tags": [{"id": a_tag}]}),
                )
                .await,
                not_found,
                "ERR_NO_CONTACT_FOUND",
            ),
        ];
        for (what, response, status, code) in probes {
            let (got, got_code) = error_of(response).await;
            assert_eq!(
                (got.as_u16().to_string(), got_code.as_str()),
                (status.to_owned(), code),
                "{what}"
            );
        }

        // A's tag on B's contact is ignored, not linked.
        let synced = ok(app
            .post(
                "/tags/sync",
                &b.admin,
                &json!({"contactId": b_contact, "tags": [{"id": a_tag}]}),
            )
            .await)
        .await;
        assert!(!synced.to_string().contains("Etiqueta Alfa"), "{synced}");

        // B's rows show nothing of A: the ticket, its list and its log.
        for path in [
            b_ticket_path.clone(),
            "/tickets?showAll=true&status=open".to_owned(),
            format!("/tickets-log/{b_ticket}"),
            b_user_path.clone(),
        ] {
            let text = json_of(app.get(&path, &b.admin).await, StatusCode::OK)
                .await
                .to_string();
            for leak in ["Fila Alfa", "#123456", "alpha.test", "Cliente Alfa"] {
                assert!(!text.contains(leak), "{path} shows {leak}: {text}");
            }
        }
        let ticket = json_of(app.get(&b_ticket_path, &b.admin).await, StatusCode::OK).await;
        assert_eq!(ticket["queueId"], Value::Null, "{ticket}");
        assert_eq!(ticket["userId"], b.admin_id, "{ticket}");
        let user = json_of(app.get(&b_user_path, &b.admin).await, StatusCode::OK).await;
        assert_ne!(user["whatsappId"], a.connection, "{user}");
    }
}
