//! Tenancy: companies, plans and their use-flags, subscription state and renewal math.
//!
//! Everything here is arithmetic on dates and amounts the caller supplies: "today" comes from the
//! clock port, never from the system. Company 1 is the platform's own company and never expires.

use chrono::{Days, Months, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::ids::{CompanyId, PlanId};

/// A billing recurrence; renewal moves the due date by its number of months.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum Recurrence {
    /// Monthly: 1 month.
    Mensal,
    /// Every two months.
    Bimestral,
    /// Every three months.
    Trimestral,
    /// Every six months.
    Semestral,
    /// Yearly: 12 months.
    Anual,
}

impl Recurrence {
    /// Every recurrence, shortest first.
    pub const ALL: [Recurrence; 5] = [
        Recurrence::Mensal,
        Recurrence::Bimestral,
        Recurrence::Trimestral,
        Recurrence::Semestral,
        Recurrence::Anual,
    ];

    /// The number of months one renewal adds: 1, 2, 3, 6 or 12.
    pub const fn months(self) -> u32 {
        match self {
            Recurrence::Mensal => 1,
            Recurrence::Bimestral => 2,
            Recurrence::Trimestral => 3,
            Recurrence::Semestral => 6,
            Recurrence::Anual => 12,
        }
    }
}

/// An amount of money in centavos (Brazilian reais), shown with two decimals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Money(pub i64);

impl Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Reais as a JSON number with at most two decimals: 4990 -> 49.9
        #[allow(clippy::cast_precision_loss)]
        s.serialize_f64(self.0 as f64 / 100.0)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let reais = f64::deserialize(d)?;
        if !reais.is_finite() || !(0.0..=1.0e12).contains(&reais) {
            return Err(serde::de::Error::custom("amount out of range"));
        }
        #[allow(clippy::cast_possible_truncation)]
        Ok(Money((reais * 100.0).round() as i64))
    }
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Money {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Number)
            .description(Some("Amount in reais, two decimals"))
            .into()
    }
}
#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Money {}

/// The features a plan switches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PlanFlags {
    /// WhatsApp connections may be added.
    pub use_whatsapp: bool,
    /// Facebook connections may be added.
    pub use_facebook: bool,
    /// Instagram connections may be added.
    pub use_instagram: bool,
    /// Campaigns are available.
    pub use_campaigns: bool,
    /// Scheduled messages are available.
    pub use_schedules: bool,
    /// The internal team chat is available.
    pub use_internal_chat: bool,
    /// The message-sending REST API is available.
    pub use_external_api: bool,
    /// The kanban board is available.
    pub use_kanban: bool,
    /// AI prompts are available.
    #[serde(rename = "useOpenAi")]
    pub use_open_ai: bool,
    /// Queue integrations (typebot, n8n, webhooks, flows) are available.
    pub use_integrations: bool,
}

impl PlanFlags {
    /// Every feature on (the default plan seeded on first start).
    pub const ALL: PlanFlags = PlanFlags {
        use_whatsapp: true,
        use_facebook: true,
        use_instagram: true,
        use_campaigns: true,
        use_schedules: true,
        use_internal_chat: true,
        use_external_api: true,
        use_kanban: true,
        use_open_ai: true,
        use_integrations: true,
    };
}

/// A plan: limits and feature flags.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The plan's id.
    pub id: PlanId,
    /// The plan's name, shown on the signup page and in invoices.
    pub name: String,
    /// Maximum users (attendants and admins) of a company on this plan.
    pub users: i64,
    /// Maximum connections.
    pub connections: i64,
    /// Maximum queues.
    pub queues: i64,
    /// Monthly price.
    pub amount: Money,
    /// Offered on the signup page.
    pub is_public: bool,
    /// The features the plan switches on.
    #[serde(flatten)]
    pub flags: PlanFlags,
}

