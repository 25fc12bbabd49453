//! Contact uploads keep the server's memory bounded.
//!
//! The real `chatflow-server` binary runs on a SQLite file. A ~20 MB CSV of one-character cells
//! (over the spreadsheet size limit, under the body limit) and a CSV at the cell bound (50 000
//! data rows of 19 one-character cells: 950 019 cells) are uploaded fifteen times each. The large
//! one is refused (413 `ERR_PAYLOAD_TOO_LARGE`) every time, the other is accepted every time, and
//! the child's peak resident memory (`VmHWM` in `/proc/<pid>/status`) stays under 300 MiB: the
//! server starts at a few tens of MiB, a spreadsheet request holds at most its body (16 MiB), the
//! compact sheet (about its text plus eight bytes a cell: ~9 MiB here) and its stored form, and
//! at most two are parsed at once; the company keeps at most five staged uploads, so repeated
//! rounds level off (measured: about 190 MiB anonymous and 245 MiB peak from the tenth round
//! on). Before the limits, one such 20 MB upload kept ~560 MiB
//! resident and three reached 1.7 GiB.

mod process;

use std::time::Duration;

use process::Server;
use reqwest::multipart::{Form, Part};
use reqwest::{Client, StatusCode};
use serde_json::Value;

const ADMIN_EMAIL: &str = "memory@chatflow.test";
const ADMIN_PASSWORD: &str = "Memory-password-1";
/// The bound on the child's peak resident memory.
const PEAK_BOUND_MIB: u64 = 300;

/// A field of `/proc/<pid>/status` in MiB (`VmRSS`, `VmHWM`).
fn memory_mib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the status");
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field}"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib / 1024
}

/// A CSV of `columns` one-character cells per row, `rows` rows after the header.
fn csv(columns: usize, rows: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((rows + 1) * columns * 2);
    let header: Vec<String> = (0..columns).map(|i| format!("c{i}")).collect();
    out.extend_from_slice(header.join(",").as_bytes());
    out.push(b'\n');
    let row = vec!["x"; columns].join(",");
    for _ in 0..rows {
        out.extend_from_slice(row.as_bytes());
        out.push(b'\n');
    }
    out
}

async fn upload(
    client: &Client,
    server: &Server,
    token: &str,
    bytes: Vec<u8>,
) -> (StatusCode, Value) {
    let part = Part::bytes(bytes).file_name("contacts.csv");
    let response = client
        .post(format!("{}/contacts/upload", server.base))
        .bearer_auth(token)
        .multipart(Form::new().part("file", part))
        .timeout(Duration::from_secs(120))
        .send()
        .await
        .expect("the server answers");
    let status = response.status();
    let body = response.json::<Value>().await.expect("JSON");
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn contact_uploads_keep_the_server_memory_bounded() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = process::sqlite_url(dir.path());
    let server = Server::start(dir.path(), &url, (ADMIN_EMAIL, ADMIN_PASSWORD), &[]).await;
    let pid = server.pid();
    let client = process::client();
    let token = server.login(&client).await;

    // 32 one-character cells a row, 64 bytes a row: 20 000 064 bytes.
    let large = csv(32, 312_500);
    assert!(large.len() >= 20_000_000 && large.len() < 20 * 1024 * 1024 - 4096);
    let at_bound = csv(19, 50_000);
    eprintln!(
        "start: VmRSS {} MiB (anonymous {} MiB, file-backed {} MiB), VmHWM {} MiB",
        memory_mib(pid, "VmRSS"),
        memory_mib(pid, "RssAnon"),
        memory_mib(pid, "RssFile"),
        memory_mib(pid, "VmHWM")
    );
    for round in 1..=15 {
        let (status, body) = upload(&client, &server, &token, large.clone()).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
        assert_eq!(body["error"], "ERR_PAYLOAD_TOO_LARGE");
        let (status, body) = upload(&client, &server, &token, at_bound.clone()).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["total"], 50_000);
        assert_eq!(body["columns"].as_array().map(Vec::len), Some(19));
        eprintln!(
            "after round {round} (one 20 MB CSV refused, one of 950 019 cells staged): \
             VmRSS {} MiB (anonymous {} MiB, file-backed {} MiB), VmHWM {} MiB",
            memory_mib(pid, "VmRSS"),
            memory_mib(pid, "RssAnon"),
            memory_mib(pid, "RssFile"),
            memory_mib(pid, "VmHWM")
        );
    }
    let peak = memory_mib(pid, "VmHWM");
    assert!(
        peak < PEAK_BOUND_MIB,
        "peak resident memory {peak} MiB, bound {PEAK_BOUND_MIB} MiB"
    );
    let health = client
        .get(format!("{}/health", server.base))
        .send()
        .await
        .expect("answers");
    assert_eq!(health.status(), StatusCode::OK);
}
