//! What runs before a human when a contact writes: a flow (a phrase campaign's, the connection's
//! welcome or fallback flow, or the one already running on the ticket) or the queue routing of
//! [`crate::routing`]. Pure: the host gathers [`InboundFacts`], asks [`trigger`], and carries out
//! the answer (`core::service::automation`).
//!
//! The rules, in order (`docs/flows.md`, "Flows on real conversations"):
//! 1. nothing for a message sent from the connected phone, a ticket that is not `pending`, a
//!    ticket an attendant holds, a group ticket on a connection without `groupAsTicket`, or a
//!    contact with `disableBot`;
//! 2. a phrase campaign whose phrase equals the message (trimmed, ignoring case, accents and
//!    repeated spaces), switched on, on this connection or on every connection, starts its flow —
//!    even over a flow already running (the contact asked for it by name);
//! 3. a flow running on the ticket receives the message;
//! 4. an integration holding the conversation (`useIntegration` without a flow) answers it:
//!    the assistant or Typebot a flow handed the conversation to (`core::handoff`), or nothing
//!    when no session is remembered;
//! 5. on a ticket the message created: a contact new to the company meets the connection's
//!    welcome flow (`flowIdWelcome`); otherwise (or without a welcome flow) the fallback flow
//!    (`flowIdNotPhrase`) starts;
//! 6. a ticket some flow already ran on stays with what the flow did (it is waiting for a
//!    person): nothing;
//! 7. otherwise the queue routing decides (greeting, menus, hours, rotation).

use serde::{Deserialize, Serialize};

use crate::flow_ports::{FlowCampaign, FlowId};
use crate::ids::{UserId, WhatsappId};
use crate::inbox::search::normalize;
use crate::ticket::TicketStatus;

/// Why a flow starts on a ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FlowCause {
    /// A phrase campaign's phrase.
    Phrase,
    /// The connection's welcome flow, for a contact new to the company.
    Welcome,
    /// The connection's fallback flow, for a new conversation no phrase matched.
    Fallback,
}

/// What the host knows when a message has been stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundFacts<'a> {
    /// The message was sent from the connected phone.
    pub from_me: bool,
    pub ticket_status: TicketStatus,
    pub ticket_user: Option<UserId>,
    pub is_group: bool,
    /// The connection's `groupAsTicket`.
    pub group_as_ticket: bool,
    /// The contact's `disableBot`.
    pub disable_bot: bool,
    /// The message created the ticket.
    pub ticket_created: bool,
    /// The message created the contact.
    pub contact_created: bool,
    /// A flow runs on the ticket (waiting for a reply or a timer).
    pub flow_running: bool,
    /// Some flow ran on the ticket before (ended).
    pub flow_ran: bool,
    /// `useIntegration`.
    pub use_integration: bool,
    /// An integration session is remembered on the ticket (`core::handoff`).
    pub integration_session: bool,
    /// The message's text (a caption for media).
    pub text: &'a str,
    /// The connection the message arrived on.
    pub connection: WhatsappId,
    /// The connection's `flowIdWelcome`.
    pub welcome_flow: Option<FlowId>,
    /// The connection's `flowIdNotPhrase`.
    pub fallback_flow: Option<FlowId>,
    /// The company's phrase campaigns.
    pub campaigns: &'a [FlowCampaign],
}

/// What to do with the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Trigger {
    /// Nothing before a human.
    Nothing,
    /// Start this flow on the ticket (ending any run there).
    #[serde(rename_all = "camelCase")]
    StartFlow { flow_id: FlowId, cause: FlowCause },
    /// Feed the message to the flow running on the ticket.
    ContinueFlow,
    /// Hand the message to the integration holding the conversation.
    Integration,
    /// Let the queue routing decide.
    Route,
}

/// The campaign whose phrase the message is, if any (see rule 2 of the module). Among several,
/// the one with the lowest id wins.
pub fn matching_campaign<'a>(
    campaigns: &'a [FlowCampaign],
    connection: WhatsappId,
    text: &str,
) -> Option<&'a FlowCampaign> {
    let said = normalize(text);
    if said.is_empty() {
        return None;
    }
    campaigns
        .iter()
        .filter(|c| c.status && c.whatsapp_id.is_none_or(|w| w == connection))
        .filter(|c| normalize(&c.phrase) == said)
        .min_by_key(|c| c.id)
}

