//! `chatflow flow export|import` run for real against a temporary SQLite file: a round trip
//! through a file and standard output, renaming on import, and the refusals (another format,
//! an unknown flow or company).

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

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

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed with {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn file() -> Value {
    json!({
        "format": "chatflow-flow",
        "version": 1,
        "name": "Boas-vindas",
        "flow": {
            "nodes": [
                {"id": "1", "type": "start", "position": {"x": 0.0, "y": 0.0}, "data": {"label": "Início"}},
                {"id": "m", "type": "message", "position": {"x": 0.0, "y": 120.0}, "data": {"label": "Olá, {{name}}!"}},
            ],
            "connections": [{"id": "e1", "source": "1", "target": "m"}],
        },
    })
}

#[test]
fn flows_round_trip_through_files() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = common::sqlite_url(dir.path());
    ok(chatflow(dir.path(), &url, &["migrate"]), "migrate");
    let source = dir.path().join("in.json");
    std::fs::write(&source, file().to_string()).expect("written");
    let source = source.display().to_string();

    let created: Value = serde_json::from_str(&ok(
        chatflow(
            dir.path(),
            &url,
            &["--json", "flow", "import", "--company", "1", &source],
        ),
        "import",
    ))
    .expect("JSON");
    assert_eq!(created["name"], "Boas-vindas");
    assert_eq!(created["hasDraft"], true);
    assert_eq!(created["publishedVersion"], Value::Null);
    let id = created["id"].as_i64().expect("an id").to_string();

    let target = dir.path().join("out.json");
    let target_path = target.display().to_string();
    ok(
        chatflow(
            dir.path(),
            &url,
            &[
                "flow",
                "export",
                "--company",
                "1",
                "--flow",
                &id,
                &target_path,
            ],
        ),
        "export to a file",
    );
    let exported: Value =
        serde_json::from_str(&std::fs::read_to_string(&target).expect("read")).expect("JSON");
    assert_eq!(exported["format"], "chatflow-flow");
    assert_eq!(exported["name"], "Boas-vindas");
    assert_eq!(exported["flow"]["nodes"], file()["flow"]["nodes"]);
    assert_eq!(
        exported["flow"]["connections"][0]["target"],
        file()["flow"]["connections"][0]["target"]
    );
    let printed: Value = serde_json::from_str(&ok(
        chatflow(
            dir.path(),
            &url,
            &["flow", "export", "--company", "1", "--flow", &id],
        ),
        "export to stdout",
    ))
    .expect("JSON");
    assert_eq!(printed, exported);

    let text = ok(
        chatflow(
            dir.path(),
            &url,
            &[
                "flow",
                "import",
                "--company",
                "1",
                &target_path,
                "--name",
                "Cópia importada",
            ],
        ),
        "import with a name",
    );
    assert!(text.contains("Cópia importada"), "{text}");
}

#[test]
fn refusals_name_their_code() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = common::sqlite_url(dir.path());
    ok(chatflow(dir.path(), &url, &["migrate"]), "migrate");
    let mut other = file();
    other["format"] = json!("something-else");
    let path = dir.path().join("other.json");
    std::fs::write(&path, other.to_string()).expect("written");
    let path = path.display().to_string();
    for (args, code) in [
        (
            vec!["flow", "import", "--company", "1", path.as_str()],
            "ERR_BAD_REQUEST",
        ),
        (
            vec!["flow", "export", "--company", "1", "--flow", "42"],
            "ERR_NO_FLOW_FOUND",
        ),
        (
            vec!["flow", "export", "--company", "999", "--flow", "1"],
            "ERR_NO_COMPANY_FOUND",
        ),
    ] {
        let out = chatflow(dir.path(), &url, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(code), "{args:?}: {stderr}");
    }
}
