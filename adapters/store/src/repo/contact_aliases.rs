//! A contact's other identities (`contact_aliases`) and the merges they cause
//! ([`chatflow_core::inbox::identities`]): the store's half of
//! [`ContactRepo::find_by_identities`](chatflow_core::inbox::ports::ContactRepo::find_by_identities),
//! `apply_identities`, `add_aliases` and `aliases`.
//!
//! A merge runs in one transaction: the merged contact's duplicate open tickets (one per
//! connection where the kept contact has one open too) give their messages and notes to the
//! older of the two and are removed; its other tickets, messages, notes, schedules, tags, extra
//! information and aliases move to the kept contact; it is deleted and its number becomes an
//! alias. Every change appends its event (contact deleted, contact updated, tickets updated or
//! removed) in the same transaction.

use chatflow_core::events::Event;
use chatflow_core::ids::ContactId;
use chatflow_core::inbox::identities::{IdentityPlan, KnownContact};
use chatflow_core::ports::ChannelKind;
use chatflow_core::{Result, TenantScope};
use sqlx::AssertSqlSafe;

use crate::Store;
use crate::error::db_error;
use crate::repo::to_wire;

/// Aliases written per statement (4 parameters a row).
const ALIASES_PER_STATEMENT: usize = 200;

/// Runs `$body` in a write transaction of `$store` (SQLite: `BEGIN IMMEDIATE`), committed when
/// it evaluates to `Ok`.
macro_rules! alias_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = p.begin_with("BEGIN IMMEDIATE").await.map_err(db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err(db_error)?;
                }
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err(db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err(db_error)?;
                }
                out
            }
        }
    };
}

/// Writes `$aliases` (`&[(ContactId, String)]`) of `$company` on `$channel` on `$conn`: an alias
/// another contact had moves to its new contact; an alias that is a contact's number is skipped.
macro_rules! write_aliases {
    ($conn:expr, $company:expr, $channel:expr, $aliases:expr) => {{
        let conn = $conn;
        let company: i64 = $company;
        let channel: &str = $channel;
        let aliases: &[(ContactId, String)] = $aliases;
        async move {
            for chunk in aliases.chunks(ALIASES_PER_STATEMENT) {
                let rows: Vec<String> = (0..chunk.len())
                    .map(|k| format!("($1, $2, ${}, ${})", 3 + 2 * k, 4 + 2 * k))
                    .collect();
                let sql = format!(
                    "INSERT INTO contact_aliases (company_id, channel, alias, contact_id) \
                     VALUES {} ON CONFLICT (company_id, channel, alias) \
                     DO UPDATE SET contact_id = excluded.contact_id",
                    rows.join(", ")
                );
                let mut query = sqlx::query(AssertSqlSafe(sql)).bind(company).bind(channel);
                for (contact, alias) in chunk {
                    query = query.bind(alias.as_str()).bind(contact.0);
                }
                query.execute(&mut *conn).await.map_err(db_error)?;
            }
            Ok::<(), chatflow_core::Error>(())
        }
        .await
    }};
}

