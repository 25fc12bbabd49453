//! The `chatflow` binary, run for real against a temporary SQLite file (and a temporary
//! PostgreSQL database when `CHATFLOW_TEST_POSTGRES_URL` is set).

mod common;

use std::process::{Command, Output};

use chatflow_core::ports::{PasswordHasher, UserRepo};
use chatflow_system::Argon2Hasher;
use serde_json::Value;

/// A scratch directory with its own database, and the binary pointed at it.
struct Cli {
    dir: tempfile::TempDir,
    database_url: String,
}

impl Cli {
    fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let database_url = common::sqlite_url(&dir.path().join("data"));
        Self { dir, database_url }
    }

    fn with_url(database_url: String) -> Self {
        Self {
            dir: tempfile::tempdir().expect("a temporary directory"),
            database_url,
        }
    }

    /// Runs `chatflow args...` in the scratch directory with this database.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_chatflow"))
            .args(args)
            .current_dir(self.dir.path())
            .env("DATABASE_URL", &self.database_url)
            .env("CHATFLOW_MEDIA_DIR", self.dir.path().join("media"))
            .env_remove("CHATFLOW_ADMIN_EMAIL")
            .env_remove("CHATFLOW_ADMIN_PASSWORD")
            .output()
            .expect("the binary runs")
    }

    /// Runs a command that must succeed and returns its standard output.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "chatflow {args:?} failed with {:?}\nstdout: {}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// Runs a `--json` command that must succeed and parses its output.
    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        serde_json::from_str(&self.ok(&all)).expect("JSON output")
    }
}

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn migrate_creates_the_database_and_seeds_once() {
    let cli = Cli::sqlite();
    let first = cli.json(&["migrate"]);
    assert_eq!(first["backend"], "sqlite");
    assert!(
        !first["appliedMigrations"]
            .as_array()
            .expect("a list")
            .is_empty()
    );
    assert_eq!(first["seed"]["adminCreated"], true);
    assert_eq!(first["seed"]["adminEmail"], "admin@chatflow.local");
    let password = first["seed"]["generatedPassword"]
        .as_str()
        .expect("a generated password");
    assert_eq!(password.len(), 16);
    assert!(cli.dir.path().join("data").join("chatflow.db").is_file());

    let second = cli.json(&["migrate"]);
    assert!(
        second["appliedMigrations"]
            .as_array()
            .expect("a list")
            .is_empty()
    );
    assert_eq!(second["seed"]["adminCreated"], false);
    assert_eq!(second["seed"]["generatedPassword"], Value::Null);

    let companies = cli.json(&["company", "list"]);
    let companies = companies.as_array().expect("a list");
    assert_eq!(companies.len(), 1);
    assert_eq!(companies[0]["id"], 1);
    assert_eq!(companies[0]["dueDate"], "2999-12-31");
    assert_eq!(companies[0]["subscription"], "active");
}

#[test]
fn migrate_takes_the_admin_credentials_from_the_environment() {
    let cli = Cli::sqlite();
    let out = Command::new(env!("CARGO_BIN_EXE_chatflow"))
        .args(["migrate", "--json"])
        .current_dir(cli.dir.path())
        .env("DATABASE_URL", &cli.database_url)
        .env("CHATFLOW_ADMIN_EMAIL", "Root@Example.com")
        .env("CHATFLOW_ADMIN_PASSWORD", "given-secret")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(report["seed"]["adminEmail"], "root@example.com");
    assert_eq!(report["seed"]["generatedPassword"], Value::Null);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("given-secret"));
}

#[test]
fn commands_refuse_a_database_without_the_schema() {
    let cli = Cli::sqlite();
    for args in [
        &["company", "list"][..],
        &["user", "list", "--company", "1"],
        &["settings", "get", "allowSignup"],
    ] {
        let out = cli.run(args);
        assert_eq!(code(&out), Some(3), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("chatflow migrate"),
            "{}",
            stderr(&out)
        );
    }
    // Nothing was migrated behind the operator's back.
    assert_eq!(code(&cli.run(&["company", "list"])), Some(3));
    cli.ok(&["migrate", "--no-seed"]);
    let companies = cli.json(&["company", "list"]);
    assert!(
        companies.as_array().expect("a list").is_empty(),
        "--no-seed seeds nothing"
    );
}

