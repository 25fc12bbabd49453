//! Queues with their chatbot menus and working hours (spec 2 "Queues", §3, §5).
//!
//! These are the shapes the server stores and the web app edits, and the input the routing
//! decisions in [`crate::routing`] read. A queue holds a tree of chatbot options of any depth;
//! working hours are seven [`ScheduleRow`]s (one per weekday, shifts A and B) kept on the queue,
//! the connection or the company, as the `scheduleType` setting chooses.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::ids::{QueueId, UserId};
use crate::validation::{
    NAME_MAX_CHARS, NAME_MIN_CHARS, QUEUE_COLOR_MAX_CHARS, QUEUE_COLOR_MIN_CHARS, parse_hh_mm,
};

/// The id of a chatbot option (a node of a queue's menu tree).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct ChatbotId(pub i64);

/// What choosing a chatbot option does (`queueType`; the spec spells one value `attendent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChatbotOptionType {
    /// Sends the option's text (its `greetingMessage`), then its sub-options if it has any.
    #[default]
    Text,
    /// Hands the ticket to one attendant (`optUserId`).
    #[serde(rename = "attendent")]
    Attendant,
    /// Moves the ticket to another queue (`optQueueId`).
    Queue,
    /// Starts a queue integration (`optIntegrationId`).
    Integration,
    /// Sends a file list (`optFileId`).
    File,
}

/// One option of a chatbot menu, with its nested options.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct ChatbotOption {
    /// `None` for an option not saved yet.
    pub id: Option<ChatbotId>,
    /// The option's label in the menu (at least 4 characters).
    pub name: String,
    /// The text sent when the option is chosen (required to open a next level).
    pub greeting_message: String,
    pub queue_type: ChatbotOptionType,
    pub opt_queue_id: Option<QueueId>,
    pub opt_user_id: Option<UserId>,
    pub opt_integration_id: Option<i64>,
    pub opt_file_id: Option<i64>,
    /// Close the ticket once the option's message is sent.
    pub close_ticket: bool,
    /// Sub-options, in menu order (numbered 1, 2, ... as shown to the contact).
    #[cfg_attr(feature = "openapi", schema(no_recursion))]
    pub options: Vec<ChatbotOption>,
}

/// Working hours of one weekday: shift A and shift B, each `HH:MM`-`HH:MM`. An empty shift
/// (both ends empty) means closed for that shift.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct ScheduleRow {
    /// The weekday's name as shown (Portuguese, e.g. `Segunda-feira`).
    pub weekday: String,
    /// The weekday in English lower case: `monday` ... `sunday` (the key the rules use).
    pub weekday_en: String,
    #[serde(rename = "startTimeA")]
    pub start_time_a: String,
    #[serde(rename = "endTimeA")]
    pub end_time_a: String,
    #[serde(rename = "startTimeB")]
    pub start_time_b: String,
    #[serde(rename = "endTimeB")]
    pub end_time_b: String,
}

/// The weekdays as `(weekday, weekdayEn)`, Monday first.
pub const WEEKDAYS: [(&str, &str); 7] = [
    ("Segunda-feira", "monday"),
    ("Terça-feira", "tuesday"),
    ("Quarta-feira", "wednesday"),
    ("Quinta-feira", "thursday"),
    ("Sexta-feira", "friday"),
    ("Sábado", "saturday"),
    ("Domingo", "sunday"),
];

/// Default shift A (spec 2 "Queues").
pub const DEFAULT_SHIFT_A: (&str, &str) = ("08:00", "12:00");
/// Default shift B.
pub const DEFAULT_SHIFT_B: (&str, &str) = ("13:00", "18:00");

/// Seven rows with the default shifts on every day.
pub fn default_schedules() -> Vec<ScheduleRow> {
    WEEKDAYS
        .iter()
        .map(|(weekday, weekday_en)| ScheduleRow {
            weekday: (*weekday).to_owned(),
            weekday_en: (*weekday_en).to_owned(),
            start_time_a: DEFAULT_SHIFT_A.0.to_owned(),
            end_time_a: DEFAULT_SHIFT_A.1.to_owned(),
            start_time_b: DEFAULT_SHIFT_B.0.to_owned(),
            end_time_b: DEFAULT_SHIFT_B.1.to_owned(),
        })
        .collect()
}

