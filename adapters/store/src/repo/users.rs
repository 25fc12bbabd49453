//! [`UserRepo`] on the store: users of a company, their queue links, sign-in lookup.

use std::collections::HashMap;

use async_trait::async_trait;
use chatflow_core::events::SaveAction;
use chatflow_core::identity::{User, UserFlags};
use chatflow_core::ports::{
    NewUser, Page, PageRequest, SignedIn, UserChanges, UserLogin, UserRepo, UserSettings,
};
use chatflow_core::service::users::{user_deleted_event, user_saved_event};
use chatflow_core::{
    CompanyId, Error, ErrorCode, QueueId, Result, TenantScope, UserId, WhatsappId,
};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::{db_error, db_error_missing};
use crate::repo::{escape_like, from_wire, to_wire};

macro_rules! user_columns {
    () => {
        "id, company_id, name, email, password_hash, profile, is_super, all_ticket, allow_group, \
         all_historic, all_user_chat, user_close_pending_ticket, show_dashboard, allow_real_time, \
         allow_connections, start_work, end_work, farewell_message, default_theme, default_menu, \
         whatsapp_id, profile_image, online, default_tickets_manager_width, created_at, updated_at"
    };
}

impl UserWithQueuesRow {
    /// The user with their queues, and the company's due date.
    fn into_signed_in(self) -> Result<(User, chrono::NaiveDate)> {
        let due_date = self
            .company_due_date
            .ok_or_else(|| Error::internal("a user without a company"))?;
        let mut queues = self
            .queue_list
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .filter(|q| !q.is_empty())
            .map(|q| {
                q.trim().parse::<i64>().map(QueueId).map_err(|_| {
                    Error::internal(format!("unreadable queue list {:?}", self.queue_list))
                })
            })
            .collect::<Result<Vec<QueueId>>>()?;
        queues.sort_by_key(|q| q.0);
        Ok((self.user.into_user(queues)?, due_date))
    }
}

/// Selects one user of a company: binds are the user id and the company id.
const SELECT_ONE: &str = concat!(
    "SELECT ",
    user_columns!(),
    " FROM users WHERE id = $1 AND company_id = $2"
);

/// One user of a company with its queue ids as a comma-separated list (SQLite): binds are the
/// user id and the company id.
const SELECT_ONE_WITH_QUEUES_SQLITE: &str = concat!(
    "SELECT ",
    user_columns!(),
    ", (SELECT group_concat(uq.queue_id) FROM user_queues uq \
     WHERE uq.user_id = users.id AND uq.company_id = users.company_id) AS queue_list, \
     (SELECT c.due_date FROM companies c WHERE c.id = users.company_id) AS company_due_date \
     FROM users WHERE id = $1 AND company_id = $2"
);

/// The same on PostgreSQL.
const SELECT_ONE_WITH_QUEUES_POSTGRES: &str = concat!(
    "SELECT ",
    user_columns!(),
    ", (SELECT string_agg(uq.queue_id::text, ',') FROM user_queues uq \
     WHERE uq.user_id = users.id AND uq.company_id = users.company_id) AS queue_list, \
     (SELECT c.due_date FROM companies c WHERE c.id = users.company_id) AS company_due_date \
     FROM users WHERE id = $1 AND company_id = $2"
);

/// The user of an access token while its session family is alive (SQLite): binds are the user
/// id, the company id and the family. One round trip: the user, the queue ids, the company's due
/// date and status, and the session check (`refresh_sessions (company_id, family)` index).
const SELECT_IN_SESSION_SQLITE: &str = concat!(
    "SELECT ",
    user_columns!(),
    ", (SELECT group_concat(uq.queue_id) FROM user_queues uq \
     WHERE uq.user_id = users.id AND uq.company_id = users.company_id) AS queue_list, \
     (SELECT c.due_date FROM companies c WHERE c.id = users.company_id) AS company_due_date, \
     (SELECT c.status FROM companies c WHERE c.id = users.company_id) AS company_status \
     FROM users WHERE id = $1 AND company_id = $2 \
     AND EXISTS (SELECT 1 FROM refresh_sessions s \
     WHERE s.company_id = $2 AND s.family = $3 AND s.user_id = $1 AND NOT s.revoked)"
);

