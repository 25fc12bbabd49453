//! PostgreSQL in `cargo xtask test`: whether the run requires it, the check that it answers
//! before anything slow starts, and the count of tests per engine after the Rust tests.
//!
//! PostgreSQL is required with `--require-postgres`, when `CI` is on (set, not blank, neither
//! `false` nor `0`) and when `CHATFLOW_REQUIRE_POSTGRES` is. Then the server of
//! `CHATFLOW_TEST_POSTGRES_URL` (or the local 127.0.0.1:5432) must accept a connection before
//! fmt starts; the Rust tests run with `CHATFLOW_REQUIRE_POSTGRES=1`, so a test that cannot
//! reach it fails instead of skipping; and the run fails when any test skipped PostgreSQL or
//! none ran on it. Every run has the tests log the engine each one ran on
//! (`chatflow_test_engines`) to a fresh file and prints the count.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use chatflow_test_engines::{ENGINE_LOG_ENV, EngineRun, POSTGRES_URL_ENV, REQUIRE_POSTGRES_ENV};

use crate::util;

/// How many skipped tests a failure names.
const NAMED_SKIPS: usize = 10;

/// Whether a run requires PostgreSQL: the `--require-postgres` flag, or the values of `CI` and
/// `CHATFLOW_REQUIRE_POSTGRES` turning it on.
pub fn required(flag: bool, ci: Option<&str>, require_env: Option<&str>) -> bool {
    flag || chatflow_test_engines::is_on(ci) || chatflow_test_engines::is_on(require_env)
}

/// The PostgreSQL side of one `cargo xtask test` run.
pub struct Engines {
    /// The server the tests use, if any.
    url: Option<String>,
    /// Whether PostgreSQL is required.
    required: bool,
    /// The engine log the tests append to.
    log: PathBuf,
}

impl Engines {
    /// Decides whether PostgreSQL is required and which server the tests use, and checks that
    /// server accepts a connection: fails at once when a required server, or one named in
    /// `CHATFLOW_TEST_POSTGRES_URL`, cannot be reached.
    pub fn prepare(require_flag: bool, root: &Path) -> Result<Self> {
        let env = |name: &str| std::env::var(name).ok();
        let required = required(
            require_flag,
            env("CI").as_deref(),
            env(REQUIRE_POSTGRES_ENV).as_deref(),
        );
        let url = if required {
            Some(
                env(POSTGRES_URL_ENV)
                    .filter(|url| !url.trim().is_empty())
                    .unwrap_or_else(|| util::LOCAL_POSTGRES_URL.to_owned()),
            )
        } else {
            util::postgres_test_url()
        };
        if let Some(url) = &url {
            check_reachable(url, required)?;
        }
        match (&url, required) {
            (Some(url), true) => println!(
                "PostgreSQL is required and answers at {}: every PostgreSQL test runs on it",
                chatflow_test_engines::redact(url)
            ),
            (Some(url), false) => println!(
                "PostgreSQL answers: the store, server and CLI tests also run on {}",
                chatflow_test_engines::redact(url)
            ),
            (None, _) => println!(
                "No PostgreSQL ({POSTGRES_URL_ENV} unset, nothing on 127.0.0.1:5432): the \
                 PostgreSQL tests are skipped and counted (--require-postgres fails instead)"
            ),
        }
        Ok(Self {
            url,
            required,
            log: util::target_dir(root).join("test-engines.log"),
        })
    }

