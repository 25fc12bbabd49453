//! Validation of a connection's settings (spec 2 §5): the name, the rating (NPS) fields, the
//! redirect queue, the collective vacation and the working hours. Pure functions; the use cases in `service::inbox::connections` call them.

use crate::error::{Error, FieldCode, FieldError, Result};
use crate::inbox::model::ConnectionInput;

/// Shortest connection name, in characters (trimmed).
pub const NAME_MIN_CHARS: usize = 2;
/// Longest connection name, in characters (trimmed).
pub const NAME_MAX_CHARS: usize = 50;
/// Length of a connection's API token.
pub const TOKEN_LEN: usize = 30;

/// What the rules need to know about the company.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConnectionContext {
    /// The company setting `userRating` is enabled.
    pub ratings_enabled: bool,
}

/// The field errors of a connection's name (2-50 characters, required).
pub fn name_problem(name: &str) -> Option<FieldCode> {
    let len = name.trim().chars().count();
    if len == 0 {
        Some(FieldCode::Required)
    } else if len < NAME_MIN_CHARS {
        Some(FieldCode::TooShort)
    } else if len > NAME_MAX_CHARS {
        Some(FieldCode::TooLong)
    } else {
        None
    }
}

/// Every field error of `input`:
/// - `name`: 2-50 characters, required;
/// - with ratings on, `ratingMessage` is required and `expiresTicketNPS` must not be 0;
/// - `sendIdQueue` (the redirect queue) is required when `timeSendQueue` is not 0;
/// - the collective vacation has both dates or neither (the missing one is `Required`), and its
///   end is not before its start (`collectiveVacationEnd` `OutOfRange`);
/// - `schedules` is empty or passes [`crate::queue::validate_schedules`] (fields
///   `schedules[i].…`);
/// - the numbers must not be negative.
///
/// Whether the flows named are the company's is the use case's check (it needs the store).
pub fn field_errors(input: &ConnectionInput, context: ConnectionContext) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(code) = name_problem(&input.name) {
        errors.push(FieldError::new("name", code));
    }
    if context.ratings_enabled {
        if input.rating_message.trim().is_empty() {
            errors.push(FieldError::new("ratingMessage", FieldCode::Required));
        }
        if input.expires_ticket_nps == 0 {
            errors.push(FieldError::new("expiresTicketNPS", FieldCode::Required));
        }
    }
    if input.time_send_queue != 0 && input.send_id_queue.is_none() {
        errors.push(FieldError::new("sendIdQueue", FieldCode::Required));
    }
    errors.extend(vacation_errors(input));
    if !input.schedules.is_empty()
        && let Err(error) = crate::queue::validate_schedules(&input.schedules)
    {
        errors.extend(error.fields);
    }
    for (field, value) in [
        ("timeInactiveMessage", input.time_inactive_message),
        ("whenExpiresTicket", input.when_expires_ticket),
        ("maxUseBotQueues", input.max_use_bot_queues),
        ("timeUseBotQueues", input.time_use_bot_queues),
        ("timeSendQueue", input.time_send_queue),
        ("expiresTicket", input.expires_ticket),
        ("timeCreateNewTicket", input.time_create_new_ticket),
        ("maxUseBotQueuesNPS", input.max_use_bot_queues_nps),
        ("expiresTicketNPS", input.expires_ticket_nps),
    ] {
        if value < 0 && !errors.iter().any(|e| e.field == field) {
            errors.push(FieldError::new(field, FieldCode::OutOfRange));
        }
    }
    errors
}

/// The field errors of the collective vacation: both dates or neither, the end on or after the
/// start.
fn vacation_errors(input: &ConnectionInput) -> Vec<FieldError> {
    match (
        input.collective_vacation_start,
        input.collective_vacation_end,
    ) {
        (None, None) => Vec::new(),
        (Some(_), None) => vec![FieldError::new(
            "collectiveVacationEnd",
            FieldCode::Required,
        )],
        (None, Some(_)) => vec![FieldError::new(
            "collectiveVacationStart",
            FieldCode::Required,
        )],
        (Some(start), Some(end)) if end < start => vec![FieldError::new(
            "collectiveVacationEnd",
            FieldCode::OutOfRange,
        )],
        (Some(_), Some(_)) => Vec::new(),
    }
}

/// [`field_errors`] as a result: `ERR_VALIDATION` with the failing fields.
pub fn validate(input: &ConnectionInput, context: ConnectionContext) -> Result<()> {
    let errors = field_errors(input, context);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::validation(errors))
    }
}

/// Whether the default flag may be taken off the connection: only when another connection can
/// carry it (`ERR_NO_OTHER_WHATSAPP` otherwise).
pub fn may_unset_default(currently_default: bool, others: usize) -> bool {
    !currently_default || others > 0
}

