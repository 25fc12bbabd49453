//! Uploads within their limits, on both engines: spreadsheet bombs (an xlsx whose cells sit at
//! the corners of the largest grid, a sheet that inflates far past the decompression bound, an
//! entry past the row or column bounds) are refused with a 4xx and the server keeps answering;
//! staged uploads are per company (another company's uploads never evict them, and another
//! company can neither import nor see them) and taken once.

use std::io::{Cursor, Read, Write};

use chatflow_core::limits::{
    SPREADSHEET_MAX_BYTES, SPREADSHEET_MAX_DECOMPRESSED_BYTES, STAGED_UPLOADS_PER_COMPANY,
};
use reqwest::StatusCode;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use zip::write::SimpleFileOptions;

use crate::app_tests;
use crate::helpers::{MemberOptions, TestApp, assert_error, json_of};

app_tests!(
    spreadsheet_bombs_are_refused_and_the_server_keeps_answering,
    staged_uploads_are_kept_per_company_and_taken_once,
);

async fn user_of(app: &TestApp, name: &str) -> String {
    let company = app.company(name).await;
    let member = app
        .member(
            company,
            &format!("ana@{}.test", name.to_lowercase()),
            MemberOptions::default(),
        )
        .await;
    app.token_of(&member).await
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

/// A real xlsx (from the writer) whose first sheet is replaced by `sheet`, which writes the
/// sheet's XML into the zip entry (in pieces, so a huge sheet never sits in memory).
fn xlsx_with_sheet(sheet: impl FnOnce(&mut dyn Write)) -> Vec<u8> {
    let mut sheet = Some(sheet);
    let base = chatflow_system::spreadsheet::xlsx(&["name".to_owned()], &[]).expect("a workbook");
    let mut source = zip::ZipArchive::new(Cursor::new(base)).expect("a zip");
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for i in 0..source.len() {
        let mut entry = source.by_index(i).expect("an entry");
        let name = entry.name().expect("a name").into_owned();
        out.start_file(name.as_str(), options).expect("started");
        if name == "xl/worksheets/sheet1.xml"
            && let Some(sheet) = sheet.take()
        {
            sheet(&mut out);
        } else {
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).expect("read");
            out.write_all(&bytes).expect("written");
        }
    }
    out.finish().expect("finished").into_inner()
}

const SHEET_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">"#;

/// A sheet with cells at `cells` (reference, number) and the given `<dimension>`.
fn sheet_xml(dimension: &str, cells: &[(&str, u32, &str)]) -> String {
    let mut xml = format!("{SHEET_HEAD}<dimension ref=\"{dimension}\"/><sheetData>");
    for (reference, row, value) in cells {
        xml.push_str(&format!(
            "<row r=\"{row}\"><c r=\"{reference}\" t=\"inlineStr\"><is><t>{value}</t></is></c></row>"
        ));
    }
    xml.push_str("</sheetData></worksheet>");
    xml
}

