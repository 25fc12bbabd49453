//! Rules of the inbox: ticket visibility (a table over profiles and flags), the inbox filter
//! agreeing with visibility, LGPD masking, message rules, and ingestion as a model: unread counts
//! never go negative and equal the inbound messages since the last reset, and at most one ticket
//! per contact and connection is ever not closed.

use chatflow_core::ErrorCode;
use chatflow_core::events::RecipientSettings;
use chatflow_core::identity::{Actor, AllTicket, Profile, Toggle, UserFlags};
use chatflow_core::ids::{CompanyId, ContactId, MessageId, QueueId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::channel::{InboundMessage, QuotedContent};
use chatflow_core::inbox::ingest::{
    IngestContext, IngestPlan, LastMessageSource, TicketPlan, decide, last_message_preview,
};
use chatflow_core::inbox::lgpd::{aliases_for, hides_numbers_for, mask_number, ticket_for};
use chatflow_core::inbox::messages::{may_delete, may_edit, signed_body, validate_body};
use chatflow_core::inbox::model::{
    Connection, ConnectionStatus, Contact, MediaType, Message, ProviderKind, Ticket, TicketContact,
    TicketQuery,
};
use chatflow_core::inbox::visibility::{may_see_ticket, ticket_filter};
use chatflow_core::ports::ChannelKind;
use chatflow_core::ticket::{TicketLogType, TicketStatus};
use chrono::{TimeDelta, TimeZone, Utc};
use proptest::prelude::*;

const HOME: CompanyId = CompanyId(2);
const OTHER: CompanyId = CompanyId(3);
const SALES: QueueId = QueueId(5);
const SUPPORT: QueueId = QueueId(6);
const ME: UserId = UserId(10);
const COLLEAGUE: UserId = UserId(11);

fn actor(profile: Profile, flags: UserFlags) -> Actor {
    Actor {
        user_id: ME,
        company_id: HOME,
        profile,
        is_super: false,
        flags,
        queue_ids: vec![SALES],
    }
}

fn ticket(
    status: TicketStatus,
    queue: Option<QueueId>,
    user: Option<UserId>,
    group: bool,
) -> Ticket {
    let at = Utc
        .with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
        .single()
        .expect("time");
    Ticket {
        id: TicketId(1),
        uuid: uuid::Uuid::nil(),
        company_id: HOME,
        status,
        unread_messages: 0,
        last_message: String::new(),
        last_message_id: None,
        last_message_deleted: false,
        last_message_from_me: false,
        last_message_media: None,
        is_group: group,
        is_bot: false,
        channel: ChannelKind::Whatsapp,
        user_id: user,
        queue_id: queue,
        whatsapp_id: Some(WhatsappId(1)),
        contact_id: ContactId(1),
        amount_used_bot_queues: 0,
        use_integration: false,
        is_transferred: false,
        contact: TicketContact {
            id: ContactId(1),
            name: "Ana".into(),
            number: if group {
                "1203630@g.us".into()
            } else {
                "5511987654321".into()
            },
            url_picture: None,
            channel: ChannelKind::Whatsapp,
            is_group: group,
            active: true,
            tags: vec![],
        },
        queue: None,
        user: None,
        whatsapp: None,
        tags: vec![],
        created_at: at,
        updated_at: at,
    }
}

fn flags(
    all_ticket: bool,
    allow_group: bool,
    all_user_chat: bool,
    all_historic: bool,
) -> UserFlags {
    let on = |b: bool| if b { Toggle::Enabled } else { Toggle::Disabled };
    UserFlags {
        all_ticket: if all_ticket {
            AllTicket::Enable
        } else {
            AllTicket::Disable
        },
        allow_group,
        all_user_chat: on(all_user_chat),
        all_historic: on(all_historic),
        ..UserFlags::default()
    }
}

#[test]
fn visibility_table() {
    use TicketStatus::*;
    let plain = actor(Profile::User, flags(false, false, false, false));
    let every_flag = actor(Profile::User, flags(true, true, true, true));
    let admin = actor(Profile::Admin, flags(false, false, false, false));
    // (ticket, plain user, user with every flag, admin)
    let table = [
        (ticket(Pending, Some(SALES), None, false), true, true, true),
        (
            ticket(Pending, Some(SUPPORT), None, false),
            false,
            false,
            true,
        ),
        (ticket(Pending, None, None, false), false, true, true),
        (ticket(Open, Some(SALES), Some(ME), false), true, true, true),
        (
            ticket(Open, Some(SALES), Some(COLLEAGUE), false),
            false,
            true,
            true,
        ),
        (
            ticket(Open, Some(SUPPORT), Some(ME), false),
            true,
            true,
            true,
        ),
        (ticket(Pending, Some(SALES), None, true), false, true, true),
        (
            ticket(Group, Some(SALES), Some(COLLEAGUE), true),
            false,
            true,
            true,
        ),
        (
            ticket(Closed, Some(SALES), Some(COLLEAGUE), false),
            true,
            true,
            true,
        ),
        (
            ticket(Closed, Some(SUPPORT), Some(COLLEAGUE), false),
            false,
            true,
            true,
        ),
    ];
    for (i, (t, p, e, a)) in table.iter().enumerate() {
        assert_eq!(may_see_ticket(&plain, t), *p, "row {i}: plain user");
        assert_eq!(
            may_see_ticket(&every_flag, t),
            *e,
            "row {i}: user with every flag"
        );
        assert_eq!(may_see_ticket(&admin, t), *a, "row {i}: admin");
        let mut foreign = t.clone();
        foreign.company_id = OTHER;
        assert!(
            !may_see_ticket(&admin, &foreign),
            "row {i}: another company"
        );
    }
}

fn status() -> impl Strategy<Value = TicketStatus> {
    prop::sample::select(TicketStatus::ALL.to_vec())
}

proptest! {
    /// Whatever the query, what the inbox filter admits is a ticket the user may see.
    #[test]
    fn filter_never_admits_an_invisible_ticket(
        profile in prop_oneof![Just(Profile::Admin), Just(Profile::User)],
        f in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        show_all in any::<bool>(),
        statuses in prop::collection::vec(status(), 0..3),
        picked in prop::collection::vec((4i64..8).prop_map(QueueId), 0..3),
        st in status(),
        queue in prop::option::of((4i64..8).prop_map(QueueId)),
        user in prop::option::of((10i64..13).prop_map(UserId)),
        group in any::<bool>(),
    ) {
        let who = actor(profile, flags(f.0, f.1, f.2, f.3));
        let query = TicketQuery { statuses, show_all, queue_ids: picked, ..TicketQuery::default() };
        let filter = ticket_filter(&who, &query);
        let t = ticket(st, queue, user, group);
        if filter.admits(&t) {
            prop_assert!(may_see_ticket(&who, &t), "{filter:?} admitted {t:?}");
        }
    }
}

#[test]
fn lgpd_masks_plain_users_only_and_never_groups() {
    let on = RecipientSettings { hide_numbers: true };
    let plain = actor(Profile::User, UserFlags::default());
    let admin = actor(Profile::Admin, UserFlags::default());
    assert!(hides_numbers_for(&plain, on));
    assert!(!hides_numbers_for(&admin, on));
    assert!(!hides_numbers_for(&plain, RecipientSettings::default()));
    let one = ticket(TicketStatus::Open, None, None, false);
    assert_eq!(ticket_for(&plain, on, &one).contact.number, "5511*******21");
    assert_eq!(ticket_for(&admin, on, &one).contact.number, "5511987654321");
    let group = ticket(TicketStatus::Group, None, None, true);
    assert_eq!(
        ticket_for(&plain, on, &group).contact.number,
        "1203630@g.us"
    );
    assert_eq!(mask_number("+5511"), "+5511");
    // A contact's other identities are masked like its number; a group's are not.
    let ana = contact("Ana");
    let aliases = || vec!["201234567890123@lid".to_owned(), "5511977776666".to_owned()];
    assert_eq!(
        aliases_for(&plain, on, &ana, aliases()),
        ["2012*************id", "5511*******66"]
    );
    assert_eq!(aliases_for(&admin, on, &ana, aliases()), aliases());
    assert_eq!(
        aliases_for(&plain, RecipientSettings::default(), &ana, aliases()),
        aliases()
    );
    let team = Contact {
        is_group: true,
        ..contact("Equipe")
    };
    assert_eq!(aliases_for(&plain, on, &team, aliases()), aliases());
}

fn message(user: Option<UserId>, minutes_ago: i64) -> Message {
    let now = Utc
        .with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
        .single()
        .expect("time");
    Message {
        id: MessageId(1),
        ticket_id: TicketId(1),
        contact_id: None,
        whatsapp_id: None,
        external_id: None,
        body: "hi".into(),
        from_me: true,
        read: true,
        is_private: false,
        is_deleted: false,
        is_edited: false,
        is_forwarded: false,
        media_type: MediaType::Chat,
        media_url: None,
        media_name: None,
        quoted_msg: None,
        ack: 1,
        media_error: None,
        delivery_issue: None,
        reactions: vec![],
        user_id: user,
        participant: None,
        created_at: now - TimeDelta::minutes(minutes_ago),
        updated_at: now,
    }
}

#[test]
fn message_rules() {
    let now = Utc
        .with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
        .single()
        .expect("time");
    let me = actor(Profile::Admin, UserFlags::default());
    assert_eq!(
        validate_body("  \n", false).expect_err("empty").code,
        ErrorCode::ERR_VALIDATION
    );
    assert!(validate_body("", true).is_ok());
    assert_eq!(signed_body("hello", "Ana", true, true), "*Ana*:\nhello");
    assert_eq!(signed_body("hello", "Ana", true, false), "hello");
    assert_eq!(signed_body("hello", "Ana", false, true), "hello");
    assert!(may_edit(&me, HOME, &message(Some(ME), 14), now).is_ok());
    assert!(may_edit(&me, HOME, &message(Some(ME), 16), now).is_err());
    assert!(may_edit(&me, HOME, &message(Some(COLLEAGUE), 1), now).is_err());
    assert!(may_edit(&me, OTHER, &message(Some(ME), 1), now).is_err());
    assert!(may_delete(&me, HOME, &message(Some(ME), 600)).is_ok());
    assert_eq!(
        may_delete(&me, HOME, &message(Some(COLLEAGUE), 1))
            .expect_err("not own")
            .code,
        ErrorCode::ERR_NO_PERMISSION
    );
}

// ----------------------------------------------------------------- list preview

#[test]
fn preview_follows_its_message_when_deleted_or_edited() {
    use chatflow_core::inbox::model::MediaType;
    let source = |body: &str, media_type, is_deleted, from_me| LastMessageSource {
        body: body.into(),
        media_type,
        is_deleted,
        from_me,
    };
    // No source: the stored text stays.
    let p = last_message_preview("old", None);
    assert_eq!(
        (p.text.as_str(), p.deleted, p.from_me),
        ("old", false, false)
    );
    // Edited: the message's current text, not the stored one.
    let edited = source("new text", MediaType::Chat, false, false);
    let p = last_message_preview("old", Some(&edited));
    assert_eq!((p.text.as_str(), p.deleted), ("new text", false));
    // Deleted by the contact: flagged, and its text is no longer shown.
    let deleted = source("secret", MediaType::Chat, true, false);
    let p = last_message_preview("secret", Some(&deleted));
    assert_eq!((p.text.as_str(), p.deleted, p.from_me), ("", true, false));
    // Deleted on the attendant's side: flagged as from me.
    let own = source("oops", MediaType::Chat, true, true);
    let p = last_message_preview("oops", Some(&own));
    assert_eq!((p.deleted, p.from_me), (true, true));
    // A caption-less image keeps its placeholder.
    let image = source("", MediaType::Image, false, true);
    let p = last_message_preview("", Some(&image));
    assert_eq!((p.text.as_str(), p.from_me), ("📷 Imagem", true));
    assert_eq!(p.media, Some(MediaType::Image));
    // A captioned image and a text: their own words, no placeholder to name.
    let captioned = source("look", MediaType::Image, false, false);
    assert_eq!(last_message_preview("", Some(&captioned)).media, None);
    assert_eq!(last_message_preview("", Some(&edited)).media, None);
    assert_eq!(last_message_preview("", Some(&deleted)).media, None);
}

// ----------------------------------------------------------------- ingestion model

fn connection(allow_group: bool) -> Connection {
    Connection {
        id: WhatsappId(1),
        company_id: HOME,
        name: "main".into(),
        number: String::new(),
        channel: ChannelKind::Whatsapp,
        provider: ProviderKind::Sandbox,
        status: ConnectionStatus::Connected,
        qrcode: String::new(),
        retries: 0,
        is_default: true,
        token: String::new(),
        greeting_message: String::new(),
        complation_message: String::new(),
        out_of_hours_message: String::new(),
        rating_message: String::new(),
        allow_group,
        group_as_ticket: false,
        max_use_bot_queues: 3,
        time_use_bot_queues: 0,
        time_send_queue: 0,
        send_id_queue: None,
        expires_ticket: 0,
        expires_inactive_message: String::new(),
        time_create_new_ticket: 0,
        queue_ids: vec![],
        queues: vec![],
        updated_at: fixed_now(),
        max_use_bot_queues_nps: 3,
        expires_ticket_nps: 0,
        flow_id_welcome: None,
        flow_id_not_phrase: None,
        collective_vacation_start: None,
        collective_vacation_end: None,
        collective_vacation_message: String::new(),
        schedules: vec![],
        time_inactive_message: 0,
        inactive_message: String::new(),
        when_expires_ticket: 0,
        pairing_code: None,
        session_reason: None,
        session_until: None,
        enable_import_message: false,
        import_old_messages: None,
        import_recent_messages: None,
        import_old_messages_groups: false,
        closed_tickets_post_imported: false,
        queue_id_import_messages: None,
        status_import_messages: None,
        down_since: None,
        last_gap: None,
    }
}

fn contact(name: &str) -> Contact {
    Contact {
        id: ContactId(1),
        company_id: HOME,
        name: name.into(),
        number: "5511987654321".into(),
        email: String::new(),
        active: true,
        disable_bot: false,
        accept_audio_message: true,
        url_picture: None,
        picture_at: None,
        channel: ChannelKind::Whatsapp,
        is_group: false,
        lgpd_accepted_at: None,
        whatsapp_id: None,
        whatsapp_name: None,
        extra_info: vec![],
        tags: vec![],
        created_at: fixed_now(),
        updated_at: fixed_now(),
    }
}

fn inbound(from_me: bool, is_group: bool, body: &str, media: MediaType) -> InboundMessage {
    InboundMessage {
        external_id: "x".into(),
        chat: "5511987654321".into(),
        chat_name: "Ana".into(),
        is_group,
        participant: None,
        from_me,
        body: body.into(),
        media_type: media,
        media: None,
        quoted_external_id: None,
        timestamp: fixed_now(),
        aliases: Vec::new(),
        media_failed: None,
    }
}

#[test]
fn decisions() {
    let ctx = IngestContext {
        connection: connection(false),
        contact: contact("Ana"),
        contact_created: true,
        active_ticket: None,
    };
    assert_eq!(
        decide(&ctx, &inbound(false, true, "hi", MediaType::Chat)),
        IngestPlan::Ignore
    );
    let IngestPlan::Store {
        ticket,
        unread_increment,
        last_message,
        logs,
        events,
        history,
    } = decide(&ctx, &inbound(false, false, "", MediaType::Image))
    else {
        panic!("stored")
    };
    assert_eq!(
        ticket,
        TicketPlan::Create {
            status: TicketStatus::Pending,
            is_group: false,
            queue: None,
            imported: false,
        }
    );
    assert_eq!(unread_increment, 1);
    assert_eq!(last_message, "📷 Imagem");
    assert_eq!(logs[0].kind, TicketLogType::Create);
    assert_eq!(events.len(), 3);
    assert!(!history, "a live message is not history");

    let groups = IngestContext {
        connection: connection(true),
        ..ctx.clone()
    };
    let IngestPlan::Store { ticket, .. } =
        decide(&groups, &inbound(false, true, "hi", MediaType::Chat))
    else {
        panic!("stored")
    };
    assert_eq!(
        ticket,
        TicketPlan::Create {
            status: TicketStatus::Pending,
            is_group: true,
            queue: None,
            imported: false,
        }
    );

    let closed = IngestContext {
        contact_created: false,
        active_ticket: Some(ticket_closed()),
        ..ctx.clone()
    };
    let IngestPlan::Store {
        ticket,
        events,
        unread_increment,
        ..
    } = decide(
        &closed,
        &inbound(true, false, "sent from the phone", MediaType::Chat),
    )
    else {
        panic!("stored")
    };
    assert!(
        matches!(ticket, TicketPlan::Create { .. }),
        "a closed ticket is never reused"
    );
    assert_eq!(unread_increment, 0);
    assert_eq!(events.len(), 2, "no contact event when nothing changed");
}

fn ticket_closed() -> Ticket {
    ticket(TicketStatus::Closed, None, Some(ME), false)
}

#[derive(Debug, Clone)]
enum Step {
    Inbound { from_me: bool },
    Read,
    Close,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => any::<bool>().prop_map(|from_me| Step::Inbound { from_me }),
        1 => Just(Step::Read),
        1 => Just(Step::Close),
    ]
}

