//! The HTTP routes, each module a slice of `docs/api.md`, collected with their OpenAPI
//! description.

pub mod auth;
pub mod companies;
pub mod company_schedules;
pub mod connections;
pub mod contacts;
pub mod flows;
pub mod inbound_failures;
pub mod messages;
pub mod password_reset;
pub mod queues;
pub mod quick_messages;
pub mod sandbox;
pub mod schedules;
pub mod settings;
pub mod tags;
pub mod ticket_notes;
pub mod tickets;
pub mod users;

use axum::extract::DefaultBodyLimit;
use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::config::JSON_BODY_LIMIT;
use crate::state::AppState;

/// The document's fixed parts; the paths come from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Chatflow API",
        description = "The HTTP API of Chatflow, a multi-tenant customer-service inbox. \
                       Errors are `{error, message, fields?}` with a stable `ERR_*` code.",
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "auth", description = "Sign-in, sessions, signup and password reset"),
        (name = "users", description = "Users of the caller's company"),
        (name = "companies", description = "The caller's company and plan"),
        (name = "settings", description = "Company and platform settings"),
        (name = "queues", description = "Queues of the caller's company and their chatbot menus"),
        (name = "system", description = "Health and version"),
        (name = "contacts", description = "Contacts, their import and export"),
        (name = "tags", description = "Tags of contacts and tickets"),
        (name = "connections", description = "Connections (channel accounts) and their sessions"),
        (name = "tickets", description = "Tickets: the inbox, transitions, logs and notes"),
        (name = "messages", description = "Messages of tickets, media, reactions and forwarding"),
        (name = "flows", description = "The flow builder: flows, drafts, versions, media and phrase campaigns"),
        (name = "quick-messages", description = "Quick messages (quick replies) and their files"),
        (name = "schedules", description = "Scheduled and recurring messages"),
        (name = "sandbox", description = "The simulated phone network (when CHATFLOW_SANDBOX is on)"),
    )
)]
struct ApiDoc;

/// Declares the bearer-token scheme the handlers refer to as `bearer`.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

/// Every API route with its description. JSON routes accept 1 MiB; the upload route up to
/// `max_body_bytes`.
pub fn api(max_body_bytes: usize) -> OpenApiRouter<AppState> {
    let json = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health))
        .routes(routes!(version))
        .merge(auth::router())
        .merge(password_reset::router())
        .merge(users::router())
        .merge(companies::router())
        .merge(company_schedules::router())
        .merge(settings::router())
        .merge(queues::router())
        .merge(contacts::router())
        .merge(tags::router())
        .merge(connections::router())
        .merge(tickets::router())
        .merge(ticket_notes::router())
        .merge(messages::router())
        .merge(flows::router())
        .merge(quick_messages::router())
        .merge(schedules::router())
        .merge(inbound_failures::router())
        .layer(DefaultBodyLimit::max(JSON_BODY_LIMIT));
    let uploads = users::upload_router()
        .merge(contacts::upload_router())
        .merge(messages::upload_router())
        .merge(flows::upload_router())
        .merge(quick_messages::upload_router())
        .merge(schedules::upload_router())
        .layer(DefaultBodyLimit::max(max_body_bytes));
    json.merge(uploads)
}

/// The answer of `/health`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok` when the server answers.
    pub status: &'static str,
}

/// The answer of `/version`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Version {
    /// The server's version.
    pub version: &'static str,
}

/// Liveness: the server answers.
#[utoipa::path(get, path = "/health", tag = "system", responses((status = 200, body = Health)))]
async fn health() -> axum::Json<Health> {
    axum::Json(Health { status: "ok" })
}

/// The server's version.
#[utoipa::path(get, path = "/version", tag = "system", responses((status = 200, body = Version)))]
async fn version() -> axum::Json<Version> {
    axum::Json(Version {
        version: env!("CARGO_PKG_VERSION"),
    })
}
