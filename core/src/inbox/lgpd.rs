//! LGPD number masking: with `enableLGPD` and `lgpdHideNumber`, plain users receive contact
//! numbers with every digit hidden except the start and the last 2; groups are never masked.

use crate::identity::Actor;
use crate::inbox::events::RecipientSettings;
use crate::inbox::model::{Contact, Ticket};

/// Masks a number: keeps the first 4 characters and the last 2, hides the rest with `*`.
pub fn mask_number(number: &str) -> String {
    let _ = number;
    todo!("mask")
}

/// Whether `actor` gets masked numbers under `settings`.
pub fn hides_numbers_for(actor: &Actor, settings: RecipientSettings) -> bool {
    let _ = (actor, settings);
    todo!("hides")
}

/// The ticket as `actor` may receive it.
pub fn ticket_for(actor: &Actor, settings: RecipientSettings, ticket: &Ticket) -> Ticket {
    let _ = (actor, settings);
    ticket.clone()
}

/// The contact as `actor` may receive it.
pub fn contact_for(actor: &Actor, settings: RecipientSettings, contact: &Contact) -> Contact {
    let _ = (actor, settings);
    contact.clone()
}