proptest! {
    /// A model of the store applying `decide`'s plans: over any sequence of inbound messages,
    /// reads and closes, unread counts never go negative and equal the contact's messages since
    /// the last read, and at most one ticket is ever not closed.
    #[test]
    fn unread_and_ticket_reuse(steps in prop::collection::vec(step(), 0..60)) {
        let mut tickets: Vec<Ticket> = Vec::new();
        let mut since_read = 0i64;
        for s in steps {
            let active = tickets.iter().find(|t| t.status != TicketStatus::Closed).cloned();
            match s {
                Step::Inbound { from_me } => {
                    let ctx = IngestContext {
                        connection: connection(false),
                        contact: contact("Ana"),
                        contact_created: tickets.is_empty(),
                        active_ticket: active.clone(),
                    };
                    let IngestPlan::Store { ticket: plan, unread_increment, .. } =
                        decide(&ctx, &inbound(from_me, false, "hi", MediaType::Chat))
                    else {
                        panic!("one-to-one messages are stored")
                    };
                    prop_assert!(unread_increment >= 0);
                    let target = match plan {
                        TicketPlan::Reuse => {
                            let id = active.expect("reuse needs an active ticket").id;
                            tickets.iter_mut().find(|t| t.id == id).expect("exists")
                        }
                        TicketPlan::Create {
                            status, is_group, ..
                        } => {
                            let made = ticket(status, None, None, is_group);
                            prop_assert!(active.is_none(), "created while one was active");
                            let mut t = made;
                            t.id = TicketId(tickets.len() as i64 + 1);
                            tickets.push(t);
                            since_read = 0;
                            tickets.last_mut().expect("pushed")
                        }
                    };
                    target.unread_messages += unread_increment;
                    if !from_me {
                        since_read += 1;
                    }
                }
                Step::Read => {
                    if let Some(t) = tickets.iter_mut().find(|t| t.status != TicketStatus::Closed) {
                        t.unread_messages = 0;
                        since_read = 0;
                    }
                }
                Step::Close => {
                    if let Some(t) = tickets.iter_mut().find(|t| t.status != TicketStatus::Closed) {
                        t.status = TicketStatus::Closed;
                    }
                }
            }
            let open: Vec<&Ticket> =
                tickets.iter().filter(|t| t.status != TicketStatus::Closed).collect();
            prop_assert!(open.len() <= 1);
            for t in &tickets {
                prop_assert!(t.unread_messages >= 0);
            }
            if let Some(t) = open.first() {
                prop_assert_eq!(t.unread_messages, since_read);
            }
        }
    }
}

