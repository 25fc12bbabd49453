//! The inbox list: the WHERE clause of a filter, keyset cursors and ordering, the first-page
//! cache, and the `searchOnMessages` walk for frequent terms.

use chatflow_core::inbox::model::{Cursor, KeysetPage, PageStart, SortOrder, Ticket, TicketFilter};
use chatflow_core::inbox::search;
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::error::db_error;
use crate::repo::list_cache::{FirstPage, PageKey};
use crate::repo::{escape_like, to_wire};
use crate::{Backend, Store};

use super::load::id_list;
use super::query::{Bind, Clause, message_match};

/// The WHERE clause of an inbox filter (without the keyset part), with or without its text
/// search.
pub(super) fn filter_clause(
    backend: Backend,
    company: CompanyId,
    filter: &TicketFilter,
    with_search: bool,
) -> Result<Clause> {
    let mut c = Clause::new(company);
    if !filter.statuses.is_empty() {
        let marks: Vec<String> = filter
            .statuses
            .iter()
            .map(|s| to_wire(s).map(|w| c.mark(Bind::Text(w))))
            .collect::<Result<_>>()?;
        c.and(format!("t.status IN ({})", marks.join(", ")));
    }
    // Queue and group restrictions; one's own tickets always pass them.
    let mut visibility: Vec<String> = Vec::new();
    if !filter.all_queues {
        let ids: Vec<i64> = filter.queue_ids.iter().map(|q| q.0).collect();
        let mut parts = Vec::new();
        if !ids.is_empty() {
            parts.push(format!("t.queue_id IN ({})", id_list(&ids)));
        }
        if filter.include_no_queue {
            parts.push("t.queue_id IS NULL".into());
        }
        if parts.is_empty() {
            parts.push("1 = 0".into());
        }
        visibility.push(format!("({})", parts.join(" OR ")));
    }
    if !filter.user_ids.is_empty() {
        let ids: Vec<i64> = filter.user_ids.iter().map(|u| u.0).collect();
        let unassigned = if filter.include_unassigned {
            " OR t.user_id IS NULL"
        } else {
            ""
        };
        c.and(format!("(t.user_id IN ({}){unassigned})", id_list(&ids)));
    }
    if let Some(group) = filter.is_group {
        let mark = c.mark(Bind::Bool(group));
        visibility.push(format!("t.is_group = {mark}"));
    }
    if !visibility.is_empty() {
        let restricted = visibility.join(" AND ");
        match filter.own_user {
            Some(me) => {
                let mark = c.mark(Bind::Int(me.0));
                c.and(format!("(t.user_id = {mark} OR ({restricted}))"));
            }
            None => c.and(format!("({restricted})")),
        }
    }
    if !filter.tag_ids.is_empty() {
        let ids: Vec<i64> = filter.tag_ids.iter().map(|t| t.0).collect();
        c.and(format!(
            "EXISTS (SELECT 1 FROM ticket_tags tt WHERE tt.ticket_id = t.id \
             AND tt.tag_id IN ({}))",
            id_list(&ids)
        ));
    }
    if !filter.whatsapp_ids.is_empty() {
        let ids: Vec<i64> = filter.whatsapp_ids.iter().map(|w| w.0).collect();
        c.and(format!("t.whatsapp_id IN ({})", id_list(&ids)));
    }
    if filter.with_unread_messages {
        c.and("t.unread_messages > 0");
    }
    if let Some(day) = filter.updated_on {
        let start = day.and_hms_opt(0, 0, 0).map(|d| d.and_utc());
        if let Some(start) = start {
            let from = c.mark(Bind::Time(start));
            let to = c.mark(Bind::Time(start + chrono::TimeDelta::days(1)));
            c.and(format!("t.updated_at >= {from} AND t.updated_at < {to}"));
        }
    }
    if let Some(term) = search::query(&filter.search).filter(|_| with_search) {
        let mut parts = Vec::new();
        if backend == Backend::Sqlite && term.chars().count() >= 3 {
            let mark = c.mark(Bind::Text(format!("\"{}\"", term.replace('"', "\"\""))));
            parts.push(format!(
                "t.contact_id IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH {mark})"
            ));
        } else {
            let mark = c.mark(Bind::Text(format!("%{}%", escape_like(&term))));
            parts.push(format!("c.search_text LIKE {mark} ESCAPE '\\'"));
        }
        if let Ok(id) = term.parse::<i64>() {
            let mark = c.mark(Bind::Int(id));
            parts.push(format!("t.id = {mark}"));
        }
        if filter.search_on_messages {
            // Driven by the text index: the matching messages' tickets are computed once, not
            // looked up per ticket.
            let m = message_match(backend, &mut c, &term);
            parts.push(format!(
                "t.id IN (SELECT m.ticket_id FROM messages m WHERE m.company_id = $1 AND {m})"
            ));
        }
        c.and(format!("({})", parts.join(" OR ")));
    }
    Ok(c)
}

