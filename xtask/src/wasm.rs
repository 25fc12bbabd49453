//! `cargo xtask wasm`: the core compiled to WebAssembly for the web app (crate `web/wasm`),
//! bound with the wasm-bindgen library (`wasm-bindgen-cli-support`, linked into xtask at the
//! version the crate pins) into `web/src/wasm-pkg`, and the CLI's transcript of the sample flow
//! that the web app's Vitest compares with the WASM module's. The other browser-versus-server
//! cases (form rules, password strength, list membership, inbox controls, flow limits) are
//! written there by the Rust test `web/wasm/tests/rules_cases.rs`, which `cargo xtask test` runs
//! with the workspace's tests; [`rules_cases`] checks they are there before the web tests.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::prepare;
use crate::util::{Steps, TempDir, cmd, sync_dir, target_dir};

/// Where the bound module goes (ignored by git; rebuilt by `cargo xtask wasm`).
pub fn pkg_dir(root: &Path) -> PathBuf {
    root.join("web").join("src").join("wasm-pkg")
}

/// Builds `web/wasm` for wasm32 (release) and binds it into [`pkg_dir`] with the
/// wasm-bindgen library linked into xtask (no separate tool to install).
pub fn build(root: &Path, steps: &mut Steps) -> Result<()> {
    prepare::prepare(
        root,
        prepare::Needs {
            wasm: true,
            web: false,
        },
        steps,
    )?;
    steps.run(
        "wasm: the core for wasm32 (web/wasm)",
        cmd(
            "cargo",
            &[
                "build",
                "--package",
                "chatflow-wasm",
                "--target",
                "wasm32-unknown-unknown",
                "--release",
            ],
        )
        .current_dir(root),
    )?;
    let wasm = target_dir(root)
        .join("wasm32-unknown-unknown")
        .join("release")
        .join("chatflow_wasm.wasm");
    let out = pkg_dir(root);
    steps.timed("wasm: bind for the web app (wasm-bindgen)", || {
        // Generated apart, then copied where it changed: an unchanged module keeps its files'
        // times, so the web app is not rebuilt for nothing.
        let fresh = TempDir::new("chatflow-wasm-pkg")?;
        wasm_bindgen_cli_support::Bindgen::new()
            .input_path(&wasm)
            .web(true)?
            .typescript(true)
            // As the command-line tool does: `init()` may be called without a path and
            // fetches the .wasm file next to the script.
            .omit_default_module_path(false)
            .generate(&fresh.0)
            .with_context(|| format!("binding {}", wasm.display()))?;
        sync_dir(&fresh.0, &out)
    })
}

/// Writes the CLI's `--json` transcript of `examples/flow-run/flows/welcome.json` with the
/// inputs of `welcome.case.json` into [`pkg_dir`]`/cli-transcript.json`, for the web test that
/// runs the same case through the WASM module. `cli` is the built `chatflow` binary.
pub fn cli_transcript(root: &Path, cli: &Path) -> Result<()> {
    let flows = root.join("examples").join("flow-run").join("flows");
    let case: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(flows.join("welcome.case.json"))
            .context("reading welcome.case.json")?,
    )?;
    let mut args: Vec<String> = vec![
        "--json".into(),
        "flow".into(),
        "simulate".into(),
        flows.join("welcome.json").to_string_lossy().into_owned(),
        "--seed".into(),
        case["seed"].as_str().unwrap_or("0").to_owned(),
    ];
    for (key, value) in case["vars"].as_object().into_iter().flatten() {
        args.push("--var".into());
        args.push(format!("{key}={}", value.as_str().unwrap_or_default()));
    }
    for input in case["inputs"].as_array().into_iter().flatten() {
        args.push("--input".into());
        args.push(input.as_str().unwrap_or_default().to_owned());
    }
    let output = std::process::Command::new(cli)
        .args(&args)
        .output()
        .with_context(|| format!("running {}", cli.display()))?;
    if !output.status.success() {
        bail!(
            "chatflow flow simulate failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    std::fs::create_dir_all(pkg_dir(root))?;
    std::fs::write(pkg_dir(root).join("cli-transcript.json"), &output.stdout)?;
    println!("wrote the CLI transcript of welcome.json for the WASM comparison");
    Ok(())
}

/// Fails unless the Rust tests wrote [`pkg_dir`]`/rules-cases.json` (the native core's answers
/// that `web/src/lib/wasm/rules.test.ts` compares the web app's with).
pub fn rules_cases(root: &Path) -> Result<()> {
    let cases = pkg_dir(root).join("rules-cases.json");
    if !cases.is_file() {
        bail!(
            "{} is missing: `cargo test -p chatflow-wasm --test rules_cases` writes it",
            cases.display()
        );
    }
    println!("the rules' browser-versus-server cases are in place");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version `Cargo.lock` records for `package` (the first entry of that name).
    fn locked_version(root: &Path, package: &str) -> Result<String> {
        let lock =
            std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
        let mut lines = lock.lines();
        let wanted = format!("name = \"{package}\"");
        while let Some(line) = lines.next() {
            if line.trim() == wanted
                && let Some(version) = lines.next()
                && let Some(v) = version.trim().strip_prefix("version = \"")
            {
                return Ok(v.trim_end_matches('"').to_owned());
            }
        }
        bail!("{package} is not in Cargo.lock")
    }

    /// The bindings library must be the exact version of the `wasm-bindgen` crate the module is
    /// built with, or the generated glue does not match the module.
    #[test]
    fn the_bindings_library_matches_the_crate_it_binds() {
        let root = crate::util::project_root();
        let crate_version = locked_version(&root, "wasm-bindgen").expect("wasm-bindgen");
        let library = locked_version(&root, "wasm-bindgen-cli-support").expect("cli-support");
        assert_eq!(crate_version, library);
    }
}
