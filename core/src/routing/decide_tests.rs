//! One focused test per routing rule, and a property test that [`decide`] and [`on_timer`] never
//! panic and keep their invariants on arbitrary inputs.

use chrono::{DateTime, NaiveDate, TimeDelta, TimeZone, Utc};
use proptest::prelude::*;

use super::decide::*;
use super::menu::{BotStage, BotState, MenuLabels};
use super::rotation::{Candidate, RotationStrategy};
use crate::ids::{QueueId, UserId};
use crate::queue::{ChatbotOption, ChatbotOptionType, Queue, ScheduleRow, WEEKDAYS};
use crate::settings::{ScheduleType, SettingsMap, SettingsView};
use crate::ticket::{TicketLog, TicketLogType, TicketStatus};

const SAO_PAULO: chrono_tz::Tz = chrono_tz::America::Sao_Paulo;
const VENDAS: QueueId = QueueId(1);
const SUPORTE: QueueId = QueueId(2);
const TRIAGEM: QueueId = QueueId(9);

/// Monday 2026-11-23 at `h:m` in São Paulo.
fn monday(h: u32, m: u32) -> DateTime<Utc> {
    SAO_PAULO
        .with_ymd_and_hms(2026, 11, 23, h, m, 0)
        .single()
        .expect("valid")
        .with_timezone(&Utc)
}

fn queue(id: QueueId, name: &str, greeting: &str) -> Queue {
    Queue {
        id,
        name: name.into(),
        color: format!("#{:06}", id.0),
        order_queue: Some(id.0),
        greeting_message: greeting.into(),
        out_of_hours_message: format!("{name} fechado"),
        close_ticket: false,
        ativar_roteador: false,
        tempo_roteador: 0,
        integration_id: None,
        file_list_id: None,
        schedules: Vec::new(),
        chatbots: Vec::new(),
    }
}

fn option(name: &str, greeting: &str, kind: ChatbotOptionType) -> ChatbotOption {
    ChatbotOption {
        name: name.into(),
        greeting_message: greeting.into(),
        queue_type: kind,
        ..ChatbotOption::default()
    }
}

/// Every day open `a`-`b` only.
fn hours(a: &str, b: &str) -> Vec<ScheduleRow> {
    WEEKDAYS
        .iter()
        .map(|(pt, en)| ScheduleRow {
            weekday: (*pt).into(),
            weekday_en: (*en).into(),
            start_time_a: a.into(),
            end_time_a: b.into(),
            start_time_b: String::new(),
            end_time_b: String::new(),
        })
        .collect()
}

/// A new pending ticket on a connection with two queues, Monday 10:00, hours disabled.
fn input(message: &str) -> RoutingInput {
    RoutingInput {
        ticket: RoutingTicket {
            status: TicketStatus::Pending,
            queue_id: None,
            user_id: None,
            is_group: false,
            amount_used_bot_queues: 0,
            bot: BotState::default(),
            is_new: true,
            last_bot_message_at: None,
            using_integration: false,
        },
        contact: RoutingContact::default(),
        connection: RoutingConnection {
            greeting_message: "Olá! Escolha um setor:".into(),
            out_of_hours_message: "Estamos fechados.".into(),
            queue_ids: vec![SUPORTE, VENDAS],
            max_use_bot_queues: 3,
            ..RoutingConnection::default()
        },
        queues: vec![
            queue(VENDAS, "Vendas", "Bem-vindo às vendas"),
            queue(SUPORTE, "Suporte", "Bem-vindo ao suporte"),
            queue(TRIAGEM, "Triagem", "Triagem aqui"),
        ],
        settings: RoutingSettings::default(),
        company_schedules: Vec::new(),
        time_zone: SAO_PAULO,
        message: message.into(),
        from_me: false,
        now: monday(10, 0),
        snapshots: Vec::new(),
        labels: MenuLabels::default(),
    }
}

/// `base` after the bot sent the queue menu.
fn at_queue_menu(mut base: RoutingInput, counter: u32) -> RoutingInput {
    base.ticket.is_new = false;
    base.ticket.amount_used_bot_queues = counter;
    base.ticket.last_bot_message_at = Some(base.now - TimeDelta::minutes(1));
    base.ticket.bot = BotState {
        stage: BotStage::QueueMenu,
        ..BotState::default()
    };
    base
}

/// `base` with the ticket in `queue_id`'s chatbot menu at `path`.
fn at_option_menu(mut base: RoutingInput, queue_id: QueueId, path: Vec<usize>) -> RoutingInput {
    base.ticket.is_new = false;
    base.ticket.queue_id = Some(queue_id);
    base.ticket.amount_used_bot_queues = 1;
    base.ticket.bot = BotState {
        stage: BotStage::OptionMenu,
        menu_queue_id: Some(queue_id),
        path,
        ..BotState::default()
    };
    base
}

fn queue_mut(input: &mut RoutingInput, id: QueueId) -> &mut Queue {
    input
        .queues
        .iter_mut()
        .find(|q| q.id == id)
        .expect("queue exists")
}

fn texts(decision: &RoutingDecision) -> Vec<&str> {
    decision
        .effects
        .iter()
        .filter_map(|e| match e {
            RoutingEffect::SendText { body } => Some(body.as_str()),
            _ => None,
        })
        .collect()
}

fn bot_state(decision: &RoutingDecision) -> Option<&BotState> {
    decision.effects.iter().find_map(|e| match e {
        RoutingEffect::SetBotState { state } => Some(state),
        _ => None,
    })
}

fn has(decision: &RoutingDecision, effect: &RoutingEffect) -> bool {
    decision.effects.contains(effect)
}

fn log(kind: TicketLogType, user: Option<UserId>, queue: Option<QueueId>) -> RoutingEffect {
    RoutingEffect::Log {
        log: TicketLog {
            kind,
            user_id: user,
            queue_id: queue,
        },
    }
}

