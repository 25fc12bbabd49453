//! [`QueueRepo`] on the store: a company's queues and their chatbot menus.
//!
//! A menu is a tree of `chatbots` rows (`parent_id` NULL at the top, `position` orders
//! siblings), read in two queries per call and assembled here. Writing a menu replaces the tree
//! in the write's transaction: options sent with the id of one of the queue's options keep their
//! row, the others are inserted, rows not sent are deleted (their sub-options with them). Every
//! write appends `company-{id}-queue` in the same transaction.

use std::collections::HashMap;

use async_trait::async_trait;
use chatflow_core::events::SaveAction;
use chatflow_core::ports::{QueueRepo, QueueSummary};
use chatflow_core::queue::{
    ChatbotId, ChatbotOption, Queue, QueueInput, ScheduleRow, default_schedules,
};
use chatflow_core::service::queues::{queue_deleted_event, queue_event};
use chatflow_core::{QueueId, Result, TenantScope, UserId};
use sqlx::types::Json;

use crate::Store;
use crate::error::db_error;
use crate::repo::{from_wire, to_wire};

#[derive(sqlx::FromRow)]
struct QueueSummaryRow {
    id: i64,
    name: String,
    color: String,
}

impl From<QueueSummaryRow> for QueueSummary {
    fn from(row: QueueSummaryRow) -> Self {
        QueueSummary {
            id: QueueId(row.id),
            name: row.name,
            color: row.color,
        }
    }
}

/// Queues with an order come first, in that order; the rest by name.
const ORDER: &str =
    "ORDER BY CASE WHEN order_queue IS NULL THEN 1 ELSE 0 END, order_queue, name, id";

const QUEUE_COLUMNS: &str = "id, name, color, order_queue, greeting_message, out_of_hours_message, \
     close_ticket, ativar_roteador, tempo_roteador, integration_id, file_list_id, schedules";

const CHATBOT_COLUMNS: &str = "id, queue_id, parent_id, name, greeting_message, queue_type, \
     opt_queue_id, opt_user_id, opt_integration_id, opt_file_id, close_ticket";

#[derive(sqlx::FromRow)]
struct QueueRow {
    id: i64,
    name: String,
    color: String,
    order_queue: Option<i64>,
    greeting_message: String,
    out_of_hours_message: String,
    close_ticket: bool,
    ativar_roteador: bool,
    tempo_roteador: i64,
    integration_id: Option<i64>,
    file_list_id: Option<i64>,
    schedules: Json<Vec<ScheduleRow>>,
}

#[derive(sqlx::FromRow)]
struct ChatbotRow {
    id: i64,
    queue_id: i64,
    parent_id: Option<i64>,
    name: String,
    greeting_message: String,
    queue_type: String,
    opt_queue_id: Option<i64>,
    opt_user_id: Option<i64>,
    opt_integration_id: Option<i64>,
    opt_file_id: Option<i64>,
    close_ticket: bool,
}

/// Builds the options under `parent` from rows grouped by parent (each group in menu order).
fn build_tree(
    parent: Option<i64>,
    by_parent: &mut HashMap<Option<i64>, Vec<ChatbotRow>>,
) -> Result<Vec<ChatbotOption>> {
    let Some(rows) = by_parent.remove(&parent) else {
        return Ok(Vec::new());
    };
    rows.into_iter()
        .map(|row| {
            Ok(ChatbotOption {
                id: Some(ChatbotId(row.id)),
                queue_type: from_wire("chatbots.queue_type", &row.queue_type)?,
                options: build_tree(Some(row.id), by_parent)?,
                name: row.name,
                greeting_message: row.greeting_message,
                opt_queue_id: row.opt_queue_id.map(QueueId),
                opt_user_id: row.opt_user_id.map(UserId),
                opt_integration_id: row.opt_integration_id,
                opt_file_id: row.opt_file_id,
                close_ticket: row.close_ticket,
            })
        })
        .collect()
}

