//! [`ContactRepo`] on the store, and [`load_contact!`](crate::load_contact): loading one contact
//! with its tags, extra fields and connection name inside any transaction.
//!
//! Every insert and update writes `search_text` (the normalised name, number and e-mail, see
//! [`chatflow_core::inbox::search`]); the text index over it is an FTS5 trigram table on SQLite
//! (kept by triggers) and a `pg_trgm` GIN index on PostgreSQL. Lists are keyset-paginated by
//! (name, id). Every write appends its `contact` event in the same transaction.

use std::collections::HashMap;

use async_trait::async_trait;
use chatflow_core::events::Event;
use chatflow_core::ids::{ContactId, TagId, WhatsappId};
use chatflow_core::inbox::model::{
    Contact, ContactFilter, ContactInput, Cursor, ExtraInfo, KeysetPage, PageStart, Tag,
};
use chatflow_core::inbox::ports::ContactRepo;
use chatflow_core::inbox::search;
use chatflow_core::ports::ChannelKind;
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::error::db_error;
use crate::repo::{escape_like, from_wire, to_wire};
use crate::{Backend, Store};

/// The columns of [`ContactRow`], for `SELECT {CONTACT_COLUMNS} FROM contacts c LEFT JOIN
/// whatsapps w ON w.id = c.whatsapp_id`.
pub(crate) const CONTACT_COLUMNS: &str = "c.id, c.company_id, c.name, c.number, c.email, \
     c.active, c.disable_bot, c.accept_audio_message, c.url_picture, c.picture_at, c.channel, \
     c.is_group, c.lgpd_accepted_at, c.whatsapp_id, w.name AS whatsapp_name, c.created_at, c.updated_at";

/// A contact's own row (with its connection's name).
#[derive(sqlx::FromRow)]
pub(crate) struct ContactRow {
    pub(crate) id: i64,
    pub(crate) company_id: i64,
    pub(crate) name: String,
    pub(crate) number: String,
    pub(crate) email: String,
    pub(crate) active: bool,
    pub(crate) disable_bot: bool,
    pub(crate) accept_audio_message: bool,
    pub(crate) url_picture: Option<String>,
    pub(crate) picture_at: Option<DateTime<Utc>>,
    pub(crate) channel: String,
    pub(crate) is_group: bool,
    pub(crate) lgpd_accepted_at: Option<DateTime<Utc>>,
    pub(crate) whatsapp_id: Option<i64>,
    pub(crate) whatsapp_name: Option<String>,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) updated_at: DateTime<Utc>,
}

/// A row of `contact_custom_fields`.
#[derive(sqlx::FromRow)]
pub(crate) struct ExtraRow {
    pub(crate) id: i64,
    pub(crate) contact_id: i64,
    pub(crate) name: String,
    pub(crate) value: String,
}

/// A tag linked to a contact.
#[derive(sqlx::FromRow)]
pub(crate) struct ContactTagRow {
    pub(crate) contact_id: i64,
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) color: String,
    pub(crate) kanban: i64,
}

/// Builds a contact from its row and the extra fields and tags loaded for it.
pub(crate) fn assemble(
    row: ContactRow,
    extras: &mut HashMap<i64, Vec<ExtraInfo>>,
    tags: &mut HashMap<i64, Vec<Tag>>,
) -> Result<Contact> {
    Ok(Contact {
        id: ContactId(row.id),
        company_id: CompanyId(row.company_id),
        channel: from_wire::<ChannelKind>("contacts.channel", &row.channel)?,
        extra_info: extras.remove(&row.id).unwrap_or_default(),
        tags: tags.remove(&row.id).unwrap_or_default(),
        name: row.name,
        number: row.number,
        email: row.email,
        active: row.active,
        disable_bot: row.disable_bot,
        accept_audio_message: row.accept_audio_message,
        url_picture: row.url_picture,
        picture_at: row.picture_at,
        is_group: row.is_group,
        lgpd_accepted_at: row.lgpd_accepted_at,
        whatsapp_id: row.whatsapp_id.map(WhatsappId),
        whatsapp_name: row.whatsapp_name,
        created_at: row.created_at,
        updated_at: row.updated_at,
    })
}

