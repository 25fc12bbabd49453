//! `cargo xtask dist`: the release archive, one server binary that is a whole installation.
//!
//! [`build`] builds the web app (always, so the archive carries the current app), then a release
//! build of `chatflow-server` with the `embed-web` feature (the app inside the binary) and of
//! `chatflow-cli`, and writes `dist/chatflow-<version>-<target>.tar.gz`: one folder of that name
//! holding `chatflow-server`, `chatflow`, `README.md`, `chatflow.env.example` and
//! `chatflow.service` (both from `packaging/`).
//!
//! [`check`], a step of `cargo xtask test`, proves the archive works on its own. It builds the
//! same archive in the dev profile, under `target/dist-check/`: the release profile's
//! optimisation (thin LTO over the whole graph) is the one difference, and it would add a
//! second cold build of every crate to the test run; `cargo xtask dist --check` checks the
//! release archive itself. The check unpacks it in
//! a temporary directory, starts the unpacked server there on a fresh SQLite database with no
//! `CHATFLOW_WEB_DIR` and no `web/dist` within reach, and asks it for the app, a hashed file in
//! every encoding, a client route and a missing file.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use flate2::Compression;
use flate2::read::{GzDecoder, MultiGzDecoder};
use flate2::write::GzEncoder;
use ureq::http::header::{
    ACCEPT, ACCEPT_ENCODING, AsHeaderName, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH,
    CONTENT_TYPE, ETAG, HeaderMap, HeaderName, IF_NONE_MATCH, VARY,
};
use ureq::http::{Method, StatusCode};

use crate::util::{Steps, TempDir, cmd, launch, run_step, target_dir};

/// `Cache-Control` the server gives the content-hashed files under `/assets/`.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The archive's name without `.tar.gz`, also the name of its one folder.
fn archive_name(root: &Path) -> Result<String> {
    Ok(format!(
        "chatflow-{}-{}",
        env!("CARGO_PKG_VERSION"),
        host_target(root)?
    ))
}

/// The target triple `rustc` builds for by default (the release build's target).
fn host_target(root: &Path) -> Result<String> {
    let output = Command::new("rustc")
        .arg("-vV")
        .current_dir(root)
        .output()
        .context("running rustc -vV")?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(|host| host.trim().to_owned())
        .context("rustc -vV names no host target")
}

/// How the archive's binaries are compiled.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `cargo xtask dist`: the release profile; the archive goes to `dist/`.
    Release,
    /// The test's check: the dev profile the tests already built the crates in; the archive goes
    /// to `target/dist-check/`.
    Dev,
}

