//! PlanRepo.

use chatflow_core::PlanId;
use chatflow_core::ports::{NewPlan, PlanRepo};
use chatflow_core::tenancy::{Money, PlanFlags};
use chatflow_store::Store;

use crate::store_tests;

store_tests!(create_get_and_list_plans, get_unknown_plan_is_none);

async fn create_get_and_list_plans(store: Store) {
    let public = NewPlan {
        name: "Starter".into(),
        users: 3,
        connections: 3,
        queues: 2,
        amount: Money(4900),
        is_public: true,
        flags: PlanFlags {
            use_whatsapp: true,
            use_kanban: true,
            ..PlanFlags::default()
        },
    };
    let hidden = NewPlan {
        name: "Enterprise".into(),
        users: 500,
        connections: 50,
        queues: 100,
        amount: Money(999_999),
        is_public: false,
        flags: PlanFlags::ALL,
    };
    let starter = store.create(&public).await.expect("created");
    let enterprise = store.create(&hidden).await.expect("created");

    assert_eq!(starter.name, "Starter");
    assert_eq!(
        (starter.users, starter.connections, starter.queues),
        (3, 3, 2)
    );
    assert_eq!(starter.amount, Money(4900));
    assert!(starter.is_public);
    assert_eq!(starter.flags, public.flags);
    assert_eq!(enterprise.flags, PlanFlags::ALL);
    assert!(!enterprise.is_public);

    assert_eq!(
        store.get(starter.id).await.expect("read"),
        Some(starter.clone())
    );
    assert_eq!(
        store.get(enterprise.id).await.expect("read"),
        Some(enterprise.clone())
    );

    let all = store.list(false).await.expect("listed");
    assert_eq!(all, vec![starter.clone(), enterprise]);
    let public_only = store.list(true).await.expect("listed");
    assert_eq!(public_only, vec![starter]);
}

async fn get_unknown_plan_is_none(store: Store) {
    assert_eq!(store.get(PlanId(12345)).await.expect("read"), None);
    assert!(store.list(false).await.expect("listed").is_empty());
}