/// Whether automation may act on a ticket at all: pending and nobody's yet. [`trigger`]
/// starts with it; the service asks it first, before reading what the other facts need.
pub fn in_bot_hands(status: TicketStatus, user: Option<UserId>) -> bool {
    status == TicketStatus::Pending && user.is_none()
}

/// Decides what runs before a human (the rules of the module, in order).
pub fn trigger(facts: &InboundFacts<'_>) -> Trigger {
    if facts.from_me
        || !in_bot_hands(facts.ticket_status, facts.ticket_user)
        || (facts.is_group && !facts.group_as_ticket)
        || facts.disable_bot
    {
        return Trigger::Nothing;
    }
    if let Some(campaign) = matching_campaign(facts.campaigns, facts.connection, facts.text) {
        return Trigger::StartFlow {
            flow_id: campaign.flow_id,
            cause: FlowCause::Phrase,
        };
    }
    if facts.flow_running {
        return Trigger::ContinueFlow;
    }
    if facts.use_integration {
        return if facts.integration_session {
            Trigger::Integration
        } else {
            Trigger::Nothing
        };
    }
    if facts.ticket_created {
        if facts.contact_created
            && let Some(flow_id) = facts.welcome_flow
        {
            return Trigger::StartFlow {
                flow_id,
                cause: FlowCause::Welcome,
            };
        }
        if let Some(flow_id) = facts.fallback_flow {
            return Trigger::StartFlow {
                flow_id,
                cause: FlowCause::Fallback,
            };
        }
    }
    if facts.flow_ran {
        return Trigger::Nothing;
    }
    Trigger::Route
}