/// A company (tenant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Company {
    /// The company's id (1 is the platform's own company).
    pub id: CompanyId,
    /// The company's name.
    pub name: String,
    /// The billing e-mail.
    pub email: Option<String>,
    /// The contact phone, digits only.
    pub phone: Option<String>,
    /// The plan the company subscribes to.
    pub plan_id: PlanId,
    /// Active flag (false blocks the company).
    pub status: bool,
    /// The subscription's due date (company 1: 2999-12-31).
    pub due_date: NaiveDate,
    /// How far each renewal moves the due date.
    pub recurrence: Recurrence,
    /// The company's CPF or CNPJ.
    pub document: Option<String>,
    /// The payment method last used.
    pub payment_method: Option<String>,
    /// Street address.
    pub address_street: Option<String>,
    /// State of the address.
    pub address_state: Option<String>,
    /// City of the address.
    pub address_city: Option<String>,
    /// When the company was created.
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// The last sign-in of any of its users.
    pub last_login: Option<chrono::DateTime<chrono::Utc>>,
}

/// Where a company's subscription stands on a given day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum SubscriptionStatus {
    /// Paid up, 5 or more days left.
    Active,
    /// Fewer than 5 days left: the web app shows a warning toast.
    Warning,
    /// Past the due date: authenticated but sent to /financeiro-aberto.
    Expired,
}

/// A company's subscription as the web app shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// Active, warning or expired.
    pub status: SubscriptionStatus,
    /// The due date (2999-12-31 for company 1).
    pub due_date: NaiveDate,
    /// Whole days from today to the due date (negative once past).
    pub days_left: i64,
}

/// The due date company 1 (the platform's own) always reports: it never expires.
pub const PLATFORM_DUE_DATE: NaiveDate = match NaiveDate::from_ymd_opt(2999, 12, 31) {
    Some(date) => date,
    None => panic!("2999-12-31 is a valid date"),
};

/// A subscription with fewer than this many days left is in [`SubscriptionStatus::Warning`].
pub const WARNING_DAYS: i64 = 5;

/// Days of trial a company created through signup gets before its first due date.
pub const SIGNUP_TRIAL_DAYS: u64 = 7;

/// The due date after one renewal: `due` moved forward by the recurrence's months.
///
/// End-of-month safe: a day the target month lacks becomes that month's last day (January 31
/// plus one month is February 28, or 29 in a leap year). Renewal works from the current due date
/// only, so a date clamped once stays on its new day (January 31 renewed monthly twice gives
/// February 28, then March 28). A date beyond the calendar's range stays at its end.
pub fn renew(due: NaiveDate, recurrence: Recurrence) -> NaiveDate {
    due.checked_add_months(Months::new(recurrence.months()))
        .unwrap_or(NaiveDate::MAX)
}

/// True when a company's due date has passed and a renewal is owed (`company renew --all-due`).
/// The platform's company never is.
pub fn is_due_for_renewal(company_id: CompanyId, due_date: NaiveDate, today: NaiveDate) -> bool {
    company_id != CompanyId::PLATFORM && due_date < today
}

/// True when a company is blocked (`status` false): its users cannot sign in, refresh or use a
/// token they already hold. The platform's company never is.
pub fn is_blocked(company_id: CompanyId, status: bool) -> bool {
    !status && company_id != CompanyId::PLATFORM
}

/// Where a company's subscription stands on `today`.
///
/// Company 1 is always active with due date [`PLATFORM_DUE_DATE`], whatever is stored. Others are
/// expired once `due_date` is before `today`, in warning while fewer than [`WARNING_DAYS`] days
/// remain (the due day itself included, with 0 days left), and active otherwise.
pub fn subscription(company_id: CompanyId, due_date: NaiveDate, today: NaiveDate) -> Subscription {
    let due_date = if company_id == CompanyId::PLATFORM {
        PLATFORM_DUE_DATE
    } else {
        due_date
    };
    let days_left = due_date.signed_duration_since(today).num_days();
    let status = if company_id == CompanyId::PLATFORM {
        SubscriptionStatus::Active
    } else if days_left < 0 {
        SubscriptionStatus::Expired
    } else if days_left < WARNING_DAYS {
        SubscriptionStatus::Warning
    } else {
        SubscriptionStatus::Active
    };
    Subscription {
        status,
        due_date,
        days_left,
    }
}