/// The keyset key of a ticket in a list: `{unread flag}|{updated_at}` with unread first, or
/// just `updated_at`.
fn cursor_of(ticket: &Ticket, unread_first: bool) -> Cursor {
    cursor_at(
        ticket.id.0,
        ticket.unread_messages,
        ticket.updated_at,
        unread_first,
    )
}

fn cursor_at(id: i64, unread: i64, updated_at: DateTime<Utc>, unread_first: bool) -> Cursor {
    let at = updated_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let key = if unread_first {
        format!("{}|{at}", i64::from(unread > 0))
    } else {
        at
    };
    Cursor { key, id }
}

/// Adds the keyset condition for `cursor` (rows after it in the list's order).
fn after_cursor(c: &mut Clause, filter: &TicketFilter, cursor: &Cursor) -> Result<()> {
    let bad = || Error::with_detail(ErrorCode::ERR_BAD_REQUEST, "invalid cursor");
    let (flag, at) = if filter.unread_first {
        let (flag, at) = cursor.key.split_once('|').ok_or_else(bad)?;
        (Some(flag.parse::<i64>().map_err(|_| bad())?), at)
    } else {
        (None, cursor.key.as_str())
    };
    let at: DateTime<Utc> = DateTime::parse_from_rfc3339(at)
        .map_err(|_| bad())?
        .with_timezone(&Utc);
    let cmp = match filter.sort {
        SortOrder::Desc => "<",
        SortOrder::Asc => ">",
    };
    let t1 = c.mark(Bind::Time(at));
    let t2 = c.mark(Bind::Time(at));
    let id = c.mark(Bind::Int(cursor.id));
    let within = format!("(t.updated_at {cmp} {t1} OR (t.updated_at = {t2} AND t.id {cmp} {id}))");
    match flag {
        Some(flag) => {
            let f1 = c.mark(Bind::Int(flag));
            let f2 = c.mark(Bind::Int(flag));
            c.and(format!(
                "({UNREAD_FLAG} < {f1} OR ({UNREAD_FLAG} = {f2} AND {within}))"
            ));
        }
        None => c.and(within),
    }
    Ok(())
}

const UNREAD_FLAG: &str = "(CASE WHEN t.unread_messages > 0 THEN 1 ELSE 0 END)";

fn order_by(filter: &TicketFilter) -> String {
    let dir = match filter.sort {
        SortOrder::Desc => "DESC",
        SortOrder::Asc => "ASC",
    };
    if filter.unread_first {
        format!("{UNREAD_FLAG} DESC, t.updated_at {dir}, t.id {dir}")
    } else {
        format!("t.updated_at {dir}, t.id {dir}")
    }
}

/// The batches in which a search walks the list (in list order), at most 40 000 tickets in all
/// before the text index answers instead.
const WALK_BATCHES: [i64; 13] = [
    60, 340, 1600, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000,
];

/// A term found in at least this many messages is frequent: its page is walked for.
const FREQUENT_MATCHES: i64 = 2000;