impl Store {
    pub(crate) async fn find_contacts_by_identities(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        identities: &[&str],
    ) -> Result<Vec<(String, KnownContact)>> {
        if identities.is_empty() {
            return Ok(Vec::new());
        }
        let channel = to_wire(&channel)?;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let sql = format!(
                "SELECT c.number, c.id, c.number FROM contacts c \
                 WHERE c.company_id = $1 AND c.channel = $2 AND {} \
                 UNION ALL \
                 SELECT a.alias, c.id, c.number FROM contact_aliases a \
                 JOIN contacts c ON c.id = a.contact_id AND c.company_id = a.company_id \
                 WHERE a.company_id = $1 AND a.channel = $2 AND {}",
                crate::repo::lists::any(&*conn, "c.number", 3),
                crate::repo::lists::any(&*conn, "a.alias", 3),
            );
            let rows: Vec<(String, i64, String)> = sqlx::query_as(AssertSqlSafe(sql))
                .bind(scope.company_id().0)
                .bind(&channel)
                .bind(crate::repo::lists::texts(&*conn, identities))
                .fetch_all(&mut *conn)
                .await
                .map_err(db_error)?;
            Ok(rows
                .into_iter()
                .map(|(identity, id, number)| {
                    (
                        identity,
                        KnownContact {
                            id: ContactId(id),
                            number,
                        },
                    )
                })
                .collect())
        })
    }

    pub(crate) async fn add_contact_aliases(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        aliases: &[(ContactId, String)],
    ) -> Result<()> {
        if aliases.is_empty() {
            return Ok(());
        }
        let channel = to_wire(&channel)?;
        let company = scope.company_id().0;
        // Only the company's own contacts take aliases.
        let ids: Vec<i64> = aliases.iter().map(|(c, _)| c.0).collect();
        alias_tx!(self, |tx| {
            async {
                let own: Vec<i64> = sqlx::query_scalar(AssertSqlSafe(format!(
                    "SELECT id FROM contacts WHERE company_id = $1 AND {}",
                    crate::repo::lists::any(&*tx, "id", 2)
                )))
                .bind(company)
                .bind(crate::repo::lists::ints(&*tx, &ids))
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
                let mine: Vec<(ContactId, String)> = aliases
                    .iter()
                    .filter(|(c, _)| own.contains(&c.0))
                    .cloned()
                    .collect();
                write_aliases!(&mut *tx, company, &channel, &mine)
            }
            .await
        })
    }

    pub(crate) async fn contact_aliases(
        &self,
        scope: TenantScope,
        id: ContactId,
    ) -> Result<Vec<String>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT alias FROM contact_aliases WHERE company_id = $1 AND contact_id = $2 \
                 ORDER BY alias",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })
    }

    pub(crate) async fn apply_contact_identities(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        plan: &IdentityPlan,
    ) -> Result<bool> {
        let Some(keep) = plan.keep else {
            return Ok(false);
        };
        let channel = to_wire(&channel)?;
        let company = scope.company_id().0;
        let at = self.now();
        alias_tx!(self, |tx| {
            async {
                let Some(kept) = crate::load_contact!(&mut *tx, scope, keep)? else {
                    return Ok(false);
                };
                let mut events: Vec<Event> = Vec::new();
                let mut touched: Vec<i64> = Vec::new();
                let mut aliases: Vec<(ContactId, String)> = Vec::new();
                for &merged in &plan.merge {
                    if merged == keep {
                        continue;
                    }
                    let number: Option<String> = sqlx::query_scalar(
                        "SELECT number FROM contacts WHERE company_id = $1 AND id = $2",
                    )
                    .bind(company)
                    .bind(merged.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    let Some(number) = number else {
                        continue;
                    };
                    // 1. Both open on one connection: the newer ticket joins the older.
                    let pairs: Vec<(i64, i64)> = sqlx::query_as(
                        "SELECT m.id, k.id FROM tickets m JOIN tickets k \
                         ON k.company_id = m.company_id AND k.whatsapp_id = m.whatsapp_id \
                         AND k.contact_id = $3 AND k.status <> 'closed' \
                         WHERE m.company_id = $1 AND m.contact_id = $2 AND m.status <> 'closed'",
                    )
                    .bind(company)
                    .bind(merged.0)
                    .bind(keep.0)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    for (a, b) in pairs {
                        let (older, newer) = (a.min(b), a.max(b));
                        let gone = crate::load_tickets!(&mut *tx, scope, &[newer])?;
                        for table in ["messages", "ticket_notes"] {
                            sqlx::query(AssertSqlSafe(format!(
                                "UPDATE {table} SET ticket_id = $3 \
                                 WHERE company_id = $1 AND ticket_id = $2"
                            )))
                            .bind(company)
                            .bind(newer)
                            .bind(older)
                            .execute(&mut *tx)
                            .await
                            .map_err(db_error)?;
                        }
                        // The older ticket counts the newer one's unread messages and shows the
                        // later of the two last messages.
                        sqlx::query(
                            "UPDATE tickets SET \
                             unread_messages = unread_messages + (SELECT n.unread_messages \
                               FROM tickets n WHERE n.id = $3), \
                             last_message = CASE WHEN (SELECT n.updated_at FROM tickets n \
                               WHERE n.id = $3) > updated_at THEN (SELECT n.last_message \
                               FROM tickets n WHERE n.id = $3) ELSE last_message END, \
                             last_message_id = (SELECT MAX(id) FROM messages \
                               WHERE ticket_id = $2), \
                             updated_at = $4 \
                             WHERE company_id = $1 AND id = $2",
                        )
                        .bind(company)
                        .bind(older)
                        .bind(newer)
                        .bind(at)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                        sqlx::query("DELETE FROM tickets WHERE company_id = $1 AND id = $2")
                            .bind(company)
                            .bind(newer)
                            .execute(&mut *tx)
                            .await
                            .map_err(db_error)?;
                        events.extend(gone.into_iter().map(|ticket| Event::TicketDelete {
                            ticket: Box::new(ticket),
                        }));
                        touched.retain(|t| *t != newer);
                        touched.push(older);
                    }
                    // 2. Everything else of the merged contact moves.
                    let moved: Vec<i64> = sqlx::query_scalar(
                        "UPDATE tickets SET contact_id = $3 \
                         WHERE company_id = $1 AND contact_id = $2 RETURNING id",
                    )
                    .bind(company)
                    .bind(merged.0)
                    .bind(keep.0)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    touched.extend(moved);
                    for table in ["messages", "ticket_notes", "schedules", "contact_aliases"] {
                        sqlx::query(AssertSqlSafe(format!(
                            "UPDATE {table} SET contact_id = $3 \
                             WHERE company_id = $1 AND contact_id = $2"
                        )))
                        .bind(company)
                        .bind(merged.0)
                        .bind(keep.0)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                    }
                    // Extra information the kept contact does not have under the same name.
                    sqlx::query(
                        "UPDATE contact_custom_fields SET contact_id = $3 \
                         WHERE company_id = $1 AND contact_id = $2 AND name NOT IN \
                         (SELECT name FROM contact_custom_fields WHERE contact_id = $3)",
                    )
                    .bind(company)
                    .bind(merged.0)
                    .bind(keep.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    sqlx::query(
                        "INSERT INTO contact_tags (company_id, contact_id, tag_id) \
                         SELECT company_id, $3, tag_id FROM contact_tags \
                         WHERE company_id = $1 AND contact_id = $2 \
                         ON CONFLICT DO NOTHING",
                    )
                    .bind(company)
                    .bind(merged.0)
                    .bind(keep.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    sqlx::query("DELETE FROM contacts WHERE company_id = $1 AND id = $2")
                        .bind(company)
                        .bind(merged.0)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                    events.push(Event::ContactDelete { contact_id: merged });
                    aliases.push((keep, number));
                }
                // 3. The kept contact's number, and its aliases.
                if plan.renumber && kept.number != plan.number {
                    sqlx::query(
                        "DELETE FROM contact_aliases \
                         WHERE company_id = $1 AND channel = $2 AND alias = $3",
                    )
                    .bind(company)
                    .bind(&channel)
                    .bind(&plan.number)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    sqlx::query(
                        "UPDATE contacts SET number = $3, search_text = $4, updated_at = $5 \
                         WHERE company_id = $1 AND id = $2",
                    )
                    .bind(company)
                    .bind(keep.0)
                    .bind(&plan.number)
                    .bind(crate::repo::contacts::search_text(
                        &kept.name,
                        &plan.number,
                        &kept.email,
                    ))
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    aliases.push((keep, kept.number.clone()));
                }
                aliases.extend(plan.aliases.iter().map(|a| (keep, a.clone())));
                aliases.retain(|(_, alias)| *alias != plan.number);
                aliases.sort();
                aliases.dedup();
                write_aliases!(&mut *tx, company, &channel, &aliases)?;
                // 4. The events, from the rows as the transaction leaves them.
                if let Some(contact) = crate::load_contact!(&mut *tx, scope, keep)? {
                    events.push(Event::ContactUpdate {
                        action: "update".into(),
                        contact: Box::new(contact),
                    });
                }
                touched.sort_unstable();
                touched.dedup();
                for ticket in crate::load_tickets!(&mut *tx, scope, &touched)? {
                    events.push(Event::TicketUpdate {
                        ticket: Box::new(ticket),
                    });
                }
                crate::append_events!(&mut *tx, scope, at, &events)?;
                Ok(true)
            }
            .await
        })
    }
}