/// Builds the archive and returns its path. `web_dist` embeds an app already built there;
/// without it the web app is built first (`npm run build`, with the WASM module).
pub fn build(root: &Path, web_dist: Option<&Path>, profile: Profile) -> Result<PathBuf> {
    let web = match web_dist {
        Some(dir) => dir.to_path_buf(),
        None => {
            crate::build_app(true, &mut Steps::new(0))?;
            root.join("web").join("dist")
        }
    };
    ensure!(
        web.join("index.html").is_file(),
        "{} holds no built web app (no index.html)",
        web.display()
    );
    let web = web
        .canonicalize()
        .with_context(|| format!("resolving {}", web.display()))?;

    let started = Instant::now();
    let mut args = vec![
        "build",
        "--locked",
        "--package",
        "chatflow-server",
        "--package",
        "chatflow-cli",
        "--features",
        "chatflow-server/embed-web",
    ];
    let (label, folder, out) = match profile {
        Profile::Release => {
            args.push("--release");
            ("release", "release", root.join("dist"))
        }
        Profile::Dev => ("dev", "debug", target_dir(root).join("dist-check")),
    };
    run_step(
        &format!("dist: {label} build of the server (web app embedded) and the CLI"),
        cmd("cargo", &args)
            .current_dir(root)
            .env("CHATFLOW_EMBED_WEB_DIR", &web),
    )?;
    let release = target_dir(root).join(folder);
    let name = archive_name(root)?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let archive = out.join(format!("{name}.tar.gz"));
    let packaging = root.join("packaging");
    let files = [
        ("chatflow-server", release.join("chatflow-server"), 0o755),
        ("chatflow", release.join("chatflow"), 0o755),
        ("README.md", root.join("README.md"), 0o644),
        (
            "chatflow.env.example",
            packaging.join("chatflow.env.example"),
            0o644,
        ),
        (
            "chatflow.service",
            packaging.join("chatflow.service"),
            0o644,
        ),
    ];
    write_archive(&archive, &name, &files)?;
    let size = |path: &Path| std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    println!(
        "dist: {} ({:.1} MiB; server binary {:.1} MiB, CLI {:.1} MiB) in {:.0} s",
        archive.display(),
        mib(size(&archive)),
        mib(size(&files[0].1)),
        mib(size(&files[1].1)),
        started.elapsed().as_secs_f64()
    );
    Ok(archive)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Writes `files` (name in the archive, source, mode) into a gzip-compressed tar under the
/// folder `folder`, owned by root, through a temporary file so a failure leaves no archive.
fn write_archive(archive: &Path, folder: &str, files: &[(&str, PathBuf, u32)]) -> Result<()> {
    let partial = archive.with_extension("partial");
    let mtime = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let header = |size: u64, mode: u32, kind: tar::EntryType| {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(size);
        header.set_mode(mode);
        header.set_mtime(mtime);
        header.set_uid(0);
        header.set_gid(0);
        header.set_cksum();
        header
    };
    {
        let file =
            File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
        let gzip = GzEncoder::new(BufWriter::new(file), Compression::best());
        let mut tar = tar::Builder::new(gzip);
        let mut dir = header(0, 0o755, tar::EntryType::Directory);
        tar.append_data(&mut dir, format!("{folder}/"), std::io::empty())?;
        for (name, source, mode) in files {
            let file =
                File::open(source).with_context(|| format!("reading {}", source.display()))?;
            let size = file.metadata()?.len();
            let mut entry = header(size, *mode, tar::EntryType::Regular);
            tar.append_data(&mut entry, format!("{folder}/{name}"), file)
                .with_context(|| format!("adding {name}"))?;
        }
        let mut writer = tar.into_inner()?.finish()?;
        writer.flush()?;
    }
    std::fs::rename(&partial, archive).with_context(|| format!("writing {}", archive.display()))?;
    Ok(())
}

/// `cargo xtask dist [--web-dist DIR] [--check]`.
pub fn run(root: &Path, web_dist: Option<&Path>, check: bool) -> Result<()> {
    let archive = build(root, web_dist, Profile::Release)?;
    if check {
        verify(root, &archive)?;
    }
    Ok(())
}

/// The `cargo xtask test` step (after the web build): builds the archive with the `web/dist`
/// the test's web build has just made, then [`verify`]s it.
pub fn check(root: &Path) -> Result<()> {
    let archive = build(root, Some(&root.join("web").join("dist")), Profile::Dev)?;
    verify(root, &archive)
}

/// The archive, unpacked and started where no `web/dist` exists, serves the app from its
/// binary.
pub fn verify(root: &Path, archive: &Path) -> Result<()> {
    println!("\n==> dist: the unpacked release serves the app from its binary");
    let started = Instant::now();
    let dir = TempDir::new("chatflow-dist-check")?;
    let file = File::open(archive).with_context(|| format!("opening {}", archive.display()))?;
    tar::Archive::new(GzDecoder::new(BufReader::new(file)))
        .unpack(&dir.0)
        .context("unpacking the archive")?;
    let folder = dir.0.join(archive_name(root)?);
    for name in [
        "chatflow-server",
        "chatflow",
        "README.md",
        "chatflow.env.example",
        "chatflow.service",
    ] {
        ensure!(folder.join(name).is_file(), "the archive has no {name}");
    }
    let cli = Command::new(folder.join("chatflow"))
        .arg("--version")
        .output()
        .context("running the archive's chatflow")?;
    ensure!(
        cli.status.success() && String::from_utf8_lossy(&cli.stdout).starts_with("chatflow "),
        "the archive's chatflow --version failed: {}",
        String::from_utf8_lossy(&cli.stderr)
    );

    let data = dir.0.join("data");
    std::fs::create_dir_all(&data)?;
    let mut command = Command::new(folder.join("chatflow-server"));
    command
        .current_dir(&dir.0)
        .env_remove("CHATFLOW_WEB_DIR")
        .env_remove("CHATFLOW_CONFIG");
    let (server, _) = launch(command, TempDir(data), &[])?;
    let base = format!("http://127.0.0.1:{}", server.port);
    serves_the_app(&base)?;
    drop(server);
    println!(
        "<== dist: ok in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        archive.display()
    );
    Ok(())
}

/// A response's header as text ("" when absent).
fn header(headers: &HeaderMap, name: impl AsHeaderName) -> &str {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// The first `/assets/…` file of `extension` that `index.html` names.
fn asset_named(index: &str, extension: &str) -> Option<String> {
    index
        .split(['"', '\''])
        .find(|part| part.starts_with("/assets/") && part.ends_with(extension))
        .map(str::to_owned)
}

/// An answer read whole.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn status(&self) -> StatusCode {
        self.status
    }

    fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    fn bytes(self) -> Vec<u8> {
        self.body
    }

    fn text(self) -> Result<String> {
        String::from_utf8(self.body).context("the answer is not UTF-8")
    }

    fn json(self) -> Result<serde_json::Value> {
        Ok(serde_json::from_slice(&self.body)?)
    }
}

