//! First-start seeding: the platform's company, a default plan and the super admin.
//!
//! [`ensure_seeded`] is idempotent; hosts call it on every start. It creates only what is
//! missing:
//! - a default plan with every feature on and generous limits, when no plan exists yet;
//! - company 1, "Chatflow", which never expires (due date 2999-12-31, recurrence MENSAL);
//! - a super admin (profile admin, super flag) in company 1, when company 1 has none. Its e-mail
//!   and password come from [`SeedOptions`] or are generated: `admin@chatflow.local` and a random
//!   16-character password from the [`crate::ports::IdGenerator`] port. The [`SeedReport`] carries
//!   a generated password once so the host can print it; it is stored nowhere but as a hash.
//!
//! Platform settings need no seeding: the catalogue ([`crate::settings`]) supplies the default
//! of every key that was never set. An existing super admin is never changed (a password given
//! in the options does not reset it; the CLI's `user set-password` does).

use crate::error::{Error, ErrorCode, Result};
use crate::identity::{AllTicket, MenuMode, Profile, Theme, Toggle};
use crate::ids::{CompanyId, PlanId, TenantScope};
use crate::ports::{NewCompany, NewPlan, NewUser, UserSettings};
use crate::service::Ports;
use crate::tenancy::{Money, PLATFORM_DUE_DATE, PlanFlags, Recurrence};
use crate::validation::{self, FormMode, UserInput};

/// The name of the platform's own company.
pub const PLATFORM_COMPANY_NAME: &str = "Chatflow";
/// The name of the plan seeded when no plan exists.
pub const DEFAULT_PLAN_NAME: &str = "Chatflow";
/// Users, connections and queues the seeded plan allows: generous, not unlimited.
pub const DEFAULT_PLAN_LIMIT: i64 = 1000;
/// The e-mail of the seeded super admin when none is given.
pub const DEFAULT_ADMIN_EMAIL: &str = "admin@chatflow.local";
/// The name of the seeded super admin.
pub const DEFAULT_ADMIN_NAME: &str = "Admin";
/// Characters of a generated super admin password.
pub const GENERATED_PASSWORD_CHARS: usize = 16;

/// What the host passes to seeding (from its environment or configuration).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedOptions {
    /// The super admin's e-mail; [`DEFAULT_ADMIN_EMAIL`] when absent.
    pub admin_email: Option<String>,
    /// The super admin's password; generated when absent.
    pub admin_password: Option<String>,
}

/// What [`ensure_seeded`] found and did.
#[derive(Clone, PartialEq, Eq)]
pub struct SeedReport {
    /// The default plan was created on this call.
    pub plan_created: bool,
    /// Company 1 was created on this call.
    pub company_created: bool,
    /// The super admin was created on this call.
    pub admin_created: bool,
    /// The e-mail of the platform's super admin (created now or found).
    pub admin_email: String,
    /// The password generated for a super admin created on this call, for the host to show once.
    /// `None` when the admin already existed or its password came from the options.
    pub generated_password: Option<String>,
}