#[test]
fn company_and_user_administration() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);

    let created = cli.json(&[
        "company",
        "create",
        "--name",
        "Acme Ltd",
        "--plan",
        "1",
        "--email",
        "Billing@Acme.TEST",
        "--recurrence",
        "trimestral",
        "--due-date",
        "2025-11-30",
    ]);
    let id = created["id"].as_i64().expect("an id");
    assert_eq!(created["name"], "Acme Ltd");
    assert_eq!(created["email"], "billing@acme.test");
    assert_eq!(created["recurrence"], "TRIMESTRAL");
    assert_eq!(created["dueDate"], "2025-11-30");
    assert_eq!(created["subscription"], "expired");
    let company = id.to_string();

    let user = cli.json(&[
        "user",
        "create",
        "--company",
        &company,
        "--name",
        "Ana Souza",
        "--email",
        "Ana@Acme.test",
        "--password",
        "first-pass",
        "--profile",
        "admin",
    ]);
    assert_eq!(user["email"], "ana@acme.test");
    assert_eq!(user["profile"], "admin");
    assert_eq!(user["super"], false);
    cli.ok(&[
        "user",
        "create",
        "--company",
        &company,
        "--name",
        "Bia",
        "--email",
        "bia@acme.test",
        "--password",
        "12345",
    ]);

    let listed = cli.json(&["user", "list", "--company", &company]);
    let emails: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .map(|u| u["email"].as_str().expect("an e-mail"))
        .collect();
    assert_eq!(emails, ["ana@acme.test", "bia@acme.test"]);
    assert_eq!(listed[1]["profile"], "user", "user is the default profile");

    // The human-readable list is an aligned table with a header.
    let table = cli.ok(&["user", "list", "--company", &company]);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].starts_with("ID") && lines[0].contains("EMAIL"),
        "{table}"
    );
    assert_eq!(lines.len(), 3);
    let email_column = lines[0].find("EMAIL").expect("an EMAIL column");
    assert_eq!(
        lines[1].find("ana@acme.test"),
        Some(email_column),
        "{table}"
    );

    // Another company's users are not listed.
    let platform_users = cli.json(&["user", "list", "--company", "1"]);
    assert!(
        platform_users
            .as_array()
            .expect("a list")
            .iter()
            .all(|u| u["companyId"] == 1)
    );

    // Renewal moves the due date by the recurrence (three months, end-of-month safe).
    let renewal = cli.json(&["company", "renew", &company]);
    assert_eq!(renewal["oldDueDate"], "2025-11-30");
    assert_eq!(renewal["newDueDate"], "2026-02-28");
    let companies = cli.json(&["company", "list"]);
    let acme = companies
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["id"] == id)
        .expect("listed");
    assert_eq!(acme["dueDate"], "2026-02-28");
}

#[test]
fn renew_all_due_renews_each_past_due_company_once() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);
    let past = cli.json(&[
        "company",
        "create",
        "--name",
        "Late Co",
        "--plan",
        "1",
        "--due-date",
        "2020-01-31",
    ]);
    let future = cli.json(&[
        "company",
        "create",
        "--name",
        "Paid Co",
        "--plan",
        "1",
        "--due-date",
        "2999-01-01",
    ]);

    let renewals = cli.json(&["company", "renew", "--all-due"]);
    let renewals = renewals.as_array().expect("a list");
    assert_eq!(renewals.len(), 1, "{renewals:?}");
    assert_eq!(renewals[0]["companyId"], past["id"]);
    assert_eq!(renewals[0]["oldDueDate"], "2020-01-31");
    assert_eq!(renewals[0]["newDueDate"], "2020-02-29");

    let companies = cli.json(&["company", "list"]);
    let due_of = |id: &Value| {
        companies
            .as_array()
            .expect("a list")
            .iter()
            .find(|c| &c["id"] == id)
            .expect("listed")["dueDate"]
            .clone()
    };
    assert_eq!(due_of(&future["id"]), "2999-01-01");
    assert_eq!(
        due_of(&Value::from(1)),
        "2999-12-31",
        "company 1 is never renewed"
    );

    let text = cli.ok(&["company", "renew", "--all-due"]);
    assert!(
        text.contains("2020-02-29") && text.contains("2020-03-29"),
        "{text}"
    );
}