    /// Points the Rust tests at the server and a fresh engine log, and passes the requirement
    /// on (`CHATFLOW_REQUIRE_POSTGRES=1`, or unset).
    pub fn configure(&self, tests: &mut Command) -> Result<()> {
        if let Some(dir) = self.log.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        match std::fs::remove_file(&self.log) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("removing {}", self.log.display()));
            }
        }
        tests.env(ENGINE_LOG_ENV, &self.log);
        match &self.url {
            Some(url) => tests.env(POSTGRES_URL_ENV, url),
            None => tests.env_remove(POSTGRES_URL_ENV),
        };
        if self.required {
            tests.env(REQUIRE_POSTGRES_ENV, "1");
        } else {
            tests.env_remove(REQUIRE_POSTGRES_ENV);
        }
        Ok(())
    }

    /// After the Rust tests (`outcome`): prints the count from the engine log, then fails when
    /// the tests failed, or when the count breaks a rule ([`EngineCounts::verdict`]). Answers
    /// the count.
    pub fn report(&self, outcome: Result<()>) -> Result<EngineCounts> {
        let counts = match std::fs::read_to_string(&self.log) {
            Ok(text) => Ok(EngineCounts::from_log(&text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(EngineCounts::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", self.log.display())),
        };
        if let Ok(counts) = &counts {
            println!("{counts} (log: {})", self.log.display());
        }
        outcome?;
        let counts = counts?;
        counts.verdict(self.required)?;
        Ok(counts)
    }
}

/// Fails unless the server of `url` accepts a connection, saying why it was wanted.
fn check_reachable(url: &str, required: bool) -> Result<()> {
    let Err(e) = chatflow_test_engines::reachable(url) else {
        return Ok(());
    };
    let shown = chatflow_test_engines::redact(url);
    if required {
        bail!(
            "PostgreSQL is required (--require-postgres / CI / {REQUIRE_POSTGRES_ENV}) but \
             {shown} cannot be reached: {e}. Start PostgreSQL there, or set {POSTGRES_URL_ENV} \
             to a server that accepts connections (.ci/run starts a private one when \
             127.0.0.1:5432 does not answer)."
        );
    }
    bail!(
        "{POSTGRES_URL_ENV} names {shown} but it cannot be reached: {e}. Start it, point the \
         variable at a server that accepts connections, or unset it to skip the PostgreSQL tests."
    )
}

/// How many tests ran on each engine, from the engine log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineCounts {
    /// Runs on SQLite.
    pub sqlite: usize,
    /// Runs on PostgreSQL.
    pub postgres: usize,
    /// The tests that wanted PostgreSQL and were skipped.
    pub skipped: Vec<String>,
    /// Lines that are not a run (a broken log).
    pub unreadable: usize,
}

impl EngineCounts {
    /// Counts the lines of an engine log (blank lines are ignored).
    pub fn from_log(text: &str) -> Self {
        let mut counts = Self::default();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            match EngineRun::parse_line(line) {
                Some((EngineRun::Sqlite, _)) => counts.sqlite += 1,
                Some((EngineRun::Postgres, _)) => counts.postgres += 1,
                Some((EngineRun::SkippedPostgres, test)) => counts.skipped.push(test.to_owned()),
                None => counts.unreadable += 1,
            }
        }
        counts
    }

    /// The rules: some test ran on SQLite (the suites always run it, so none means the log is
    /// not written); the log has no broken line; and when PostgreSQL is `required`, no test
    /// skipped it and at least one ran on it.
    pub fn verdict(&self, required: bool) -> Result<()> {
        if self.sqlite == 0 {
            bail!(
                "no test logged a run on SQLite: the test helpers no longer write the engine \
                 log ({ENGINE_LOG_ENV}, chatflow_system::test_engines)"
            );
        }
        if self.unreadable > 0 {
            bail!(
                "the engine log has {} unreadable lines ({ENGINE_LOG_ENV})",
                self.unreadable
            );
        }
        if required && !self.skipped.is_empty() {
            let named: Vec<&str> = self
                .skipped
                .iter()
                .take(NAMED_SKIPS)
                .map(String::as_str)
                .collect();
            let more = self.skipped.len().saturating_sub(NAMED_SKIPS);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            bail!(
                "PostgreSQL was required but {} tests skipped it: {}{more}",
                self.skipped.len(),
                named.join(", ")
            );
        }
        if required && self.postgres == 0 {
            bail!("PostgreSQL was required but no test ran on it");
        }
        Ok(())
    }
}

