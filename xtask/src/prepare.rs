//! The one prepare step every entry point shares (`run`, `test`, `bench`, `dist`, `wasm` and
//! `.ci/run` through `test`): it brings in what a fresh machine with only the Rust toolchain and
//! Node.js lacks, and costs nothing on a warm machine.
//!
//! - the `wasm32-unknown-unknown` target of the Rust toolchain (through rustup);
//! - the web app's packages (`npm ci` in `web/`), again whenever `package-lock.json` changes.
//!
//! The wasm-bindgen step needs no separate tool: xtask links `wasm-bindgen-cli-support` at the
//! version `Cargo.lock` pins for `wasm-bindgen` (see [`crate::wasm`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::util::{Steps, cmd};

/// The oldest Node.js major version the web app's toolchain runs on.
const MIN_NODE_MAJOR: u32 = 20;
const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// What a command needs prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The wasm32 target (the core built for the browser).
    pub wasm: bool,
    /// The web app's packages.
    pub web: bool,
}

impl Needs {
    pub const ALL: Self = Self {
        wasm: true,
        web: true,
    };
}

/// One thing a fresh machine lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Missing {
    WasmTarget,
    NodePackages,
}

impl Missing {
    fn describe(&self) -> &'static str {
        match self {
            Self::WasmTarget => "the Rust target wasm32-unknown-unknown (rustup)",
            Self::NodePackages => "the web app's packages (npm ci)",
        }
    }
}

/// Brings in what is missing for `needs`, printing one line first when there is anything to do.
pub fn prepare(root: &Path, needs: Needs, steps: &mut Steps) -> Result<()> {
    let mut missing = Vec::new();
    if needs.wasm && !wasm_target_installed()? {
        missing.push(Missing::WasmTarget);
    }
    if needs.web {
        check_node()?;
        if !node_packages_current(&root.join("web")) {
            missing.push(Missing::NodePackages);
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    steps.add(missing.len());
    let list: Vec<&str> = missing.iter().map(Missing::describe).collect();
    println!(
        "prepare: installing {}; a first run on a fresh machine takes several minutes (later runs reuse it)",
        list.join(" and ")
    );
    for item in missing {
        match item {
            Missing::WasmTarget => install_wasm_target(steps)?,
            Missing::NodePackages => install_node_packages(&root.join("web"), steps)?,
        }
    }
    Ok(())
}

/// True when the toolchain's sysroot holds the wasm32 standard library.
fn wasm_target_installed() -> Result<bool> {
    let output = Command::new(rustc())
        .args(["--print", "sysroot"])
        .output()
        .context("running rustc --print sysroot")?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    Ok(sysroot
        .join("lib")
        .join("rustlib")
        .join(WASM_TARGET)
        .join("lib")
        .is_dir())
}

/// The compiler cargo uses (cargo sets `RUSTC` for build scripts and aliases; `rustc` otherwise).
fn rustc() -> String {
    std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned())
}

fn install_wasm_target(steps: &mut Steps) -> Result<()> {
    let has_rustup = Command::new("rustup")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_rustup {
        bail!(
            "the Rust target {WASM_TARGET} is missing and rustup is not installed: install the target with your toolchain's installer"
        );
    }
    steps.run(
        "prepare: rustup target add wasm32-unknown-unknown",
        &mut cmd("rustup", &["target", "add", WASM_TARGET]),
    )
}

/// Fails with a clear message when Node.js or npm is missing or too old.
fn check_node() -> Result<()> {
    let output = Command::new("node")
        .arg("--version")
        .output()
        .map_err(|e| {
            anyhow::anyhow!("Node.js {MIN_NODE_MAJOR} or newer is needed for the web app ({e})")
        })?;
    let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    match node_major(&version) {
        Some(major) if major >= MIN_NODE_MAJOR => {}
        _ => {
            bail!("Node.js {MIN_NODE_MAJOR} or newer is needed for the web app (found {version:?})")
        }
    }
    Command::new("npm")
        .arg("--version")
        .output()
        .map_err(|e| anyhow::anyhow!("npm is needed for the web app ({e})"))?;
    Ok(())
}

/// The major version of `node --version`'s answer (`v20.20.2` → 20).
fn node_major(version: &str) -> Option<u32> {
    version
        .trim()
        .strip_prefix('v')?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The copy of `package-lock.json` kept in `node_modules` after a successful `npm ci`: the
/// packages are current while it equals the lockfile.
fn installed_lock(web: &Path) -> PathBuf {
    web.join("node_modules").join(".chatflow-package-lock.json")
}

fn node_packages_current(web: &Path) -> bool {
    match (
        std::fs::read(web.join("package-lock.json")),
        std::fs::read(installed_lock(web)),
    ) {
        (Ok(lock), Ok(installed)) => lock == installed,
        _ => false,
    }
}

fn install_node_packages(web: &Path, steps: &mut Steps) -> Result<()> {
    steps.run(
        "prepare: npm ci (the web app's packages)",
        cmd("npm", &["ci", "--no-audit", "--no-fund"]).current_dir(web),
    )?;
    std::fs::copy(web.join("package-lock.json"), installed_lock(web))
        .context("recording the installed package-lock.json")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_versions_are_read() {
        assert_eq!(node_major("v20.20.2\n"), Some(20));
        assert_eq!(node_major("v22.1.0"), Some(22));
        assert_eq!(node_major("20.1.0"), None);
        assert_eq!(node_major(""), None);
    }

    #[test]
    fn packages_are_current_only_while_the_lockfile_matches_the_installed_copy() {
        let dir = crate::util::TempDir::new("chatflow-prepare").expect("temp dir");
        let web = &dir.0;
        std::fs::write(web.join("package-lock.json"), "{\"v\":1}").expect("lock");
        assert!(!node_packages_current(web), "no node_modules");
        std::fs::create_dir_all(web.join("node_modules")).expect("node_modules");
        assert!(!node_packages_current(web), "never installed by us");
        std::fs::write(installed_lock(web), "{\"v\":1}").expect("stamp");
        assert!(node_packages_current(web));
        std::fs::write(web.join("package-lock.json"), "{\"v\":2}").expect("lock");
        assert!(!node_packages_current(web), "the lockfile changed");
    }
}
