//! [`FlowRepo`] and [`FlowCampaignRepo`] on the store: flows with their draft and numbered
//! versions, their runs, and phrase campaigns. Graphs are stored as JSON text. Every write appends
//! its `company-{id}-flowbuilder` / `company-{id}-flowcampaign` event in the same transaction.
//!
//! Publishing first touches the flow's row (which locks it until commit on PostgreSQL; SQLite has
//! one writer), then inserts version `max + 1` and points the flow at it, so two publications of
//! one flow never race for a number and readers see either version, never a mix.
//!
//! Runs: a ticket has at most one run that has not ended (a unique partial index). Starting one
//! touches the ticket's row, ends the unfinished run (bumping its revision) and inserts the new
//! one in one transaction; a step saves only while the run's `revision` is the one it read.

use async_trait::async_trait;
use chatflow_core::events::SaveAction;
use chatflow_core::flow::Flow;
use chatflow_core::flow_ports::{
    FlowCampaign, FlowCampaignId, FlowCampaignInput, FlowCampaignRepo, FlowDeleteOutcome, FlowId,
    FlowRecord, FlowRepo, FlowRun, FlowRunRecord, FlowSummary, FlowVersion, NewFlowRun,
    PublishOutcome, Publisher, RunUpdate, TicketRuns,
};
use chatflow_core::ids::TicketId;
use chatflow_core::service::flow_campaigns::{campaign_deleted_event, campaign_event};
use chatflow_core::service::flows::{flow_deleted_event, flow_event};
use chatflow_core::{Error, Result, TenantScope, UserId, WhatsappId};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

/// Stores a run's timer as a `flowTimer` job in the open transaction `$tx` (the run's save and
/// its timer commit together).
macro_rules! insert_timer {
    ($tx:ident, $scope:expr, $ticket:expr, $run:expr, $timer:expr, $at:expr) => {{
        let payload = chatflow_core::jobs::JobPayload::FlowTimer {
            ticket_id: $ticket,
            run_id: $run,
            timer: $timer.timer,
        };
        let text = serde_json::to_string(&payload)
            .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))?;
        sqlx::query(
            "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind($scope.company_id().0)
        .bind(payload.kind())
        .bind(text)
        .bind($timer.at)
        .bind($at)
        .execute(&mut *$tx)
        .await
        .map_err(db_error)?;
    }};
}

/// The columns [`FlowRow`] reads.
macro_rules! flow_columns {
    () => {
        "id, name, active, draft, published_version, updated_at"
    };
}

#[derive(sqlx::FromRow)]
struct FlowRow {
    id: i64,
    name: String,
    active: bool,
    draft: Option<String>,
    published_version: Option<i64>,
    updated_at: DateTime<Utc>,
}

impl FlowRow {
    fn summary(&self) -> FlowSummary {
        FlowSummary {
            id: FlowId(self.id),
            name: self.name.clone(),
            active: self.active,
            updated_at: self.updated_at,
            published_version: self.published_version,
            has_draft: self.draft.is_some(),
        }
    }
}

fn graph_text(flow: &Flow) -> Result<String> {
    serde_json::to_string(flow).map_err(|e| Error::internal(format!("cannot serialise flow: {e}")))
}

fn graph_of(text: &str) -> Result<Flow> {
    serde_json::from_str(text).map_err(|e| Error::internal(format!("unreadable stored flow: {e}")))
}

#[derive(sqlx::FromRow)]
struct VersionRow {
    version: i64,
    published_at: DateTime<Utc>,
    published_by: Option<i64>,
    publisher_name: Option<String>,
}

impl From<VersionRow> for FlowVersion {
    fn from(row: VersionRow) -> Self {
        FlowVersion {
            version: row.version,
            published_at: row.published_at,
            published_by: match (row.published_by, row.publisher_name) {
                (Some(id), Some(name)) => Some(Publisher {
                    id: UserId(id),
                    name,
                }),
                _ => None,
            },
        }
    }
}

/// The select [`VersionRow`] reads, filtered by company (`$1`) and flow (`$2`).
macro_rules! version_select {
    () => {
        "SELECT v.version, v.published_at, v.published_by, \
     u.name AS publisher_name FROM flow_versions v \
     LEFT JOIN users u ON u.id = v.published_by \
     WHERE v.company_id = $1 AND v.flow_id = $2"
    };
}

/// The columns [`FlowRunRow`] reads.
macro_rules! run_columns {
    () => {
        "id, ticket_id, flow_id, version, state, status, revision"
    };
}