/// A queue with everything its dialog edits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Queue {
    pub id: QueueId,
    pub name: String,
    pub color: String,
    /// Position in menus and lists (lower first; `None` after the ordered ones).
    pub order_queue: Option<i64>,
    /// Sent when the contact lands in this queue (and introduces its chatbot menu).
    pub greeting_message: String,
    /// Sent outside this queue's hours when `scheduleType` is `queue`.
    pub out_of_hours_message: String,
    /// Close the ticket after the greeting (an information-only queue).
    pub close_ticket: bool,
    /// `ativarRoteador`: hand pending tickets of this queue to its attendants in turn.
    pub ativar_roteador: bool,
    /// `tempoRoteador`: minutes between rotation rounds.
    pub tempo_roteador: i64,
    pub integration_id: Option<i64>,
    pub file_list_id: Option<i64>,
    pub schedules: Vec<ScheduleRow>,
    /// The top level of the chatbot menu, in order.
    pub chatbots: Vec<ChatbotOption>,
}

/// The fields of a queue as the dialog sends them (create, and full replace on update: the
/// chatbot tree sent replaces the stored one; options keep their ids when sent with them).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct QueueInput {
    pub name: String,
    pub color: String,
    pub order_queue: Option<i64>,
    pub greeting_message: String,
    pub out_of_hours_message: String,
    pub close_ticket: bool,
    pub ativar_roteador: bool,
    pub tempo_roteador: i64,
    pub integration_id: Option<i64>,
    pub file_list_id: Option<i64>,
    /// `None` keeps the stored rows (defaults on create).
    pub schedules: Option<Vec<ScheduleRow>>,
    pub chatbots: Vec<ChatbotOption>,
}

/// The minute choices for `tempoRoteador` (spec 2 §9; 0, the default, rotates at once).
pub const ROTATION_MINUTE_OPTIONS: [i64; 8] = [0, 2, 5, 10, 15, 30, 45, 60];

/// Most levels a chatbot menu may have (the top level is level 1), against abuse.
pub const CHATBOT_MAX_DEPTH: usize = 10;
/// Most chatbot options a queue may hold, every level counted, against abuse.
pub const CHATBOT_MAX_OPTIONS: usize = 200;
/// Shortest chatbot option name (spec 2 §5).
pub const CHATBOT_NAME_MIN_CHARS: usize = 4;
/// Longest chatbot option name.
pub const CHATBOT_NAME_MAX_CHARS: usize = 100;

/// A chatbot option as `GET /chatbot/{id}` answers it and `POST /chatbot` takes it: the option
/// (with its nested options) plus where it hangs in its queue's tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChatbotNode {
    /// The queue whose menu holds the option.
    pub queue_id: QueueId,
    /// The option it is nested in; `None` at the top level.
    #[serde(default)]
    pub parent_id: Option<ChatbotId>,
    /// The option itself, with its sub-options.
    #[serde(flatten)]
    pub option: ChatbotOption,
}

/// What the queue rules need to know about the company besides the input itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueContext<'a> {
    /// The company's queues (targets of `queue` options).
    pub queue_ids: &'a [QueueId],
    /// The company's users (targets of `attendent` options).
    pub user_ids: &'a [UserId],
    /// The company's `scheduleType` setting is `queue`: queues need an out-of-hours message.
    pub schedule_type_queue: bool,
    /// How many queues the company has besides the one being saved.
    pub other_queues: usize,
}

/// Collects field errors under a path prefix.
#[derive(Debug, Default)]
struct Problems(Vec<FieldError>);

impl Problems {
    fn push(&mut self, field: impl Into<String>, code: FieldCode) {
        self.0.push(FieldError::new(field, code));
    }

    fn text(&mut self, field: &str, value: &str, min: usize, max: usize) {
        let len = value.trim().chars().count();
        if len == 0 {
            self.push(field, FieldCode::Required);
        } else if len < min {
            self.push(field, FieldCode::TooShort);
        } else if len > max {
            self.push(field, FieldCode::TooLong);
        }
    }

    fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.0))
        }
    }
}

/// `prefix.field`, or `field` at the root.
fn path(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_owned()
    } else {
        format!("{prefix}.{field}")
    }
}

/// The number of options in `options`, every level counted.
pub fn count_options(options: &[ChatbotOption]) -> usize {
    options.iter().map(|o| 1 + count_options(&o.options)).sum()
}

