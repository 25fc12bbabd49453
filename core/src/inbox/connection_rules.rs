//! Validation of a connection's settings (spec 2 §5): the name, the rating (NPS) fields, the
//! redirect queue, the collective vacation and the working hours; the phone number a connection
//! is linked to by pair code; what a connection keeps of its session besides the status (the pair
//! code, the reason and until when) after a provider's report; and what a user may see of a
//! connection. Pure functions; the use cases in `service::inbox::connections` and the store call
//! them.

use chrono::{DateTime, Utc};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::inbox::model::{ConnectionInput, ConnectionStatus, SessionReason, SessionUpdate};

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
    /// The time now (the import window is checked against it).
    pub now: DateTime<Utc>,
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
/// - the numbers must not be negative;
/// - the import of old messages as [`crate::inbox::history::field_errors`] checks it.
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
    errors.extend(crate::inbox::history::field_errors(input, context.now));
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

/// The connection as `actor` may see it: the API token is a credential and the pair code a
/// short-lived secret that links a phone, both shown only to those who manage connections;
/// everyone else gets the token empty and no pair code.
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
        connection.pairing_code = None;
    }
    connection
}

/// Fewest digits of a phone number linked by pair code (country code included).
pub const PHONE_MIN_DIGITS: usize = 8;
/// Most digits of a phone number linked by pair code (the international maximum).
pub const PHONE_MAX_DIGITS: usize = 15;

/// The phone number a connection is linked to by pair code, digits only: `input` without its
/// `+`, spaces and dashes must be 8 to 15 digits (international form, country code first).
///
/// Otherwise `ERR_WAPP_INVALID_CONTACT` ("not a valid WhatsApp number") with the field `number`:
/// `REQUIRED` when nothing is left, `INVALID_FORMAT` for anything else.
pub fn pair_code_phone(input: &str) -> Result<String> {
    let digits: String = input
        .chars()
        .filter(|c| !matches!(c, '+' | '-') && !c.is_whitespace())
        .collect();
    let problem = if digits.is_empty() {
        Some(FieldCode::Required)
    } else if !digits.chars().all(|c| c.is_ascii_digit())
        || !(PHONE_MIN_DIGITS..=PHONE_MAX_DIGITS).contains(&digits.len())
    {
        Some(FieldCode::InvalidFormat)
    } else {
        None
    };
    match problem {
        None => Ok(digits),
        Some(code) => Err(Error {
            code: ErrorCode::ERR_WAPP_INVALID_CONTACT,
            detail: Some(format!(
                "a phone number has {PHONE_MIN_DIGITS} to {PHONE_MAX_DIGITS} digits, country code first"
            )),
            fields: vec![FieldError::new("number", code)],
        }),
    }
}

/// What a connection shows of its session besides the status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SessionDetails {
    /// The code to type on the phone (linking by phone number).
    pub pairing_code: Option<String>,
    /// Why the session is in its state.
    pub reason: Option<SessionReason>,
    /// When what `reason` names ends.
    pub until: Option<DateTime<Utc>>,
}