/// Groups extra-field rows by contact.
pub(crate) fn group_extras(rows: Vec<ExtraRow>) -> HashMap<i64, Vec<ExtraInfo>> {
    let mut map: HashMap<i64, Vec<ExtraInfo>> = HashMap::new();
    for row in rows {
        map.entry(row.contact_id).or_default().push(ExtraInfo {
            id: Some(row.id),
            name: row.name,
            value: row.value,
        });
    }
    map
}

/// Groups tag rows by contact.
pub(crate) fn group_tags(rows: Vec<ContactTagRow>) -> HashMap<i64, Vec<Tag>> {
    let mut map: HashMap<i64, Vec<Tag>> = HashMap::new();
    for row in rows {
        map.entry(row.contact_id).or_default().push(Tag {
            id: TagId(row.id),
            name: row.name,
            color: row.color,
            kanban: row.kanban,
        });
    }
    map
}

/// The normalised text a contact is searched by.
pub(crate) fn search_text(name: &str, number: &str, email: &str) -> String {
    search::normalize(&format!("{name} {number} {email}"))
}

/// Loads the contacts of `$scope` with ids `$ids` (a `&[i64]`), each with its tags, extra fields
/// and connection name, on `$conn` (a `&mut SqliteConnection` or `&mut PgConnection`, normally a
/// transaction's), in three statements whatever their number: evaluates to
/// `Result<Vec<Contact>>` in id order (ids not found are left out). Use it inside another
/// repository's transaction, e.g. to decide and render an inbound batch.
#[macro_export]
macro_rules! load_contacts {
    ($conn:expr, $scope:expr, $ids:expr) => {{
        let scope: chatflow_core::TenantScope = $scope;
        let ids: &[i64] = $ids;
        let conn = $conn;
        async move {
            if ids.is_empty() {
                return Ok::<_, chatflow_core::Error>(Vec::new());
            }
            let company = scope.company_id().0;
            let list = $crate::repo::lists::ints(&*conn, ids);
            let rows: Vec<$crate::repo::contacts::ContactRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT {} FROM contacts c LEFT JOIN whatsapps w ON w.id = c.whatsapp_id \
                     WHERE c.company_id = $1 AND {} ORDER BY c.id",
                    $crate::repo::contacts::CONTACT_COLUMNS,
                    $crate::repo::lists::any(&*conn, "c.id", 2)
                )))
                .bind(company)
                .bind(&list)
                .fetch_all(&mut *conn)
                .await
                .map_err($crate::error::db_error)?;
            let extras: Vec<$crate::repo::contacts::ExtraRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT id, contact_id, name, value FROM contact_custom_fields \
                     WHERE company_id = $1 AND {} ORDER BY id",
                    $crate::repo::lists::any(&*conn, "contact_id", 2)
                )))
                .bind(company)
                .bind(&list)
                .fetch_all(&mut *conn)
                .await
                .map_err($crate::error::db_error)?;
            let tags: Vec<$crate::repo::contacts::ContactTagRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT ct.contact_id, t.id, t.name, t.color, t.kanban FROM contact_tags ct \
                     JOIN tags t ON t.id = ct.tag_id AND t.company_id = ct.company_id \
                     WHERE ct.company_id = $1 AND {} ORDER BY t.name, t.id",
                    $crate::repo::lists::any(&*conn, "ct.contact_id", 2)
                )))
                .bind(company)
                .bind(&list)
                .fetch_all(&mut *conn)
                .await
                .map_err($crate::error::db_error)?;
            let mut extras = $crate::repo::contacts::group_extras(extras);
            let mut tags = $crate::repo::contacts::group_tags(tags);
            rows.into_iter()
                .map(|row| $crate::repo::contacts::assemble(row, &mut extras, &mut tags))
                .collect()
        }
        .await
    }};
}

/// Loads one contact of `$scope` (see [`load_contacts!`](crate::load_contacts)): evaluates to
/// `Result<Option<Contact>>`.
#[macro_export]
macro_rules! load_contact {
    ($conn:expr, $scope:expr, $contact_id:expr) => {{
        let contact_id: chatflow_core::ids::ContactId = $contact_id;
        $crate::load_contacts!($conn, $scope, &[contact_id.0]).map(|mut v| v.pop())
    }};
}

