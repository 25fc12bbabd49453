//! Staged contact uploads on both engines: per company (another company's uploads never evict
//! them, and another company reads or takes none), the company's oldest dropped beyond the
//! limit, expiry, pruning and a single take.

use chatflow_core::inbox::import::Sheet;
use chatflow_core::inbox::ports::StagedUploadRepo;
use chatflow_store::Store;
use chrono::{Duration, TimeZone, Utc};

use crate::store_tests;
use crate::support::two_companies;

fn sheet(name: &str) -> Sheet {
    Sheet::from_rows(
        vec!["name".to_owned(), "number".to_owned()],
        &[vec![name, "5511955550001"], vec![], vec!["", "x"]],
    )
}

async fn staged_uploads_are_per_company_expire_and_are_taken_once(store: Store) {
    let (a, b) = two_companies(&store).await;
    let now = Utc.with_ymd_and_hms(2026, 11, 27, 13, 0, 0).unwrap();
    let later = now + Duration::minutes(30);
    store
        .stage(a, "tok-a", &sheet("Ana"), now, later, 2)
        .await
        .expect("staged");
    for i in 0..5 {
        let at = now + Duration::seconds(i);
        store
            .stage(b, &format!("tok-b{i}"), &sheet("Bia"), at, later, 2)
            .await
            .expect("staged");
    }
    // A's upload survived B's five; B keeps its newest two.
    assert_eq!(
        store.staged(a, "tok-a", now).await.expect("read"),
        Some(sheet("Ana"))
    );
    for i in 0..3 {
        let token = format!("tok-b{i}");
        assert_eq!(store.staged(b, &token, now).await.expect("read"), None);
    }
    assert!(
        store
            .staged(b, "tok-b4", now)
            .await
            .expect("read")
            .is_some()
    );
    // B neither reads nor takes A's.
    assert_eq!(store.staged(b, "tok-a", now).await.expect("read"), None);
    assert_eq!(store.take(b, "tok-a", now).await.expect("take"), None);
    // Taken once.
    assert_eq!(
        store.take(a, "tok-a", now).await.expect("take"),
        Some(sheet("Ana"))
    );
    assert_eq!(store.take(a, "tok-a", now).await.expect("take"), None);
    // Expired: neither read nor taken, then pruned.
    assert_eq!(store.staged(b, "tok-b4", later).await.expect("read"), None);
    assert_eq!(store.take(b, "tok-b4", later).await.expect("take"), None);
    assert_eq!(
        store
            .prune_expired_across_companies(later)
            .await
            .expect("pruned"),
        2
    );
    assert_eq!(
        store.staged(b, "tok-b4", now).await.expect("read"),
        None,
        "pruned rows are gone"
    );
}

store_tests!(staged_uploads_are_per_company_expire_and_are_taken_once,);
