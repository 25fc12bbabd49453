//! Connections and the sandbox channel over HTTP: CRUD, permissions, the plan limit, the
//! default flag, company isolation, and pairing a simulated phone end to end, by QR code and by
//! pair code (the code shown only to those who manage connections).

use std::time::Duration;

use chatflow_core::CompanyId;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{Backend, MemberOptions, TestApp, assert_error, json_of, run};

/// Like `app_tests!`, with the sandbox channel switched on (on both engines).
macro_rules! sandbox_tests {
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

sandbox_tests!(
    connections_crud_and_tokens,
    routing_fields_round_trip_and_are_checked,
    the_company_time_zone_is_an_admin_setting,
    the_default_flag_stays_on_exactly_one,
    only_administrators_manage_connections,
    the_plan_limits_connections,
    another_companys_connections_are_not_found,
    pairing_a_simulated_phone,
    linking_a_simulated_phone_by_pair_code,
    session_changes_reach_only_the_companys_sockets,
    the_import_settings_are_checked_and_relink_a_connected_phone,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linking_by_pair_code_is_in_the_openapi_document() {
    run(
        Backend::Sqlite,
        |c| c.sandbox = Some(true),
        |app: TestApp| async move {
            let doc = json_of(
                app.client
                    .get(app.url("/api-docs/openapi.json"))
                    .send()
                    .await
                    .expect("sent"),
                StatusCode::OK,
            )
            .await;
            for path in [
                "/whatsappsession/{id}/paircode",
                "/sandbox/{whatsappId}/paircode",
            ] {
                let post = &doc["paths"][path]["post"];
                assert!(post.is_object(), "{path} is described");
                assert!(post["requestBody"].is_object(), "{path} has its body");
                assert!(post.get("security").is_some(), "{path} needs a token");
                for status in ["204", "403", "404", "422", "502"] {
                    assert!(
                        post["responses"].get(status).is_some(),
                        "{path} answers {status}"
                    );
                }
            }
            let connection = &doc["components"]["schemas"]["Connection"]["properties"];
            for field in ["pairingCode", "sessionReason", "sessionUntil"] {
                assert!(connection.get(field).is_some(), "Connection has {field}");
            }
            assert!(doc["components"]["schemas"]["SessionReason"].is_object());
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_routes_are_absent_when_off() {
    run(
        Backend::Sqlite,
        |c| c.sandbox = Some(false),
        |app: TestApp| async move {
            let (_, token) = admin(&app, "Off").await;
            let created = json_of(
                app.post("/whatsapp", &token, &json!({"name": "Line"}))
                    .await,
                StatusCode::OK,
            )
            .await;
            // Without the sandbox the spec's default provider applies.
            assert_eq!(created["provider"], "beta");
            let id = created["id"].as_i64().expect("id");
            let response = app
                .post(&format!("/sandbox/{id}/scan"), &token, &json!({}))
                .await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND);
            // The WhatsApp Web provider runs on every host: starting builds a session.
            assert_eq!(
                app.post(&format!("/whatsappsession/{id}"), &token, &json!({}))
                    .await
                    .status(),
                StatusCode::NO_CONTENT
            );
            let run = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                app.whatsapp.next_session(),
            )
            .await
            .expect("a WhatsApp session starts");
            assert_eq!(run.connection.0, id);
        },
    )
    .await;
}

/// A company with an admin; returns the company and the admin's token.
async fn admin(app: &TestApp, name: &str) -> (CompanyId, String) {
    let company = app.company(name).await;
    let email = format!("boss@{}.test", name.to_lowercase());
    let member = app
        .member(
            company,
            &email,
            MemberOptions {
                admin: true,
                ..Default::default()
            },
        )
        .await;
    (company, app.token_of(&member).await)
}

async fn create(app: &TestApp, token: &str, body: Value) -> Value {
    json_of(app.post("/whatsapp", token, &body).await, StatusCode::OK).await
}

async fn connections_crud_and_tokens(app: TestApp) {
    let (company, token) = admin(&app, "Alpha").await;
    let created = create(
        &app,
        &token,
        json!({"name": "  Sales line ", "greetingMessage": "Hi!", "groupAsTicket": true}),
    )
    .await;
    let id = created["id"].as_i64().expect("id");
    assert_eq!(created["name"], "Sales line");
    assert_eq!(created["companyId"], company.0);
    assert_eq!(created["provider"], "sandbox");
    assert_eq!(created["channel"], "whatsapp");
    assert_eq!(created["status"], "DISCONNECTED");
    assert_eq!(
        created["isDefault"], true,
        "the first connection is the default"
    );
    assert_eq!(created["greetingMessage"], "Hi!");
    assert_eq!(created["groupAsTicket"], true);
    assert_eq!(created["maxUseBotQueues"], 3);
    let first_token = created["token"].as_str().expect("token").to_owned();
    assert_eq!(first_token.len(), 30);
    assert!(first_token.chars().all(|c| c.is_ascii_alphanumeric()));

    let listed = json_of(app.get("/whatsapp?session=0", &token).await, StatusCode::OK).await;
    assert_eq!(listed.as_array().expect("list").len(), 1);
    let filtered = json_of(
        app.get("/whatsapp/filter?channel=facebook", &token).await,
        StatusCode::OK,
    )
    .await;
    assert!(filtered.as_array().expect("list").is_empty());
    let read = json_of(
        app.get(&format!("/whatsapp/{id}"), &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(read["name"], "Sales line");

    let updated = json_of(
        app.put(
            &format!("/whatsapp/{id}"),
            &token,
            &json!({"name": "Support", "isDefault": true, "complationMessage": "Bye"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(updated["name"], "Support");
    assert_eq!(updated["complationMessage"], "Bye");
    assert_eq!(updated["provider"], "sandbox", "the provider stays");

    let renewed = json_of(
        app.post(&format!("/whatsapp/{id}/token"), &token, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    let new_token = renewed["token"].as_str().expect("token");
    assert_eq!(new_token.len(), 30);
    assert_ne!(new_token, first_token);

    assert_error(
        app.post("/whatsapp", &token, &json!({"name": "x"})).await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    assert_error(
        app.put(
            &format!("/whatsapp/{id}"),
            &token,
            &json!({"name": "Support", "isDefault": true, "timeSendQueue": 5}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;

    let deleted = app.delete(&format!("/whatsapp/{id}"), &token).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_error(
        app.get(&format!("/whatsapp/{id}"), &token).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_WAPP_FOUND",
    )
    .await;
}

/// A flow of the company behind `token`.
async fn flow(app: &TestApp, token: &str, name: &str) -> i64 {
    let flow = json_of(
        app.post("/flowbuilder", token, &json!({"name": name}))
            .await,
        StatusCode::CREATED,
    )
    .await;
    flow["id"].as_i64().expect("flow id")
}

/// The seven weekdays' hours as the queue and connection dialogs send them.
fn week() -> Value {
    let days = [
        ("Segunda-feira", "monday"),
        ("Terça-feira", "tuesday"),
        ("Quarta-feira", "wednesday"),
        ("Quinta-feira", "thursday"),
        ("Sexta-feira", "friday"),
        ("Sábado", "saturday"),
        ("Domingo", "sunday"),
    ];
    Value::Array(
        days.iter()
            .map(|(weekday, en)| {
                json!({"weekday": weekday, "weekdayEn": en, "startTimeA": "08:00",
                       "endTimeA": "12:00", "startTimeB": "13:00", "endTimeB": "18:00"})
            })
            .collect(),
    )
}

async fn routing_fields_round_trip_and_are_checked(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let (_, other) = admin(&app, "Beta").await;
    let welcome = flow(&app, &token, "Boas-vindas").await;
    let fallback = flow(&app, &token, "Sem frase").await;
    let foreign = flow(&app, &other, "De Beta").await;
    let created = create(&app, &token, json!({"name": "Sales line"})).await;
    let id = created["id"].as_i64().expect("id");
    // A client that knows nothing of the new fields gets their empty values.
    assert_eq!(created["flowIdWelcome"], Value::Null);
    assert_eq!(created["collectiveVacationStart"], Value::Null);
    assert_eq!(created["schedules"], json!([]));
    assert_eq!(created["timeInactiveMessage"], 0);

    let body = json!({
        "name": "Sales line",
        "isDefault": true,
        "flowIdWelcome": welcome,
        "flowIdNotPhrase": fallback,
        "collectiveVacationStart": "2026-12-24",
        "collectiveVacationEnd": "2026-12-31",
        "collectiveVacationMessage": "Férias coletivas até 31/12.",
        "schedules": week(),
        "timeInactiveMessage": 10,
        "inactiveMessage": "Ainda está aí?",
        "whenExpiresTicket": 1,
    });
    let updated = json_of(
        app.put(&format!("/whatsapp/{id}"), &token, &body).await,
        StatusCode::OK,
    )
    .await;
    let read = json_of(
        app.get(&format!("/whatsapp/{id}"), &token).await,
        StatusCode::OK,
    )
    .await;
    for connection in [&updated, &read] {
        assert_eq!(connection["flowIdWelcome"], welcome);
        assert_eq!(connection["flowIdNotPhrase"], fallback);
        assert_eq!(connection["collectiveVacationStart"], "2026-12-24");
        assert_eq!(connection["collectiveVacationEnd"], "2026-12-31");
        assert_eq!(
            connection["collectiveVacationMessage"],
            "Férias coletivas até 31/12."
        );
        assert_eq!(connection["schedules"], week());
        assert_eq!(connection["timeInactiveMessage"], 10);
        assert_eq!(connection["inactiveMessage"], "Ainda está aí?");
        assert_eq!(connection["whenExpiresTicket"], 1);
    }

    // Another company's flow is not found, on either field, and nothing changes.
    for field in ["flowIdWelcome", "flowIdNotPhrase"] {
        let mut foreign_body = body.clone();
        foreign_body[field] = json!(foreign);
        let response = app
            .put(&format!("/whatsapp/{id}"), &token, &foreign_body)
            .await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let error: Value = response.json().await.expect("error body");
        assert_eq!(error["error"], "ERR_NO_FLOW_FOUND");
        assert_eq!(error["fields"][0]["field"], field);
    }
    let mut foreign_body = body.clone();
    foreign_body["name"] = json!("Other line");
    foreign_body["flowIdWelcome"] = json!(foreign);
    assert_error(
        app.post("/whatsapp", &token, &foreign_body).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_FLOW_FOUND",
    )
    .await;
    let read = json_of(
        app.get(&format!("/whatsapp/{id}"), &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(read["flowIdWelcome"], welcome);

    // A vacation needs both dates, in order; hours must be the seven weekdays.
    for (start, end, field) in [
        (
            json!("2026-12-31"),
            json!("2026-12-24"),
            "collectiveVacationEnd",
        ),
        (json!("2026-12-24"), Value::Null, "collectiveVacationEnd"),
        (Value::Null, json!("2026-12-31"), "collectiveVacationStart"),
    ] {
        let mut bad = body.clone();
        bad["collectiveVacationStart"] = start;
        bad["collectiveVacationEnd"] = end;
        let response = app.put(&format!("/whatsapp/{id}"), &token, &bad).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let error: Value = response.json().await.expect("error body");
        assert_eq!(error["error"], "ERR_VALIDATION");
        assert_eq!(error["fields"][0]["field"], field, "{error}");
    }
    let mut bad = body.clone();
    bad["schedules"][0]["endTimeA"] = json!("07:00");
    let response = app.put(&format!("/whatsapp/{id}"), &token, &bad).await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let error: Value = response.json().await.expect("error body");
    assert_eq!(error["fields"][0]["field"], "schedules[0].endTimeA");

    // Clearing the fields clears them.
    let cleared = json_of(
        app.put(
            &format!("/whatsapp/{id}"),
            &token,
            &json!({"name": "Sales line", "isDefault": true}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(cleared["flowIdWelcome"], Value::Null);
    assert_eq!(cleared["collectiveVacationEnd"], Value::Null);
    assert_eq!(cleared["schedules"], json!([]));
}

async fn the_company_time_zone_is_an_admin_setting(app: TestApp) {
    let (company, token) = admin(&app, "Alpha").await;
    let plain = app
        .member(company, "agent@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let zone = json_of(app.get("/setting/timezone", &token).await, StatusCode::OK).await;
    assert_eq!(zone["value"], "America/Sao_Paulo", "the default zone");
    let changed = json_of(
        app.put(
            "/settings/timezone",
            &token,
            &json!({"value": "Europe/Istanbul"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(changed["value"], "Europe/Istanbul");
    assert_error(
        app.put(
            "/settings/timezone",
            &token,
            &json!({"value": "Mars/Olympus"}),
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_INVALID_SETTING",
    )
    .await;
    let response = app
        .put("/settings/timezone", &plain, &json!({"value": "UTC"}))
        .await;
    assert!(response.status().is_client_error(), "{}", response.status());
    let zone = json_of(app.get("/setting/timezone", &token).await, StatusCode::OK).await;
    assert_eq!(zone["value"], "Europe/Istanbul");
}

async fn defaults(app: &TestApp, token: &str) -> Vec<i64> {
    let listed = json_of(app.get("/whatsapp", token).await, StatusCode::OK).await;
    listed
        .as_array()
        .expect("list")
        .iter()
        .filter(|c| c["isDefault"] == true)
        .map(|c| c["id"].as_i64().expect("id"))
        .collect()
}

async fn the_default_flag_stays_on_exactly_one(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let first = create(&app, &token, json!({"name": "First"})).await["id"]
        .as_i64()
        .expect("id");
    // The only connection keeps the flag.
    assert_error(
        app.put(
            &format!("/whatsapp/{first}"),
            &token,
            &json!({"name": "First", "isDefault": false}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_NO_OTHER_WHATSAPP",
    )
    .await;
    let second = create(&app, &token, json!({"name": "Second"})).await["id"]
        .as_i64()
        .expect("id");
    assert_eq!(defaults(&app, &token).await, vec![first]);
    let third = create(&app, &token, json!({"name": "Third", "isDefault": true})).await["id"]
        .as_i64()
        .expect("id");
    assert_eq!(
        defaults(&app, &token).await,
        vec![third],
        "a new default takes the flag"
    );

    // Taking the flag off moves it to another connection.
    app.put(
        &format!("/whatsapp/{third}"),
        &token,
        &json!({"name": "Third", "isDefault": false}),
    )
    .await;
    let now = defaults(&app, &token).await;
    assert_eq!(now.len(), 1);
    assert_ne!(now[0], third);

    // Deleting the default hands the flag on.
    let current = now[0];
    app.delete(&format!("/whatsapp/{current}"), &token).await;
    let after = defaults(&app, &token).await;
    assert_eq!(after.len(), 1);
    assert!([first, second, third].contains(&after[0]));
    assert_ne!(after[0], current);
}

async fn only_administrators_manage_connections(app: TestApp) {
    let (company, admin_token) = admin(&app, "Alpha").await;
    let id = create(&app, &admin_token, json!({"name": "Main"})).await["id"]
        .as_i64()
        .expect("id");
    let plain = app
        .member(company, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let delegated = app
        .member(
            company,
            "carl@alpha.test",
            MemberOptions {
                allow_connections: true,
                ..Default::default()
            },
        )
        .await;
    let delegated = app.token_of(&delegated).await;

    // Everyone reads.
    json_of(app.get("/whatsapp", &plain).await, StatusCode::OK).await;
    json_of(
        app.get(&format!("/whatsapp/{id}"), &plain).await,
        StatusCode::OK,
    )
    .await;
    // A plain user changes nothing.
    for response in [
        app.post("/whatsapp", &plain, &json!({"name": "Mine"}))
            .await,
        app.put(
            &format!("/whatsapp/{id}"),
            &plain,
            &json!({"name": "Mine", "isDefault": true}),
        )
        .await,
        app.delete(&format!("/whatsapp/{id}"), &plain).await,
        app.post(&format!("/whatsapp/{id}/token"), &plain, &json!({}))
            .await,
        app.post(&format!("/whatsappsession/{id}"), &plain, &json!({}))
            .await,
        app.post(
            &format!("/whatsappsession/{id}/paircode"),
            &plain,
            &json!({"number": "5511988887777"}),
        )
        .await,
        app.delete(&format!("/whatsappsession/{id}"), &plain).await,
        app.post("/whatsapp-restart/", &plain, &json!({})).await,
    ] {
        assert_error(response, StatusCode::FORBIDDEN, "ERR_NO_PERMISSION").await;
    }
    // allowConnections is enough.
    create(&app, &delegated, json!({"name": "Delegated"})).await;
}

async fn the_plan_limits_connections(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    // Fixture plans allow 3 connections.
    for name in ["One", "Two", "Three"] {
        create(&app, &token, json!({"name": name})).await;
    }
    assert_error(
        app.post("/whatsapp", &token, &json!({"name": "Four"}))
            .await,
        StatusCode::FORBIDDEN,
        "ERR_CONNECTION_LIMIT_REACHED",
    )
    .await;
}

async fn another_companys_connections_are_not_found(app: TestApp) {
    let (_, a_token) = admin(&app, "Alpha").await;
    let (_, b_token) = admin(&app, "Beta").await;
    let id = create(&app, &a_token, json!({"name": "Alpha line"})).await["id"]
        .as_i64()
        .expect("id");
    app.post(&format!("/whatsappsession/{id}"), &a_token, &json!({}))
        .await;
    let body = json!({"name": "Stolen", "isDefault": true});
    for response in [
        app.get(&format!("/whatsapp/{id}"), &b_token).await,
        app.put(&format!("/whatsapp/{id}"), &b_token, &body).await,
        app.delete(&format!("/whatsapp/{id}"), &b_token).await,
        app.post(&format!("/whatsapp/{id}/token"), &b_token, &json!({}))
            .await,
        app.post(&format!("/whatsappsession/{id}"), &b_token, &json!({}))
            .await,
        app.put(&format!("/whatsappsession/{id}"), &b_token, &json!({}))
            .await,
        app.delete(&format!("/whatsappsession/{id}"), &b_token)
            .await,
        app.post(
            &format!("/whatsappsession/{id}/paircode"),
            &b_token,
            &json!({"number": "5511988887777"}),
        )
        .await,
        app.post(&format!("/sandbox/{id}/scan"), &b_token, &json!({}))
            .await,
        app.post(
            &format!("/sandbox/{id}/paircode"),
            &b_token,
            &json!({"code": "ABCD-2345"}),
        )
        .await,
        app.post(
            &format!("/sandbox/{id}/send"),
            &b_token,
            &json!({"from": "5511999990000", "body": "hi"}),
        )
        .await,
        app.get(&format!("/sandbox/{id}/inbox"), &b_token).await,
        app.post(&format!("/sandbox/{id}/drop"), &b_token, &json!({}))
            .await,
        app.post(&format!("/sandbox/{id}/reconnect"), &b_token, &json!({}))
            .await,
        app.post(&format!("/closedimported/{id}"), &b_token, &json!({}))
            .await,
        app.delete(&format!("/whatsapp/{id}/gap"), &b_token).await,
        app.get(&format!("/whatsapp/{id}/health"), &b_token).await,
    ] {
        assert_error(response, StatusCode::NOT_FOUND, "ERR_NO_WAPP_FOUND").await;
    }
    let b_list = json_of(app.get("/whatsapp", &b_token).await, StatusCode::OK).await;
    assert!(b_list.as_array().expect("list").is_empty());
    let a_view = json_of(
        app.get(&format!("/whatsapp/{id}"), &a_token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(a_view["name"], "Alpha line");
    assert_eq!(
        a_view["status"], "qrcode",
        "B's calls did not touch A's session"
    );
    assert_eq!(a_view["pairingCode"], Value::Null);
}

/// Polls the connection until `status`, for up to 5 s.
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

async fn pairing_a_simulated_phone(app: TestApp) {
    let (company, token) = admin(&app, "Alpha").await;
    let id = create(&app, &token, json!({"name": "Sandbox"})).await["id"]
        .as_i64()
        .expect("id");
    // Scanning before pairing started is refused.
    assert_error(
        app.post(&format!("/sandbox/{id}/scan"), &token, &json!({}))
            .await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_NOT_INITIALIZED",
    )
    .await;

    let started = app
        .post(&format!("/whatsappsession/{id}"), &token, &json!({}))
        .await;
    assert_eq!(started.status(), StatusCode::NO_CONTENT);
    let waiting = wait_for_status(&app, &token, id, "qrcode").await;
    let qr = waiting["qrcode"].as_str().expect("qrcode");
    assert!(qr.starts_with("data:image/svg+xml;base64,"), "{qr}");
    assert_eq!(waiting["retries"], 1);

    // A new QR keeps pairing with a fresh code.
    app.put(&format!("/whatsappsession/{id}"), &token, &json!({}))
        .await;
    let renewed = wait_for_status(&app, &token, id, "qrcode").await;
    assert_ne!(renewed["qrcode"], waiting["qrcode"]);

    let scanned = app
        .post(&format!("/sandbox/{id}/scan"), &token, &json!({}))
        .await;
    assert_eq!(scanned.status(), StatusCode::NO_CONTENT);
    let connected = wait_for_status(&app, &token, id, "CONNECTED").await;
    assert_eq!(connected["number"], format!("5500000000{id}"));
    assert_eq!(connected["qrcode"], "");

    // A phone writes; nothing was sent to phones yet.
    let sent = json_of(
        app.post(
            &format!("/sandbox/{id}/send"),
            &token,
            &json!({"from": "5511999990000", "name": "Ana", "body": "hello"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert!(sent["externalId"].as_str().expect("id").starts_with("SBX"));
    let inbox = json_of(
        app.get(&format!("/sandbox/{id}/inbox?to=5511999990000"), &token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert!(inbox.as_array().expect("list").is_empty());
    // The phone's message reaches the inbox (delivered once ingested).
    let mut delivered = false;
    for _ in 0..50 {
        let tickets = json_of(
            app.get("/tickets?status=pending&showAll=true", &token)
                .await,
            StatusCode::OK,
        )
        .await;
        if tickets.to_string().contains("5511999990000") {
            delivered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(delivered, "the phone's message became a ticket");

    // The connection sends to the phone: acks climb to 3.
    let provider = app
        .ports
        .channels
        .get(chatflow_core::inbox::model::ProviderKind::Sandbox)
        .expect("the sandbox runs");
    let scope = chatflow_core::TenantScope::new(company);
    let external_id = provider
        .send(
            scope,
            &chatflow_core::inbox::channel::Outbound {
                connection: chatflow_core::WhatsappId(id),
                to: "5511999990000".into(),
                content: chatflow_core::inbox::channel::OutboundContent::Text {
                    body: "Welcome!".into(),
                },
                quoted_external_id: None,
                quoted: None,
                idempotency_key: None,
            },
        )
        .await
        .expect("sent");
    let mut acked = Value::Null;
    for _ in 0..40 {
        acked = json_of(
            app.get(&format!("/sandbox/{id}/inbox?to=5511999990000"), &token)
                .await,
            StatusCode::OK,
        )
        .await;
        if acked[0]["ack"] == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(acked[0]["externalId"], external_id.as_str());
    assert_eq!(acked[0]["body"], "Welcome!");
    assert_eq!(acked[0]["ack"], 3);

    // Restarting all keeps a paired phone connected.
    let restarted = json_of(
        app.post("/whatsapp-restart/", &token, &json!({})).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(restarted["restarted"], 1);
    wait_for_status(&app, &token, id, "CONNECTED").await;

    let disconnected = app.delete(&format!("/whatsappsession/{id}"), &token).await;
    assert_eq!(disconnected.status(), StatusCode::NO_CONTENT);
    wait_for_status(&app, &token, id, "DISCONNECTED").await;

    // The session changes reached the company's event log.
    let events = app
        .ports
        .event_log
        .read(chatflow_core::TenantScope::new(company), 0, 1000)
        .await
        .expect("events");
    let sessions = events
        .iter()
        .filter(|e| {
            matches!(
                e.event,
                chatflow_core::events::Event::WhatsappSession { .. }
            )
        })
        .count();
    assert!(sessions >= 5, "{sessions} session events");
}

async fn linking_a_simulated_phone_by_pair_code(app: TestApp) {
    use crate::socket_client::SocketClient;
    let (company, token) = admin(&app, "Alpha").await;
    let plain = app
        .member(company, "ana@alpha.test", MemberOptions::default())
        .await;
    let plain = app.token_of(&plain).await;
    let id = create(&app, &token, json!({"name": "By code"})).await["id"]
        .as_i64()
        .expect("id");
    let paircode = format!("/whatsappsession/{id}/paircode");
    // Before the session starts there is nothing to link.
    assert_error(
        app.post(&paircode, &token, &json!({"number": "5511988887777"}))
            .await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_NOT_INITIALIZED",
    )
    .await;
    app.post(&format!("/whatsappsession/{id}"), &token, &json!({}))
        .await;
    wait_for_status(&app, &token, id, "qrcode").await;

    // The number must be 8 to 15 digits once +, spaces and dashes are dropped.
    for (number, field_code) in [
        (json!(""), "REQUIRED"),
        (json!("1234567"), "INVALID_FORMAT"),
        (json!("1234567890123456"), "INVALID_FORMAT"),
        (json!("(11) 98888-7777"), "INVALID_FORMAT"),
    ] {
        let refused = app
            .post(&paircode, &token, &json!({"number": number}))
            .await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body: Value = refused.json().await.expect("JSON");
        assert_eq!(body["error"], "ERR_WAPP_INVALID_CONTACT", "{number}");
        assert_eq!(
            body["fields"],
            json!([{"field": "number", "code": field_code}]),
            "{number}"
        );
    }
    assert_eq!(
        json_of(
            app.get(&format!("/whatsapp/{id}"), &token).await,
            StatusCode::OK
        )
        .await["status"],
        "qrcode",
        "a refused number changes nothing"
    );

    // The code arrives live, to the admin's sockets; a plain user's sockets hear the status
    // without the code.
    let mut admin_socket = SocketClient::with_token(&app.host, &token).await;
    let mut plain_socket = SocketClient::with_token(&app.host, &plain).await;
    let asked = app
        .post(&paircode, &token, &json!({"number": "+55 11 98888-7777"}))
        .await;
    assert_eq!(asked.status(), StatusCode::NO_CONTENT);
    let room = format!("company-{company}-whatsappSession");
    let seen = session_event(&mut admin_socket, &room, "PAIRING").await;
    let code = seen["session"]["pairingCode"]
        .as_str()
        .expect("the admin sees the code")
        .to_owned();
    assert_eq!(code.len(), 8, "{code}");
    assert!(
        code.bytes()
            .all(|b| chatflow_sandbox::PAIR_CODE_ALPHABET.contains(&b)),
        "{code}"
    );
    let heard = session_event(&mut plain_socket, &room, "PAIRING").await;
    assert_eq!(heard["session"]["pairingCode"], Value::Null);
    assert_eq!(heard["session"]["token"], "");
    // And so do reads.
    let read = wait_for_status(&app, &token, id, "PAIRING").await;
    assert_eq!(read["pairingCode"], code.as_str());
    assert_eq!(read["qrcode"], "");
    let read = json_of(
        app.get(&format!("/whatsapp/{id}"), &plain).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(read["status"], "PAIRING");
    assert_eq!(read["pairingCode"], Value::Null);
    let listed = json_of(app.get("/whatsapp", &plain).await, StatusCode::OK).await;
    assert_eq!(listed[0]["pairingCode"], Value::Null);

    // The phone types a wrong code: refused, still pairing.
    let phone = format!("/sandbox/{id}/paircode");
    let wrong = if code == "ZZZZZZZZ" {
        "YYYY-YYYY"
    } else {
        "ZZZZ-ZZZZ"
    };
    let refused = app.post(&phone, &token, &json!({"code": wrong})).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = refused.json().await.expect("JSON");
    assert_eq!(body["error"], "ERR_VALIDATION");
    assert_eq!(
        body["fields"],
        json!([{"field": "code", "code": "INVALID_FORMAT"}])
    );
    // A plain user is no phone.
    assert_error(
        app.post(&phone, &plain, &json!({"code": code})).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    wait_for_status(&app, &token, id, "PAIRING").await;

    // Typed as shown (XXXX-XXXX, any case), it connects with the number given.
    let typed = format!("{}-{}", &code[..4], &code[4..]).to_lowercase();
    let done = app.post(&phone, &token, &json!({"code": typed})).await;
    assert_eq!(done.status(), StatusCode::NO_CONTENT);
    let connected = wait_for_status(&app, &token, id, "CONNECTED").await;
    assert_eq!(connected["number"], "5511988887777");
    assert_eq!(connected["pairingCode"], Value::Null);
    assert_eq!(connected["sessionReason"], Value::Null);

    // A connected session asks for no code, and the used code pairs nothing.
    assert_error(
        app.post(&paircode, &token, &json!({"number": "5511988887777"}))
            .await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_NOT_INITIALIZED",
    )
    .await;
    assert_error(
        app.post(&phone, &token, &json!({"code": code})).await,
        StatusCode::BAD_GATEWAY,
        "ERR_WAPP_NOT_INITIALIZED",
    )
    .await;
}

/// The first `room` event of a session in `status` (a QR renewal may come before it).
async fn session_event(
    socket: &mut crate::socket_client::SocketClient,
    room: &str,
    status: &str,
) -> Value {
    loop {
        let event = socket.expect_event(room, Duration::from_secs(5)).await;
        if event["session"]["status"] == status {
            return event;
        }
    }
}

async fn session_changes_reach_only_the_companys_sockets(app: TestApp) {
    use crate::socket_client::SocketClient;
    let (a, a_token) = admin(&app, "Alpha").await;
    let (_, b_token) = admin(&app, "Beta").await;
    let mut a_socket = SocketClient::with_token(&app.host, &a_token).await;
    let mut b_socket = SocketClient::with_token(&app.host, &b_token).await;
    let id = create(&app, &a_token, json!({"name": "Live"})).await["id"]
        .as_i64()
        .expect("id");
    let created = a_socket
        .expect_event(&format!("company-{a}-whatsapp"), Duration::from_secs(5))
        .await;
    assert_eq!(created["action"], "update");
    assert_eq!(created["whatsapp"]["id"], id);
    assert!(created["seq"].as_i64().is_some());

    app.post(&format!("/whatsappsession/{id}"), &a_token, &json!({}))
        .await;
    let mut statuses = Vec::new();
    while statuses.last().map(String::as_str) != Some("qrcode") {
        let session = a_socket
            .expect_event(
                &format!("company-{a}-whatsappSession"),
                Duration::from_secs(5),
            )
            .await;
        assert_eq!(session["session"]["id"], id);
        statuses.push(
            session["session"]["status"]
                .as_str()
                .expect("status")
                .to_owned(),
        );
    }
    assert_eq!(statuses, vec!["OPENING", "qrcode"]);

    let seen_by_b = b_socket.drain(Duration::from_millis(500)).await;
    assert!(
        seen_by_b
            .iter()
            .all(|(name, _)| !name.starts_with(&format!("company-{a}-"))),
        "{seen_by_b:?}"
    );
}

/// The field errors of a 422 answer, as (field, code).
async fn field_errors(response: reqwest::Response) -> Vec<(String, String)> {
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let error: Value = response.json().await.expect("error body");
    assert_eq!(error["error"], "ERR_VALIDATION", "{error}");
    error["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap_or_default().to_owned(),
                f["code"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

async fn the_import_settings_are_checked_and_relink_a_connected_phone(app: TestApp) {
    let (_, token) = admin(&app, "Alpha").await;
    let (_, other) = admin(&app, "Beta").await;
    let queue = |token: String, name: &'static str| {
        let app = &app;
        async move {
            json_of(
                app.post("/queue", &token, &json!({"name": name, "color": "#ff0000"}))
                    .await,
                StatusCode::CREATED,
            )
            .await["id"]
                .as_i64()
                .expect("queue id")
        }
    };
    let imported = queue(token.clone(), "Importadas").await;
    let foreign = queue(other.clone(), "De Beta").await;
    let created = create(&app, &token, json!({"name": "Sales line"})).await;
    let id = created["id"].as_i64().expect("id");
    assert_eq!(created["enableImportMessage"], false);
    assert_eq!(created["statusImportMessages"], Value::Null);

    let now = chrono::Utc::now();
    let iso = |days: i64| (now - chrono::TimeDelta::days(days)).to_rfc3339();
    let on = |old: String, recent: String, queue: Value| {
        json!({
            "name": "Sales line",
            "isDefault": true,
            "enableImportMessage": true,
            "importOldMessages": old,
            "importRecentMessages": recent,
            "importOldMessagesGroups": true,
            "closedTicketsPostImported": false,
            "queueIdImportMessages": queue,
        })
    };
    let path = format!("/whatsapp/{id}");
    // Turned on without its dates and queue.
    let errors = field_errors(
        app.put(
            &path,
            &token,
            &json!({"name": "Sales line", "isDefault": true, "enableImportMessage": true}),
        )
        .await,
    )
    .await;
    for field in [
        "importOldMessages",
        "importRecentMessages",
        "queueIdImportMessages",
    ] {
        assert!(
            errors.contains(&(field.to_owned(), "REQUIRED".to_owned())),
            "{field}: {errors:?}"
        );
    }
    // More than two years back; the end before the start; the future.
    let errors = field_errors(
        app.put(&path, &token, &on(iso(800), iso(1), json!(imported)))
            .await,
    )
    .await;
    assert_eq!(
        errors,
        [("importOldMessages".to_owned(), "OUT_OF_RANGE".to_owned())]
    );
    let errors = field_errors(
        app.put(&path, &token, &on(iso(10), iso(20), json!(imported)))
            .await,
    )
    .await;
    assert_eq!(
        errors,
        [("importRecentMessages".to_owned(), "OUT_OF_RANGE".to_owned())]
    );
    let errors = field_errors(
        app.put(&path, &token, &on(iso(10), iso(-1), json!(imported)))
            .await,
    )
    .await;
    assert_eq!(
        errors,
        [("importRecentMessages".to_owned(), "OUT_OF_RANGE".to_owned())]
    );
    // Another company's queue is not a queue of this company.
    let errors = field_errors(
        app.put(&path, &token, &on(iso(30), iso(0), json!(foreign)))
            .await,
    )
    .await;
    assert_eq!(
        errors,
        [(
            "queueIdImportMessages".to_owned(),
            "INVALID_FORMAT".to_owned()
        )]
    );

    // The phone is linked; saving the import then unlinks it so WhatsApp sends the history.
    app.post(&format!("/whatsappsession/{id}"), &token, &json!({}))
        .await;
    wait_for_status(&app, &token, id, "qrcode").await;
    app.post(&format!("/sandbox/{id}/scan"), &token, &json!({}))
        .await;
    wait_for_status(&app, &token, id, "CONNECTED").await;
    let body = on(iso(30), iso(0), json!(imported));
    let saved = json_of(app.put(&path, &token, &body).await, StatusCode::OK).await;
    assert_eq!(saved["enableImportMessage"], true);
    assert_eq!(saved["queueIdImportMessages"], imported);
    assert_eq!(saved["importOldMessagesGroups"], true);
    assert_eq!(
        saved["importOldMessages"].as_str().map(|t| &t[..10]),
        Some(&iso(30)[..10])
    );
    wait_for_status(&app, &token, id, "qrcode").await;
    // Linked again, saving the same import (or another field) keeps the link.
    app.post(&format!("/sandbox/{id}/scan"), &token, &json!({}))
        .await;
    wait_for_status(&app, &token, id, "CONNECTED").await;
    let mut renamed = saved.clone();
    renamed["name"] = json!("Sales line 2");
    json_of(app.put(&path, &token, &renamed).await, StatusCode::OK).await;
    // A relink would have shown by now: the sandbox reports the new QR code's statuses before
    // its new-QR call returns, and the save awaits that call.
    let read = json_of(app.get(&path, &token).await, StatusCode::OK).await;
    assert_eq!(read["status"], "CONNECTED");
    assert_eq!(read["name"], "Sales line 2");

    // Turned off, its settings are cleared.
    let off = json_of(
        app.put(
            &path,
            &token,
            &json!({"name": "Sales line 2", "isDefault": true, "queueIdImportMessages": imported}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(off["enableImportMessage"], false);
    assert_eq!(off["queueIdImportMessages"], Value::Null);
    assert_eq!(off["importOldMessages"], Value::Null);

    // Nothing imported, nothing to close.
    let closed = json_of(
        app.post(&format!("/closedimported/{id}"), &token, &json!({}))
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(closed["closed"], 0);
}