/// The first due date of a company created through signup: seven days after `today`.
pub fn signup_due_date(today: NaiveDate) -> NaiveDate {
    today
        .checked_add_days(Days::new(SIGNUP_TRIAL_DAYS))
        .unwrap_or(NaiveDate::MAX)
}

/// What signup sets on a new company besides what the visitor typed (spec 2 §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignupDefaults {
    /// Billing recurrence: monthly.
    pub recurrence: Recurrence,
    /// The company starts active.
    pub status: bool,
    /// The company setting `campaignsEnabled` starts enabled.
    pub campaigns_enabled: bool,
    /// Seven days after the signup day.
    pub due_date: NaiveDate,
}

/// The defaults of a company created through signup on `today`.
pub fn signup_defaults(today: NaiveDate) -> SignupDefaults {
    SignupDefaults {
        recurrence: Recurrence::Mensal,
        status: true,
        campaigns_enabled: true,
        due_date: signup_due_date(today),
    }
}

/// How the companies table colours a due date (spec 2 §2, §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum DueDateAlert {
    /// More than 5 days left: no colour.
    None,
    /// 1 to 5 days left.
    Yellow,
    /// Due today or past.
    Red,
}

/// The colour of `due` in the companies table on `today`: red when due today or past, yellow
/// with 1 to 5 days left, none otherwise.
pub fn due_date_alert(due: NaiveDate, today: NaiveDate) -> DueDateAlert {
    match due.signed_duration_since(today).num_days() {
        ..=0 => DueDateAlert::Red,
        1..=5 => DueDateAlert::Yellow,
        _ => DueDateAlert::None,
    }
}

/// The fewest users and connections a custom plan may have.
pub const CUSTOM_PLAN_MINIMUM: u32 = 3;
/// The monthly price of the smallest custom plan (3 users, 3 connections): R$ 49,00.
pub const CUSTOM_PLAN_BASE: Money = Money(49_00);
/// What each user beyond the minimum adds: R$ 11,00.
pub const CUSTOM_PLAN_PER_USER: Money = Money(11_00);
/// What each connection beyond the minimum adds: R$ 20,00.
pub const CUSTOM_PLAN_PER_CONNECTION: Money = Money(20_00);

