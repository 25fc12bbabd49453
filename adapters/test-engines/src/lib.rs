//! Which database engine a test runs on, for the test suites of every crate (through
//! `chatflow_system::test_engines`) and for `cargo xtask test`: one place decides whether a PostgreSQL test runs, is skipped or fails, and every test
//! that runs on an engine says so in a log that `cargo xtask test` counts.
//!
//! - [`postgres_or_skip`]: for a test that wants PostgreSQL. It answers the server's URL (from
//!   `CHATFLOW_TEST_POSTGRES_URL`) when the test should run; `None` when it should be skipped
//!   (no URL and PostgreSQL not required); and panics when `CHATFLOW_REQUIRE_POSTGRES` is on and
//!   there is no URL or the server cannot be reached, or when a URL is set but its server cannot
//!   be reached. A test never skips silently: the skip is printed and logged.
//! - [`record_sqlite`]: for a test that opens a SQLite database.
//! - The log: when `CHATFLOW_TEST_ENGINE_LOG` names a file, every call above appends one line,
//!   `<engine> <test>` ([`EngineRun::log_line`]), with one write in append mode, so tests running
//!   in parallel threads and processes never interleave their lines. The test is named by the
//!   test binary and the thread libtest runs it on (which carries the test's path).
//!
//! The decision itself is the pure [`decide`], and the reachability check [`reachable`] (a TCP
//! connect with a short timeout, or the server's unix socket); `cargo xtask test` uses both.

use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable naming the PostgreSQL server tests run on (each test creates and
/// drops its own database there).
pub const POSTGRES_URL_ENV: &str = "CHATFLOW_TEST_POSTGRES_URL";
/// The environment variable that, when on (see [`is_on`]), turns a missing or unreachable
/// PostgreSQL into a test failure instead of a skip.
pub const REQUIRE_POSTGRES_ENV: &str = "CHATFLOW_REQUIRE_POSTGRES";
/// The environment variable naming the file every test run on an engine is logged to.
pub const ENGINE_LOG_ENV: &str = "CHATFLOW_TEST_ENGINE_LOG";
/// How long the reachability check waits for the server to accept a connection.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What a test ran on, as logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EngineRun {
    /// The test ran on a SQLite database.
    Sqlite,
    /// The test ran on a PostgreSQL database.
    Postgres,
    /// The test wanted PostgreSQL, none was configured, and it was skipped.
    SkippedPostgres,
}

impl EngineRun {
    /// The word that opens the run's log line.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineRun::Sqlite => "sqlite",
            EngineRun::Postgres => "postgres",
            EngineRun::SkippedPostgres => "skipped-postgres",
        }
    }

    /// The log line for `test` (newline included): `<engine> <test>`.
    pub fn log_line(self, test: &str) -> String {
        let test: String = test
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!("{} {}\n", self.as_str(), test.trim())
    }

    /// Reads one log line back: the engine and the test's name. `None` for a line that is not a
    /// run (blank, or an unknown engine).
    pub fn parse_line(line: &str) -> Option<(EngineRun, &str)> {
        let line = line.trim_end_matches(['\r', '\n']);
        let (engine, test) = line.split_once(' ').unwrap_or((line, ""));
        let engine = match engine {
            "sqlite" => EngineRun::Sqlite,
            "postgres" => EngineRun::Postgres,
            "skipped-postgres" => EngineRun::SkippedPostgres,
            _ => return None,
        };
        Some((engine, test))
    }
}

/// Whether a switch variable's value turns it on: set, not blank, and neither `0` nor `false`
/// (in any case). `CHATFLOW_REQUIRE_POSTGRES=1` and `=true` are on; unset, `""`, `0` and
/// `false` are off.
pub fn is_on(value: Option<&str>) -> bool {
    match value.map(str::trim) {
        None | Some("") => false,
        Some(value) => !(value == "0" || value.eq_ignore_ascii_case("false")),
    }
}

/// What to do with a test that wants PostgreSQL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Run it on the server of this URL.
    Run(String),
    /// Skip it: no server configured, and PostgreSQL not required.
    Skip,
    /// Fail it, with this message.
    Fail(String),
}

