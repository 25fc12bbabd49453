//! LGPD number masking: with `enableLGPD` and `lgpdHideNumber`, plain users receive contact
//! numbers with every digit hidden except the start and the last 2; groups are never masked.

use crate::events::RecipientSettings;
use crate::identity::Actor;
use crate::inbox::model::{Contact, Ticket};

/// Masks a number: keeps the first 4 characters and the last 2, hides the rest with `*`.
/// Numbers of 6 characters or fewer have nothing in between and are returned unchanged.
pub fn mask_number(number: &str) -> String {
    let chars: Vec<char> = number.chars().collect();
    let len = chars.len();
    if len <= 6 {
        return number.to_owned();
    }
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| if i < 4 || i >= len - 2 { *c } else { '*' })
        .collect()
}

/// Whether `actor` gets masked numbers under `settings`: plain users only (admins and the super
/// user always see numbers).
pub fn hides_numbers_for(actor: &Actor, settings: RecipientSettings) -> bool {
    settings.hide_numbers && !actor.is_admin() && !actor.is_super
}

/// The ticket as `actor` may receive it.
pub fn ticket_for(actor: &Actor, settings: RecipientSettings, ticket: &Ticket) -> Ticket {
    let mut out = ticket.clone();
    if hides_numbers_for(actor, settings) && !ticket.contact.is_group {
        out.contact.number = mask_number(&ticket.contact.number);
    }
    out
}

/// The contact as `actor` may receive it.
pub fn contact_for(actor: &Actor, settings: RecipientSettings, contact: &Contact) -> Contact {
    let mut out = contact.clone();
    if hides_numbers_for(actor, settings) && !contact.is_group {
        out.number = mask_number(&contact.number);
    }
    out
}

/// A contact's other identities (`aliases`) as `actor` may receive them: masked like its
/// number.
pub fn aliases_for(
    actor: &Actor,
    settings: RecipientSettings,
    contact: &Contact,
    aliases: Vec<String>,
) -> Vec<String> {
    if hides_numbers_for(actor, settings) && !contact.is_group {
        aliases
            .into_iter()
            .map(|alias| mask_number(&alias))
            .collect()
    } else {
        aliases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_the_middle() {
        assert_eq!(mask_number("5511987654321"), "5511*******21");
        assert_eq!(mask_number("123456"), "123456");
        assert_eq!(mask_number("1234567"), "1234*67");
        assert_eq!(mask_number(""), "");
    }
}