/// The monthly price of a custom plan (spec 2 §9). Counts below the minimum of 3 are raised to 3.
pub fn custom_plan_price(users: u32, connections: u32) -> Money {
    let extra_users = i64::from(users.max(CUSTOM_PLAN_MINIMUM) - CUSTOM_PLAN_MINIMUM);
    let extra_connections = i64::from(connections.max(CUSTOM_PLAN_MINIMUM) - CUSTOM_PLAN_MINIMUM);
    Money(
        CUSTOM_PLAN_BASE.0
            + extra_users * CUSTOM_PLAN_PER_USER.0
            + extra_connections * CUSTOM_PLAN_PER_CONNECTION.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("valid test date")
    }

    #[test]
    fn recurrence_months_and_wire_names() {
        let months: Vec<u32> = Recurrence::ALL.iter().map(|r| r.months()).collect();
        assert_eq!(months, [1, 2, 3, 6, 12]);
        let names: Vec<String> = Recurrence::ALL
            .iter()
            .map(|r| serde_json::to_string(r).expect("serialises"))
            .collect();
        assert_eq!(
            names,
            [
                "\"MENSAL\"",
                "\"BIMESTRAL\"",
                "\"TRIMESTRAL\"",
                "\"SEMESTRAL\"",
                "\"ANUAL\""
            ]
        );
    }

    #[test]
    fn renewal_moves_by_months_and_is_end_of_month_safe() {
        assert_eq!(
            renew(date(2026, 1, 15), Recurrence::Mensal),
            date(2026, 2, 15)
        );
        assert_eq!(
            renew(date(2026, 1, 31), Recurrence::Mensal),
            date(2026, 2, 28)
        );
        assert_eq!(
            renew(date(2028, 1, 31), Recurrence::Mensal),
            date(2028, 2, 29)
        );
        assert_eq!(
            renew(date(2026, 12, 31), Recurrence::Bimestral),
            date(2027, 2, 28)
        );
        assert_eq!(
            renew(date(2026, 11, 30), Recurrence::Trimestral),
            date(2027, 2, 28)
        );
        assert_eq!(
            renew(date(2026, 8, 31), Recurrence::Semestral),
            date(2027, 2, 28)
        );
        assert_eq!(
            renew(date(2028, 2, 29), Recurrence::Anual),
            date(2029, 2, 28)
        );
        assert_eq!(
            renew(date(2026, 3, 31), Recurrence::Mensal),
            date(2026, 4, 30)
        );
        assert_eq!(renew(NaiveDate::MAX, Recurrence::Anual), NaiveDate::MAX);
    }

    #[test]
    fn platform_company_never_expires() {
        let today = date(2026, 11, 5);
        let sub = subscription(CompanyId::PLATFORM, date(2000, 1, 1), today);
        assert_eq!(sub.status, SubscriptionStatus::Active);
        assert_eq!(sub.due_date, PLATFORM_DUE_DATE);
        assert_eq!(sub.due_date, date(2999, 12, 31));
        assert_eq!(sub.days_left, (PLATFORM_DUE_DATE - today).num_days());
        assert!(!is_due_for_renewal(
            CompanyId::PLATFORM,
            date(2000, 1, 1),
            today
        ));
    }

    #[test]
    fn subscription_states() {
        let today = date(2026, 11, 5);
        let company = CompanyId(7);
        let at = |d| subscription(company, d, today);
        assert_eq!(at(date(2026, 11, 4)).status, SubscriptionStatus::Expired);
        assert_eq!(at(date(2026, 11, 4)).days_left, -1);
        assert_eq!(at(date(2026, 11, 5)).status, SubscriptionStatus::Warning);
        assert_eq!(at(date(2026, 11, 5)).days_left, 0);
        assert_eq!(at(date(2026, 11, 9)).status, SubscriptionStatus::Warning);
        assert_eq!(at(date(2026, 11, 9)).days_left, 4);
        assert_eq!(at(date(2026, 11, 10)).status, SubscriptionStatus::Active);
        assert_eq!(at(date(2026, 11, 10)).due_date, date(2026, 11, 10));
        assert!(is_due_for_renewal(company, date(2026, 11, 4), today));
        assert!(!is_due_for_renewal(company, today, today));
    }

    #[test]
    fn signup() {
        let today = date(2026, 12, 28);
        assert_eq!(signup_due_date(today), date(2027, 1, 4));
        let defaults = signup_defaults(today);
        assert_eq!(defaults.recurrence, Recurrence::Mensal);
        assert!(defaults.status);
        assert!(defaults.campaigns_enabled);
        assert_eq!(defaults.due_date, date(2027, 1, 4));
    }

    #[test]
    fn due_date_colours() {
        let today = date(2026, 11, 5);
        assert_eq!(due_date_alert(date(2026, 10, 1), today), DueDateAlert::Red);
        assert_eq!(due_date_alert(today, today), DueDateAlert::Red);
        assert_eq!(
            due_date_alert(date(2026, 11, 6), today),
            DueDateAlert::Yellow
        );
        assert_eq!(
            due_date_alert(date(2026, 11, 10), today),
            DueDateAlert::Yellow
        );
        assert_eq!(
            due_date_alert(date(2026, 11, 11), today),
            DueDateAlert::None
        );
    }

    #[test]
    fn custom_plan_prices() {
        assert_eq!(custom_plan_price(3, 3), Money(49_00));
        assert_eq!(
            custom_plan_price(0, 1),
            Money(49_00),
            "raised to the minimum"
        );
        assert_eq!(custom_plan_price(4, 3), Money(60_00));
        assert_eq!(custom_plan_price(3, 4), Money(69_00));
        assert_eq!(
            custom_plan_price(10, 5),
            Money(49_00 + 7 * 11_00 + 2 * 20_00)
        );
        assert_eq!(
            serde_json::to_string(&custom_plan_price(4, 3)).expect("serialises"),
            "60.0"
        );
    }
}
