//! SettingsRepo.

use chatflow_core::inbox::ports::EventLog;
use chatflow_core::ports::SettingsRepo;
use chatflow_core::service::settings::{Setting, settings_event};
use chatflow_core::{CompanyId, ErrorCode, TenantScope};
use chatflow_store::Store;
use serde_json::json;

use crate::store_tests;
use crate::support::two_companies;

store_tests!(
    company_settings_upsert_and_list,
    platform_settings_upsert_and_list,
    company_settings_stay_in_their_company,
    setting_for_unknown_company_fails,
    settings_events_are_appended_with_the_value,
);

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

async fn company_settings_upsert_and_list(store: Store) {
    let (a, _b) = two_companies(&store).await;
    assert!(store.company_settings(a).await.expect("read").is_empty());
    store
        .set_company_setting(a, "userRating", "enabled", &[])
        .await
        .expect("set");
    store
        .set_company_setting(a, "scheduleType", "queue", &[])
        .await
        .expect("set");
    store
        .set_company_setting(a, "userRating", "disabled", &[])
        .await
        .expect("overwritten");
    assert_eq!(
        store.company_settings(a).await.expect("read"),
        pairs(&[("scheduleType", "queue"), ("userRating", "disabled")])
    );
}

async fn platform_settings_upsert_and_list(store: Store) {
    assert!(store.platform_settings().await.expect("read").is_empty());
    store
        .set_platform_setting("allowSignup", "enabled", None)
        .await
        .expect("set");
    store
        .set_platform_setting("appName", "Chatflow", None)
        .await
        .expect("set");
    store
        .set_platform_setting("allowSignup", "disabled", None)
        .await
        .expect("overwritten");
    assert_eq!(
        store.platform_settings().await.expect("read"),
        pairs(&[("allowSignup", "disabled"), ("appName", "Chatflow")])
    );
}

async fn company_settings_stay_in_their_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    store
        .set_company_setting(a, "requiredTag", "enabled", &[])
        .await
        .expect("set");
    // B reads nothing of A's, and B writing the same key leaves A's value alone.
    assert!(store.company_settings(b).await.expect("read").is_empty());
    store
        .set_company_setting(b, "requiredTag", "disabled", &[])
        .await
        .expect("set");
    assert_eq!(
        store.company_settings(a).await.expect("read"),
        pairs(&[("requiredTag", "enabled")])
    );
    assert_eq!(
        store.company_settings(b).await.expect("read"),
        pairs(&[("requiredTag", "disabled")])
    );
    // Platform settings are a separate space.
    assert!(store.platform_settings().await.expect("read").is_empty());
}

async fn setting_for_unknown_company_fails(store: Store) {
    let err = store
        .set_company_setting(
            TenantScope::new(CompanyId(999)),
            "userRating",
            "enabled",
            &[],
        )
        .await
        .expect_err("no such company");
    assert_eq!(err.code, ErrorCode::ERR_NO_COMPANY_FOUND);
}

async fn settings_events_are_appended_with_the_value(store: Store) {
    let (a, b) = two_companies(&store).await;
    let event = |key: &str, value: &str| {
        settings_event(&Setting {
            key: key.into(),
            value: value.into(),
        })
    };
    store
        .set_company_setting(
            a,
            "userRating",
            "enabled",
            &[event("userRating", "enabled")],
        )
        .await
        .expect("stored");
    store
        .set_platform_setting(
            "appName",
            "Chatflow",
            Some((a, &[event("appName", "Chatflow")])),
        )
        .await
        .expect("stored");
    let logged = crate::support::logged_events(&store, a, "settings").await;
    assert_eq!(
        logged.into_iter().map(|(p, _)| p).collect::<Vec<_>>(),
        vec![
            json!({"action": "update", "setting": {"key": "userRating", "value": "enabled"}}),
            json!({"action": "update", "setting": {"key": "appName", "value": "Chatflow"}}),
        ]
    );
    assert!(
        crate::support::logged_events(&store, b, "settings")
            .await
            .is_empty()
    );
    // A write that fails appends nothing.
    let before = store.heads().await.expect("heads");
    store
        .set_company_setting(
            TenantScope::new(CompanyId(999)),
            "userRating",
            "enabled",
            &[event("userRating", "enabled")],
        )
        .await
        .expect_err("no such company");
    assert_eq!(store.heads().await.expect("heads"), before);
}
