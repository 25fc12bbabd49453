//! The inbox rules the web app asks while it shows the inbox: whether a ticket it hears about
//! belongs in one of its loaded lists, and which of the inbox's controls the signed-in user has.
//!
//! Membership is the store's list query read for one ticket: [`belongs_to_list`] builds the same
//! [`TicketFilter`] as `GET /tickets` ([`ticket_filter`]) and asks it of the ticket, so a live
//! update lands in exactly the lists a refetch would put it in (tickets without a queue only with
//! `allTicket`, other users' tickets only with show-all, the queues picked, tags, connections,
//! owners). The text search is the store's alone (it reads message bodies): the web app refreshes
//! a search list in place and never asks.
//!
//! The web app runs both compiled to WASM (`web/wasm`); nothing of them is written twice.

use serde::{Deserialize, Serialize};

use crate::identity::{Actor, Profile, UserFlags};
use crate::ids::{CompanyId, QueueId, TagId, UserId, WhatsappId};
use crate::inbox::model::{Ticket, TicketFilter, TicketQuery, TicketTab};
use crate::inbox::visibility::ticket_filter;
use crate::policy::{Action, can};
use crate::ticket::TicketStatus;

/// The signed-in user as the session describes them (`GET /auth/me`'s `user`): enough to build
/// the [`Actor`] the rules are asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    pub id: UserId,
    pub company_id: CompanyId,
    pub profile: Profile,
    #[serde(rename = "super", default)]
    pub is_super: bool,
    #[serde(flatten)]
    pub flags: UserFlags,
    /// The user's queues.
    #[serde(default)]
    pub queue_ids: Vec<QueueId>,
}

impl SignedIn {
    /// The acting user.
    pub fn actor(&self) -> Actor {
        Actor {
            user_id: self.id,
            company_id: self.company_id,
            profile: self.profile,
            is_super: self.is_super,
            flags: self.flags,
            queue_ids: self.queue_ids.clone(),
        }
    }
}

/// One inbox list as the web app asks for it (`GET /tickets` parameters without the search).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListView {
    pub tab: TicketTab,
    #[serde(default)]
    pub show_all: bool,
    #[serde(default)]
    pub queue_ids: Vec<QueueId>,
    #[serde(default)]
    pub tag_ids: Vec<TagId>,
    #[serde(default)]
    pub user_ids: Vec<UserId>,
    #[serde(default)]
    pub whatsapp_ids: Vec<WhatsappId>,
}

/// The statuses a tab lists (the search tab: every status).
pub fn tab_statuses(tab: TicketTab) -> Vec<TicketStatus> {
    match tab {
        TicketTab::Open => vec![TicketStatus::Open],
        TicketTab::Pending => vec![TicketStatus::Pending],
        TicketTab::Group => vec![TicketStatus::Group],
        TicketTab::Closed => vec![TicketStatus::Closed],
        TicketTab::Search => Vec::new(),
    }
}

impl ListView {
    /// The query `GET /tickets` runs for this list (before the policy narrows it).
    pub fn query(&self) -> TicketQuery {
        TicketQuery {
            statuses: tab_statuses(self.tab),
            show_all: self.show_all,
            queue_ids: self.queue_ids.clone(),
            tag_ids: self.tag_ids.clone(),
            user_ids: self.user_ids.clone(),
            whatsapp_ids: self.whatsapp_ids.clone(),
            ..TicketQuery::default()
        }
    }
}

/// What list membership reads of a ticket (the ticket of an `update` or `appMessage` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedTicket {
    /// The ticket's company; absent means the signed-in user's (events reach only their company).
    #[serde(default)]
    pub company_id: Option<CompanyId>,
    pub status: TicketStatus,
    #[serde(default)]
    pub user_id: Option<UserId>,
    #[serde(default)]
    pub queue_id: Option<QueueId>,
    #[serde(default)]
    pub whatsapp_id: Option<WhatsappId>,
    #[serde(default)]
    pub is_group: bool,
    #[serde(default)]
    pub tag_ids: Vec<TagId>,
    #[serde(default)]
    pub unread_messages: i64,
}

impl ListedTicket {
    /// The facts of a stored ticket.
    pub fn of(ticket: &Ticket) -> Self {
        Self {
            company_id: Some(ticket.company_id),
            status: ticket.status,
            user_id: ticket.user_id,
            queue_id: ticket.queue_id,
            whatsapp_id: ticket.whatsapp_id,
            is_group: ticket.is_group,
            tag_ids: ticket.tags.iter().map(|t| t.id).collect(),
            unread_messages: ticket.unread_messages,
        }
    }
}

impl TicketFilter {
    /// Whether `ticket` passes every part of the filter the store runs in SQL except the text
    /// search and the date: the visibility part ([`TicketFilter::admits`]), tags (any of them),
    /// connections and unread messages.
    pub fn admits_listed(&self, ticket: &ListedTicket) -> bool {
        let tags =
            self.tag_ids.is_empty() || ticket.tag_ids.iter().any(|t| self.tag_ids.contains(t));
        let connection = self.whatsapp_ids.is_empty()
            || ticket
                .whatsapp_id
                .is_some_and(|w| self.whatsapp_ids.contains(&w));
        let unread = !self.with_unread_messages || ticket.unread_messages > 0;
        self.admits_visible(ticket) && tags && connection && unread
    }
}

