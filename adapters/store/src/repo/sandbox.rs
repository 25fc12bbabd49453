//! [`SandboxRepo`] on the store: the simulated phone network's pairing state, what phones sent
//! to connections (`sandbox_inbound`) and what they received (`sandbox_outbound`).

use async_trait::async_trait;
use chatflow_core::inbox::channel::{InboundEvent, InboundMessage, OutboundContent};
use chatflow_core::inbox::sandbox::{
    SandboxChange, SandboxChat, SandboxInbound, SandboxPairing, SandboxReceived, SandboxRepo,
};
use chatflow_core::{CompanyId, Error, Result, TenantScope, WhatsappId};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct PairingRow {
    whatsapp_id: i64,
    nonce: String,
    paired: bool,
    pair_code: Option<String>,
    pair_number: Option<String>,
    updated_at: DateTime<Utc>,
}

/// The columns a [`PairingRow`] reads.
const PAIRING_COLUMNS: &str = "whatsapp_id, nonce, paired, pair_code, pair_number, updated_at";

impl From<PairingRow> for SandboxPairing {
    fn from(row: PairingRow) -> Self {
        SandboxPairing {
            whatsapp_id: WhatsappId(row.whatsapp_id),
            nonce: row.nonce,
            paired: row.paired,
            pair_code: row.pair_code,
            pair_number: row.pair_number,
            updated_at: row.updated_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct InboundRow {
    id: i64,
    company_id: i64,
    whatsapp_id: i64,
    event: String,
    created_at: DateTime<Utc>,
    delivered_at: Option<DateTime<Utc>>,
    attempts: i64,
    retry_at: Option<DateTime<Utc>>,
}

impl TryFrom<InboundRow> for SandboxInbound {
    type Error = Error;
    fn try_from(row: InboundRow) -> Result<Self> {
        Ok(SandboxInbound {
            id: row.id,
            company_id: CompanyId(row.company_id),
            whatsapp_id: WhatsappId(row.whatsapp_id),
            event: serde_json::from_str(&row.event).map_err(|e| {
                Error::internal(format!("unreadable sandbox inbound {}: {e}", row.id))
            })?,
            created_at: row.created_at,
            delivered_at: row.delivered_at,
            attempts: row.attempts,
            retry_at: row.retry_at,
        })
    }
}

#[derive(sqlx::FromRow)]
struct ReceivedRow {
    id: i64,
    whatsapp_id: i64,
    to_number: String,
    external_id: String,
    content: String,
    body: String,
    ack: i64,
    deleted: bool,
    reaction: String,
    read_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<ReceivedRow> for SandboxReceived {
    type Error = Error;
    fn try_from(row: ReceivedRow) -> Result<Self> {
        Ok(SandboxReceived {
            id: row.id,
            whatsapp_id: WhatsappId(row.whatsapp_id),
            to: row.to_number,
            external_id: row.external_id,
            content: serde_json::from_str(&row.content).map_err(|e| {
                Error::internal(format!("unreadable sandbox outbound {}: {e}", row.id))
            })?,
            body: row.body,
            ack: row.ack,
            deleted: row.deleted,
            reaction: row.reaction,
            read_at: row.read_at,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

/// The chat, its name, whether it is a group, and the id of the message an inbound event
/// carries (messages only: a call is nothing a phone can edit or delete), as kept in
/// `sandbox_inbound`'s columns.
fn inbound_keys(event: &InboundEvent) -> (String, String, bool, Option<String>) {
    // The columns hold what every engine stores (no U+0000); the event keeps the text as sent.
    let event = &chatflow_core::inbox::inbound::clean_event(event.clone());
    match event {
        InboundEvent::Message(m) => (
            m.chat.clone(),
            m.chat_name.clone(),
            m.is_group,
            Some(m.external_id.clone()),
        ),
        InboundEvent::MissedCall {
            chat, chat_name, ..
        } => (chat.clone(), chat_name.clone(), false, None),
        InboundEvent::Reaction { chat, .. } => (chat.clone(), String::new(), false, None),
        _ => (String::new(), String::new(), false, None),
    }
}

/// An inbound event as the queue stores it (JSON).
fn stored_event(event: &InboundEvent) -> Result<String> {
    serde_json::to_string(event)
        .map_err(|e| Error::internal(format!("cannot serialise sandbox event: {e}")))
}

impl Store {
    /// Queues what a phone sent, or keeps it as lost (never delivered).
    async fn insert_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
        lost: bool,
    ) -> Result<Option<i64>> {
        let payload = stored_event(event)?;
        let (chat, chat_name, is_group, external_id) = inbound_keys(event);
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>(
                "INSERT INTO sandbox_inbound (company_id, whatsapp_id, event, created_at, chat, \
                 chat_name, is_group, external_id, lost) \
                 SELECT w.company_id, w.id, $3, $4, $5, $6, $7, $8, $9 FROM whatsapps w \
                 WHERE w.id = $2 AND w.company_id = $1 RETURNING id",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(&payload)
            .bind(self.now())
            .bind(&chat)
            .bind(&chat_name)
            .bind(is_group)
            .bind(external_id.as_deref())
            .bind(lost)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })
    }
}

const RECEIVED_COLUMNS: &str = "id, whatsapp_id, to_number, external_id, content, body, ack, \
     deleted, reaction, read_at, created_at, updated_at";

#[async_trait]
impl SandboxRepo for Store {
    #[tracing::instrument(level = "debug", name = "SandboxRepo::begin_pairing", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn begin_pairing(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        nonce: &str,
        reset: bool,
    ) -> Result<SandboxPairing> {
        let company = scope.company_id().0;
        // Only a connection of the company gets a pairing row. A new session forgets the pair
        // code; the number paired by code goes with the pairing.
        let sql = format!(
            "INSERT INTO sandbox_pairings (whatsapp_id, company_id, nonce, paired, updated_at) \
             SELECT w.id, w.company_id, $3, FALSE, $4 FROM whatsapps w \
             WHERE w.id = $2 AND w.company_id = $1 \
             ON CONFLICT (whatsapp_id) DO UPDATE SET nonce = excluded.nonce, \
             paired = CASE WHEN $5 THEN FALSE ELSE sandbox_pairings.paired END, \
             pair_code = NULL, \
             pair_number = CASE WHEN $5 OR NOT sandbox_pairings.paired THEN NULL \
             ELSE sandbox_pairings.pair_number END, \
             updated_at = excluded.updated_at \
             RETURNING {PAIRING_COLUMNS}"
        );
        let row: Option<PairingRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(company)
                .bind(connection.0)
                .bind(nonce)
                .bind(self.now())
                .bind(reset)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        row.map(SandboxPairing::from)
            .ok_or_else(|| chatflow_core::ErrorCode::ERR_NO_WAPP_FOUND.into())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::pairing", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn pairing(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<SandboxPairing>> {
        let sql = format!(
            "SELECT {PAIRING_COLUMNS} FROM sandbox_pairings \
             WHERE company_id = $1 AND whatsapp_id = $2"
        );
        let row: Option<PairingRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(scope.company_id().0)
                .bind(connection.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(row.map(SandboxPairing::from))
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::mark_scanned", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn mark_scanned(&self, scope: TenantScope, connection: WhatsappId) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_pairings SET paired = TRUE, pair_code = NULL, pair_number = NULL, \
                 updated_at = $3 WHERE company_id = $1 AND whatsapp_id = $2",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::show_pair_code", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn show_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        code: &str,
        number: &str,
    ) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_pairings SET pair_code = $3, pair_number = $4, updated_at = $5 \
                 WHERE company_id = $1 AND whatsapp_id = $2 AND NOT paired",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(code)
            .bind(number)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::confirm_pair_code", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn confirm_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        code: &str,
    ) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_pairings SET paired = TRUE, pair_code = NULL, updated_at = $4 \
                 WHERE company_id = $1 AND whatsapp_id = $2 AND pair_code = $3 AND NOT paired",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(code)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::unpair", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn unpair(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM sandbox_pairings WHERE company_id = $1 AND whatsapp_id = $2")
                .bind(scope.company_id().0)
                .bind(connection.0)
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::push_inbound", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn push_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
    ) -> Result<Option<i64>> {
        self.insert_inbound(scope, connection, event, false).await
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::push_lost", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn push_lost(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        message: &InboundMessage,
    ) -> Result<Option<i64>> {
        let event = InboundEvent::Message(message.clone());
        self.insert_inbound(scope, connection, &event, true).await
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::phone_history", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn phone_history(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        anchor_external_id: &str,
        anchor_time: DateTime<Utc>,
        count: u32,
    ) -> Result<Vec<InboundMessage>> {
        // Before the anchor's row when the phone sent it, else up to the anchor's time; the
        // newest `count` of them.
        let rows: Vec<(i64, String)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT id, event FROM sandbox_inbound i \
                 WHERE i.company_id = $1 AND i.whatsapp_id = $2 AND i.chat = $3 \
                 AND i.external_id IS NOT NULL AND i.external_id <> $4 \
                 AND CASE WHEN EXISTS (SELECT 1 FROM sandbox_inbound a WHERE a.company_id = $1 \
                     AND a.whatsapp_id = $2 AND a.chat = $3 AND a.external_id = $4) \
                   THEN i.id < (SELECT MIN(a.id) FROM sandbox_inbound a WHERE a.company_id = $1 \
                     AND a.whatsapp_id = $2 AND a.chat = $3 AND a.external_id = $4) \
                   ELSE i.created_at <= $5 END \
                 ORDER BY i.id DESC LIMIT $6",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(chat)
            .bind(anchor_external_id)
            .bind(anchor_time)
            .bind(i64::from(count))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        let mut messages = Vec::with_capacity(rows.len());
        for (id, event) in rows.into_iter().rev() {
            let event: InboundEvent = serde_json::from_str(&event)
                .map_err(|e| Error::internal(format!("unreadable sandbox inbound {id}: {e}")))?;
            if let InboundEvent::Message(message) = event {
                messages.push(message);
            }
        }
        Ok(messages)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::undelivered", skip_all)]
    async fn undelivered(&self, per_connection: u32) -> Result<Vec<SandboxInbound>> {
        let rows: Vec<InboundRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT id, company_id, whatsapp_id, event, created_at, delivered_at, attempts, \
                 retry_at FROM ( \
                   SELECT i.id, i.company_id, i.whatsapp_id, i.event, i.created_at, \
                     i.delivered_at, i.attempts, i.retry_at, \
                     ROW_NUMBER() OVER (PARTITION BY i.whatsapp_id ORDER BY i.id) AS place \
                   FROM sandbox_inbound i JOIN whatsapps w ON w.id = i.whatsapp_id \
                   WHERE i.delivered_at IS NULL AND NOT i.lost AND w.status = 'CONNECTED' \
                 ) pending WHERE place <= $1 ORDER BY id",
            )
            .bind(i64::from(per_connection))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        rows.into_iter().map(SandboxInbound::try_from).collect()
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::mark_failed", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn mark_failed(
        &self,
        scope: TenantScope,
        id: i64,
        attempts: i64,
        retry_at: DateTime<Utc>,
        error: &str,
    ) -> Result<()> {
        let error = chatflow_core::inbox::inbound::storable_text(error);
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_inbound SET attempts = $3, retry_at = $4, last_error = $5 \
                 WHERE company_id = $1 AND id = $2 AND delivered_at IS NULL",
            )
            .bind(scope.company_id().0)
            .bind(id)
            .bind(attempts)
            .bind(retry_at)
            .bind(&error)
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::prune_delivered", skip_all)]
    async fn prune_delivered(&self, before: DateTime<Utc>) -> Result<u64> {
        let removed = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "DELETE FROM sandbox_inbound WHERE (delivered_at < $1 OR (lost AND created_at < $1)) \
                 AND id NOT IN (SELECT MAX(k.id) FROM sandbox_inbound k \
                   WHERE k.chat <> '' AND k.chat_name <> '' GROUP BY k.whatsapp_id, k.chat)",
            )
            .bind(before)
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(removed)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::react_to_sent", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn react_to_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        emoji: &str,
    ) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_inbound SET reaction = $4 \
                 WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(external_id)
            .bind(emoji)
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::reaction_to_sent", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn reaction_to_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
    ) -> Result<Option<String>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT reaction FROM sandbox_inbound \
                 WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3 LIMIT 1",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(external_id)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::mark_delivered", skip_all, fields(company = scope.company_id().0))]
    async fn mark_delivered(&self, scope: TenantScope, ids: &[i64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE sandbox_inbound SET delivered_at = $2 \
                 WHERE company_id = $1 AND {} AND delivered_at IS NULL",
                crate::repo::lists::any(p, "id", 3)
            )))
            .bind(scope.company_id().0)
            .bind(self.now())
            .bind(crate::repo::lists::ints(p, ids))
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::record_received", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn record_received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        content: &OutboundContent,
        body: &str,
    ) -> Result<SandboxReceived> {
        let payload = serde_json::to_string(content)
            .map_err(|e| Error::internal(format!("cannot serialise sandbox content: {e}")))?;
        let at = self.now();
        let row: Option<ReceivedRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "INSERT INTO sandbox_outbound (company_id, whatsapp_id, to_number, external_id, \
                 content, body, ack, created_at, updated_at) \
                 SELECT w.company_id, w.id, $3, $4, $5, $6, 1, $7, $7 FROM whatsapps w \
                 WHERE w.id = $2 AND w.company_id = $1 \
                 ON CONFLICT (whatsapp_id, external_id) DO NOTHING RETURNING {RECEIVED_COLUMNS}"
            )))
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(to)
            .bind(external_id)
            .bind(&payload)
            .bind(body)
            .bind(at)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        if let Some(row) = row {
            return SandboxReceived::try_from(row);
        }
        // Nothing inserted: the connection is not the company's, or the phone already received
        // this external id (an idempotent resend), which is answered as it was first recorded.
        let first: Option<ReceivedRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {RECEIVED_COLUMNS} FROM sandbox_outbound \
                 WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3"
            )))
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(external_id)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        match first {
            Some(row) => SandboxReceived::try_from(row),
            None => Err(chatflow_core::ErrorCode::ERR_NO_WAPP_FOUND.into()),
        }
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::set_ack", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn set_ack(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        ack: i64,
    ) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_outbound SET ack = CASE WHEN ack < $4 THEN $4 ELSE ack END, \
                 updated_at = $5 WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(external_id)
            .bind(ack)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::report_acks", skip_all, fields(company = scope.company_id().0, connection = connection.0, acks = acks.len()))]
    async fn report_acks(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        acks: &[(String, i64)],
    ) -> Result<usize> {
        if acks.is_empty() {
            return Ok(0);
        }
        let events = acks
            .iter()
            .map(|(external_id, ack)| {
                stored_event(&InboundEvent::Ack {
                    external_id: external_id.clone(),
                    ack: *ack,
                })
            })
            .collect::<Result<Vec<String>>>()?;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let mut queued = 0;
                for ((external_id, ack), payload) in acks.iter().zip(&events) {
                    let raised = sqlx::query(
                        "UPDATE sandbox_outbound SET ack = $4, updated_at = $5 \
                         WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3 \
                         AND ack < $4",
                    )
                    .bind(scope.company_id().0)
                    .bind(connection.0)
                    .bind(external_id)
                    .bind(*ack)
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
                    if raised == 0 {
                        continue;
                    }
                    sqlx::query(
                        "INSERT INTO sandbox_inbound (company_id, whatsapp_id, event, created_at, \
                         chat, chat_name, is_group, external_id, lost) \
                         VALUES ($1, $2, $3, $4, '', '', FALSE, NULL, FALSE)",
                    )
                    .bind(scope.company_id().0)
                    .bind(connection.0)
                    .bind(payload)
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    queued += 1;
                }
                Ok(queued)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::change_received", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn change_received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        change: &SandboxChange,
    ) -> Result<bool> {
        let (sql, text) = match change {
            SandboxChange::Edit(body) => ("body = $4", body.as_str()),
            SandboxChange::Delete => ("deleted = TRUE, body = $4", ""),
            SandboxChange::React(emoji) => ("reaction = $4", emoji.as_str()),
        };
        let query = format!(
            "UPDATE sandbox_outbound SET {sql}, updated_at = $5 \
             WHERE company_id = $1 AND whatsapp_id = $2 AND external_id = $3"
        );
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(sqlx::AssertSqlSafe(query.clone()))
                .bind(scope.company_id().0)
                .bind(connection.0)
                .bind(external_id)
                .bind(text)
                .bind(self.now())
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        Ok(done > 0)
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::mark_chat_read", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn mark_chat_read(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
    ) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE sandbox_outbound SET read_at = $4 WHERE company_id = $1 \
                 AND whatsapp_id = $2 AND to_number = $3 AND read_at IS NULL",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(to)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::received", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: Option<&str>,
    ) -> Result<Vec<SandboxReceived>> {
        let filter = if to.is_some() {
            " AND to_number = $3"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {RECEIVED_COLUMNS} FROM sandbox_outbound \
             WHERE company_id = $1 AND whatsapp_id = $2{filter} ORDER BY id"
        );
        let rows: Vec<ReceivedRow> = crate::on_pool!(self.pool(), |p| {
            let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(scope.company_id().0)
                .bind(connection.0);
            if let Some(to) = to {
                query = query.bind(to);
            }
            query.fetch_all(p).await.map_err(db_error)?
        });
        rows.into_iter().map(SandboxReceived::try_from).collect()
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::phone_sent", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn phone_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        external_id: &str,
    ) -> Result<bool> {
        let found: Option<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT id FROM sandbox_inbound WHERE company_id = $1 AND whatsapp_id = $2 \
                 AND external_id = $3 AND chat = $4 LIMIT 1",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(external_id)
            .bind(chat)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(found.is_some())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::chats", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn chats(&self, scope: TenantScope, connection: WhatsappId) -> Result<Vec<SandboxChat>> {
        // Each phone once, at its first appearance (what it sent, else what it received), with
        // the last non-empty name it sent.
        let rows: Vec<(String, String)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT chat, name FROM ( \
                   SELECT i.chat AS chat, MIN(i.created_at) AS first_at, \
                     COALESCE((SELECT l.chat_name FROM sandbox_inbound l \
                       WHERE l.company_id = $1 AND l.whatsapp_id = $2 AND l.chat = i.chat \
                       AND l.chat_name <> '' ORDER BY l.id DESC LIMIT 1), '') AS name \
                   FROM sandbox_inbound i WHERE i.company_id = $1 AND i.whatsapp_id = $2 \
                   AND i.chat <> '' AND NOT i.is_group GROUP BY i.chat \
                   UNION ALL \
                   SELECT o.to_number AS chat, MIN(o.created_at) AS first_at, '' AS name \
                   FROM sandbox_outbound o WHERE o.company_id = $1 AND o.whatsapp_id = $2 \
                   AND NOT EXISTS (SELECT 1 FROM sandbox_inbound x WHERE x.company_id = $1 \
                     AND x.whatsapp_id = $2 AND x.chat = o.to_number) \
                   GROUP BY o.to_number \
                 ) chats ORDER BY first_at, chat",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(rows
            .into_iter()
            .map(|(number, name)| SandboxChat { number, name })
            .collect())
    }

    #[tracing::instrument(level = "debug", name = "SandboxRepo::chat", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn chat(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        number: &str,
    ) -> Result<Option<SandboxChat>> {
        // What `chats` answers for this phone: one it wrote from (not in a group) or wrote to,
        // with the last non-empty name it sent.
        let (known, name): (bool, String) = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT (EXISTS (SELECT 1 FROM sandbox_inbound i WHERE i.company_id = $1 \
                   AND i.whatsapp_id = $2 AND i.chat = $3 AND NOT i.is_group) \
                 OR EXISTS (SELECT 1 FROM sandbox_outbound o WHERE o.company_id = $1 \
                   AND o.whatsapp_id = $2 AND o.to_number = $3)), \
                 COALESCE((SELECT l.chat_name FROM sandbox_inbound l WHERE l.company_id = $1 \
                   AND l.whatsapp_id = $2 AND l.chat = $3 AND l.chat_name <> '' \
                   ORDER BY l.id DESC LIMIT 1), '')",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(number)
            .fetch_one(p)
            .await
            .map_err(db_error)?
        });
        Ok((known && !number.is_empty()).then(|| SandboxChat {
            number: number.to_owned(),
            name,
        }))
    }
}