/// Runs `$body` in a write transaction `$tx` (`BEGIN IMMEDIATE` on SQLite), committing when it
/// returns Ok (the `?` inside returns early and rolls back).
macro_rules! write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = p.begin_with("BEGIN IMMEDIATE").await.map_err(db_error)?;
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err(db_error)?;
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
        }
    };
}

/// A unique violation on contacts is the (company, channel, number) key on both engines.
fn contact_write_error(error: sqlx::Error) -> Error {
    if let sqlx::Error::Database(db) = &error
        && db.is_unique_violation()
    {
        return Error::new(ErrorCode::ERR_DUPLICATED_CONTACT);
    }
    db_error(error)
}

/// The contact event of a write.
fn update_event(action: &str, contact: &Contact) -> Event {
    Event::ContactUpdate {
        action: action.to_owned(),
        contact: Box::new(contact.clone()),
    }
}

/// The WHERE clause (after `c.company_id = $1`) and its text parameters for a filter.
struct Where {
    sql: String,
    texts: Vec<String>,
    ints: Vec<i64>,
}

/// Builds the filter clause. Parameters are numbered from `$2`: first `texts`, then `ints`;
/// the caller binds them in that order. Nothing from the filter is pasted into the SQL.
fn filter_clause(backend: Backend, filter: &ContactFilter) -> Result<Where> {
    let mut texts: Vec<String> = Vec::new();
    let mut clauses: Vec<String> = Vec::new();
    let mut next = 2;
    if let Some(term) = search::query(&filter.search) {
        let long = term.chars().count() >= 3;
        match (backend, long) {
            (Backend::Sqlite, true) => {
                // An FTS5 phrase: the trigram tokenizer matches it as a substring.
                clauses.push(format!(
                    "c.id IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ${next})"
                ));
                texts.push(format!("\"{}\"", term.replace('"', "\"\"")));
            }
            (Backend::Postgres, true) => {
                clauses.push(format!("c.search_text LIKE ${next} ESCAPE '\\'"));
                texts.push(format!("%{}%", escape_like(&term)));
            }
            (_, false) => {
                // Too short for trigrams: a prefix of the (normalised) name.
                clauses.push(format!("c.search_text LIKE ${next} ESCAPE '\\'"));
                texts.push(format!("{}%", escape_like(&term)));
            }
        }
        next += 1;
    }
    if let Some(channel) = filter.channel {
        clauses.push(format!("c.channel = ${next}"));
        texts.push(to_wire(&channel)?);
        next += 1;
    }
    match filter.is_group {
        Some(true) => clauses.push("c.is_group = TRUE".into()),
        Some(false) => clauses.push("c.is_group = FALSE".into()),
        None => {}
    }
    let mut ints = Vec::new();
    if !filter.tag_ids.is_empty() {
        let marks: Vec<String> = filter
            .tag_ids
            .iter()
            .map(|t| {
                ints.push(t.0);
                let mark = format!("${next}");
                next += 1;
                mark
            })
            .collect();
        clauses.push(format!(
            "EXISTS (SELECT 1 FROM contact_tags ct WHERE ct.contact_id = c.id \
             AND ct.company_id = c.company_id AND ct.tag_id IN ({}))",
            marks.join(", ")
        ));
    }
    let sql = clauses
        .iter()
        .map(|c| format!(" AND {c}"))
        .collect::<String>();
    Ok(Where { sql, texts, ints })
}

