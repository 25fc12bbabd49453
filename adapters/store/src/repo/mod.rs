//! The repository ports of the core, implemented on [`crate::Store`].
//!
//! One module per port. Each method is written once and run on either engine through
//! [`on_pool!`](crate::on_pool). Rows are read into private `*Row` structs deriving
//! `sqlx::FromRow` and converted to domain types here.

use chatflow_core::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

mod companies;
mod connections;
mod contact_aliases;
pub(crate) mod contacts;
pub(crate) mod events;
mod flows;
mod helps;
mod inbound_failures;
pub(crate) mod ingest;
mod jobs;
mod leases;
pub(crate) mod list_cache;
pub(crate) mod lists;
pub(crate) mod messages;
mod password_resets;
mod plans;
mod queues;
mod quick_messages;
mod sandbox;
mod schedules;
mod session_state;
mod sessions;
mod settings;
mod staged_uploads;
mod tags;
pub(crate) mod tickets;
mod users;

/// The wire spelling of an enum value (`"admin"`, `"enabled"`, `"MENSAL"`...), as stored in
/// text columns. Stored values use the same spelling as the API so the two never drift.
pub(crate) fn to_wire<T: Serialize>(value: &T) -> Result<String> {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => Ok(text),
        Ok(other) => Err(Error::internal(format!(
            "enum stored as text serialised to {other}"
        ))),
        Err(e) => Err(Error::internal(format!(
            "cannot serialise stored enum: {e}"
        ))),
    }
}

/// Reads an enum value stored with [`to_wire`]; an unknown spelling is an internal error.
pub(crate) fn from_wire<T: DeserializeOwned>(column: &str, text: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| Error::internal(format!("unexpected value {text:?} in column {column}")))
}

/// Escapes `%`, `_` and `\` for a `LIKE ... ESCAPE '\'` pattern.
pub(crate) fn escape_like(term: &str) -> String {
    let mut escaped = String::with_capacity(term.len());
    for c in term.chars() {
        if matches!(c, '%' | '_' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use chatflow_core::identity::{AllTicket, Profile, Toggle};
    use chatflow_core::tenancy::Recurrence;

    use super::*;

    #[test]
    fn enums_round_trip_through_their_wire_spelling() {
        assert_eq!(to_wire(&Profile::Admin).expect("text"), "admin");
        assert_eq!(to_wire(&Toggle::Enabled).expect("text"), "enabled");
        assert_eq!(to_wire(&AllTicket::Disable).expect("text"), "disable");
        assert_eq!(to_wire(&Recurrence::Semestral).expect("text"), "SEMESTRAL");
        let back: Recurrence = from_wire("recurrence", "ANUAL").expect("known");
        assert_eq!(back, Recurrence::Anual);
        let err = from_wire::<Profile>("profile", "root").expect_err("unknown spelling");
        assert_eq!(err.code, chatflow_core::ErrorCode::ERR_INTERNAL);
    }

    /// The store's source outside its test modules: every file of `src/repo` and `src/bulk.rs`.
    fn store_sources() -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![root.join("bulk.rs"), root.join("db.rs")];
        let repo = std::fs::read_dir(root.join("repo")).expect("src/repo is readable");
        for entry in repo {
            let path = entry.expect("a directory entry").path();
            if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
        files
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                // Tests may read the wall clock; the code they test may not.
                let code = match text.find("#[cfg(test)]") {
                    Some(at) => text[..at].to_owned(),
                    None => text,
                };
                (path.display().to_string(), code)
            })
            .collect()
    }

    #[test]
    fn the_store_takes_its_time_and_ids_from_the_ports() {
        // Spelled in pieces so this test does not find itself.
        let forbidden = [
            ["Utc", "::now"].concat(),
            ["Local", "::now"].concat(),
            ["SystemTime", "::now"].concat(),
            ["new", "_v4"].concat(),
            ["CURRENT", "_TIMESTAMP"].concat(),
            ["rand", "::"].concat(),
        ];
        let sources = store_sources();
        assert!(sources.len() > 10, "the scan finds the repositories");
        for (path, code) in &sources {
            for word in &forbidden {
                assert!(
                    !code.contains(word.as_str()),
                    "{path} uses {word}: take the time and ids from the store's stamps (the ports' clock and ids)"
                );
            }
            // SQL's now(): a call not preceded by `.` (method calls such as `self.now()` are ours).
            let lower = code.to_lowercase();
            let pattern = ["now", "()"].concat();
            for (at, _) in lower.match_indices(pattern.as_str()) {
                let before = lower[..at].chars().next_back();
                assert!(
                    before == Some('.'),
                    "{path} calls SQL's clock ({pattern}) at byte {at}: bind the stamped time instead"
                );
            }
        }
    }

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(escape_like("50%_off\\"), "50\\%\\_off\\\\");
        assert_eq!(escape_like("plain"), "plain");
    }
}
