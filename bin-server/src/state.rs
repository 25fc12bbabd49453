//! The state every handler shares: the core's ports and the server's own machinery.

use std::ops::Deref;
use std::sync::Arc;

use chatflow_core::service::Ports;
use chatflow_core::service::auth::SessionPolicy;

use crate::rate_limit::LoginLimiter;
use crate::tokens::TokenKeys;

/// What handlers share, behind one `Arc`.
pub struct Shared {
    /// The core's ports (repositories, clock, ids, hasher, events, media).
    pub ports: Ports,
    /// Signs and verifies access tokens.
    pub tokens: TokenKeys,
    /// Refresh-token lifetime.
    pub sessions: SessionPolicy,
    /// Sign-in attempts per address and per account.
    pub limiter: LoginLimiter,
    /// Mark the refresh cookie `Secure`.
    pub cookie_secure: bool,
    /// Read the client address from `X-Forwarded-For`.
    pub trust_proxy: bool,
    /// The web app served with the API (on disk or embedded), when there is one.
    pub web: Option<crate::web::WebApp>,
    /// The realtime dispatcher's handle (wake it after writes, sequence numbers emitted).
    pub realtime: crate::dispatcher::Realtime,
    /// The sandbox channel, when `CHATFLOW_SANDBOX` is on.
    pub sandbox: Option<chatflow_sandbox::SandboxProvider>,
    /// The WhatsApp Web channel (provider `beta`): its sessions in this process.
    pub whatsapp: chatflow_whatsapp_web::provider::WaProvider,
    /// Wakes the durable job worker after a request queued jobs.
    pub jobs: crate::jobs::JobWaker,
    /// Where the automation after inbound messages runs (one line per ticket).
    pub automation: crate::automation_lines::Lines,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("tokens", &self.tokens)
            .field("sessions", &self.sessions)
            .field("limiter", &self.limiter)
            .field("cookie_secure", &self.cookie_secure)
            .field("trust_proxy", &self.trust_proxy)
            .field("web", &self.web)
            .finish_non_exhaustive()
    }
}

/// The application state handed to every handler.
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    /// Wraps the shared parts.
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }

    /// Makes the job worker look at the queue now (after queuing jobs).
    pub fn jobs_wake(&self) {
        self.0.jobs.wake();
    }

    /// A handle that does not keep the state alive (for background tasks).
    pub fn downgrade(&self) -> std::sync::Weak<Shared> {
        Arc::downgrade(&self.0)
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}