fn online(id: i64, open: u32) -> Candidate {
    Candidate {
        user_id: UserId(id),
        online: true,
        open_tickets: open,
    }
}

const MENU: &str = "Olá! Escolha um setor:\n\n*[ 1 ]* - Vendas\n*[ 2 ]* - Suporte";

// ---------------------------------------------------------------- who the bot answers

#[test]
fn bot_stays_out_of_tickets_it_may_not_touch() {
    let mut cases = Vec::new();
    let mut i = input("oi");
    i.ticket.status = TicketStatus::Open;
    i.ticket.user_id = Some(UserId(4));
    cases.push(i);
    let mut i = input("oi");
    i.ticket.user_id = Some(UserId(4));
    cases.push(i);
    let mut i = input("oi");
    i.ticket.is_group = true;
    cases.push(i);
    let mut i = input("oi");
    i.contact.disable_bot = true;
    cases.push(i);
    let mut i = input("oi");
    i.ticket.using_integration = true;
    cases.push(i);
    let mut i = input("oi");
    i.from_me = true;
    cases.push(i);
    let mut i = input("oi");
    i.ticket.status = TicketStatus::Closed;
    cases.push(i);
    for case in cases {
        assert!(decide(&case).is_nothing(), "{:?}", case.ticket);
    }
}

#[test]
fn group_tickets_get_the_bot_when_the_connection_treats_groups_as_tickets() {
    let mut i = input("oi");
    i.ticket.is_group = true;
    i.connection.group_as_ticket = true;
    assert_eq!(texts(&decide(&i)), [MENU]);
}

// ---------------------------------------------------------------------- vacation, hours

#[test]
fn vacation_sends_its_message_once_and_nothing_else() {
    let mut i = input("oi");
    i.connection.vacation_start = NaiveDate::from_ymd_opt(2026, 11, 20);
    i.connection.vacation_end = NaiveDate::from_ymd_opt(2026, 11, 30);
    i.connection.vacation_message = "Férias coletivas até 30/11.".into();
    let d = decide(&i);
    assert_eq!(texts(&d), ["Férias coletivas até 30/11."]);
    assert!(
        !d.effects
            .iter()
            .any(|e| matches!(e, RoutingEffect::SetQueue { .. }))
    );
    let state = bot_state(&d).expect("remembers the notice").clone();
    assert_eq!(state.vacation_sent_at, Some(i.now));

    i.ticket.is_new = false;
    i.ticket.bot = state;
    i.now += TimeDelta::hours(3);
    assert!(decide(&i).is_nothing(), "not repeated in the same vacation");
}

#[test]
fn out_of_hours_at_company_level_sends_the_connections_message_and_nothing_else() {
    let mut i = input("oi");
    i.settings.schedule_type = ScheduleType::Company;
    i.company_schedules = hours("08:00", "09:00");
    let d = decide(&i);
    assert_eq!(texts(&d), ["Estamos fechados."]);
    assert!(
        !d.effects
            .iter()
            .any(|e| matches!(e, RoutingEffect::IncrementBotCounter))
    );
    i.now = monday(8, 30);
    assert_eq!(texts(&decide(&i)), [MENU], "open: the menu");
}

#[test]
fn out_of_hours_at_connection_level_reads_the_connections_hours() {
    let mut i = input("oi");
    i.settings.schedule_type = ScheduleType::Connection;
    i.company_schedules = hours("00:00", "23:59");
    i.connection.schedules = hours("14:00", "18:00");
    assert_eq!(texts(&decide(&i)), ["Estamos fechados."]);
}

#[test]
fn out_of_hours_message_is_not_repeated_until_the_hours_opened_again() {
    let mut i = input("oi");
    i.settings.schedule_type = ScheduleType::Company;
    i.company_schedules = hours("08:00", "09:00");
    let state = bot_state(&decide(&i)).expect("state").clone();
    i.ticket.is_new = false;
    i.ticket.bot = state;
    i.now = monday(18, 0);
    assert!(decide(&i).is_nothing(), "same closed period");
    // Tuesday 10:00: the hours opened 08:00-09:00 in between, so a new closed period.
    i.now = monday(10, 0) + TimeDelta::days(1);
    assert_eq!(texts(&decide(&i)), ["Estamos fechados."]);
}

#[test]
fn out_of_hours_at_queue_level_uses_the_tickets_queue_and_its_message() {
    let mut i = at_option_menu(input("1"), VENDAS, vec![]);
    i.settings.schedule_type = ScheduleType::Queue;
    queue_mut(&mut i, VENDAS).schedules = hours("14:00", "15:00");
    queue_mut(&mut i, VENDAS).chatbots = vec![option("Preços", "Tabela", ChatbotOptionType::Text)];
    assert_eq!(texts(&decide(&i)), ["Vendas fechado"]);
}

#[test]
fn queue_level_hours_let_a_ticket_without_queue_see_the_menu() {
    let mut i = input("oi");
    i.settings.schedule_type = ScheduleType::Queue;
    queue_mut(&mut i, VENDAS).schedules = hours("14:00", "15:00");
    assert_eq!(texts(&decide(&i)), [MENU]);
}

#[test]
fn choosing_a_closed_queue_files_the_ticket_and_sends_its_out_of_hours_message() {
    let mut i = at_queue_menu(input("1"), 1);
    i.settings.schedule_type = ScheduleType::Queue;
    queue_mut(&mut i, VENDAS).schedules = hours("14:00", "15:00");
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::SetQueue { queue_id: VENDAS }));
    assert_eq!(texts(&d), ["Vendas fechado"]);
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn disabled_schedule_type_is_always_open() {
    let mut i = input("oi");
    i.company_schedules = hours("01:00", "02:00");
    i.connection.schedules = hours("01:00", "02:00");
    assert_eq!(texts(&decide(&i)), [MENU]);
}

