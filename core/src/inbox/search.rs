//! Search text normalisation shared by every searchable column.
//!
//! Stored rows keep a `search_text` column holding [`normalize`] of what is searched (contact
//! name, number and e-mail; message body), and queries are normalised the same way, so search is
//! accent- and case-insensitive on both engines without engine-specific collations. The store
//! indexes `search_text` with a real text index (FTS5 trigram on SQLite, a `pg_trgm` GIN index on
//! PostgreSQL) and binds the query as a parameter.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lower-cases, strips diacritics (NFD, combining marks removed) and collapses whitespace:
/// `"  JOÃO   Çedilha "` becomes `"joao cedilha"`.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.nfd().filter(|c| !is_combining_mark(*c)) {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The normalised query, or `None` when nothing searchable is left.
pub fn query(text: &str) -> Option<String> {
    let normalized = normalize(text);
    (!normalized.is_empty()).then_some(normalized)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_and_spaces() {
        assert_eq!(normalize("  JOÃO   Çedilha "), "joao cedilha");
        assert_eq!(normalize("Ação"), "acao");
        assert_eq!(normalize("ÑANDÚ"), "nandu");
        assert_eq!(normalize("İstanbul"), "istanbul");
        assert_eq!(query("   "), None);
        assert_eq!(query(" Zé "), Some("ze".into()));
    }
}