/// Joins queue rows with their chatbot rows (ordered by position).
fn assemble(queues: Vec<QueueRow>, chatbots: Vec<ChatbotRow>) -> Result<Vec<Queue>> {
    let mut by_queue: HashMap<i64, HashMap<Option<i64>, Vec<ChatbotRow>>> = HashMap::new();
    for row in chatbots {
        by_queue
            .entry(row.queue_id)
            .or_default()
            .entry(row.parent_id)
            .or_default()
            .push(row);
    }
    queues
        .into_iter()
        .map(|row| {
            let mut rows = by_queue.remove(&row.id).unwrap_or_default();
            Ok(Queue {
                id: QueueId(row.id),
                chatbots: build_tree(None, &mut rows)?,
                name: row.name,
                color: row.color,
                order_queue: row.order_queue,
                greeting_message: row.greeting_message,
                out_of_hours_message: row.out_of_hours_message,
                close_ticket: row.close_ticket,
                ativar_roteador: row.ativar_roteador,
                tempo_roteador: row.tempo_roteador,
                integration_id: row.integration_id,
                file_list_id: row.file_list_id,
                schedules: row.schedules.0,
            })
        })
        .collect()
}

/// Loads the company's queues on `$conn` (a connection or a transaction): every queue when
/// `$id` is `None`, else that one.
macro_rules! load_queues {
    ($conn:expr, $company:expr, $id:expr) => {{
        let company: i64 = $company;
        let id: Option<i64> = $id;
        let conn = $conn;
        async move {
            let (queue_sql, chatbot_sql) = match id {
                None => (
                    format!("SELECT {QUEUE_COLUMNS} FROM queues WHERE company_id = $1 {ORDER}"),
                    format!(
                        "SELECT {CHATBOT_COLUMNS} FROM chatbots WHERE company_id = $1 \
                         ORDER BY position, id"
                    ),
                ),
                Some(_) => (
                    format!("SELECT {QUEUE_COLUMNS} FROM queues WHERE company_id = $1 AND id = $2"),
                    format!(
                        "SELECT {CHATBOT_COLUMNS} FROM chatbots WHERE company_id = $1 \
                         AND queue_id = $2 ORDER BY position, id"
                    ),
                ),
            };
            let mut queues =
                sqlx::query_as::<_, QueueRow>(sqlx::AssertSqlSafe(queue_sql)).bind(company);
            let mut chatbots =
                sqlx::query_as::<_, ChatbotRow>(sqlx::AssertSqlSafe(chatbot_sql)).bind(company);
            if let Some(id) = id {
                queues = queues.bind(id);
                chatbots = chatbots.bind(id);
            }
            let queues = queues.fetch_all(&mut *conn).await.map_err(db_error)?;
            let chatbots = chatbots.fetch_all(&mut *conn).await.map_err(db_error)?;
            assemble(queues, chatbots)
        }
        .await
    }};
}

/// An option of a tree in pre-order: its parent's index in the same list, its position among
/// its siblings.
struct FlatOption<'a> {
    parent: Option<usize>,
    position: i64,
    option: &'a ChatbotOption,
}

fn flatten(options: &[ChatbotOption]) -> Vec<FlatOption<'_>> {
    fn walk<'a>(
        options: &'a [ChatbotOption],
        parent: Option<usize>,
        out: &mut Vec<FlatOption<'a>>,
    ) {
        for (position, option) in options.iter().enumerate() {
            let index = out.len();
            out.push(FlatOption {
                parent,
                position: position as i64,
                option,
            });
            walk(&option.options, Some(index), out);
        }
    }
    let mut out = Vec::new();
    walk(options, None, &mut out);
    out
}

