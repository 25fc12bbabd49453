//! CompanyRepo.

use chatflow_core::ports::{CompanyRepo, NewCompany};
use chatflow_core::tenancy::Recurrence;
use chatflow_core::{CompanyId, ErrorCode, PlanId, TenantScope};
use chatflow_store::Store;
use chrono::{TimeZone, Utc};

use crate::store_tests;
use crate::support::{company, date, plan, two_companies};

store_tests!(
    create_then_get_and_list,
    create_with_unknown_plan_fails,
    set_due_date_moves_only_that_company,
    set_due_date_of_unknown_company_fails,
    touch_last_login_records_only_that_company,
    get_unknown_company_is_none,
);

async fn create_then_get_and_list(store: Store) {
    let plan = plan(&store, "Pro").await;
    let new = NewCompany {
        name: "Acme".into(),
        email: Some("billing@acme.test".into()),
        phone: Some("5511999990000".into()),
        plan_id: plan,
        status: true,
        due_date: date(2031, 2, 28),
        recurrence: Recurrence::Trimestral,
        document: Some("12.345.678/0001-90".into()),
    };
    let created = CompanyRepo::create(&store, &new).await.expect("created");
    assert_eq!(created.name, "Acme");
    assert_eq!(created.email.as_deref(), Some("billing@acme.test"));
    assert_eq!(created.phone.as_deref(), Some("5511999990000"));
    assert_eq!(created.plan_id, plan);
    assert!(created.status);
    assert_eq!(created.due_date, date(2031, 2, 28));
    assert_eq!(created.recurrence, Recurrence::Trimestral);
    assert_eq!(created.document.as_deref(), Some("12.345.678/0001-90"));
    assert_eq!(created.last_login, None);

    let fetched = CompanyRepo::get(&store, TenantScope::new(created.id))
        .await
        .expect("read")
        .expect("found");
    assert_eq!(fetched, created);

    let other = company(&store, plan, "Other").await;
    let all = store.list_all().await.expect("listed");
    let ids: Vec<CompanyId> = all.iter().map(|c| c.id).collect();
    assert_eq!(ids, vec![created.id, other.company_id()], "ordered by id");
    assert_eq!(all[0], created);
}

async fn create_with_unknown_plan_fails(store: Store) {
    let err = CompanyRepo::create(
        &store,
        &NewCompany {
            name: "Nowhere".into(),
            email: None,
            phone: None,
            plan_id: PlanId(999),
            status: true,
            due_date: date(2030, 1, 1),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect_err("the plan does not exist");
    assert_eq!(err.code, ErrorCode::ERR_NO_PLAN_FOUND);
    assert!(store.list_all().await.expect("listed").is_empty());
}

async fn set_due_date_moves_only_that_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    store
        .set_due_date(a, date(2032, 12, 31))
        .await
        .expect("moved");
    let a_row = CompanyRepo::get(&store, a)
        .await
        .expect("read")
        .expect("found");
    let b_row = CompanyRepo::get(&store, b)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(a_row.due_date, date(2032, 12, 31));
    assert_eq!(b_row.due_date, date(2030, 1, 31), "company B is untouched");
}

async fn set_due_date_of_unknown_company_fails(store: Store) {
    let err = store
        .set_due_date(TenantScope::new(CompanyId(4242)), date(2030, 1, 1))
        .await
        .expect_err("no such company");
    assert_eq!(err.code, ErrorCode::ERR_NO_COMPANY_FOUND);
}

async fn touch_last_login_records_only_that_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let at = Utc
        .with_ymd_and_hms(2026, 11, 3, 14, 30, 5)
        .single()
        .expect("a valid instant");
    store.touch_last_login(b, at).await.expect("recorded");
    let a_row = CompanyRepo::get(&store, a)
        .await
        .expect("read")
        .expect("found");
    let b_row = CompanyRepo::get(&store, b)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(b_row.last_login, Some(at));
    assert_eq!(a_row.last_login, None, "company A is untouched");
}

async fn get_unknown_company_is_none(store: Store) {
    let found = CompanyRepo::get(&store, TenantScope::new(CompanyId(77)))
        .await
        .expect("read");
    assert_eq!(found, None);
}
