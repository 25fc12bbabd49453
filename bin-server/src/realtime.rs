//! Realtime events over socket.io, on the same port as the HTTP API.
//!
//! A socket must present a valid access token when it connects (`auth: {token}` or the query
//! parameter `token`); otherwise the connection is refused with a `connect_error` whose message
//! is the catalogue code. A connected socket joins only rooms of its own company:
//! `company-{id}` (everything addressed to the company) and `company-{id}-user-{userId}` (its
//! user), plus, on request, `company-{id}-notification` and the ticket status rooms
//! `company-{id}-{status}`. Room names are always built here from the socket's own company, so a
//! client can never name another company's room. Rooms only say which optional events a socket
//! follows; what a socket may receive is decided per event by the dispatcher
//! ([`crate::dispatcher`]) from the user stored on the socket ([`SocketActor`]).
//!
//! Client events: `joinNotification`/`leaveNotification`, `joinTickets`/`leaveTickets`
//! (status), `joinChatBox`/`leaveChatBox` (ticket id), `userStatus`, and `sync` `{lastSeq}`,
//! answered through the acknowledgement with the events the socket missed
//! (`{events: [{event, payload}], seq}`), `{refresh: true}` when the log no longer holds them, or
//! `{seq}` (the current number) when `lastSeq` is absent or -1.

use std::sync::Arc;

use chatflow_core::events::{Event, Recipients};
use chatflow_core::identity::Actor;
use chatflow_core::ids::{CompanyId, TenantScope, TicketId, UserId};
use chatflow_core::inbox::ports::Missed;
use chatflow_core::inbox::visibility;
use chatflow_core::service::users;
use serde_json::{Value, json};
use socketioxide::SocketIo;
use socketioxide::extract::{AckSender, Data, SocketRef, TryData};

use crate::dispatcher;
use crate::extract::authenticate;
use crate::state::AppState;

/// The most events one `sync` answers; a client further behind is told to refresh.
pub const SYNC_LIMIT: u32 = 1000;

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

/// The room whose sockets an event goes to (then filtered by [`Event::visible_to`]).
pub fn room_for(company: CompanyId, event: &Event) -> String {
    match event.recipients() {
        Recipients::Company => company_room(company),
        Recipients::User(user) => user_room(company, user),
    }
}

/// The room of one ticket's chat box (`joinChatBox`).
pub fn ticket_room(company: CompanyId, ticket: i64) -> String {
    format!("company-{company}-ticket-{ticket}")
}

