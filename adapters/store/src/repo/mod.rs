//! The repository ports of the core, implemented on [`crate::Store`].
//!
//! One module per port. Each method is written once and run on either engine through
//! [`on_pool!`](crate::on_pool). Rows are read into private `*Row` structs deriving
//! `sqlx::FromRow` and converted to domain types here.

use chatflow_core::{Error, Result};
use chrono::{DateTime, SubsecRound, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;

mod companies;
mod connections;
pub(crate) mod contacts;
pub(crate) mod events;
mod flows;
mod helps;
mod inbound_failures;
mod jobs;
pub(crate) mod list_cache;
pub(crate) mod messages;
mod password_resets;
mod plans;
mod queues;
mod quick_messages;
mod sandbox;
mod schedules;
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

/// The time rows are stamped with, at microsecond precision (what PostgreSQL keeps), so a value
/// read back equals the value written on both engines.
pub(crate) fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs(6)
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

    #[test]
    fn like_patterns_escape_wildcards() {
        assert_eq!(escape_like("50%_off\\"), "50\\%\\_off\\\\");
        assert_eq!(escape_like("plain"), "plain");
    }
}