impl fmt::Display for EngineCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "engines: {} tests ran on SQLite, {} on PostgreSQL, {} skipped",
            self.sqlite,
            self.postgres,
            self.skipped.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(sqlite: usize, postgres: usize, skipped: &[&str]) -> EngineCounts {
        EngineCounts {
            sqlite,
            postgres,
            skipped: skipped.iter().map(|s| (*s).to_owned()).collect(),
            unreadable: 0,
        }
    }

    #[test]
    fn the_log_is_counted_per_engine() {
        let log = "sqlite store::sqlite::plans_are_listed\n\
                   postgres store::postgres::plans_are_listed\n\
                   \n\
                   sqlite api::tickets::sqlite::a_ticket_closes\n\
                   skipped-postgres api::tickets::postgres::a_ticket_closes\n\
                   postgres chatflow_cli::works_on_postgres_too\n\
                   sqlite crash_ingest::a_server_killed_mid_ingest_loses_and_duplicates_nothing\n";
        let counted = EngineCounts::from_log(log);
        assert_eq!(
            counted,
            counts(3, 2, &["api::tickets::postgres::a_ticket_closes"])
        );
        assert_eq!(
            counted.to_string(),
            "engines: 3 tests ran on SQLite, 2 on PostgreSQL, 1 skipped"
        );
    }

    #[test]
    fn broken_lines_are_counted_as_unreadable() {
        let counted = EngineCounts::from_log("sqlite a::b\nsqlpostgres c::d\nite e::f\n");
        assert_eq!(counted.sqlite, 1);
        assert_eq!(counted.unreadable, 2);
        assert!(counted.verdict(false).is_err());
    }

    #[test]
    fn the_lines_the_helpers_write_are_counted() {
        let log: String = [
            EngineRun::Sqlite.log_line("x::sqlite::one"),
            EngineRun::Postgres.log_line("x::postgres::one"),
            EngineRun::SkippedPostgres.log_line("x::postgres::two"),
        ]
        .concat();
        assert_eq!(
            EngineCounts::from_log(&log),
            counts(1, 1, &["x::postgres::two"])
        );
    }

    #[test]
    fn a_required_postgres_fails_on_any_skip_or_no_run() {
        assert!(counts(10, 10, &[]).verdict(true).is_ok());
        assert!(counts(10, 0, &["a"]).verdict(false).is_ok());
        assert!(counts(10, 0, &[]).verdict(false).is_ok());

        let skipped = counts(10, 9, &["api::postgres::a"])
            .verdict(true)
            .expect_err("a skip fails");
        assert!(
            skipped
                .to_string()
                .contains("1 tests skipped it: api::postgres::a")
        );
        let many: Vec<String> = (0..12).map(|n| format!("t{n}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let skipped = counts(10, 0, &many).verdict(true).expect_err("skips fail");
        assert!(skipped.to_string().ends_with("t9 and 2 more"), "{skipped}");

        let none = counts(10, 0, &[]).verdict(true).expect_err("no run fails");
        assert!(none.to_string().contains("no test ran on it"), "{none}");
    }

    #[test]
    fn no_sqlite_run_means_a_broken_log() {
        let err = counts(0, 0, &[])
            .verdict(false)
            .expect_err("an empty log fails");
        assert!(err.to_string().contains("SQLite"), "{err}");
    }

    #[test]
    fn postgres_is_required_by_the_flag_ci_or_the_variable() {
        assert!(!required(false, None, None));
        assert!(required(true, None, None));
        for ci in ["true", "1", "yes", "github-actions"] {
            assert!(required(false, Some(ci), None), "CI={ci}");
        }
        for ci in ["", "false", "0", "FALSE"] {
            assert!(!required(false, Some(ci), None), "CI={ci:?}");
        }
        assert!(required(false, None, Some("1")));
        assert!(required(false, Some("false"), Some("true")));
        assert!(!required(false, None, Some("0")));
        assert!(required(true, Some("false"), Some("0")));
    }
}