/// `method path` on the server at `base` with `headers`; any status is an answer (ureq is built
/// without decompression, so encodings arrive as sent).
fn request(
    agent: &ureq::Agent,
    method: Method,
    url: &str,
    headers: &[(HeaderName, &str)],
) -> Result<Answer> {
    let mut request = ureq::http::Request::builder().method(method).uri(url);
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    let mut response = agent
        .run(request.body(())?)
        .with_context(|| format!("requesting {url}"))?;
    let body = response
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_vec()
        .with_context(|| format!("reading {url}"))?;
    Ok(Answer {
        status: response.status(),
        headers: response.headers().clone(),
        body,
    })
}

/// The HTTP checks of [`check`] against the server at `base`.
fn serves_the_app(base: &str) -> Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let get = |path: &str, headers: &[(HeaderName, &str)]| {
        request(&agent, Method::GET, &format!("{base}{path}"), headers)
    };

    let root = get("/", &[(ACCEPT, "text/html")])?;
    ensure!(
        root.status() == StatusCode::OK,
        "GET / answered {}",
        root.status()
    );
    ensure!(
        header(root.headers(), CONTENT_TYPE).starts_with("text/html"),
        "GET / is not HTML: {:?}",
        root.headers().get(CONTENT_TYPE)
    );
    ensure!(
        header(root.headers(), CACHE_CONTROL) == "no-cache",
        "index.html must not be cached: {:?}",
        root.headers().get(CACHE_CONTROL)
    );
    let index = root.text()?;
    ensure!(
        index.contains("id=\"root\""),
        "GET / is not the app's index.html (no root element)"
    );

    let Some(script) = asset_named(&index, ".js") else {
        bail!("index.html names no /assets/*.js file");
    };
    let plain = get(&script, &[])?;
    ensure!(
        plain.status() == StatusCode::OK,
        "{script}: {}",
        plain.status()
    );
    let content_type = header(plain.headers(), CONTENT_TYPE).to_owned();
    ensure!(
        content_type.starts_with("text/javascript")
            || content_type.starts_with("application/javascript"),
        "{script} has the content type {content_type:?}"
    );
    ensure!(
        header(plain.headers(), CACHE_CONTROL) == IMMUTABLE,
        "{script} has the cache header {:?}",
        plain.headers().get(CACHE_CONTROL)
    );
    ensure!(
        header(plain.headers(), CONTENT_ENCODING).is_empty(),
        "{script} came compressed to a client that takes no compression"
    );
    ensure!(
        header(plain.headers(), "x-content-type-options") == "nosniff",
        "{script} lacks the security headers"
    );
    let etag = header(plain.headers(), ETAG).to_owned();
    let plain = plain.bytes();

    for (coding, decode) in [
        ("br", decode_brotli as fn(&[u8]) -> Result<Vec<u8>>),
        ("gzip", decode_gzip),
    ] {
        let answer = get(&script, &[(ACCEPT_ENCODING, coding)])?;
        ensure!(answer.status() == StatusCode::OK, "{script} ({coding})");
        ensure!(
            header(answer.headers(), CONTENT_ENCODING) == coding,
            "{script} with Accept-Encoding: {coding} came with Content-Encoding {:?}",
            answer.headers().get(CONTENT_ENCODING)
        );
        ensure!(
            header(answer.headers(), VARY)
                .to_ascii_lowercase()
                .contains("accept-encoding"),
            "{script} ({coding}) lacks Vary: Accept-Encoding"
        );
        ensure!(
            header(answer.headers(), CACHE_CONTROL) == IMMUTABLE,
            "{script} ({coding}) has the cache header {:?}",
            answer.headers().get(CACHE_CONTROL)
        );
        let body = answer.bytes();
        ensure!(
            body.len() < plain.len(),
            "{script} ({coding}) is not smaller"
        );
        ensure!(
            decode(&body)? == plain,
            "{script} ({coding}) does not decode to the file"
        );
    }

    let head = request(
        &agent,
        Method::HEAD,
        &format!("{base}{script}"),
        &[(ACCEPT_ENCODING, "gzip")],
    )?;
    ensure!(
        head.status() == StatusCode::OK && header(head.headers(), CONTENT_ENCODING) == "gzip",
        "HEAD {script} answered {} {:?}",
        head.status(),
        head.headers().get(CONTENT_ENCODING)
    );
    ensure!(
        header(head.headers(), CONTENT_LENGTH)
            .parse::<usize>()
            .is_ok_and(|n| n > 0),
        "HEAD {script} has the Content-Length {:?}",
        head.headers().get(CONTENT_LENGTH)
    );

    ensure!(!etag.is_empty(), "{script} has no ETag");
    let again = get(&script, &[(IF_NONE_MATCH, &etag)])?;
    ensure!(
        again.status() == StatusCode::NOT_MODIFIED,
        "{script} with If-None-Match of its ETag answered {}",
        again.status()
    );

    if let Some(style) = asset_named(&index, ".css") {
        let answer = get(&style, &[])?;
        ensure!(
            answer.status() == StatusCode::OK,
            "{style}: {}",
            answer.status()
        );
        ensure!(
            header(answer.headers(), CONTENT_TYPE).starts_with("text/css"),
            "{style} has the content type {:?}",
            answer.headers().get(CONTENT_TYPE)
        );
        ensure!(
            header(answer.headers(), CACHE_CONTROL) == IMMUTABLE,
            "{style}: cache"
        );
    }

    let route = get("/tickets", &[(ACCEPT, "text/html,application/xhtml+xml")])?;
    ensure!(
        route.status() == StatusCode::OK,
        "/tickets: {}",
        route.status()
    );
    ensure!(
        header(route.headers(), CACHE_CONTROL) == "no-cache",
        "/tickets (the app's index) must not be cached"
    );
    ensure!(
        route.text()? == index,
        "/tickets is not the app's index.html"
    );

    let missing = get("/assets/nope.js", &[])?;
    ensure!(
        missing.status() == StatusCode::NOT_FOUND,
        "/assets/nope.js answered {}",
        missing.status()
    );
    let body = missing
        .json()
        .context("/assets/nope.js is not a JSON error")?;
    ensure!(
        body["error"] == "ERR_NOT_FOUND",
        "/assets/nope.js answered {body}"
    );

    let doc = get("/api-docs/openapi.json", &[(ACCEPT, "text/html")])?;
    ensure!(
        doc.text()?.contains("\"openapi\""),
        "/api-docs/openapi.json became the app"
    );
    Ok(())
}