impl std::fmt::Debug for SeedReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeedReport")
            .field("plan_created", &self.plan_created)
            .field("company_created", &self.company_created)
            .field("admin_created", &self.admin_created)
            .field("admin_email", &self.admin_email)
            .field(
                "generated_password",
                &self.generated_password.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// The default plan: every feature on, generous limits, free, offered on the signup page.
pub fn default_plan() -> NewPlan {
    NewPlan {
        name: DEFAULT_PLAN_NAME.to_owned(),
        users: DEFAULT_PLAN_LIMIT,
        connections: DEFAULT_PLAN_LIMIT,
        queues: DEFAULT_PLAN_LIMIT,
        amount: Money(0),
        is_public: true,
        flags: PlanFlags::ALL,
    }
}

/// Seeds what a first start needs and leaves everything that exists alone. See the module
/// documentation for what is created.
///
/// Fails with `ERR_VALIDATION` when a given e-mail or password breaks the user form's rules,
/// with `ERR_DUPLICATED_EMAIL` when the e-mail belongs to a user that is not the super admin,
/// and with `ERR_INTERNAL` when the database already holds companies but no company 1 (the new
/// company would not get id 1).
#[tracing::instrument(level = "debug", name = "bootstrap::ensure_seeded", skip_all)]
pub async fn ensure_seeded(ports: &Ports, opts: &SeedOptions) -> Result<SeedReport> {
    let platform = TenantScope::new(CompanyId::PLATFORM);

    let mut plan_created = false;
    let mut company_created = false;
    if ports.companies.get(platform).await?.is_none() {
        let plan_id = match ports.plans.list(false).await?.first() {
            Some(plan) => plan.id,
            None => {
                plan_created = true;
                ports.plans.create(&default_plan()).await?.id
            }
        };
        create_platform_company(ports, plan_id).await?;
        company_created = true;
    }

    let existing = ports
        .users
        .list_all(platform)
        .await?
        .into_iter()
        .find(|u| u.is_super);
    if let Some(admin) = existing {
        return Ok(SeedReport {
            plan_created,
            company_created,
            admin_created: false,
            admin_email: admin.email,
            generated_password: None,
        });
    }

    let email =
        validation::normalize_email(opts.admin_email.as_deref().unwrap_or(DEFAULT_ADMIN_EMAIL));
    let (password, generated) = match &opts.admin_password {
        Some(password) => (password.clone(), false),
        None => (ports.ids.token(GENERATED_PASSWORD_CHARS), true),
    };
    validation::validate_user(
        &UserInput {
            name: DEFAULT_ADMIN_NAME,
            email: &email,
            password: Some(&password),
            start_work: None,
            end_work: None,
        },
        FormMode::Create,
    )?;
    let password_hash = ports.hasher.hash(&password).await?;
    let admin = NewUser {
        name: DEFAULT_ADMIN_NAME.to_owned(),
        email: email.clone(),
        password_hash,
        profile: Profile::Admin,
        is_super: true,
        settings: admin_settings(),
    };
    ports.users.create(platform, &admin).await.map_err(|e| {
        if e.code == ErrorCode::ERR_DUPLICATED_EMAIL {
            Error::with_detail(
                ErrorCode::ERR_DUPLICATED_EMAIL,
                format!("{email} already belongs to a user who is not the super admin"),
            )
        } else {
            e
        }
    })?;
    Ok(SeedReport {
        plan_created,
        company_created,
        admin_created: true,
        admin_email: email,
        generated_password: generated.then_some(password),
    })
}

/// Creates company 1 on `plan_id`, checking that it really got id 1.
async fn create_platform_company(ports: &Ports, plan_id: PlanId) -> Result<()> {
    let company = ports
        .companies
        .create(&NewCompany {
            name: PLATFORM_COMPANY_NAME.to_owned(),
            email: None,
            phone: None,
            plan_id,
            status: true,
            due_date: PLATFORM_DUE_DATE,
            recurrence: Recurrence::Mensal,
            document: None,
        })
        .await?;
    if company.id != CompanyId::PLATFORM {
        return Err(Error::internal(format!(
            "the platform company was created with id {} instead of 1: the database holds \
             companies but not company 1",
            company.id
        )));
    }
    Ok(())
}

/// The super admin sees and may do everything: every per-user flag on.
fn admin_settings() -> UserSettings {
    UserSettings {
        all_ticket: AllTicket::Enable,
        allow_group: true,
        all_historic: Toggle::Enabled,
        all_user_chat: Toggle::Enabled,
        user_close_pending_ticket: Toggle::Enabled,
        show_dashboard: Toggle::Enabled,
        allow_real_time: Toggle::Enabled,
        allow_connections: Toggle::Enabled,
        start_work: validation::DEFAULT_START_WORK.to_owned(),
        end_work: validation::DEFAULT_END_WORK.to_owned(),
        farewell_message: None,
        default_theme: Theme::default(),
        default_menu: MenuMode::default(),
        whatsapp_id: None,
        queue_ids: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_plan_switches_every_feature_on() {
        let plan = default_plan();
        assert_eq!(plan.flags, PlanFlags::ALL);
        assert!(plan.users >= 100 && plan.connections >= 100 && plan.queues >= 100);
    }

    #[test]
    fn the_default_admin_email_passes_the_user_rules() {
        assert!(validation::is_valid_email(DEFAULT_ADMIN_EMAIL));
    }

    #[test]
    fn reports_never_print_the_password() {
        let report = SeedReport {
            plan_created: true,
            company_created: true,
            admin_created: true,
            admin_email: DEFAULT_ADMIN_EMAIL.to_owned(),
            generated_password: Some("s3cretPassw0rd12".to_owned()),
        };
        let printed = format!("{report:?}");
        assert!(!printed.contains("s3cretPassw0rd12"), "{printed}");
        assert!(printed.contains("<redacted>"));
    }
}
