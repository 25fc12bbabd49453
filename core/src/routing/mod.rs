//! Routing before a human: what happens to an inbound message on a ticket that no attendant
//! holds yet (spec 2 "Queues", §3, §9; spec 1 §3-§4).
//!
//! Everything here is pure: time arrives as a `DateTime<Utc>` argument and the company's zone as
//! a [`chrono_tz::Tz`]; rotation is deterministic. The host loads a [`RoutingInput`], calls
//! [`decide`] (or [`on_timer`] when a routing timer falls due) and carries out the
//! [`RoutingEffect`]s in order; timers become durable jobs.
//!
//! - [`hours`]: working hours (shifts A and B per weekday, in the company's zone), the next
//!   opening, which schedule `scheduleType` selects, collective vacation, row validation.
//! - [`menu`]: menu texts, reply matching (number or text, accent- and case-insensitive), the
//!   bot's memory on a ticket ([`BotState`]) addressing nested options by a path of indexes.
//! - [`rotation`]: the fair, predictable choice of an attendant (round robin or least-loaded,
//!   online only, optional cap).
//! - [`decide`](mod@decide): the decision and the timers.
//!
//! The rules in plain words, with the choices made where the specification is silent, are in
//! `docs/routing.md`.

pub mod decide;
pub mod hours;
pub mod menu;
pub mod rotation;

#[cfg(test)]
mod decide_tests;

pub use decide::{
    QueueSnapshot, RoutingConnection, RoutingContact, RoutingDecision, RoutingEffect, RoutingInput,
    RoutingSettings, RoutingTicket, TimerKind, WalletOwner, decide, flow_moved_to_queue, on_timer,
};
pub use hours::{applicable_schedule, in_vacation, is_open, next_opening, parse_time_zone};
pub use menu::{BotStage, BotState, MenuChoice, MenuLabels};
pub use rotation::{Candidate, RotationStrategy, pick_attendant};