/// The same on PostgreSQL.
const SELECT_IN_SESSION_POSTGRES: &str = concat!(
    "SELECT ",
    user_columns!(),
    ", (SELECT string_agg(uq.queue_id::text, ',') FROM user_queues uq \
     WHERE uq.user_id = users.id AND uq.company_id = users.company_id) AS queue_list, \
     (SELECT c.due_date FROM companies c WHERE c.id = users.company_id) AS company_due_date, \
     (SELECT c.status FROM companies c WHERE c.id = users.company_id) AS company_status \
     FROM users WHERE id = $1 AND company_id = $2 \
     AND EXISTS (SELECT 1 FROM refresh_sessions s \
     WHERE s.company_id = $2 AND s.family = $3 AND s.user_id = $1 AND NOT s.revoked)"
);

/// A user row with its queue ids, company due date and company status.
#[derive(sqlx::FromRow)]
struct UserInSessionRow {
    #[sqlx(flatten)]
    user: UserWithQueuesRow,
    company_status: Option<bool>,
}

/// A user row with its queue ids (`"3,7"`, or `NULL` when none).
#[derive(sqlx::FromRow)]
struct UserWithQueuesRow {
    #[sqlx(flatten)]
    user: UserRow,
    queue_list: Option<String>,
    company_due_date: Option<chrono::NaiveDate>,
}

/// Queue links of one user of a company: binds are the user id and the company id.
const SELECT_QUEUE_IDS: &str = "SELECT queue_id FROM user_queues \
     WHERE user_id = $1 AND company_id = $2 ORDER BY queue_id";

/// Links a user to a queue only when the queue belongs to the same company: binds are the user
/// id, the queue id and the company id. Another company's queue links nothing.
const LINK_QUEUE: &str = "INSERT INTO user_queues (company_id, user_id, queue_id) \
     SELECT q.company_id, $1, q.id FROM queues q WHERE q.id = $2 AND q.company_id = $3 \
     ON CONFLICT (user_id, queue_id) DO NOTHING";

