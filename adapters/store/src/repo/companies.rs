//! [`CompanyRepo`] on the store.

use async_trait::async_trait;
use chatflow_core::ports::{CompanyRepo, NewCompany};
use chatflow_core::queue::ScheduleRow;
use chatflow_core::tenancy::Company;
use chatflow_core::{CompanyId, Error, ErrorCode, PlanId, Result, TenantScope};
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::types::Json;

use crate::Store;
use crate::error::{db_error, db_error_missing};
use crate::repo::{from_wire, to_wire};

macro_rules! company_columns {
    () => {
        "id, name, email, phone, plan_id, status, due_date, recurrence, document, payment_method, \
         address_street, address_state, address_city, created_at, last_login"
    };
}

#[derive(sqlx::FromRow)]
struct CompanyRow {
    id: i64,
    name: String,
    email: Option<String>,
    phone: Option<String>,
    plan_id: i64,
    status: bool,
    due_date: NaiveDate,
    recurrence: String,
    document: Option<String>,
    payment_method: Option<String>,
    address_street: Option<String>,
    address_state: Option<String>,
    address_city: Option<String>,
    created_at: DateTime<Utc>,
    last_login: Option<DateTime<Utc>>,
}

impl TryFrom<CompanyRow> for Company {
    type Error = Error;

    fn try_from(row: CompanyRow) -> Result<Self> {
        Ok(Company {
            id: CompanyId(row.id),
            name: row.name,
            email: row.email,
            phone: row.phone,
            plan_id: PlanId(row.plan_id),
            status: row.status,
            due_date: row.due_date,
            recurrence: from_wire("companies.recurrence", &row.recurrence)?,
            document: row.document,
            payment_method: row.payment_method,
            address_street: row.address_street,
            address_state: row.address_state,
            address_city: row.address_city,
            created_at: row.created_at,
            last_login: row.last_login,
        })
    }
}

#[async_trait]
impl CompanyRepo for Store {
    #[tracing::instrument(level = "debug", name = "CompanyRepo::get", skip_all, fields(company = scope.company_id().0))]
    async fn get(&self, scope: TenantScope) -> Result<Option<Company>> {
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, CompanyRow>(concat!(
                "SELECT ",
                company_columns!(),
                " FROM companies WHERE id = $1"
            ))
            .bind(scope.company_id().0)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        row.map(Company::try_from).transpose()
    }

    #[tracing::instrument(level = "debug", name = "CompanyRepo::list_all", skip_all)]
    async fn list_all(&self) -> Result<Vec<Company>> {
        let rows = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, CompanyRow>(concat!(
                "SELECT ",
                company_columns!(),
                " FROM companies ORDER BY id"
            ))
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        rows.into_iter().map(Company::try_from).collect()
    }

    #[tracing::instrument(level = "debug", name = "CompanyRepo::create", skip_all)]
    async fn create(&self, company: &NewCompany) -> Result<Company> {
        let recurrence = to_wire(&company.recurrence)?;
        let at = self.now();
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, CompanyRow>(concat!(
                "INSERT INTO companies (name, email, phone, plan_id, status, due_date, recurrence, \
                 document, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ",
                company_columns!()
            ))
            .bind(&company.name)
            .bind(&company.email)
            .bind(&company.phone)
            .bind(company.plan_id.0)
            .bind(company.status)
            .bind(company.due_date)
            .bind(&recurrence)
            .bind(&company.document)
            .bind(at)
            .fetch_one(p)
            .await
            .map_err(|e| db_error_missing(e, ErrorCode::ERR_NO_PLAN_FOUND))
        })?;
        row.try_into()
    }

    #[tracing::instrument(level = "debug", name = "CompanyRepo::set_due_date", skip_all, fields(company = scope.company_id().0))]
    async fn set_due_date(&self, scope: TenantScope, due_date: NaiveDate) -> Result<()> {
        let at = self.now();
        let result = crate::on_pool!(self.pool(), |p| {
            sqlx::query("UPDATE companies SET due_date = $1, updated_at = $2 WHERE id = $3")
                .bind(due_date)
                .bind(at)
                .bind(scope.company_id().0)
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        if result == 0 {
            return Err(Error::new(ErrorCode::ERR_NO_COMPANY_FOUND));
        }
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "CompanyRepo::touch_last_login", skip_all, fields(company = scope.company_id().0))]
    async fn touch_last_login(&self, scope: TenantScope, at: DateTime<Utc>) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query("UPDATE companies SET last_login = $1 WHERE id = $2")
                .bind(at)
                .bind(scope.company_id().0)
                .execute(p)
                .await
                .map_err(db_error)
                .map(|_| ())
        })?;
        Ok(())
    }
    #[tracing::instrument(level = "debug", name = "CompanyRepo::schedules", skip_all, fields(company = scope.company_id().0))]
    async fn schedules(&self, scope: TenantScope) -> Result<Option<Vec<ScheduleRow>>> {
        let found: Option<Json<Vec<ScheduleRow>>> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar("SELECT schedules FROM companies WHERE id = $1")
                .bind(scope.company_id().0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(found.map(|rows| rows.0))
    }

    #[tracing::instrument(level = "debug", name = "CompanyRepo::set_schedules", skip_all, fields(company = scope.company_id().0))]
    async fn set_schedules(&self, scope: TenantScope, rows: &[ScheduleRow]) -> Result<bool> {
        let at = self.now();
        let rows = Json(rows);
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query("UPDATE companies SET schedules = $1, updated_at = $2 WHERE id = $3")
                .bind(rows)
                .bind(at)
                .bind(scope.company_id().0)
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        Ok(done > 0)
    }
}
