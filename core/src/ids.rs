//! Typed identifiers, and the tenant scope that every tenant repository call takes.

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<i64> for $name {
            fn from(value: i64) -> Self {
                Self(value)
            }
        }
    };
}

id_type!(
    /// A company (tenant).
    CompanyId
);
id_type!(
    /// A user of a company.
    UserId
);
id_type!(
    /// A plan companies subscribe to.
    PlanId
);
id_type!(
    /// A queue (department) of a company.
    QueueId
);
id_type!(
    /// A connection (channel account) of a company; called "whatsapp" on the wire.
    WhatsappId
);

id_type!(
    /// A contact (person or group) of a company.
    ContactId
);
id_type!(
    /// A ticket (conversation) of a company.
    TicketId
);
id_type!(
    /// A stored message.
    MessageId
);
id_type!(
    /// A tag of a company.
    TagId
);
id_type!(
    /// A quick message (quick reply) of a company.
    QuickMessageId
);
id_type!(
    /// A scheduled (possibly recurring) message of a company.
    ScheduleId
);

impl CompanyId {
    /// The platform's own company: it never expires.
    pub const PLATFORM: CompanyId = CompanyId(1);
}

/// The company a repository call is confined to.
///
/// Every tenant repository method takes one, so a query without a tenant does not compile.
/// Services build it from the acting user ([`crate::identity::Actor::scope`]); platform-level code
/// (the super user, the CLI) builds it explicitly for the company it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TenantScope(CompanyId);

impl TenantScope {
    /// Scope calls to `company`.
    pub const fn new(company: CompanyId) -> Self {
        Self(company)
    }

    /// The company this scope confines calls to.
    pub const fn company_id(self) -> CompanyId {
        self.0
    }
}
