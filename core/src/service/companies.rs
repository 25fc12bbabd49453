//! Companies for the platform: create, list, renew one, renew every company that is due.
//!
//! These are platform-level use cases: the CLI calls them directly, and the server calls them
//! after its policy has allowed the super user. Renewal uses the core's renewal math
//! ([`crate::tenancy::renew`]): one renewal moves the due date forward by the company's
//! recurrence (1, 2, 3, 6 or 12 months), end-of-month safe, from the current due date. A company
//! far behind stays due after one renewal; each renewal pays one period.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::ids::{CompanyId, PlanId, TenantScope};
use crate::ports::NewCompany;
use crate::service::Ports;
use crate::tenancy::{self, Company, Recurrence};
use crate::validation;

/// The fields of a new company.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct NewCompanyInput {
    /// Required, 2 to 50 characters.
    pub name: String,
    /// The billing e-mail; valid when given, stored lower-cased.
    pub email: Option<String>,
    /// Digits, or a formatted phone number.
    pub phone: Option<String>,
    /// Must name an existing plan (`ERR_NO_PLAN_FOUND`).
    pub plan_id: Option<PlanId>,
    /// MENSAL when absent.
    pub recurrence: Option<Recurrence>,
    /// The first due date; when absent, the trial period after today (as signup gives).
    pub due_date: Option<NaiveDate>,
    /// Active when absent.
    pub status: Option<bool>,
    /// CPF or CNPJ.
    pub document: Option<String>,
}

/// One renewal: which company, and its due date before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Renewal {
    pub company_id: CompanyId,
    pub old_due_date: NaiveDate,
    pub new_due_date: NaiveDate,
}

/// Checks the company form: `name` 2 to 50 characters, `email` valid when given, `phone` digits
/// (formatting allowed) when given. Returns the e-mail lower-cased and the phone's digits.
fn validate(input: &NewCompanyInput) -> Result<(Option<String>, Option<String>)> {
    let mut fields = Vec::new();
    let name_len = input.name.trim().chars().count();
    if name_len == 0 {
        fields.push(FieldError::new("name", FieldCode::Required));
    } else if name_len < validation::NAME_MIN_CHARS {
        fields.push(FieldError::new("name", FieldCode::TooShort));
    } else if name_len > validation::NAME_MAX_CHARS {
        fields.push(FieldError::new("name", FieldCode::TooLong));
    }
    let email = input
        .email
        .as_deref()
        .map(validation::normalize_email)
        .filter(|e| !e.is_empty());
    if email
        .as_deref()
        .is_some_and(|e| !validation::is_valid_email(e))
    {
        fields.push(FieldError::new("email", FieldCode::InvalidEmail));
    }
    let phone = match input
        .phone
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        None => None,
        Some(phone) => match validation::number_digits(phone) {
            Some(digits) if !digits.is_empty() => Some(digits),
            _ => {
                fields.push(FieldError::new("phone", FieldCode::InvalidFormat));
                None
            }
        },
    };
    if input.plan_id.is_none() {
        fields.push(FieldError::new("planId", FieldCode::Required));
    }
    if fields.is_empty() {
        Ok((email, phone))
    } else {
        Err(Error::validation(fields))
    }
}

/// Creates a company (platform: the CLI, the super user's company form).
///
/// Fails with `ERR_VALIDATION` for a bad form and `ERR_NO_PLAN_FOUND` when the plan does not
/// exist. The due date defaults to the signup trial's (seven days after today, by the clock port).
#[tracing::instrument(level = "debug", name = "companies::create_company", skip_all)]
pub async fn create_company(ports: &Ports, input: NewCompanyInput) -> Result<Company> {
    let (email, phone) = validate(&input)?;
    let plan_id = input.plan_id.ok_or(ErrorCode::ERR_NO_PLAN_FOUND)?;
    ports
        .plans
        .get(plan_id)
        .await?
        .ok_or(ErrorCode::ERR_NO_PLAN_FOUND)?;
    let today = ports.clock.now().date_naive();
    ports
        .companies
        .create(&NewCompany {
            name: input.name.trim().to_owned(),
            email,
            phone,
            plan_id,
            status: input.status.unwrap_or(true),
            due_date: input
                .due_date
                .unwrap_or_else(|| tenancy::signup_due_date(today)),
            recurrence: input.recurrence.unwrap_or(Recurrence::Mensal),
            document: input
                .document
                .map(|d| d.trim().to_owned())
                .filter(|d| !d.is_empty()),
        })
        .await
}

/// Every company, by id (platform).
#[tracing::instrument(level = "debug", name = "companies::list_companies", skip_all)]
pub async fn list_companies(ports: &Ports) -> Result<Vec<Company>> {
    ports.companies.list_all().await
}

