//! QueueRepo and HelpRepo.

use chatflow_core::QueueId;
use chatflow_core::ports::{HelpRepo, QueueRepo, QueueSummary};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::{queue, two_companies};

store_tests!(
    queues_list_in_order_and_only_their_company,
    helps_are_counted
);

async fn queues_list_in_order_and_only_their_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    assert!(QueueRepo::list(&store, a).await.expect("listed").is_empty());
    let sales = queue(&store, a, "Sales", "#ff0000", Some(2)).await;
    let support = queue(&store, a, "Support", "#00ff00", Some(1)).await;
    let billing = queue(&store, a, "Billing", "#0000ff", None).await;
    let other = queue(&store, b, "B's queue", "#ff0000", None).await;

    let listed = QueueRepo::list(&store, a).await.expect("listed");
    let expected = vec![
        QueueSummary {
            id: QueueId(support),
            name: "Support".into(),
            color: "#00ff00".into(),
        },
        QueueSummary {
            id: QueueId(sales),
            name: "Sales".into(),
            color: "#ff0000".into(),
        },
        QueueSummary {
            id: QueueId(billing),
            name: "Billing".into(),
            color: "#0000ff".into(),
        },
    ];
    assert_eq!(listed, expected, "ordered queues first, then by name");

    let b_listed = QueueRepo::list(&store, b).await.expect("listed");
    assert_eq!(
        b_listed.iter().map(|q| q.id.0).collect::<Vec<_>>(),
        vec![other]
    );
}

async fn helps_are_counted(store: Store) {
    assert_eq!(HelpRepo::count(&store).await.expect("counted"), 0);
    for title in ["Getting started", "Connections"] {
        chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query("INSERT INTO helps (title, description, video) VALUES ($1, '', 'abc')")
                .bind(title)
                .execute(p)
                .await
                .map(|_| ())
                .expect("help inserted")
        });
    }
    assert_eq!(HelpRepo::count(&store).await.expect("counted"), 2);
}