// ------------------------------------------------------------------------ queue menu

#[test]
fn no_queues_means_nothing() {
    let mut i = input("oi");
    i.connection.queue_ids.clear();
    assert!(decide(&i).is_nothing());
}

#[test]
fn one_queue_goes_straight_to_it_with_greetings_when_enabled() {
    let mut i = input("oi");
    i.connection.queue_ids = vec![VENDAS];
    let d = decide(&i);
    assert_eq!(
        d.effects[..3],
        [
            RoutingEffect::SendText {
                body: "Olá! Escolha um setor:".into()
            },
            RoutingEffect::SetQueue { queue_id: VENDAS },
            log(TicketLogType::Queue, None, Some(VENDAS)),
        ]
    );
    assert_eq!(texts(&d), ["Olá! Escolha um setor:", "Bem-vindo às vendas"]);
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn one_queue_without_greeting_when_send_greeting_message_one_queues_is_off() {
    let mut i = input("oi");
    i.connection.queue_ids = vec![VENDAS];
    i.settings.send_greeting_message_one_queues = false;
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::SetQueue { queue_id: VENDAS }));
    assert!(texts(&d).is_empty());
    // The queue's chatbot menu is still shown (without the greeting as its header).
    queue_mut(&mut i, VENDAS).chatbots = vec![option("Preços", "", ChatbotOptionType::Text)];
    assert_eq!(texts(&decide(&i)), ["*[ 1 ]* - Preços\n*[ # ]* - Sair"]);
}

#[test]
fn several_queues_get_the_greeting_with_the_ordered_menu() {
    let mut i = input("oi");
    i.connection.time_send_queue = 10;
    i.connection.send_id_queue = Some(TRIAGEM);
    let d = decide(&i);
    assert_eq!(
        d.effects,
        vec![
            RoutingEffect::SendText { body: MENU.into() },
            RoutingEffect::IncrementBotCounter,
            RoutingEffect::ScheduleTimer {
                at: i.now + TimeDelta::minutes(10),
                kind: TimerKind::SendQueue
            },
            log(TicketLogType::ChatBot, None, None),
            RoutingEffect::SetBotState {
                state: BotState {
                    stage: BotStage::QueueMenu,
                    ..BotState::default()
                }
            },
        ]
    );
}

#[test]
fn no_redirect_timer_without_time_send_queue() {
    let d = decide(&input("oi"));
    assert!(
        !d.effects
            .iter()
            .any(|e| matches!(e, RoutingEffect::ScheduleTimer { .. }))
    );
}

#[test]
fn a_queue_is_chosen_by_number() {
    let i = at_queue_menu(input(" 2 "), 1);
    let d = decide(&i);
    assert_eq!(
        d.effects[..3],
        [
            RoutingEffect::ResetBotCounter,
            RoutingEffect::SetQueue { queue_id: SUPORTE },
            log(TicketLogType::Queue, None, Some(SUPORTE)),
        ]
    );
    assert_eq!(texts(&d), ["Bem-vindo ao suporte"]);
}

#[test]
fn a_queue_is_chosen_by_text_ignoring_case_and_accents() {
    let mut i = at_queue_menu(input("VENDÁS"), 1);
    i.ticket.amount_used_bot_queues = 0;
    assert!(has(
        &decide(&i),
        &RoutingEffect::SetQueue { queue_id: VENDAS }
    ));
}

#[test]
fn a_chosen_queue_with_options_sends_its_chatbot_menu() {
    let mut i = at_queue_menu(input("1"), 1);
    queue_mut(&mut i, VENDAS).chatbots = vec![
        option("Orçamento", "Envie seu pedido", ChatbotOptionType::Text),
        option("Falar com vendedor", "", ChatbotOptionType::Attendant),
    ];
    let d = decide(&i);
    assert_eq!(
        texts(&d),
        [
            "Bem-vindo às vendas\n\n*[ 1 ]* - Orçamento\n*[ 2 ]* - Falar com vendedor\n*[ # ]* - Sair"
        ]
    );
    assert!(has(&d, &RoutingEffect::IncrementBotCounter));
    let state = bot_state(&d).expect("state");
    assert_eq!(state.stage, BotStage::OptionMenu);
    assert_eq!(state.menu_queue_id, Some(VENDAS));
    assert!(state.path.is_empty());
}

#[test]
fn queue_position_message_fills_the_position_placeholder() {
    let mut i = at_queue_menu(input("1"), 1);
    i.settings.send_queue_position = true;
    i.settings.queue_position_message = "Você é o {{position}}º na fila {{queue}}.".into();
    i.snapshots = vec![QueueSnapshot {
        waiting: 2,
        ..QueueSnapshot::new(VENDAS)
    }];
    assert_eq!(
        texts(&decide(&i)),
        ["Bem-vindo às vendas", "Você é o 3º na fila Vendas."]
    );
}

#[test]
fn queue_position_without_placeholder_is_appended() {
    assert_eq!(
        render_position("Sua posição na fila:", 1, "Vendas"),
        "Sua posição na fila: *1*"
    );
}

#[test]
fn no_queue_position_when_the_setting_is_off() {
    let mut i = at_queue_menu(input("1"), 1);
    i.settings.queue_position_message = "Posição {{position}}".into();
    assert_eq!(texts(&decide(&i)), ["Bem-vindo às vendas"]);
}

#[test]
fn an_invalid_reply_repeats_the_menu_and_counts() {
    let i = at_queue_menu(input("quero falar com alguém"), 1);
    let d = decide(&i);
    assert_eq!(
        d.effects,
        vec![
            RoutingEffect::SendText { body: MENU.into() },
            RoutingEffect::IncrementBotCounter
        ]
    );
}

