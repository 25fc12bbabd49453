//! A company's working hours (`GET`/`PUT /companies/{id}/schedules`; spec 2 "Queues"): seven
//! rows, one per weekday, with shifts A and B, used when the `scheduleType` setting is
//! `company`. The company's admins read and save them; the super user may for any company.
//! Rows are returned as saved; a company that never saved any reads
//! [`crate::queue::default_schedules`].

use crate::error::{ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{CompanyId, TenantScope};
use crate::policy::{Action, authorize};
use crate::queue::{ScheduleRow, default_schedules, validate_schedules};
use crate::service::Ports;

/// Admins of `company` (those who change its settings), or the super user for any company.
/// Another company's id is `ERR_NO_COMPANY_FOUND` for everyone else: its existence is not
/// disclosed.
fn authorize_for(actor: &Actor, company: CompanyId) -> Result<()> {
    if actor.is_super {
        authorize(actor, &Action::ManageCompanies)
    } else if company != actor.company_id {
        Err(ErrorCode::ERR_NO_COMPANY_FOUND.into())
    } else {
        authorize(actor, &Action::UpdateCompanySetting(company))
    }
}

/// The company's working hours (`GET /companies/{id}/schedules`); `ERR_NO_COMPANY_FOUND` when
/// the company does not exist.
#[tracing::instrument(level = "debug", name = "company_schedules::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn get(ports: &Ports, actor: &Actor, company: CompanyId) -> Result<Vec<ScheduleRow>> {
    authorize_for(actor, company)?;
    let rows = ports
        .companies
        .schedules(TenantScope::new(company))
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    Ok(if rows.is_empty() {
        default_schedules()
    } else {
        rows
    })
}

/// Saves the company's working hours (`PUT /companies/{id}/schedules`) after
/// [`validate_schedules`], and returns them as saved.
#[tracing::instrument(level = "debug", name = "company_schedules::set", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn set(
    ports: &Ports,
    actor: &Actor,
    company: CompanyId,
    rows: &[ScheduleRow],
) -> Result<Vec<ScheduleRow>> {
    authorize_for(actor, company)?;
    validate_schedules(rows)?;
    let rows: Vec<ScheduleRow> = rows
        .iter()
        .map(|r| ScheduleRow {
            weekday: r.weekday.trim().to_owned(),
            weekday_en: r.weekday_en.trim().to_owned(),
            start_time_a: r.start_time_a.trim().to_owned(),
            end_time_a: r.end_time_a.trim().to_owned(),
            start_time_b: r.start_time_b.trim().to_owned(),
            end_time_b: r.end_time_b.trim().to_owned(),
        })
        .collect();
    if ports
        .companies
        .set_schedules(TenantScope::new(company), &rows)
        .await?
    {
        Ok(rows)
    } else {
        Err(ErrorCode::ERR_NO_COMPANY_FOUND.into())
    }
}
