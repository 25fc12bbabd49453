//! With the `embed-web` feature, finds the built web app to embed and hands its absolute path to
//! the compiler (`CHATFLOW_EMBEDDED_WEB_DIR`, read by `web::assets::embedded`).
//!
//! The folder is `CHATFLOW_EMBED_WEB_DIR` (relative paths are taken from the workspace root),
//! by default `web/dist`. The build fails with a clear message when it has no `index.html`.
//! Cargo reruns this script, and so rebuilds the server, when a file of that folder changes.
//! Without the feature nothing is read, so debug builds and tests never depend on `web/dist`.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_EMBED_WEB").is_none() {
        return;
    }
    println!("cargo::rerun-if-env-changed=CHATFLOW_EMBED_WEB_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let workspace = manifest
        .parent()
        .map_or_else(|| manifest.clone(), Path::to_path_buf);
    let dir = match std::env::var_os("CHATFLOW_EMBED_WEB_DIR") {
        Some(dir) if !dir.is_empty() => workspace.join(dir),
        _ => workspace.join("web").join("dist"),
    };
    if !dir.join("index.html").is_file() {
        println!(
            "cargo::error=the `embed-web` feature embeds the built web app, but {} has no \
             index.html: build it first (`npm run build` in web/, or `cargo xtask dist`, which \
             does), or set CHATFLOW_EMBED_WEB_DIR to a built app",
            dir.display()
        );
        return;
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    let Some(path) = dir.to_str() else {
        println!(
            "cargo::error=the web app's folder {} is not valid UTF-8",
            dir.display()
        );
        return;
    };
    println!("cargo::rerun-if-changed={path}");
    println!("cargo::rustc-env=CHATFLOW_EMBEDDED_WEB_DIR={path}");
}