#[test]
fn after_max_use_bot_queues_unanswered_menus_the_ticket_goes_to_send_id_queue() {
    let mut i = at_queue_menu(input("???"), 3);
    i.connection.send_id_queue = Some(TRIAGEM);
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::SetQueue { queue_id: TRIAGEM }));
    assert!(has(&d, &log(TicketLogType::Redirect, None, Some(TRIAGEM))));
    assert!(texts(&d).is_empty(), "no menu, no greeting");
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn after_max_use_bot_queues_without_send_id_queue_the_bot_falls_silent() {
    let i = at_queue_menu(input("???"), 3);
    let d = decide(&i);
    assert!(texts(&d).is_empty());
    let state = bot_state(&d).expect("state").clone();
    assert_eq!(state.stage, BotStage::Exhausted);
    let mut later = i.clone();
    later.ticket.bot = state;
    later.message = "1".into();
    assert!(
        decide(&later).is_nothing(),
        "silent, even for a valid number"
    );
}

#[test]
fn max_use_bot_queues_zero_never_gives_up() {
    let mut i = at_queue_menu(input("???"), 50);
    i.connection.max_use_bot_queues = 0;
    assert_eq!(texts(&decide(&i)), [MENU]);
}

#[test]
fn time_use_bot_queues_resets_the_counter_and_the_bot_speaks_again() {
    let mut i = at_queue_menu(input("oi"), 3);
    i.ticket.bot.stage = BotStage::Exhausted;
    i.connection.time_use_bot_queues = 30;
    i.ticket.last_bot_message_at = Some(i.now - TimeDelta::minutes(29));
    assert!(decide(&i).is_nothing(), "29 minutes: still silent");
    i.ticket.last_bot_message_at = Some(i.now - TimeDelta::minutes(30));
    let d = decide(&i);
    assert_eq!(d.effects[0], RoutingEffect::ResetBotCounter);
    assert_eq!(texts(&d), [MENU]);
    assert!(has(&d, &RoutingEffect::IncrementBotCounter));
}

#[test]
fn a_new_ticket_ignores_a_stale_bot_state() {
    let mut i = input("oi");
    i.ticket.bot.stage = BotStage::Exhausted;
    assert_eq!(texts(&decide(&i)), [MENU]);
}

// ----------------------------------------------------------------- chatbot options

fn vendas_tree(i: &mut RoutingInput) {
    let mut boletos = option("Boletos", "Sobre boletos:", ChatbotOptionType::Text);
    boletos.options = vec![
        option("Segunda via", "Acesse o portal.", ChatbotOptionType::Text),
        option("Prazo", "Até 5 dias.", ChatbotOptionType::Text),
    ];
    let mut financeiro = option("Financeiro", "Financeiro:", ChatbotOptionType::Text);
    financeiro.options = vec![boletos];
    queue_mut(i, VENDAS).chatbots = vec![
        financeiro,
        option(
            "Falar com vendedor",
            "Chamando...",
            ChatbotOptionType::Attendant,
        ),
        option("Ir ao suporte", "", ChatbotOptionType::Queue),
        option("Robô", "", ChatbotOptionType::Integration),
        option("Catálogo", "Segue o catálogo", ChatbotOptionType::File),
    ];
    let options = &mut queue_mut(i, VENDAS).chatbots;
    options[1].opt_user_id = Some(UserId(42));
    options[2].opt_queue_id = Some(SUPORTE);
    options[3].opt_integration_id = Some(77);
    options[4].opt_file_id = Some(5);
}