async fn still_answers(app: &TestApp, token: &str) {
    let csv = "name,number\nAna,5511955550009\n";
    let ok = json_of(
        upload(app, token, "ok.csv", csv.as_bytes().to_vec()).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(ok["total"], 1);
}

async fn spreadsheet_bombs_are_refused_and_the_server_keeps_answering(app: TestApp) {
    let user = user_of(&app, "Alpha").await;

    // Cells at A1 and at the last cell of the largest grid (16 384 columns x 1 048 576 rows),
    // with a dimension to match: a 1.5 KB file that a grid reader would size at 512 GiB.
    let corners = xlsx_with_sheet(|w| {
        let xml = sheet_xml(
            "A1:XFD1048576",
            &[("A1", 1, "name"), ("XFD1048576", 1_048_576, "boom")],
        );
        w.write_all(xml.as_bytes()).expect("written");
    });
    assert!(corners.len() < 16 * 1024, "{} bytes", corners.len());
    assert_error(
        upload(&app, &user, "bomb.xlsx", corners).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;
    still_answers(&app, &user).await;

    // Far rows within the columns, or far columns within the rows: refused as well.
    for (reference, row) in [("A60000", 60_000), ("ZZ2", 2)] {
        let far = xlsx_with_sheet(|w| {
            let xml = sheet_xml("A1:A1", &[("A1", 1, "name"), (reference, row, "x")]);
            w.write_all(xml.as_bytes()).expect("written");
        });
        assert_error(
            upload(&app, &user, "far.xlsx", far).await,
            StatusCode::PAYLOAD_TOO_LARGE,
            "ERR_PAYLOAD_TOO_LARGE",
        )
        .await;
    }

    // A sheet that inflates past the decompression bound (whitespace compresses ~1000:1): refused
    // from the zip's declared sizes, before anything is inflated.
    let inflated = xlsx_with_sheet(|w| {
        w.write_all(SHEET_HEAD.as_bytes()).expect("written");
        w.write_all(
            b"<sheetData><row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>name</t></is></c></row>",
        )
        .expect("written");
        let spaces = vec![b' '; 1024 * 1024];
        for _ in 0..(SPREADSHEET_MAX_DECOMPRESSED_BYTES / (1024 * 1024) + 8) {
            w.write_all(&spaces).expect("written");
        }
        w.write_all(b"</sheetData></worksheet>").expect("written");
    });
    assert!(
        (inflated.len() as u64) < SPREADSHEET_MAX_BYTES,
        "{} bytes",
        inflated.len()
    );
    assert_error(
        upload(&app, &user, "inflated.xlsx", inflated).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;
    still_answers(&app, &user).await;

    // A file past the spreadsheet size: refused while it is read.
    let big = vec![b'a'; SPREADSHEET_MAX_BYTES as usize + 1];
    assert_error(
        upload(&app, &user, "big.csv", big).await,
        StatusCode::PAYLOAD_TOO_LARGE,
        "ERR_PAYLOAD_TOO_LARGE",
    )
    .await;

    // A sparse sheet within the bounds is read, its gaps as empty rows.
    let sparse = xlsx_with_sheet(|w| {
        let xml = sheet_xml(
            "A1:B30",
            &[("A1", 1, "name"), ("B1", 1, "number"), ("A30", 30, "Ana")],
        );
        w.write_all(xml.as_bytes()).expect("written");
    });
    let preview = json_of(
        upload(&app, &user, "sparse.xlsx", sparse).await,
        StatusCode::OK,
    )
    .await;
    assert_eq!(preview["columns"], json!(["name", "number"]));
    assert_eq!(preview["total"], 29);
    assert_eq!(preview["rows"][28], json!(["Ana"]));
    still_answers(&app, &user).await;
}

async fn stage(app: &TestApp, token: &str, number: &str) -> String {
    let csv = format!("name,number\nAna {number},{number}\n");
    let preview: Value = json_of(
        upload(app, token, "list.csv", csv.into_bytes()).await,
        StatusCode::OK,
    )
    .await;
    preview["token"].as_str().expect("a token").to_owned()
}

async fn import(app: &TestApp, user: &str, token: &str) -> reqwest::Response {
    app.post(
        "/contactsImport",
        user,
        &json!({"token": token, "mapping": {"name": "name", "number": "number"}}),
    )
    .await
}

async fn staged_uploads_are_kept_per_company_and_taken_once(app: TestApp) {
    let alpha = user_of(&app, "Alpha").await;
    let beta = user_of(&app, "Beta").await;
    let alpha_token = stage(&app, &alpha, "5511955550001").await;

    // Beta stages 65 uploads, more than a company keeps and more than the 64 that one map
    // shared by every company used to hold: Beta's own oldest go, Alpha's stays.
    let mut beta_tokens = Vec::new();
    for i in 0..65 {
        beta_tokens.push(stage(&app, &beta, &format!("55119666600{i:02}")).await);
    }

    // Beta can neither import Alpha's upload nor use it up.
    assert_error(
        import(&app, &beta, &alpha_token).await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_FILE",
    )
    .await;

    // Alpha imports its upload, once.
    let report = json_of(import(&app, &alpha, &alpha_token).await, StatusCode::OK).await;
    assert_eq!(report["imported"], 1);
    assert_error(
        import(&app, &alpha, &alpha_token).await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_FILE",
    )
    .await;

    // Beta's oldest were dropped for room; its newest are there, and Alpha cannot import them.
    let dropped = beta_tokens.len() - STAGED_UPLOADS_PER_COMPANY as usize;
    for token in &beta_tokens[..dropped] {
        assert_error(
            import(&app, &beta, token).await,
            StatusCode::BAD_REQUEST,
            "ERR_INVALID_FILE",
        )
        .await;
    }
    let newest = beta_tokens.last().expect("a token");
    assert_error(
        import(&app, &alpha, newest).await,
        StatusCode::BAD_REQUEST,
        "ERR_INVALID_FILE",
    )
    .await;
    for token in &beta_tokens[dropped..] {
        let report = json_of(import(&app, &beta, token).await, StatusCode::OK).await;
        assert_eq!(report["imported"], 1);
    }
    // Alpha's contact is Alpha's alone.
    let alpha_contacts = json_of(app.get("/contacts", &alpha).await, StatusCode::OK).await;
    assert_eq!(alpha_contacts["count"], 1);
}
