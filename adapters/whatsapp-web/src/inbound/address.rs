//! Our chat strings for WhatsApp addresses (JIDs), and back.
//!
//! - **A person known by phone number** is the number, digits only (`5511999990000`): the
//!   `@s.whatsapp.net` server and any `:device` are dropped. This is the form the inbox stores
//!   numbers in, so a contact written to by the inbox and the same contact writing in meet.
//! - **A person known only by their LID** (WhatsApp's privacy-preserving id) keeps its server,
//!   `123456789@lid`, so it is never taken for a phone number (the inbox keeps a number that is
//!   not digits as given). When WhatsApp tells both, the phone number wins ([`preferred_chat`]).
//! - **A group** is its address as WhatsApp gives it, `120363000000000001@g.us`.
//!
//! Other addresses (status updates, newsletters, bots, calls) are no chat of the inbox.
//! [`jid_of`] is the inverse, for sending.

use whatsapp_rust::{Jid, Server};

/// The chat string of `jid` (see the module's documentation); `None` for addresses that are no
/// chat of the inbox.
pub fn chat_of(jid: &Jid) -> Option<String> {
    match jid.server {
        Server::Pn | Server::Hosted | Server::Legacy => phone_digits(jid),
        Server::Lid | Server::HostedLid | Server::Group => Some(jid.to_non_ad_string()),
        _ => None,
    }
}

/// The phone number of a phone-number address, digits only, without its device; `None` for
/// other addresses.
pub fn phone_digits(jid: &Jid) -> Option<String> {
    if !matches!(jid.server, Server::Pn | Server::Hosted | Server::Legacy) {
        return None;
    }
    let digits: String = jid
        .user_base()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then_some(digits)
}

/// The chat string of a person addressed as `primary`, preferring a phone number: when
/// `primary` is a LID, the first phone-number address among `alternatives` (the other identity
/// WhatsApp sent along) is used instead.
pub fn preferred_chat<'a>(
    primary: &Jid,
    alternatives: impl IntoIterator<Item = Option<&'a Jid>>,
) -> Option<String> {
    if primary.server.is_lid_family()
        && let Some(number) = alternatives.into_iter().flatten().find_map(phone_digits)
    {
        return Some(number);
    }
    chat_of(primary)
}

/// A person's chat string ([`preferred_chat`]) and their other identities WhatsApp sent along
/// (the LID of a person known by phone number, or the other way round): the message's aliases,
/// which keep one person one contact. `None` when `primary` is no chat of the inbox.
pub fn person<'a>(
    primary: &'a Jid,
    alternatives: impl IntoIterator<Item = Option<&'a Jid>>,
) -> Option<(String, Vec<String>)> {
    let alternatives: Vec<&Jid> = alternatives.into_iter().flatten().collect();
    let chat = preferred_chat(primary, alternatives.iter().copied().map(Some))?;
    let mut aliases: Vec<String> = Vec::new();
    for jid in std::iter::once(primary).chain(alternatives) {
        if jid.server == Server::Group {
            continue;
        }
        if let Some(identity) = chat_of(jid)
            && identity != chat
            && !aliases.contains(&identity)
        {
            aliases.push(identity);
        }
    }
    Some((chat, aliases))
}

/// The address of a chat string (the inverse of [`chat_of`]): digits are a phone number
/// (formatting such as `+`, spaces, dashes and parentheses is ignored), `…@lid` a LID and
/// `…@g.us` a group. `None` for anything else.
pub fn jid_of(chat: &str) -> Option<Jid> {
    let chat = chat.trim();
    if let Some((user, server)) = chat.split_once('@') {
        let server = Server::parse_known(server)?;
        if user.is_empty() || !matches!(server, Server::Lid | Server::HostedLid | Server::Group) {
            return None;
        }
        return Some(Jid::new(user, server));
    }
    let mut digits = String::with_capacity(chat.len());
    for c in chat.chars() {
        match c {
            '0'..='9' => digits.push(c),
            '+' | ' ' | '-' | '(' | ')' | '.' => {}
            _ => return None,
        }
    }
    (!digits.is_empty()).then(|| Jid::pn(digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jid(s: &str) -> Jid {
        s.parse().expect("a valid address")
    }

    #[test]
    fn numbers_are_digits_without_server_or_device() {
        assert_eq!(
            chat_of(&jid("5511999990000@s.whatsapp.net")).as_deref(),
            Some("5511999990000")
        );
        assert_eq!(
            chat_of(&jid("5511999990000:12@s.whatsapp.net")).as_deref(),
            Some("5511999990000")
        );
        assert_eq!(
            chat_of(&jid("5511999990000@c.us")).as_deref(),
            Some("5511999990000")
        );
    }

    #[test]
    fn lids_and_groups_keep_their_server() {
        assert_eq!(
            chat_of(&jid("123456789:3@lid")).as_deref(),
            Some("123456789@lid")
        );
        assert_eq!(
            chat_of(&jid("120363000000000001@g.us")).as_deref(),
            Some("120363000000000001@g.us")
        );
    }

    #[test]
    fn status_newsletters_and_bots_are_no_chat() {
        assert_eq!(chat_of(&jid("status@broadcast")), None);
        assert_eq!(chat_of(&jid("120363999@newsletter")), None);
        assert_eq!(chat_of(&jid("867051314767696@bot")), None);
    }

    #[test]
    fn a_person_keeps_the_identities_that_did_not_win_as_aliases() {
        let lid = jid("123456789@lid");
        let pn = jid("5511999990000@s.whatsapp.net");
        assert_eq!(
            person(&lid, [Some(&pn)]),
            Some(("5511999990000".to_owned(), vec!["123456789@lid".to_owned()]))
        );
        assert_eq!(
            person(&pn, [Some(&lid), None, Some(&lid)]),
            Some(("5511999990000".to_owned(), vec!["123456789@lid".to_owned()]))
        );
        assert_eq!(
            person(&lid, [None]),
            Some(("123456789@lid".to_owned(), vec![]))
        );
        assert_eq!(person(&jid("status@broadcast"), [Some(&pn)]), None);
    }

    #[test]
    fn a_phone_number_alias_wins_over_a_lid() {
        let lid = jid("123456789@lid");
        let pn = jid("5511999990000:2@s.whatsapp.net");
        assert_eq!(
            preferred_chat(&lid, [None, Some(&pn)]).as_deref(),
            Some("5511999990000")
        );
        assert_eq!(
            preferred_chat(&lid, [None]).as_deref(),
            Some("123456789@lid")
        );
        // A number stays a number whatever comes along.
        assert_eq!(
            preferred_chat(&pn, [Some(&lid)]).as_deref(),
            Some("5511999990000")
        );
    }

    #[test]
    fn chat_strings_turn_back_into_addresses() {
        assert_eq!(
            jid_of("+55 (11) 99999-0000"),
            Some(jid("5511999990000@s.whatsapp.net"))
        );
        assert_eq!(jid_of("123456789@lid"), Some(jid("123456789@lid")));
        assert_eq!(
            jid_of("120363000000000001@g.us"),
            Some(jid("120363000000000001@g.us"))
        );
        for chat in ["", "abc", "status@broadcast", "@lid", "5511@example.org"] {
            assert_eq!(jid_of(chat), None, "{chat:?}");
        }
        for chat in ["5511999990000", "123456789@lid", "120363000000000001@g.us"] {
            let back = jid_of(chat).and_then(|j| chat_of(&j));
            assert_eq!(back.as_deref(), Some(chat));
        }
    }
}