#[derive(sqlx::FromRow)]
struct FlowRunRow {
    id: i64,
    ticket_id: i64,
    flow_id: i64,
    version: i64,
    state: String,
    status: String,
    revision: i64,
}

impl From<FlowRunRow> for FlowRun {
    fn from(row: FlowRunRow) -> Self {
        FlowRun {
            id: row.id,
            ticket_id: TicketId(row.ticket_id),
            flow_id: FlowId(row.flow_id),
            version: row.version,
            state: row.state,
            status: row.status,
            revision: row.revision,
        }
    }
}

#[derive(sqlx::FromRow)]
struct RunRow {
    current_node: Option<String>,
    status: String,
    state: String,
}

#[async_trait]
impl FlowRepo for Store {
    #[tracing::instrument(level = "debug", name = "FlowRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope) -> Result<Vec<FlowSummary>> {
        let sql: &str = concat!(
            "SELECT ",
            flow_columns!(),
            " FROM flows WHERE company_id = $1 ORDER BY name, id"
        );
        let rows: Vec<FlowRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.iter().map(FlowRow::summary).collect())
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::get", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn get(&self, scope: TenantScope, id: FlowId) -> Result<Option<FlowRecord>> {
        let sql: &str = concat!(
            "SELECT ",
            flow_columns!(),
            " FROM flows WHERE company_id = $1 AND id = $2"
        );
        let row: Option<FlowRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        let Some(row) = row else {
            return Ok(None);
        };
        let published = match row.published_version {
            None => None,
            Some(version) => self.version_graph(scope, id, version).await?,
        };
        Ok(Some(FlowRecord {
            summary: row.summary(),
            draft: row.draft.as_deref().map(graph_of).transpose()?,
            published,
        }))
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        name: &str,
        draft: Option<&Flow>,
    ) -> Result<FlowSummary> {
        let at = self.now();
        let draft = draft.map(graph_text).transpose()?;
        let sql: &str = concat!(
            "INSERT INTO flows (company_id, name, active, draft, created_at, updated_at) \
             VALUES ($1, $2, TRUE, $3, $4, $4) RETURNING ",
            flow_columns!()
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: FlowRow = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(name)
                    .bind(draft.as_deref())
                    .bind(at)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let summary = row.summary();
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[flow_event(SaveAction::Create, &summary)]
                )?;
                Ok(summary)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::rename", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn rename(
        &self,
        scope: TenantScope,
        id: FlowId,
        name: &str,
    ) -> Result<Option<FlowSummary>> {
        let at = self.now();
        let sql: &str = concat!(
            "UPDATE flows SET name = $3, updated_at = $4 WHERE company_id = $1 AND id = $2 \
             RETURNING ",
            flow_columns!()
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<FlowRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(name)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let summary = row.summary();
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[flow_event(SaveAction::Update, &summary)]
                )?;
                Ok(Some(summary))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::save_draft", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn save_draft(
        &self,
        scope: TenantScope,
        id: FlowId,
        draft: &Flow,
    ) -> Result<Option<FlowSummary>> {
        let at = self.now();
        let draft = graph_text(draft)?;
        let sql: &str = concat!(
            "UPDATE flows SET draft = $3, updated_at = $4 WHERE company_id = $1 AND id = $2 \
             RETURNING ",
            flow_columns!()
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<FlowRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(&draft)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let summary = row.summary();
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[flow_event(SaveAction::Update, &summary)]
                )?;
                Ok(Some(summary))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::publish", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn publish(
        &self,
        scope: TenantScope,
        id: FlowId,
        graph: &Flow,
        by: Option<UserId>,
    ) -> Result<PublishOutcome> {
        let at = self.now();
        let graph = graph_text(graph)?;
        let finish_sql: &str = concat!(
            "UPDATE flows SET published_version = $3, updated_at = $4, \
             draft = CASE WHEN draft = $5 THEN NULL ELSE draft END \
             WHERE company_id = $1 AND id = $2 RETURNING ",
            flow_columns!()
        );
        let version_sql: &str = concat!(version_select!(), " AND v.version = $3");
        crate::inbox_write_tx!(self, |tx| {
            async {
                // Touch the row first: on PostgreSQL this locks the flow until commit.
                let found: Option<i64> = sqlx::query_scalar(
                    "UPDATE flows SET updated_at = $3 WHERE company_id = $1 AND id = $2 \
                     RETURNING id",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if found.is_none() {
                    return Ok(PublishOutcome::NotFound);
                }
                let next: i64 = sqlx::query_scalar(
                    "SELECT COALESCE(MAX(version), 0) + 1 FROM flow_versions WHERE flow_id = $1",
                )
                .bind(id.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                sqlx::query(
                    "INSERT INTO flow_versions \
                     (flow_id, company_id, version, graph, published_at, published_by) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(id.0)
                .bind(scope.company_id().0)
                .bind(next)
                .bind(&graph)
                .bind(at)
                .bind(by.map(|u| u.0))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                let row: FlowRow = sqlx::query_as(finish_sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(next)
                    .bind(at)
                    .bind(&graph)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let version: VersionRow = sqlx::query_as(version_sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(next)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[flow_event(SaveAction::Update, &row.summary())]
                )?;
                Ok(PublishOutcome::Published(version.into()))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::versions", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn versions(&self, scope: TenantScope, id: FlowId) -> Result<Vec<FlowVersion>> {
        let sql: &str = concat!(version_select!(), " ORDER BY v.version DESC");
        let rows: Vec<VersionRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.into_iter().map(FlowVersion::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::version_graph", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn version_graph(
        &self,
        scope: TenantScope,
        id: FlowId,
        version: i64,
    ) -> Result<Option<Flow>> {
        let text: Option<String> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT graph FROM flow_versions \
                 WHERE company_id = $1 AND flow_id = $2 AND version = $3",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .bind(version)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        text.as_deref().map(graph_of).transpose()
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::delete", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn delete(&self, scope: TenantScope, id: FlowId) -> Result<FlowDeleteOutcome> {
        crate::inbox_write_tx!(self, |tx| {
            async {
                let found: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM flows WHERE company_id = $1 AND id = $2")
                        .bind(scope.company_id().0)
                        .bind(id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if found.is_none() {
                    return Ok(FlowDeleteOutcome::NotFound);
                }
                let users: i64 = sqlx::query_scalar(
                    "SELECT (SELECT COUNT(*) FROM whatsapps WHERE company_id = $1 \
                       AND (flow_id_welcome = $2 OR flow_id_not_phrase = $2)) \
                     + (SELECT COUNT(*) FROM flow_campaigns WHERE company_id = $1 \
                       AND flow_id = $2)",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                if users > 0 {
                    return Ok(FlowDeleteOutcome::InUse);
                }
                sqlx::query("DELETE FROM flows WHERE company_id = $1 AND id = $2")
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                crate::append_events!(&mut *tx, scope, self.now(), &[flow_deleted_event(id)])?;
                Ok(FlowDeleteOutcome::Deleted)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::insert_run", skip_all, fields(company = scope.company_id().0))]
    async fn insert_run(&self, scope: TenantScope, run: &NewFlowRun) -> Result<i64> {
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                // Touch the ticket first: on PostgreSQL this locks it until commit, so two runs
                // starting on one ticket take turns (SQLite has one writer).
                let ticket: Option<i64> = sqlx::query_scalar(
                    "UPDATE tickets SET updated_at = updated_at \
                     WHERE company_id = $1 AND id = $2 RETURNING id",
                )
                .bind(scope.company_id().0)
                .bind(run.ticket_id.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if ticket.is_none() {
                    return Err(Error::new(chatflow_core::ErrorCode::ERR_NOT_FOUND));
                }
                // The ticket's unfinished run ends; its revision moves so a step still holding
                // it loses its save.
                sqlx::query(
                    "UPDATE flow_runs SET status = 'ended', revision = revision + 1, \
                     updated_at = $3 \
                     WHERE company_id = $1 AND ticket_id = $2 AND status <> 'ended'",
                )
                .bind(scope.company_id().0)
                .bind(run.ticket_id.0)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                let id: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO flow_runs (company_id, ticket_id, flow_id, version, state, \
                     current_node, status, started_at, updated_at) \
                     SELECT $1, $2, f.id, $4, $5, $6, $7, $8, $8 FROM flows f \
                     WHERE f.company_id = $1 AND f.id = $3 \
                     RETURNING id",
                )
                .bind(scope.company_id().0)
                .bind(run.ticket_id.0)
                .bind(run.flow_id.0)
                .bind(run.version)
                .bind(&run.state)
                .bind(run.current_node.as_deref())
                .bind(&run.status)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                // No flow: the error rolls the ending back too.
                let id = id.ok_or_else(|| Error::new(chatflow_core::ErrorCode::ERR_NOT_FOUND))?;
                if let Some(timer) = run.timer {
                    insert_timer!(tx, scope, run.ticket_id, id, timer, at);
                }
                if let Some(memory) = &run.memory {
                    crate::write_bot_memory!(&mut *tx, at, scope, run.ticket_id, memory)?;
                }
                Ok(id)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::active_run", skip_all, fields(company = scope.company_id().0, ticket = ticket.0))]
    async fn active_run(&self, scope: TenantScope, ticket: TicketId) -> Result<Option<FlowRun>> {
        let sql: &str = concat!(
            "SELECT ",
            run_columns!(),
            " FROM flow_runs WHERE company_id = $1 AND ticket_id = $2 AND status <> 'ended' \
             ORDER BY id DESC LIMIT 1"
        );
        let row: Option<FlowRunRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(ticket.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(row.map(FlowRun::from))
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::run", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn run(&self, scope: TenantScope, id: i64) -> Result<Option<FlowRun>> {
        let sql: &str = concat!(
            "SELECT ",
            run_columns!(),
            " FROM flow_runs WHERE company_id = $1 AND id = $2"
        );
        let row: Option<FlowRunRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(id)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(row.map(FlowRun::from))
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::runs_of_tickets", skip_all, fields(company = scope.company_id().0, tickets = tickets.len()))]
    async fn runs_of_tickets(
        &self,
        scope: TenantScope,
        tickets: &[TicketId],
    ) -> Result<TicketRuns> {
        let mut out = TicketRuns::default();
        if tickets.is_empty() {
            return Ok(out);
        }
        let ids: Vec<i64> = tickets.iter().map(|t| t.0).collect();
        let (active, had): (Vec<FlowRunRow>, Vec<i64>) = crate::on_pool!(self.pool(), |p| {
            let list = crate::repo::lists::any(p, "ticket_id", 2);
            let active = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {} FROM flow_runs WHERE company_id = $1 AND {list} \
                 AND status <> 'ended' ORDER BY id DESC",
                run_columns!()
            )))
            .bind(scope.company_id().0)
            .bind(crate::repo::lists::ints(p, &ids))
            .fetch_all(p)
            .await
            .map_err(db_error)?;
            let had = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT DISTINCT ticket_id FROM flow_runs WHERE company_id = $1 AND {list}"
            )))
            .bind(scope.company_id().0)
            .bind(crate::repo::lists::ints(p, &ids))
            .fetch_all(p)
            .await
            .map_err(db_error)?;
            (active, had)
        });
        // As `active_run`: the newest run that has not ended, one per ticket.
        for run in active.into_iter().map(FlowRun::from) {
            if !out.active.iter().any(|r| r.ticket_id == run.ticket_id) {
                out.active.push(run);
            }
        }
        out.had_run.extend(had.into_iter().map(TicketId));
        Ok(out)
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::ticket_had_run", skip_all, fields(company = scope.company_id().0, ticket = ticket.0))]
    async fn ticket_had_run(&self, scope: TenantScope, ticket: TicketId) -> Result<bool> {
        let found: Option<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT id FROM flow_runs WHERE company_id = $1 AND ticket_id = $2 LIMIT 1",
            )
            .bind(scope.company_id().0)
            .bind(ticket.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(found.is_some())
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::save_run", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn save_run(
        &self,
        scope: TenantScope,
        id: i64,
        expected_revision: i64,
        update: &RunUpdate<'_>,
    ) -> Result<bool> {
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done: std::result::Result<Option<i64>, sqlx::Error> = sqlx::query_scalar(
                    "UPDATE flow_runs SET state = $4, current_node = $5, status = $6, \
                     revision = revision + 1, updated_at = $7 \
                     WHERE company_id = $1 AND id = $2 AND revision = $3 RETURNING ticket_id",
                )
                .bind(scope.company_id().0)
                .bind(id)
                .bind(expected_revision)
                .bind(update.state)
                .bind(update.current_node)
                .bind(update.status)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await;
                let ticket = match done {
                    Ok(Some(ticket)) => TicketId(ticket),
                    Ok(None) => return Ok(false),
                    // Reviving a run while another one of the ticket is active breaks the
                    // one-run index: the other run won.
                    Err(sqlx::Error::Database(db)) if db.is_unique_violation() => {
                        return Ok(false);
                    }
                    Err(e) => return Err(db_error(e)),
                };
                if let Some(timer) = update.timer {
                    insert_timer!(tx, scope, ticket, id, timer, at);
                }
                if let Some(memory) = update.memory {
                    crate::write_bot_memory!(&mut *tx, at, scope, ticket, memory)?;
                }
                Ok(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowRepo::runs", skip_all, fields(company = scope.company_id().0, flow = id.0))]
    async fn runs(
        &self,
        scope: TenantScope,
        id: FlowId,
        version: i64,
    ) -> Result<Vec<FlowRunRecord>> {
        let rows: Vec<RunRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT current_node, status, state FROM flow_runs \
                 WHERE company_id = $1 AND flow_id = $2 AND version = $3 ORDER BY id",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .bind(version)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(rows
            .into_iter()
            .map(|r| FlowRunRecord {
                current_node: r.current_node,
                status: r.status,
                state: r.state,
            })
            .collect())
    }
}

/// The columns [`CampaignRow`] reads.
macro_rules! campaign_columns {
    () => {
        "id, name, flow_id, whatsapp_id, phrase, status"
    };
}

#[derive(sqlx::FromRow)]
struct CampaignRow {
    id: i64,
    name: String,
    flow_id: i64,
    whatsapp_id: Option<i64>,
    phrase: String,
    status: bool,
}

impl From<CampaignRow> for FlowCampaign {
    fn from(row: CampaignRow) -> Self {
        FlowCampaign {
            id: FlowCampaignId(row.id),
            name: row.name,
            flow_id: FlowId(row.flow_id),
            whatsapp_id: row.whatsapp_id.map(WhatsappId),
            phrase: row.phrase,
            status: row.status,
        }
    }
}

#[async_trait]
impl FlowCampaignRepo for Store {
    #[tracing::instrument(level = "debug", name = "FlowCampaignRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope) -> Result<Vec<FlowCampaign>> {
        let sql: &str = concat!(
            "SELECT ",
            campaign_columns!(),
            " FROM flow_campaigns WHERE company_id = $1 \
             ORDER BY name, id"
        );
        let rows: Vec<CampaignRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.into_iter().map(FlowCampaign::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "FlowCampaignRepo::get", skip_all, fields(company = scope.company_id().0, flow_campaign = id.0))]
    async fn get(&self, scope: TenantScope, id: FlowCampaignId) -> Result<Option<FlowCampaign>> {
        let sql: &str = concat!(
            "SELECT ",
            campaign_columns!(),
            " FROM flow_campaigns WHERE company_id = $1 AND id = $2"
        );
        let row: Option<CampaignRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(row.map(FlowCampaign::from))
    }

    #[tracing::instrument(level = "debug", name = "FlowCampaignRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, input: &FlowCampaignInput) -> Result<FlowCampaign> {
        let at = self.now();
        let sql: &str = concat!(
            "INSERT INTO flow_campaigns \
             (company_id, name, flow_id, whatsapp_id, phrase, status, created_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ",
            campaign_columns!()
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: CampaignRow = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(&input.name)
                    .bind(input.flow_id.0)
                    .bind(input.whatsapp_id.map(|w| w.0))
                    .bind(&input.phrase)
                    .bind(input.status)
                    .bind(at)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let campaign = FlowCampaign::from(row);
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[campaign_event(SaveAction::Create, &campaign)]
                )?;
                Ok(campaign)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowCampaignRepo::update", skip_all, fields(company = scope.company_id().0, flow_campaign = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: FlowCampaignId,
        input: &FlowCampaignInput,
    ) -> Result<Option<FlowCampaign>> {
        let at = self.now();
        let sql: &str = concat!(
            "UPDATE flow_campaigns SET name = $3, flow_id = $4, whatsapp_id = $5, phrase = $6, \
             status = $7, updated_at = $8 WHERE company_id = $1 AND id = $2 \
             RETURNING ",
            campaign_columns!()
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<CampaignRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(&input.name)
                    .bind(input.flow_id.0)
                    .bind(input.whatsapp_id.map(|w| w.0))
                    .bind(&input.phrase)
                    .bind(input.status)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let campaign = FlowCampaign::from(row);
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[campaign_event(SaveAction::Update, &campaign)]
                )?;
                Ok(Some(campaign))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "FlowCampaignRepo::delete", skip_all, fields(company = scope.company_id().0, flow_campaign = id.0))]
    async fn delete(&self, scope: TenantScope, id: FlowCampaignId) -> Result<bool> {
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done =
                    sqlx::query("DELETE FROM flow_campaigns WHERE company_id = $1 AND id = $2")
                        .bind(scope.company_id().0)
                        .bind(id.0)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?
                        .rows_affected();
                if done == 0 {
                    return Ok(false);
                }
                crate::append_events!(&mut *tx, scope, self.now(), &[campaign_deleted_event(id)])?;
                Ok(true)
            }
            .await
        })
    }
}
