//! [`JobQueue`] on the store: the `jobs` table. Claiming is one `UPDATE ... RETURNING` over the
//! due jobs whose lease is free (with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so workers on
//! several servers never hold the same job; SQLite has one writer at a time anyway).

use async_trait::async_trait;
use chatflow_core::jobs::{Job, JobPayload, JobQueue, NewJob};
use chatflow_core::{CompanyId, Error, Result, TenantScope};
use chrono::{DateTime, TimeDelta, Utc};

use crate::error::db_error;

use crate::{Backend, Store};

#[derive(sqlx::FromRow)]
struct JobRow {
    id: i64,
    company_id: i64,
    payload: String,
    run_at: DateTime<Utc>,
    attempts: i32,
}

impl TryFrom<JobRow> for Job {
    type Error = Error;
    fn try_from(row: JobRow) -> Result<Job> {
        Ok(Job {
            id: row.id,
            company_id: CompanyId(row.company_id),
            payload: serde_json::from_str::<JobPayload>(&row.payload)
                .map_err(|e| Error::internal(format!("unreadable job {}: {e}", row.id)))?,
            run_at: row.run_at,
            attempts: u32::try_from(row.attempts).unwrap_or(0),
        })
    }
}

const JOB_COLUMNS: &str = "id, company_id, payload, run_at, attempts";

/// Whose jobs [`Store::write_jobs`] stores.
enum Owner<'a> {
    /// A company's, queued by a use case.
    Company(i64),
    /// Those a settled job leaves behind, for the job's company: the job is removed (finished)
    /// or marked failed with the error, in the same transaction.
    Settled(i64, Option<&'a str>),
}

impl Store {
    /// Stores `jobs` for `owner` in one transaction; returns their ids in order. A settled job
    /// that is already gone leaves nothing behind (another worker settled it).
    async fn write_jobs(&self, owner: Owner<'_>, jobs: &[NewJob]) -> Result<Vec<i64>> {
        let mut texts = Vec::with_capacity(jobs.len());
        for job in jobs {
            texts.push(
                serde_json::to_string(&job.payload)
                    .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))?,
            );
        }
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let company = match owner {
                    Owner::Company(company) => company,
                    Owner::Settled(id, error) => {
                        let company: Option<i64> = match error {
                            None => sqlx::query_scalar(
                                "DELETE FROM jobs WHERE id = $1 RETURNING company_id",
                            )
                            .bind(id),
                            Some(error) => sqlx::query_scalar(
                                "UPDATE jobs SET failed_at = $2, locked_until = NULL, \
                                 last_error = $3 WHERE id = $1 RETURNING company_id",
                            )
                            .bind(id)
                            .bind(now)
                            .bind(error),
                        }
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                        match company {
                            Some(company) => company,
                            None => return Ok(Vec::new()),
                        }
                    }
                };
                let mut ids = Vec::with_capacity(jobs.len());
                for (job, payload) in jobs.iter().zip(&texts) {
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
                         VALUES ($1, $2, $3, $4, $5) RETURNING id",
                    )
                    .bind(company)
                    .bind(job.payload.kind())
                    .bind(payload)
                    .bind(job.run_at)
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    ids.push(id);
                }
                Ok(ids)
            }
            .await
        })
    }
}

#[async_trait]
impl JobQueue for Store {
    #[tracing::instrument(level = "debug", name = "JobQueue::enqueue", skip_all, fields(company = scope.company_id().0))]
    async fn enqueue(&self, scope: TenantScope, jobs: &[NewJob]) -> Result<Vec<i64>> {
        self.write_jobs(Owner::Company(scope.company_id().0), jobs)
            .await
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::claim_due", skip_all)]
    async fn claim_due(&self, at: DateTime<Utc>, lease: TimeDelta, limit: u32) -> Result<Vec<Job>> {
        let lock = match self.backend() {
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let sql = format!(
            "UPDATE jobs SET locked_until = $1, attempts = attempts + 1 WHERE id IN (\
             SELECT id FROM jobs WHERE failed_at IS NULL AND run_at <= $2 \
             AND (locked_until IS NULL OR locked_until <= $2) ORDER BY run_at, id LIMIT $3{lock}) \
             RETURNING {JOB_COLUMNS}"
        );
        let rows: Vec<JobRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(at + lease)
                .bind(at)
                .bind(i64::from(limit))
                .fetch_all(p)
                .await
                .map_err(db_error)
        })?;
        let mut jobs = rows
            .into_iter()
            .map(Job::try_from)
            .collect::<Result<Vec<_>>>()?;
        jobs.sort_by_key(|j| (j.run_at, j.id));
        Ok(jobs)
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::next_due", skip_all)]
    async fn next_due(&self) -> Result<Option<DateTime<Utc>>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, Option<DateTime<Utc>>>(
                "SELECT MIN(CASE WHEN locked_until IS NOT NULL AND locked_until > run_at \
                 THEN locked_until ELSE run_at END) FROM jobs WHERE failed_at IS NULL",
            )
            .fetch_one(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::finish", skip_all, fields(id = id))]
    async fn finish(&self, id: i64, then: &[NewJob]) -> Result<()> {
        self.write_jobs(Owner::Settled(id, None), then)
            .await
            .map(|_| ())
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::retry_at", skip_all, fields(id = id))]
    async fn retry_at(&self, id: i64, at: DateTime<Utc>, error: &str) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE jobs SET run_at = $1, locked_until = NULL, last_error = $2 WHERE id = $3",
            )
            .bind(at)
            .bind(error)
            .bind(id)
            .execute(p)
            .await
            .map(|_| ())
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::give_up", skip_all, fields(id = id))]
    async fn give_up(&self, id: i64, error: &str, then: &[NewJob]) -> Result<()> {
        self.write_jobs(Owner::Settled(id, Some(error)), then)
            .await
            .map(|_| ())
    }

    #[tracing::instrument(level = "debug", name = "JobQueue::pending", skip_all, fields(company = scope.company_id().0))]
    async fn pending(&self, scope: TenantScope) -> Result<Vec<Job>> {
        let rows: Vec<JobRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {JOB_COLUMNS} FROM jobs WHERE company_id = $1 ORDER BY run_at, id"
            )))
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        rows.into_iter().map(Job::try_from).collect()
    }
}