fn decode_gzip(body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    MultiGzDecoder::new(body)
        .read_to_end(&mut out)
        .context("not gzip")?;
    Ok(out)
}

fn decode_brotli(body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(body, 4096)
        .read_to_end(&mut out)
        .context("not brotli")?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_are_found_in_the_index() {
        let index = r#"<script type="module" crossorigin src="/assets/index-B2x9aQ1c.js"></script>
            <link rel="stylesheet" crossorigin href="/assets/index-Cq81pLmZ.css"><link rel="icon" href="/favicon.svg" />"#;
        assert_eq!(
            asset_named(index, ".js").as_deref(),
            Some("/assets/index-B2x9aQ1c.js")
        );
        assert_eq!(
            asset_named(index, ".css").as_deref(),
            Some("/assets/index-Cq81pLmZ.css")
        );
        assert_eq!(asset_named(index, ".wasm"), None);
    }

    #[test]
    fn an_archive_unpacks_to_its_folder_with_modes() {
        let dir = TempDir::new("chatflow-dist-unit").expect("a temporary directory");
        let source = dir.0.join("tool");
        std::fs::write(&source, "#!/bin/sh\n").expect("written");
        let archive = dir.0.join("a.tar.gz");
        write_archive(
            &archive,
            "chatflow-0.0.0-test",
            &[("tool", source.clone(), 0o755), ("notes", source, 0o644)],
        )
        .expect("archive");
        assert!(!archive.with_extension("partial").exists());
        let out = dir.0.join("out");
        tar::Archive::new(GzDecoder::new(File::open(&archive).expect("open")))
            .unpack(&out)
            .expect("unpack");
        use std::os::unix::fs::PermissionsExt;
        let mode = |name: &str| {
            std::fs::metadata(out.join("chatflow-0.0.0-test").join(name))
                .expect("unpacked")
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("tool"), 0o755);
        assert_eq!(mode("notes"), 0o644);
    }
}