impl Store {
    /// Loads the extra fields and tags of `rows` and assembles them.
    async fn assemble_rows(
        &self,
        scope: TenantScope,
        rows: Vec<ContactRow>,
    ) -> Result<Vec<Contact>> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 2)).collect();
        let marks = marks.join(", ");
        let extra_sql = format!(
            "SELECT id, contact_id, name, value FROM contact_custom_fields \
             WHERE company_id = $1 AND contact_id IN ({marks}) ORDER BY id"
        );
        let tag_sql = format!(
            "SELECT ct.contact_id, t.id, t.name, t.color, t.kanban FROM contact_tags ct \
             JOIN tags t ON t.id = ct.tag_id AND t.company_id = ct.company_id \
             WHERE ct.company_id = $1 AND ct.contact_id IN ({marks}) ORDER BY t.name, t.id"
        );
        let company = scope.company_id().0;
        let (extras, tags): (Vec<ExtraRow>, Vec<ContactTagRow>) =
            crate::on_pool!(self.pool(), |p| {
                let mut q = sqlx::query_as(sqlx::AssertSqlSafe(extra_sql.clone())).bind(company);
                for id in &ids {
                    q = q.bind(*id);
                }
                let extras = q.fetch_all(p).await.map_err(db_error)?;
                let mut q = sqlx::query_as(sqlx::AssertSqlSafe(tag_sql.clone())).bind(company);
                for id in &ids {
                    q = q.bind(*id);
                }
                let tags = q.fetch_all(p).await.map_err(db_error)?;
                (extras, tags)
            });
        let mut extras = group_extras(extras);
        let mut tags = group_tags(tags);
        rows.into_iter()
            .map(|row| assemble(row, &mut extras, &mut tags))
            .collect()
    }
}

/// Replaces a contact's extra fields on `$conn`.
macro_rules! replace_extras {
    ($conn:expr, $at:expr, $company:expr, $contact:expr, $extras:expr) => {{
        let conn = $conn;
        sqlx::query("DELETE FROM contact_custom_fields WHERE company_id = $1 AND contact_id = $2")
            .bind($company)
            .bind($contact)
            .execute(&mut *conn)
            .await
            .map_err(db_error)?;
        let at: chrono::DateTime<chrono::Utc> = $at;
        for extra in $extras {
            let extra: &ExtraInfo = extra;
            if extra.name.trim().is_empty() {
                continue;
            }
            sqlx::query(
                "INSERT INTO contact_custom_fields (company_id, contact_id, name, value, \
                 created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
            )
            .bind($company)
            .bind($contact)
            .bind(extra.name.trim())
            .bind(&extra.value)
            .bind(at)
            .execute(&mut *conn)
            .await
            .map_err(db_error)?;
        }
    }};
}

/// Loads the contact after a write (it must exist in the transaction).
macro_rules! reload {
    ($conn:expr, $scope:expr, $id:expr) => {
        crate::load_contact!($conn, $scope, ContactId($id))?
            .ok_or_else(|| Error::internal("contact vanished inside its own transaction"))?
    };
}

