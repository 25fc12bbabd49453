//! The channel providers this server runs, assembled from the store and the configuration, and
//! their start: the inbound sink attached, background work started, sessions restored.
//!
//! - `beta` (WhatsApp Web, linked by QR code or pair code) always runs: its sessions are
//!   supervised in this process ([`chatflow_whatsapp_web::supervisor`]), their keys kept in the
//!   database, sealed with the server's secret key. Several server processes on one database
//!   share the connections through leases: each session runs in one process at a time.
//! - `sandbox` (a simulated phone) runs when `CHATFLOW_SANDBOX` is on.

use std::sync::Arc;

use chatflow_core::ports::{Clock, SecretCipher};
use chatflow_core::service::inbox::connections;
use chatflow_store::Store;
use chatflow_whatsapp_web::client::WaClientFactory;
use chatflow_whatsapp_web::inbound::IngestHook;
use chatflow_whatsapp_web::provider::WaProvider;
use chatflow_whatsapp_web::real::{HttpLimits, RealWaClientFactory, ReqwestHttp};
use chatflow_whatsapp_web::supervisor::{SupervisorConfig, SupervisorDeps};

use crate::state::AppState;

/// The library's own client, connecting to WhatsApp: what a production server runs.
pub fn real_whatsapp_factory() -> anyhow::Result<Arc<dyn WaClientFactory>> {
    let http = ReqwestHttp::new(HttpLimits::default())?;
    Ok(Arc::new(RealWaClientFactory::new(
        Arc::new(|ingestor| Arc::new(IngestHook(ingestor))),
        http,
    )))
}

/// The `beta` provider on `factory`, its sessions' keys in `store` sealed by `cipher`; `owner`
/// names this process on the connections' leases.
pub fn whatsapp_provider(
    store: Arc<Store>,
    cipher: Arc<dyn SecretCipher>,
    clock: Arc<dyn Clock>,
    factory: Arc<dyn WaClientFactory>,
    owner: String,
    config: SupervisorConfig,
) -> WaProvider {
    WaProvider::new(Box::new(move |sink, traffic| SupervisorDeps {
        factory,
        state: store.clone(),
        cipher,
        leases: store.clone(),
        connections: store,
        clock,
        sink,
        traffic,
        owner,
        config,
    }))
}

/// This process's name on the leases: the host's name, the process id and a random part (a
/// restarted process is a new owner, so it never mistakes a lease of its previous life for its
/// own).
pub fn lease_owner(random: uuid::Uuid) -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
        })
        .unwrap_or_else(|| "chatflow".to_owned());
    format!("{host}:{}:{}", std::process::id(), random.simple())
}

/// At startup: attaches the inbound sink to every provider, starts their background work, and
/// restarts the sessions of connections that were `CONNECTED`.
pub async fn start(state: &AppState) {
    let sink = crate::inbound::Sink::new(state);
    state.whatsapp.attach_sink(sink.clone());
    if let Some(sandbox) = &state.sandbox {
        sandbox.attach_sink(sink);
        sandbox.spawn();
    }
    match connections::restore_sessions(&state.ports).await {
        Ok(outcomes) => {
            for (connection, outcome) in outcomes {
                if let Err(e) = outcome {
                    tracing::warn!(connection = connection.0, error = %e, "cannot restart a session");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot list the connections to restart"),
    }
}
