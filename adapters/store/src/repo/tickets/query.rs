//! Dynamic SQL for ticket queries: bound parameters, the [`bind_all!`](crate::bind_all) macro,
//! a WHERE clause under construction and the text-search condition on messages.

use chatflow_core::CompanyId;
use chrono::{DateTime, Utc};

use crate::Backend;
use crate::repo::escape_like;

/// A bound parameter of a dynamic query.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Bind {
    Int(i64),
    Text(String),
    Time(DateTime<Utc>),
    Bool(bool),
}

/// Binds `$binds` (a `&[Bind]`) in order onto the query `$q`.
#[macro_export]
#[doc(hidden)]
macro_rules! bind_all {
    ($q:expr, $binds:expr) => {{
        let mut q = $q;
        for b in $binds {
            q = match b {
                $crate::repo::tickets::Bind::Int(v) => q.bind(*v),
                $crate::repo::tickets::Bind::Text(v) => q.bind(v.clone()),
                $crate::repo::tickets::Bind::Time(v) => q.bind(*v),
                $crate::repo::tickets::Bind::Bool(v) => q.bind(*v),
            };
        }
        q
    }};
}

/// A dynamic WHERE clause under construction: `$1` is the company.
pub(crate) struct Clause {
    pub(crate) sql: String,
    pub(crate) binds: Vec<Bind>,
}

impl Clause {
    pub(crate) fn new(company: CompanyId) -> Self {
        Self {
            sql: "t.company_id = $1".into(),
            binds: vec![Bind::Int(company.0)],
        }
    }

    /// The placeholder for `bind`.
    pub(crate) fn mark(&mut self, bind: Bind) -> String {
        self.binds.push(bind);
        format!("${}", self.binds.len())
    }

    pub(crate) fn and(&mut self, sql: impl AsRef<str>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(sql.as_ref());
    }
}

/// Where a text search of messages goes on each engine (`m` is the messages alias).
pub(crate) fn message_match(backend: Backend, clause: &mut Clause, term: &str) -> String {
    if backend == Backend::Sqlite && term.chars().count() >= 3 {
        let mark = clause.mark(Bind::Text(format!("\"{}\"", term.replace('"', "\"\""))));
        format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {mark})")
    } else {
        let mark = clause.mark(Bind::Text(format!("%{}%", escape_like(term))));
        format!("m.search_text LIKE {mark} ESCAPE '\\'")
    }
}
