//! A ticket's bot memory: the chatbot's state, its flags and the integration session.

use chatflow_core::ids::TicketId;
use chatflow_core::inbox::ports::BotMemory;
use chatflow_core::{Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct BotMemoryRow {
    bot_state: String,
    last_bot_message_at: Option<DateTime<Utc>>,
    is_bot: bool,
    use_integration: bool,
    integration_session: String,
}

impl From<BotMemoryRow> for BotMemory {
    fn from(row: BotMemoryRow) -> Self {
        BotMemory {
            bot_state: row.bot_state,
            last_bot_message_at: row.last_bot_message_at,
            is_bot: row.is_bot,
            use_integration: row.use_integration,
            integration: row.integration_session,
        }
    }
}

impl Store {
    pub(super) async fn ticket_bot_memory(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<BotMemory>> {
        let row: Option<BotMemoryRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT bot_state, last_bot_message_at, is_bot, use_integration, \
                 integration_session FROM tickets WHERE company_id = $1 AND id = $2",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(row.map(BotMemory::from))
    }

    pub(super) async fn ticket_bot_memories(
        &self,
        scope: TenantScope,
        ids: &[TicketId],
    ) -> Result<Vec<(TicketId, BotMemory)>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: i64,
            #[sqlx(flatten)]
            memory: BotMemoryRow,
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = ids.iter().map(|t| t.0).collect();
        let rows: Vec<Row> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT id, bot_state, last_bot_message_at, is_bot, use_integration, \
                 integration_session FROM tickets WHERE company_id = $1 AND {}",
                crate::repo::lists::any(p, "id", 2)
            )))
            .bind(scope.company_id().0)
            .bind(crate::repo::lists::ints(p, &ids))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        let out = rows
            .into_iter()
            .map(|row| (TicketId(row.id), BotMemory::from(row.memory)))
            .collect();
        Ok(out)
    }

    pub(super) async fn set_ticket_bot_memory(
        &self,
        scope: TenantScope,
        id: TicketId,
        memory: &BotMemory,
    ) -> Result<bool> {
        crate::inbox_write_tx!(self, |tx| {
            async { crate::write_bot_memory!(&mut *tx, self.now(), scope, id, memory) }.await
        })
    }
}

/// Writes the bot memory `$memory` of ticket `$id` (a [`TicketId`]) of `$scope` on `$conn`
/// at `$at`, as [`chatflow_core::inbox::ports::TicketRepo::set_bot_memory`] says (the ticket's
/// `update` event only when a flag the inbox shows changed): evaluates to `Result<bool>`, false
/// when the ticket is not the company's.
#[macro_export]
macro_rules! write_bot_memory {
    ($conn:expr, $at:expr, $scope:expr, $id:expr, $memory:expr) => {{
        let scope: chatflow_core::ids::TenantScope = $scope;
        let id: chatflow_core::ids::TicketId = $id;
        let memory: &chatflow_core::inbox::ports::BotMemory = $memory;
        let at = $at;
        let company = scope.company_id().0;
        async {
            // Touch the row first (it stays locked until commit on PostgreSQL) and read the
            // flags as they are now.
            let before: Option<(bool, bool)> = sqlx::query_as(
                "UPDATE tickets SET is_bot = is_bot WHERE company_id = $1 AND id = $2 \
                 RETURNING is_bot, use_integration",
            )
            .bind(company)
            .bind(id.0)
            .fetch_optional(&mut *$conn)
            .await
            .map_err($crate::error::db_error)?;
            let Some((is_bot, use_integration)) = before else {
                return Ok(false);
            };
            // The inbox shows the flags, not the bot's state: only a flag change moves the
            // ticket's `updated_at` and tells the clients.
            let shown = is_bot != memory.is_bot || use_integration != memory.use_integration;
            sqlx::query(
                "UPDATE tickets SET bot_state = $3, last_bot_message_at = $4, is_bot = $5, \
                 use_integration = $6, integration_session = $9, \
                 updated_at = CASE WHEN $7 THEN $8 ELSE updated_at END \
                 WHERE company_id = $1 AND id = $2",
            )
            .bind(company)
            .bind(id.0)
            .bind(&memory.bot_state)
            .bind(memory.last_bot_message_at)
            .bind(memory.is_bot)
            .bind(memory.use_integration)
            .bind(shown)
            .bind(at)
            .bind(&memory.integration)
            .execute(&mut *$conn)
            .await
            .map_err($crate::error::db_error)?;
            if shown {
                let ticket = $crate::load_ticket!(&mut *$conn, scope, id)?
                    .ok_or_else(|| chatflow_core::Error::internal("ticket vanished"))?;
                $crate::append_events!(
                    &mut *$conn,
                    scope,
                    at,
                    &[chatflow_core::events::Event::TicketUpdate {
                        ticket: Box::new(ticket)
                    }]
                )?;
            }
            Ok::<bool, chatflow_core::Error>(true)
        }
        .await
    }};
}
