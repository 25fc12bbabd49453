//! Lists of values bound as **one** parameter: `column = ANY(...$n...)` with an array on PostgreSQL,
//! `column IN (SELECT value FROM json_each($n))` with a JSON array on SQLite.
//!
//! A statement that spells its list out (`IN (4, 8, 15)` or `IN ($2, $3, $4)`) has another
//! text for every list, so each connection prepares it again (and PostgreSQL plans it again)
//! and it pushes the statements that repeat out of the connection's statement cache. With the
//! list as one parameter a statement has one text whatever the list, prepared once per
//! connection. Both engines look each value up in the index the column has (checked with
//! `EXPLAIN QUERY PLAN` on SQLite: `SEARCH ... (company_id=? AND rowid=?)`).
//!
//! On PostgreSQL the array is read through a sub-select, `column = ANY(ARRAY(SELECT
//! unnest($n)))`, so the planner sees the same unknown list in every execution. With the bare
//! `ANY($n)` a plan for the list in hand (its length known) always looked cheaper than the
//! prepared statement's generic plan, so PostgreSQL planned the statement again on every
//! execution: a ticket's render (seven tables and two sub-selects) spent 1.2 ms planning for
//! 0.3 ms running. Through the sub-select the generic plan wins after the first five executions
//! and is kept; it still looks each value up in the column's index.
//!
//! The helpers take the connection (or pool) a statement runs on only for its type, as
//! [`ticket_select`](crate::repo::tickets::ticket_select) does, so a query written once in a
//! repository macro binds the right kind of value on each engine.

use sqlx::{PgConnection, PgPool, SqliteConnection, SqlitePool};

/// How one engine binds a list as one parameter.
pub trait ListDialect {
    /// The bound value of a list of integers.
    type Ints;
    /// The bound value of a list of texts.
    type Texts;
    /// `column` is one of the list bound as parameter `param` (`$param`).
    fn any(column: &str, param: usize) -> String;
    /// The value to bind for `values`.
    fn ints(values: &[i64]) -> Self::Ints;
    /// The value to bind for `values`.
    fn texts(values: &[&str]) -> Self::Texts;
}

/// SQLite: a JSON array, read by `json_each`.
pub struct SqliteLists;

impl SqliteLists {
    fn any(column: &str, param: usize) -> String {
        format!("{column} IN (SELECT value FROM json_each(${param}))")
    }

    fn ints(values: &[i64]) -> String {
        let mut json = String::with_capacity(values.len() * 8 + 2);
        json.push('[');
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            json.push_str(&value.to_string());
        }
        json.push(']');
        json
    }

    fn texts(values: &[&str]) -> String {
        // Serialising a slice of strings cannot fail.
        serde_json::to_string(values).unwrap_or_else(|_| "[]".into())
    }
}

/// PostgreSQL: an array.
pub struct PgLists;

impl PgLists {
    fn any(column: &str, param: usize) -> String {
        format!("{column} = ANY(ARRAY(SELECT unnest(${param})))")
    }
}

macro_rules! sqlite_lists {
    ($($ty:ty),*) => {$(
        impl ListDialect for $ty {
            type Ints = String;
            type Texts = String;
            fn any(column: &str, param: usize) -> String {
                SqliteLists::any(column, param)
            }
            fn ints(values: &[i64]) -> String {
                SqliteLists::ints(values)
            }
            fn texts(values: &[&str]) -> String {
                SqliteLists::texts(values)
            }
        }
    )*};
}

macro_rules! pg_lists {
    ($($ty:ty),*) => {$(
        impl ListDialect for $ty {
            type Ints = Vec<i64>;
            type Texts = Vec<String>;
            fn any(column: &str, param: usize) -> String {
                PgLists::any(column, param)
            }
            fn ints(values: &[i64]) -> Vec<i64> {
                values.to_vec()
            }
            fn texts(values: &[&str]) -> Vec<String> {
                values.iter().map(|v| (*v).to_owned()).collect()
            }
        }
    )*};
}

sqlite_lists!(SqliteConnection, SqlitePool);
pg_lists!(PgConnection, PgPool);

/// `column` is one of the list bound as `$param`, on `on`'s engine.
pub fn any<C: ListDialect + ?Sized>(_on: &C, column: &str, param: usize) -> String {
    C::any(column, param)
}

/// The value to bind for a list of integers, on `on`'s engine.
pub fn ints<C: ListDialect + ?Sized>(_on: &C, values: &[i64]) -> C::Ints {
    C::ints(values)
}

/// The value to bind for a list of texts, on `on`'s engine.
pub fn texts<C: ListDialect + ?Sized>(_on: &C, values: &[&str]) -> C::Texts {
    C::texts(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engine_names_its_list_as_one_parameter() {
        assert_eq!(
            SqliteLists::any("t.id", 2),
            "t.id IN (SELECT value FROM json_each($2))"
        );
        assert_eq!(
            PgLists::any("t.id", 3),
            "t.id = ANY(ARRAY(SELECT unnest($3)))"
        );
    }

    #[test]
    fn sqlite_lists_are_json_arrays() {
        assert_eq!(SqliteLists::ints(&[]), "[]");
        assert_eq!(SqliteLists::ints(&[4, -8, 15]), "[4,-8,15]");
        assert_eq!(SqliteLists::texts(&["a\"b", "5511"]), r#"["a\"b","5511"]"#);
    }
}
