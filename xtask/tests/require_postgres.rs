//! With PostgreSQL required and unreachable, `cargo xtask test` fails at once with a message
//! that says so, before any slow step.
//!
//! The binary runs with `CHATFLOW_TEST_POSTGRES_URL` on port 1 of the loopback, where nothing
//! listens, and with a `PATH` where no program (cargo, npm) can be found: should the check ever
//! let the run go on, its first step fails to start instead of running the whole suite, and the
//! message this test looks for is missing.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const UNREACHABLE: &str = "postgres://postgres@127.0.0.1:1/postgres";

/// Runs `xtask args...` with `env` (names with `None` are removed) and answers its exit code,
/// its output (stdout then stderr) and how long it took; kills it after 60 s.
fn xtask(case: &str, args: &[&str], env: &[(&str, Option<&str>)]) -> (i32, String, Duration) {
    let scratch =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("require-postgres-{case}"));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("empty-path")).expect("a scratch directory");
    let stdout = std::fs::File::create(scratch.join("stdout")).expect("stdout file");
    let stderr = std::fs::File::create(scratch.join("stderr")).expect("stderr file");
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command
        .args(args)
        .current_dir(&scratch)
        .env("PATH", scratch.join("empty-path"))
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
    let (code, output, took) = xtask(case, args, env);
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