impl Store {
    /// Whether `term` is in at least [`FREQUENT_MATCHES`] messages: a probe of the text index
    /// that stops at that many (a few milliseconds even for the most common words). On SQLite
    /// the FTS table spans companies; it only chooses a strategy, it selects no rows.
    async fn frequent_in_messages(&self, company: CompanyId, term: &str) -> Result<bool> {
        if self.backend() == Backend::Sqlite && term.chars().count() < 3 {
            // Shorter than a trigram: no index to ask, and such terms are everywhere.
            return Ok(true);
        }
        let n: i64 = match self.pool() {
            crate::DbPool::Sqlite(p) => sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH $1 \
                 LIMIT $2) probe",
            )
            .bind(format!("\"{}\"", term.replace('"', "\"\"")))
            .bind(FREQUENT_MATCHES)
            .fetch_one(p)
            .await
            .map_err(db_error)?,
            crate::DbPool::Postgres(p) => sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE company_id = $1 \
                 AND search_text LIKE $2 ESCAPE '\\' LIMIT $3) probe",
            )
            .bind(company.0)
            .bind(format!("%{}%", escape_like(term)))
            .bind(FREQUENT_MATCHES)
            .fetch_one(p)
            .await
            .map_err(db_error)?,
        };
        Ok(n >= FREQUENT_MATCHES)
    }

    /// A `searchOnMessages` page found by walking the list in its own order and checking each
    /// ticket (contact name/number, ticket id, and the ticket's own messages through
    /// `messages (ticket_id)`). A frequent term fills a page within the first tickets, where the
    /// text index would first have to gather every match in the company (hundreds of
    /// milliseconds). A rare term (see [`Store::frequent_in_messages`]) is not walked: `None`,
    /// and the caller asks the text index, whose match set is small for such a term; so is a
    /// frequent term whose page is not filled within the [`WALK_BATCHES`].
    ///
    /// The page's count is known only when the walk reached the end of the list.
    async fn search_walk(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        size: i64,
        term: &str,
    ) -> Result<Option<KeysetPage<Ticket>>> {
        let company = scope.company_id();
        let like = format!("%{}%", escape_like(term));
        let id_term = term.parse::<i64>().ok();
        let messages = if filter.search_on_messages {
            " OR EXISTS (SELECT 1 FROM messages m WHERE m.company_id = $1 \
             AND m.ticket_id = t.id AND m.search_text LIKE $2 ESCAPE '\\')"
        } else {
            ""
        };
        let by_id = if id_term.is_some() {
            " OR t.id = $3"
        } else {
            ""
        };
        if !self.frequent_in_messages(company, term).await? {
            return Ok(None);
        }
        let mut cursor = match start {
            PageStart::After(cursor) => Some(cursor.clone()),
            _ => None,
        };
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let mut found: Vec<i64> = Vec::new();
            let mut reached_end = false;
            for batch in WALK_BATCHES {
                let mut c = filter_clause(self.backend(), company, filter, false)?;
                if let Some(cursor) = &cursor {
                    after_cursor(&mut c, filter, cursor)?;
                }
                let sql = format!(
                    "SELECT t.id, t.unread_messages, t.updated_at FROM tickets t WHERE {} \
                     ORDER BY {} LIMIT {batch}",
                    c.sql,
                    order_by(filter)
                );
                let rows: Vec<(i64, i64, DateTime<Utc>)> =
                    crate::bind_all!(sqlx::query_as(sqlx::AssertSqlSafe(sql)), &c.binds)
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(db_error)?;
                let Some(last) = rows.last() else {
                    reached_end = true;
                    break;
                };
                cursor = Some(cursor_at(last.0, last.1, last.2, filter.unread_first));
                let candidates: Vec<i64> = rows.iter().map(|r| r.0).collect();
                // The candidates are the last parameter (after the id term's `$3`).
                let list =
                    crate::repo::lists::any(&*conn, "t.id", 3 + usize::from(id_term.is_some()));
                let check = format!(
                    "SELECT t.id FROM tickets t JOIN contacts c ON c.id = t.contact_id \
                     WHERE t.company_id = $1 AND {list} \
                     AND (c.search_text LIKE $2 ESCAPE '\\'{by_id}{messages})"
                );
                let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(check))
                    .bind(company.0)
                    .bind(&like);
                if let Some(id) = id_term {
                    query = query.bind(id);
                }
                let query = query.bind(crate::repo::lists::ints(&*conn, &candidates));
                let matched: std::collections::HashSet<i64> = query
                    .fetch_all(&mut *conn)
                    .await
                    .map_err(db_error)?
                    .into_iter()
                    .collect();
                found.extend(candidates.iter().filter(|id| matched.contains(id)));
                if found.len() as i64 > size {
                    break;
                }
                if (rows.len() as i64) < batch {
                    reached_end = true;
                    break;
                }
            }
            let has_more = found.len() as i64 > size;
            if !has_more && !reached_end {
                return Ok(None);
            }
            let first = matches!(start, PageStart::First | PageStart::PageNumber(1));
            let count = (first && !has_more).then_some(found.len() as i64);
            found.truncate(size as usize);
            let items = crate::load_tickets!(&mut *conn, scope, &found)?;
            let next_cursor = if has_more {
                items.last().map(|t| cursor_of(t, filter.unread_first))
            } else {
                None
            };
            Ok(Some(KeysetPage {
                items,
                has_more,
                next_cursor,
                count,
                seq: None,
            }))
        })
    }
}