/// The rules: with no URL (unset or blank), skip, or fail when PostgreSQL is `required`; with a
/// URL, run when `probe` reaches its server and fail otherwise (a server named on purpose that
/// does not answer is never a reason to skip). `probe` is only called with a URL.
pub fn decide(
    url: Option<&str>,
    required: bool,
    probe: impl FnOnce(&str) -> Result<(), String>,
) -> Decision {
    let url = url.map(str::trim).filter(|url| !url.is_empty());
    match (url, required) {
        (None, false) => Decision::Skip,
        (None, true) => Decision::Fail(format!(
            "PostgreSQL is required ({REQUIRE_POSTGRES_ENV} is on) but {POSTGRES_URL_ENV} is \
             not set: set it to a server that accepts connections, e.g. \
             {POSTGRES_URL_ENV}=postgres://postgres@127.0.0.1:5432/postgres (each test creates \
             and drops its own database there), or run `cargo xtask test`, which finds the \
             local server"
        )),
        (Some(url), required) => match probe(url) {
            Ok(()) => Decision::Run(url.to_owned()),
            Err(e) if required => Decision::Fail(format!(
                "PostgreSQL is required ({REQUIRE_POSTGRES_ENV} is on) but {} \
                 ({POSTGRES_URL_ENV}) cannot be reached: {e}; start it, or point \
                 {POSTGRES_URL_ENV} at a server that accepts connections",
                redact(url)
            )),
            Err(e) => Decision::Fail(format!(
                "{POSTGRES_URL_ENV} names {} but it cannot be reached: {e}; start it, point \
                 the variable at a server that accepts connections, or unset it to skip the \
                 PostgreSQL tests",
                redact(url)
            )),
        },
    }
}

/// For a test that wants PostgreSQL: the server's URL when it runs (logged as `postgres`), or
/// `None` when it is skipped (printed, and logged as `skipped-postgres`). Panics, failing the
/// test, when [`decide`] says so. The decision is taken once per process, from
/// `CHATFLOW_TEST_POSTGRES_URL` and `CHATFLOW_REQUIRE_POSTGRES`.
pub fn postgres_or_skip() -> Option<String> {
    static DECISION: OnceLock<Decision> = OnceLock::new();
    let decision = DECISION.get_or_init(|| {
        let url = std::env::var(POSTGRES_URL_ENV).ok();
        let required = is_on(std::env::var(REQUIRE_POSTGRES_ENV).ok().as_deref());
        decide(url.as_deref(), required, reachable)
    });
    let test = current_test();
    match decision {
        Decision::Run(url) => {
            record(EngineRun::Postgres, &test);
            Some(url.clone())
        }
        Decision::Skip => {
            record(EngineRun::SkippedPostgres, &test);
            eprintln!(
                "skipped: {test} wants PostgreSQL; set {POSTGRES_URL_ENV} to run it \
                 ({REQUIRE_POSTGRES_ENV}=1 makes this a failure)"
            );
            None
        }
        Decision::Fail(message) => panic!("{test}: {message}"),
    }
}

/// For a test that opens a SQLite database: logs it as `sqlite`.
pub fn record_sqlite() {
    record(EngineRun::Sqlite, &current_test());
}

/// Appends `engine`'s line for `test` to the file `CHATFLOW_TEST_ENGINE_LOG` names, if any.
/// Panics when the file cannot be written (the count would be wrong).
pub fn record(engine: EngineRun, test: &str) {
    let Some(log) = std::env::var_os(ENGINE_LOG_ENV).filter(|path| !path.is_empty()) else {
        return;
    };
    let log = PathBuf::from(log);
    if let Err(e) = append_line(&log, engine, test) {
        panic!(
            "cannot write the engine log {} ({ENGINE_LOG_ENV}): {e}",
            log.display()
        );
    }
}

/// Appends `engine`'s line for `test` to `log` in one write (append mode), creating the file.
pub fn append_line(log: &Path, engine: EngineRun, test: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    file.write_all(engine.log_line(test).as_bytes())
}

/// The running test's name: the test binary (without cargo's hash) and libtest's thread name,
/// which is the test's path, e.g. `api::tickets::sqlite::a_ticket_is_closed`.
pub fn current_test() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
        })
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
            _ => stem,
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("unnamed");
    format!("{binary}::{test}")
}

/// `url` with its password, if any, replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!(
                "{}{user}:***@{host}{}",
                &url[..scheme_end],
                &rest[authority_end..]
            ),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// Where a PostgreSQL URL's server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerAddress {
    /// A TCP host (name or address) and port.
    Tcp(String, u16),
    /// A unix socket file (`<directory>/.s.PGSQL.<port>`).
    Unix(PathBuf),
}

