//! `cargo xtask wasm`: the core compiled to WebAssembly for the web app (crate `web/wasm`),
//! bound with wasm-bindgen into `web/src/wasm-pkg`, and the CLI's transcript of the sample flow
//! that the web app's Vitest compares with the WASM module's.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::util::{cmd, run_step, target_dir};

/// Where the bound module goes (ignored by git; rebuilt by `cargo xtask wasm`).
pub fn pkg_dir(root: &Path) -> PathBuf {
    root.join("web").join("src").join("wasm-pkg")
}

/// The wasm-bindgen version the crate pins, read from Cargo.lock (the CLI must match it).
pub fn bindgen_version(root: &Path) -> Result<String> {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\""
            && let Some(version) = lines.next()
            && let Some(v) = version.trim().strip_prefix("version = \"")
        {
            return Ok(v.trim_end_matches('"').to_owned());
        }
    }
    bail!("wasm-bindgen is not in Cargo.lock")
}

/// Builds `web/wasm` for wasm32 (release) and binds it into [`pkg_dir`].
pub fn build(root: &Path) -> Result<()> {
    run_step(
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
    let wanted = bindgen_version(root)?;
    let found = std::process::Command::new("wasm-bindgen")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    if !found.ends_with(&wanted) {
        bail!(
            "wasm-bindgen {wanted} is needed (found {:?}): cargo install wasm-bindgen-cli --version {wanted}",
            found
        );
    }
    let wasm = target_dir(root)
        .join("wasm32-unknown-unknown")
        .join("release")
        .join("chatflow_wasm.wasm");
    let out = pkg_dir(root);
    let out_arg = out.to_string_lossy().into_owned();
    let wasm_arg = wasm.to_string_lossy().into_owned();
    run_step(
        "wasm: bind for the web app",
        cmd(
            "wasm-bindgen",
            &["--target", "web", "--out-dir", &out_arg, &wasm_arg],
        )
        .current_dir(root),
    )
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
