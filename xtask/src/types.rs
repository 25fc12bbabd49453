//! `cargo xtask types`: the TypeScript declarations of the types the web app shares with the core
//! (`chatflow_core::typescript`), printed by the core's `core-typescript` binary (built with the
//! core's `ts` feature; xtask does not link the core) and written to [`GENERATED_FILE`]. The
//! core's test `generated_typescript_is_current`, which `cargo xtask test` runs, fails while the
//! committed file differs.

use std::path::Path;
use std::process::Stdio;

use anyhow::{Context, Result, ensure};

use crate::util::{Steps, cmd};

/// The generated file, from the repository root (the core names the same path).
pub const GENERATED_FILE: &str = "web/src/lib/core-types/generated.ts";

/// Generates the declarations and writes them when they changed.
pub fn write(root: &Path, steps: &mut Steps) -> Result<()> {
    let text = steps.timed("types: the core's TypeScript declarations", || {
        let output = cmd(
            "cargo",
            &[
                "run",
                "--quiet",
                "--package",
                "chatflow-core",
                "--features",
                "ts",
                "--bin",
                "core-typescript",
            ],
        )
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .context("starting cargo run --bin core-typescript")?;
        ensure!(
            output.status.success(),
            "core-typescript failed ({})",
            output.status
        );
        String::from_utf8(output.stdout).context("core-typescript printed invalid UTF-8")
    })?;
    let path = root.join(GENERATED_FILE);
    if std::fs::read_to_string(&path).is_ok_and(|committed| committed == text) {
        println!("{GENERATED_FILE} is up to date");
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!("wrote {GENERATED_FILE}");
    Ok(())
}