#[test]
fn a_text_option_with_sub_options_opens_the_next_level_with_back_and_exit() {
    let mut i = at_option_menu(input("1"), VENDAS, vec![]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert_eq!(
        texts(&d),
        ["Financeiro:\n\n*[ 1 ]* - Boletos\n*[ 0 ]* - Voltar\n*[ # ]* - Sair"]
    );
    assert_eq!(bot_state(&d).map(|s| s.path.clone()), Some(vec![0]));
}

#[test]
fn nested_menus_reach_any_depth_by_path() {
    let mut i = at_option_menu(input("boletos"), VENDAS, vec![0]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert_eq!(
        texts(&d),
        [
            "Sobre boletos:\n\n*[ 1 ]* - Segunda via\n*[ 2 ]* - Prazo\n*[ 0 ]* - Voltar\n*[ # ]* - Sair"
        ]
    );
    assert_eq!(bot_state(&d).map(|s| s.path.clone()), Some(vec![0, 0]));
    let mut deeper = at_option_menu(input("2"), VENDAS, vec![0, 0]);
    vendas_tree(&mut deeper);
    let d = decide(&deeper);
    assert_eq!(texts(&d), ["Até 5 dias."]);
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn back_returns_to_the_parent_menu() {
    let mut i = at_option_menu(input("0"), VENDAS, vec![0, 0]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert_eq!(
        texts(&d),
        ["Financeiro:\n\n*[ 1 ]* - Boletos\n*[ 0 ]* - Voltar\n*[ # ]* - Sair"]
    );
    assert_eq!(bot_state(&d).map(|s| s.path.clone()), Some(vec![0]));
    let mut top = at_option_menu(input("voltar"), VENDAS, vec![0]);
    vendas_tree(&mut top);
    let d = decide(&top);
    assert!(texts(&d)[0].starts_with("Bem-vindo às vendas\n\n*[ 1 ]* - Financeiro"));
    assert_eq!(bot_state(&d).map(|s| s.path.clone()), Some(vec![]));
}

#[test]
fn exit_leaves_the_menu_and_waits_in_the_queue() {
    let mut i = at_option_menu(input("#"), VENDAS, vec![0]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert!(texts(&d).is_empty());
    let state = bot_state(&d).expect("state");
    assert_eq!(state.stage, BotStage::Done);
    assert!(state.path.is_empty());
}

#[test]
fn an_invalid_option_repeats_the_current_menu_and_counts() {
    let mut i = at_option_menu(input("9"), VENDAS, vec![0]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert_eq!(
        texts(&d),
        ["Financeiro:\n\n*[ 1 ]* - Boletos\n*[ 0 ]* - Voltar\n*[ # ]* - Sair"]
    );
    assert!(has(&d, &RoutingEffect::IncrementBotCounter));
}

#[test]
fn after_max_use_bot_queues_in_an_option_menu_the_ticket_waits_in_its_queue() {
    let mut i = at_option_menu(input("9"), VENDAS, vec![0]);
    vendas_tree(&mut i);
    i.ticket.amount_used_bot_queues = 3;
    let d = decide(&i);
    assert!(texts(&d).is_empty());
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn an_attendant_option_assigns_the_user_and_logs_it() {
    let mut i = at_option_menu(input("2"), VENDAS, vec![]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert_eq!(texts(&d), ["Chamando..."]);
    assert!(has(
        &d,
        &RoutingEffect::AssignUser {
            user_id: UserId(42)
        }
    ));
    assert!(has(
        &d,
        &log(TicketLogType::Open, Some(UserId(42)), Some(VENDAS))
    ));
}

#[test]
fn a_queue_option_moves_the_ticket_and_greets_from_the_new_queue() {
    let mut i = at_option_menu(input("3"), VENDAS, vec![]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::SetQueue { queue_id: SUPORTE }));
    assert!(has(&d, &log(TicketLogType::Queue, None, Some(SUPORTE))));
    assert_eq!(texts(&d), ["Bem-vindo ao suporte"]);
    assert_eq!(bot_state(&d).and_then(|s| s.menu_queue_id), Some(SUPORTE));
}

#[test]
fn an_integration_option_starts_the_integration() {
    let mut i = at_option_menu(input("4"), VENDAS, vec![]);
    vendas_tree(&mut i);
    let d = decide(&i);
    assert!(has(
        &d,
        &RoutingEffect::StartIntegration { integration_id: 77 }
    ));
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn a_file_option_sends_its_message_and_file_list() {
    let mut i = at_option_menu(input("catalogo"), VENDAS, vec![]);
    vendas_tree(&mut i);
    let d = decide(&i);
    let send = d
        .effects
        .iter()
        .position(|e| {
            *e == RoutingEffect::SendText {
                body: "Segue o catálogo".into(),
            }
        })
        .expect("message");
    let files = d
        .effects
        .iter()
        .position(|e| *e == RoutingEffect::SendFileList { file_list_id: 5 })
        .expect("file list");
    assert!(send < files);
}

#[test]
fn an_option_with_close_ticket_closes_after_its_message() {
    let mut i = at_option_menu(input("2"), VENDAS, vec![]);
    vendas_tree(&mut i);
    queue_mut(&mut i, VENDAS).chatbots[1].close_ticket = true;
    let d = decide(&i);
    let send = d
        .effects
        .iter()
        .position(|e| matches!(e, RoutingEffect::SendText { .. }))
        .expect("message");
    let close = d
        .effects
        .iter()
        .position(|e| *e == RoutingEffect::CloseTicket)
        .expect("closes");
    assert!(send < close);
    assert!(
        !d.effects
            .iter()
            .any(|e| matches!(e, RoutingEffect::AssignUser { .. }))
    );
    assert!(has(&d, &log(TicketLogType::Closed, None, Some(VENDAS))));
}

#[test]
fn a_queue_with_close_ticket_closes_after_its_greeting() {
    let mut i = at_queue_menu(input("2"), 1);
    queue_mut(&mut i, SUPORTE).close_ticket = true;
    let d = decide(&i);
    assert_eq!(texts(&d), ["Bem-vindo ao suporte"]);
    assert_eq!(
        d.effects
            .iter()
            .filter(|e| **e == RoutingEffect::CloseTicket)
            .count(),
        1
    );
}

#[test]
fn a_queue_with_an_integration_starts_it_after_the_greeting() {
    let mut i = at_queue_menu(input("2"), 1);
    queue_mut(&mut i, SUPORTE).integration_id = Some(8);
    let d = decide(&i);
    assert!(has(
        &d,
        &RoutingEffect::StartIntegration { integration_id: 8 }
    ));
}

#[test]
fn a_queue_with_a_file_list_sends_it_after_the_greeting() {
    let mut i = at_queue_menu(input("2"), 1);
    queue_mut(&mut i, SUPORTE).file_list_id = Some(3);
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::SendFileList { file_list_id: 3 }));
}

#[test]
fn a_stale_path_reads_the_reply_against_the_top_menu() {
    let mut i = at_option_menu(input("2"), VENDAS, vec![7, 3]);
    vendas_tree(&mut i);
    assert!(has(
        &decide(&i),
        &RoutingEffect::AssignUser {
            user_id: UserId(42)
        }
    ));
}

#[test]
fn a_ticket_moved_to_another_queue_by_someone_else_gets_no_bot() {
    let mut i = at_option_menu(input("1"), VENDAS, vec![]);
    vendas_tree(&mut i);
    i.ticket.queue_id = Some(SUPORTE);
    assert!(decide(&i).is_nothing());
}

// ------------------------------------------------------------------------- wallets

#[test]
fn direct_tickets_to_wallets_gives_the_ticket_to_the_wallet_owner() {
    let mut i = input("oi");
    i.settings.direct_tickets_to_wallets = true;
    i.contact.wallet_owner = Some(WalletOwner {
        user_id: UserId(8),
        queue_id: Some(SUPORTE),
    });
    let d = decide(&i);
    assert_eq!(
        d.effects[..4],
        [
            RoutingEffect::SetQueue { queue_id: SUPORTE },
            log(TicketLogType::Queue, None, Some(SUPORTE)),
            RoutingEffect::AssignUser { user_id: UserId(8) },
            log(TicketLogType::Open, Some(UserId(8)), Some(SUPORTE)),
        ]
    );
    assert!(texts(&d).is_empty());
    i.settings.direct_tickets_to_wallets = false;
    assert_eq!(texts(&decide(&i)), [MENU], "setting off: the menu");
}

// ------------------------------------------------------------------------ rotation

#[test]
fn rotation_at_once_gives_the_ticket_to_the_least_loaded_online_attendant() {
    let mut i = at_queue_menu(input("1"), 1);
    queue_mut(&mut i, VENDAS).ativar_roteador = true;
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![
            online(3, 2),
            Candidate {
                user_id: UserId(4),
                online: false,
                open_tickets: 0,
            },
            online(5, 1),
        ],
        last_assigned: None,
    }];
    let d = decide(&i);
    assert!(has(&d, &RoutingEffect::AssignUser { user_id: UserId(5) }));
    assert!(has(
        &d,
        &log(TicketLogType::Open, Some(UserId(5)), Some(VENDAS))
    ));
}

#[test]
fn rotation_round_robin_when_configured() {
    let mut i = at_queue_menu(input("1"), 1);
    queue_mut(&mut i, VENDAS).ativar_roteador = true;
    i.settings.rotation = RotationStrategy::RoundRobin;
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![online(3, 0), online(5, 9)],
        last_assigned: Some(UserId(3)),
    }];
    assert!(has(
        &decide(&i),
        &RoutingEffect::AssignUser { user_id: UserId(5) }
    ));
}

#[test]
fn rotation_after_tempo_roteador_schedules_a_timer_and_tells_the_position() {
    let mut i = at_queue_menu(input("1"), 1);
    queue_mut(&mut i, VENDAS).ativar_roteador = true;
    queue_mut(&mut i, VENDAS).tempo_roteador = 15;
    i.settings.send_queue_position = true;
    i.settings.queue_position_message = "Posição: {{position}}".into();
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![online(3, 0)],
        last_assigned: None,
    }];
    let d = decide(&i);
    assert!(has(
        &d,
        &RoutingEffect::ScheduleTimer {
            at: i.now + TimeDelta::minutes(15),
            kind: TimerKind::Rotation { queue_id: VENDAS }
        }
    ));
    assert!(
        !d.effects
            .iter()
            .any(|e| matches!(e, RoutingEffect::AssignUser { .. }))
    );
    assert_eq!(texts(&d), ["Bem-vindo às vendas", "Posição: 1"]);
}