fn fixed_now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 23, 10, 0, 0)
        .single()
        .expect("time")
}

#[test]
fn ticket_updates_map_to_state_machine_commands() {
    use chatflow_core::service::inbox::tickets::{UpdateTicket, command_for};
    use chatflow_core::ticket::{Command, TicketState};
    let pending = TicketState::pending(HOME, Some(SALES), false);
    let ask = |status: Option<TicketStatus>| UpdateTicket {
        status,
        ..UpdateTicket::default()
    };
    assert_eq!(
        command_for(&pending, ME, &ask(Some(TicketStatus::Open))),
        Some(Command::Accept)
    );
    assert_eq!(
        command_for(&pending, ME, &ask(Some(TicketStatus::Closed))),
        Some(Command::Ignore)
    );
    let mut open = pending.clone();
    open.status = TicketStatus::Open;
    open.user_id = Some(ME);
    assert_eq!(
        command_for(&open, ME, &ask(Some(TicketStatus::Pending))),
        Some(Command::ReturnToQueue)
    );
    assert_eq!(
        command_for(&open, ME, &ask(Some(TicketStatus::Closed))),
        Some(Command::Resolve {
            send_farewell: true
        })
    );
    let mut closed = open.clone();
    closed.status = TicketStatus::Closed;
    assert_eq!(
        command_for(&closed, ME, &ask(Some(TicketStatus::Open))),
        Some(Command::Reopen)
    );
    let transfer = UpdateTicket {
        queue_id: Some(SUPPORT),
        user_id: Some(COLLEAGUE),
        msg_transfer: Some("até já".into()),
        ..UpdateTicket::default()
    };
    assert_eq!(
        command_for(&open, ME, &transfer),
        Some(Command::Transfer {
            to_user: Some(COLLEAGUE),
            to_queue: Some(SUPPORT),
            message: Some("até já".into()),
        })
    );
    assert_eq!(command_for(&open, ME, &UpdateTicket::default()), None);
}

