//! Which tickets a user may see, and the store filter built from a user's inbox query.
//!
//! The rules (spec 1 §6): a user sees tickets of their queues; tickets without a queue only with
//! `allTicket` enabled; group tickets only with `allowGroup`; other users' open tickets only with
//! show-all (`tickets-manager:showall`: admins, or `allUserChat`); closed tickets of other
//! queues only with `allHistoric` (admins always). Admins see every ticket of their company.

use crate::identity::Actor;
use crate::inbox::model::{Ticket, TicketFilter, TicketQuery};

/// Whether `actor` may see `ticket` (list, open, receive its events, join its room).
pub fn may_see_ticket(actor: &Actor, ticket: &Ticket) -> bool {
    let _ = (actor, ticket);
    todo!("ticket visibility")
}

/// The store filter for `query` as `actor` may run it.
pub fn ticket_filter(actor: &Actor, query: &TicketQuery) -> TicketFilter {
    let _ = (actor, query);
    todo!("ticket filter")
}