/// Reads where the server of a `postgres://` (or `postgresql://`) URL listens: the URL's host
/// and port (default `localhost:5432`), or a socket directory given as a host starting with `/`
/// (also percent-encoded, or as the `host` query parameter).
pub fn server_address(url: &str) -> Result<ServerAddress, String> {
    let rest = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
        .ok_or_else(|| format!("{} is not a postgres:// URL", redact(url)))?;
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = before_query.split('/').next().unwrap_or_default();
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
        let (host, after) = bracketed
            .split_once(']')
            .ok_or_else(|| format!("{}: an unclosed IPv6 address", redact(url)))?;
        (host, after.strip_prefix(':').unwrap_or(""))
    } else {
        host_port.rsplit_once(':').unwrap_or((host_port, ""))
    };
    let port = if port.is_empty() {
        5432
    } else {
        port.parse::<u16>()
            .map_err(|_| format!("{}: the port {port:?} is not a number", redact(url)))?
    };
    let query_host = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("host="))
        .map(percent_decode_slashes);
    let host = match query_host {
        Some(host) if !host.is_empty() => host,
        _ => percent_decode_slashes(host),
    };
    if host.starts_with('/') {
        return Ok(ServerAddress::Unix(
            Path::new(&host).join(format!(".s.PGSQL.{port}")),
        ));
    }
    let host = if host.is_empty() {
        "localhost".to_owned()
    } else {
        host
    };
    Ok(ServerAddress::Tcp(host, port))
}

/// `%2F` (either case) as `/`: enough for socket directories written in a URL's host.
fn percent_decode_slashes(text: &str) -> String {
    text.replace("%2F", "/").replace("%2f", "/")
}

/// Whether the server of `url` accepts a connection (TCP within [`PROBE_TIMEOUT`], or its unix
/// socket); the error says what failed.
pub fn reachable(url: &str) -> Result<(), String> {
    match server_address(url)? {
        ServerAddress::Tcp(host, port) => {
            let addresses = (host.as_str(), port)
                .to_socket_addrs()
                .map_err(|e| format!("cannot resolve {host}:{port}: {e}"))?;
            let mut last = format!("{host}:{port} resolves to no address");
            for address in addresses {
                match TcpStream::connect_timeout(&address, PROBE_TIMEOUT) {
                    Ok(_) => return Ok(()),
                    Err(e) => last = format!("connecting to {address}: {e}"),
                }
            }
            Err(last)
        }
        ServerAddress::Unix(socket) => connect_unix(&socket),
    }
}

#[cfg(unix)]
fn connect_unix(socket: &Path) -> Result<(), String> {
    std::os::unix::net::UnixStream::connect(socket)
        .map(drop)
        .map_err(|e| format!("connecting to {}: {e}", socket.display()))
}

