//! Walks one ticket through its life with `chatflow-core` as a library and prints every state and
//! the effects a server would carry out.
//!
//! Run it with `cargo run -p example-ticket-lifecycle`. Nothing here touches a database or a
//! network: the core decides, and this program only prints what it decided. Refused commands are
//! part of the walk, to show the errors the web app turns into messages.

use chatflow_core::identity::{Actor, Profile, UserFlags};
use chatflow_core::ids::{CompanyId, QueueId, UserId};
use chatflow_core::settings::{SettingsMap, SettingsView, check_change};
use chatflow_core::ticket::{
    Command, Context, Effect, TicketState, TicketStatus, Transition, apply, can_edit_message,
    close_all_selects,
};
use chrono::{DateTime, TimeDelta, Utc};

const COMPANY: CompanyId = CompanyId(2);
const SALES: QueueId = QueueId(1);
const SUPPORT: QueueId = QueueId(2);

fn user_name(id: UserId) -> &'static str {
    match id.0 {
        1 => "Carla (admin)",
        10 => "Ana",
        11 => "Bruno",
        _ => "someone",
    }
}

fn queue_name(id: QueueId) -> &'static str {
    match id.0 {
        1 => "Vendas",
        2 => "Suporte",
        _ => "another queue",
    }
}

fn actor(id: i64, profile: Profile) -> Actor {
    Actor {
        user_id: UserId(id),
        company_id: COMPANY,
        profile,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: vec![SALES, SUPPORT],
    }
}

fn describe(state: &TicketState) -> String {
    let owner = state.user_id.map_or("nobody", user_name);
    let queue = state.queue_id.map_or("none", queue_name);
    let mut text = format!(
        "{} · owner {owner} · queue {queue} · bot menus used {}",
        state.status, state.amount_used_bot_queues
    );
    if state.is_group {
        text.push_str(" · group");
    }
    if state.is_transferred {
        text.push_str(" · transferred");
    }
    text
}

fn describe_effect(effect: &Effect) -> String {
    match effect {
        Effect::SendGreeting(text) => format!("send greeting: \"{text}\""),
        Effect::SendFarewell(text) => format!("send farewell: \"{text}\""),
        Effect::SendTransferMessage(text) => format!("send transfer notice: \"{text}\""),
        Effect::ResetBotCounter => "reset the bot queue counter".to_owned(),
        Effect::OpenQueueChooser => "ask the attendant to choose a queue".to_owned(),
        Effect::Log(log) => {
            let kind = log.kind;
            let user = log.user_id.map_or("nobody", user_name);
            match log.queue_id {
                Some(queue) => format!("log \"{kind}\" by {user} in {}", queue_name(queue)),
                None => format!("log \"{kind}\" by {user}, no queue"),
            }
        }
    }
}

/// The context of `who` acting under the company's `settings`.
fn as_user<'a>(who: &'a Actor, settings: &SettingsView<'a>) -> Context<'a> {
    Context::new(who).with_settings(settings)
}

/// Applies `command` for the step titled `title`, prints the outcome and returns the new state
/// (the old one when the core refused).
fn step(
    number: &mut u32,
    title: &str,
    state: TicketState,
    command: &Command,
    ctx: &Context<'_>,
) -> TicketState {
    *number += 1;
    println!("{number}. {title}");
    match apply(&state, command, ctx) {
        Ok(Transition {
            state: next,
            effects,
        }) => {
            println!("   state:   {}", describe(&next));
            for effect in &effects {
                println!("   effect:  {}", describe_effect(effect));
            }
            println!();
            next
        }
        Err(err) => {
            println!("   refused: {err}");
            println!("   state:   {} (unchanged)", describe(&state));
            println!();
            state
        }
    }
}