/// Whether `ticket` belongs in the list `list` of `actor`: the answer `GET /tickets` would give
/// (text search aside), so a live update inserts, keeps or removes it as a refetch would.
pub fn belongs_to_list(actor: &Actor, list: &ListView, ticket: &ListedTicket) -> bool {
    if ticket.company_id.is_some_and(|c| c != actor.company_id) {
        return false;
    }
    ticket_filter(actor, &list.query()).admits_listed(ticket)
}

/// The inbox controls the signed-in user has (spec 1 "Tickets inbox", §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct InboxControls {
    /// The tabs, in order (the group tab only with `allowGroup`, admins too).
    pub tabs: Vec<TicketTab>,
    /// The show-all switch (`tickets-manager:showall`).
    pub show_all: bool,
    /// Show-all also widens the search tab (admins; plain users search with it off).
    pub show_all_in_search: bool,
    /// The filter by attendants (admins).
    pub filter_by_users: bool,
    /// Each row names its attendant (admins).
    pub show_owner: bool,
    /// Close or ignore pending tickets from the list (`userClosePendingTicket`; admins always).
    pub close_pending: bool,
    /// The close-all button (`tickets-manager:closeAll`).
    pub close_all: bool,
}

/// The inbox controls of `actor`, each decided by the policy.
pub fn inbox_controls(actor: &Actor) -> InboxControls {
    let company = actor.company_id;
    let admin = actor.is_admin();
    let groups = can(actor, &Action::ViewGroupTickets(company));
    let tabs = [
        TicketTab::Open,
        TicketTab::Pending,
        TicketTab::Group,
        TicketTab::Closed,
        TicketTab::Search,
    ]
    .into_iter()
    .filter(|tab| *tab != TicketTab::Group || groups)
    .collect();
    InboxControls {
        tabs,
        show_all: can(actor, &Action::ShowAllTickets(company)),
        show_all_in_search: admin && can(actor, &Action::ShowAllTickets(company)),
        filter_by_users: admin,
        show_owner: admin,
        close_pending: can(actor, &Action::CloseOrIgnorePendingTicket(company)),
        close_all: can(actor, &Action::CloseAllTickets(company)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{AllTicket, Toggle};

    const HOME: CompanyId = CompanyId(1);
    const ME: UserId = UserId(10);
    const OTHER: UserId = UserId(11);
    const SALES: QueueId = QueueId(1);
    const SUPPORT: QueueId = QueueId(2);

    fn user(flags: UserFlags) -> Actor {
        Actor {
            user_id: ME,
            company_id: HOME,
            profile: Profile::User,
            is_super: false,
            flags,
            queue_ids: vec![SALES],
        }
    }

    fn admin() -> Actor {
        Actor {
            profile: Profile::Admin,
            ..user(UserFlags::default())
        }
    }

    fn list(tab: TicketTab) -> ListView {
        ListView {
            tab,
            show_all: false,
            queue_ids: vec![SALES],
            tag_ids: Vec::new(),
            user_ids: Vec::new(),
            whatsapp_ids: Vec::new(),
        }
    }

    fn ticket(status: TicketStatus, user: Option<UserId>, queue: Option<QueueId>) -> ListedTicket {
        ListedTicket {
            company_id: Some(HOME),
            status,
            user_id: user,
            queue_id: queue,
            whatsapp_id: Some(WhatsappId(3)),
            is_group: false,
            tag_ids: vec![TagId(7)],
            unread_messages: 0,
        }
    }

    #[test]
    fn a_ticket_without_a_queue_needs_all_ticket() {
        let t = ticket(TicketStatus::Pending, None, None);
        let every_queue = ListView {
            queue_ids: Vec::new(),
            ..list(TicketTab::Pending)
        };
        assert!(!belongs_to_list(
            &user(UserFlags::default()),
            &every_queue,
            &t
        ));
        let all_ticket = user(UserFlags {
            all_ticket: AllTicket::Enable,
            ..UserFlags::default()
        });
        assert!(belongs_to_list(&all_ticket, &every_queue, &t));
        assert!(belongs_to_list(&admin(), &every_queue, &t));
        // As `GET /tickets`: picking queues narrows the queued tickets, and a ticket still
        // waiting for its queue stays for whoever may see it.
        assert!(belongs_to_list(&all_ticket, &list(TicketTab::Pending), &t));
        assert!(belongs_to_list(&admin(), &list(TicketTab::Pending), &t));
        assert!(!belongs_to_list(
            &user(UserFlags::default()),
            &list(TicketTab::Pending),
            &t
        ));
    }

    #[test]
    fn other_users_tickets_need_show_all() {
        let theirs = ticket(TicketStatus::Pending, Some(OTHER), Some(SALES));
        let mine = ticket(TicketStatus::Pending, Some(ME), Some(SUPPORT));
        let pending = list(TicketTab::Pending);
        let plain = user(UserFlags::default());
        assert!(!belongs_to_list(&plain, &pending, &theirs));
        assert!(belongs_to_list(&plain, &pending, &mine), "one's own always");
        let show_all = ListView {
            show_all: true,
            ..list(TicketTab::Pending)
        };
        assert!(!belongs_to_list(&plain, &show_all, &theirs), "not allowed");
        let chat = user(UserFlags {
            all_user_chat: Toggle::Enabled,
            ..UserFlags::default()
        });
        assert!(belongs_to_list(&chat, &show_all, &theirs));
        assert!(belongs_to_list(&admin(), &show_all, &theirs));
        assert!(!belongs_to_list(&admin(), &pending, &theirs));
    }

    #[test]
    fn tab_tags_connections_and_company() {
        let t = ticket(TicketStatus::Open, Some(ME), Some(SALES));
        let me = user(UserFlags::default());
        assert!(belongs_to_list(&me, &list(TicketTab::Open), &t));
        assert!(!belongs_to_list(&me, &list(TicketTab::Pending), &t));
        assert!(belongs_to_list(&me, &list(TicketTab::Search), &t));
        let tagged = |tags| ListView {
            tag_ids: tags,
            ..list(TicketTab::Open)
        };
        assert!(belongs_to_list(&me, &tagged(vec![TagId(7), TagId(8)]), &t));
        assert!(!belongs_to_list(&me, &tagged(vec![TagId(8)]), &t));
        let on = |ids| ListView {
            whatsapp_ids: ids,
            ..list(TicketTab::Open)
        };
        assert!(belongs_to_list(&me, &on(vec![WhatsappId(3)]), &t));
        assert!(!belongs_to_list(&me, &on(vec![WhatsappId(4)]), &t));
        let elsewhere = ListedTicket {
            company_id: Some(CompanyId(2)),
            ..t.clone()
        };
        assert!(!belongs_to_list(
            &admin(),
            &list(TicketTab::Open),
            &elsewhere
        ));
        let unknown_company = ListedTicket {
            company_id: None,
            ..t
        };
        assert!(belongs_to_list(
            &me,
            &list(TicketTab::Open),
            &unknown_company
        ));
    }

    #[test]
    fn agrees_with_the_visibility_part_of_the_filter() {
        let me = user(UserFlags::default());
        for status in TicketStatus::ALL {
            for owner in [None, Some(ME), Some(OTHER)] {
                for queue in [None, Some(SALES), Some(SUPPORT)] {
                    let t = ticket(status, owner, queue);
                    let view = list(TicketTab::Search);
                    let filter = ticket_filter(&me, &view.query());
                    assert_eq!(belongs_to_list(&me, &view, &t), filter.admits_visible(&t));
                }
            }
        }
    }

    #[test]
    fn controls_follow_the_policy() {
        let plain = inbox_controls(&user(UserFlags::default()));
        assert_eq!(
            plain.tabs,
            [
                TicketTab::Open,
                TicketTab::Pending,
                TicketTab::Closed,
                TicketTab::Search
            ]
        );
        assert!(!plain.show_all && !plain.filter_by_users && !plain.close_pending);
        assert!(!plain.close_all && !plain.show_owner && !plain.show_all_in_search);
        let flagged = inbox_controls(&user(UserFlags {
            allow_group: true,
            all_user_chat: Toggle::Enabled,
            user_close_pending_ticket: Toggle::Enabled,
            ..UserFlags::default()
        }));
        assert!(flagged.tabs.contains(&TicketTab::Group));
        assert!(flagged.show_all && flagged.close_pending);
        assert!(!flagged.show_all_in_search && !flagged.filter_by_users);
        let admin = inbox_controls(&admin());
        assert!(
            !admin.tabs.contains(&TicketTab::Group),
            "the group tab needs allowGroup"
        );
        assert!(admin.show_all && admin.show_all_in_search && admin.filter_by_users);
        assert!(admin.show_owner && admin.close_pending && admin.close_all);
    }

    #[test]
    fn the_session_user_reads_as_an_actor() {
        let json = r#"{"id":10,"name":"Ana","companyId":1,"profile":"user","super":false,
            "allTicket":"enable","allowGroup":true,"allHistoric":"disabled",
            "allUserChat":"enabled","userClosePendingTicket":"disabled",
            "showDashboard":"disabled","allowRealTime":"disabled",
            "allowConnections":"disabled","queueIds":[1,2]}"#;
        let signed: SignedIn = serde_json::from_str(json).expect("session user");
        let actor = signed.actor();
        assert_eq!(actor.user_id, ME);
        assert_eq!(actor.queue_ids, [SALES, SUPPORT]);
        assert_eq!(actor.flags.all_ticket, AllTicket::Enable);
        assert!(actor.flags.allow_group);
    }
}
