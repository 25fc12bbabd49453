//! The project's commands as a library: the shared prepare step, the WASM bindings, the core's
//! TypeScript declarations, the built web app, the first-run check and the helpers the commands share. The `xtask` binary
//! (`cargo xtask ...`) is its front end; `xtask-bench` (benchmarks, the API fuzz run) builds on
//! it with the heavier crates those need. Both depend on `workspace-hack` (see [`features`]), so
//! the crates xtask shares with the server are compiled once, with the server's features.

pub mod budget;
pub mod dist;
pub mod engines;
pub mod features;
pub mod first_run;
pub mod prepare;
pub mod types;
pub mod util;
pub mod wasm;

use std::path::PathBuf;

use anyhow::Result;

use util::cmd;

/// The repository root.
pub use util::project_root;

pub fn web_dir() -> PathBuf {
    project_root().join("web")
}

/// The web app built into `web/dist` with the core's WASM module: prepares the machine, binds
/// the module (files rewritten only when they change), and builds the app when `force` or when
/// a source of it is newer than the built app.
pub fn build_app(force: bool, steps: &mut util::Steps) -> Result<()> {
    let root = project_root();
    prepare::prepare(&root, prepare::Needs::ALL, steps)?;
    wasm::build(&root, steps)?;
    let web = web_dir();
    if force || web_is_stale(&web) {
        steps.run(
            "web: build (TypeScript, Vite)",
            cmd("npm", &["run", "build"]).current_dir(&web),
        )?;
    }
    Ok(())
}

/// True when `web/dist/index.html` is missing or older than a source of the app.
pub fn web_is_stale(web: &std::path::Path) -> bool {
    let Some(built) = util::modified(&web.join("dist").join("index.html")) else {
        return true;
    };
    let sources = [
        "src",
        "public",
        "index.html",
        "package-lock.json",
        "vite.config.ts",
        "tsconfig.json",
        "tsconfig.app.json",
    ];
    sources
        .iter()
        .filter_map(|source| util::newest_modified(&web.join(source)))
        .any(|newest| newest > built)
}