#[test]
fn rotation_with_nobody_available_retries_later() {
    let mut i = at_queue_menu(input("1"), 1);
    queue_mut(&mut i, VENDAS).ativar_roteador = true;
    i.settings.attendant_cap = Some(2);
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![online(3, 2)],
        last_assigned: None,
    }];
    let d = decide(&i);
    assert!(has(
        &d,
        &RoutingEffect::ScheduleTimer {
            at: i.now + TimeDelta::minutes(ROTATION_RETRY_MINUTES),
            kind: TimerKind::Rotation { queue_id: VENDAS }
        }
    ));
}

#[test]
fn user_random_hands_over_at_once_with_the_fair_pick() {
    let mut i = at_queue_menu(input("1"), 1);
    i.settings.user_random = true;
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![online(6, 0), online(2, 0)],
        last_assigned: None,
    }];
    assert!(has(
        &decide(&i),
        &RoutingEffect::AssignUser { user_id: UserId(2) }
    ));
}

// -------------------------------------------------------------------------- timers

fn waiting_in(queue_id: Option<QueueId>) -> RoutingInput {
    let mut i = input("");
    i.ticket.is_new = false;
    i.ticket.queue_id = queue_id;
    i.ticket.bot.stage = if queue_id.is_some() {
        BotStage::Done
    } else {
        BotStage::QueueMenu
    };
    i.connection.send_id_queue = Some(TRIAGEM);
    i.connection.time_send_queue = 10;
    i
}

#[test]
fn send_queue_timer_moves_a_ticket_still_without_queue() {
    let d = on_timer(TimerKind::SendQueue, &waiting_in(None));
    assert_eq!(
        d.effects[..2],
        [
            RoutingEffect::SetQueue { queue_id: TRIAGEM },
            log(TicketLogType::Redirect, None, Some(TRIAGEM)),
        ]
    );
    assert_eq!(bot_state(&d).map(|s| s.stage), Some(BotStage::Done));
}

#[test]
fn send_queue_timer_does_nothing_once_the_ticket_moved_on() {
    assert!(on_timer(TimerKind::SendQueue, &waiting_in(Some(VENDAS))).is_nothing());
    let mut taken = waiting_in(None);
    taken.ticket.status = TicketStatus::Open;
    taken.ticket.user_id = Some(UserId(1));
    assert!(on_timer(TimerKind::SendQueue, &taken).is_nothing());
    let mut closed = waiting_in(None);
    closed.ticket.status = TicketStatus::Closed;
    assert!(on_timer(TimerKind::SendQueue, &closed).is_nothing());
}

