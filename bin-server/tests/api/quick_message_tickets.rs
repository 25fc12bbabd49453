//! Quick messages in a ticket, over HTTP on both engines with the sandbox channel: the "/" list
//! with its variables filled for a ticket (and another company's ticket refused), and a quick
//! message's image reaching the phone as an image.

use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::json;

use crate::helpers::{TestApp, assert_error, json_of};
use crate::quick_messages::{create, path, upload};
use crate::tickets::inbox_tests;

inbox_tests!(
    variables_are_filled_for_a_ticket_of_the_callers_company,
    an_image_quick_message_reaches_the_phone_as_an_image,
);

/// `GET /quick-messages/list?ticketId=` fills `{{name}}`, `{{firstName}}`, `{{queue}}`,
/// `{{protocol}}` and `{{user}}` for the ticket and keeps unknown variables; a ticket of another
/// company answers 404 and fills nothing.
async fn variables_are_filled_for_a_ticket_of_the_callers_company(app: TestApp) {
    let a = crate::tickets::inbox(&app, "Alpha").await;
    let b = crate::tickets::inbox(&app, "Beta").await;
    let (ticket, _) = crate::messages::accepted_ticket(&app, &a, "5511987660101").await;
    create(
        &app,
        &a.admin,
        json!({
            "shortcode": "ola",
            "geral": true,
            "message": "Olá {{firstName}} ({{name}}), sou {{user}}. Protocolo {{protocol}}{{queue}}. {{desconhecida}}"
        }),
    )
    .await;
    // The admin of the inbox fixture is named after their e-mail, boss@alpha.test.
    let admin_name = "boss";
    let filled = json_of(
        app.get(&format!("/quick-messages/list?ticketId={ticket}"), &a.admin)
            .await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(
        filled[0]["message"],
        format!(
            "Olá Contact (Contact 5511987660101), sou {admin_name}. Protocolo {ticket}. {{{{desconhecida}}}}"
        )
    );
    // Without a ticket the text is as stored.
    let raw = json_of(
        app.get("/quick-messages/list", &a.admin).await,
        StatusCode::OK,
    )
    .await;
    assert!(
        raw[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Olá {{firstName}}"))
    );
    // Company B names A's ticket: not found, and nothing of A's leaks.
    assert_error(
        app.get(&format!("/quick-messages/list?ticketId={ticket}"), &b.admin)
            .await,
        StatusCode::NOT_FOUND,
        "ERR_NO_TICKET_FOUND",
    )
    .await;
}

/// A quick message's image, fetched back as the ticket input does and sent in the ticket,
/// reaches the phone as an image with its MIME type; a file declared with the generic type is
/// typed by its name.
async fn an_image_quick_message_reaches_the_phone_as_an_image(app: TestApp) {
    let a = crate::tickets::inbox(&app, "Alpha").await;
    let number = "5511987660102";
    let (ticket, _) = crate::messages::accepted_ticket(&app, &a, number).await;
    let quick = create(
        &app,
        &a.admin,
        json!({"shortcode": "foto", "geral": true, "isMedia": true}),
    )
    .await;
    let png = b"\x89PNG\r\n\x1a\n0000".to_vec();
    json_of(
        upload(&app, &a.admin, &quick, "foto.png", "image/png", png.clone()).await,
        StatusCode::OK,
    )
    .await;
    let served = app.get(&format!("{}/media", path(&quick)), &a.admin).await;
    let served_type = served
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(served_type, "image/png");
    let bytes = served.bytes().await.expect("bytes").to_vec();
    for (name, declared) in [
        ("foto.png", served_type.as_str()),
        ("outra.png", "application/octet-stream"),
    ] {
        let form = Form::new().part(
            "medias",
            Part::bytes(bytes.clone())
                .file_name(name.to_owned())
                .mime_str(declared)
                .expect("mime"),
        );
        let sent = json_of(
            app.client
                .post(app.url(&format!("/messages/{ticket}")))
                .bearer_auth(&a.admin)
                .multipart(form)
                .send()
                .await
                .expect("sent"),
            StatusCode::OK,
        )
        .await;
        assert_eq!(sent["mediaType"], "image", "{name} as {declared}");
    }
    let mut received = Vec::new();
    for _ in 0..100 {
        received = json_of(
            app.get(
                &format!("/sandbox/{}/inbox?to={number}", a.connection),
                &a.admin,
            )
            .await,
            StatusCode::OK,
        )
        .await
        .as_array()
        .cloned()
        .unwrap_or_default();
        if received.len() >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(received.len(), 2, "{received:?}");
    for item in &received {
        let media = &item["content"]["media"];
        assert_eq!(media["mediaType"], "image", "{item}");
        assert_eq!(media["mimeType"], "image/png", "{item}");
    }
}
