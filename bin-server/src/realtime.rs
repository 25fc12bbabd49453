//! Realtime events over socket.io, on the same port as the HTTP API.
//!
//! A socket must present a valid access token when it connects (`auth: {token}` or the query
//! parameter `token`); otherwise the connection is refused with a `connect_error` whose message
//! is the catalogue code. A connected socket joins only rooms of its own company:
//! `company-{id}` (everything addressed to the company) and `company-{id}-user-{userId}` (its
//! user), plus, on request, `company-{id}-notification` and the ticket status rooms
//! `company-{id}-{status}`. Room names are always built here from the socket's own company, so a
//! client can never name another company's room.
//!
//! [`SocketBus`] is the core's [`EventBus`] on top of socket.io: each [`RealtimeEvent`] is
//! emitted under its own name to the room its audience names.

use async_trait::async_trait;
use chatflow_core::ids::{CompanyId, TenantScope, UserId};
use chatflow_core::ports::{Audience, EventBus, RealtimeEvent};
use chatflow_core::service::users;
use serde_json::Value;
use socketioxide::SocketIo;
use socketioxide::extract::{Data, SocketRef, TryData};

use crate::extract::authenticate;
use crate::state::AppState;

/// The ticket statuses a socket may follow with `joinTickets` (spec 1 §4).
pub const TICKET_STATUSES: &[&str] = &["pending", "open", "closed", "group", "lgpd", "nps"];

/// The room every socket of a company joins.
pub fn company_room(company: CompanyId) -> String {
    format!("company-{company}")
}

/// The room of one user's sockets.
pub fn user_room(company: CompanyId, user: UserId) -> String {
    format!("company-{company}-user-{user}")
}

/// A named room inside a company (`notification`, a ticket status...).
pub fn named_room(company: CompanyId, name: &str) -> String {
    format!("company-{company}-{name}")
}

/// The room an audience of a company's event maps to.
pub fn room_of(company: CompanyId, audience: &Audience) -> String {
    match audience {
        Audience::Company => company_room(company),
        Audience::User(user) => user_room(company, *user),
        Audience::Room(name) => named_room(company, name),
    }
}

/// The core's event bus, delivered through socket.io.
#[derive(Clone)]
pub struct SocketBus {
    io: SocketIo,
}

impl SocketBus {
    /// A bus emitting through `io`.
    pub fn new(io: SocketIo) -> Self {
        Self { io }
    }
}

#[async_trait]
impl EventBus for SocketBus {
    async fn publish(&self, event: RealtimeEvent) {
        let room = room_of(event.company_id, &event.audience);
        if let Err(e) = self
            .io
            .to(room.clone())
            .emit(&event.name, &event.payload)
            .await
        {
            tracing::warn!(%room, event = %event.name, "realtime emit failed: {e}");
        }
    }
}

/// Who a socket belongs to, stored on the socket when it connects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SocketUser {
    company_id: CompanyId,
    user_id: UserId,
}

impl SocketUser {
    fn scope(self) -> TenantScope {
        TenantScope::new(self.company_id)
    }
}

/// Why a socket was refused; the client sees the code as the `connect_error` message.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("{0}")]
struct Refused(&'static str);

/// Registers the default namespace: token check on connect, rooms, client events.
pub fn attach(io: &SocketIo, state: AppState) {
    let check_state = state.clone();
    let check = move |socket: SocketRef, TryData(auth): TryData<Value>| {
        let state = check_state.clone();
        async move { admit(&state, &socket, auth.ok()).await }
    };
    let connected = move |socket: SocketRef| {
        let state = state.clone();
        async move { on_connect(state, socket) }
    };
    io.ns(
        "/",
        socketioxide::handler::ConnectHandler::with(connected, check),
    );
}

/// The token of a connecting socket: `auth.token`, else the `token` query parameter.
fn token_of(socket: &SocketRef, auth: Option<&Value>) -> Option<String> {
    let from_auth = auth
        .and_then(|a| a.get("token"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let token = from_auth.or_else(|| {
        let query = socket.req_parts().uri.query()?;
        query.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            (key == "token").then(|| value.to_owned())
        })
    })?;
    let token = token
        .strip_prefix("Bearer ")
        .unwrap_or(&token)
        .trim()
        .to_owned();
    (!token.is_empty()).then_some(token)
}

async fn admit(state: &AppState, socket: &SocketRef, auth: Option<Value>) -> Result<(), Refused> {
    let token = token_of(socket, auth.as_ref());
    let session = authenticate(state, token.as_deref())
        .await
        .map_err(|e| Refused(e.error_code().as_str()))?;
    socket.extensions.insert(SocketUser {
        company_id: session.user.company_id,
        user_id: session.user.id,
    });
    Ok(())
}

fn on_connect(state: AppState, socket: SocketRef) {
    let Some(me) = socket.extensions.get::<SocketUser>() else {
        // The connect check always stores the user; without it the socket has no business here.
        let _ = socket.disconnect();
        return;
    };
    socket.join([
        company_room(me.company_id),
        user_room(me.company_id, me.user_id),
    ]);
    tracing::debug!(company = %me.company_id, user = %me.user_id, sid = %socket.id, "socket connected");

    socket.on("joinNotification", move |s: SocketRef| async move {
        s.join(named_room(me.company_id, "notification"));
    });
    socket.on("leaveNotification", move |s: SocketRef| async move {
        s.leave(named_room(me.company_id, "notification"));
    });
    socket.on(
        "joinTickets",
        move |s: SocketRef, Data(status): Data<String>| async move {
            if TICKET_STATUSES.contains(&status.as_str()) {
                s.join(named_room(me.company_id, &status));
            }
        },
    );
    socket.on(
        "leaveTickets",
        move |s: SocketRef, Data(status): Data<String>| async move {
            if TICKET_STATUSES.contains(&status.as_str()) {
                s.leave(named_room(me.company_id, &status));
            }
        },
    );
    // Ticket rooms come with the inbox: the ticket id will be checked against the socket's own
    // company before any join. Until then the event is accepted and joins nothing.
    socket.on(
        "joinChatBox",
        |TryData(_ticket): TryData<Value>| async move {},
    );

    let status_state = state.clone();
    socket.on("userStatus", move || {
        let state = status_state.clone();
        async move {
            if let Err(e) = users::set_online(&state.ports, me.scope(), me.user_id, true).await {
                tracing::warn!(user = %me.user_id, "cannot mark the user online: {e}");
            }
        }
    });

    socket.on_disconnect(move |s: SocketRef| {
        let state = state.clone();
        async move {
            // Rooms are still in place here: count the user's other sockets.
            let others = s
                .within(user_room(me.company_id, me.user_id))
                .sockets()
                .into_iter()
                .filter(|other| other.id != s.id)
                .count();
            if others == 0
                && let Err(e) = users::set_online(&state.ports, me.scope(), me.user_id, false).await
            {
                tracing::warn!(user = %me.user_id, "cannot mark the user offline: {e}");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_are_named_from_the_company() {
        let company = CompanyId(4);
        assert_eq!(room_of(company, &Audience::Company), "company-4");
        assert_eq!(
            room_of(company, &Audience::User(UserId(9))),
            "company-4-user-9"
        );
        assert_eq!(
            room_of(company, &Audience::Room("open".into())),
            "company-4-open"
        );
    }
}