/// The number of levels below and including `options` (0 for no options).
pub fn menu_depth(options: &[ChatbotOption]) -> usize {
    options
        .iter()
        .map(|o| 1 + menu_depth(&o.options))
        .max()
        .unwrap_or(0)
}

/// Checks one option and its sub-options; `level` is the option's level (1 at the top).
fn check_option(
    option: &ChatbotOption,
    prefix: &str,
    level: usize,
    ctx: &QueueContext<'_>,
    problems: &mut Problems,
) {
    problems.text(
        &path(prefix, "name"),
        &option.name,
        CHATBOT_NAME_MIN_CHARS,
        CHATBOT_NAME_MAX_CHARS,
    );
    if !option.options.is_empty() && option.greeting_message.trim().is_empty() {
        // "Chatbot message required to proceed to the next level."
        problems.push(path(prefix, "greetingMessage"), FieldCode::Required);
    }
    match option.queue_type {
        ChatbotOptionType::Text => {}
        ChatbotOptionType::Queue => match option.opt_queue_id {
            None => problems.push(path(prefix, "optQueueId"), FieldCode::Required),
            Some(id) if !ctx.queue_ids.contains(&id) => {
                problems.push(path(prefix, "optQueueId"), FieldCode::InvalidFormat);
            }
            Some(_) => {}
        },
        ChatbotOptionType::Attendant => match option.opt_user_id {
            None => problems.push(path(prefix, "optUserId"), FieldCode::Required),
            Some(id) if !ctx.user_ids.contains(&id) => {
                problems.push(path(prefix, "optUserId"), FieldCode::InvalidFormat);
            }
            Some(_) => {}
        },
        ChatbotOptionType::Integration => {
            if option.opt_integration_id.is_none() {
                problems.push(path(prefix, "optIntegrationId"), FieldCode::Required);
            }
        }
        ChatbotOptionType::File => {
            if option.opt_file_id.is_none() {
                problems.push(path(prefix, "optFileId"), FieldCode::Required);
            }
        }
    }
    if option.options.is_empty() {
        return;
    }
    if level >= CHATBOT_MAX_DEPTH {
        problems.push(path(prefix, "options"), FieldCode::OutOfRange);
        return;
    }
    for (i, child) in option.options.iter().enumerate() {
        check_option(
            child,
            &path(prefix, &format!("options[{i}]")),
            level + 1,
            ctx,
            problems,
        );
    }
}

/// Checks a list of options starting at `level`, under the field `field` (`chatbots` or
/// `options`).
fn check_options(
    options: &[ChatbotOption],
    field: &str,
    level: usize,
    ctx: &QueueContext<'_>,
    problems: &mut Problems,
) {
    for (i, option) in options.iter().enumerate() {
        check_option(option, &format!("{field}[{i}]"), level, ctx, problems);
    }
}

/// Checks seven schedule rows under the field `field` (`schedules`): one per weekday (distinct
/// `weekdayEn` values of [`WEEKDAYS`]), each shift either empty at both ends or `HH:MM` to a
/// later `HH:MM`.
fn check_schedules(rows: &[ScheduleRow], field: &str, problems: &mut Problems) {
    if rows.len() != WEEKDAYS.len() {
        problems.push(field, FieldCode::InvalidFormat);
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let prefix = format!("{field}[{i}]");
        let day = row.weekday_en.trim();
        if !WEEKDAYS.iter().any(|(_, en)| *en == day) || seen.contains(&day) {
            problems.push(path(&prefix, "weekdayEn"), FieldCode::InvalidFormat);
        }
        seen.push(day);
        for (start_name, start, end_name, end) in [
            ("startTimeA", &row.start_time_a, "endTimeA", &row.end_time_a),
            ("startTimeB", &row.start_time_b, "endTimeB", &row.end_time_b),
        ] {
            let (start, end) = (start.trim(), end.trim());
            if start.is_empty() && end.is_empty() {
                continue;
            }
            let from = parse_hh_mm(start);
            let to = parse_hh_mm(end);
            if from.is_none() {
                problems.push(path(&prefix, start_name), FieldCode::InvalidFormat);
            }
            match (from, to) {
                (_, None) => problems.push(path(&prefix, end_name), FieldCode::InvalidFormat),
                (Some(from), Some(to)) if to <= from => {
                    problems.push(path(&prefix, end_name), FieldCode::OutOfRange);
                }
                _ => {}
            }
        }
    }
}

