//! Property tests of the ticket state machine: arbitrary actors, settings and command sequences
//! never leave a ticket invalid, and every accepted transition follows spec 1 §4.

use chatflow_core::ErrorCode;
use chatflow_core::identity::{Actor, AllTicket, Profile, Toggle, UserFlags};
use chatflow_core::ids::{CompanyId, QueueId, UserId};
use chatflow_core::ticket::{
    Command, Context, Effect, TicketLogType, TicketState, TicketStatus, apply, is_valid,
};
use proptest::prelude::*;

const HOME: CompanyId = CompanyId(2);
const ELSEWHERE: CompanyId = CompanyId(3);

fn toggle() -> impl Strategy<Value = Toggle> {
    prop_oneof![Just(Toggle::Enabled), Just(Toggle::Disabled)]
}

fn flags() -> impl Strategy<Value = UserFlags> {
    (toggle(), toggle(), toggle(), any::<bool>()).prop_map(
        |(all_user_chat, user_close_pending_ticket, show_dashboard, allow_group)| UserFlags {
            all_ticket: AllTicket::Disable,
            allow_group,
            all_user_chat,
            user_close_pending_ticket,
            show_dashboard,
            ..UserFlags::default()
        },
    )
}

/// Users 1 to 4 of the home company, admins or not, with random flags; now and then a user of
/// another company.
fn actor() -> impl Strategy<Value = Actor> {
    (
        1i64..=4,
        prop_oneof![Just(Profile::Admin), Just(Profile::User)],
        flags(),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(id, profile, flags, foreign)| Actor {
            user_id: UserId(id),
            company_id: if foreign { ELSEWHERE } else { HOME },
            profile,
            is_super: false,
            flags,
            queue_ids: Vec::new(),
        })
}

fn status() -> impl Strategy<Value = TicketStatus> {
    prop::sample::select(TicketStatus::ALL.to_vec())
}

fn queue() -> impl Strategy<Value = Option<QueueId>> {
    prop::option::of((1i64..=3).prop_map(QueueId))
}

fn user() -> impl Strategy<Value = Option<UserId>> {
    prop::option::of((1i64..=4).prop_map(UserId))
}

/// Any valid ticket of the home company.
fn ticket() -> impl Strategy<Value = TicketState> {
    (
        status(),
        user(),
        queue(),
        any::<bool>(),
        0u32..5,
        any::<bool>(),
    )
        .prop_map(
            |(status, user_id, queue_id, is_group, bots, transferred)| TicketState {
                company_id: HOME,
                status,
                user_id,
                queue_id,
                is_group,
                amount_used_bot_queues: bots,
                is_transferred: transferred,
            },
        )
        .prop_filter("the ticket invariants hold", is_valid)
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        Just(Command::Accept),
        Just(Command::ReturnToQueue),
        any::<bool>().prop_map(|send_farewell| Command::Resolve { send_farewell }),
        Just(Command::Ignore),
        Just(Command::Reopen),
        (user(), queue(), prop::option::of("[a-z ]{0,4}")).prop_map(
            |(to_user, to_queue, message)| Command::Transfer {
                to_user,
                to_queue,
                message
            }
        ),
        Just(Command::Close),
    ]
}

/// The settings part of a context, separate from the actor so it can be generated.
#[derive(Debug, Clone)]
struct Settings {
    send_greeting_accepted: bool,
    greeting: &'static str,
    required_tag: bool,
    contact_tag_count: usize,
    group_as_ticket: bool,
    farewell: &'static str,
    send_farewell_waiting_ticket: bool,
    send_msg_transf_ticket: bool,
    transfer_message: &'static str,
}

fn message() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["", "  ", "Olá!", "Você foi para {{queue}}"])
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        (
            any::<bool>(),
            message(),
            any::<bool>(),
            0usize..3,
            any::<bool>(),
        ),
        (message(), any::<bool>(), any::<bool>(), message()),
    )
        .prop_map(
            |(
                (
                    send_greeting_accepted,
                    greeting,
                    required_tag,
                    contact_tag_count,
                    group_as_ticket,
                ),
                (farewell, send_farewell_waiting_ticket, send_msg_transf_ticket, transfer_message),
            )| Settings {
                send_greeting_accepted,
                greeting,
                required_tag,
                contact_tag_count,
                group_as_ticket,
                farewell,
                send_farewell_waiting_ticket,
                send_msg_transf_ticket,
                transfer_message,
            },
        )
}