/// The seed of a flow run on a ticket: the ticket's uuid folded to 64 bits, mixed with the
/// number of runs the ticket had, so a run is reproducible from what is stored and two tickets
/// rarely draw alike.
pub fn run_seed(ticket_uuid: uuid::Uuid, runs_before: u64) -> u64 {
    let (high, low) = ticket_uuid.as_u64_pair();
    (high ^ low).wrapping_add(runs_before.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow_ports::FlowCampaignId;

    fn campaign(id: i64, flow: i64, whatsapp: Option<i64>, phrase: &str, on: bool) -> FlowCampaign {
        FlowCampaign {
            id: FlowCampaignId(id),
            name: format!("c{id}"),
            flow_id: FlowId(flow),
            whatsapp_id: whatsapp.map(WhatsappId),
            phrase: phrase.to_owned(),
            status: on,
        }
    }

    fn facts<'a>(text: &'a str, campaigns: &'a [FlowCampaign]) -> InboundFacts<'a> {
        InboundFacts {
            from_me: false,
            ticket_status: TicketStatus::Pending,
            ticket_user: None,
            is_group: false,
            group_as_ticket: false,
            disable_bot: false,
            ticket_created: true,
            contact_created: true,
            flow_running: false,
            flow_ran: false,
            use_integration: false,
            integration_session: false,
            text,
            connection: WhatsappId(1),
            welcome_flow: None,
            fallback_flow: None,
            campaigns,
        }
    }

    #[test]
    fn nothing_runs_when_a_person_holds_the_ticket_or_the_bot_may_not_speak() {
        let base = facts("oi", &[]);
        let cases = [
            InboundFacts {
                from_me: true,
                ..base.clone()
            },
            InboundFacts {
                ticket_status: TicketStatus::Open,
                ..base.clone()
            },
            InboundFacts {
                ticket_user: Some(UserId(4)),
                ..base.clone()
            },
            InboundFacts {
                is_group: true,
                ..base.clone()
            },
            InboundFacts {
                disable_bot: true,
                ..base.clone()
            },
        ];
        for case in cases {
            assert_eq!(trigger(&case), Trigger::Nothing, "{case:?}");
        }
        assert_eq!(
            trigger(&InboundFacts {
                is_group: true,
                group_as_ticket: true,
                ..base
            }),
            Trigger::Route
        );
    }

    #[test]
    fn a_phrase_matches_ignoring_case_accents_and_spaces_on_its_connection() {
        let campaigns = [
            campaign(1, 10, Some(2), "promoção", true),
            campaign(2, 11, None, "Quero  Comprar", true),
            campaign(3, 12, None, "desligada", false),
        ];
        let start = |flow| Trigger::StartFlow {
            flow_id: FlowId(flow),
            cause: FlowCause::Phrase,
        };
        assert_eq!(trigger(&facts("  quero comprar ", &campaigns)), start(11));
        // Campaign 1 listens on connection 2 only.
        assert_eq!(trigger(&facts("PROMOCAO", &campaigns)), Trigger::Route);
        assert_eq!(
            trigger(&InboundFacts {
                connection: WhatsappId(2),
                ..facts("PROMOCAO", &campaigns)
            }),
            start(10)
        );
        // Switched off, or only part of the message: no match.
        assert_eq!(trigger(&facts("desligada", &campaigns)), Trigger::Route);
        assert_eq!(
            trigger(&facts("quero comprar agora", &campaigns)),
            Trigger::Route
        );
        assert_eq!(matching_campaign(&campaigns, WhatsappId(1), "   "), None);
    }

    #[test]
    fn a_phrase_replaces_a_running_flow_which_otherwise_gets_the_message() {
        let campaigns = [campaign(1, 10, None, "menu", true)];
        let running = InboundFacts {
            flow_running: true,
            ticket_created: false,
            ..facts("1", &campaigns)
        };
        assert_eq!(trigger(&running), Trigger::ContinueFlow);
        assert_eq!(
            trigger(&InboundFacts {
                text: "Menu",
                ..running
            }),
            Trigger::StartFlow {
                flow_id: FlowId(10),
                cause: FlowCause::Phrase
            }
        );
    }

    #[test]
    fn welcome_greets_new_contacts_and_fallback_new_conversations() {
        let base = InboundFacts {
            welcome_flow: Some(FlowId(5)),
            fallback_flow: Some(FlowId(6)),
            ..facts("olá", &[])
        };
        assert_eq!(
            trigger(&base),
            Trigger::StartFlow {
                flow_id: FlowId(5),
                cause: FlowCause::Welcome
            }
        );
        let known = InboundFacts {
            contact_created: false,
            ..base.clone()
        };
        assert_eq!(
            trigger(&known),
            Trigger::StartFlow {
                flow_id: FlowId(6),
                cause: FlowCause::Fallback
            }
        );
        let no_welcome = InboundFacts {
            welcome_flow: None,
            ..base.clone()
        };
        assert_eq!(
            trigger(&no_welcome),
            Trigger::StartFlow {
                flow_id: FlowId(6),
                cause: FlowCause::Fallback
            }
        );
        // A later message of the same conversation starts nothing new.
        let later = InboundFacts {
            ticket_created: false,
            flow_ran: true,
            ..base
        };
        assert_eq!(trigger(&later), Trigger::Nothing);
    }

    #[test]
    fn integrations_keep_their_conversations_and_routing_takes_the_rest() {
        let base = InboundFacts {
            ticket_created: false,
            ..facts("2", &[])
        };
        assert_eq!(trigger(&base), Trigger::Route);
        assert_eq!(
            trigger(&InboundFacts {
                use_integration: true,
                ..base
            }),
            Trigger::Nothing
        );
        let session = InboundFacts {
            use_integration: true,
            integration_session: true,
            ..base
        };
        assert_eq!(trigger(&session), Trigger::Integration);
        // A running flow and a phrase campaign come before the integration.
        assert_eq!(
            trigger(&InboundFacts {
                flow_running: true,
                ..session
            }),
            Trigger::ContinueFlow
        );
        let campaigns = [campaign(1, 9, None, "promo", true)];
        assert!(matches!(
            trigger(&InboundFacts {
                campaigns: &campaigns,
                text: "Promo",
                ..session
            }),
            Trigger::StartFlow { .. }
        ));
        // A session the contact may not talk to (disableBot, a person took it) gets nothing.
        assert_eq!(
            trigger(&InboundFacts {
                disable_bot: true,
                ..session
            }),
            Trigger::Nothing
        );
    }

    #[test]
    fn seeds_are_stable_and_differ_between_runs() {
        let uuid = uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        assert_eq!(run_seed(uuid, 0), run_seed(uuid, 0));
        assert_ne!(run_seed(uuid, 0), run_seed(uuid, 1));
    }
}
