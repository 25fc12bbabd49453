//! The connect flow of Messenger and Instagram (spec 2's `POST /facebook`):
//!
//! 1. [`GraphClient::exchange_token`]: the user token from Facebook Login exchanged for a
//!    long-lived one (`GET /{v}/oauth/access_token?grant_type=fb_exchange_token&client_id&
//!    client_secret&fb_exchange_token`).
//! 2. [`GraphClient::pages`]: the user's pages with their tokens and linked Instagram
//!    professional accounts (`GET /{v}/me/accounts?fields=id,name,access_token,
//!    instagram_business_account{id,username,name}`, every page of results). Page tokens got
//!    with a long-lived user token do not expire.
//! 3. [`GraphClient::subscribe_page`]: the app subscribed to the page's messaging webhooks
//!    (`POST /{v}/{page_id}/subscribed_apps` with `subscribed_fields`, the page's token).
//!
//! Each page becomes a `facebook` connection keyed by its id; with `addInstagram`, its
//! Instagram account an `instagram` connection keyed by the account's id (the host's part).

use reqwest::Method;
use serde::Deserialize;

use super::{Body, GraphClient, GraphError};

/// The webhook fields a page is subscribed to: messages and echoes, postbacks, deliveries,
/// reads, reactions and edits.
pub const PAGE_FIELDS: &[&str] = &[
    "messages",
    "messaging_postbacks",
    "message_deliveries",
    "message_reads",
    "message_echoes",
    "message_reactions",
    "message_edits",
];

/// A token Meta issued.
#[derive(Clone, PartialEq, Eq, Deserialize)]
pub struct IssuedToken {
    /// The token.
    pub access_token: String,
    /// Seconds it lives (`None`: Meta gave none, e.g. a page token that does not expire).
    #[serde(default)]
    pub expires_in: Option<i64>,
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken")
            .field("access_token", &"<redacted>")
            .field("expires_in", &self.expires_in)
            .finish()
    }
}

/// A page the user manages.
#[derive(Clone, PartialEq, Eq, Deserialize)]
pub struct Page {
    /// The page's id.
    pub id: String,
    #[serde(default)]
    /// The page's name.
    pub name: String,
    /// The page's token.
    pub access_token: String,
    /// The Instagram professional account linked to the page, if any.
    #[serde(default, rename = "instagram_business_account")]
    pub instagram: Option<InstagramAccount>,
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("access_token", &"<redacted>")
            .field("instagram", &self.instagram)
            .finish()
    }
}

/// An Instagram professional account.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct InstagramAccount {
    /// The account's id (webhooks' `entry[].id`).
    pub id: String,
    #[serde(default)]
    /// Its username.
    pub username: String,
    #[serde(default)]
    /// Its name.
    pub name: String,
}

#[derive(Debug, Deserialize)]
struct PagesAnswer {
    #[serde(default)]
    data: Vec<Page>,
    #[serde(default)]
    paging: Option<super::cloud::Paging>,
}

#[derive(Debug, Deserialize)]
struct Success {
    #[serde(default)]
    success: bool,
}

/// At most this many pages of results are read.
const MAX_PAGES: usize = 20;

impl GraphClient {
    /// Exchanges a user token for a long-lived one with the app's id and secret.
    pub async fn exchange_token(
        &self,
        app_id: &str,
        app_secret: &str,
        user_token: &str,
    ) -> Result<IssuedToken, GraphError> {
        let mut url = self.url(&["oauth", "access_token"]);
        url.query_pairs_mut()
            .append_pair("grant_type", "fb_exchange_token")
            .append_pair("client_id", app_id)
            .append_pair("client_secret", app_secret)
            .append_pair("fb_exchange_token", user_token);
        self.call(Method::GET, url, None, Body::None).await
    }

    /// The pages `user_token`'s user manages, with their tokens and Instagram accounts.
    pub async fn pages(&self, user_token: &str) -> Result<Vec<Page>, GraphError> {
        let mut out: Vec<Page> = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut url = self.url(&["me", "accounts"]);
            {
                let mut query = url.query_pairs_mut();
                query.append_pair(
                    "fields",
                    "id,name,access_token,instagram_business_account{id,username,name}",
                );
                if let Some(cursor) = &after {
                    query.append_pair("after", cursor);
                }
            }
            let answer: PagesAnswer = self
                .call(Method::GET, url, Some(user_token), Body::None)
                .await?;
            out.extend(answer.data);
            after = super::cloud::Paging::next_after(answer.paging);
            if after.is_none() {
                break;
            }
        }
        Ok(out)
    }

    /// Subscribes the app to `page`'s webhook `fields` (see [`PAGE_FIELDS`]).
    pub async fn subscribe_page(
        &self,
        page_id: &str,
        page_token: &str,
        fields: &[&str],
    ) -> Result<(), GraphError> {
        let answer: Success = self
            .call(
                Method::POST,
                self.url(&[page_id, "subscribed_apps"]),
                Some(page_token),
                Body::Form(vec![("subscribed_fields".to_owned(), fields.join(","))]),
            )
            .await?;
        if answer.success {
            Ok(())
        } else {
            Err(GraphError::local("Graph did not confirm the subscription"))
        }
    }
}
