//! The platform use cases that live on the store: first-start seeding and company
//! administration, run with the real store and system adapters.

use std::sync::Arc;

use chatflow_core::identity::Profile;
use chatflow_core::ports::{Clock, CompanyRepo, PlanRepo, UserRepo};
use chatflow_core::service::Ports;
use chatflow_core::service::bootstrap::{self, SeedOptions};
use chatflow_core::service::companies::{self, NewCompanyInput};
use chatflow_core::tenancy::{PLATFORM_DUE_DATE, PlanFlags, Recurrence};
use chatflow_core::{CompanyId, ErrorCode, PlanId, TenantScope};
use chatflow_store::Store;
use chatflow_system::LogMailer;
use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use crate::store_tests;
use crate::support::{date, plan};

store_tests!(
    seeding_an_empty_database_creates_the_platform,
    seeding_twice_changes_nothing,
    seeding_uses_the_given_credentials,
    seeding_refuses_bad_credentials_and_recovers,
    seeding_keeps_an_existing_plan,
    create_company_validates_and_needs_a_plan,
    create_company_defaults_to_the_trial_due_date,
    renew_moves_the_due_date_by_the_recurrence,
    renew_all_due_renews_past_due_companies_but_never_company_1,
);

/// A clock stopped at one instant, so dates derived from "today" are known.
struct StoppedClock(DateTime<Utc>);

impl Clock for StoppedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

fn noon(day: NaiveDate) -> DateTime<Utc> {
    Utc.from_utc_datetime(&day.and_hms_opt(12, 0, 0).expect("a valid time"))
}

/// The use cases' ports over `store`, with a cheap argon2id and the clock stopped on `today`.
fn ports(store: &Store, today: NaiveDate) -> Ports {
    crate::support::ports_on(
        store,
        Arc::new(StoppedClock(noon(today))),
        Arc::new(LogMailer),
    )
}

fn platform() -> TenantScope {
    TenantScope::new(CompanyId::PLATFORM)
}

async fn seeding_an_empty_database_creates_the_platform(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    let report = bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    assert!(report.plan_created && report.company_created && report.admin_created);
    assert_eq!(report.admin_email, "admin@chatflow.local");
    let password = report
        .generated_password
        .clone()
        .expect("a generated password");
    assert_eq!(password.chars().count(), 16);
    assert!(password.chars().all(|c| c.is_ascii_alphanumeric()));

    let company = CompanyRepo::get(&store, platform())
        .await
        .expect("read")
        .expect("company 1");
    assert_eq!(company.id, CompanyId(1));
    assert_eq!(company.name, "Chatflow");
    assert_eq!(company.due_date, PLATFORM_DUE_DATE);
    assert_eq!(company.recurrence, Recurrence::Mensal);
    assert!(company.status);

    let plan = PlanRepo::get(&store, company.plan_id)
        .await
        .expect("read")
        .expect("the plan");
    assert_eq!(plan.flags, PlanFlags::ALL);
    assert!(plan.users >= 100);

    let login = store
        .find_for_login("admin@chatflow.local")
        .await
        .expect("read")
        .expect("the admin");
    assert!(login.user.is_super);
    assert_eq!(login.user.profile, Profile::Admin);
    assert_eq!(login.user.company_id, CompanyId(1));
    assert!(
        ports.hasher.verify(&password, &login.password_hash).await,
        "the printed password signs in"
    );
    assert!(
        !login.password_hash.contains(&password),
        "only a hash is stored"
    );
}

async fn seeding_twice_changes_nothing(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    let first = bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    let again = bootstrap::ensure_seeded(
        &ports,
        &SeedOptions {
            admin_email: Some("other@chatflow.local".into()),
            admin_password: Some("changed!".into()),
        },
    )
    .await
    .expect("seeded again");
    assert!(!again.plan_created && !again.company_created && !again.admin_created);
    assert_eq!(again.admin_email, first.admin_email);
    assert_eq!(again.generated_password, None);
    assert_eq!(
        CompanyRepo::list_all(&store).await.expect("listed").len(),
        1
    );
    assert_eq!(
        PlanRepo::list(&store, false).await.expect("listed").len(),
        1
    );
    assert_eq!(
        UserRepo::count(&store, platform()).await.expect("counted"),
        1
    );
    // The existing admin's password was not reset.
    let login = store
        .find_for_login(&first.admin_email)
        .await
        .expect("read")
        .expect("the admin");
    let password = first.generated_password.expect("generated the first time");
    assert!(ports.hasher.verify(&password, &login.password_hash).await);
}

