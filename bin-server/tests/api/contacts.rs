//! Contacts over HTTP on both engines: CRUD, validation, duplicates, block/unblock, toggles,
//! paging and search, delete permission, import (xlsx and csv) and export, malformed uploads, and
//! company B reaching none of company A's contacts.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, error_of, json_of};

app_tests!(
    contact_crud_validation_and_duplicates,
    block_toggles_and_delete_permission,
    list_search_and_cursor_pages,
    import_xlsx_and_csv_then_export,
    malformed_uploads_are_refused,
    company_b_never_reaches_company_a_contacts,
    plain_users_get_masked_numbers_under_lgpd,
);

/// An admin and a plain user of a new company, with their tokens.
async fn company_with_users(app: &TestApp, name: &str) -> (String, String) {
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
    (app.token_of(&admin).await, app.token_of(&user).await)
}

async fn create(app: &TestApp, token: &str, name: &str, number: &str) -> Value {
    json_of(
        app.post("/contacts", token, &json!({"name": name, "number": number}))
            .await,
        StatusCode::OK,
    )
    .await
}

async fn contact_crud_validation_and_duplicates(app: TestApp) {
    let (_, user) = company_with_users(&app, "Alpha").await;
    let created = json_of(
        app.post(
            "/contacts",
            &user,
            &json!({
                "name": " João Silva ",
                "number": "+55 (11) 99999-0001",
                "email": "Joao@Example.com",
                "extraInfo": [{"name": "CPF", "value": "123"}]
            }),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(created["name"], "João Silva");
    assert_eq!(created["number"], "5511999990001");
    assert_eq!(created["email"], "joao@example.com");
    assert_eq!(created["extraInfo"][0]["name"], "CPF");
    assert_eq!(created["active"], true);
    let id = created["id"].as_i64().expect("id");

    let got = json_of(
        app.get(&format!("/contacts/{id}"), &user).await,
        StatusCode::OK,
    )
    .await;
    // The one contact read also answers its other identities (none for a contact made by hand).
    let mut expected = created.clone();
    expected["aliases"] = json!([]);
    assert_eq!(got, expected);

    let updated = json_of(
        app.put(
            &format!("/contacts/{id}"),
            &user,
            &json!({"name": "João S.", "number": "5511999990001"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(updated["name"], "João S.");
    assert_eq!(updated["extraInfo"], json!([]));

    // The same number, however it is written, is a duplicate.
    assert_error(
        app.post(
            "/contacts",
            &user,
            &json!({"name": "Other", "number": "55 11 99999 0001"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_DUPLICATED_CONTACT",
    )
    .await;

    // Validation lists every failing field.
    let response = app
        .post(
            "/contacts",
            &user,
            &json!({"name": "J", "number": "123", "email": "nope"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"], "ERR_VALIDATION");
    let fields: Vec<(String, String)> = body["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap_or_default().to_owned(),
                f["code"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            ("name".to_owned(), "TOO_SHORT".to_owned()),
            ("number".to_owned(), "TOO_SHORT".to_owned()),
            ("email".to_owned(), "INVALID_EMAIL".to_owned()),
        ]
    );
    assert_error(
        app.get("/contacts/999999", &user).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
}

async fn block_toggles_and_delete_permission(app: TestApp) {
    let (admin, user) = company_with_users(&app, "Alpha").await;
    let contact = create(&app, &user, "Ana", "5511988880001").await;
    let id = contact["id"].as_i64().expect("id");
    assert_eq!(contact["acceptAudioMessage"], true);
    assert_eq!(contact["disableBot"], false);

    let blocked = json_of(
        app.put(
            &format!("/contacts/block/{id}"),
            &user,
            &json!({"active": false}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(blocked["active"], false);
    let unblocked = json_of(
        app.put(
            &format!("/contacts/block/{id}"),
            &user,
            &json!({"active": true}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(unblocked["active"], true);

    let audio = json_of(
        app.put(
            &format!("/contacts/toggleAcceptAudio/{id}"),
            &user,
            &json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(audio["acceptAudioMessage"], false);
    let bot = json_of(
        app.put(
            &format!("/contacts/toggleDisableBot/{id}"),
            &user,
            &json!({}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(bot["disableBot"], true);
    assert_eq!(bot["acceptAudioMessage"], false);

    // Deleting needs contacts-page:deleteContact: the plain user has it not, the admin does.
    assert_error(
        app.delete(&format!("/contacts/{id}"), &user).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let deleted = app.delete(&format!("/contacts/{id}"), &admin).await;
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    assert_error(
        app.get(&format!("/contacts/{id}"), &user).await,
        StatusCode::NOT_FOUND,
        "ERR_NO_CONTACT_FOUND",
    )
    .await;
}

async fn list_search_and_cursor_pages(app: TestApp) {
    let (_, user) = company_with_users(&app, "Alpha").await;
    for i in 0..25 {
        create(
            &app,
            &user,
            &format!("Cliente {i:02}"),
            &format!("55119777{i:05}"),
        )
        .await;
    }
    create(&app, &user, "Conceição", "5511977799999").await;
    let first = json_of(app.get("/contacts", &user).await, StatusCode::OK).await;
    assert_eq!(first["count"], 26);
    assert_eq!(first["hasMore"], true);
    assert_eq!(first["contacts"].as_array().expect("list").len(), 20);
    let cursor = first["nextCursor"].as_str().expect("cursor").to_owned();
    let second = json_of(
        app.get(&format!("/contacts?cursor={cursor}"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["count"], Value::Null);
    assert_eq!(second["hasMore"], false);
    let mut ids: Vec<i64> = first["contacts"]
        .as_array()
        .expect("list")
        .iter()
        .chain(second["contacts"].as_array().expect("list"))
        .map(|c| c["id"].as_i64().expect("id"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 26, "no gaps, no repeats");

    let found = json_of(
        app.get("/contacts?searchParam=conceicao", &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(found["contacts"][0]["name"], "Conceição");
    assert_eq!(found["count"], 1);
    let brief = json_of(
        app.get("/contacts/list?searchParam=CONCEI", &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(brief.as_array().expect("list").len(), 1);
    assert_error(
        app.get("/contacts?cursor=zz", &user).await,
        StatusCode::BAD_REQUEST,
        "ERR_BAD_REQUEST",
    )
    .await;
    // Tag filter.
    let tag = json_of(
        app.post("/tags", &user, &json!({"name": "vip", "color": "#fff"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let conc = found["contacts"][0]["id"].as_i64().expect("id");
    json_of(
        app.post(
            "/tags/sync",
            &user,
            &json!({"contactId": conc, "tags": [{"id": tag["id"]}]}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    let tagged = json_of(
        app.get(&format!("/contacts?contactTag=[{}]", tag["id"]), &user)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(tagged["count"], 1);
    assert_eq!(tagged["contacts"][0]["tags"][0]["name"], "vip");
}

async fn upload(app: &TestApp, token: &str, name: &str, bytes: Vec<u8>) -> reqwest::Response {
    let part = Part::bytes(bytes).file_name(name.to_owned());
    app.client
        .post(app.url("/contacts/upload"))
        .bearer_auth(token)
        .multipart(Form::new().part("file", part))
        .send()
        .await
        .expect("sent")
}

fn strings(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

async fn import_xlsx_and_csv_then_export(app: TestApp) {
    let (admin, user) = company_with_users(&app, "Alpha").await;
    create(&app, &user, "Existing", "5511966660001").await;
    let header = strings(&["Nome", "Telefone", "E-mail", "Etiquetas"]);
    let rows = vec![
        strings(&["Ana", "+55 11 96666-0002", "ana@example.com", "vip, lead"]),
        strings(&["Existing Renamed", "5511966660001", "", ""]),
        strings(&["", "5511966660003", "", ""]),
        strings(&["Sem número", "", "", ""]),
        strings(&["B", "5511966660004", "", ""]),
        strings(&["Caio", "5511966660005", "bad-email", ""]),
        strings(&["Duda", "5511966660006", "", "vip"]),
    ];
    let xlsx = chatflow_system::spreadsheet::xlsx(&header, &rows).expect("xlsx built");
    let preview = json_of(
        upload(&app, &user, "contatos.xlsx", xlsx).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(preview["columns"], json!(header));
    assert_eq!(preview["total"], 7);
    assert_eq!(preview["rows"][0][0], "Ana");
    let token = preview["token"].as_str().expect("token").to_owned();

    // A mapping without the number is refused and keeps the upload.
    let response = app
        .post(
            "/contactsImport",
            &user,
            &json!({"token": token, "mapping": {"name": "Nome", "number": ""}}),
        )
        .await;
    assert_error(response, StatusCode::UNPROCESSABLE_ENTITY, "ERR_VALIDATION").await;
    let report = json_of(
        app.post(
            "/contactsImport",
            &user,
            &json!({"token": token, "mapping": {
                "name": "Nome", "number": "Telefone", "email": "E-mail", "tags": "Etiquetas"
            }}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(report["imported"], 3);
    assert_eq!(report["ignored"], 2);
    assert_eq!(report["failed"], 2);
    assert_eq!(
        report["errors"],
        json!([{"row": 5, "error": "ERR_VALIDATION"}, {"row": 6, "error": "ERR_VALIDATION"}])
    );
    // The token is used up.
    assert_error(
        app.post(
            "/contactsImport",
            &user,
            &json!({"token": token, "mapping": {"name": "Nome", "number": "Telefone"}}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_FILE",
    )
    .await;
    let list = json_of(app.get("/contacts", &user).await, StatusCode::OK).await;
    assert_eq!(
        list["count"], 3,
        "the existing number was updated, not added"
    );
    let names: Vec<&str> = list["contacts"]
        .as_array()
        .expect("list")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["Ana", "Duda", "Existing Renamed"]);
    let ana = &list["contacts"][0];
    assert_eq!(ana["number"], "5511966660002");
    let mut tag_names: Vec<&str> = ana["tags"]
        .as_array()
        .expect("tags")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default())
        .collect();
    tag_names.sort_unstable();
    assert_eq!(tag_names, ["lead", "vip"]);
    let tags = json_of(app.get("/tags/list", &user).await, StatusCode::OK).await;
    assert_eq!(
        tags.as_array().expect("tags").len(),
        2,
        "vip is created once"
    );

    // A csv with semicolons.
    let csv = "name;number\nEva;5511966660007\nFabio;5511966660008\n";
    let preview = json_of(
        upload(&app, &user, "lista.csv", csv.as_bytes().to_vec()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(preview["columns"], json!(["name", "number"]));
    let report = json_of(
        app.post(
            "/contactsImport",
            &user,
            &json!({"token": preview["token"], "mapping": {"name": "name", "number": "number"}}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(report["imported"], 2);

    // Export: admins only (the whole contact base); an xlsx of every contact, read back.
    assert_error(
        app.get("/contacts/export", &user).await,
        StatusCode::FORBIDDEN,
        "ERR_NO_PERMISSION",
    )
    .await;
    let response = app.get("/contacts/export", &admin).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok()),
        Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    );
    let bytes = response.bytes().await.expect("bytes");
    let sheet = chatflow_system::spreadsheet::read("export.xlsx", &bytes).expect("readable");
    assert_eq!(sheet.header[0], "Nome");
    assert_eq!(sheet.len(), 5);
    assert!(
        sheet
            .rows()
            .any(|r| r[0] == "Eva" && r[1] == "5511966660007")
    );
}

async fn malformed_uploads_are_refused(app: TestApp) {
    let (_, user) = company_with_users(&app, "Alpha").await;
    for (name, bytes) in [
        ("virus.exe", b"MZ\x90\x00".to_vec()),
        ("broken.xlsx", b"PK\x03\x04 not really a zip".to_vec()),
        ("broken.xls", b"\xd0\xcf\x11\xe0 nope".to_vec()),
        ("binary.csv", vec![0xff, 0xfe, 0x00, 0x41]),
        ("empty.csv", Vec::new()),
    ] {
        assert_error(
            upload(&app, &user, name, bytes).await,
            StatusCode::BAD_REQUEST,
            "ERR_INVALID_FILE",
        )
        .await;
    }
    // No file field at all.
    let response = app
        .client
        .post(app.url("/contacts/upload"))
        .bearer_auth(&user)
        .multipart(Form::new().text("other", "x"))
        .send()
        .await
        .expect("sent");
    assert_error(response, StatusCode::BAD_REQUEST, "ERR_INVALID_FILE").await;
    // Not multipart.
    let (status, code) = error_of(app.post("/contacts/upload", &user, &json!({})).await).await;
    assert_eq!(
        (status, code.as_str()),
        (StatusCode::BAD_REQUEST, "ERR_BAD_REQUEST")
    );
    // An unknown token.
    assert_error(
        app.post(
            "/contactsImport",
            &user,
            &json!({"token": "nope", "mapping": {"name": "a", "number": "b"}}),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_FILE",
    )
    .await;
}

async fn company_b_never_reaches_company_a_contacts(app: TestApp) {
    let (a_admin, a_user) = company_with_users(&app, "Alpha").await;
    let (b_admin, b_user) = company_with_users(&app, "Beta").await;
    let contact = create(&app, &a_user, "Ana Alpha", "5511955550001").await;
    let id = contact["id"].as_i64().expect("id");
    let a_tag = json_of(
        app.post("/tags", &a_admin, &json!({"name": "alpha-tag"}))
            .await,
        StatusCode::OK,
    )
    .await;
    let csv = "name,number\nAna,5511955550009\n";
    let a_upload = json_of(
        upload(&app, &a_user, "a.csv", csv.as_bytes().to_vec()).await,
        StatusCode::OK,
    )
    .await;

    for token in [&b_admin, &b_user] {
        let not_found = [
            app.get(&format!("/contacts/{id}"), token).await,
            app.put(
                &format!("/contacts/{id}"),
                token,
                &json!({"name": "Hacked", "number": "5511955550002"}),
            )
            .await,
            app.put(
                &format!("/contacts/block/{id}"),
                token,
                &json!({"active": false}),
            )
            .await,
            app.put(
                &format!("/contacts/toggleAcceptAudio/{id}"),
                token,
                &json!({}),
            )
            .await,
            app.put(
                &format!("/contacts/toggleDisableBot/{id}"),
                token,
                &json!({}),
            )
            .await,
            app.get(&format!("/contactTags/{id}"), token).await,
            app.post(
                "/tags/sync",
                token,
                &json!({"contactId": id, "tags": [{"id": a_tag["id"]}]}),
            )
            .await,
        ];
        for response in not_found {
            let (status, code) = error_of(response).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{code}");
        }
        let (status, _) = error_of(app.delete(&format!("/contacts/{id}"), token).await).await;
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
            "{status}"
        );
        let list = json_of(
            app.get("/contacts?searchParam=ana", token).await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(list["count"], 0);
        let brief = json_of(
            app.get("/contacts/list?searchParam=ana", token).await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(brief, json!([]));
        let tags = json_of(app.get("/tags/list", token).await, StatusCode::OK).await;
        assert_eq!(tags, json!([]));
        for response in [
            app.put(
                &format!("/tags/{}", a_tag["id"]),
                token,
                &json!({"name": "hacked"}),
            )
            .await,
            app.delete(&format!("/tags/{}", a_tag["id"]), token).await,
        ] {
            // A plain user may not delete tags at all (403); an admin finds no such tag (404).
            let (status, _) = error_of(response).await;
            assert!(
                status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
                "{status}"
            );
        }
        // A's upload token is not B's.
        assert_error(
            app.post(
                "/contactsImport",
                token,
                &json!({"token": a_upload["token"], "mapping": {"name": "name", "number": "number"}}),
            )
            .await,
            StatusCode::BAD_REQUEST,
            "ERR_INVALID_FILE",
        )
        .await;
        let export = app.get("/contacts/export", token).await;
        if token == &b_admin {
            assert_eq!(export.status(), StatusCode::OK);
            let bytes = export.bytes().await.expect("bytes");
            let sheet = chatflow_system::spreadsheet::read("x.xlsx", &bytes).expect("readable");
            assert!(sheet.is_empty(), "B exports none of A's contacts");
        } else {
            assert_eq!(export.status(), StatusCode::FORBIDDEN);
        }
    }
    // A's contact and tag are untouched.
    let still = json_of(
        app.get(&format!("/contacts/{id}"), &a_user).await,
        StatusCode::OK,
    )
    .await;
    let mut expected = contact.clone();
    expected["aliases"] = json!([]);
    assert_eq!(still, expected);
    let tags = json_of(app.get("/tags/list", &a_user).await, StatusCode::OK).await;
    assert_eq!(tags[0]["name"], "alpha-tag");
    // And A can still use its own upload.
    let report = json_of(
        app.post(
            "/contactsImport",
            &a_user,
            &json!({"token": a_upload["token"], "mapping": {"name": "name", "number": "number"}}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(report["imported"], 1);
}

async fn plain_users_get_masked_numbers_under_lgpd(app: TestApp) {
    let (admin, user) = company_with_users(&app, "Alpha").await;
    let contact = create(&app, &admin, "Ana", "5511987654321").await;
    let id = contact["id"].as_i64().expect("id");
    for key in ["enableLGPD", "lgpdHideNumber"] {
        let response = app
            .put(
                &format!("/settings/{key}"),
                &admin,
                &json!({"value": "enabled"}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{key}");
    }
    let seen = json_of(
        app.get(&format!("/contacts/{id}"), &user).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(seen["number"], "5511*******21");
    let listed = json_of(app.get("/contacts", &user).await, StatusCode::OK).await;
    assert_eq!(listed["contacts"][0]["number"], "5511*******21");
    let by_admin = json_of(
        app.get(&format!("/contacts/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(by_admin["number"], "5511987654321");
    // The plain user's form sends the masked number back: the stored one stays.
    let edited = json_of(
        app.put(
            &format!("/contacts/{id}"),
            &user,
            &json!({"name": "Ana Maria", "number": "5511*******21"}),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(edited["name"], "Ana Maria");
    let by_admin = json_of(
        app.get(&format!("/contacts/{id}"), &admin).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(by_admin["number"], "5511987654321");
}
