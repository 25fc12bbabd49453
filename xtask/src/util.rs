//! Helpers shared by the xtask commands: paths, child processes, a throwaway server.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// The repository root: the nearest directory holding `Cargo.lock` above the manifest
/// directory `cargo run` names at run time (the checkout the command was started in, even when
/// another checkout sharing the target directory built the binary), else above this crate's.
pub fn project_root() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let started = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    started
        .iter()
        .chain(std::iter::once(&built))
        .find_map(|dir| workspace_of(dir))
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The nearest ancestor of `dir` (itself included) that holds `Cargo.lock`.
fn workspace_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|candidate| candidate.join("Cargo.lock").is_file())
        .map(Path::to_path_buf)
}

/// A command with arguments. A `cargo` command runs without the variables `cargo run` gave
/// this process (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`…): some crates' build scripts read one of
/// them (ring reads `CARGO_MANIFEST_DIR`), so a nested cargo that inherits them sees another
/// environment than a cargo typed in a shell and rebuilds those crates and everything above them,
/// back and forth, on every run.
pub fn cmd(program: &str, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command.args(args);
    if program == "cargo" {
        for (name, _) in std::env::vars_os() {
            if name.to_str().is_some_and(set_by_cargo_run) {
                command.env_remove(name);
            }
        }
    }
    command
}

/// Whether `name` is one of the variables `cargo run` sets for the program it runs.
fn set_by_cargo_run(name: &str) -> bool {
    name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_MANIFEST_")
        || matches!(
            name,
            "CARGO_CRATE_NAME" | "CARGO_BIN_NAME" | "CARGO_PRIMARY_PACKAGE"
        )
}

/// The value of an environment variable, or a default.
pub fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_owned())
}

/// Runs one step, printing its name and duration; fails on a non-zero exit.
pub fn run_step(name: &str, command: &mut Command) -> Result<()> {
    Steps::new(0).run(name, command)
}

/// Numbered steps, each printed as `==> [2/5] name` with its duration when it ends, so a long
/// first run shows which step it is in and how far it has come.
pub struct Steps {
    done: usize,
    total: usize,
}

impl Steps {
    /// `total` steps are planned; 0 prints no numbers.
    pub fn new(total: usize) -> Self {
        Self { done: 0, total }
    }

    /// Plans `more` steps than announced (found on the way, such as a first install).
    pub fn add(&mut self, more: usize) {
        if self.total > 0 {
            self.total += more;
        }
    }

    fn header(&mut self, name: &str) {
        self.done += 1;
        if self.total > 0 {
            println!("\n==> [{}/{}] {name}", self.done, self.total.max(self.done));
        } else {
            println!("\n==> {name}");
        }
    }

    /// Runs `command` as the next step; fails on a non-zero exit.
    pub fn run(&mut self, name: &str, command: &mut Command) -> Result<()> {
        self.timed(name, || {
            let status = command
                .status()
                .with_context(|| format!("{name}: could not start {command:?}"))?;
            if !status.success() {
                bail!("{name} failed ({status})");
            }
            Ok(())
        })
    }

    /// Runs `work` as the next step.
    pub fn timed<T>(&mut self, name: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        self.header(name);
        let started = Instant::now();
        let result = work();
        let took = started.elapsed().as_secs_f64();
        match result {
            Ok(value) => {
                println!("<== {name}: ok in {took:.1} s");
                Ok(value)
            }
            Err(e) => Err(e.context(format!("{name} failed after {took:.1} s"))),
        }
    }
}

/// The local PostgreSQL server tests use when `CHATFLOW_TEST_POSTGRES_URL` is unset.
pub const LOCAL_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// The PostgreSQL URL store and server tests should use: the caller's
/// `CHATFLOW_TEST_POSTGRES_URL`, or the local server when 127.0.0.1:5432 answers.
pub fn postgres_test_url() -> Option<String> {
    if let Ok(url) = std::env::var("CHATFLOW_TEST_POSTGRES_URL") {
        return (!url.is_empty()).then_some(url);
    }
    let addr: SocketAddr = ([127, 0, 0, 1], 5432).into();
    TcpStream::connect_timeout(&addr, Duration::from_millis(500))
        .ok()
        .map(|_| LOCAL_POSTGRES_URL.to_owned())
}

/// A free TCP port on the loopback interface.
pub fn free_port() -> Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0").context("binding a free port")?;
    Ok(listener.local_addr()?.port())
}