/// Replaces queue `$queue`'s chatbot tree with `$options` on `$tx` (see the module notes).
macro_rules! write_tree {
    ($tx:expr, $at:expr, $company:expr, $queue:expr, $options:expr) => {{
        let company: i64 = $company;
        let queue: i64 = $queue;
        let options: &[ChatbotOption] = $options;
        let tx = $tx;
        let at: chrono::DateTime<chrono::Utc> = $at;
        async move {
            let existing: Vec<i64> = sqlx::query_scalar(
                "SELECT id FROM chatbots WHERE company_id = $1 AND queue_id = $2",
            )
            .bind(company)
            .bind(queue)
            .fetch_all(&mut *tx)
            .await
            .map_err(db_error)?;
            let mut ids: Vec<i64> = Vec::new();
            let mut kept: Vec<i64> = Vec::new();
            for flat in flatten(options) {
                let parent = flat.parent.and_then(|i| ids.get(i).copied());
                let option = flat.option;
                let queue_type = to_wire(&option.queue_type)?;
                let keep = option
                    .id
                    .map(|id| id.0)
                    .filter(|id| existing.contains(id) && !kept.contains(id));
                let id = match keep {
                    Some(id) => {
                        sqlx::query(
                            "UPDATE chatbots SET parent_id = $3, position = $4, name = $5, \
                             greeting_message = $6, queue_type = $7, opt_queue_id = $8, \
                             opt_user_id = $9, opt_integration_id = $10, opt_file_id = $11, \
                             close_ticket = $12, updated_at = $13 \
                             WHERE company_id = $1 AND id = $2",
                        )
                        .bind(company)
                        .bind(id)
                        .bind(parent)
                        .bind(flat.position)
                        .bind(&option.name)
                        .bind(&option.greeting_message)
                        .bind(&queue_type)
                        .bind(option.opt_queue_id.map(|q| q.0))
                        .bind(option.opt_user_id.map(|u| u.0))
                        .bind(option.opt_integration_id)
                        .bind(option.opt_file_id)
                        .bind(option.close_ticket)
                        .bind(at)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                        kept.push(id);
                        id
                    }
                    None => sqlx::query_scalar(
                        "INSERT INTO chatbots (company_id, queue_id, parent_id, position, name, \
                         greeting_message, queue_type, opt_queue_id, opt_user_id, \
                         opt_integration_id, opt_file_id, close_ticket, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) \
                         RETURNING id",
                    )
                    .bind(company)
                    .bind(queue)
                    .bind(parent)
                    .bind(flat.position)
                    .bind(&option.name)
                    .bind(&option.greeting_message)
                    .bind(&queue_type)
                    .bind(option.opt_queue_id.map(|q| q.0))
                    .bind(option.opt_user_id.map(|u| u.0))
                    .bind(option.opt_integration_id)
                    .bind(option.opt_file_id)
                    .bind(option.close_ticket)
                    .bind(at)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?,
                };
                ids.push(id);
            }
            for id in existing.iter().filter(|id| !kept.contains(id)) {
                // A row already gone with its deleted parent affects nothing.
                sqlx::query("DELETE FROM chatbots WHERE company_id = $1 AND id = $2")
                    .bind(company)
                    .bind(*id)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
            }
            Ok::<(), chatflow_core::Error>(())
        }
        .await
    }};
}

/// Loads queue `$id` on `$tx` after a write, or fails: the write just touched it.
macro_rules! reload {
    ($tx:expr, $company:expr, $id:expr) => {{
        let found = load_queues!($tx, $company, Some($id))?;
        found
            .into_iter()
            .next()
            .ok_or_else(|| chatflow_core::Error::internal("queue vanished inside its write"))
    }};
}

fn input_of(name: &str, color: &str) -> QueueInput {
    QueueInput {
        name: name.to_owned(),
        color: color.to_owned(),
        schedules: Some(default_schedules()),
        ..QueueInput::default()
    }
}

