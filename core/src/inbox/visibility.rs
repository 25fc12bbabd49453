//! Which tickets a user may see, and the store filter built from a user's inbox query.
//!
//! The rules (spec 1 §6): a user sees tickets of their queues; tickets without a queue only with
//! `allTicket` enabled; group tickets only with `allowGroup`; other users' open tickets only with
//! show-all (`tickets-manager:showall`: admins, or `allUserChat`); closed tickets of other
//! queues only with `allHistoric` (admins always). Admins see every ticket of their company.
//!
//! A user always sees the tickets they own. Every permission question is asked of
//! [`crate::policy::authorize`], so the rules live in one place.

use crate::identity::Actor;
use crate::inbox::membership::ListedTicket;
use crate::inbox::model::{Ticket, TicketFilter, TicketQuery};
use crate::policy::{Action, authorize};
use crate::ticket::TicketStatus;

fn can(actor: &Actor, action: Action) -> bool {
    authorize(actor, &action).is_ok()
}

/// Whether `actor` may see `ticket` (list, open, receive its events, join its room).
pub fn may_see_ticket(actor: &Actor, ticket: &Ticket) -> bool {
    let company = ticket.company_id;
    if company != actor.company_id {
        return false;
    }
    if actor.is_admin() || ticket.user_id == Some(actor.user_id) {
        return true;
    }
    if ticket.is_group && !can(actor, Action::ViewGroupTickets(company)) {
        return false;
    }
    let in_my_queues = match ticket.queue_id {
        Some(queue) => actor.queue_ids.contains(&queue),
        None => can(actor, Action::ViewTicketsWithoutQueue(company)),
    };
    if ticket.status == TicketStatus::Closed {
        return in_my_queues || can(actor, Action::ViewOtherQueuesHistory(company));
    }
    in_my_queues && (ticket.user_id.is_none() || can(actor, Action::ShowAllTickets(company)))
}

/// The store filter for `query` as `actor` may run it.
///
/// - Queues: admins see every queue unless they pick some; a user is limited to their queues
///   (narrowed further by the queues they pick), plus tickets without a queue with `allTicket`
///   (admins always), whether or not queues are picked.
///   The closed tab alone (`statuses == [closed]`) lifts the queue limit for `allHistoric`.
/// - Owners: with show-all asked for and allowed, every owner (or the picked users); otherwise
///   the caller's own tickets and unassigned ones.
/// - Groups: only with `allowGroup` (admins always).
/// - Unread tickets come first on the open and pending tabs.
pub fn ticket_filter(actor: &Actor, query: &TicketQuery) -> TicketFilter {
    let company = actor.company_id;
    let admin = actor.is_admin();
    let only_closed = query.statuses == [TicketStatus::Closed];
    let unrestricted_queues =
        admin || (only_closed && can(actor, Action::ViewOtherQueuesHistory(company)));
    let without_queue = admin || can(actor, Action::ViewTicketsWithoutQueue(company));

    let (all_queues, queue_ids, include_no_queue) = if query.queue_ids.is_empty() {
        if unrestricted_queues {
            (true, Vec::new(), true)
        } else {
            (false, actor.queue_ids.clone(), without_queue)
        }
    } else if unrestricted_queues {
        (false, query.queue_ids.clone(), without_queue)
    } else {
        let picked = query
            .queue_ids
            .iter()
            .copied()
            .filter(|q| actor.queue_ids.contains(q))
            .collect();
        // Picking queues narrows the queued tickets; tickets still waiting for a queue (the
        // chatbot's menu) stay for whoever may see them, as they do with no queue picked.
        (false, picked, without_queue)
    };

    let show_all = query.show_all && can(actor, Action::ShowAllTickets(company));
    let (user_ids, include_unassigned) = if show_all {
        (query.user_ids.clone(), query.user_ids.is_empty())
    } else {
        (vec![actor.user_id], true)
    };

    let is_group = if admin || can(actor, Action::ViewGroupTickets(company)) {
        None
    } else {
        Some(false)
    };
    let unread_first = !query.statuses.is_empty()
        && query
            .statuses
            .iter()
            .all(|s| matches!(s, TicketStatus::Open | TicketStatus::Pending));

    TicketFilter {
        search: query.search.clone(),
        search_on_messages: query.search_on_messages,
        statuses: query.statuses.clone(),
        all_queues,
        queue_ids,
        include_no_queue,
        own_user: (!admin).then_some(actor.user_id),
        user_ids,
        include_unassigned,
        is_group,
        tag_ids: query.tag_ids.clone(),
        whatsapp_ids: query.whatsapp_ids.clone(),
        with_unread_messages: query.with_unread_messages,
        sort: query.sort,
        updated_on: query.updated_on,
        unread_first,
    }
}

impl TicketFilter {
    /// Whether `ticket` passes the filter's visibility part (queues, owners, groups, statuses).
    /// The store runs the same rules in SQL; this is their reference (tests compare the two).
    pub fn admits(&self, ticket: &Ticket) -> bool {
        self.admits_visible(&ListedTicket::of(ticket))
    }

    /// [`TicketFilter::admits`] of the facts a list reads of a ticket.
    pub fn admits_visible(&self, ticket: &ListedTicket) -> bool {
        let status = self.statuses.is_empty() || self.statuses.contains(&ticket.status);
        let queue = self.all_queues
            || match ticket.queue_id {
                Some(q) => self.queue_ids.contains(&q),
                None => self.include_no_queue,
            };
        let owner = self.user_ids.is_empty()
            || match ticket.user_id {
                Some(u) => self.user_ids.contains(&u),
                None => self.include_unassigned,
            };
        let group = self.is_group.is_none_or(|g| g == ticket.is_group);
        let own = self.own_user.is_some() && ticket.user_id == self.own_user;
        status && owner && (own || (queue && group))
    }
}
