//! Tenancy: companies, plans and their use-flags, subscription state and renewal math.

use chrono::NaiveDate;
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
        if !reais.is_finite() || reais < 0.0 || reais > 1.0e12 {
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
    pub use_whatsapp: bool,
    pub use_facebook: bool,
    pub use_instagram: bool,
    pub use_campaigns: bool,
    pub use_schedules: bool,
    pub use_internal_chat: bool,
    pub use_external_api: bool,
    pub use_kanban: bool,
    #[serde(rename = "useOpenAi")]
    pub use_open_ai: bool,
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
    pub id: PlanId,
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
    #[serde(flatten)]
    pub flags: PlanFlags,
}

/// A company (tenant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Company {
    pub id: CompanyId,
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub plan_id: PlanId,
    /// Active flag (false blocks the company).
    pub status: bool,
    /// The subscription's due date (company 1: 2999-12-31).
    pub due_date: NaiveDate,
    pub recurrence: Recurrence,
    pub document: Option<String>,
    pub payment_method: Option<String>,
    pub address_street: Option<String>,
    pub address_state: Option<String>,
    pub address_city: Option<String>,
    pub created_at: chrono::DateTime<chrono::Utc>,
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
    pub status: SubscriptionStatus,
    pub due_date: NaiveDate,
    /// Whole days from today to the due date (negative once past).
    pub days_left: i64,
}