#[cfg(not(unix))]
fn connect_unix(socket: &Path) -> Result<(), String> {
    Err(format!(
        "{}: unix sockets are not supported here",
        socket.display()
    ))
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;

    use super::*;

    fn unreachable(_: &str) -> Result<(), String> {
        Err("connection refused".to_owned())
    }

    #[test]
    fn without_a_url_a_test_is_skipped_unless_postgres_is_required() {
        let probe = |_: &str| -> Result<(), String> { panic!("no URL, nothing to probe") };
        assert_eq!(decide(None, false, probe), Decision::Skip);
        assert_eq!(decide(Some("  "), false, probe), Decision::Skip);
        let Decision::Fail(message) = decide(None, true, probe) else {
            panic!("a required PostgreSQL without a URL fails");
        };
        assert!(message.contains("PostgreSQL is required"), "{message}");
        assert!(message.contains(POSTGRES_URL_ENV), "{message}");
        assert!(message.contains("postgres://"), "{message}");
    }

    #[test]
    fn a_url_runs_when_its_server_answers_and_fails_when_it_does_not() {
        let url = "postgres://postgres@127.0.0.1:5432/postgres";
        for required in [false, true] {
            assert_eq!(
                decide(Some(url), required, |_| Ok(())),
                Decision::Run(url.to_owned())
            );
            let Decision::Fail(message) = decide(Some(url), required, unreachable) else {
                panic!("an unreachable server fails (required: {required})");
            };
            assert!(message.contains("cannot be reached"), "{message}");
            assert!(message.contains("connection refused"), "{message}");
            assert_eq!(message.contains("PostgreSQL is required"), required);
        }
    }

    #[test]
    fn failure_messages_hide_the_password() {
        let Decision::Fail(message) = decide(
            Some("postgres://app:hunter2@db.example:5433/x"),
            true,
            unreachable,
        ) else {
            panic!("fails");
        };
        assert!(!message.contains("hunter2"), "{message}");
        assert!(
            message.contains("postgres://app:***@db.example:5433/x"),
            "{message}"
        );
    }

    #[test]
    fn switches_are_on_unless_unset_blank_zero_or_false() {
        for off in [
            None,
            Some(""),
            Some(" "),
            Some("0"),
            Some("false"),
            Some("FALSE"),
        ] {
            assert!(!is_on(off), "{off:?}");
        }
        for on in [Some("1"), Some("true"), Some("True"), Some("yes")] {
            assert!(is_on(on), "{on:?}");
        }
    }

    #[test]
    fn log_lines_read_back() {
        for engine in [
            EngineRun::Sqlite,
            EngineRun::Postgres,
            EngineRun::SkippedPostgres,
        ] {
            let line = engine.log_line("api::tickets::postgres::closes\n");
            assert_eq!(line.matches('\n').count(), 1, "{line:?}");
            assert_eq!(
                EngineRun::parse_line(&line),
                Some((engine, "api::tickets::postgres::closes"))
            );
        }
        assert_eq!(EngineRun::parse_line(""), None);
        assert_eq!(EngineRun::parse_line("mysql a::b"), None);
    }

    #[test]
    fn parallel_writers_never_interleave_lines() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let log = dir.path().join("engines.log");
        let writers: Vec<_> = (0..8)
            .map(|writer| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for n in 0..200 {
                        let test = format!("suite::writer_{writer}::test_number_{n:04}");
                        append_line(&log, EngineRun::Postgres, &test).expect("appended");
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().expect("the writer finished");
        }
        let text = std::fs::read_to_string(&log).expect("the log");
        let mut seen = std::collections::BTreeSet::new();
        for line in text.lines() {
            let (engine, test) = EngineRun::parse_line(line).expect("a whole line");
            assert_eq!(engine, EngineRun::Postgres, "{line}");
            assert!(seen.insert(test.to_owned()), "twice: {line}");
        }
        let expected: std::collections::BTreeSet<_> = (0..8)
            .flat_map(|w| (0..200).map(move |n| format!("suite::writer_{w}::test_number_{n:04}")))
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn the_current_test_is_named_by_its_binary_and_thread() {
        // libtest names the thread of a test after the test's path.
        let name = std::thread::Builder::new()
            .name("tickets::postgres::a_ticket_closes".to_owned())
            .spawn(current_test)
            .expect("a thread")
            .join()
            .expect("named");
        assert_eq!(
            name,
            "chatflow_test_engines::tickets::postgres::a_ticket_closes"
        );
    }

    #[test]
    fn server_addresses_are_read_from_urls() {
        let tcp = |host: &str, port| Ok(ServerAddress::Tcp(host.to_owned(), port));
        assert_eq!(
            server_address("postgres://postgres@127.0.0.1:1/postgres"),
            tcp("127.0.0.1", 1)
        );
        assert_eq!(
            server_address("postgresql://u:p@db.example/x?sslmode=disable"),
            tcp("db.example", 5432)
        );
        assert_eq!(server_address("postgres:///x"), tcp("localhost", 5432));
        assert_eq!(server_address("postgres://[::1]:5433/x"), tcp("::1", 5433));
        assert_eq!(
            server_address("postgres://postgres@:5433/x?host=/run/pg"),
            Ok(ServerAddress::Unix(PathBuf::from("/run/pg/.s.PGSQL.5433")))
        );
        assert_eq!(
            server_address("postgres://%2Fvar%2Frun%2Fpostgresql/x"),
            Ok(ServerAddress::Unix(PathBuf::from(
                "/var/run/postgresql/.s.PGSQL.5432"
            )))
        );
        assert!(server_address("mysql://root@localhost/x").is_err());
        assert!(server_address("postgres://h:port/x").is_err());
    }

    #[test]
    fn reachable_tells_a_listening_port_from_a_closed_one() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let open = listener.local_addr().expect("bound").port();
        assert_eq!(
            reachable(&format!("postgres://postgres@127.0.0.1:{open}/postgres")),
            Ok(())
        );
        let closed = {
            let other = TcpListener::bind("127.0.0.1:0").expect("a free port");
            other.local_addr().expect("bound").port()
        };
        let err = reachable(&format!("postgres://postgres@127.0.0.1:{closed}/postgres"))
            .expect_err("nothing listens there any more");
        assert!(err.contains(&format!("127.0.0.1:{closed}")), "{err}");
    }
}
