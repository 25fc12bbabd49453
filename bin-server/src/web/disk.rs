//! The web app read from a directory on disk (`CHATFLOW_WEB_DIR`, `cargo xtask run`'s
//! `web/dist`) as an [`AssetSource`], so it is answered by the same [`super::assets::respond`]
//! as the embedded app: the same cache lifetimes, entity tags, `304`s and compressed answers.
//!
//! A file is read when asked for, and gzipped then when its type compresses (text, scripts,
//! styles, SVG, JSON, WebAssembly) and the result is smaller. The answer is kept while the file's
//! length and modification time stay the same, so a rebuilt app is served without a restart and
//! an unchanged file is not compressed twice. The entity tag comes from the length and the
//! modification time. Paths that could leave the directory (`..`, absolute or drive paths) find
//! nothing.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;

use super::assets::{AssetFile, AssetSource};

/// Files kept compressed at most (the built app has a few hundred).
const CACHE_LIMIT: usize = 2048;

/// What identifies one version of a file on disk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    len: u64,
    modified: SystemTime,
}

/// A built app in a directory (see the module notes).
#[derive(Clone, Debug)]
pub struct DiskApp {
    dir: PathBuf,
    cache: Arc<Mutex<HashMap<String, (Stamp, AssetFile)>>>,
}

impl DiskApp {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            cache: Arc::default(),
        }
    }

    /// The file's place on disk, when `path` stays inside the directory.
    fn locate(&self, path: &str) -> Option<PathBuf> {
        let relative = Path::new(path);
        let inside = relative
            .components()
            .all(|part| matches!(part, Component::Normal(_)));
        (inside && !path.contains('\\') && !path.is_empty()).then(|| self.dir.join(relative))
    }

    fn read(&self, path: &str) -> std::io::Result<Option<AssetFile>> {
        let Some(full) = self.locate(path) else {
            return Ok(None);
        };
        let meta = match std::fs::metadata(&full) {
            Ok(meta) if meta.is_file() => meta,
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let stamp = Stamp {
            len: meta.len(),
            modified: meta.modified().unwrap_or(UNIX_EPOCH),
        };
        if let Some((cached, file)) = self.cached(path)
            && cached == stamp
        {
            return Ok(Some(file));
        }
        let body = std::fs::read(&full)?;
        let content_type = chatflow_core::media::mime_of(
            &full
                .file_name()
                .map(|name| name.to_string_lossy())
                .unwrap_or_default(),
        );
        let gzip = if compresses(content_type) {
            gzip(&body)?.filter(|small| small.len() < body.len())
        } else {
            None
        };
        let nanos = stamp
            .modified
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let file = AssetFile {
            body: Bytes::from(body),
            gzip: gzip.map(Bytes::from),
            br: None,
            content_type: Cow::Borrowed(content_type),
            etag: Cow::Owned(format!("\"{:x}-{nanos:x}\"", stamp.len)),
        };
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(path.to_owned(), (stamp, file.clone()));
        }
        Ok(Some(file))
    }

    fn cached(&self, path: &str) -> Option<(Stamp, AssetFile)> {
        self.cache.lock().ok()?.get(path).cloned()
    }
}

impl AssetSource for DiskApp {
    fn file(&self, path: &str) -> Option<AssetFile> {
        match self.read(path) {
            Ok(file) => file,
            Err(e) => {
                tracing::warn!(path, "cannot read the web app's file: {e}");
                None
            }
        }
    }
}

/// True for media types gzip shrinks (the already compressed images, fonts and media are not).
fn compresses(content_type: &str) -> bool {
    content_type.starts_with("text/")
        || matches!(
            content_type,
            "application/javascript"
                | "application/json"
                | "application/manifest+json"
                | "application/wasm"
                | "application/xml"
                | "image/svg+xml"
        )
}

fn gzip(body: &[u8]) -> std::io::Result<Option<Vec<u8>>> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(body)?;
    encoder.finish().map(Some)
}