#[test]
fn settings_get_and_set() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);
    let default = cli.json(&["settings", "get", "allowSignup"]);
    assert_eq!(default["key"], "allowSignup");
    assert_eq!(default["value"], "enabled");
    cli.ok(&["settings", "set", "allowSignup", "disabled"]);
    assert_eq!(
        cli.json(&["settings", "get", "allowSignup"])["value"],
        "disabled"
    );

    cli.ok(&["settings", "set", "userRating", "enabled", "--company", "1"]);
    let company = cli.json(&["settings", "get", "userRating", "--company", "1"]);
    assert_eq!(company["value"], "enabled");
    assert_eq!(company["companyId"], 1);

    // A company key without --company, and a platform key with it, are refused.
    let out = cli.run(&["settings", "get", "userRating"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_INVALID_SETTING"),
        "{}",
        stderr(&out)
    );
    let out = cli.run(&[
        "settings",
        "set",
        "allowSignup",
        "enabled",
        "--company",
        "1",
    ]);
    assert_eq!(code(&out), Some(1));
    // Unknown keys and companies.
    let out = cli.run(&["settings", "get", "noSuchKey"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_NO_SETTING_FOUND"),
        "{}",
        stderr(&out)
    );
    let out = cli.run(&["settings", "get", "userRating", "--company", "99"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_NO_COMPANY_FOUND"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_values_give_the_documented_exit_codes() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);

    // Usage errors (clap): exit code 2.
    for args in [
        &[
            "company",
            "create",
            "--name",
            "Acme",
            "--plan",
            "1",
            "--recurrence",
            "WEEKLY",
        ][..],
        &[
            "company",
            "create",
            "--name",
            "Acme",
            "--plan",
            "1",
            "--due-date",
            "31/01/2026",
        ],
        &["user", "list", "--company", "abc"],
        &["company", "renew"],
        &["company", "renew", "2", "--all-due"],
        &["no-such-command"],
    ] {
        let out = cli.run(args);
        assert_eq!(code(&out), Some(2), "{args:?}: {}", stderr(&out));
    }

    // Values the core refuses: exit code 1 with the catalogue code.
    let out = cli.run(&[
        "settings",
        "set",
        "userRating",
        "sometimes",
        "--company",
        "1",
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_INVALID_SETTING"),
        "{}",
        stderr(&out)
    );

    let out = cli.run(&["company", "create", "--name", "A", "--plan", "1", "--json"]);
    assert_eq!(code(&out), Some(1));
    let error: Value = serde_json::from_str(stderr(&out).trim()).expect("a JSON error");
    assert_eq!(error["error"], "ERR_VALIDATION");
    assert_eq!(error["fields"][0]["field"], "name");
    assert_eq!(error["fields"][0]["code"], "TOO_SHORT");

    let out = cli.run(&["company", "create", "--name", "Acme", "--plan", "77"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_NO_PLAN_FOUND"),
        "{}",
        stderr(&out)
    );

    let out = cli.run(&["company", "renew", "77"]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_NO_COMPANY_FOUND"),
        "{}",
        stderr(&out)
    );

    let out = cli.run(&[
        "user",
        "create",
        "--company",
        "1",
        "--name",
        "Dup",
        "--email",
        "ADMIN@chatflow.local",
        "--password",
        "12345",
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_DUPLICATED_EMAIL"),
        "{}",
        stderr(&out)
    );

    let out = cli.run(&[
        "user",
        "create",
        "--company",
        "1",
        "--name",
        "Short",
        "--email",
        "s@x.test",
        "--password",
        "1234",
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_VALIDATION") && stderr(&out).contains("password"),
        "{}",
        stderr(&out)
    );

    let out = cli.run(&[
        "user",
        "set-password",
        "--email",
        "nobody@x.test",
        "--password",
        "12345",
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("ERR_NO_USER_FOUND"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unreachable_databases_exit_with_code_3() {
    let cli = Cli::with_url("postgres://postgres@127.0.0.1:1/none".into());
    let out = cli.run(&["company", "list"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    let out = cli.run(&["migrate"]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    let cli = Cli::with_url("mysql://root@localhost/db".into());
    assert_eq!(code(&cli.run(&["company", "list"])), Some(3));
}

#[tokio::test]
async fn set_password_changes_what_signs_in() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);
    cli.ok(&[
        "user",
        "create",
        "--company",
        "1",
        "--name",
        "Carla",
        "--email",
        "carla@x.test",
        "--password",
        "old-pass",
    ]);
    let text = cli.ok(&[
        "user",
        "set-password",
        "--email",
        "CARLA@x.test",
        "--password",
        "new-pass",
    ]);
    assert!(text.contains("carla@x.test"), "{text}");

    let store = chatflow_wiring::Wiring::new()
        .connect(&cli.database_url)
        .await
        .expect("the database opens");
    let login = store
        .find_for_login("carla@x.test")
        .await
        .expect("read")
        .expect("the user");
    let hasher = Argon2Hasher::new();
    assert!(hasher.verify("new-pass", &login.password_hash).await);
    assert!(!hasher.verify("old-pass", &login.password_hash).await);
    store.close().await;
}

#[tokio::test]
async fn works_on_postgres_too() {
    common::on_throwaway_postgres("chatflow_cli_test", |url| async move {
        tokio::task::spawn_blocking(move || {
            let cli = Cli::with_url(url);
            assert_eq!(
                code(&cli.run(&["company", "list"])),
                Some(3),
                "no schema yet"
            );
            let report = cli.json(&["migrate"]);
            assert_eq!(report["backend"], "postgres");
            let created = cli.json(&[
                "company",
                "create",
                "--name",
                "Pg Co",
                "--plan",
                "1",
                "--due-date",
                "2026-01-31",
            ]);
            assert_eq!(created["id"], 2);
            let renewal = cli.json(&["company", "renew", "2"]);
            assert_eq!(renewal["newDueDate"], "2026-02-28");
            cli.ok(&[
                "user",
                "create",
                "--company",
                "2",
                "--name",
                "Pg User",
                "--email",
                "pg@x.test",
                "--password",
                "12345",
            ]);
            let users = cli.json(&["user", "list", "--company", "2"]);
            assert_eq!(users[0]["email"], "pg@x.test");
        })
        .await
        .unwrap_or_else(|failure| std::panic::resume_unwind(failure.into_panic()));
    })
    .await;
}

#[test]
fn a_mail_configuration_the_server_would_refuse_is_refused() {
    let cli = Cli::sqlite();
    cli.ok(&["migrate"]);
    let out = cli.run(&[
        "company",
        "list",
        "--smtp-url",
        "smtp://mailer:s3cret@mail.test:25?tls=maybe",
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ERR_MAIL_NOT_CONFIGURED"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("s3cret"), "{}", stderr(&out));
    let out = cli.run(&["company", "list", "--mail-from", "not an address"]);
    assert_eq!(code(&out), Some(0), "the sender only matters with SMTP");
    let out = cli.run(&[
        "company",
        "list",
        "--smtp-url",
        "smtp://mail.test:25",
        "--mail-from",
        "not an address",
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    // A valid configuration is taken; nothing is contacted until mail is sent.
    cli.ok(&["company", "list", "--smtp-url", "smtp://mail.test:25"]);
}
