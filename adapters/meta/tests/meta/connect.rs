//! The connect flow against the fake: token exchange, pages, subscription.

use chatflow_core::ErrorCode;
use chatflow_meta::fake::{FakeGraph, FakeSetup, Route};
use chatflow_meta::graph::Operation;
use chatflow_meta::graph::connect::PAGE_FIELDS;

use crate::client;

#[tokio::test]
async fn login_token_to_pages_to_subscriptions() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let client = client(&fake);
    let setup = fake.setup().clone();

    let long = client
        .exchange_token(&setup.app_id, &setup.app_secret, &setup.short_user_token)
        .await
        .expect("a long-lived token");
    assert_eq!(long.access_token, setup.long_user_token);
    assert_eq!(long.expires_in, Some(5_183_944));
    assert!(
        !format!("{long:?}").contains(&setup.long_user_token),
        "tokens are not printed"
    );
    let exchange = fake
        .calls_to(Route::TokenExchange)
        .pop()
        .expect("the exchange");
    assert_eq!(exchange.query("grant_type"), Some("fb_exchange_token"));
    assert_eq!(exchange.query("client_id"), Some(setup.app_id.as_str()));
    assert_eq!(
        exchange.query("fb_exchange_token"),
        Some(setup.short_user_token.as_str())
    );

    let pages = client.pages(&long.access_token).await.expect("the pages");
    // Three pages over two pages of results.
    assert_eq!(fake.calls_to(Route::Accounts).len(), 2);
    let first_call = &fake.calls_to(Route::Accounts)[0];
    assert_eq!(
        first_call.query("fields"),
        Some("id,name,access_token,instagram_business_account{id,username,name}")
    );
    assert_eq!(
        first_call.authorization.as_deref(),
        Some(&*format!("Bearer {}", setup.long_user_token))
    );
    let got: Vec<(&str, &str, Option<&str>)> = pages
        .iter()
        .map(|p| {
            (
                p.id.as_str(),
                p.access_token.as_str(),
                p.instagram.as_ref().map(|i| i.username.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("110000000000001", "EAAG-page-token-azul", Some("lojaazul")),
            ("110000000000002", "EAAG-page-token-verde", None),
            ("110000000000003", "EAAG-page-token-roxa", Some("lojaroxa")),
        ]
    );
    assert_eq!(
        pages[0].instagram.as_ref().map(|i| i.id.as_str()),
        Some("17841400000000001")
    );

    for page in &pages {
        client
            .subscribe_page(&page.id, &page.access_token, PAGE_FIELDS)
            .await
            .expect("subscribed");
    }
    let fields: Vec<String> = PAGE_FIELDS.iter().map(|f| (*f).to_owned()).collect();
    assert_eq!(
        fake.subscriptions(),
        pages
            .iter()
            .map(|p| (p.id.clone(), fields.clone()))
            .collect::<Vec<_>>()
    );
    let call = fake
        .calls_to(Route::SubscribedApps)
        .pop()
        .expect("a subscription");
    assert_eq!(
        call.authorization.as_deref(),
        Some("Bearer EAAG-page-token-roxa")
    );
}

#[tokio::test]
async fn a_wrong_secret_or_token_is_a_credentials_error() {
    let fake = FakeGraph::start(FakeSetup::default()).await;
    let client = client(&fake);
    let setup = fake.setup().clone();
    let error = client
        .exchange_token(&setup.app_id, "not-the-secret", &setup.short_user_token)
        .await
        .expect_err("wrong secret");
    assert_eq!(
        error.to_core(Operation::Account).code,
        ErrorCode::ERR_INVALID_CREDENTIALS
    );
    assert!(
        !error.to_string().contains("not-the-secret"),
        "the secret never reaches an error: {error}"
    );
    // The short token cannot list pages.
    let error = client
        .pages(&setup.short_user_token)
        .await
        .expect_err("not long-lived");
    assert_eq!(error.code, Some(190));
    // A page's token cannot subscribe another page.
    let error = client
        .subscribe_page(&setup.pages[0].id, &setup.pages[1].token, PAGE_FIELDS)
        .await
        .expect_err("wrong page token");
    assert_eq!(error.code, Some(190));
    // Unknown fields are refused.
    let error = client
        .subscribe_page(
            &setup.pages[0].id,
            &setup.pages[0].token,
            &["messages", "feed_everything"],
        )
        .await
        .expect_err("unknown field");
    assert_eq!(error.code, Some(100));
    assert!(fake.subscriptions().is_empty());
    // One call each: none of these is retried.
    assert_eq!(fake.calls().len(), 4);
}