async fn seeding_uses_the_given_credentials(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    let report = bootstrap::ensure_seeded(
        &ports,
        &SeedOptions {
            admin_email: Some(" Root@Example.COM ".into()),
            admin_password: Some("Sup3r-secret".into()),
        },
    )
    .await
    .expect("seeded");
    assert!(report.admin_created);
    assert_eq!(report.admin_email, "root@example.com");
    assert_eq!(
        report.generated_password, None,
        "a given password is never echoed"
    );
    let login = store
        .find_for_login("root@example.com")
        .await
        .expect("read")
        .expect("the admin");
    assert!(
        ports
            .hasher
            .verify("Sup3r-secret", &login.password_hash)
            .await
    );
}

async fn seeding_refuses_bad_credentials_and_recovers(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    let err = bootstrap::ensure_seeded(
        &ports,
        &SeedOptions {
            admin_email: Some("not an email".into()),
            admin_password: Some("abc".into()),
        },
    )
    .await
    .expect_err("invalid credentials");
    assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
    let fields: Vec<&str> = err.fields.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(fields, ["email", "password"]);
    assert_eq!(
        UserRepo::count(&store, platform()).await.expect("counted"),
        0
    );

    // Fixing the configuration and starting again completes the seeding.
    let report = bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    assert!(
        !report.company_created,
        "company 1 was created by the first attempt"
    );
    assert!(report.admin_created);
}

async fn seeding_keeps_an_existing_plan(store: Store) {
    let existing = plan(&store, "Imported").await;
    let ports = ports(&store, date(2026, 11, 10));
    let report = bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    assert!(!report.plan_created);
    let company = CompanyRepo::get(&store, platform())
        .await
        .expect("read")
        .expect("company 1");
    assert_eq!(company.plan_id, existing);
}

async fn create_company_validates_and_needs_a_plan(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    let basic = plan(&store, "Basic").await;

    let err = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "A".into(),
            plan_id: Some(basic),
            ..NewCompanyInput::default()
        },
    )
    .await
    .expect_err("name too short");
    assert_eq!(err.code, ErrorCode::ERR_VALIDATION);

    let err = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "Acme".into(),
            plan_id: Some(PlanId(999)),
            ..NewCompanyInput::default()
        },
    )
    .await
    .expect_err("no such plan");
    assert_eq!(err.code, ErrorCode::ERR_NO_PLAN_FOUND);
    assert!(
        companies::list_companies(&ports)
            .await
            .expect("listed")
            .is_empty()
    );

    let created = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "  Acme  ".into(),
            email: Some("Billing@Acme.TEST".into()),
            phone: Some("(11) 98888-7777".into()),
            plan_id: Some(basic),
            recurrence: Some(Recurrence::Anual),
            due_date: Some(date(2027, 3, 31)),
            status: Some(true),
            document: Some(" 123 ".into()),
        },
    )
    .await
    .expect("created");
    assert_eq!(created.name, "Acme");
    assert_eq!(created.email.as_deref(), Some("billing@acme.test"));
    assert_eq!(created.phone.as_deref(), Some("11988887777"));
    assert_eq!(created.recurrence, Recurrence::Anual);
    assert_eq!(created.due_date, date(2027, 3, 31));
    assert_eq!(created.document.as_deref(), Some("123"));
    assert_eq!(
        companies::list_companies(&ports).await.expect("listed"),
        vec![created]
    );
}

async fn create_company_defaults_to_the_trial_due_date(store: Store) {
    let ports = ports(&store, date(2026, 12, 28));
    let basic = plan(&store, "Basic").await;
    let created = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "Trial Co".into(),
            plan_id: Some(basic),
            ..NewCompanyInput::default()
        },
    )
    .await
    .expect("created");
    assert_eq!(
        created.due_date,
        date(2027, 1, 4),
        "seven days after the clock's today"
    );
    assert_eq!(created.recurrence, Recurrence::Mensal);
    assert!(created.status);
}