/// Checks working hours (`PUT /companies/{id}/schedules`, a queue's or a connection's hours):
/// field errors under `schedules[i]`.
pub fn validate_schedules(rows: &[ScheduleRow]) -> Result<()> {
    let mut problems = Problems::default();
    check_schedules(rows, "schedules", &mut problems);
    problems.finish()
}

/// Checks a queue as the dialog sends it (spec 2 §5): `name` 2-50, `color` 3-9, `tempoRoteador`
/// one of [`ROTATION_MINUTE_OPTIONS`], `orderQueue` not negative, `outOfHoursMessage` when
/// `scheduleType` is `queue`, valid `schedules`, and the chatbot tree (names of at least 4
/// characters, a message on every option that opens a next level, targets of the company, at most
/// [`CHATBOT_MAX_DEPTH`] levels and [`CHATBOT_MAX_OPTIONS`] options). Field paths name nested
/// options as `chatbots[0].options[1].name`.
///
/// When the company has other queues the greeting is required: alone, that gives
/// `ERR_WAPP_GREETING_REQUIRED` (the catalogue's "greeting required when more than one queue")
/// with the field `greetingMessage`; with other problems it is one more field of
/// `ERR_VALIDATION`.
pub fn validate_queue_input(input: &QueueInput, ctx: &QueueContext<'_>) -> Result<()> {
    let mut problems = Problems::default();
    problems.text("name", &input.name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    problems.text(
        "color",
        &input.color,
        QUEUE_COLOR_MIN_CHARS,
        QUEUE_COLOR_MAX_CHARS,
    );
    if !ROTATION_MINUTE_OPTIONS.contains(&input.tempo_roteador) {
        problems.push("tempoRoteador", FieldCode::OutOfRange);
    }
    if input.order_queue.is_some_and(|o| o < 0) {
        problems.push("orderQueue", FieldCode::OutOfRange);
    }
    if ctx.schedule_type_queue && input.out_of_hours_message.trim().is_empty() {
        problems.push("outOfHoursMessage", FieldCode::Required);
    }
    if let Some(rows) = &input.schedules {
        check_schedules(rows, "schedules", &mut problems);
    }
    if count_options(&input.chatbots) > CHATBOT_MAX_OPTIONS {
        problems.push("chatbots", FieldCode::TooLong);
    } else {
        check_options(&input.chatbots, "chatbots", 1, ctx, &mut problems);
    }
    let greeting_missing = ctx.other_queues > 0 && input.greeting_message.trim().is_empty();
    if greeting_missing {
        if problems.0.is_empty() {
            return Err(Error {
                code: ErrorCode::ERR_WAPP_GREETING_REQUIRED,
                detail: None,
                fields: vec![FieldError::new("greetingMessage", FieldCode::Required)],
            });
        }
        problems.push("greetingMessage", FieldCode::Required);
    }
    problems.finish()
}

/// Checks one chatbot option sent on its own (`POST /chatbot`, `PUT /chatbot/{id}`): the option
/// rules of [`validate_queue_input`] with paths relative to the option (`name`,
/// `options[0].name`), `level` the option's level in its menu (1 at the top) and
/// `others_in_queue` the options the queue keeps besides this one and its sub-options.
pub fn validate_chatbot(
    option: &ChatbotOption,
    level: usize,
    others_in_queue: usize,
    ctx: &QueueContext<'_>,
) -> Result<()> {
    let mut problems = Problems::default();
    if others_in_queue + count_options(std::slice::from_ref(option)) > CHATBOT_MAX_OPTIONS {
        problems.push("options", FieldCode::TooLong);
    } else if level > CHATBOT_MAX_DEPTH {
        problems.push("parentId", FieldCode::OutOfRange);
    } else {
        check_option(option, "", level, ctx, &mut problems);
    }
    problems.finish()
}

/// The path of indices to the option `id` in `options` (`[1, 0]`: the first sub-option of the
/// second top-level option), or `None`.
pub fn find_path(options: &[ChatbotOption], id: ChatbotId) -> Option<Vec<usize>> {
    for (i, option) in options.iter().enumerate() {
        if option.id == Some(id) {
            return Some(vec![i]);
        }
        if let Some(mut rest) = find_path(&option.options, id) {
            rest.insert(0, i);
            return Some(rest);
        }
    }
    None
}

/// The option at `path` in `options` (see [`find_path`]).
pub fn option_at<'a>(options: &'a [ChatbotOption], path: &[usize]) -> Option<&'a ChatbotOption> {
    let (first, rest) = path.split_first()?;
    let option = options.get(*first)?;
    if rest.is_empty() {
        Some(option)
    } else {
        option_at(&option.options, rest)
    }
}

