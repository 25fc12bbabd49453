//! `cargo xtask test` and PostgreSQL: with PostgreSQL required and unreachable, the command
//! fails at once with a message that says so, before any slow step; with it reachable, the
//! engine count after the Rust tests fails the run when a test skipped PostgreSQL or none ran on
//! it, and is printed either way.
//!
//! The binary runs with a `PATH` holding at most a fake `cargo` ([`fake_cargo`]): should a check
//! ever let a run go on, the next step fails to start (or is refused by the fake) instead of
//! running the real suite. Each run has a target directory of its own, so the engine log of the
//! run around these tests is never touched.
#![cfg(unix)]

use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const UNREACHABLE: &str = "postgres://postgres@127.0.0.1:1/postgres";

/// Writes a `cargo` into `bin` for which `fmt`, `tree` (an empty listing) and `clippy` pass, `test` prints the PostgreSQL
/// variables it was given and appends `log` (engine log lines) to `CHATFLOW_TEST_ENGINE_LOG`,
/// and anything else fails, so a run stops at the step after the Rust tests.
fn fake_cargo(bin: &Path, log: &[&str]) {
    let lines: String = log.iter().map(|line| format!("{line}\n")).collect();
    let script = format!(
        "#!/bin/sh\n\
         case \"$1\" in\n\
         fmt|tree|clippy) exit 0 ;;\n\
         test)\n\
         echo \"fake cargo test: require=$CHATFLOW_REQUIRE_POSTGRES url=$CHATFLOW_TEST_POSTGRES_URL\"\n\
         printf '%s' '{lines}' >> \"$CHATFLOW_TEST_ENGINE_LOG\"\n\
         exit 0 ;;\n\
         *) echo \"fake cargo: $1 is not faked\"; exit 1 ;;\n\
         esac\n"
    );
    let path = bin.join("cargo");
    std::fs::write(&path, script).expect("the fake cargo");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("executable");
}

/// Runs `xtask args...` with `env` (names with `None` are removed) and, when `cargo_log` is
/// given, a [`fake_cargo`] writing it; answers the exit code, the output (stdout then stderr)
/// and how long it took; kills it after 60 s.
fn xtask(
    case: &str,
    args: &[&str],
    env: &[(&str, Option<&str>)],
    cargo_log: Option<&[&str]>,
) -> (i32, String, Duration) {
    let scratch =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("require-postgres-{case}"));
    let _ = std::fs::remove_dir_all(&scratch);
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).expect("a scratch directory");
    if let Some(log) = cargo_log {
        fake_cargo(&bin, log);
    }
    let stdout = std::fs::File::create(scratch.join("stdout")).expect("stdout file");
    let stderr = std::fs::File::create(scratch.join("stderr")).expect("stderr file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(args)
        .current_dir(&scratch)
        .env("PATH", &bin)
        .env("CARGO_TARGET_DIR", scratch.join("target"))
        .env_remove("CHATFLOW_TEST_ENGINE_LOG")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let started = Instant::now();
    let mut child = command.spawn().expect("xtask starts");
    let status = loop {
        if let Some(status) = child.try_wait().expect("xtask's status") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("xtask {args:?} ({case}) still ran after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let output = format!(
        "{}{}",
        std::fs::read_to_string(scratch.join("stdout")).expect("stdout"),
        std::fs::read_to_string(scratch.join("stderr")).expect("stderr")
    );
    (status.code().unwrap_or(-1), output, took)
}

fn assert_fails_at_once(case: &str, args: &[&str], env: &[(&str, Option<&str>)], says: &[&str]) {
    let (code, output, took) = xtask(case, args, env, None);
    assert_ne!(code, 0, "{case}: xtask succeeded:\n{output}");
    assert!(
        took < Duration::from_secs(10),
        "{case}: took {took:?}\n{output}"
    );
    for words in says {
        assert!(output.contains(words), "{case}: no {words:?} in:\n{output}");
    }
    for step in ["==> fmt", "==> clippy", "==> rust tests"] {
        assert!(!output.contains(step), "{case}: {step} started:\n{output}");
    }
}

#[test]
fn a_required_unreachable_postgres_fails_the_test_command_at_once() {
    let required = [
        "PostgreSQL is required (--require-postgres / CI",
        "127.0.0.1:1",
        "cannot be reached",
    ];
    assert_fails_at_once(
        "flag",
        &["test", "--require-postgres"],
        &[
            ("CHATFLOW_TEST_POSTGRES_URL", Some(UNREACHABLE)),
            ("CI", None),
            ("CHATFLOW_REQUIRE_POSTGRES", None),
        ],
        &required,
    );
    assert_fails_at_once(
        "ci",
        &["test"],
        &[
            ("CHATFLOW_TEST_POSTGRES_URL", Some(UNREACHABLE)),
            ("CI", Some("true")),
            ("CHATFLOW_REQUIRE_POSTGRES", None),
        ],
        &required,
    );
    assert_fails_at_once(
        "variable",
        &["test"],
        &[
            ("CHATFLOW_TEST_POSTGRES_URL", Some(UNREACHABLE)),
            ("CI", Some("false")),
            ("CHATFLOW_REQUIRE_POSTGRES", Some("1")),
        ],
        &required,
    );
}

#[test]
fn a_named_unreachable_postgres_fails_even_when_not_required() {
    assert_fails_at_once(
        "named",
        &["test"],
        &[
            ("CHATFLOW_TEST_POSTGRES_URL", Some(UNREACHABLE)),
            ("CI", Some("0")),
            ("CHATFLOW_REQUIRE_POSTGRES", None),
        ],
        &[
            "CHATFLOW_TEST_POSTGRES_URL names postgres://postgres@127.0.0.1:1/postgres",
            "cannot be reached",
        ],
    );
}

/// A port that accepts connections (all the check asks of a server) while the listener lives.
fn listening() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("bound").port();
    (
        listener,
        format!("postgres://postgres@127.0.0.1:{port}/postgres"),
    )
}