/// The connection as `actor` may see it: the API token is a credential, shown only to those who
/// manage connections; everyone else gets it empty.
pub fn connection_for(
    actor: &crate::identity::Actor,
    mut connection: crate::inbox::model::Connection,
) -> crate::inbox::model::Connection {
    let manages = crate::policy::authorize(
        actor,
        &crate::policy::Action::ManageConnections(actor.company_id),
    )
    .is_ok();
    if !manages {
        connection.token.clear();
    }
    connection
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::QueueId;

    fn named(name: &str) -> ConnectionInput {
        ConnectionInput {
            name: name.into(),
            ..ConnectionInput::default()
        }
    }

    fn fields(errors: &[FieldError]) -> Vec<(&str, FieldCode)> {
        errors.iter().map(|e| (e.field.as_str(), e.code)).collect()
    }

    #[test]
    fn names_are_two_to_fifty_characters() {
        let off = ConnectionContext::default();
        assert_eq!(
            fields(&field_errors(&named(""), off)),
            [("name", FieldCode::Required)]
        );
        assert_eq!(
            fields(&field_errors(&named(" a "), off)),
            [("name", FieldCode::TooShort)]
        );
        assert!(field_errors(&named("ab"), off).is_empty());
        assert!(field_errors(&named(&"é".repeat(50)), off).is_empty());
        assert_eq!(
            fields(&field_errors(&named(&"x".repeat(51)), off)),
            [("name", FieldCode::TooLong)]
        );
    }

    #[test]
    fn ratings_need_a_message_and_an_expiry() {
        let on = ConnectionContext {
            ratings_enabled: true,
        };
        assert_eq!(
            fields(&field_errors(&named("Sales"), on)),
            [
                ("ratingMessage", FieldCode::Required),
                ("expiresTicketNPS", FieldCode::Required)
            ]
        );
        let complete = ConnectionInput {
            rating_message: "Rate us 1-3".into(),
            expires_ticket_nps: 10,
            ..named("Sales")
        };
        assert!(field_errors(&complete, on).is_empty());
        // Without ratings, neither is needed.
        assert!(field_errors(&named("Sales"), ConnectionContext::default()).is_empty());
    }

    #[test]
    fn a_redirect_time_needs_a_queue() {
        let off = ConnectionContext::default();
        let timed = ConnectionInput {
            time_send_queue: 5,
            ..named("Sales")
        };
        assert_eq!(
            fields(&field_errors(&timed, off)),
            [("sendIdQueue", FieldCode::Required)]
        );
        let with_queue = ConnectionInput {
            send_id_queue: Some(QueueId(1)),
            ..timed
        };
        assert!(validate(&with_queue, off).is_ok());
    }

    #[test]
    fn negative_numbers_are_refused() {
        let input = ConnectionInput {
            expires_ticket: -1,
            ..named("Sales")
        };
        assert_eq!(
            fields(&field_errors(&input, ConnectionContext::default())),
            [("expiresTicket", FieldCode::OutOfRange)]
        );
    }

    #[test]
    fn a_vacation_has_both_dates_in_order() {
        let off = ConnectionContext::default();
        let day = |d: u32| chrono::NaiveDate::from_ymd_opt(2026, 12, d);
        let vacation = |start, end| ConnectionInput {
            collective_vacation_start: start,
            collective_vacation_end: end,
            ..named("Sales")
        };
        assert!(field_errors(&vacation(None, None), off).is_empty());
        assert!(field_errors(&vacation(day(20), day(20)), off).is_empty());
        assert!(field_errors(&vacation(day(20), day(31)), off).is_empty());
        assert_eq!(
            fields(&field_errors(&vacation(day(20), None), off)),
            [("collectiveVacationEnd", FieldCode::Required)]
        );
        assert_eq!(
            fields(&field_errors(&vacation(None, day(20)), off)),
            [("collectiveVacationStart", FieldCode::Required)]
        );
        assert_eq!(
            fields(&field_errors(&vacation(day(21), day(20)), off)),
            [("collectiveVacationEnd", FieldCode::OutOfRange)]
        );
    }

    #[test]
    fn hours_are_empty_or_the_seven_weekdays() {
        let off = ConnectionContext::default();
        let mut schedules = crate::queue::default_schedules();
        let hours = |schedules: Vec<crate::queue::ScheduleRow>| ConnectionInput {
            schedules,
            ..named("Sales")
        };
        assert!(field_errors(&hours(Vec::new()), off).is_empty());
        assert!(field_errors(&hours(schedules.clone()), off).is_empty());
        schedules[0].end_time_a = "07:00".into();
        schedules[0].start_time_a = "08:00".into();
        assert_eq!(
            fields(&field_errors(&hours(schedules), off)),
            [("schedules[0].endTimeA", FieldCode::OutOfRange)]
        );
    }

    #[test]
    fn the_only_default_keeps_its_flag() {
        assert!(!may_unset_default(true, 0));
        assert!(may_unset_default(true, 1));
        assert!(may_unset_default(false, 0));
    }
}
