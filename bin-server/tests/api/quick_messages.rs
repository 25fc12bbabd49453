//! Quick messages over HTTP on both engines: the form and its validation, the page and the "/"
//! list, who sees and edits what (owner, other user, shared, private), the file (upload, download,
//! removal, wrong type, too large), the `quickmessage` events, and company B reaching none of
//! company A's quick messages.

use chatflow_core::CompanyId;
use chatflow_core::events::Recipients;
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

use crate::app_tests;
use crate::helpers::{Member, MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    the_form_is_validated_and_shortcodes_do_not_clash,
    shared_ones_are_everyones_private_ones_their_owners,
    files_are_checked_served_and_removed,
    writes_emit_quickmessage_events,
    company_b_reaches_none_of_company_a_quick_messages,
    concurrent_creates_of_one_shortcode_keep_one,
);

async fn member(app: &TestApp, company: CompanyId, email: &str) -> (Member, String) {
    member_with(app, company, email, MemberOptions::default()).await
}

async fn admin(app: &TestApp, company: CompanyId, email: &str) -> String {
    let options = MemberOptions {
        admin: true,
        ..Default::default()
    };
    member_with(app, company, email, options).await.1
}

async fn member_with(
    app: &TestApp,
    company: CompanyId,
    email: &str,
    options: MemberOptions,
) -> (Member, String) {
    let member = app.member(company, email, options).await;
    let token = app.token_of(&member).await;
    (member, token)
}

pub(crate) async fn create(app: &TestApp, token: &str, body: Value) -> Value {
    json_of(
        app.post("/quick-messages", token, &body).await,
        StatusCode::OK,
    )
    .await
}

async fn assert_not_found(response: reqwest::Response) {
    assert_error(response, StatusCode::NOT_FOUND, "ERR_NOT_FOUND").await;
}

async fn edit(app: &TestApp, token: &str, message: &Value, body: Value) -> Value {
    json_of(app.put(&path(message), token, &body).await, StatusCode::OK).await
}

pub(crate) fn path(message: &Value) -> String {
    format!("/quick-messages/{}", message["id"])
}

pub(crate) async fn upload(
    app: &TestApp,
    token: &str,
    message: &Value,
    name: &str,
    mime: &str,
    bytes: Vec<u8>,
) -> reqwest::Response {
    let part = Part::bytes(bytes)
        .file_name(name.to_owned())
        .mime_str(mime)
        .expect("mime");
    let form = Form::new()
        .text("typeArch", "quickMessage")
        .part("file", part);
    app.client
        .post(app.url(&format!("{}/media-upload", path(message))))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .expect("sent")
}

fn shortcodes(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|m| m["shortcode"].as_str().expect("a shortcode").to_owned())
        .collect()
}