/// The acting user of a socket, stored on it when it connects and refreshed by the dispatcher
/// when the user changes.
#[derive(Debug, Clone)]
pub struct SocketActor(pub Arc<Actor>);

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
///
/// Rooms and client-event handlers are set up in the connect check, before socket.io confirms
/// the connection: a client may emit as soon as it is confirmed, and nothing it sends may arrive
/// before its handler exists.
pub fn attach(io: &SocketIo, state: AppState) {
    let check = move |socket: SocketRef, TryData(auth): TryData<Value>| {
        let state = state.clone();
        async move {
            admit(&state, &socket, auth.ok()).await?;
            on_connect(state, socket);
            Ok::<(), Refused>(())
        }
    };
    let connected = |socket: SocketRef| async move {
        tracing::trace!(sid = %socket.id, "socket confirmed");
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
    socket
        .extensions
        .insert(SocketActor(Arc::new(session.actor)));
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
    let chat_state = state.clone();
    socket.on(
        "joinChatBox",
        move |s: SocketRef, TryData(ticket): TryData<Value>| {
            let state = chat_state.clone();
            async move {
                if let Some(ticket) = ticket.ok().as_ref().and_then(ticket_id) {
                    join_chat_box(&state, &s, me, ticket).await;
                }
            }
        },
    );
    socket.on(
        "leaveChatBox",
        move |s: SocketRef, TryData(ticket): TryData<Value>| async move {
            if let Some(ticket) = ticket.ok().as_ref().and_then(ticket_id) {
                s.leave(ticket_room(me.company_id, ticket));
            }
        },
    );

    let sync_state = state.clone();
    socket.on(
        "sync",
        move |s: SocketRef, ack: AckSender, TryData(request): TryData<Value>| {
            let state = sync_state.clone();
            async move {
                let last_seq = request
                    .ok()
                    .as_ref()
                    .and_then(|r| r.get("lastSeq"))
                    .and_then(Value::as_i64);
                let answer = sync(&state, &s, me, last_seq).await;
                if let Err(e) = ack.send(&answer) {
                    tracing::debug!(sid = %s.id, "cannot answer sync: {e}");
                }
            }
        },
    );

    let status_state = state.clone();
    socket.on("userStatus", move || {
        let state = status_state.clone();
        async move {
            match users::set_online(&state.ports, me.scope(), me.user_id, true).await {
                // Not an HTTP write: wake the dispatcher for the event the write appended.
                Ok(()) => state.realtime.wake(),
                Err(e) => tracing::warn!(user = %me.user_id, "cannot mark the user online: {e}"),
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
            if others == 0 {
                match users::set_online(&state.ports, me.scope(), me.user_id, false).await {
                    Ok(()) => state.realtime.wake(),
                    Err(e) => {
                        tracing::warn!(user = %me.user_id, "cannot mark the user offline: {e}");
                    }
                }
            }
        }
    });
}

/// A ticket id sent by a client: a number or a numeric string.
fn ticket_id(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|id| *id > 0)
}

/// Joins the socket to a ticket's room when its user may see the ticket (the ticket is looked
/// up in the socket's own company only). Rooms decide nothing about what a socket receives (the
/// dispatcher checks visibility per event); the check keeps the room membership honest.
async fn join_chat_box(state: &AppState, socket: &SocketRef, me: SocketUser, ticket: i64) {
    let Some(SocketActor(actor)) = socket.extensions.get::<SocketActor>() else {
        return;
    };
    match state.ports.tickets.get(me.scope(), TicketId(ticket)).await {
        Ok(Some(found)) if visibility::may_see_ticket(&actor, &found) => {
            socket.join(ticket_room(me.company_id, ticket));
        }
        Ok(_) => {
            tracing::debug!(company = %me.company_id, user = %me.user_id, ticket, "joinChatBox refused");
        }
        Err(e) => tracing::warn!(company = %me.company_id, ticket, "cannot load a ticket: {e}"),
    }
}

/// The answer to `sync {lastSeq}`.
async fn sync(
    state: &AppState,
    socket: &SocketRef,
    me: SocketUser,
    last_seq: Option<i64>,
) -> Value {
    // Everything after this number is still emitted live to this socket; the answer stops here
    // so no event arrives twice.
    let emitted = state.realtime.emitted(me.company_id);
    let last_seq = match last_seq {
        Some(seq) if seq >= 0 => seq,
        _ => return json!({ "seq": emitted }),
    };
    let Some(SocketActor(actor)) = socket.extensions.get::<SocketActor>() else {
        return json!({ "refresh": true });
    };
    let missed = match state
        .ports
        .event_log
        .missed(me.scope(), last_seq, SYNC_LIMIT)
        .await
    {
        Ok(missed) => missed,
        Err(e) => {
            tracing::warn!(company = %me.company_id, "cannot replay events: {e}");
            return json!({ "refresh": true });
        }
    };
    let events = match missed {
        Missed::RefreshRequired => return json!({ "refresh": true }),
        Missed::Events(events) => events,
    };
    let settings = dispatcher::recipient_settings(&state.ports, me.company_id).await;
    let rooms = socket.rooms();
    let replay: Vec<Value> = events
        .iter()
        .filter(|event| event.seq <= emitted)
        .filter(|event| {
            let room = room_for(me.company_id, &event.event);
            rooms.iter().any(|joined| **joined == *room)
        })
        .filter_map(|event| {
            let payload = dispatcher::payload_for(event, &actor, settings)?;
            Some(json!({ "event": event.event.name(me.company_id), "payload": payload }))
        })
        .collect();
    json!({ "events": replay, "seq": emitted.max(last_seq) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_are_named_from_the_company() {
        let company = CompanyId(4);
        let deleted = Event::UserDeleted { user_id: UserId(9) };
        assert_eq!(room_for(company, &deleted), "company-4");
        let signed_in = Event::SignedIn {
            user_id: UserId(9),
            session_id: uuid::Uuid::nil(),
        };
        assert_eq!(room_for(company, &signed_in), "company-4-user-9");
        assert_eq!(named_room(company, "open"), "company-4-open");
    }
}