fn context<'a>(actor: &'a Actor, s: &Settings) -> Context<'a> {
    Context {
        send_greeting_accepted: s.send_greeting_accepted,
        greeting_accepted_message: s.greeting,
        required_tag: s.required_tag,
        contact_tag_count: s.contact_tag_count,
        group_as_ticket: s.group_as_ticket,
        farewell_message: s.farewell,
        send_farewell_waiting_ticket: s.send_farewell_waiting_ticket,
        send_msg_transf_ticket: s.send_msg_transf_ticket,
        transfer_message: s.transfer_message,
        ..Context::new(actor)
    }
}

fn is_admin(actor: &Actor) -> bool {
    actor.profile == Profile::Admin
}

fn assigned(state: &TicketState) -> TicketStatus {
    if state.is_group {
        TicketStatus::Group
    } else {
        TicketStatus::Open
    }
}

/// Checks one accepted transition against the rules of spec 1 §4.
fn check_rules(
    before: &TicketState,
    command: &Command,
    actor: &Actor,
    s: &Settings,
    after: &TicketState,
    effects: &[Effect],
) -> Result<(), TestCaseError> {
    let me = Some(actor.user_id);
    prop_assert_eq!(
        actor.company_id,
        before.company_id,
        "another company's ticket changed"
    );
    prop_assert_eq!(after.company_id, before.company_id);
    prop_assert_eq!(after.is_group, before.is_group);
    let logs: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Log(log) => Some(*log),
            _ => None,
        })
        .collect();
    prop_assert!(!logs.is_empty(), "every transition is logged");
    prop_assert_eq!(logs[0].user_id, me, "the first log entry names the actor");
    let greets = effects.iter().any(|e| matches!(e, Effect::SendGreeting(_)));
    let farewells = effects.iter().any(|e| matches!(e, Effect::SendFarewell(_)));
    let resets = effects.contains(&Effect::ResetBotCounter);
    prop_assert!(!greets || matches!(command, Command::Accept));
    let asked_farewell = matches!(
        command,
        Command::Resolve {
            send_farewell: true
        }
    );
    prop_assert!(
        !farewells || asked_farewell,
        "a farewell only when asked for"
    );
    prop_assert!(!resets || matches!(command, Command::Ignore));
    let chooser = effects.contains(&Effect::OpenQueueChooser);
    prop_assert_eq!(
        chooser,
        matches!(command, Command::Accept | Command::Reopen) && before.queue_id.is_none()
    );

    match command {
        Command::Accept => {
            prop_assert_eq!(before.status, TicketStatus::Pending);
            prop_assert_eq!(after.status, assigned(before));
            prop_assert_eq!(after.user_id, me);
            prop_assert_eq!(logs[0].kind, TicketLogType::Open);
            let should_greet = s.send_greeting_accepted
                && !s.greeting.trim().is_empty()
                && (!before.is_group || s.group_as_ticket);
            prop_assert_eq!(greets, should_greet);
        }
        Command::ReturnToQueue => {
            prop_assert!(matches!(
                before.status,
                TicketStatus::Open | TicketStatus::Group
            ));
            prop_assert_eq!(after.status, TicketStatus::Pending);
            prop_assert_eq!(after.user_id, None);
        }
        Command::Resolve { .. } => {
            prop_assert!(matches!(
                before.status,
                TicketStatus::Open | TicketStatus::Group | TicketStatus::Pending
            ));
            prop_assert!(
                !s.required_tag || s.contact_tag_count > 0,
                "requiredTag blocks"
            );
            if before.status == TicketStatus::Pending {
                prop_assert!(
                    is_admin(actor) || actor.flags.user_close_pending_ticket.is_on(),
                    "closing a pending ticket needs permission"
                );
            }
            prop_assert_eq!(after.status, TicketStatus::Closed);
            prop_assert_eq!(after.user_id, me);
        }
        Command::Ignore => {
            prop_assert!(matches!(
                before.status,
                TicketStatus::Pending | TicketStatus::Lgpd
            ));
            prop_assert!(is_admin(actor) || actor.flags.user_close_pending_ticket.is_on());
            prop_assert_eq!(after.status, TicketStatus::Closed);
            prop_assert_eq!(after.amount_used_bot_queues, 0);
            prop_assert!(resets);
            prop_assert!(!farewells);
        }
        Command::Reopen => {
            prop_assert_eq!(before.status, TicketStatus::Closed);
            prop_assert_eq!(after.status, assigned(before));
            prop_assert_eq!(after.user_id, me);
            prop_assert_eq!(logs[0].kind, TicketLogType::Reopen);
        }
        Command::Transfer {
            to_user, to_queue, ..
        } => {
            prop_assert!(to_queue.is_some(), "a transfer needs a queue");
            prop_assert_eq!(after.queue_id, *to_queue);
            prop_assert!(after.is_transferred);
            prop_assert_eq!(after.user_id, *to_user);
            let expected = if to_user.is_some() {
                assigned(before)
            } else {
                TicketStatus::Pending
            };
            prop_assert_eq!(after.status, expected);
            prop_assert_eq!(logs[0].kind, TicketLogType::Transfered);
        }
        Command::Close => {
            prop_assert_ne!(before.status, TicketStatus::Closed);
            prop_assert!(is_admin(actor), "close-all is for admins");
            prop_assert_eq!(after.status, TicketStatus::Closed);
            prop_assert_eq!(after.user_id, before.user_id);
        }
    }
    if !matches!(command, Command::Ignore) {
        prop_assert_eq!(after.amount_used_bot_queues, before.amount_used_bot_queues);
    }
    if !matches!(command, Command::Transfer { .. }) {
        prop_assert_eq!(after.queue_id, before.queue_id);
        prop_assert_eq!(after.is_transferred, before.is_transferred);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// No sequence of commands, by anyone, under any settings, leaves an invalid ticket; every
    /// accepted step follows the rules, and a refused step changes nothing.
    #[test]
    fn command_sequences_keep_tickets_valid(
        start in ticket(),
        steps in prop::collection::vec((actor(), command(), settings()), 1..24),
    ) {
        let mut state = start;
        for (actor, command, s) in &steps {
            let ctx = context(actor, s);
            match apply(&state, command, &ctx) {
                Ok(transition) => {
                    prop_assert!(is_valid(&transition.state), "{:?} -> {:?}", command, transition.state);
                    check_rules(&state, command, actor, s, &transition.state, &transition.effects)?;
                    state = transition.state;
                }
                Err(err) => {
                    prop_assert!(matches!(
                        err.code,
                        ErrorCode::ERR_INVALID_TICKET_TRANSITION
                            | ErrorCode::ERR_TICKET_OWNED_BY_OTHER
                            | ErrorCode::ERR_TAG_REQUIRED
                            | ErrorCode::ERR_QUEUE_REQUIRED
                            | ErrorCode::ERR_NO_PERMISSION
                    ), "unexpected {}", err.code);
                    if actor.company_id != state.company_id {
                        prop_assert_eq!(err.code, ErrorCode::ERR_NO_PERMISSION);
                    }
                }
            }
        }
    }

    /// A plain user without userClosePendingTicket never closes or ignores a pending ticket.
    #[test]
    fn pending_tickets_stay_open_to_plain_users(
        start in ticket().prop_filter("pending", |t| t.status == TicketStatus::Pending),
        farewell in any::<bool>(),
        s in settings(),
    ) {
        let plain = Actor {
            user_id: UserId(4),
            company_id: HOME,
            profile: Profile::User,
            is_super: false,
            flags: UserFlags::default(),
            queue_ids: Vec::new(),
        };
        let ctx = context(&plain, &s);
        for command in [Command::Resolve { send_farewell: farewell }, Command::Ignore, Command::Close] {
            let err = apply(&start, &command, &ctx).expect_err("refused");
            prop_assert_eq!(err.code, ErrorCode::ERR_NO_PERMISSION);
        }
    }

    /// With requiredTag on and an untagged contact, resolving never succeeds.
    #[test]
    fn required_tag_always_blocks_resolving(start in ticket(), actor in actor(), farewell in any::<bool>()) {
        let ctx = Context { required_tag: true, contact_tag_count: 0, ..Context::new(&actor) };
        let resolve = Command::Resolve { send_farewell: farewell };
        prop_assert!(apply(&start, &resolve, &ctx).is_err(), "resolved an untagged contact's ticket");
    }

    /// Accepting is the only way a pending ticket gains its first owner without a transfer, and
    /// the owner is always the actor.
    #[test]
    fn accept_assigns_the_actor(start in ticket(), actor in actor()) {
        if let Ok(t) = apply(&start, &Command::Accept, &Context::new(&actor)) {
            prop_assert_eq!(t.state.user_id, Some(actor.user_id));
            prop_assert_eq!(start.status, TicketStatus::Pending);
        }
    }
}
