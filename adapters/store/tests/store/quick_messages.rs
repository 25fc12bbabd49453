//! Quick messages on both engines: CRUD with the file fields, events in the write's transaction,
//! the owner of another company refused, and company isolation.

use chatflow_core::TenantScope;
use chatflow_core::events::Recipients;
use chatflow_core::quick_message::{QuickMessageFields, QuickMessageId, QuickMessageRepo};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::two_companies;
use crate::tickets::user;

fn fields(shortcode: &str, geral: bool) -> QuickMessageFields {
    QuickMessageFields {
        shortcode: shortcode.into(),
        message: format!("texto de {shortcode}"),
        geral,
        visao: true,
        status: true,
    }
}

/// The company's quick-message events, as (action, addressed user).
async fn events(store: &Store, scope: TenantScope) -> Vec<(String, Option<i64>)> {
    crate::support::logged_events(store, scope, "quickmessage")
        .await
        .into_iter()
        .map(|(payload, recipients)| {
            let user = match recipients {
                Recipients::User(user) => Some(user.0),
                Recipients::Company => None,
            };
            (payload["action"].as_str().unwrap_or("").to_owned(), user)
        })
        .collect()
}

async fn creates_lists_updates_and_deletes(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ana = user(&store, a, "ana@a.test").await;
    let bia = user(&store, b, "bia@b.test").await;
    let oi = QuickMessageRepo::create(&store, a, ana, &fields("oi", true))
        .await
        .expect("created");
    let private = QuickMessageRepo::create(&store, a, ana, &fields("abc", false))
        .await
        .expect("created");
    assert_eq!(oi.user_id, ana);
    assert!(oi.geral && !oi.is_media && oi.media_path.is_none());
    let listed = QuickMessageRepo::list(&store, a).await.expect("list");
    assert_eq!(
        listed
            .iter()
            .map(|m| m.shortcode.as_str())
            .collect::<Vec<_>>(),
        ["abc", "oi"],
        "by shortcode"
    );

    let with_file = QuickMessageRepo::set_media(&store, a, oi.id, Some(("2/x.png", "foto.png")))
        .await
        .expect("set")
        .expect("found");
    assert!(with_file.is_media);
    assert_eq!(with_file.media_name.as_deref(), Some("foto.png"));
    assert_eq!(with_file.media_file.as_deref(), Some("2/x.png"));
    let again = QuickMessageRepo::get(&store, a, oi.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(again, with_file);

    let unshared = QuickMessageRepo::update(&store, a, oi.id, &fields("ola", false), true)
        .await
        .expect("update")
        .expect("found");
    assert_eq!(unshared.shortcode, "ola");
    assert!(!unshared.geral);
    assert!(unshared.is_media, "editing the text keeps the file");
    let cleared = QuickMessageRepo::set_media(&store, a, oi.id, None)
        .await
        .expect("cleared")
        .expect("found");
    assert!(!cleared.is_media && cleared.media_name.is_none());

    let deleted = QuickMessageRepo::delete(&store, a, private.id)
        .await
        .expect("delete")
        .expect("found");
    assert_eq!(deleted.id, private.id);
    assert!(
        QuickMessageRepo::delete(&store, a, private.id)
            .await
            .expect("delete")
            .is_none()
    );

    let owner = Some(ana.0);
    assert_eq!(
        events(&store, a).await,
        [
            ("create".to_owned(), None),
            ("create".to_owned(), owner),
            ("update".to_owned(), None),
            ("delete".to_owned(), None),
            ("update".to_owned(), owner),
            ("update".to_owned(), owner),
            ("delete".to_owned(), owner),
        ]
    );

    // A user of another company cannot own one; nothing is written.
    let refused = QuickMessageRepo::create(&store, a, bia, &fields("x", true)).await;
    assert!(refused.is_err());
    assert_eq!(
        QuickMessageRepo::list(&store, a).await.expect("list").len(),
        1
    );
    assert!(events(&store, b).await.is_empty());
}

async fn company_b_reaches_none_of_company_a(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ana = user(&store, a, "ana@a.test").await;
    let oi = QuickMessageRepo::create(&store, a, ana, &fields("oi", true))
        .await
        .expect("created");
    assert!(
        QuickMessageRepo::list(&store, b)
            .await
            .expect("list")
            .is_empty()
    );
    assert!(
        QuickMessageRepo::get(&store, b, oi.id)
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        QuickMessageRepo::update(&store, b, oi.id, &fields("x", true), true)
            .await
            .expect("update")
            .is_none()
    );
    assert!(
        QuickMessageRepo::set_media(&store, b, oi.id, Some(("f", "f")))
            .await
            .expect("media")
            .is_none()
    );
    assert!(
        QuickMessageRepo::delete(&store, b, oi.id)
            .await
            .expect("delete")
            .is_none()
    );
    assert!(
        QuickMessageRepo::get(&store, a, QuickMessageId(oi.id.0 + 1000))
            .await
            .expect("get")
            .is_none()
    );
    let kept = QuickMessageRepo::get(&store, a, oi.id)
        .await
        .expect("get")
        .expect("still there");
    assert_eq!(kept, oi);
    assert!(events(&store, b).await.is_empty());
}

store_tests!(
    creates_lists_updates_and_deletes,
    company_b_reaches_none_of_company_a,
);