#[test]
fn rotation_timer_assigns_a_ticket_still_waiting_in_its_queue() {
    let mut i = waiting_in(Some(VENDAS));
    queue_mut(&mut i, VENDAS).ativar_roteador = true;
    queue_mut(&mut i, VENDAS).tempo_roteador = 10;
    i.snapshots = vec![QueueSnapshot {
        queue_id: VENDAS,
        waiting: 0,
        attendants: vec![online(7, 0)],
        last_assigned: None,
    }];
    let kind = TimerKind::Rotation { queue_id: VENDAS };
    let d = on_timer(kind, &i);
    assert!(has(&d, &RoutingEffect::AssignUser { user_id: UserId(7) }));
    assert!(has(
        &d,
        &log(TicketLogType::Open, Some(UserId(7)), Some(VENDAS))
    ));
    // Moved to another queue meanwhile: nothing.
    let mut moved = i.clone();
    moved.ticket.queue_id = Some(SUPORTE);
    assert!(on_timer(kind, &moved).is_nothing());
    // Nobody online: try again after tempoRoteador.
    let mut nobody = i.clone();
    nobody.snapshots[0].attendants[0].online = false;
    assert_eq!(
        on_timer(kind, &nobody).effects,
        vec![RoutingEffect::ScheduleTimer {
            at: i.now + TimeDelta::minutes(10),
            kind
        }]
    );
    // Rotation switched off meanwhile: nothing.
    let mut off = i;
    queue_mut(&mut off, VENDAS).ativar_roteador = false;
    assert!(on_timer(kind, &off).is_nothing());
}

#[test]
fn settings_are_read_from_the_company_view() {
    let stored: SettingsMap = [
        ("scheduleType", "queue"),
        ("sendGreetingMessageOneQueues", "disabled"),
        ("DirectTicketsToWallets", "enabled"),
        ("sendQueuePosition", "enabled"),
        ("sendQueuePositionMessage", "Posição {{position}}"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    let settings = RoutingSettings::from_view(&SettingsView::new(&stored));
    assert_eq!(settings.schedule_type, ScheduleType::Queue);
    assert!(!settings.send_greeting_message_one_queues);
    assert!(settings.direct_tickets_to_wallets);
    assert!(settings.send_queue_position);
    assert_eq!(settings.queue_position_message, "Posição {{position}}");
    assert!(!settings.user_random);
    assert_eq!(settings.rotation, RotationStrategy::LeastLoaded);
}

#[test]
fn effects_serialise_with_their_names() {
    let effect = RoutingEffect::ScheduleTimer {
        at: monday(10, 0),
        kind: TimerKind::Rotation { queue_id: VENDAS },
    };
    let json = serde_json::to_value(&effect).expect("json");
    assert_eq!(json["effect"], "scheduleTimer");
    assert_eq!(json["kind"]["kind"], "rotation");
    assert_eq!(json["kind"]["queueId"], 1);
    let back: RoutingEffect = serde_json::from_value(json).expect("back");
    assert_eq!(back, effect);
    let input = input("1");
    let json = serde_json::to_string(&input).expect("input json");
    let back: RoutingInput = serde_json::from_str(&json).expect("input back");
    assert_eq!(back, input);
}

// ------------------------------------------------------------------------ property

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("1".to_owned()),
        Just("2".to_owned()),
        Just("3".to_owned()),
        Just("0".to_owned()),
        Just("#".to_owned()),
        Just("vendas".to_owned()),
        Just("Sair".to_owned()),
        ".{0,12}",
    ]
}

fn any_option(depth: u32) -> BoxedStrategy<ChatbotOption> {
    let leaf = (
        any_text(),
        any_text(),
        0usize..5,
        proptest::option::of(1i64..5),
        any::<bool>(),
    )
        .prop_map(|(name, greeting, kind, target, close)| {
            let queue_type = [
                ChatbotOptionType::Text,
                ChatbotOptionType::Attendant,
                ChatbotOptionType::Queue,
                ChatbotOptionType::Integration,
                ChatbotOptionType::File,
            ][kind];
            ChatbotOption {
                name,
                greeting_message: greeting,
                queue_type,
                opt_queue_id: target.map(QueueId),
                opt_user_id: target.map(UserId),
                opt_integration_id: target,
                opt_file_id: target,
                close_ticket: close,
                ..ChatbotOption::default()
            }
        });
    if depth == 0 {
        leaf.boxed()
    } else {
        (leaf, proptest::collection::vec(any_option(depth - 1), 0..3))
            .prop_map(|(mut option, children)| {
                option.options = children;
                option
            })
            .boxed()
    }
}

fn any_rows() -> impl Strategy<Value = Vec<ScheduleRow>> {
    prop_oneof![
        Just(Vec::new()),
        Just(hours("08:00", "18:00")),
        Just(hours("22:00", "02:00")),
        Just(hours("", "")),
    ]
}

fn any_queue() -> impl Strategy<Value = Queue> {
    (
        1i64..5,
        any_text(),
        any_text(),
        (any::<bool>(), any::<bool>(), -5i64..20),
        (proptest::option::of(1i64..4), proptest::option::of(1i64..4)),
        any_rows(),
        proptest::collection::vec(any_option(2), 0..3),
    )
        .prop_map(
            |(id, name, greeting, (close, rotate, tempo), (integration, files), rows, chatbots)| {
                let mut q = queue(QueueId(id), &name, &greeting);
                q.close_ticket = close;
                q.ativar_roteador = rotate;
                q.tempo_roteador = tempo;
                q.integration_id = integration;
                q.file_list_id = files;
                q.schedules = rows;
                q.chatbots = chatbots;
                q
            },
        )
}

fn any_stage() -> impl Strategy<Value = BotStage> {
    prop_oneof![
        Just(BotStage::Idle),
        Just(BotStage::QueueMenu),
        Just(BotStage::OptionMenu),
        Just(BotStage::Exhausted),
        Just(BotStage::Done),
    ]
}

