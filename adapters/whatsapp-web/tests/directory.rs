//! The directory's mapping: what the phone's address book (app-state `ContactUpdate`), its
//! history (one-to-one conversations, push names) and changed push names tell about people,
//! and how a sighting changes a stored entry. Pure: constructed library events, no store (the
//! store's side is in `storage.rs`, the whole path through the provider in `supervisor.rs`).

use chatflow_whatsapp_web::directory::{
    DirectoryEntry, NameSource, Own, Sighting, concerns, merge, sightings,
};
use chatflow_whatsapp_web::fake::{FakeHistory, HistoryMessage, contact_update, push_name_update};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::Event;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::history_sync::HistorySyncType;
use chrono::{DateTime, TimeZone, Utc};

const ANA: &str = "5511999990000";
const OWN: &str = "5511988887777";
const OWN_LID: &str = "99887766";

fn jid(text: &str) -> Jid {
    text.parse().expect("an address")
}

fn pn(number: &str) -> Jid {
    jid(&format!("{number}@s.whatsapp.net"))
}

fn at(day: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, day, 12, 0, 0)
        .single()
        .expect("a time")
}

fn own() -> Own {
    Own {
        number: Some(OWN.to_owned()),
        lid: Some(OWN_LID.to_owned()),
    }
}

const NOW: i64 = 1_800_000_000;

fn seen(event: &Event) -> Vec<Sighting> {
    sightings(event, &own(), NOW)
}

/// What a list of sightings says, in short: (key, LID, name, source, adds).
fn short(found: &[Sighting]) -> Vec<(&str, Option<&str>, &str, NameSource, bool)> {
    found
        .iter()
        .map(|s| {
            (
                s.chat.as_str(),
                s.lid.as_deref(),
                s.name.as_str(),
                s.source,
                s.adds,
            )
        })
        .collect()
}

#[test]
fn an_address_book_contact_with_a_full_name() {
    let event = contact_update(&pn(ANA), Some("Ana Souza"), Some("Ana"), None, at(1));
    assert!(concerns(&event));
    let found = seen(&event);
    assert_eq!(
        short(&found),
        [(ANA, None, "Ana Souza", NameSource::Book, true)]
    );
    assert_eq!(found[0].at, at(1).timestamp());
}

#[test]
fn an_address_book_contact_with_only_a_first_name() {
    let event = contact_update(&pn(ANA), Some("  "), Some("Ana"), None, at(1));
    assert_eq!(
        short(&seen(&event)),
        [(ANA, None, "Ana", NameSource::Book, true)]
    );
    // No name at all: the person is still the phone's contact, nameless.
    let event = contact_update(&pn(ANA), None, None, None, at(1));
    assert_eq!(
        short(&seen(&event)),
        [(ANA, None, "", NameSource::Book, true)]
    );
}

#[test]
fn a_lid_contact_is_keyed_by_the_number_it_names() {
    let lid = jid("123456789012345@lid");
    let event = contact_update(&lid, Some("Bruno"), None, Some(&pn("5511977776666")), at(2));
    assert_eq!(
        short(&seen(&event)),
        [(
            "5511977776666",
            Some("123456789012345"),
            "Bruno",
            NameSource::Book,
            true
        )]
    );
    // A number whose entry names the LID keeps it too.
    let event = contact_update(&pn(ANA), Some("Ana"), None, Some(&lid), at(2));
    assert_eq!(
        short(&seen(&event)),
        [(ANA, Some("123456789012345"), "Ana", NameSource::Book, true)]
    );
    // A LID without its number stays under the LID (the store resolves it when it can).
    let event = contact_update(&lid, Some("Bruno"), None, None, at(2));
    assert_eq!(
        short(&seen(&event)),
        [(
            "123456789012345@lid",
            Some("123456789012345"),
            "Bruno",
            NameSource::Book,
            true
        )]
    );
}

#[test]
fn groups_broadcasts_newsletters_and_our_own_number_are_left_out() {
    for address in [
        "120363000000000001@g.us",
        "status@broadcast",
        "120363000000000002@newsletter",
    ] {
        let event = contact_update(&jid(address), Some("Not a person"), None, None, at(1));
        assert_eq!(seen(&event), [], "{address}");
    }
    let ours = contact_update(&pn(OWN), Some("Me"), None, None, at(1));
    assert_eq!(seen(&ours), []);
    let ours_by_lid = contact_update(
        &jid(&format!("{OWN_LID}@lid")),
        Some("Me"),
        None,
        None,
        at(1),
    );
    assert_eq!(seen(&ours_by_lid), []);
    // Without knowing our own identities, the same number would be taken.
    assert_eq!(sightings(&ours, &Own::default(), NOW).len(), 1);
}

