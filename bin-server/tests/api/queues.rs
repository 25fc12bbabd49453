//! Queues over HTTP on both engines: admins create, edit and delete queues with their chatbot
//! menus (`/queue`, `/chatbot`), every user of the company lists them, colours are unique per
//! company, every rule of spec 2 §5 answers its code, the plan caps how many, every write reaches
//! the company's sockets, and another company never sees them. The company's working hours
//! (`/companies/{id}/schedules`). Plain users see connections without their API token.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, days_from_today, error_of, json_of};
use crate::socket_client::SocketClient;

app_tests!(
    queues_create_and_list,
    plain_users_do_not_see_connection_tokens,
    queue_crud_with_a_three_level_menu,
    chatbot_calls_edit_one_option,
    queue_rules_answer_their_codes,
    the_plan_caps_queues,
    queue_writes_reach_every_user,
    company_schedules_round_trip
);

async fn queues_create_and_list(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let beta = app.company("Beta").await;
    let admin = app
        .member(
            alpha,
            "admin@alpha.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    let plain = app
        .member(alpha, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let other = app
        .member(
            beta,
            "admin@beta.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let other = app.token_of(&other).await;

    assert_error(
        app.post(
            "/queue",
            &plain,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.post("/queue", &admin, &json!({"name": "V", "color": "#ff0000"}))
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    let sales = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(sales["name"], "Vendas");
    assert_error(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Suporte", "color": "#ff0000", "greetingMessage": "Olá"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUEUE_COLOR_ALREADY_EXISTS",
    )
    .await;
    // Another company may use the same colour, and sees none of Alpha's queues.
    json_of(
        app.post(
            "/queue",
            &other,
            &json!({"name": "Vendas B", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let listed = json_of(app.get("/queue", &plain).await, StatusCode::OK).await;
    assert_eq!(listed, json!([sales]));
    let listed = json_of(app.get("/queue", &other).await, StatusCode::OK).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert_ne!(listed[0]["id"], sales["id"]);
}

async fn plain_users_do_not_see_connection_tokens(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let admin = app
        .member(
            alpha,
            "admin@alpha.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    let plain = app
        .member(alpha, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let created = json_of(
        app.post("/whatsapp", &admin, &json!({"name": "Loja"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let token = created["token"].as_str().unwrap_or_default().to_owned();
    assert_eq!(token.len(), 30);
    let id = created["id"].as_i64().unwrap_or_default();
    let seen = json_of(
        app.get(&format!("/whatsapp/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["token"], token);
    let seen = json_of(
        app.get(&format!("/whatsapp/{id}"), &plain).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["token"], "");
    let list = json_of(app.get("/whatsapp", &plain).await, StatusCode::OK).await;
    assert_eq!(list[0]["token"], "");
}

/// An admin and a plain user of a new company: (company, admin token, plain token).
async fn company_with_admin(
    app: &TestApp,
    name: &str,
) -> (chatflow_core::CompanyId, String, String) {
    let company = app.company(name).await;
    let domain = name.to_lowercase();
    let admin = app
        .member(
            company,
            &format!("admin@{domain}.test"),
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let plain = app
        .member(
            company,
            &format!("ana@{domain}.test"),
            MemberOptions::default(),
        )
        .await;
    (
        company,
        app.token_of(&admin).await,
        app.token_of(&plain).await,
    )
}

/// A menu three levels deep: Comercial > (Planos > (Mensal, Anual), Contato), Suporte.
fn menu() -> Value {
    json!([
        {"name": "Comercial", "greetingMessage": "Escolha o assunto", "options": [
            {"name": "Planos", "greetingMessage": "Qual plano?", "options": [
                {"name": "Mensal", "greetingMessage": "R$ 10"},
                {"name": "Anual", "greetingMessage": "R$ 100", "closeTicket": true}
            ]},
            {"name": "Contato", "greetingMessage": "Ligue"}
        ]},
        {"name": "Suporte", "greetingMessage": "Um momento"}
    ])
}

fn id(value: &Value) -> i64 {
    value["id"].as_i64().expect("an id")
}

/// The fields of a validation error, as (field, code).
async fn fields_of(response: reqwest::Response) -> (StatusCode, String, Vec<(String, String)>) {
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    let fields = body["fields"]
        .as_array()
        .map(|fields| {
            fields
                .iter()
                .map(|f| {
                    (
                        f["field"].as_str().unwrap_or_default().to_owned(),
                        f["code"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (
        status,
        body["error"].as_str().unwrap_or_default().to_owned(),
        fields,
    )
}

async fn queue_crud_with_a_three_level_menu(app: TestApp) {
    let (_, admin, plain) = company_with_admin(&app, "Alpha").await;
    let created = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({
                "name": " Vendas ", "color": "#ff0000", "orderQueue": 2,
                "greetingMessage": "Olá!", "outOfHoursMessage": "Fechado",
                "ativarRoteador": true, "tempoRoteador": 15,
                "chatbots": menu()
            }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(created["name"], "Vendas");
    assert_eq!(created["tempoRoteador"], 15);
    assert_eq!(created["ativarRoteador"], true);
    assert_eq!(created["schedules"].as_array().map(Vec::len), Some(7));
    assert_eq!(created["schedules"][0]["startTimeA"], "08:00");
    let comercial = &created["chatbots"][0];
    assert_eq!(comercial["options"][0]["options"][1]["name"], "Anual");
    assert_eq!(comercial["options"][0]["options"][1]["closeTicket"], true);
    let queue_id = id(&created);
    let path = format!("/queue/{queue_id}");

    // Every user of the company reads it, whole.
    let read = json_of(app.get(&path, &plain).await, StatusCode::OK).await;
    assert_eq!(read, created);
    let listed = json_of(app.get("/queue", &plain).await, StatusCode::OK).await;
    assert_eq!(listed, json!([created]));

    // Replace: keep Comercial and Mensal (moved up), drop Planos, Anual, Contato and Suporte,
    // add a new option; hours changed.
    let mensal = comercial["options"][0]["options"][0].clone();
    let planos_id = id(&comercial["options"][0]);
    let suporte_id = id(&created["chatbots"][1]);
    let mut schedules = created["schedules"].clone();
    schedules[6]["startTimeA"] = json!("");
    schedules[6]["endTimeA"] = json!("");
    let updated = json_of(
        app.put(
            &path,
            &admin,
            &json!({
                "name": "Vendas e planos", "color": "#ff0001", "greetingMessage": "Oi",
                "tempoRoteador": 0, "schedules": schedules,
                "chatbots": [{
                    "id": id(comercial), "name": "Comercial", "greetingMessage": "Escolha",
                    "options": [
                        {"id": id(&mensal), "name": "Mensal 2"},
                        {"name": "Novidade", "queueType": "queue", "optQueueId": queue_id}
                    ]
                }]
            }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(updated["name"], "Vendas e planos");
    assert_eq!(updated["schedules"], schedules);
    assert_eq!(updated["chatbots"].as_array().map(Vec::len), Some(1));
    assert_eq!(updated["chatbots"][0]["id"], comercial["id"]);
    let children = &updated["chatbots"][0]["options"];
    assert_eq!(children[0]["id"], mensal["id"]);
    assert_eq!(children[0]["name"], "Mensal 2");
    assert_eq!(children[1]["queueType"], "queue");
    assert!(children[1]["id"].as_i64().is_some());
    for gone in [planos_id, suporte_id] {
        assert_error(
            app.get(&format!("/chatbot/{gone}"), &admin).await,
            StatusCode::NOT_FOUND,
            "ERR_NOT_FOUND",
        )
        .await;
    }
    assert_eq!(
        json_of(app.get(&path, &admin).await, StatusCode::OK).await,
        updated
    );

    // Delete: 204, then gone, and its options with it.
    let deleted = app.delete(&path, &admin).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_error(
        app.get(&path, &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.get(&format!("/chatbot/{}", id(comercial)), &admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.delete(&path, &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_eq!(
        json_of(app.get("/queue", &admin).await, StatusCode::OK).await,
        json!([])
    );
}

async fn chatbot_calls_edit_one_option(app: TestApp) {
    let (_, admin, plain) = company_with_admin(&app, "Alpha").await;
    let queue = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000", "chatbots": menu()}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let queue_id = id(&queue);
    let planos = queue["chatbots"][0]["options"][0].clone();

    // GET: the option with its nested options, its queue and its parent.
    let read = json_of(
        app.get(&format!("/chatbot/{}", id(&planos)), &plain).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(read["queueId"], queue_id);
    assert_eq!(read["parentId"], queue["chatbots"][0]["id"]);
    assert_eq!(read["name"], "Planos");
    assert_eq!(read["options"], planos["options"]);

    // POST appends under a parent (with a sub-option of its own) or at the top.
    let added = json_of(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id, "parentId": id(&planos), "name": "Semestral",
                    "greetingMessage": "R$ 55", "options": [{"name": "Pagar agora"}]}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(added["parentId"], planos["id"]);
    assert_eq!(added["options"][0]["name"], "Pagar agora");
    let top = json_of(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id, "name": "Financeiro"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_eq!(top["parentId"], Value::Null);
    let stored = json_of(
        app.get(&format!("/queue/{queue_id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(stored["chatbots"][2]["id"], top["id"]);
    assert_eq!(stored["chatbots"][0]["options"][0]["options"][2], {
        let mut a = added.clone();
        let map = a.as_object_mut().expect("object");
        map.remove("queueId");
        map.remove("parentId");
        a
    });

    // PUT replaces that option's subtree: Mensal keeps its id, Anual goes, a new one comes.
    let mensal = planos["options"][0].clone();
    let anual_id = id(&planos["options"][1]);
    let replaced = json_of(
        app.put(
            &format!("/chatbot/{}", id(&planos)),
            &admin,
            &json!({"name": "Planos novos", "greetingMessage": "Qual?", "options": [
                {"id": id(&mensal), "name": "Mensal"},
                {"name": "Bienal"}
            ]}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(replaced["id"], planos["id"]);
    assert_eq!(replaced["name"], "Planos novos");
    assert_eq!(replaced["options"][0]["id"], mensal["id"]);
    assert_eq!(replaced["options"][1]["name"], "Bienal");
    assert_eq!(replaced["options"].as_array().map(Vec::len), Some(2));
    assert_error(
        app.get(&format!("/chatbot/{anual_id}"), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;
    assert_error(
        app.get(&format!("/chatbot/{}", id(&added)), &admin).await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;

    // Validation: a short name, a parent that would open a level without a message.
    let (status, code, fields) = fields_of(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id, "parentId": id(&mensal), "name": "abc"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION")
    );
    assert_eq!(fields, [("name".to_owned(), "TOO_SHORT".to_owned())]);
    let (_, code, fields) = fields_of(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id, "parentId": id(&mensal), "name": "Detalhes"}),
        )
        .await,
    )
    .await;
    assert_eq!(code, "ERR_VALIDATION");
    assert_eq!(
        fields,
        [(
            "chatbots[0].options[0].options[0].greetingMessage".to_owned(),
            "REQUIRED".to_owned()
        )]
    );

    // Plain users may not write; unknown ids are not found.
    assert_error(
        app.post(
            "/chatbot",
            &plain,
            &json!({"queueId": queue_id, "name": "Intruso"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.delete(&format!("/chatbot/{}", id(&planos)), &plain)
            .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id + 1000, "name": "Perdido"}),
        )
        .await,
        StatusCode::NOT_FOUND,
        "ERR_NOT_FOUND",
    )
    .await;

    // DELETE removes the option and its subtree.
    let deleted = app
        .delete(&format!("/chatbot/{}", id(&planos)), &admin)
        .await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    for gone in [id(&planos), id(&mensal)] {
        assert_error(
            app.get(&format!("/chatbot/{gone}"), &admin).await,
            StatusCode::NOT_FOUND,
            "ERR_NOT_FOUND",
        )
        .await;
    }
    let stored = json_of(
        app.get(&format!("/queue/{queue_id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    let names: Vec<&str> = stored["chatbots"][0]["options"]
        .as_array()
        .expect("options")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, ["Contato"]);
}

async fn queue_rules_answer_their_codes(app: TestApp) {
    let (_, admin, plain) = company_with_admin(&app, "Alpha").await;
    let (beta, beta_admin, _) = company_with_admin(&app, "Beta").await;
    let beta_queue = json_of(
        app.post(
            "/queue",
            &beta_admin,
            &json!({"name": "Beta", "color": "#123456"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let beta_user = app
        .member(beta, "carla@beta.test", MemberOptions::default())
        .await;

    // Field rules.
    let (status, code, fields) = fields_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "V", "color": "#1234567890", "tempoRoteador": 7,
                    "chatbots": [
                        {"name": "abc"},
                        {"name": "Com filhos", "options": [{"name": "Filho"}]},
                        {"name": "Fila B", "queueType": "queue", "optQueueId": id(&beta_queue)},
                        {"name": "Pessoa B", "queueType": "attendent", "optUserId": beta_user.id.0}
                    ],
                    "schedules": [{"weekdayEn": "monday", "startTimeA": "09:00", "endTimeA": "08:00"}]}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION")
    );
    let expected: Vec<(String, String)> = [
        ("name", "TOO_SHORT"),
        ("color", "TOO_LONG"),
        ("tempoRoteador", "OUT_OF_RANGE"),
        ("schedules", "INVALID_FORMAT"),
        ("schedules[0].endTimeA", "OUT_OF_RANGE"),
        ("chatbots[0].name", "TOO_SHORT"),
        ("chatbots[1].greetingMessage", "REQUIRED"),
        ("chatbots[2].optQueueId", "INVALID_FORMAT"),
        ("chatbots[3].optUserId", "INVALID_FORMAT"),
    ]
    .iter()
    .map(|(f, c)| ((*f).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(fields, expected);

    // Non-admins may not write.
    assert_error(
        app.post(
            "/queue",
            &plain,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;

    // Colour unique on create and on update; the greeting once there is another queue.
    let first = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let (status, code, fields) = fields_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Suporte", "color": "#00ff00"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "ERR_WAPP_GREETING_REQUIRED"
        )
    );
    assert_eq!(
        fields,
        [("greetingMessage".to_owned(), "REQUIRED".to_owned())]
    );
    assert_error(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Suporte", "color": "#ff0000", "greetingMessage": "Oi"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUEUE_COLOR_ALREADY_EXISTS",
    )
    .await;
    let second = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Suporte", "color": "#00ff00", "greetingMessage": "Oi"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    assert_error(
        app.put(
            &format!("/queue/{}", id(&second)),
            &admin,
            &json!({"name": "Suporte", "color": "#ff0000", "greetingMessage": "Oi"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUEUE_COLOR_ALREADY_EXISTS",
    )
    .await;
    // The first queue now needs its greeting too when edited.
    assert_error(
        app.put(
            &format!("/queue/{}", id(&first)),
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_WAPP_GREETING_REQUIRED",
    )
    .await;
    assert_error(
        app.put(
            &format!("/queue/{}", id(&first)),
            &plain,
            &json!({"name": "Vendas", "color": "#ff0000", "greetingMessage": "Oi"}),
        )
        .await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.delete(&format!("/queue/{}", id(&first)), &plain).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;

    // With hours per queue, the out-of-hours message is required.
    assert_eq!(
        app.put("/settings/scheduleType", &admin, &json!({"value": "queue"}))
            .await
            .status(),
        StatusCode::OK
    );
    let (_, code, fields) = fields_of(
        app.put(
            &format!("/queue/{}", id(&second)),
            &admin,
            &json!({"name": "Suporte", "color": "#00ff00", "greetingMessage": "Oi"}),
        )
        .await,
    )
    .await;
    assert_eq!(code, "ERR_VALIDATION");
    assert_eq!(
        fields,
        [("outOfHoursMessage".to_owned(), "REQUIRED".to_owned())]
    );
    let saved = json_of(
        app.put(
            &format!("/queue/{}", id(&second)),
            &admin,
            &json!({"name": "Suporte", "color": "#00ff00", "greetingMessage": "Oi",
                    "outOfHoursMessage": "Volte amanhã",
                    "chatbots": [{"name": "Para vendas", "queueType": "queue", "optQueueId": id(&first)}]}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(saved["chatbots"][0]["optQueueId"], first["id"]);
    // Nothing failed left a trace: the first queue is as created.
    assert_eq!(
        json_of(
            app.get(&format!("/queue/{}", id(&first)), &admin).await,
            StatusCode::OK
        )
        .await,
        first
    );
}

async fn the_plan_caps_queues(app: TestApp) {
    // The fixture plans allow 3 queues.
    let plan = app.plan("Pequeno", 10, false).await;
    let company = app.company_on("Gamma", plan, days_from_today(30)).await;
    let admin = app
        .member(
            company,
            "admin@gamma.test",
            MemberOptions {
                admin: true,
                ..MemberOptions::default()
            },
        )
        .await;
    let admin = app.token_of(&admin).await;
    for n in 0..3 {
        json_of(
            app.post(
                "/queue",
                &admin,
                &json!({"name": format!("Fila {n}"), "color": format!("#00000{n}"),
                        "greetingMessage": "Oi"}),
            )
            .await,
            StatusCode::CREATED,
        )
        .await;
    }
    let (status, code) = error_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Fila 4", "color": "#000004", "greetingMessage": "Oi"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::FORBIDDEN, "ERR_QUEUE_LIMIT_REACHED")
    );
    let listed = json_of(app.get("/queue", &admin).await, StatusCode::OK).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(3));
}

async fn queue_writes_reach_every_user(app: TestApp) {
    let (alpha, admin, plain) = company_with_admin(&app, "Alpha").await;
    let (_, beta_admin, _) = company_with_admin(&app, "Beta").await;
    let mut plain_socket = SocketClient::with_token(&app.host, &plain).await;
    let mut beta_socket = SocketClient::with_token(&app.host, &beta_admin).await;
    let wait = Duration::from_secs(5);
    let name = format!("company-{alpha}-queue");

    let created = json_of(
        app.post(
            "/queue",
            &admin,
            &json!({"name": "Vendas", "color": "#ff0000", "chatbots": menu()}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let heard = plain_socket.expect_event(&name, wait).await;
    assert_eq!(heard["action"], "create");
    assert_eq!(heard["queue"], created);

    let queue_id = id(&created);
    let updated = json_of(
        app.put(
            &format!("/queue/{queue_id}"),
            &admin,
            &json!({"name": "Vendas 2", "color": "#ff0000"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let heard = plain_socket.expect_event(&name, wait).await;
    assert_eq!(heard["action"], "update");
    assert_eq!(heard["queue"], updated);

    let option = json_of(
        app.post(
            "/chatbot",
            &admin,
            &json!({"queueId": queue_id, "name": "Financeiro"}),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    let heard = plain_socket.expect_event(&name, wait).await;
    assert_eq!(heard["action"], "update");
    assert_eq!(heard["queue"]["chatbots"][0]["id"], option["id"]);

    let deleted = app.delete(&format!("/queue/{queue_id}"), &admin).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let heard = plain_socket.expect_event(&name, wait).await;
    assert_eq!(
        heard,
        json!({"action": "delete", "queueId": queue_id, "seq": heard["seq"]})
    );

    let beta_heard = beta_socket.drain(Duration::from_millis(300)).await;
    assert!(
        beta_heard
            .iter()
            .all(|(event, _)| !event.ends_with("-queue")),
        "{beta_heard:?}"
    );
}

async fn company_schedules_round_trip(app: TestApp) {
    let (alpha, admin, plain) = company_with_admin(&app, "Alpha").await;
    let (beta, beta_admin, _) = company_with_admin(&app, "Beta").await;
    let path = format!("/companies/{alpha}/schedules");

    // Never saved: the defaults.
    let defaults = json_of(app.get(&path, &admin).await, StatusCode::OK).await;
    let rows = defaults["schedules"].as_array().expect("rows").clone();
    assert_eq!(rows.len(), 7);
    assert_eq!(rows[0]["weekdayEn"], "monday");
    assert_eq!(rows[6]["endTimeB"], "18:00");

    // Invalid rows are refused with their fields.
    let mut bad = rows.clone();
    bad[2]["endTimeA"] = json!("07:00");
    bad[3]["startTimeB"] = json!("25:00");
    let (status, code, fields) =
        fields_of(app.put(&path, &admin, &json!({"schedules": bad})).await).await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION")
    );
    assert_eq!(
        fields,
        [
            (
                "schedules[2].endTimeA".to_owned(),
                "OUT_OF_RANGE".to_owned()
            ),
            (
                "schedules[3].startTimeB".to_owned(),
                "INVALID_FORMAT".to_owned()
            ),
        ]
    );
    let (_, code, fields) = fields_of(
        app.put(&path, &admin, &json!({"schedules": rows[..6]}))
            .await,
    )
    .await;
    assert_eq!(code, "ERR_VALIDATION");
    assert_eq!(
        fields,
        [("schedules".to_owned(), "INVALID_FORMAT".to_owned())]
    );

    // Saved rows come back as saved.
    let mut saved = rows.clone();
    saved[5]["startTimeB"] = json!("");
    saved[5]["endTimeB"] = json!("");
    saved[6]["startTimeA"] = json!("");
    saved[6]["endTimeA"] = json!("");
    saved[6]["startTimeB"] = json!("");
    saved[6]["endTimeB"] = json!("");
    let answer = json_of(
        app.put(&path, &admin, &json!({"schedules": saved})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(answer, json!({"schedules": saved}));
    assert_eq!(
        json_of(app.get(&path, &admin).await, StatusCode::OK).await,
        json!({"schedules": saved})
    );

    // Plain users may not; another company's admin does not find it; the super user may.
    assert_error(
        app.get(&path, &plain).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    assert_error(
        app.put(&path, &plain, &json!({"schedules": rows})).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let root = app.super_token().await;
    assert_eq!(
        json_of(app.get(&path, &root).await, StatusCode::OK).await,
        json!({"schedules": saved})
    );
    let beta_path = format!("/companies/{beta}/schedules");
    json_of(
        app.put(&beta_path, &root, &json!({"schedules": rows}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        json_of(app.get(&beta_path, &beta_admin).await, StatusCode::OK).await,
        json!({"schedules": rows})
    );
    assert_error(
        app.get("/companies/999999/schedules", &root).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_COMPANY_FOUND",
    )
    .await;
}