async fn the_form_is_validated_and_shortcodes_do_not_clash(app: TestApp) {
    let company = app.company("Alpha").await;
    let (ana, token) = member(&app, company, "ana@alpha.test").await;
    let refused = app
        .post(
            "/quick-messages",
            &token,
            &json!({"shortcode": " ", "message": ""}),
        )
        .await;
    let body = json_of(refused, StatusCode::UNPROCESSABLE_ENTITY).await;
    assert_eq!(body["error"], "ERR_VALIDATION");
    assert_eq!(
        body["fields"],
        json!([
            {"field": "shortcode", "code": "REQUIRED"},
            {"field": "message", "code": "REQUIRED"}
        ])
    );
    let oi = create(
        &app,
        &token,
        json!({"shortcode": " oi ", "message": "Olá, tudo bem?", "geral": true,
               "companyId": 999, "userId": 999}),
    )
    .await;
    assert_eq!(oi["shortcode"], "oi");
    assert_eq!(
        oi["userId"], ana.id.0,
        "the caller owns it, whatever the body says"
    );
    assert_eq!(oi["geral"], true);
    assert_eq!(oi["visao"], true);
    assert_eq!(oi["isMedia"], false);
    assert_eq!(oi["mediaPath"], Value::Null);
    // A file announced: the text may be empty.
    create(&app, &token, json!({"shortcode": "foto", "isMedia": true})).await;
    assert_error(
        app.post(
            "/quick-messages",
            &token,
            &json!({"shortcode": "OI", "message": "x"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUICK_MESSAGE_SHORTCODE_EXISTS",
    )
    .await;
    let other = create(
        &app,
        &token,
        json!({"shortcode": "tchau", "message": "Até!"}),
    )
    .await;
    assert_error(
        app.put(
            &path(&other),
            &token,
            &json!({"shortcode": "oi", "message": "x"}),
        )
        .await,
        StatusCode::CONFLICT,
        "ERR_QUICK_MESSAGE_SHORTCODE_EXISTS",
    )
    .await;
    let edited = edit(
        &app,
        &token,
        &oi,
        json!({"shortcode": "oi", "message": "Oi!", "geral": true}),
    )
    .await;
    assert_eq!(edited["message"], "Oi!", "its own shortcode is no clash");

    let page = json_of(
        app.get("/quick-messages?searchParam=ATÉ", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(page["count"], 1);
    assert_eq!(page["hasMore"], false);
    assert_eq!(page["records"][0]["shortcode"], "tchau");
    let all = json_of(
        app.get("/quick-messages?pageNumber=1&companyId=1&userId=1", &token)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(shortcodes(&all["records"]), ["foto", "oi", "tchau"]);
    let list = json_of(
        app.get("/quick-messages/list", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(shortcodes(&list), ["foto", "oi", "tchau"]);
    for i in 0..21 {
        create(
            &app,
            &token,
            json!({"shortcode": format!("z{i:02}"), "message": "z"}),
        )
        .await;
    }
    let second = json_of(
        app.get("/quick-messages?pageNumber=2", &token).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(second["count"], 24);
    assert_eq!(second["hasMore"], false);
    assert_eq!(second["records"].as_array().expect("records").len(), 4);

    let gone = app.delete(&path(&other), &token).await;
    assert_eq!(gone.status(), StatusCode::NO_CONTENT);
    assert_not_found(app.get(&path(&other), &token).await).await;
}

async fn shared_ones_are_everyones_private_ones_their_owners(app: TestApp) {
    let company = app.company("Alpha").await;
    let (_ana, ana) = member(&app, company, "ana@alpha.test").await;
    let (_bia, bia) = member(&app, company, "bia@alpha.test").await;
    let admin = admin(&app, company, "chefe@alpha.test").await;
    let shared = create(
        &app,
        &ana,
        json!({"shortcode": "oi", "message": "Oi", "geral": true}),
    )
    .await;
    let private = create(&app, &ana, json!({"shortcode": "meu", "message": "Só meu"})).await;

    for token in [&bia, &admin] {
        let list = json_of(app.get("/quick-messages/list", token).await, StatusCode::OK).await;
        assert_eq!(
            shortcodes(&list),
            ["oi"],
            "another user sees the shared one only"
        );
        assert_not_found(app.get(&path(&private), token).await).await;
        assert_not_found(
            app.put(
                &path(&private),
                token,
                &json!({"shortcode": "meu", "message": "meu!"}),
            )
            .await,
        )
        .await;
        assert_not_found(app.delete(&path(&private), token).await).await;
        assert_not_found(
            upload(
                &app,
                token,
                &private,
                "a.png",
                "image/png",
                b"\x89PNG".to_vec(),
            )
            .await,
        )
        .await;
    }
    // The same shortcode is free for Bia: Ana's private one is not hers to see.
    create(&app, &bia, json!({"shortcode": "meu", "message": "O meu"})).await;
    let list = json_of(app.get("/quick-messages/list", &ana).await, StatusCode::OK).await;
    assert_eq!(shortcodes(&list), ["meu", "oi"], "the owner sees hers");

    // Bia edits the shared one; she cannot make it private.
    let edited = edit(
        &app,
        &bia,
        &shared,
        json!({"shortcode": "oi", "message": "Olá!", "geral": false}),
    )
    .await;
    assert_eq!(edited["message"], "Olá!");
    assert_eq!(edited["geral"], true, "only the owner changes sharing");
    assert_eq!(edited["userId"], shared["userId"], "the owner stays");
    // Ana may.
    let unshared = edit(
        &app,
        &ana,
        &shared,
        json!({"shortcode": "oi", "message": "Olá!", "geral": false}),
    )
    .await;
    assert_eq!(unshared["geral"], false);
    assert_not_found(app.get(&path(&shared), &bia).await).await;
    edit(
        &app,
        &ana,
        &shared,
        json!({"shortcode": "oi", "message": "Olá!", "geral": true}),
    )
    .await;
    let gone = app.delete(&path(&shared), &bia).await;
    assert_eq!(
        gone.status(),
        StatusCode::NO_CONTENT,
        "any user deletes a shared one"
    );
    assert_not_found(app.get(&path(&shared), &ana).await).await;
}

async fn files_are_checked_served_and_removed(app: TestApp) {
    let company = app.company("Alpha").await;
    let (_ana, ana) = member(&app, company, "ana@alpha.test").await;
    let (_bia, bia) = member(&app, company, "bia@alpha.test").await;
    let shared = create(
        &app,
        &ana,
        json!({"shortcode": "foto", "geral": true, "isMedia": true}),
    )
    .await;
    assert_error(
        upload(
            &app,
            &ana,
            &shared,
            "run.exe",
            "application/x-msdownload",
            vec![0; 10],
        )
        .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    assert_error(
        upload(
            &app,
            &ana,
            &shared,
            "big.png",
            "image/png",
            vec![0; 16 * 1024 * 1024 + 1],
        )
        .await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;
    let without_file = app
        .client
        .post(app.url(&format!("{}/media-upload", path(&shared))))
        .bearer_auth(&ana)
        .multipart(Form::new().text("typeArch", "quickMessage"))
        .send()
        .await
        .expect("sent");
    assert_error(
        without_file,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    assert_not_found(app.get(&format!("{}/media", path(&shared)), &ana).await).await;

    let png = b"\x89PNG\r\n\x1a\n0000".to_vec();
    let with_file = json_of(
        upload(&app, &ana, &shared, "foto.png", "image/png", png.clone()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(with_file["isMedia"], true);
    assert_eq!(with_file["mediaName"], "foto.png");
    let media_path = with_file["mediaPath"].as_str().expect("a path").to_owned();
    assert_eq!(media_path, format!("{}/media", path(&shared)));
    let served = app.get(&media_path, &bia).await;
    assert_eq!(
        served.status(),
        StatusCode::OK,
        "a colleague gets a shared one's file"
    );
    assert!(
        served
            .headers()
            .get("content-disposition")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("foto.png"))
    );
    assert_eq!(
        served
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("image/png"),
        "the file is served with its real type"
    );
    assert_eq!(served.bytes().await.expect("bytes").to_vec(), png);

    // Replacing the file leaves one stored file.
    let replaced = json_of(
        upload(
            &app,
            &ana,
            &shared,
            "outra.png",
            "image/png",
            b"\x89PNG2".to_vec(),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(replaced["mediaName"], "outra.png");
    let served = app.get(&media_path, &ana).await;
    assert_eq!(served.bytes().await.expect("bytes").as_ref(), b"\x89PNG2");

    // Without text the file cannot go.
    assert_error(
        app.delete(&format!("{}/media-upload", path(&shared)), &ana)
            .await,
        StatusCode::UNPROCESSABLE_ENTITY,
        "ERR_VALIDATION",
    )
    .await;
    edit(
        &app,
        &ana,
        &shared,
        json!({"shortcode": "foto", "message": "Veja", "geral": true}),
    )
    .await;
    let removed = json_of(
        app.delete(&format!("{}/media-upload", path(&shared)), &bia)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(removed["isMedia"], false);
    assert_eq!(removed["mediaName"], Value::Null);
    assert_not_found(app.get(&media_path, &ana).await).await;
    let mut stored = Vec::new();
    collect_files(&app.media_dir, &mut stored);
    assert!(
        stored.is_empty(),
        "replaced and removed files are deleted: {stored:?}"
    );

    // A private one's file is its owner's only.
    let private = create(&app, &ana, json!({"shortcode": "meu", "message": "x"})).await;
    json_of(
        upload(
            &app,
            &ana,
            &private,
            "a.pdf",
            "application/pdf",
            b"%PDF".to_vec(),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    assert_not_found(app.get(&format!("{}/media", path(&private)), &bia).await).await;
    assert_eq!(
        app.get(&format!("{}/media", path(&private)), &ana)
            .await
            .status(),
        StatusCode::OK
    );
}

fn collect_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The company's `quickmessage` events in the log, as (action, addressed user).
async fn logged(app: &TestApp, company: CompanyId) -> Vec<(String, Option<i64>)> {
    app.logged_events(company, "quickmessage")
        .await
        .into_iter()
        .map(|(_, payload, recipients)| {
            let user = match recipients {
                Recipients::User(user) => Some(user.0),
                Recipients::Company => None,
            };
            (payload["action"].as_str().unwrap_or("").to_owned(), user)
        })
        .collect()
}

async fn writes_emit_quickmessage_events(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let beta = app.company("Beta").await;
    let (ana_member, ana) = member(&app, alpha, "ana@alpha.test").await;
    let shared = create(
        &app,
        &ana,
        json!({"shortcode": "oi", "message": "Oi", "geral": true}),
    )
    .await;
    let private = create(&app, &ana, json!({"shortcode": "meu", "message": "x"})).await;
    edit(
        &app,
        &ana,
        &shared,
        json!({"shortcode": "oi", "message": "Olá"}),
    )
    .await;
    assert_eq!(
        app.delete(&path(&private), &ana).await.status(),
        StatusCode::NO_CONTENT
    );
    let owner = Some(ana_member.id.0);
    assert_eq!(
        logged(&app, alpha).await,
        [
            ("create".to_owned(), None),
            ("create".to_owned(), owner),
            ("delete".to_owned(), None),
            ("update".to_owned(), owner),
            ("delete".to_owned(), owner),
        ],
        "private ones reach their owner only; unsharing is a delete for the company"
    );
    assert!(logged(&app, beta).await.is_empty());
}

async fn company_b_reaches_none_of_company_a_quick_messages(app: TestApp) {
    let alpha = app.company("Alpha").await;
    let beta = app.company("Beta").await;
    let (_ana, ana) = member(&app, alpha, "ana@alpha.test").await;
    let (_bob, bob) = member(&app, beta, "bob@beta.test").await;
    let bob_admin = admin(&app, beta, "chefe@beta.test").await;
    let shared = create(
        &app,
        &ana,
        json!({"shortcode": "oi", "message": "Oi", "geral": true}),
    )
    .await;
    json_of(
        upload(
            &app,
            &ana,
            &shared,
            "a.png",
            "image/png",
            b"\x89PNG".to_vec(),
        )
        .await,
        StatusCode::OK,
    )
    .await;
    for token in [&bob, &bob_admin] {
        let list = json_of(
            app.get(&format!("/quick-messages?companyId={alpha}"), token)
                .await,
            StatusCode::OK,
        )
        .await;
        assert_eq!(list["count"], 0);
        let list = json_of(app.get("/quick-messages/list", token).await, StatusCode::OK).await;
        assert_eq!(list, json!([]));
        for response in [
            app.get(&path(&shared), token).await,
            app.put(
                &path(&shared),
                token,
                &json!({"shortcode": "x", "message": "x"}),
            )
            .await,
            app.delete(&path(&shared), token).await,
            app.get(&format!("{}/media", path(&shared)), token).await,
            app.delete(&format!("{}/media-upload", path(&shared)), token)
                .await,
            upload(
                &app,
                token,
                &shared,
                "b.png",
                "image/png",
                b"\x89PNG".to_vec(),
            )
            .await,
        ] {
            assert_not_found(response).await;
        }
    }
    // Bob's own shortcode "oi" is no clash with Alpha's.
    create(
        &app,
        &bob,
        json!({"shortcode": "oi", "message": "Beta", "geral": true}),
    )
    .await;
    let kept = json_of(app.get(&path(&shared), &ana).await, StatusCode::OK).await;
    assert_eq!(kept["message"], "Oi");
    assert_eq!(kept["mediaName"], "a.png");
}

/// Many creates of one shortcode at the same moment, shared and private, by the same user and by
/// colleagues: the store's unique indexes let exactly one shared one and one per owner through,
/// and every other answer is 409 `ERR_QUICK_MESSAGE_SHORTCODE_EXISTS` (never a 500).
async fn concurrent_creates_of_one_shortcode_keep_one(app: TestApp) {
    let company = app.company("Alpha").await;
    let (_, ana) = member(&app, company, "ana@alpha.test").await;
    let (_, bia) = member(&app, company, "bia@alpha.test").await;
    const TRIES: usize = 12;

    // One user, the same private shortcode, in different cases: one wins.
    let (won, lost) = race(&app, &ana, TRIES, |i| {
        json!({"shortcode": if i % 2 == 0 { "promo" } else { "PROMO" }, "message": format!("v{i}")})
    })
    .await;
    assert_eq!((won, lost), (1, TRIES - 1));

    // Two users creating a shared shortcode at once: one shared message in the company.
    let mut shared = Vec::new();
    for i in 0..TRIES {
        let token = if i % 2 == 0 { ana.clone() } else { bia.clone() };
        let app = &app;
        shared.push(async move {
            app.post(
                "/quick-messages",
                &token,
                &json!({"shortcode": "todos", "message": format!("v{i}"), "geral": true}),
            )
            .await
        });
    }
    let (won, lost) = tally(futures::future::join_all(shared).await).await;
    assert_eq!((won, lost), (1, TRIES - 1));

    let listed = json_of(app.get("/quick-messages/list", &bia).await, StatusCode::OK).await;
    let todos = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter(|m| {
            m["shortcode"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("todos"))
        })
        .count();
    assert_eq!(todos, 1, "{listed}");
}

/// `tries` concurrent creates by `token`; answers (successes, conflicts).
async fn race(
    app: &TestApp,
    token: &str,
    tries: usize,
    body: impl Fn(usize) -> Value,
) -> (usize, usize) {
    let calls = (0..tries).map(|i| {
        let body = body(i);
        async move { app.post("/quick-messages", token, &body).await }
    });
    tally(futures::future::join_all(calls).await).await
}

/// Counts successes and `409 ERR_QUICK_MESSAGE_SHORTCODE_EXISTS`; anything else fails the test.
async fn tally(responses: Vec<reqwest::Response>) -> (usize, usize) {
    let (mut won, mut lost) = (0, 0);
    for response in responses {
        let status = response.status();
        if status.is_success() {
            won += 1;
            continue;
        }
        let (status, code) = crate::helpers::error_of(response).await;
        assert_eq!(
            (status, code.as_str()),
            (StatusCode::CONFLICT, "ERR_QUICK_MESSAGE_SHORTCODE_EXISTS")
        );
        lost += 1;
    }
    (won, lost)
}