#[test]
fn a_push_name_adds_from_a_one_to_one_chat_and_only_renames_from_a_group() {
    let ana = pn(ANA);
    let direct = push_name_update(&ana, &ana, "Aninha", at(3));
    assert_eq!(
        short(&seen(&direct)),
        [(ANA, None, "Aninha", NameSource::Push, true)]
    );
    let group = push_name_update(&ana, &jid("120363000000000001@g.us"), "Aninha", at(3));
    assert_eq!(
        short(&seen(&group)),
        [(ANA, None, "Aninha", NameSource::Push, false)]
    );
}

#[test]
fn a_push_name_does_not_override_an_address_book_name() {
    let book = &seen(&contact_update(
        &pn(ANA),
        Some("Ana Souza"),
        None,
        None,
        at(5),
    ))[0];
    let push = &seen(&push_name_update(&pn(ANA), &pn(ANA), "Aninha", at(1)))[0];
    let stored = merge(None, book).expect("added");
    assert_eq!(
        stored,
        DirectoryEntry {
            name: "Ana Souza".to_owned(),
            lid: None,
            from: NameSource::Book,
            at: at(5).timestamp(),
        }
    );
    // The push name keeps the address-book name; only the earlier time is taken.
    let after_push = merge(Some(&stored), push).expect("an earlier time");
    assert_eq!(after_push.name, "Ana Souza");
    assert_eq!(after_push.from, NameSource::Book);
    assert_eq!(after_push.at, at(1).timestamp());
    // A later address-book name replaces the name, and keeps the first time seen.
    let renamed = &seen(&contact_update(
        &pn(ANA),
        Some("Ana S. Lima"),
        None,
        None,
        at(9),
    ))[0];
    let after_rename = merge(Some(&after_push), renamed).expect("renamed");
    assert_eq!(after_rename.name, "Ana S. Lima");
    assert_eq!(after_rename.at, at(1).timestamp());
    // The same again changes nothing; a nameless entry never erases a name.
    assert_eq!(merge(Some(&after_rename), renamed), None);
    let nameless = &seen(&contact_update(&pn(ANA), None, None, None, at(9)))[0];
    assert_eq!(merge(Some(&after_rename), nameless), None);
    // A push name names a person known without a name, and a push name seen in a group adds
    // nobody.
    let unnamed = merge(None, nameless).expect("added");
    assert_eq!(merge(Some(&unnamed), push).expect("named").name, "Aninha");
    let from_group = &seen(&push_name_update(
        &pn(ANA),
        &jid("120363000000000001@g.us"),
        "Aninha",
        at(1),
    ))[0];
    assert_eq!(merge(None, from_group), None);
}

#[test]
fn the_history_brings_one_to_one_chats_and_renames_by_push_names() {
    let ana = pn(ANA);
    let bruno_lid = jid("123456789012345@lid");
    let bruno = pn("5511977776666");
    let carla = pn("5511966665555");
    let group = jid("120363000000000001@g.us");
    let event = FakeHistory::new()
        .message(HistoryMessage::text(&ana, "3EB0A1", "oi", at(4)).named("Ana Push"))
        .chat_at(&ana, at(4))
        .chat_name(&bruno_lid, "Bruno Lima")
        .chat_at(&bruno_lid, at(2))
        .lid_mapping(&bruno_lid, &bruno)
        .message(HistoryMessage::text(&group, "3EB0G1", "todos", at(3)).by(&carla))
        .chat_name(&group, "Equipe")
        .message(HistoryMessage::text(&pn(OWN), "3EB0ME", "nota", at(3)).from_me())
        .event();
    assert!(concerns(&event));
    let found = seen(&event);
    assert_eq!(
        short(&found),
        [
            (ANA, None, "Ana Push", NameSource::Push, true),
            (
                "5511977776666",
                Some("123456789012345"),
                "Bruno Lima",
                NameSource::Chat,
                true
            ),
        ]
    );
    assert_eq!(found[0].at, at(4).timestamp());
    assert_eq!(found[1].at, at(2).timestamp());

    // A part of push names renames people only.
    let names = FakeHistory::of_type(HistorySyncType::PUSH_NAME)
        .push_name(&carla, "Carla")
        .push_name(&group, "Not a person")
        .event();
    assert!(concerns(&names));
    assert_eq!(
        short(&seen(&names)),
        [("5511966665555", None, "Carla", NameSource::Push, false)]
    );
}

#[test]
fn other_events_concern_the_directory_not() {
    let event = FakeHistory::of_type(HistorySyncType::NON_BLOCKING_DATA).event();
    assert!(!concerns(&event));
    assert_eq!(seen(&event), []);
}