fn main() {
    println!("A ticket's life, decided by chatflow-core");
    println!("=========================================");
    println!();

    // The company's settings, changed through the same rule the settings page uses.
    let mut stored = SettingsMap::new();
    for (key, value) in [
        (
            "greetingAcceptedMessage",
            "Olá! Sou {{user}} e vou te atender.",
        ),
        ("sendGreetingAccepted", "enabled"),
        ("sendMsgTransfTicket", "enabled"),
        ("requiredTag", "enabled"),
    ] {
        match check_change(&stored, key, value) {
            Ok(()) => {
                stored.insert(key.to_owned(), value.to_owned());
                println!("setting {key} = \"{value}\"");
            }
            Err(err) => println!("setting {key} refused: {err}"),
        }
    }
    if let Err(err) = check_change(&stored, "greetingAcceptedMessage", "") {
        println!("clearing greetingAcceptedMessage refused: {err}");
    }
    println!();
    let settings = SettingsView::new(&stored);

    let ana = &actor(10, Profile::User);
    let bruno = &actor(11, Profile::User);
    let carla = &actor(1, Profile::Admin);
    let with = |who| as_user(who, &settings);

    let mut n = 0;
    let mut ticket = TicketState {
        amount_used_bot_queues: 2,
        ..TicketState::pending(COMPANY, Some(SALES), false)
    };
    println!("0. A contact writes in; the chatbot puts the ticket in Vendas");
    println!("   state:   {}", describe(&ticket));
    println!();

    ticket = step(
        &mut n,
        "Ana accepts the ticket",
        ticket,
        &Command::Accept,
        &with(ana),
    );
    ticket = step(
        &mut n,
        "Bruno tries to accept it too",
        ticket,
        &Command::Accept,
        &with(bruno),
    );
    ticket = step(
        &mut n,
        "Ana transfers it to Bruno in Suporte",
        ticket,
        &Command::Transfer {
            to_user: Some(bruno.user_id),
            to_queue: Some(SUPPORT),
            message: None,
        },
        &with(ana),
    );
    ticket = step(
        &mut n,
        "Bruno resolves it with the farewell, but the contact has no tag yet",
        ticket,
        &Command::Resolve {
            send_farewell: true,
        },
        &Context {
            farewell_message: "Obrigado pelo contato!",
            ..with(bruno)
        },
    );
    ticket = step(
        &mut n,
        "Bruno tags the contact and resolves it with the farewell",
        ticket,
        &Command::Resolve {
            send_farewell: true,
        },
        &Context {
            farewell_message: "Obrigado pelo contato!",
            contact_tag_count: 1,
            ..with(bruno)
        },
    );
    ticket = step(
        &mut n,
        "The contact writes again; Ana reopens the ticket",
        ticket,
        &Command::Reopen,
        &with(ana),
    );
    ticket = step(
        &mut n,
        "Ana returns it to the queue",
        ticket,
        &Command::ReturnToQueue,
        &with(ana),
    );
    ticket = step(
        &mut n,
        "Ana tries to ignore the pending ticket",
        ticket,
        &Command::Ignore,
        &with(ana),
    );
    ticket = step(
        &mut n,
        "Carla (admin) ignores it",
        ticket,
        &Command::Ignore,
        &with(carla),
    );
    let _ = step(
        &mut n,
        "Carla tries to ignore it again",
        ticket,
        &Command::Ignore,
        &with(carla),
    );

    println!("A group conversation");
    println!("--------------------");
    println!();
    let mut group = TicketState::pending(COMPANY, None, true);
    group = step(
        &mut n,
        "Ana accepts a group ticket that has no queue",
        group,
        &Command::Accept,
        &with(ana),
    );
    let _ = step(
        &mut n,
        "Ana tries to transfer it without choosing a queue",
        group,
        &Command::Transfer {
            to_user: None,
            to_queue: None,
            message: Some("Já volto".to_owned()),
        },
        &with(ana),
    );

    println!("Close-all and message edits");
    println!("---------------------------");
    let waiting = [
        TicketState::pending(COMPANY, Some(SALES), false),
        TicketState::pending(COMPANY, Some(SUPPORT), false),
        TicketState::pending(COMPANY, None, false),
    ];
    let chosen = waiting
        .iter()
        .filter(|t| close_all_selects(t, TicketStatus::Pending, &[SALES]))
        .count();
    println!(
        "close-all of pending tickets in Vendas selects {chosen} of {} waiting tickets",
        waiting.len()
    );
    let everything = waiting
        .iter()
        .filter(|t| close_all_selects(t, TicketStatus::Pending, &[]))
        .count();
    println!("close-all of pending tickets in every queue selects {everything}");
    let sent = DateTime::<Utc>::UNIX_EPOCH;
    for minutes in [5, 15, 16] {
        let allowed = can_edit_message(true, sent, sent + TimeDelta::minutes(minutes));
        println!(
            "own message, {minutes} minutes later: {}",
            if allowed {
                "editable"
            } else {
                "no longer editable"
            }
        );
    }
}
