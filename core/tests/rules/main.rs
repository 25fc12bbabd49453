//! Integration and property tests of the core's rules, compiled as one test binary.
//!
//! Each module exercises one area through the crate's public API only: the ticket state machine
//! ([`ticket`]), renewal and subscription math ([`tenancy`]), the policy and the capability list
//! ([`policy`]), the inbox's visibility, masking, message and ingestion rules ([`inbox`]),
//! validation ([`validation`]), and the web app's copy of the catalogues
//! ([`web_catalogue`]).

mod events;
mod inbox;
mod policy;
mod tenancy;
mod ticket;
mod validation;
mod web_catalogue;