/// True when the run went on to the step after the Rust tests: the WASM build, whose prepare
/// step asks `rustc` (not on the test's `PATH`) whether the wasm32 target is installed, or, were
/// it found, the fake cargo refusing `build`.
fn went_past_the_rust_tests(output: &str) -> bool {
    output.contains("rustc --print sysroot") || output.contains("fake cargo: build is not faked")
}

/// Runs `xtask test` (with `args`) against a listening "server" and a fake cargo writing `log`;
/// answers the exit code, the output and the server's URL.
fn counted_run(case: &str, args: &[&str], log: &[&str]) -> (i32, String, String) {
    let (_server, url) = listening();
    let (code, output, _) = xtask(
        case,
        &[&["test"], args].concat(),
        &[
            ("CHATFLOW_TEST_POSTGRES_URL", Some(&url)),
            ("CI", None),
            ("CHATFLOW_REQUIRE_POSTGRES", None),
        ],
        Some(log),
    );
    (code, output, url)
}

#[test]
fn a_required_postgres_fails_the_run_when_a_test_skipped_it_or_none_ran_on_it() {
    let (code, output, url) = counted_run(
        "skipped",
        &["--require-postgres"],
        &[
            "sqlite x::sqlite::a",
            "postgres x::postgres::a",
            "sqlite x::sqlite::b",
            "skipped-postgres x::postgres::b",
        ],
    );
    assert_ne!(code, 0, "{output}");
    for says in [
        format!("fake cargo test: require=1 url={url}"),
        "engines: 2 tests ran on SQLite, 1 on PostgreSQL, 1 skipped".to_owned(),
        "PostgreSQL was required but 1 tests skipped it: x::postgres::b".to_owned(),
    ] {
        assert!(output.contains(&says), "no {says:?} in:\n{output}");
    }
    assert!(
        !output.contains("is not faked"),
        "the run went on:\n{output}"
    );

    let (code, output, _) = counted_run("none", &["--require-postgres"], &["sqlite x::sqlite::a"]);
    assert_ne!(code, 0, "{output}");
    assert!(
        output.contains("engines: 1 tests ran on SQLite, 0 on PostgreSQL, 0 skipped"),
        "{output}"
    );
    assert!(
        output.contains("PostgreSQL was required but no test ran on it"),
        "{output}"
    );
    assert!(
        !output.contains("is not faked"),
        "the run went on:\n{output}"
    );
}

#[test]
fn the_engine_count_passes_a_full_postgres_run_and_counts_skips_when_not_required() {
    let (_, output, _) = counted_run(
        "full",
        &["--require-postgres"],
        &["sqlite x::sqlite::a", "postgres x::postgres::a"],
    );
    assert!(
        output.contains("engines: 1 tests ran on SQLite, 1 on PostgreSQL, 0 skipped"),
        "{output}"
    );
    assert!(!output.contains("PostgreSQL was required"), "{output}");
    // The run went on to the next step (refused by the fake cargo).
    assert!(went_past_the_rust_tests(&output), "{output}");

    let (_, output, _) = counted_run(
        "not-required",
        &[],
        &["sqlite x::sqlite::a", "skipped-postgres x::postgres::a"],
    );
    assert!(
        output.contains("fake cargo test: require= url="),
        "{output}"
    );
    assert!(
        output.contains("engines: 1 tests ran on SQLite, 0 on PostgreSQL, 1 skipped"),
        "{output}"
    );
    assert!(went_past_the_rust_tests(&output), "{output}");
}