/// The status code of `GET path` on the loopback port, or `None` when nothing answers.
pub fn http_status(port: u16, path: &str) -> Option<u16> {
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(300)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut head = [0u8; 32];
    let read = stream.read(&mut head).ok()?;
    let line = std::str::from_utf8(&head[..read]).ok()?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR`).
pub fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() {
                dir
            } else {
                root.join(dir)
            }
        }
        None => root.join("target"),
    }
}

/// A server process that is killed when dropped.
pub struct Server {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// The admin credentials it was seeded with.
    pub admin_email: String,
    pub admin_password: String,
    _data: TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// A directory removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty directory under the system temp dir.
    pub fn new(prefix: &str) -> Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let dir = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts `binary` on a free port with a fresh SQLite database and waits until `/health`
/// answers 200. Returns the server and the time from spawn to the first 200.
pub fn start_server(binary: &Path, extra_env: &[(&str, &str)]) -> Result<(Server, Duration)> {
    let web_dist = project_root().join("web").join("dist");
    let mut command = Command::new(binary);
    command.env("CHATFLOW_WEB_DIR", &web_dist);
    launch(command, TempDir::new("chatflow-xtask")?, extra_env)
}

/// Like [`start_server`], for a prepared `command` (its program, working directory and own
/// variables): adds the port, a fresh SQLite database and media directory in `data` (removed
/// with the server) and the admin's credentials.
pub fn launch(
    command: Command,
    data: TempDir,
    extra_env: &[(&str, &str)],
) -> Result<(Server, Duration)> {
    launch_logging(command, data, extra_env, Stdio::null())
}

/// [`start_server`] with the server's log (its standard output) written to `log`.
pub fn start_server_logging(
    binary: &Path,
    extra_env: &[(&str, &str)],
    log: &Path,
) -> Result<(Server, Duration)> {
    let web_dist = project_root().join("web").join("dist");
    let mut command = Command::new(binary);
    command.env("CHATFLOW_WEB_DIR", &web_dist);
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    launch_logging(
        command,
        TempDir::new("chatflow-xtask")?,
        extra_env,
        Stdio::from(file),
    )
}

/// [`launch`] with the server's standard output going to `stdout`.
fn launch_logging(
    mut command: Command,
    data: TempDir,
    extra_env: &[(&str, &str)],
    stdout: Stdio,
) -> Result<(Server, Duration)> {
    let port = free_port()?;
    let admin_email = "admin@chatflow.test".to_owned();
    let admin_password = "Adm1n!Chatflow".to_owned();
    command
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/chatflow.db", data.0.display()),
        )
        .env("CHATFLOW_HOST", "127.0.0.1")
        .env("PORT", port.to_string())
        .env("CHATFLOW_MEDIA_DIR", data.0.join("media"))
        .env("CHATFLOW_ADMIN_EMAIL", &admin_email)
        .env("CHATFLOW_ADMIN_PASSWORD", &admin_password)
        .env("RUST_LOG", env_or("RUST_LOG", "warn"))
        .stdout(stdout)
        .stderr(Stdio::inherit());
    for (key, value) in extra_env {
        command.env(key, value);
    }
    let started = Instant::now();
    let child = command
        .spawn()
        .with_context(|| format!("starting {}", command.get_program().to_string_lossy()))?;
    let mut server = Server {
        child,
        port,
        admin_email,
        admin_password,
        _data: data,
    };
    loop {
        if http_status(port, "/health") == Some(200) {
            return Ok((server, started.elapsed()));
        }
        if let Some(status) = server.child.try_wait()? {
            bail!("the server exited before answering: {status}");
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("the server did not answer /health within 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs the browser end-to-end tests against a real server on a fresh database.
pub fn e2e(root: &Path) -> Result<()> {
    let binary = target_dir(root).join("debug").join("chatflow-server");
    if !binary.exists() {
        run_step(
            "e2e: build server",
            cmd("cargo", &["build", "--package", "chatflow-server"]).current_dir(root),
        )?;
    }
    let chromium = env_or("CHROMIUM_PATH", "/usr/bin/chromium");
    if !Path::new(&chromium).exists() {
        bail!(
            "Chromium not found at {chromium}: install Debian's `chromium` package (.ci/run does) or set CHROMIUM_PATH"
        );
    }
    let (server, took) = start_server(&binary, &[("CHATFLOW_LOGIN_RATE_PER_MINUTE", "600")])?;
    println!(
        "e2e: server up on port {} in {:.0} ms",
        server.port,
        took.as_secs_f64() * 1000.0
    );
    let base = format!("http://127.0.0.1:{}", server.port);
    let mut args = vec!["run", "e2e", "--"];
    for file in FAKE_WHATSAPP_E2E {
        args.extend(["--exclude", file]);
    }
    run_step(
        "web: end-to-end tests (Chromium)",
        cmd("npm", &args)
            .current_dir(root.join("web"))
            .env("CHATFLOW_E2E_BASE_URL", &base)
            .env("CHATFLOW_E2E_ADMIN_EMAIL", &server.admin_email)
            .env("CHATFLOW_E2E_ADMIN_PASSWORD", &server.admin_password)
            .env("CHROMIUM_PATH", &chromium),
    )?;
    drop(server);
    fake_whatsapp_e2e(root, &chromium)
}

/// The browser tests of WhatsApp Web (the dialogs; the import of old messages, gaps and
/// delivery), run against the server whose WhatsApp sessions are the scripted fake and whose
/// clock and jobs the tests move (the `whatsapp_fake_server` example, built by the workspace's
/// tests).
const FAKE_WHATSAPP_E2E: [&str; 2] = [
    "e2e/whatsapp-web.e2e.ts",
    "e2e/whatsapp-web-assurance.e2e.ts",
];

fn fake_whatsapp_e2e(root: &Path, chromium: &str) -> Result<()> {
    let binary = target_dir(root)
        .join("debug")
        .join("examples")
        .join("whatsapp_fake_server");
    if !binary.exists() {
        run_step(
            "e2e: build the server on the WhatsApp fake",
            cmd(
                "cargo",
                &[
                    "build",
                    "--package",
                    "chatflow-server",
                    "--example",
                    "whatsapp_fake_server",
                ],
            )
            .current_dir(root),
        )?;
    }
    let control = free_port()?.to_string();
    let (server, _) = start_server(
        &binary,
        &[
            ("CHATFLOW_LOGIN_RATE_PER_MINUTE", "600"),
            ("CHATFLOW_FAKE_WHATSAPP_PORT", &control),
        ],
    )?;
    run_step(
        "web: end-to-end tests of WhatsApp Web on its fake (Chromium)",
        cmd(
            "npm",
            &[&["run", "e2e", "--"][..], &FAKE_WHATSAPP_E2E[..]].concat(),
        )
        .current_dir(root.join("web"))
        .env(
            "CHATFLOW_E2E_BASE_URL",
            format!("http://127.0.0.1:{}", server.port),
        )
        .env(
            "CHATFLOW_E2E_FAKE_WHATSAPP_URL",
            format!("http://127.0.0.1:{control}"),
        )
        .env("CHATFLOW_E2E_ADMIN_EMAIL", &server.admin_email)
        .env("CHATFLOW_E2E_ADMIN_PASSWORD", &server.admin_password)
        .env("CHROMIUM_PATH", chromium),
    )?;
    drop(server);
    Ok(())
}

/// The modification time of `path`, when it exists.
pub fn modified(path: &Path) -> Option<std::time::SystemTime> {
    path.metadata().ok()?.modified().ok()
}

/// The newest modification time of `path` or of any file under it (a directory is walked).
pub fn newest_modified(path: &Path) -> Option<std::time::SystemTime> {
    let own = modified(path);
    if !path.is_dir() {
        return own;
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| newest_modified(&entry.path()))
        .chain(own)
        .max()
}

/// Copies every file of `from` into `to` whose content differs (or is missing there), so an
/// unchanged output keeps its modification time and nothing downstream rebuilds.
pub fn sync_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        if source.is_dir() {
            sync_dir(&source, &target)?;
            continue;
        }
        let bytes = std::fs::read(&source)?;
        if std::fs::read(&target).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&target, bytes)
                .with_context(|| format!("writing {}", target.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod cargo_env_tests {
    use super::cmd;

    /// Cargo sets `CARGO_MANIFEST_DIR` for the tests it runs, as it does for `cargo run`.
    #[test]
    fn nested_cargo_does_not_inherit_what_cargo_run_set() {
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let removed = |program: &str| {
            cmd(program, &[])
                .get_envs()
                .any(|(name, value)| name == "CARGO_MANIFEST_DIR" && value.is_none())
        };
        assert!(removed("cargo"));
        assert!(!removed("npm"));
    }
}
