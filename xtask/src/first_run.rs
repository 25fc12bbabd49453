//! The check that the README's run command works from a clean clone, as a new user would run
//! it: HEAD cloned (the same tree `git clone` gives, with nothing untracked), then
//! `cargo xtask run` there on a free port with none of our settings in the environment; it must
//! print the generated sign-in details, answer `/health`, accept those details at
//! `/auth/login` and serve the web app's HTML at `/`.
//!
//! The clone is kept under the cache directory (`$CHATFLOW_CACHE_DIR/first-run`, default
//! `~/.cache/chatflow`) and reset and cleaned of every untracked file before each check; it
//! builds its own workspace crates from its own sources. When this checkout is clean (nothing
//! uncommitted or untracked: always so in CI), the clone shares this checkout's target
//! directory, so a check compiles only the workspace crates and reuses every dependency. When
//! it is not, the clone builds in a target directory of its own next to it (a first check there
//! compiles everything): cargo keys a workspace crate by its path relative to the workspace and
//! checks the source times of whichever checkout asks, so HEAD's crates built by the clone would
//! look fresh to this checkout and hide its older uncommitted edits from cargo.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::util::{cmd, free_port, http_status, run_step};

/// How long the clone's first run may take (a cold build on a 2-core machine, npm ci, the web
/// build) before the check gives up.
const FIRST_RUN_LIMIT: Duration = Duration::from_secs(45 * 60);

/// The environment a new user's shell would pass: the system's, with none of ours.
const KEPT_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_HOME",
    "CARGO_INCREMENTAL",
    "npm_config_cache",
];

/// Where the clone and its build live.
fn cache_dir() -> PathBuf {
    match std::env::var_os("CHATFLOW_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(crate::util::env_or("HOME", "/tmp"))
            .join(".cache")
            .join("chatflow"),
    }
    .join("first-run")
}

