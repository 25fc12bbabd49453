//! `chatflow contacts ...` run for real against a temporary SQLite file: importing an xlsx and a
//! csv, listing with a search, exporting, and refusing an unreadable file.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn chatflow(dir: &Path, database_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chatflow"))
        .args(args)
        .current_dir(dir)
        .env("DATABASE_URL", database_url)
        .env("CHATFLOW_MEDIA_DIR", dir.join("media"))
        .env_remove("CHATFLOW_ADMIN_EMAIL")
        .env_remove("CHATFLOW_ADMIN_PASSWORD")
        .output()
        .expect("the binary runs")
}

fn json(dir: &Path, database_url: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = chatflow(dir, database_url, &all);
    assert!(
        out.status.success(),
        "chatflow {all:?} failed with {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn strings(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| (*c).to_owned()).collect()
}

#[test]
fn imports_lists_and_exports_contacts() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = common::sqlite_url(dir.path());
    json(dir.path(), &url, &["migrate"]);

    let header = strings(&["Cliente", "Celular", "Email"]);
    let rows = vec![
        strings(&["João Souza", "+55 11 98888-0001", "joao@example.com"]),
        strings(&["Maria", "5511988880002", ""]),
        strings(&["", "5511988880003", ""]),
        strings(&["Zé", "12", ""]),
    ];
    let xlsx = chatflow_system::spreadsheet::xlsx(&header, &rows).expect("xlsx");
    let file = dir.path().join("contatos.xlsx");
    std::fs::write(&file, xlsx).expect("written");
    let path = file.to_string_lossy().into_owned();
    let report = json(
        dir.path(),
        &url,
        &[
            "contacts",
            "import",
            &path,
            "--company",
            "1",
            "--name-column",
            "Cliente",
            "--number-column",
            "Celular",
        ],
    );
    assert_eq!(report["imported"], 2);
    assert_eq!(report["ignored"], 1);
    assert_eq!(report["failed"], 1);
    assert_eq!(report["errors"][0]["row"], 4);

    // A csv whose headers the importer recognises by itself; the progress bar does not break
    // the plain output.
    let csv = dir.path().join("mais.csv");
    std::fs::write(&csv, "Nome,Número\nAna,5511988880004\n").expect("written");
    let out = chatflow(
        dir.path(),
        &url,
        &[
            "contacts",
            "import",
            &csv.to_string_lossy(),
            "--company",
            "1",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("imported 1, ignored 0"), "{text}");

    let found = json(
        dir.path(),
        &url,
        &["contacts", "list", "--company", "1", "--search", "joao"],
    );
    assert_eq!(found.as_array().expect("a list").len(), 1);
    assert_eq!(found[0]["name"], "João Souza");
    assert_eq!(found[0]["number"], "5511988880001");
    let all = json(dir.path(), &url, &["contacts", "list", "--company", "1"]);
    let names: Vec<&str> = all
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["Ana", "João Souza", "Maria"]);

    let export = dir.path().join("export.xlsx");
    let done = json(
        dir.path(),
        &url,
        &[
            "contacts",
            "export",
            "--company",
            "1",
            "--output",
            &export.to_string_lossy(),
        ],
    );
    assert_eq!(done["exported"], 3);
    let bytes = std::fs::read(&export).expect("exported file");
    let sheet = chatflow_system::spreadsheet::read("export.xlsx", &bytes).expect("readable");
    assert_eq!(sheet.len(), 3);

    // An unreadable file is refused with the catalogue code and exit code 1.
    let bad = dir.path().join("notes.pdf");
    std::fs::write(&bad, b"%PDF-1.4").expect("written");
    let out = chatflow(
        dir.path(),
        &url,
        &[
            "contacts",
            "import",
            &bad.to_string_lossy(),
            "--company",
            "1",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_INVALID_FILE"));
    // An unknown company too.
    let out = chatflow(dir.path(), &url, &["contacts", "list", "--company", "999"]);
    assert_eq!(out.status.code(), Some(1));
}