fn any_input() -> impl Strategy<Value = RoutingInput> {
    let ticket = (
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        proptest::option::of(1i64..5),
        0u32..6,
        any_stage(),
        proptest::option::of(1i64..5),
        proptest::collection::vec(0usize..4, 0..4),
        proptest::option::of(-100i64..100),
    );
    let connection = (
        proptest::collection::vec(1i64..5, 0..4),
        (-1i64..5, -5i64..40, -5i64..40),
        proptest::option::of(1i64..6),
        any::<bool>(),
        proptest::option::of((-3i64..3, 0i64..4)),
        any_rows(),
    );
    let settings = (
        0usize..4,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        any::<bool>(),
        proptest::option::of(0u32..3),
        any_text(),
    );
    let world = (
        proptest::collection::vec(any_queue(), 0..5),
        any_rows(),
        proptest::collection::vec(
            (
                1i64..5,
                0u32..5,
                proptest::collection::vec((1i64..6, any::<bool>(), 0u32..4), 0..4),
            ),
            0..4,
        ),
        any_text(),
        any::<bool>(),
        -1_000_000i64..1_000_000,
        proptest::option::of(1i64..6),
    );
    (ticket, connection, settings, world).prop_map(|(t, c, s, w)| {
        let mut i = input("");
        let (
            (is_new, is_group, disable_bot, integration),
            queue,
            counter,
            stage,
            menu_queue,
            path,
            last,
        ) = t;
        i.ticket.is_new = is_new;
        i.ticket.is_group = is_group;
        i.contact.disable_bot = disable_bot;
        i.ticket.using_integration = integration;
        i.ticket.queue_id = queue.map(QueueId);
        i.ticket.amount_used_bot_queues = counter;
        i.ticket.bot = BotState {
            stage,
            menu_queue_id: menu_queue.map(QueueId),
            path,
            out_of_hours_sent_at: last.map(|m| monday(10, 0) + TimeDelta::minutes(m * 30)),
            vacation_sent_at: last.map(|m| monday(10, 0) + TimeDelta::minutes(m)),
        };
        i.ticket.last_bot_message_at = last.map(|m| monday(10, 0) + TimeDelta::minutes(m));
        let (queue_ids, (max, time_use, time_send), send_id, group_as_ticket, vacation, rows) = c;
        i.connection.queue_ids = queue_ids.into_iter().map(QueueId).collect();
        i.connection.max_use_bot_queues = max;
        i.connection.time_use_bot_queues = time_use;
        i.connection.time_send_queue = time_send;
        i.connection.send_id_queue = send_id.map(QueueId);
        i.connection.group_as_ticket = group_as_ticket;
        if let Some((start, len)) = vacation {
            let day = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default();
            i.connection.vacation_start = day.checked_add_signed(TimeDelta::days(start));
            i.connection.vacation_end = day.checked_add_signed(TimeDelta::days(start + len - 1));
            i.connection.vacation_message = "Férias".into();
        }
        i.connection.schedules = rows;
        let (
            schedule,
            (greet_one, wallets, position, user_random),
            round_robin,
            cap,
            position_message,
        ) = s;
        i.settings.schedule_type = [
            ScheduleType::Disabled,
            ScheduleType::Company,
            ScheduleType::Queue,
            ScheduleType::Connection,
        ][schedule];
        i.settings.send_greeting_message_one_queues = greet_one;
        i.settings.direct_tickets_to_wallets = wallets;
        i.settings.send_queue_position = position;
        i.settings.user_random = user_random;
        i.settings.rotation = if round_robin {
            RotationStrategy::RoundRobin
        } else {
            RotationStrategy::LeastLoaded
        };
        i.settings.attendant_cap = cap;
        i.settings.queue_position_message = position_message;
        let (queues, company_rows, snapshots, message, from_me, minutes, wallet) = w;
        i.queues = queues;
        i.company_schedules = company_rows;
        i.snapshots = snapshots
            .into_iter()
            .map(|(id, waiting, people)| QueueSnapshot {
                queue_id: QueueId(id),
                waiting,
                attendants: people
                    .into_iter()
                    .map(|(u, on, open)| Candidate {
                        user_id: UserId(u),
                        online: on,
                        open_tickets: open,
                    })
                    .collect(),
                last_assigned: None,
            })
            .collect();
        i.message = message;
        i.from_me = from_me;
        i.now = monday(10, 0) + TimeDelta::minutes(minutes);
        i.contact.wallet_owner = wallet.map(|u| WalletOwner {
            user_id: UserId(u),
            queue_id: queue.map(QueueId),
        });
        i
    })
}

/// Invariants every decision keeps.
fn check(decision: &RoutingDecision, input: &RoutingInput) -> Result<(), TestCaseError> {
    let effects = &decision.effects;
    prop_assert!(!effects.is_empty());
    if effects.contains(&RoutingEffect::Nothing) {
        prop_assert_eq!(effects.len(), 1);
    }
    for (i, effect) in effects.iter().enumerate() {
        match effect {
            RoutingEffect::AssignUser { user_id } => {
                let logged = effects.get(i + 1).is_some_and(|next| {
                    matches!(next, RoutingEffect::Log { log } if log.kind == TicketLogType::Open && log.user_id == Some(*user_id))
                });
                prop_assert!(logged, "every assignment is logged");
            }
            RoutingEffect::SetQueue { queue_id } => {
                let logged = effects.get(i + 1).is_some_and(|next| {
                    matches!(next, RoutingEffect::Log { log } if log.queue_id == Some(*queue_id))
                });
                prop_assert!(logged, "every queue change is logged");
            }
            RoutingEffect::ScheduleTimer { at, .. } => prop_assert!(*at > input.now),
            RoutingEffect::SendText { body } => prop_assert!(!body.trim().is_empty()),
            _ => {}
        }
    }
    let assignments = effects
        .iter()
        .filter(|e| matches!(e, RoutingEffect::AssignUser { .. }))
        .count();
    prop_assert!(assignments <= 1, "at most one assignment");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decide_never_panics_and_keeps_its_invariants(input in any_input()) {
        let decision = decide(&input);
        check(&decision, &input)?;
        if input.from_me || input.contact.disable_bot || input.ticket.using_integration {
            prop_assert!(decision.is_nothing());
        }
        for kind in [TimerKind::SendQueue, TimerKind::Rotation { queue_id: QueueId(1) }] {
            check(&on_timer(kind, &input), &input)?;
        }
    }
}