/// The options list holding the option at `path` (the top level for a one-step path), mutable.
pub fn siblings_at_mut<'a>(
    options: &'a mut Vec<ChatbotOption>,
    path: &[usize],
) -> Option<&'a mut Vec<ChatbotOption>> {
    match path.split_first() {
        None => None,
        Some((_, [])) => Some(options),
        Some((first, rest)) => siblings_at_mut(&mut options.get_mut(*first)?.options, rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatbot_option_json_uses_the_spec_names() {
        let json = serde_json::json!({
            "name": "Financeiro",
            "greetingMessage": "Escolha",
            "queueType": "attendent",
            "optUserId": 7,
            "options": [{"name": "Boletos", "queueType": "queue", "optQueueId": 3}]
        });
        let option: ChatbotOption = serde_json::from_value(json).expect("parses");
        assert_eq!(option.queue_type, ChatbotOptionType::Attendant);
        assert_eq!(option.opt_user_id, Some(UserId(7)));
        assert_eq!(option.options[0].opt_queue_id, Some(QueueId(3)));
        let back = serde_json::to_value(&option).expect("serializes");
        assert_eq!(back["queueType"], "attendent");
    }

    #[test]
    fn default_schedules_cover_the_week_with_both_shifts() {
        let rows = default_schedules();
        assert_eq!(rows.len(), 7);
        assert!(
            rows.iter()
                .all(|r| r.start_time_a == "08:00" && r.end_time_b == "18:00")
        );
        let json = serde_json::to_value(&rows[0]).expect("serializes");
        assert_eq!(json["weekdayEn"], "monday");
        assert_eq!(json["startTimeA"], "08:00");
    }

    fn fields_of(result: Result<()>) -> Vec<(String, FieldCode)> {
        result
            .err()
            .map(|e| e.fields.into_iter().map(|f| (f.field, f.code)).collect())
            .unwrap_or_default()
    }

    fn opt(name: &str) -> ChatbotOption {
        ChatbotOption {
            name: name.to_owned(),
            ..ChatbotOption::default()
        }
    }

    fn valid_input() -> QueueInput {
        QueueInput {
            name: "Vendas".into(),
            color: "#ff0000".into(),
            greeting_message: "Olá".into(),
            schedules: Some(default_schedules()),
            chatbots: vec![ChatbotOption {
                greeting_message: "Escolha".into(),
                options: vec![opt("Planos")],
                ..opt("Comercial")
            }],
            ..QueueInput::default()
        }
    }

    const QUEUES: [QueueId; 2] = [QueueId(1), QueueId(2)];
    const USERS: [UserId; 1] = [UserId(7)];

    fn ctx(other_queues: usize, schedule_type_queue: bool) -> QueueContext<'static> {
        QueueContext {
            queue_ids: &QUEUES,
            user_ids: &USERS,
            schedule_type_queue,
            other_queues,
        }
    }

    #[test]
    fn a_valid_queue_passes() {
        assert_eq!(validate_queue_input(&valid_input(), &ctx(0, false)), Ok(()));
        let mut rotating = valid_input();
        for minutes in ROTATION_MINUTE_OPTIONS {
            rotating.tempo_roteador = minutes;
            assert_eq!(validate_queue_input(&rotating, &ctx(3, false)), Ok(()));
        }
    }

    #[test]
    fn queue_fields_follow_spec_2_section_5() {
        let input = QueueInput {
            name: "V".into(),
            color: "#1234567890".into(),
            tempo_roteador: 7,
            order_queue: Some(-1),
            ..valid_input()
        };
        assert_eq!(
            fields_of(validate_queue_input(&input, &ctx(0, true))),
            vec![
                ("name".into(), FieldCode::TooShort),
                ("color".into(), FieldCode::TooLong),
                ("tempoRoteador".into(), FieldCode::OutOfRange),
                ("orderQueue".into(), FieldCode::OutOfRange),
                ("outOfHoursMessage".into(), FieldCode::Required),
            ]
        );
        let empty = QueueInput {
            name: " ".into(),
            color: String::new(),
            ..valid_input()
        };
        assert_eq!(
            fields_of(validate_queue_input(&empty, &ctx(0, false))),
            vec![
                ("name".into(), FieldCode::Required),
                ("color".into(), FieldCode::Required),
            ]
        );
    }

    #[test]
    fn a_greeting_is_required_once_the_company_has_another_queue() {
        let input = QueueInput {
            greeting_message: "  ".into(),
            ..valid_input()
        };
        assert_eq!(validate_queue_input(&input, &ctx(0, false)), Ok(()));
        let err = validate_queue_input(&input, &ctx(1, false)).expect_err("greeting");
        assert_eq!(err.code, ErrorCode::ERR_WAPP_GREETING_REQUIRED);
        assert_eq!(
            err.fields,
            vec![FieldError::new("greetingMessage", FieldCode::Required)]
        );
        // With other problems it is one more field of the validation error.
        let both = QueueInput {
            name: String::new(),
            ..input
        };
        let err = validate_queue_input(&both, &ctx(1, false)).expect_err("both");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(
            fields_of(Err(err)),
            vec![
                ("name".into(), FieldCode::Required),
                ("greetingMessage".into(), FieldCode::Required),
            ]
        );
    }

    #[test]
    fn chatbot_options_are_checked_at_every_level() {
        let mut input = valid_input();
        input.chatbots = vec![
            ChatbotOption {
                // Opens a next level without a message; its child is too short.
                options: vec![ChatbotOption {
                    greeting_message: "Sub".into(),
                    options: vec![ChatbotOption {
                        queue_type: ChatbotOptionType::Queue,
                        opt_queue_id: Some(QueueId(99)),
                        ..opt("Fila externa")
                    }],
                    ..opt("abc")
                }],
                ..opt("Comercial")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::Attendant,
                ..opt("Falar com alguém")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::Attendant,
                opt_user_id: Some(UserId(8)),
                ..opt("Outro atendente")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::Integration,
                ..opt("Integração")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::File,
                ..opt("Arquivos")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::Queue,
                ..opt("Outra fila")
            },
            ChatbotOption {
                queue_type: ChatbotOptionType::Queue,
                opt_queue_id: Some(QueueId(2)),
                opt_user_id: Some(UserId(7)),
                ..opt("")
            },
        ];
        assert_eq!(
            fields_of(validate_queue_input(&input, &ctx(0, false))),
            vec![
                ("chatbots[0].greetingMessage".into(), FieldCode::Required),
                ("chatbots[0].options[0].name".into(), FieldCode::TooShort),
                (
                    "chatbots[0].options[0].options[0].optQueueId".into(),
                    FieldCode::InvalidFormat
                ),
                ("chatbots[1].optUserId".into(), FieldCode::Required),
                ("chatbots[2].optUserId".into(), FieldCode::InvalidFormat),
                ("chatbots[3].optIntegrationId".into(), FieldCode::Required),
                ("chatbots[4].optFileId".into(), FieldCode::Required),
                ("chatbots[5].optQueueId".into(), FieldCode::Required),
                ("chatbots[6].name".into(), FieldCode::Required),
            ]
        );
    }

    /// A chain of `levels` options, each the only child of the one before.
    fn chain(levels: usize) -> ChatbotOption {
        let mut option = opt("Folha");
        for _ in 1..levels {
            option = ChatbotOption {
                greeting_message: "Próximo".into(),
                options: vec![option],
                ..opt("Nível")
            };
        }
        option
    }

    #[test]
    fn menus_are_limited_in_depth_and_size() {
        let mut input = valid_input();
        input.chatbots = vec![chain(CHATBOT_MAX_DEPTH)];
        assert_eq!(menu_depth(&input.chatbots), CHATBOT_MAX_DEPTH);
        assert_eq!(validate_queue_input(&input, &ctx(0, false)), Ok(()));
        input.chatbots = vec![chain(CHATBOT_MAX_DEPTH + 1)];
        let deepest_parent = (1..CHATBOT_MAX_DEPTH)
            .map(|_| "options[0]")
            .fold("chatbots[0]".to_owned(), |acc, part| {
                format!("{acc}.{part}")
            });
        assert_eq!(
            fields_of(validate_queue_input(&input, &ctx(0, false))),
            vec![(format!("{deepest_parent}.options"), FieldCode::OutOfRange)]
        );

        input.chatbots = (0..CHATBOT_MAX_OPTIONS).map(|_| opt("Opção")).collect();
        assert_eq!(validate_queue_input(&input, &ctx(0, false)), Ok(()));
        input.chatbots.push(opt("Opção"));
        assert_eq!(
            fields_of(validate_queue_input(&input, &ctx(0, false))),
            vec![("chatbots".into(), FieldCode::TooLong)]
        );
    }

    #[test]
    fn a_single_option_is_checked_where_it_goes() {
        let ctx = ctx(0, false);
        assert_eq!(validate_chatbot(&opt("Boletos"), 1, 0, &ctx), Ok(()));
        assert_eq!(validate_chatbot(&chain(2), 1, 0, &ctx), Ok(()));
        let silent = ChatbotOption {
            greeting_message: String::new(),
            ..chain(2)
        };
        assert_eq!(
            fields_of(validate_chatbot(&silent, 1, 0, &ctx)),
            vec![("greetingMessage".into(), FieldCode::Required)]
        );
        assert_eq!(
            fields_of(validate_chatbot(&chain(2), CHATBOT_MAX_DEPTH, 0, &ctx)),
            vec![("options".into(), FieldCode::OutOfRange)]
        );
        assert_eq!(
            fields_of(validate_chatbot(
                &opt("Boletos"),
                CHATBOT_MAX_DEPTH + 1,
                0,
                &ctx
            )),
            vec![("parentId".into(), FieldCode::OutOfRange)]
        );
        assert_eq!(
            fields_of(validate_chatbot(
                &chain(2),
                1,
                CHATBOT_MAX_OPTIONS - 1,
                &ctx
            )),
            vec![("options".into(), FieldCode::TooLong)]
        );
    }

    #[test]
    fn schedules_need_seven_distinct_days_and_ordered_shifts() {
        assert_eq!(validate_schedules(&default_schedules()), Ok(()));
        let mut rows = default_schedules();
        rows[0].start_time_b = String::new();
        rows[0].end_time_b = String::new();
        assert_eq!(validate_schedules(&rows), Ok(()), "a closed shift");
        rows[1].start_time_a = "8:00".into();
        rows[2].end_time_a = "07:00".into();
        rows[3].end_time_b = String::new();
        rows[4].start_time_b = "24:00".into();
        rows[5].weekday_en = "monday".into();
        assert_eq!(
            fields_of(validate_schedules(&rows)),
            vec![
                ("schedules[1].startTimeA".into(), FieldCode::InvalidFormat),
                ("schedules[2].endTimeA".into(), FieldCode::OutOfRange),
                ("schedules[3].endTimeB".into(), FieldCode::InvalidFormat),
                ("schedules[4].startTimeB".into(), FieldCode::InvalidFormat),
                ("schedules[5].weekdayEn".into(), FieldCode::InvalidFormat),
            ]
        );
        assert_eq!(
            fields_of(validate_schedules(&default_schedules()[..6])),
            vec![("schedules".into(), FieldCode::InvalidFormat)]
        );
        let mut bad_queue = valid_input();
        bad_queue.schedules = Some(rows);
        assert_eq!(
            fields_of(validate_queue_input(&bad_queue, &ctx(0, false))).len(),
            5
        );
    }

    #[test]
    fn paths_find_options_in_the_tree() {
        let tree = vec![
            ChatbotOption {
                id: Some(ChatbotId(1)),
                options: vec![ChatbotOption {
                    id: Some(ChatbotId(2)),
                    ..opt("Filho")
                }],
                ..opt("Pai")
            },
            ChatbotOption {
                id: Some(ChatbotId(3)),
                ..opt("Outro")
            },
        ];
        assert_eq!(find_path(&tree, ChatbotId(2)), Some(vec![0, 0]));
        assert_eq!(find_path(&tree, ChatbotId(3)), Some(vec![1]));
        assert_eq!(find_path(&tree, ChatbotId(9)), None);
        assert_eq!(
            option_at(&tree, &[0, 0]).map(|o| o.name.as_str()),
            Some("Filho")
        );
        assert_eq!(option_at(&tree, &[2]), None);
        let mut tree = tree;
        assert_eq!(
            siblings_at_mut(&mut tree, &[0, 0]).map(|s| s.len()),
            Some(1)
        );
        assert_eq!(siblings_at_mut(&mut tree, &[1]).map(|s| s.len()), Some(2));
        assert_eq!(count_options(&tree), 3);
    }
}