/// Runs the check (see the module notes).
pub fn check(root: &Path) -> Result<()> {
    let base = cache_dir();
    let clone = base.join("clone");
    std::fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
    let changes = git_output(root, &["status", "--porcelain"])?;
    let target = if changes.is_empty() {
        crate::util::target_dir(root)
    } else {
        println!(
            "first run: this checkout has uncommitted changes, so the clone builds in its own target directory ({})",
            base.join("target").display()
        );
        base.join("target")
    };
    let head = git_output(root, &["rev-parse", "HEAD"])?;
    clean_clone(root, &clone, &head)?;

    let port = free_port()?;
    let mut command = Command::new("cargo");
    command
        .args(["xtask", "run"])
        .current_dir(&clone)
        .env_clear()
        .envs(
            KEPT_VARIABLES
                .iter()
                .filter_map(|name| std::env::var_os(name).map(|value| (*name, value))),
        )
        .env("CARGO_TARGET_DIR", &target)
        .env("PORT", port.to_string())
        .env("CHATFLOW_HOST", "127.0.0.1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so stopping it stops cargo, xtask and the server together.
        .process_group(0);
    println!(
        "\n==> first run: `cargo xtask run` in a clean clone of {} ({}), port {port}",
        &head[..head.len().min(12)],
        clone.display()
    );
    let started = Instant::now();
    let child = command.spawn().context("starting cargo xtask run")?;
    let mut run = FirstRun::new(child);
    let outcome = run.verify(port, started);
    run.stop();
    let took = started.elapsed().as_secs_f64();
    match outcome {
        Ok(()) => {
            println!("<== first run: ok in {took:.1} s (signed in, the web app served)");
            Ok(())
        }
        Err(e) => Err(e.context(format!(
            "first run from a clean clone failed after {took:.1} s; its last lines:\n{}",
            run.tail()
        ))),
    }
}

/// Makes `clone` hold exactly the tree of `head`, with nothing untracked or ignored left.
fn clean_clone(root: &Path, clone: &Path, head: &str) -> Result<()> {
    if !clone.join(".git").is_dir() {
        let _ = std::fs::remove_dir_all(clone);
        run_step(
            "first run: git clone",
            cmd("git", &["clone", "--quiet", "--no-checkout"])
                .arg(root)
                .arg(clone),
        )?;
    }
    run_step(
        "first run: git fetch HEAD",
        cmd("git", &["fetch", "--quiet", "--no-tags"])
            .arg(root)
            .arg(head)
            .current_dir(clone),
    )?;
    run_step(
        "first run: check out HEAD and remove every untracked file",
        cmd("sh", &["-c", "git checkout --quiet --force --detach \"$1\" && git reset --quiet --hard \"$1\" && git clean -ffdxq", "sh", head])
            .current_dir(clone),
    )?;
    let checked_out = git_output(clone, &["rev-parse", "HEAD"])?;
    let status = git_output(clone, &["status", "--porcelain", "--ignored"])?;
    if checked_out != head || !status.is_empty() {
        bail!("the clone is not a clean copy of {head}: at {checked_out}, status {status:?}");
    }
    Ok(())
}

fn git_output(dir: &Path, args: &[&str]) -> Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .with_context(|| format!("git {args:?} in {}", dir.display()))?;
    if !output.status.success() {
        bail!(
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The running `cargo xtask run` with its output, echoed and kept.
struct FirstRun {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl FirstRun {
    fn new(mut child: Child) -> Self {
        let (sender, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            forward(stdout, sender.clone());
        }
        if let Some(stderr) = child.stderr.take() {
            forward(stderr, sender);
        }
        Self {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn drain(&mut self) {
        while let Ok(line) = self.lines.try_recv() {
            println!("first run | {line}");
            self.seen.push(line);
        }
    }

    fn tail(&self) -> String {
        let from = self.seen.len().saturating_sub(30);
        self.seen[from..].join("\n")
    }

    /// Waits for `/health`, then signs in with the printed details and loads `/`.
    fn verify(&mut self, port: u16, started: Instant) -> Result<()> {
        loop {
            self.drain();
            if http_status(port, "/health") == Some(200) {
                break;
            }
            if let Some(status) = self.child.try_wait()? {
                self.drain();
                bail!("cargo xtask run exited before the server answered: {status}");
            }
            if started.elapsed() > FIRST_RUN_LIMIT {
                bail!(
                    "the server did not answer /health within {} min",
                    FIRST_RUN_LIMIT.as_secs() / 60
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        // The sign-in box is printed before the server listens; give the pipe a moment.
        std::thread::sleep(Duration::from_millis(300));
        self.drain();
        let (email, password) = printed_credentials(&self.seen)
            .context("the first start printed no sign-in details (e-mail and password)")?;
        sign_in_and_load(port, &email, &password)
    }

    /// Stops the whole process group: politely, then for good.
    fn stop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
        self.drain();
    }
}

fn forward(stream: impl std::io::Read + Send + 'static, sender: mpsc::Sender<String>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if sender.send(line).is_err() {
                break;
            }
        }
    });
}

/// The e-mail and password of the box the server prints on its first start.
fn printed_credentials(lines: &[String]) -> Option<(String, String)> {
    let value = |label: &str| {
        lines.iter().find_map(|line| {
            let rest = line.split_once(label)?.1;
            let value = rest.trim().trim_end_matches('│').trim();
            (!value.is_empty()).then(|| value.to_owned())
        })
    };
    Some((value("e-mail:")?, value("password:")?))
}

fn sign_in_and_load(port: u16, email: &str, password: &str) -> Result<()> {
    let base = format!("http://127.0.0.1:{port}");
    let answer: serde_json::Value = ureq::post(format!("{base}/auth/login"))
        .send_json(serde_json::json!({"email": email, "password": password}))
        .context("signing in with the printed details")?
        .body_mut()
        .read_json()?;
    if answer.get("token").and_then(|t| t.as_str()).is_none() {
        bail!("the sign-in answer has no token: {answer}");
    }
    let html = ureq::get(format!("{base}/"))
        .header("accept", "text/html")
        .call()
        .context("loading /")?
        .body_mut()
        .read_to_string()?;
    if !html.contains("<div id=\"root\">") || !html.contains("<script") {
        bail!(
            "/ is not the web app's HTML: {}",
            &html[..html.len().min(300)]
        );
    }
    println!(
        "first run: signed in as {email} and loaded the web app ({} bytes)",
        html.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printed_box_gives_the_credentials() {
        let lines: Vec<String> = [
            "  ┌──────────┐",
            "  │ Chatflow super admin created (shown only this once)        │",
            "  │   e-mail:   admin@chatflow.local                           │",
            "  │   password: Xy7-abc_DEF                                    │",
            "  └──────────┘",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        assert_eq!(
            printed_credentials(&lines),
            Some(("admin@chatflow.local".into(), "Xy7-abc_DEF".into()))
        );
        assert_eq!(printed_credentials(&lines[..3]), None);
    }
}
