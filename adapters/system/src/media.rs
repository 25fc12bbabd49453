//! Media files in a local directory.
//!
//! Layout: `<root>/company-<id>/<stored name>`. Stored names are generated here, never taken
//! from the client: 32 lowercase hex digits of a random uuid, optionally followed by a dot and a
//! short lowercase alphanumeric extension kept from the uploaded file's name. Every read and
//! delete checks a name has exactly that shape before touching the disk, so a name can never
//! leave its company's directory (no separators, no `..`, no absolute paths).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use chatflow_core::ports::MediaStore;
use chatflow_core::{Error, Result, TenantScope};
use uuid::Uuid;

/// Longest extension kept from an uploaded file's name.
const MAX_EXTENSION_LEN: usize = 10;

/// Media stored on the local filesystem, one directory per company.
#[derive(Debug, Clone)]
pub struct LocalMediaStore {
    root: PathBuf,
}

impl LocalMediaStore {
    /// A store rooted at `root`; directories are created on the first write.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory under which every company's directory lives.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of the scope's company.
    pub fn company_dir(&self, scope: TenantScope) -> PathBuf {
        self.root.join(format!("company-{}", scope.company_id()))
    }

    /// Where a stored file of the company lives, or `None` when `stored_name` is not a name this
    /// store could have generated (so it cannot point outside the company's directory).
    pub fn path_of(&self, scope: TenantScope, stored_name: &str) -> Option<PathBuf> {
        is_stored_name(stored_name).then(|| self.company_dir(scope).join(stored_name))
    }
}

/// A fresh stored name for an upload called `file_name`.
fn stored_name_for(file_name: &str) -> String {
    let stem = Uuid::new_v4().simple().to_string();
    match extension_of(file_name) {
        Some(ext) => format!("{stem}.{ext}"),
        None => stem,
    }
}

/// The lower-cased extension of `file_name` when it is short and purely alphanumeric.
fn extension_of(file_name: &str) -> Option<String> {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let (stem, ext) = base.rsplit_once('.')?;
    let valid = !stem.is_empty()
        && !ext.is_empty()
        && ext.len() <= MAX_EXTENSION_LEN
        && ext.chars().all(|c| c.is_ascii_alphanumeric());
    valid.then(|| ext.to_ascii_lowercase())
}

/// True when `name` has the exact shape [`stored_name_for`] produces.
fn is_stored_name(name: &str) -> bool {
    let (stem, ext) = match name.split_once('.') {
        Some((stem, ext)) => (stem, Some(ext)),
        None => (name, None),
    };
    let stem_ok = stem.len() == 32
        && stem
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
    let ext_ok = ext.is_none_or(|ext| {
        !ext.is_empty()
            && ext.len() <= MAX_EXTENSION_LEN
            && ext
                .chars()
                .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    });
    stem_ok && ext_ok
}

#[async_trait]
impl MediaStore for LocalMediaStore {
    async fn put(&self, scope: TenantScope, file_name: &str, bytes: &[u8]) -> Result<String> {
        let dir = self.company_dir(scope);
        tokio::fs::create_dir_all(&dir).await.map_err(|e| {
            Error::internal(format!("creating media directory {}: {e}", dir.display()))
        })?;
        let name = stored_name_for(file_name);
        // Write to a hidden temporary name, then rename: readers never see half a file.
        let temp = dir.join(format!(".{name}.part"));
        let target = dir.join(&name);
        tokio::fs::write(&temp, bytes)
            .await
            .map_err(|e| Error::internal(format!("writing media file {}: {e}", temp.display())))?;
        if let Err(e) = tokio::fs::rename(&temp, &target).await {
            let _ignored = tokio::fs::remove_file(&temp).await;
            return Err(Error::internal(format!(
                "storing media file {}: {e}",
                target.display()
            )));
        }
        Ok(name)
    }