#[async_trait]
impl QueueRepo for Store {
    #[tracing::instrument(level = "debug", name = "QueueRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope) -> Result<Vec<QueueSummary>> {
        let rows = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, QueueSummaryRow>(sqlx::AssertSqlSafe(format!(
                "SELECT id, name, color FROM queues WHERE company_id = $1 {ORDER}"
            )))
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(rows.into_iter().map(QueueSummary::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, name: &str, color: &str) -> Result<QueueSummary> {
        let queue = self.create_queue(scope, &input_of(name, color)).await?;
        Ok(QueueSummary {
            id: queue.id,
            name: queue.name,
            color: queue.color,
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::list_queues", skip_all, fields(company = scope.company_id().0))]
    async fn list_queues(&self, scope: TenantScope) -> Result<Vec<Queue>> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            load_queues!(&mut *conn, company, None)
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::get_queue", skip_all, fields(company = scope.company_id().0, queue = id.0))]
    async fn get_queue(&self, scope: TenantScope, id: QueueId) -> Result<Option<Queue>> {
        let company = scope.company_id().0;
        let found = crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            load_queues!(&mut *conn, company, Some(id.0))
        })?;
        Ok(found.into_iter().next())
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::create_queue", skip_all, fields(company = scope.company_id().0))]
    async fn create_queue(&self, scope: TenantScope, input: &QueueInput) -> Result<Queue> {
        let company = scope.company_id().0;
        let at = self.now();
        let schedules = Json(input.schedules.clone().unwrap_or_default());
        crate::inbox_write_tx!(self, |tx| {
            async {
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO queues (company_id, name, color, order_queue, greeting_message, \
                     out_of_hours_message, close_ticket, ativar_roteador, tempo_roteador, \
                     integration_id, file_list_id, schedules, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) \
                     RETURNING id",
                )
                .bind(company)
                .bind(&input.name)
                .bind(&input.color)
                .bind(input.order_queue)
                .bind(&input.greeting_message)
                .bind(&input.out_of_hours_message)
                .bind(input.close_ticket)
                .bind(input.ativar_roteador)
                .bind(input.tempo_roteador)
                .bind(input.integration_id)
                .bind(input.file_list_id)
                .bind(&schedules)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                write_tree!(&mut *tx, self.now(), company, id, &input.chatbots)?;
                let queue = reload!(&mut *tx, company, id)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[queue_event(SaveAction::Create, &queue)]
                )?;
                Ok(queue)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::update_queue", skip_all, fields(company = scope.company_id().0, queue = id.0))]
    async fn update_queue(
        &self,
        scope: TenantScope,
        id: QueueId,
        input: &QueueInput,
    ) -> Result<Option<Queue>> {
        let company = scope.company_id().0;
        let at = self.now();
        let schedules = input.schedules.clone().map(Json);
        crate::inbox_write_tx!(self, |tx| {
            async {
                let found: Option<i64> = sqlx::query_scalar(
                    "UPDATE queues SET name = $3, color = $4, order_queue = $5, \
                     greeting_message = $6, out_of_hours_message = $7, close_ticket = $8, \
                     ativar_roteador = $9, tempo_roteador = $10, integration_id = $11, \
                     file_list_id = $12, schedules = COALESCE($13, schedules), updated_at = $14 \
                     WHERE company_id = $1 AND id = $2 RETURNING id",
                )
                .bind(company)
                .bind(id.0)
                .bind(&input.name)
                .bind(&input.color)
                .bind(input.order_queue)
                .bind(&input.greeting_message)
                .bind(&input.out_of_hours_message)
                .bind(input.close_ticket)
                .bind(input.ativar_roteador)
                .bind(input.tempo_roteador)
                .bind(input.integration_id)
                .bind(input.file_list_id)
                .bind(&schedules)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if found.is_none() {
                    return Ok(None);
                }
                write_tree!(&mut *tx, self.now(), company, id.0, &input.chatbots)?;
                let queue = reload!(&mut *tx, company, id.0)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[queue_event(SaveAction::Update, &queue)]
                )?;
                Ok(Some(queue))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::replace_chatbots", skip_all, fields(company = scope.company_id().0, queue = id.0))]
    async fn replace_chatbots(
        &self,
        scope: TenantScope,
        id: QueueId,
        chatbots: &[ChatbotOption],
    ) -> Result<Option<Queue>> {
        let company = scope.company_id().0;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let found: Option<i64> = sqlx::query_scalar(
                    "UPDATE queues SET updated_at = $3 WHERE company_id = $1 AND id = $2 \
                     RETURNING id",
                )
                .bind(company)
                .bind(id.0)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if found.is_none() {
                    return Ok(None);
                }
                write_tree!(&mut *tx, self.now(), company, id.0, chatbots)?;
                let queue = reload!(&mut *tx, company, id.0)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[queue_event(SaveAction::Update, &queue)]
                )?;
                Ok(Some(queue))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::delete_queue", skip_all, fields(company = scope.company_id().0, queue = id.0))]
    async fn delete_queue(&self, scope: TenantScope, id: QueueId) -> Result<bool> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                // Other queues whose options point here lose the target: they change too.
                let touched: Vec<i64> = sqlx::query_scalar(
                    "SELECT DISTINCT queue_id FROM chatbots WHERE company_id = $1 \
                     AND opt_queue_id = $2 AND queue_id <> $2 ORDER BY queue_id",
                )
                .bind(company)
                .bind(id.0)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
                let done = sqlx::query("DELETE FROM queues WHERE company_id = $1 AND id = $2")
                    .bind(company)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
                if done == 0 {
                    return Ok(false);
                }
                let mut events = vec![queue_deleted_event(id)];
                for other in touched {
                    let queue = reload!(&mut *tx, company, other)?;
                    events.push(queue_event(SaveAction::Update, &queue));
                }
                crate::append_events!(&mut *tx, scope, self.now(), &events)?;
                Ok(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QueueRepo::chatbot_queue", skip_all, fields(company = scope.company_id().0, chatbot = id.0))]
    async fn chatbot_queue(&self, scope: TenantScope, id: ChatbotId) -> Result<Option<QueueId>> {
        let found: Option<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar("SELECT queue_id FROM chatbots WHERE company_id = $1 AND id = $2")
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(found.map(QueueId))
    }
}