/// The session details after a provider reported `update`, the connection having been in
/// `previous_status` with `previous` details. A report says what it knows; what no longer applies
/// is cleared:
/// - the pair code is the update's; without one, it stays only while the session goes on
///   `PAIRING` (any other status ends the code: connected, a QR code shown, disconnected...);
/// - the reason (and its `until`) is the update's; without one, it stays only while the status
///   is unchanged and not `CONNECTED` (a renewed QR code still says why it is shown; a connected
///   session has nothing to explain unless the update says so).
pub fn session_details_after(
    previous_status: ConnectionStatus,
    previous: SessionDetails,
    update: &SessionUpdate,
) -> SessionDetails {
    let same = previous_status == update.status;
    let pairing_code = match &update.pairing_code {
        Some(code) => Some(code.clone()),
        None if same && update.status == ConnectionStatus::Pairing => previous.pairing_code,
        None => None,
    };
    let (reason, until) = match &update.reason {
        Some(reason) => (Some(reason.clone()), update.until),
        None if same && update.status != ConnectionStatus::Connected => {
            (previous.reason, update.until.or(previous.until))
        }
        None => (None, None),
    };
    SessionDetails {
        pairing_code,
        reason,
        until,
    }
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
            ..ConnectionContext::default()
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

    #[test]
    fn pair_code_phones_are_eight_to_fifteen_digits() {
        assert_eq!(
            pair_code_phone("+55 11 99999-0000").as_deref(),
            Ok("5511999990000")
        );
        assert_eq!(pair_code_phone("12345678").as_deref(), Ok("12345678"));
        assert_eq!(
            pair_code_phone("123456789012345").as_deref(),
            Ok("123456789012345")
        );
        let refused = |input: &str| {
            let error = pair_code_phone(input).expect_err(input);
            assert_eq!(error.code, ErrorCode::ERR_WAPP_INVALID_CONTACT, "{input}");
            fields(&error.fields)
                .into_iter()
                .map(|(field, code)| (field.to_owned(), code))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            refused(" + - "),
            [("number".to_owned(), FieldCode::Required)]
        );
        for bad in [
            "1234567",
            "1234567890123456",
            "(11) 99999-0000",
            "55.11.99999.0000",
            "5511abc990000",
            "５５１１９９９９００００",
        ] {
            assert_eq!(
                refused(bad),
                [("number".to_owned(), FieldCode::InvalidFormat)],
                "{bad}"
            );
        }
    }

    fn update(status: ConnectionStatus) -> SessionUpdate {
        SessionUpdate {
            status,
            ..SessionUpdate::default()
        }
    }

    fn details(code: Option<&str>, reason: Option<SessionReason>) -> SessionDetails {
        SessionDetails {
            pairing_code: code.map(str::to_owned),
            reason,
            until: None,
        }
    }

    #[test]
    fn a_pair_code_lasts_while_pairing_goes_on() {
        use ConnectionStatus::*;
        let given = SessionUpdate {
            pairing_code: Some("ABCD1234".into()),
            ..update(Pairing)
        };
        let pairing = session_details_after(Qrcode, SessionDetails::default(), &given);
        assert_eq!(pairing.pairing_code.as_deref(), Some("ABCD1234"));
        // A report that stays PAIRING without a code keeps it; a new code replaces it.
        let kept = session_details_after(Pairing, pairing.clone(), &update(Pairing));
        assert_eq!(kept.pairing_code.as_deref(), Some("ABCD1234"));
        let replaced = SessionUpdate {
            pairing_code: Some("WXYZ9876".into()),
            ..update(Pairing)
        };
        assert_eq!(
            session_details_after(Pairing, pairing.clone(), &replaced)
                .pairing_code
                .as_deref(),
            Some("WXYZ9876")
        );
        // Any other status ends the code.
        for status in [Connected, Qrcode, Disconnected, Timeout, Opening] {
            assert_eq!(
                session_details_after(Pairing, pairing.clone(), &update(status)).pairing_code,
                None,
                "{status:?}"
            );
        }
    }

    #[test]
    fn a_reason_stays_while_the_status_does_and_connecting_clears_it() {
        use ConnectionStatus::*;
        let until = chrono::DateTime::from_timestamp(1_900_000_000, 0).expect("a time");
        let banned = SessionUpdate {
            reason: Some(SessionReason::TemporaryBan { code: 101 }),
            until: Some(until),
            ..update(Disconnected)
        };
        let after_ban = session_details_after(Connected, SessionDetails::default(), &banned);
        assert_eq!(
            after_ban.reason,
            Some(SessionReason::TemporaryBan { code: 101 })
        );
        assert_eq!(after_ban.until, Some(until));
        // The same status reported again keeps why, and until when.
        let again = session_details_after(Disconnected, after_ban.clone(), &update(Disconnected));
        assert_eq!(again, after_ban);
        // Another status without a reason clears both.
        assert_eq!(
            session_details_after(Disconnected, after_ban.clone(), &update(Opening)),
            SessionDetails::default()
        );
        // CONNECTED clears the reason and the code, even when it was already connected...
        let reconnecting = details(Some("ABCD1234"), Some(SessionReason::Reconnecting));
        assert_eq!(
            session_details_after(Connected, reconnecting.clone(), &update(Connected)),
            SessionDetails::default()
        );
        // ...unless the update gives one.
        let given = SessionUpdate {
            reason: Some(SessionReason::Deaf),
            ..update(Connected)
        };
        assert_eq!(
            session_details_after(Opening, reconnecting, &given),
            details(None, Some(SessionReason::Deaf))
        );
        // A renewed QR code still says why it is shown.
        let logged_out = details(None, Some(SessionReason::LoggedOut));
        assert_eq!(
            session_details_after(Qrcode, logged_out.clone(), &update(Qrcode)),
            logged_out
        );
    }
}
