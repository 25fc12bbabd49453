//! First pages of the inbox tabs, remembered per company event sequence.
//!
//! Every attendant of a company reloads the same few tab pages (open, pending, groups...) over
//! and over, and each load otherwise re-reads and re-counts the tab. Every write that changes a
//! ticket list appends a realtime event in its own transaction, and appending bumps the
//! company's head, `event_heads.seq` (see [`append_events!`](crate::append_events)). So the ids of a first
//! page and the tab's count, computed while the company's sequence was `N`, stay exact until the
//! sequence moves: the key holds the sequence read *before* the page, so a page computed during
//! a concurrent write is at worst newer than its key, never older.
//!
//! The page's tickets are kept too, as rendered (contact, tags, queue, user, connection, last
//! message): every write that changes what a ticket row shows appends an event as well —
//! tickets, messages, contacts and their tags, ticket tags, tags, connections, queues, and users
//! (whose events are appended right after their write commits). Masking for the reader (LGPD)
//! is applied after the cache, per request.
//!
//! Not cached: searches (each term is its own question and is answered from the text indexes).
//! Bulk loading (`chatflow dev seed`) appends no events; seed before serving.

use std::sync::Arc;

use chatflow_core::inbox::model::Ticket;
use quick_cache::sync::Cache;

use super::tickets::Bind;

/// How many distinct first pages are kept (a page of 40 tickets is some 40 KiB).
const CAPACITY: usize = 1024;

/// What identifies a first page: the company, its event sequence, and the exact query.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct PageKey {
    pub company: i64,
    pub seq: i64,
    pub sql: String,
    pub binds: Vec<Bind>,
}

/// A first page: its tickets in list order, whether more follow, and the tab's count.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FirstPage {
    pub items: Vec<Ticket>,
    pub has_more: bool,
    pub count: i64,
}

/// The company settings stored as of a sequence, keyed by (company, sequence).
type SettingsAt = Cache<(i64, i64), Arc<Vec<(String, String)>>>;

/// The cache (shared by clones of a store).
pub(crate) struct ListCache {
    pages: Cache<PageKey, Arc<FirstPage>>,
    /// A company's settings as of a sequence: the page's reader masks numbers by them (LGPD),
    /// and settings changes are published as events, so they too stay exact per sequence.
    settings: SettingsAt,
}

impl ListCache {
    pub(crate) fn new() -> Self {
        Self {
            pages: Cache::new(CAPACITY),
            settings: Cache::new(CAPACITY),
        }
    }

    pub(crate) fn settings_at(&self, company: i64, seq: i64) -> Option<Arc<Vec<(String, String)>>> {
        self.settings.get(&(company, seq))
    }

    pub(crate) fn remember_settings(
        &self,
        company: i64,
        seq: i64,
        settings: Vec<(String, String)>,
    ) {
        self.settings.insert((company, seq), Arc::new(settings));
    }

    pub(crate) fn get(&self, key: &PageKey) -> Option<Arc<FirstPage>> {
        self.pages.get(key)
    }

    pub(crate) fn insert(&self, key: PageKey, page: FirstPage) {
        self.pages.insert(key, Arc::new(page));
    }
}

impl std::fmt::Debug for ListCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListCache")
            .field("pages", &self.pages.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seq: i64) -> PageKey {
        PageKey {
            company: 1,
            seq,
            sql: "t.company_id = $1".into(),
            binds: vec![Bind::Int(1)],
        }
    }

    #[test]
    fn a_page_is_found_only_under_its_own_sequence() {
        let cache = ListCache::new();
        cache.insert(
            key(7),
            FirstPage {
                items: Vec::new(),
                has_more: false,
                count: 2,
            },
        );
        assert_eq!(cache.get(&key(7)).map(|p| p.count), Some(2));
        assert!(cache.get(&key(8)).is_none());
        let mut other_company = key(7);
        other_company.company = 2;
        assert!(cache.get(&other_company).is_none());
    }
}