#[async_trait]
impl ContactRepo for Store {
    #[tracing::instrument(level = "debug", name = "ContactRepo::search", skip_all, fields(company = scope.company_id().0))]
    async fn search(
        &self,
        scope: TenantScope,
        filter: &ContactFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Contact>> {
        let page_size = page_size.clamp(1, 1000);
        let clause = filter_clause(self.backend(), filter)?;
        let company = scope.company_id().0;
        let mut next = 2 + clause.texts.len() + clause.ints.len();
        let (keyset, offset) = match start {
            PageStart::First => (None, 0i64),
            PageStart::After(cursor) => (Some(cursor.clone()), 0),
            PageStart::PageNumber(n) => {
                (None, i64::from(n.saturating_sub(1)) * i64::from(page_size))
            }
        };
        let mut sql = format!(
            "SELECT {CONTACT_COLUMNS} FROM contacts c LEFT JOIN whatsapps w ON w.id = c.whatsapp_id \
             WHERE c.company_id = $1{}",
            clause.sql
        );
        if keyset.is_some() {
            sql.push_str(&format!(
                " AND (c.name > ${a} OR (c.name = ${a} AND c.id > ${b}))",
                a = next,
                b = next + 1
            ));
            next += 2;
        }
        sql.push_str(&format!(
            " ORDER BY c.name, c.id LIMIT ${} OFFSET ${}",
            next,
            next + 1
        ));
        let count_sql = format!(
            "SELECT COUNT(*) FROM contacts c WHERE c.company_id = $1{}",
            clause.sql
        );
        let want_count = !matches!(start, PageStart::After(_));
        let limit = i64::from(page_size) + 1;
        let (mut rows, count): (Vec<ContactRow>, Option<i64>) = crate::on_pool!(self.pool(), |p| {
            let mut q = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone())).bind(company);
            for t in &clause.texts {
                q = q.bind(t.clone());
            }
            for i in &clause.ints {
                q = q.bind(*i);
            }
            if let Some(cursor) = &keyset {
                q = q.bind(cursor.key.clone()).bind(cursor.id);
            }
            let rows = q
                .bind(limit)
                .bind(offset)
                .fetch_all(p)
                .await
                .map_err(db_error)?;
            let count = if want_count {
                let mut q =
                    sqlx::query_scalar(sqlx::AssertSqlSafe(count_sql.clone())).bind(company);
                for t in &clause.texts {
                    q = q.bind(t.clone());
                }
                for i in &clause.ints {
                    q = q.bind(*i);
                }
                Some(q.fetch_one(p).await.map_err(db_error)?)
            } else {
                None
            };
            (rows, count)
        });
        let has_more = rows.len() > page_size as usize;
        rows.truncate(page_size as usize);
        let next_cursor = if has_more {
            rows.last().map(|r| Cursor {
                key: r.name.clone(),
                id: r.id,
            })
        } else {
            None
        };
        let items = self.assemble_rows(scope, rows).await?;
        Ok(KeysetPage {
            items,
            has_more,
            next_cursor,
            count,
            seq: None,
        })
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::get", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn get(&self, scope: TenantScope, id: ContactId) -> Result<Option<Contact>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            crate::load_contact!(&mut *conn, scope, id)
        })
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::find_by_number", skip_all, fields(company = scope.company_id().0))]
    async fn find_by_number(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        number: &str,
    ) -> Result<Option<Contact>> {
        let channel = to_wire(&channel)?;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let id: Option<i64> = sqlx::query_scalar(
                "SELECT id FROM contacts WHERE company_id = $1 AND channel = $2 AND number = $3",
            )
            .bind(scope.company_id().0)
            .bind(&channel)
            .bind(number)
            .fetch_optional(&mut *conn)
            .await
            .map_err(db_error)?;
            match id {
                Some(id) => crate::load_contact!(&mut *conn, scope, ContactId(id)),
                None => Ok(None),
            }
        })
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::list_brief", skip_all, fields(company = scope.company_id().0))]
    async fn list_brief(
        &self,
        scope: TenantScope,
        search: &str,
        limit: u32,
    ) -> Result<Vec<Contact>> {
        let filter = ContactFilter {
            search: search.to_owned(),
            ..ContactFilter::default()
        };
        let page = self
            .search(scope, &filter, &PageStart::First, limit.clamp(1, 1000))
            .await?;
        Ok(page.items)
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, input: &ContactInput) -> Result<Contact> {
        let company = scope.company_id().0;
        let channel = to_wire(&input.channel.unwrap_or(ChannelKind::Whatsapp))?;
        let text = search_text(&input.name, &input.number, &input.email);
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO contacts (company_id, name, number, email, channel, is_group, \
                 whatsapp_id, disable_bot, accept_audio_message, search_text, created_at, \
                 updated_at) VALUES ($1, $2, $3, $4, $5, $6, \
                 (SELECT id FROM whatsapps WHERE id = $7 AND company_id = $1), $8, $9, $10, \
                 $11, $11) RETURNING id",
            )
            .bind(company)
            .bind(&input.name)
            .bind(&input.number)
            .bind(&input.email)
            .bind(&channel)
            .bind(input.is_group)
            .bind(input.whatsapp_id.map(|w| w.0))
            .bind(input.disable_bot.unwrap_or(false))
            .bind(input.accept_audio_message.unwrap_or(true))
            .bind(&text)
            .bind(at)
            .fetch_one(&mut *tx)
            .await
            .map_err(contact_write_error)?;
            replace_extras!(&mut *tx, self.now(), company, id, &input.extra_info);
            let contact = reload!(&mut *tx, scope, id);
            crate::append_events!(
                &mut *tx,
                scope,
                self.now(),
                &[update_event("create", &contact)]
            )?;
            contact
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::update", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: ContactId,
        input: &ContactInput,
    ) -> Result<Option<Contact>> {
        let company = scope.company_id().0;
        let text = search_text(&input.name, &input.number, &input.email);
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE contacts SET name = $3, number = $4, email = $5, \
                 channel = COALESCE($6, channel), \
                 whatsapp_id = COALESCE((SELECT id FROM whatsapps WHERE id = $7 AND company_id = $1), whatsapp_id), \
                 disable_bot = COALESCE($8, disable_bot), \
                 accept_audio_message = COALESCE($9, accept_audio_message), \
                 search_text = $10, updated_at = $11 \
                 WHERE company_id = $1 AND id = $2 RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(&input.name)
            .bind(&input.number)
            .bind(&input.email)
            .bind(input.channel.map(|c| to_wire(&c)).transpose()?)
            .bind(input.whatsapp_id.map(|w| w.0))
            .bind(input.disable_bot)
            .bind(input.accept_audio_message)
            .bind(&text)
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(contact_write_error)?;
            match found {
                None => None,
                Some(id) => {
                    replace_extras!(&mut *tx, self.now(), company, id, &input.extra_info);
                    let contact = reload!(&mut *tx, scope, id);
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[update_event("update", &contact)]
                    )?;
                    Some(contact)
                }
            }
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::delete", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn delete(&self, scope: TenantScope, id: ContactId) -> Result<bool> {
        let company = scope.company_id().0;
        Ok(write_tx!(self, |tx| {
            let done = sqlx::query("DELETE FROM contacts WHERE company_id = $1 AND id = $2")
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if done > 0 {
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[Event::ContactDelete { contact_id: id }]
                )?;
            }
            done > 0
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::set_active", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn set_active(
        &self,
        scope: TenantScope,
        id: ContactId,
        active: bool,
    ) -> Result<Option<Contact>> {
        let company = scope.company_id().0;
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE contacts SET active = $3, updated_at = $4 \
                 WHERE company_id = $1 AND id = $2 RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(active)
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_error)?;
            match found {
                None => None,
                Some(id) => {
                    let contact = reload!(&mut *tx, scope, id);
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[update_event("update", &contact)]
                    )?;
                    Some(contact)
                }
            }
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::set_flags", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn set_flags(
        &self,
        scope: TenantScope,
        id: ContactId,
        disable_bot: Option<bool>,
        accept_audio: Option<bool>,
    ) -> Result<Option<Contact>> {
        let company = scope.company_id().0;
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE contacts SET disable_bot = COALESCE($3, disable_bot), \
                 accept_audio_message = COALESCE($4, accept_audio_message), updated_at = $5 \
                 WHERE company_id = $1 AND id = $2 RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(disable_bot)
            .bind(accept_audio)
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_error)?;
            match found {
                None => None,
                Some(id) => {
                    let contact = reload!(&mut *tx, scope, id);
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[update_event("update", &contact)]
                    )?;
                    Some(contact)
                }
            }
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::set_picture", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn set_picture(
        &self,
        scope: TenantScope,
        id: ContactId,
        url: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<Option<Contact>> {
        let company = scope.company_id().0;
        Ok(write_tx!(self, |tx| {
            // Looked up now, whatever it found.
            sqlx::query("UPDATE contacts SET picture_at = $3 WHERE company_id = $1 AND id = $2")
                .bind(company)
                .bind(id.0)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE contacts SET url_picture = $3, updated_at = $4 \
                 WHERE company_id = $1 AND id = $2 \
                 AND ((url_picture IS NULL) <> ($3 IS NULL) OR url_picture <> $3) RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(url)
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_error)?;
            match found {
                None => None,
                Some(id) => {
                    let contact = reload!(&mut *tx, scope, id);
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        at,
                        &[update_event("update", &contact)]
                    )?;
                    Some(contact)
                }
            }
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::set_tags", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn set_tags(&self, scope: TenantScope, id: ContactId, tags: &[TagId]) -> Result<bool> {
        let company = scope.company_id().0;
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE contacts SET updated_at = $3 WHERE company_id = $1 AND id = $2 RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(db_error)?;
            match found {
                None => false,
                Some(contact_id) => {
                    sqlx::query(
                        "DELETE FROM contact_tags WHERE company_id = $1 AND contact_id = $2",
                    )
                    .bind(company)
                    .bind(contact_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    for tag in tags {
                        // Only the company's own tags link; others are ignored.
                        sqlx::query(
                            "INSERT INTO contact_tags (company_id, contact_id, tag_id) \
                             SELECT $1, $2, id FROM tags WHERE company_id = $1 AND id = $3 \
                             ON CONFLICT DO NOTHING",
                        )
                        .bind(company)
                        .bind(contact_id)
                        .bind(tag.0)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                    }
                    let contact = reload!(&mut *tx, scope, contact_id);
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[update_event("update", &contact)]
                    )?;
                    true
                }
            }
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::upsert", skip_all, fields(company = scope.company_id().0))]
    async fn upsert(&self, scope: TenantScope, input: &ContactInput) -> Result<(Contact, bool)> {
        let company = scope.company_id().0;
        let channel = to_wire(&input.channel.unwrap_or(ChannelKind::Whatsapp))?;
        let at = self.now();
        Ok(write_tx!(self, |tx| {
            let inserted: Option<i64> = sqlx::query_scalar(
                "INSERT INTO contacts (company_id, name, number, email, channel, is_group, \
                 whatsapp_id, disable_bot, accept_audio_message, search_text, created_at, \
                 updated_at) VALUES ($1, $2, $3, $4, $5, $6, \
                 (SELECT id FROM whatsapps WHERE id = $7 AND company_id = $1), $8, $9, $10, \
                 $11, $11) ON CONFLICT (company_id, channel, number) DO NOTHING RETURNING id",
            )
            .bind(company)
            .bind(&input.name)
            .bind(&input.number)
            .bind(&input.email)
            .bind(&channel)
            .bind(input.is_group)
            .bind(input.whatsapp_id.map(|w| w.0))
            .bind(input.disable_bot.unwrap_or(false))
            .bind(input.accept_audio_message.unwrap_or(true))
            .bind(search_text(&input.name, &input.number, &input.email))
            .bind(at)
            .fetch_optional(&mut *tx)
            .await
            .map_err(contact_write_error)?;
            let (id, created) = match inserted {
                Some(id) => {
                    replace_extras!(&mut *tx, self.now(), company, id, &input.extra_info);
                    (id, true)
                }
                None => {
                    let (id, email): (i64, String) = sqlx::query_as(
                        "SELECT id, email FROM contacts \
                         WHERE company_id = $1 AND channel = $2 AND number = $3",
                    )
                    .bind(company)
                    .bind(&channel)
                    .bind(&input.number)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    let email = if input.email.is_empty() {
                        email
                    } else {
                        input.email.clone()
                    };
                    sqlx::query(
                        "UPDATE contacts SET name = $3, email = $4, search_text = $5, \
                         updated_at = $6 WHERE company_id = $1 AND id = $2",
                    )
                    .bind(company)
                    .bind(id)
                    .bind(&input.name)
                    .bind(&email)
                    .bind(search_text(&input.name, &input.number, &email))
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    (id, false)
                }
            };
            let contact = reload!(&mut *tx, scope, id);
            let action = if created { "create" } else { "update" };
            crate::append_events!(
                &mut *tx,
                scope,
                self.now(),
                &[update_event(action, &contact)]
            )?;
            (contact, created)
        }))
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::find_by_identities", skip_all, fields(company = scope.company_id().0))]
    async fn find_by_identities(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        identities: &[&str],
    ) -> Result<Vec<(String, chatflow_core::inbox::identities::KnownContact)>> {
        self.find_contacts_by_identities(scope, channel, identities)
            .await
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::apply_identities", skip_all, fields(company = scope.company_id().0))]
    async fn apply_identities(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        plan: &chatflow_core::inbox::identities::IdentityPlan,
    ) -> Result<bool> {
        self.apply_contact_identities(scope, channel, plan).await
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::add_aliases", skip_all, fields(company = scope.company_id().0))]
    async fn add_aliases(
        &self,
        scope: TenantScope,
        channel: ChannelKind,
        aliases: &[(ContactId, String)],
    ) -> Result<()> {
        self.add_contact_aliases(scope, channel, aliases).await
    }

    #[tracing::instrument(level = "debug", name = "ContactRepo::aliases", skip_all, fields(company = scope.company_id().0, contact = id.0))]
    async fn aliases(&self, scope: TenantScope, id: ContactId) -> Result<Vec<String>> {
        self.contact_aliases(scope, id).await
    }
}