#[derive(sqlx::FromRow)]
struct UserRow {
    id: i64,
    company_id: i64,
    name: String,
    email: String,
    password_hash: String,
    profile: String,
    is_super: bool,
    all_ticket: String,
    allow_group: bool,
    all_historic: String,
    all_user_chat: String,
    user_close_pending_ticket: String,
    show_dashboard: String,
    allow_real_time: String,
    allow_connections: String,
    start_work: String,
    end_work: String,
    farewell_message: Option<String>,
    default_theme: String,
    default_menu: String,
    whatsapp_id: Option<i64>,
    profile_image: Option<String>,
    online: bool,
    default_tickets_manager_width: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl UserRow {
    /// The domain user, with its queue links; the password hash stays behind.
    fn into_user(self, queue_ids: Vec<QueueId>) -> Result<User> {
        Ok(User {
            id: UserId(self.id),
            company_id: CompanyId(self.company_id),
            name: self.name,
            email: self.email,
            profile: from_wire("users.profile", &self.profile)?,
            is_super: self.is_super,
            flags: UserFlags {
                all_ticket: from_wire("users.all_ticket", &self.all_ticket)?,
                allow_group: self.allow_group,
                all_historic: from_wire("users.all_historic", &self.all_historic)?,
                all_user_chat: from_wire("users.all_user_chat", &self.all_user_chat)?,
                user_close_pending_ticket: from_wire(
                    "users.user_close_pending_ticket",
                    &self.user_close_pending_ticket,
                )?,
                show_dashboard: from_wire("users.show_dashboard", &self.show_dashboard)?,
                allow_real_time: from_wire("users.allow_real_time", &self.allow_real_time)?,
                allow_connections: from_wire("users.allow_connections", &self.allow_connections)?,
            },
            start_work: self.start_work,
            end_work: self.end_work,
            farewell_message: self.farewell_message,
            default_theme: from_wire("users.default_theme", &self.default_theme)?,
            default_menu: from_wire("users.default_menu", &self.default_menu)?,
            whatsapp_id: self.whatsapp_id.map(WhatsappId),
            queue_ids,
            profile_image: self.profile_image,
            online: self.online,
            default_tickets_manager_width: self.default_tickets_manager_width,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

/// The settings columns in their stored spelling, in the order the SQL below binds them.
struct SettingsText {
    all_ticket: String,
    allow_group: bool,
    all_historic: String,
    all_user_chat: String,
    user_close_pending_ticket: String,
    show_dashboard: String,
    allow_real_time: String,
    allow_connections: String,
    start_work: String,
    end_work: String,
    farewell_message: Option<String>,
    default_theme: String,
    default_menu: String,
    whatsapp_id: Option<i64>,
}

impl SettingsText {
    fn of(settings: &UserSettings) -> Result<Self> {
        Ok(SettingsText {
            all_ticket: to_wire(&settings.all_ticket)?,
            allow_group: settings.allow_group,
            all_historic: to_wire(&settings.all_historic)?,
            all_user_chat: to_wire(&settings.all_user_chat)?,
            user_close_pending_ticket: to_wire(&settings.user_close_pending_ticket)?,
            show_dashboard: to_wire(&settings.show_dashboard)?,
            allow_real_time: to_wire(&settings.allow_real_time)?,
            allow_connections: to_wire(&settings.allow_connections)?,
            start_work: settings.start_work.clone(),
            end_work: settings.end_work.clone(),
            farewell_message: settings.farewell_message.clone(),
            default_theme: to_wire(&settings.default_theme)?,
            default_menu: to_wire(&settings.default_menu)?,
            whatsapp_id: settings.whatsapp_id.map(|w| w.0),
        })
    }
}

/// Groups `(user, queue)` links by user.
fn group_links(links: Vec<(i64, i64)>) -> HashMap<i64, Vec<QueueId>> {
    let mut by_user: HashMap<i64, Vec<QueueId>> = HashMap::new();
    for (user, queue) in links {
        by_user.entry(user).or_default().push(QueueId(queue));
    }
    by_user
}

impl Store {
    /// Every queue link of a company, grouped by user.
    async fn company_queue_links(&self, scope: TenantScope) -> Result<HashMap<i64, Vec<QueueId>>> {
        let links = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, (i64, i64)>(
                "SELECT user_id, queue_id FROM user_queues WHERE company_id = $1 \
                 ORDER BY user_id, queue_id",
            )
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(group_links(links))
    }

    /// Converts rows of one company, attaching each user's queue links.
    async fn users_with_queues(&self, scope: TenantScope, rows: Vec<UserRow>) -> Result<Vec<User>> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let mut links = self.company_queue_links(scope).await?;
        rows.into_iter()
            .map(|row| {
                let queues = links.remove(&row.id).unwrap_or_default();
                row.into_user(queues)
            })
            .collect()
    }
}

#[async_trait]
impl UserRepo for Store {
    #[tracing::instrument(level = "debug", name = "UserRepo::find_for_login", skip_all)]
    async fn find_for_login(&self, email: &str) -> Result<Option<UserLogin>> {
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, UserRow>(concat!(
                "SELECT ",
                user_columns!(),
                " FROM users WHERE lower(email) = lower($1)"
            ))
            .bind(email.trim())
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        let Some(row) = row else {
            return Ok(None);
        };
        let scope = TenantScope::new(CompanyId(row.company_id));
        let password_hash = row.password_hash.clone();
        let user = self
            .users_with_queues(scope, vec![row])
            .await?
            .pop()
            .ok_or_else(|| Error::internal("user row vanished during conversion"))?;
        Ok(Some(UserLogin {
            user,
            password_hash,
        }))
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::get", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn get(&self, scope: TenantScope, id: UserId) -> Result<Option<User>> {
        Ok(self.get_signed_in(scope, id).await?.map(|(user, _)| user))
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::get_signed_in", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn get_signed_in(
        &self,
        scope: TenantScope,
        id: UserId,
    ) -> Result<Option<(User, chrono::NaiveDate)>> {
        let company = scope.company_id().0;
        // One round trip: every request authenticates through here.
        let sql = match self.backend() {
            crate::Backend::Sqlite => SELECT_ONE_WITH_QUEUES_SQLITE,
            crate::Backend::Postgres => SELECT_ONE_WITH_QUEUES_POSTGRES,
        };
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, UserWithQueuesRow>(sql)
                .bind(id.0)
                .bind(company)
                .fetch_optional(p)
                .await
                .map_err(db_error)
        })?;
        row.map(UserWithQueuesRow::into_signed_in).transpose()
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::get_in_session", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn get_in_session(
        &self,
        scope: TenantScope,
        id: UserId,
        family: uuid::Uuid,
    ) -> Result<Option<SignedIn>> {
        let sql = match self.backend() {
            crate::Backend::Sqlite => SELECT_IN_SESSION_SQLITE,
            crate::Backend::Postgres => SELECT_IN_SESSION_POSTGRES,
        };
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, UserInSessionRow>(sql)
                .bind(id.0)
                .bind(scope.company_id().0)
                .bind(family)
                .fetch_optional(p)
                .await
                .map_err(db_error)
        })?;
        let Some(row) = row else {
            return Ok(None);
        };
        let company_active = row
            .company_status
            .ok_or_else(|| Error::internal("a user without a company"))?;
        let (user, company_due_date) = row.user.into_signed_in()?;
        Ok(Some(SignedIn {
            user,
            company_due_date,
            company_active,
        }))
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::search", skip_all, fields(company = scope.company_id().0))]
    async fn search(
        &self,
        scope: TenantScope,
        search: &str,
        page: PageRequest,
    ) -> Result<Page<User>> {
        let company = scope.company_id().0;
        let pattern = format!("%{}%", escape_like(&search.trim().to_lowercase()));
        let limit = i64::from(page.page_size);
        let offset =
            i64::try_from(page.offset()).map_err(|_| Error::new(ErrorCode::ERR_BAD_REQUEST))?;
        let (count, rows) = crate::on_pool!(self.pool(), |p| {
            let count = sqlx::query_scalar::<_, i64>(
                "SELECT COUNT(*) FROM users WHERE company_id = $1 \
                 AND (lower(name) LIKE $2 ESCAPE '\\' OR lower(email) LIKE $2 ESCAPE '\\')",
            )
            .bind(company)
            .bind(&pattern)
            .fetch_one(p)
            .await
            .map_err(db_error)?;
            let rows = sqlx::query_as::<_, UserRow>(concat!(
                "SELECT ",
                user_columns!(),
                " FROM users WHERE company_id = $1 \
                 AND (lower(name) LIKE $2 ESCAPE '\\' OR lower(email) LIKE $2 ESCAPE '\\') \
                 ORDER BY name, id LIMIT $3 OFFSET $4"
            ))
            .bind(company)
            .bind(&pattern)
            .bind(limit)
            .bind(offset)
            .fetch_all(p)
            .await
            .map_err(db_error)?;
            (count, rows)
        });
        let items = self.users_with_queues(scope, rows).await?;
        let seen = offset.saturating_add(i64::try_from(items.len()).unwrap_or(i64::MAX));
        Ok(Page {
            has_more: seen < count,
            count,
            items,
        })
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::list_all", skip_all, fields(company = scope.company_id().0))]
    async fn list_all(&self, scope: TenantScope) -> Result<Vec<User>> {
        let rows = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, UserRow>(concat!(
                "SELECT ",
                user_columns!(),
                " FROM users WHERE company_id = $1 ORDER BY name, id"
            ))
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        self.users_with_queues(scope, rows).await
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::count", skip_all, fields(company = scope.company_id().0))]
    async fn count(&self, scope: TenantScope) -> Result<i64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM users WHERE company_id = $1")
                .bind(scope.company_id().0)
                .fetch_one(p)
                .await
                .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, user: &NewUser) -> Result<User> {
        let company = scope.company_id().0;
        let profile = to_wire(&user.profile)?;
        let s = SettingsText::of(&user.settings)?;
        let at = self.now();
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            // The default connection is kept only when it is one of the company's own.
            let id = sqlx::query_scalar::<_, i64>(
                "INSERT INTO users (company_id, name, email, password_hash, profile, is_super, \
                 all_ticket, allow_group, all_historic, all_user_chat, user_close_pending_ticket, \
                 show_dashboard, allow_real_time, allow_connections, start_work, end_work, \
                 farewell_message, default_theme, default_menu, whatsapp_id, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
                 $18, $19, (SELECT w.id FROM whatsapps w WHERE w.id = $20 AND w.company_id = $1), \
                 $21, $21) RETURNING id",
            )
            .bind(company)
            .bind(user.name.trim())
            .bind(user.email.trim())
            .bind(&user.password_hash)
            .bind(&profile)
            .bind(user.is_super)
            .bind(&s.all_ticket)
            .bind(s.allow_group)
            .bind(&s.all_historic)
            .bind(&s.all_user_chat)
            .bind(&s.user_close_pending_ticket)
            .bind(&s.show_dashboard)
            .bind(&s.allow_real_time)
            .bind(&s.allow_connections)
            .bind(&s.start_work)
            .bind(&s.end_work)
            .bind(&s.farewell_message)
            .bind(&s.default_theme)
            .bind(&s.default_menu)
            .bind(s.whatsapp_id)
            .bind(at)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| db_error_missing(e, ErrorCode::ERR_NO_COMPANY_FOUND))?;
            for queue in &user.settings.queue_ids {
                sqlx::query(LINK_QUEUE)
                    .bind(id)
                    .bind(queue.0)
                    .bind(company)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
            }
            let row = sqlx::query_as::<_, UserRow>(SELECT_ONE)
                .bind(id)
                .bind(company)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
            let queues = sqlx::query_scalar::<_, i64>(SELECT_QUEUE_IDS)
                .bind(id)
                .bind(company)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
            let created = row.into_user(queues.into_iter().map(QueueId).collect())?;
            crate::append_events!(
                &mut *tx,
                scope,
                at,
                &[user_saved_event(SaveAction::Create, &created)]
            )?;
            tx.commit().await.map_err(db_error)?;
            Ok(created)
        })
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::update", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: UserId,
        changes: &UserChanges,
    ) -> Result<Option<User>> {
        let company = scope.company_id().0;
        let profile = changes.profile.as_ref().map(to_wire).transpose()?;
        let settings = changes
            .settings
            .as_ref()
            .map(SettingsText::of)
            .transpose()?;
        let has_settings = settings.is_some();
        let s = settings.as_ref();
        let (image_changed, image) = match &changes.profile_image {
            Some(image) => (true, image.clone()),
            None => (false, None),
        };
        let at = self.now();
        let announced = changes.announced();
        crate::on_pool!(self.pool(), |p| {
            // The update comes first so the transaction takes the write lock at once.
            let updated = sqlx::query(
                "UPDATE users SET \
                 name = COALESCE($3, name), \
                 email = COALESCE($4, email), \
                 password_hash = COALESCE($5, password_hash), \
                 profile = COALESCE($6, profile), \
                 all_ticket = COALESCE($7, all_ticket), \
                 allow_group = COALESCE($8, allow_group), \
                 all_historic = COALESCE($9, all_historic), \
                 all_user_chat = COALESCE($10, all_user_chat), \
                 user_close_pending_ticket = COALESCE($11, user_close_pending_ticket), \
                 show_dashboard = COALESCE($12, show_dashboard), \
                 allow_real_time = COALESCE($13, allow_real_time), \
                 allow_connections = COALESCE($14, allow_connections), \
                 start_work = COALESCE($15, start_work), \
                 end_work = COALESCE($16, end_work), \
                 default_theme = COALESCE($17, default_theme), \
                 default_menu = COALESCE($18, default_menu), \
                 farewell_message = CASE WHEN $19 THEN $20 ELSE farewell_message END, \
                 whatsapp_id = CASE WHEN $19 \
                     THEN (SELECT w.id FROM whatsapps w WHERE w.id = $21 AND w.company_id = $2) \
                     ELSE whatsapp_id END, \
                 profile_image = CASE WHEN $22 THEN $23 ELSE profile_image END, \
                 default_tickets_manager_width = COALESCE($24, default_tickets_manager_width), \
                 updated_at = $25 \
                 WHERE id = $1 AND company_id = $2",
            )
            .bind(id.0)
            .bind(company)
            .bind(changes.name.as_deref().map(str::trim))
            .bind(changes.email.as_deref().map(str::trim))
            .bind(changes.password_hash.as_deref())
            .bind(profile.as_deref())
            .bind(s.map(|s| s.all_ticket.as_str()))
            .bind(s.map(|s| s.allow_group))
            .bind(s.map(|s| s.all_historic.as_str()))
            .bind(s.map(|s| s.all_user_chat.as_str()))
            .bind(s.map(|s| s.user_close_pending_ticket.as_str()))
            .bind(s.map(|s| s.show_dashboard.as_str()))
            .bind(s.map(|s| s.allow_real_time.as_str()))
            .bind(s.map(|s| s.allow_connections.as_str()))
            .bind(s.map(|s| s.start_work.as_str()))
            .bind(s.map(|s| s.end_work.as_str()))
            .bind(s.map(|s| s.default_theme.as_str()))
            .bind(s.map(|s| s.default_menu.as_str()))
            .bind(has_settings)
            .bind(s.and_then(|s| s.farewell_message.as_deref()))
            .bind(s.and_then(|s| s.whatsapp_id))
            .bind(image_changed)
            .bind(image.as_deref())
            .bind(changes.default_tickets_manager_width)
            .bind(at);
            let mut tx = p.begin().await.map_err(db_error)?;
            let affected = updated
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if affected == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Ok(None);
            }
            if let Some(settings) = &changes.settings {
                sqlx::query("DELETE FROM user_queues WHERE user_id = $1 AND company_id = $2")
                    .bind(id.0)
                    .bind(company)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                for queue in &settings.queue_ids {
                    sqlx::query(LINK_QUEUE)
                        .bind(id.0)
                        .bind(queue.0)
                        .bind(company)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                }
            }
            let row = sqlx::query_as::<_, UserRow>(SELECT_ONE)
                .bind(id.0)
                .bind(company)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
            let queues = sqlx::query_scalar::<_, i64>(SELECT_QUEUE_IDS)
                .bind(id.0)
                .bind(company)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
            let updated = row.into_user(queues.into_iter().map(QueueId).collect())?;
            if announced {
                crate::append_events!(
                    &mut *tx,
                    scope,
                    at,
                    &[user_saved_event(SaveAction::Update, &updated)]
                )?;
            }
            tx.commit().await.map_err(db_error)?;
            Ok(Some(updated))
        })
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::delete", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn delete(&self, scope: TenantScope, id: UserId) -> Result<bool> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            // Sessions go with the user (a cascade); revoking them first keeps that true on
            // an engine without enforced foreign keys.
            sqlx::query(
                "UPDATE refresh_sessions SET revoked = TRUE WHERE user_id = $1 AND company_id = $2",
            )
            .bind(id.0)
            .bind(company)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            let deleted = sqlx::query("DELETE FROM users WHERE id = $1 AND company_id = $2")
                .bind(id.0)
                .bind(company)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if deleted == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Ok(false);
            }
            crate::append_events!(&mut *tx, scope, self.now(), &[user_deleted_event(id)])?;
            tx.commit().await.map_err(db_error)?;
            Ok(true)
        })
    }

    #[tracing::instrument(level = "debug", name = "UserRepo::set_online", skip_all, fields(company = scope.company_id().0, user = id.0))]
    async fn set_online(&self, scope: TenantScope, id: UserId, online: bool) -> Result<()> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            let changed =
                sqlx::query("UPDATE users SET online = $1 WHERE id = $2 AND company_id = $3")
                    .bind(online)
                    .bind(id.0)
                    .bind(company)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
            if changed == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Ok(());
            }
            let row = sqlx::query_as::<_, UserRow>(SELECT_ONE)
                .bind(id.0)
                .bind(company)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
            // The announced summary needs no queues.
            let user = row.into_user(Vec::new())?;
            crate::append_events!(
                &mut *tx,
                scope,
                self.now(),
                &[user_saved_event(SaveAction::Update, &user)]
            )?;
            tx.commit().await.map_err(db_error)?;
            Ok(())
        })
    }
}