async fn renew_moves_the_due_date_by_the_recurrence(store: Store) {
    let ports = ports(&store, date(2026, 11, 10));
    bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    let basic = plan(&store, "Basic").await;
    let monthly = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "Monthly".into(),
            plan_id: Some(basic),
            due_date: Some(date(2027, 1, 31)),
            ..NewCompanyInput::default()
        },
    )
    .await
    .expect("created");
    let renewal = companies::renew(&ports, monthly.id).await.expect("renewed");
    assert_eq!(
        (renewal.old_due_date, renewal.new_due_date),
        (date(2027, 1, 31), date(2027, 2, 28))
    );
    let stored = CompanyRepo::get(&store, TenantScope::new(monthly.id))
        .await
        .expect("read")
        .expect("found");
    assert_eq!(stored.due_date, date(2027, 2, 28));

    let semestral = companies::create_company(
        &ports,
        NewCompanyInput {
            name: "Half-yearly".into(),
            plan_id: Some(basic),
            recurrence: Some(Recurrence::Semestral),
            due_date: Some(date(2026, 8, 31)),
            ..NewCompanyInput::default()
        },
    )
    .await
    .expect("created");
    let renewal = companies::renew(&ports, semestral.id)
        .await
        .expect("renewed");
    assert_eq!(renewal.new_due_date, date(2027, 2, 28));

    // Company 1 never expires: renewing it changes nothing.
    let platform_renewal = companies::renew(&ports, CompanyId::PLATFORM)
        .await
        .expect("no-op");
    assert_eq!(platform_renewal.old_due_date, PLATFORM_DUE_DATE);
    assert_eq!(platform_renewal.new_due_date, PLATFORM_DUE_DATE);

    let err = companies::renew(&ports, CompanyId(999))
        .await
        .expect_err("no such company");
    assert_eq!(err.code, ErrorCode::ERR_NO_COMPANY_FOUND);
}

async fn renew_all_due_renews_past_due_companies_but_never_company_1(store: Store) {
    let today = date(2026, 11, 10);
    let ports = ports(&store, today);
    bootstrap::ensure_seeded(&ports, &SeedOptions::default())
        .await
        .expect("seeded");
    // Even with a stored date in the past, company 1 is never renewed.
    store
        .set_due_date(platform(), date(2020, 1, 1))
        .await
        .expect("moved");
    let basic = plan(&store, "Basic").await;
    let mut ids = Vec::new();
    for (name, due, recurrence) in [
        ("Overdue monthly", date(2026, 10, 31), Recurrence::Mensal),
        ("Overdue yearly", date(2026, 11, 9), Recurrence::Anual),
        ("Due today", today, Recurrence::Mensal),
        ("Paid up", date(2026, 12, 1), Recurrence::Mensal),
    ] {
        let company = companies::create_company(
            &ports,
            NewCompanyInput {
                name: name.into(),
                plan_id: Some(basic),
                recurrence: Some(recurrence),
                due_date: Some(due),
                ..NewCompanyInput::default()
            },
        )
        .await
        .expect("created");
        ids.push(company.id);
    }

    let renewals = companies::renew_all_due(&ports, today)
        .await
        .expect("renewed");
    let summary: Vec<(CompanyId, NaiveDate, NaiveDate)> = renewals
        .iter()
        .map(|r| (r.company_id, r.old_due_date, r.new_due_date))
        .collect();
    assert_eq!(
        summary,
        [
            (ids[0], date(2026, 10, 31), date(2026, 11, 30)),
            (ids[1], date(2026, 11, 9), date(2027, 11, 9)),
        ]
    );
    let platform_company = CompanyRepo::get(&store, platform())
        .await
        .expect("read")
        .expect("company 1");
    assert_eq!(
        platform_company.due_date,
        date(2020, 1, 1),
        "company 1 untouched"
    );
    assert!(
        companies::renew_all_due(&ports, today)
            .await
            .expect("renewed")
            .is_empty(),
        "nothing left due"
    );
}