impl Store {
    pub(super) async fn ticket_list(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Ticket>> {
        let size = i64::from(page_size.clamp(1, 200));
        let term = search::query(&filter.search);
        // Message bodies are where a frequent term matches a large part of the company; contact
        // names and numbers match few tickets each, and their index answers directly.
        if let Some(term) = &term
            && filter.search_on_messages
            && !matches!(start, PageStart::PageNumber(n) if *n > 1)
            && let Some(page) = self.search_walk(scope, filter, start, size, term).await?
        {
            return Ok(page);
        }
        let base = filter_clause(self.backend(), scope.company_id(), filter, true)?;
        let first = matches!(start, PageStart::First | PageStart::PageNumber(1));
        let cacheable = first && term.is_none();
        let mut paged = Clause {
            sql: base.sql.clone(),
            binds: base.binds.clone(),
        };
        let mut offset = 0i64;
        match start {
            PageStart::First => {}
            PageStart::After(cursor) => after_cursor(&mut paged, filter, cursor)?,
            PageStart::PageNumber(n) => offset = i64::from(n.saturating_sub(1)) * size,
        }
        // Contacts are joined only when the search reads them, so a tab's page and count stay
        // on the tickets' indexes.
        let from = if term.is_some() {
            "FROM tickets t JOIN contacts c ON c.id = t.contact_id"
        } else {
            "FROM tickets t"
        };
        let sql = format!(
            "SELECT t.id {from} WHERE {} ORDER BY {} LIMIT {} OFFSET {offset}",
            paged.sql,
            order_by(filter),
            size + 1
        );
        let count_sql = format!("SELECT COUNT(*) {from} WHERE {}", base.sql);
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            // The sequence is read before the page: see `list_cache`.
            let key = if cacheable {
                let seq: i64 = sqlx::query_scalar(
                    "SELECT COALESCE((SELECT seq FROM event_heads WHERE company_id = $1), 0)",
                )
                .bind(scope.company_id().0)
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                Some(PageKey {
                    company: scope.company_id().0,
                    seq,
                    sql: sql.clone(),
                    binds: paged.binds.clone(),
                })
            } else {
                None
            };
            if let Some(page) = key.as_ref().and_then(|k| self.lists().get(k)) {
                let items = page.items.clone();
                let next_cursor = if page.has_more {
                    items.last().map(|t| cursor_of(t, filter.unread_first))
                } else {
                    None
                };
                return Ok(KeysetPage {
                    items,
                    has_more: page.has_more,
                    next_cursor,
                    count: Some(page.count),
                    seq: key.as_ref().map(|k| k.seq),
                });
            }
            let mut ids: Vec<i64> =
                crate::bind_all!(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), &paged.binds)
                    .fetch_all(&mut *conn)
                    .await
                    .map_err(db_error)?;
            let has_more = ids.len() as i64 > size;
            ids.truncate(size as usize);
            let count = if first {
                let n: i64 = crate::bind_all!(
                    sqlx::query_scalar(sqlx::AssertSqlSafe(count_sql)),
                    &base.binds
                )
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                Some(n)
            } else {
                None
            };
            let items = crate::load_tickets!(&mut *conn, scope, &ids)?;
            let seq = key.as_ref().map(|k| k.seq);
            if let (Some(key), Some(count)) = (key, count) {
                self.lists().insert(
                    key,
                    FirstPage {
                        items: items.clone(),
                        has_more,
                        count,
                    },
                );
            }
            let next_cursor = if has_more {
                items.last().map(|t| cursor_of(t, filter.unread_first))
            } else {
                None
            };
            Ok(KeysetPage {
                items,
                has_more,
                next_cursor,
                count,
                seq,
            })
        })
    }
}