/// Renews one company: its due date moves forward by its recurrence.
///
/// Company 1 never expires, so renewing it changes nothing (the renewal reports the same date
/// twice). Fails with `ERR_NO_COMPANY_FOUND` for an unknown company.
#[tracing::instrument(level = "debug", name = "companies::renew", skip_all, fields(company = company_id.0))]
pub async fn renew(ports: &Ports, company_id: CompanyId) -> Result<Renewal> {
    let scope = TenantScope::new(company_id);
    let company = ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    if company.id == CompanyId::PLATFORM {
        return Ok(Renewal {
            company_id,
            old_due_date: company.due_date,
            new_due_date: company.due_date,
        });
    }
    let new_due_date = tenancy::renew(company.due_date, company.recurrence);
    ports.companies.set_due_date(scope, new_due_date).await?;
    Ok(Renewal {
        company_id,
        old_due_date: company.due_date,
        new_due_date,
    })
}

/// The companies whose due date has passed on `today`, by id; never company 1.
#[tracing::instrument(level = "debug", name = "companies::due_for_renewal", skip_all)]
pub async fn due_for_renewal(ports: &Ports, today: NaiveDate) -> Result<Vec<Company>> {
    Ok(ports
        .companies
        .list_all()
        .await?
        .into_iter()
        .filter(|c| tenancy::is_due_for_renewal(c.id, c.due_date, today))
        .collect())
}

/// Renews, once each, every company whose due date has passed on `today` (never company 1).
/// Returns the renewals made, by company id.
#[tracing::instrument(level = "debug", name = "companies::renew_all_due", skip_all)]
pub async fn renew_all_due(ports: &Ports, today: NaiveDate) -> Result<Vec<Renewal>> {
    let mut renewals = Vec::new();
    for company in due_for_renewal(ports, today).await? {
        renewals.push(renew(ports, company.id).await?);
    }
    Ok(renewals)
}

/// The plan of the scope's company: `ERR_NO_COMPANY_FOUND` or `ERR_NO_PLAN_FOUND` when either is
/// missing.
#[tracing::instrument(level = "debug", name = "companies::plan_of", skip_all, fields(company = scope.company_id().0))]
pub async fn plan_of(ports: &Ports, scope: TenantScope) -> Result<tenancy::Plan> {
    let company = ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    ports
        .plans
        .get(company.plan_id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_PLAN_FOUND.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str) -> NewCompanyInput {
        NewCompanyInput {
            name: name.into(),
            plan_id: Some(PlanId(1)),
            ..NewCompanyInput::default()
        }
    }

    fn field_codes(err: &Error) -> Vec<(&str, FieldCode)> {
        err.fields
            .iter()
            .map(|f| (f.field.as_str(), f.code))
            .collect()
    }

    #[test]
    fn a_valid_form_passes_and_is_normalised() {
        let form = NewCompanyInput {
            email: Some("  Billing@ACME.test ".into()),
            phone: Some("(11) 99999-0000".into()),
            ..input("Acme")
        };
        let (email, phone) = validate(&form).expect("valid");
        assert_eq!(email.as_deref(), Some("billing@acme.test"));
        assert_eq!(phone.as_deref(), Some("11999990000"));
    }

    #[test]
    fn names_need_two_to_fifty_characters() {
        let err = validate(&input(" ")).expect_err("empty");
        assert_eq!(field_codes(&err), [("name", FieldCode::Required)]);
        let err = validate(&input("A")).expect_err("short");
        assert_eq!(field_codes(&err), [("name", FieldCode::TooShort)]);
        let err = validate(&input(&"x".repeat(51))).expect_err("long");
        assert_eq!(field_codes(&err), [("name", FieldCode::TooLong)]);
        assert!(validate(&input(&"x".repeat(50))).is_ok());
    }

    #[test]
    fn bad_email_phone_and_missing_plan_are_reported_together() {
        let form = NewCompanyInput {
            email: Some("not-an-email".into()),
            phone: Some("call me".into()),
            plan_id: None,
            ..input("Acme")
        };
        let err = validate(&form).expect_err("invalid");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(
            field_codes(&err),
            [
                ("email", FieldCode::InvalidEmail),
                ("phone", FieldCode::InvalidFormat),
                ("planId", FieldCode::Required)
            ]
        );
    }

    #[test]
    fn empty_optional_fields_are_absent() {
        let form = NewCompanyInput {
            email: Some("  ".into()),
            phone: Some("".into()),
            ..input("Acme")
        };
        assert_eq!(validate(&form).expect("valid"), (None, None));
    }
}