    async fn get(&self, scope: TenantScope, stored_name: &str) -> Result<Option<Vec<u8>>> {
        let Some(path) = self.path_of(scope, stored_name) else {
            return Ok(None);
        };
        match tokio::fs::read(&path).await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::internal(format!(
                "reading media file {}: {e}",
                path.display()
            ))),
        }
    }

    async fn delete(&self, scope: TenantScope, stored_name: &str) -> Result<()> {
        let Some(path) = self.path_of(scope, stored_name) else {
            return Ok(());
        };
        match tokio::fs::remove_file(&path).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::internal(format!(
                "deleting media file {}: {e}",
                path.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use chatflow_core::CompanyId;

    use super::*;

    fn scope(id: i64) -> TenantScope {
        TenantScope::new(CompanyId(id))
    }

    fn temp_store() -> (tempfile::TempDir, LocalMediaStore) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = LocalMediaStore::new(dir.path().join("media"));
        (dir, store)
    }

    #[tokio::test]
    async fn put_then_get_then_delete() {
        let (_dir, store) = temp_store();
        let name = store
            .put(scope(3), "Avatar.PNG", b"png bytes")
            .await
            .expect("stored");
        assert!(name.ends_with(".png"), "{name}");
        assert!(store.company_dir(scope(3)).join(&name).is_file());
        assert_eq!(
            store.get(scope(3), &name).await.expect("read"),
            Some(b"png bytes".to_vec())
        );
        store.delete(scope(3), &name).await.expect("deleted");
        assert_eq!(store.get(scope(3), &name).await.expect("read"), None);
        // Deleting again is not an error.
        store
            .delete(scope(3), &name)
            .await
            .expect("idempotent delete");
    }

    #[tokio::test]
    async fn names_are_generated_and_never_reuse_the_upload_name() {
        let (_dir, store) = temp_store();
        let a = store
            .put(scope(1), "report.pdf", b"a")
            .await
            .expect("stored");
        let b = store
            .put(scope(1), "report.pdf", b"b")
            .await
            .expect("stored");
        assert_ne!(a, b);
        assert!(!a.contains("report"));
        assert!(is_stored_name(&a) && is_stored_name(&b));
    }

    #[tokio::test]
    async fn hostile_upload_names_stay_inside_the_company_directory() {
        let (dir, store) = temp_store();
        for hostile in [
            "../../etc/passwd",
            "/etc/passwd",
            "..",
            "a/../../b.sh",
            "x.../..",
            "C:\\evil.exe",
            "",
        ] {
            let name = store.put(scope(2), hostile, b"x").await.expect("stored");
            assert!(is_stored_name(&name), "{hostile} gave {name}");
            assert!(store.company_dir(scope(2)).join(&name).is_file());
        }
        // Nothing was written anywhere but the company's directory.
        let mut top = std::fs::read_dir(dir.path().join("media")).expect("root listed");
        let only = top.next().expect("one entry").expect("readable entry");
        assert_eq!(only.file_name(), "company-2");
        assert!(top.next().is_none());
    }

    #[tokio::test]
    async fn traversal_names_are_refused_on_read_and_delete() {
        let (dir, store) = temp_store();
        let secret = dir.path().join("secret.txt");
        std::fs::write(&secret, b"do not read").expect("secret written");
        let media_secret = dir.path().join("media").join("secret.txt");
        std::fs::create_dir_all(dir.path().join("media")).expect("media dir");
        std::fs::write(&media_secret, b"do not read").expect("secret written");
        for hostile in [
            "../../secret.txt",
            "../secret.txt",
            secret.to_str().expect("utf-8 path"),
            "..",
            ".",
            "",
            "0123456789abcdef0123456789abcdef/../../secret.txt",
            "0123456789ABCDEF0123456789ABCDEF",
            "0123456789abcdef0123456789abcdef.",
            "0123456789abcdef0123456789abcdef.p/g",
        ] {
            assert_eq!(
                store.get(scope(1), hostile).await.expect("no error"),
                None,
                "{hostile}"
            );
            store.delete(scope(1), hostile).await.expect("no error");
        }
        assert!(secret.is_file());
        assert!(media_secret.is_file());
    }

    #[tokio::test]
    async fn one_company_cannot_read_or_delete_anothers_file() {
        let (_dir, store) = temp_store();
        let name = store
            .put(scope(1), "a.txt", b"company one")
            .await
            .expect("stored");
        assert_eq!(store.get(scope(2), &name).await.expect("read"), None);
        store.delete(scope(2), &name).await.expect("no error");
        assert_eq!(
            store.get(scope(1), &name).await.expect("read"),
            Some(b"company one".to_vec())
        );
    }

    #[test]
    fn extensions_are_kept_only_when_safe() {
        assert_eq!(extension_of("photo.JPG").as_deref(), Some("jpg"));
        assert_eq!(extension_of("dir/clip.mp4").as_deref(), Some("mp4"));
        assert_eq!(extension_of("archive.tar.gz").as_deref(), Some("gz"));
        assert_eq!(extension_of(".bashrc"), None);
        assert_eq!(extension_of("noext"), None);
        assert_eq!(extension_of("weird.p%g"), None);
        assert_eq!(extension_of("long.abcdefghijk"), None);
        assert_eq!(extension_of("trailing."), None);
    }
}