#[test]
fn routing_reads_the_connections_vacation_and_hours() {
    use chatflow_core::routing::decide::RoutingConnection;
    let day = |d: u32| chrono::NaiveDate::from_ymd_opt(2026, 12, d);
    let stored = Connection {
        collective_vacation_start: day(24),
        collective_vacation_end: day(31),
        collective_vacation_message: "Férias coletivas".into(),
        schedules: chatflow_core::queue::default_schedules(),
        greeting_message: "Olá".into(),
        ..connection(false)
    };
    let routing = RoutingConnection::from_connection(&stored);
    assert_eq!(routing.vacation_start, day(24));
    assert_eq!(routing.vacation_end, day(31));
    assert_eq!(routing.vacation_message, "Férias coletivas");
    assert_eq!(routing.schedules, stored.schedules);
    assert_eq!(routing.greeting_message, "Olá");
}

#[test]
fn a_quote_names_who_wrote_the_quoted_message_where_the_chat_does_not() {
    let stored = |from_me: bool, participant: Option<&str>| Message {
        body: "Meu pedido é o 123".into(),
        from_me,
        participant: participant.map(str::to_owned),
        ..message(None, 0)
    };
    // The contact's message in a one-to-one chat: the chat is the writer.
    let contact = QuotedContent::of(&stored(false, None)).through("5511900000000");
    assert_eq!(contact.sender, None);
    assert_eq!(contact.body, "Meu pedido é o 123");
    // A group member's: the member, as stored.
    let member = QuotedContent::of(&stored(false, Some("123456789@lid"))).through("5511900000000");
    assert_eq!(member.sender.as_deref(), Some("123456789@lid"));
    // Ours: the connection's own number, once known.
    let ours = QuotedContent::of(&stored(true, None));
    assert_eq!(ours.sender, None);
    assert_eq!(ours.clone().through(" ").sender, None);
    assert_eq!(
        ours.through("5511900000000").sender.as_deref(),
        Some("5511900000000")
    );
    // Older queued sends, without the field, still read.
    let old: QuotedContent =
        serde_json::from_str(r#"{"body":"oi","fromMe":false}"#).expect("reads");
    assert_eq!(old.sender, None);
}
