//! Scheduled and recurring messages (spec 1 §3 "Schedule", §5; spec 3 §2.6): the model, its
//! validation, the recurrence rule and the repository port. Sending is a durable job
//! ([`crate::jobs::JobPayload::SendSchedule`]) run by [`crate::service::schedules`]; the rules
//! and choices are described in `docs/schedules.md`.
//!
//! Everything here is pure: the current time and the company's time zone come from the caller.

use async_trait::async_trait;
use chrono::{
    DateTime, Datelike, Days, Months, NaiveDate, NaiveDateTime, TimeDelta, TimeZone, Utc, Weekday,
};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldCode, FieldError, Result};
use crate::events::{Event, SaveAction};
use crate::identity::Toggle;
use crate::ids::{ContactId, MessageId, QueueId, ScheduleId, TenantScope, UserId, WhatsappId};
use crate::inbox::model::{Message, NewMessage};
use crate::ticket::TicketStatus;

/// Schedules per page of `GET /schedules`.
pub const PAGE_SIZE: u32 = 20;
/// The shortest body ("Mensagem muito curta").
pub const BODY_MIN_CHARS: usize = 5;
/// The longest body.
pub const BODY_MAX_CHARS: usize = 4096;
/// The most units between two sends.
pub const MAX_EVERY: u32 = 1000;
/// The most sends of one schedule.
pub const MAX_SENDS: u32 = 1000;
/// How far in the past a send time may be and still be accepted (a date-time picker has minute
/// precision, so "now" is up to a minute old when it arrives).
pub const PAST_GRACE: TimeDelta = TimeDelta::seconds(60);
/// The attachment types a schedule accepts (png, jpg, jpeg).
pub const MEDIA_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg"];

/// Where a schedule stands. Stored and sent in the spec's Portuguese spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ScheduleStatus {
    /// Stored, nothing sent yet (the only state in which it may be edited).
    Pendente,
    /// Sent at least once; a further send is queued (recurring).
    Agendada,
    /// Every send was made.
    Enviada,
    /// The last send failed (`lastError` says why); nothing further is sent.
    Erro,
}

impl ScheduleStatus {
    /// True while a send is still to come.
    pub fn is_waiting(self) -> bool {
        matches!(self, ScheduleStatus::Pendente | ScheduleStatus::Agendada)
    }
}

/// The unit between two sends (`intervalo`): 1 days, 2 weeks, 3 months, 4 minutes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interval {
    Days,
    Weeks,
    Months,
    Minutes,
}

impl Interval {
    /// The wire number.
    pub fn code(self) -> i64 {
        match self {
            Interval::Days => 1,
            Interval::Weeks => 2,
            Interval::Months => 3,
            Interval::Minutes => 4,
        }
    }

    /// The unit of a wire number.
    pub fn from_code(code: i64) -> Option<Self> {
        match code {
            1 => Some(Interval::Days),
            2 => Some(Interval::Weeks),
            3 => Some(Interval::Months),
            4 => Some(Interval::Minutes),
            _ => None,
        }
    }
}

/// What to do when a repeated send falls on a non-working day (`tipoDias`). Working days are
/// Monday to Friday.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DayRule {
    /// 4: send on that day anyway.
    Any,
    /// 5: move to the working day before.
    Before,
    /// 6: move to the working day after.
    After,
}

impl DayRule {
    /// The wire number.
    pub fn code(self) -> i64 {
        match self {
            DayRule::Any => 4,
            DayRule::Before => 5,
            DayRule::After => 6,
        }
    }

    /// The rule of a wire number.
    pub fn from_code(code: i64) -> Option<Self> {
        match code {
            4 => Some(DayRule::Any),
            5 => Some(DayRule::Before),
            6 => Some(DayRule::After),
            _ => None,
        }
    }
}

/// How a schedule repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recurrence {
    pub interval: Interval,
    /// Units between two sends (`valorIntervalo`), at least 1.
    pub every: u32,
    /// Sends in all (`enviarQuantasVezes`), at least 1.
    pub times: u32,
    pub day_rule: DayRule,
}

/// Whether a day is a working day (Monday to Friday).
pub fn is_working_day(day: Weekday) -> bool {
    !matches!(day, Weekday::Sat | Weekday::Sun)
}

/// The time of send number `n` (0 is the first) of a schedule first due at `first`, in the
/// company's time zone `tz`.
///
/// Send `n` is `n * every` units after the first, counted from the first (never from the
/// previous send), so a schedule on the 31st is sent on the 30th of a 30-day month and on the
/// 31st again the month after; days, weeks and months keep the first send's wall-clock time in
/// `tz` across daylight-saving changes (a time that does not exist that day moves forward by the
/// gap; an ambiguous one takes the earlier instant). Minutes are counted in absolute time. The
/// day rule moves repeated sends (`n >= 1`) of days, weeks and months off Saturdays and Sundays
/// (back to the Friday, or on to the Monday), never to before the first send: when the first send
/// itself is on a weekend, a send the rule would move back before it goes on to the Monday; the
/// first send is at the time the user chose.
pub fn send_time(first: DateTime<Utc>, n: u32, rule: &Recurrence, tz: Tz) -> DateTime<Utc> {
    if n == 0 {
        return first;
    }
    let steps = u64::from(n) * u64::from(rule.every.max(1));
    if rule.interval == Interval::Minutes {
        let minutes = i64::try_from(steps).unwrap_or(i64::MAX / 120);
        return first + TimeDelta::minutes(minutes);
    }
    let local = first.with_timezone(&tz).naive_local();
    let date = local.date();
    let moved = match rule.interval {
        Interval::Days => date.checked_add_days(Days::new(steps)),
        Interval::Weeks => date.checked_add_days(Days::new(steps.saturating_mul(7))),
        _ => u32::try_from(steps)
            .ok()
            .and_then(|m| date.checked_add_months(Months::new(m))),
    };
    let Some(mut date) = moved else {
        return DateTime::<Utc>::MAX_UTC;
    };
    let step = match rule.day_rule {
        DayRule::Any => None,
        DayRule::Before => Some(false),
        DayRule::After => Some(true),
    };
    if let Some(forward) = step {
        let working = |from: NaiveDate, forward: bool| {
            let mut day = from;
            while !is_working_day(day.weekday()) {
                day = if forward {
                    day.succ_opt().unwrap_or(day)
                } else {
                    day.pred_opt().unwrap_or(day)
                };
            }
            day
        };
        let moved = working(date, forward);
        // A schedule first due on a weekend: moving a later send back would put it before the
        // first one, so it goes to the next working day instead.
        date = if !forward && moved < local.date() {
            working(date, true)
        } else {
            moved
        };
    }
    from_local(tz, date.and_time(local.time()))
}

/// The instant of a wall-clock time in `tz`: the earlier of two, or after the gap of a
/// daylight-saving jump.
fn from_local(tz: Tz, local: NaiveDateTime) -> DateTime<Utc> {
    let mut at = local;
    for _ in 0..4 {
        if let Some(instant) = tz.from_local_datetime(&at).earliest() {
            return instant.with_timezone(&Utc);
        }
        at += TimeDelta::minutes(30);
    }
    Utc.from_utc_datetime(&local)
}

/// The contact a schedule is for, as lists show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleContact {
    pub id: ContactId,
    pub name: String,
}

/// A stored schedule (wire names as in the specification).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub id: ScheduleId,
    pub body: String,
    pub contact_id: ContactId,
    pub contact: ScheduleContact,
    /// The first send.
    pub send_at: DateTime<Utc>,
    /// When the next send is due; `None` once nothing more will be sent.
    pub next_send_at: Option<DateTime<Utc>>,
    /// The last successful send.
    pub sent_at: Option<DateTime<Utc>>,
    pub status: ScheduleStatus,
    pub open_ticket: Toggle,
    pub ticket_user_id: Option<UserId>,
    pub queue_id: Option<QueueId>,
    pub status_ticket: TicketStatus,
    pub whatsapp_id: Option<WhatsappId>,
    /// Who created it: the message is sent as this user.
    pub user_id: Option<UserId>,
    pub media_path: Option<String>,
    pub media_name: Option<String>,
    pub assinar: bool,
    pub intervalo: i64,
    pub valor_intervalo: i64,
    pub enviar_quantas_vezes: i64,
    pub tipo_dias: i64,
    /// Sends made so far.
    pub sends: i64,
    /// Why the last send failed (status `ERRO`).
    pub last_error: Option<String>,
    /// Bumped by every change; a queued send of an older revision does nothing.
    #[serde(skip)]
    pub revision: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Schedule {
    /// The schedule's recurrence (its stored numbers were checked when it was saved).
    pub fn recurrence(&self) -> Recurrence {
        Recurrence {
            interval: Interval::from_code(self.intervalo).unwrap_or(Interval::Days),
            every: u32::try_from(self.valor_intervalo).unwrap_or(1).max(1),
            times: u32::try_from(self.enviar_quantas_vezes).unwrap_or(1).max(1),
            day_rule: DayRule::from_code(self.tipo_dias).unwrap_or(DayRule::Any),
        }
    }
}

/// What `POST /schedules` and `PUT /schedules/{id}` send. Missing numbers take the
/// specification's defaults (every 1 day, sent once, on any day).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct ScheduleInput {
    pub body: String,
    pub contact_id: Option<ContactId>,
    pub send_at: Option<DateTime<Utc>>,
    pub open_ticket: Toggle,
    pub ticket_user_id: Option<UserId>,
    pub queue_id: Option<QueueId>,
    pub status_ticket: TicketStatus,
    pub whatsapp_id: Option<WhatsappId>,
    pub assinar: bool,
    pub intervalo: i64,
    pub valor_intervalo: i64,
    pub enviar_quantas_vezes: i64,
    pub tipo_dias: i64,
}

impl Default for ScheduleInput {
    fn default() -> Self {
        Self {
            body: String::new(),
            contact_id: None,
            send_at: None,
            open_ticket: Toggle::Disabled,
            ticket_user_id: None,
            queue_id: None,
            status_ticket: TicketStatus::Closed,
            whatsapp_id: None,
            assinar: false,
            intervalo: Interval::Days.code(),
            valor_intervalo: 1,
            enviar_quantas_vezes: 1,
            tipo_dias: DayRule::Any.code(),
        }
    }
}

/// A checked schedule, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSchedule {
    pub body: String,
    pub contact_id: ContactId,
    pub send_at: DateTime<Utc>,
    pub open_ticket: Toggle,
    pub ticket_user_id: Option<UserId>,
    pub queue_id: Option<QueueId>,
    pub status_ticket: TicketStatus,
    /// The connection (the company's default when the input named none).
    pub whatsapp_id: Option<WhatsappId>,
    pub user_id: UserId,
    pub assinar: bool,
    pub recurrence: Recurrence,
}

/// Checks an input at `now` (spec 1 §5): `body` required and at least 5 characters, `contactId`
/// and `sendAt` required, `sendAt` not in the past, `statusTicket` open or closed, and the
/// recurrence numbers in range. Answers the trimmed body, contact, send time and recurrence.
pub fn validate(
    input: &ScheduleInput,
    now: DateTime<Utc>,
) -> Result<(String, ContactId, DateTime<Utc>, Recurrence)> {
    let mut fields = Vec::new();
    let mut push = |field: &str, code: FieldCode| fields.push(FieldError::new(field, code));
    let body = input.body.trim();
    let len = body.chars().count();
    if len == 0 {
        push("body", FieldCode::Required);
    } else if len < BODY_MIN_CHARS {
        push("body", FieldCode::TooShort);
    } else if len > BODY_MAX_CHARS {
        push("body", FieldCode::TooLong);
    }
    if input.contact_id.is_none() {
        push("contactId", FieldCode::Required);
    }
    match input.send_at {
        None => push("sendAt", FieldCode::Required),
        Some(at) if at < now - PAST_GRACE => push("sendAt", FieldCode::OutOfRange),
        Some(_) => {}
    }
    if !matches!(
        input.status_ticket,
        TicketStatus::Open | TicketStatus::Closed
    ) {
        push("statusTicket", FieldCode::InvalidFormat);
    }
    let interval = Interval::from_code(input.intervalo);
    if interval.is_none() {
        push("intervalo", FieldCode::InvalidFormat);
    }
    let every = u32::try_from(input.valor_intervalo)
        .ok()
        .filter(|n| (1..=MAX_EVERY).contains(n));
    if every.is_none() {
        push("valorIntervalo", FieldCode::OutOfRange);
    }
    let times = u32::try_from(input.enviar_quantas_vezes)
        .ok()
        .filter(|n| (1..=MAX_SENDS).contains(n));
    if times.is_none() {
        push("enviarQuantasVezes", FieldCode::OutOfRange);
    }
    let day_rule = DayRule::from_code(input.tipo_dias);
    if day_rule.is_none() {
        push("tipoDias", FieldCode::InvalidFormat);
    }
    match (
        input.contact_id,
        input.send_at,
        interval,
        every,
        times,
        day_rule,
    ) {
        (Some(contact), Some(at), Some(interval), Some(every), Some(times), Some(day_rule))
            if fields.is_empty() =>
        {
            Ok((
                body.to_owned(),
                contact,
                at,
                Recurrence {
                    interval,
                    every,
                    times,
                    day_rule,
                },
            ))
        }
        _ => Err(Error::validation(fields)),
    }
}

/// The bounds of a schedule's form, in one value for the web app's dialog (which runs them
/// through WASM instead of writing them again); [`validate`] holds the server to the same ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScheduleLimits {
    pub body_min_chars: usize,
    pub body_max_chars: usize,
    pub max_every: u32,
    pub max_sends: u32,
    /// How far in the past a send time may be, in seconds.
    pub past_grace_seconds: i64,
    /// The attachment types a schedule accepts.
    pub media_extensions: Vec<String>,
}

/// The bounds of every schedule.
pub fn schedule_limits() -> ScheduleLimits {
    ScheduleLimits {
        body_min_chars: BODY_MIN_CHARS,
        body_max_chars: BODY_MAX_CHARS,
        max_every: MAX_EVERY,
        max_sends: MAX_SENDS,
        past_grace_seconds: PAST_GRACE.num_seconds(),
        media_extensions: MEDIA_EXTENSIONS.iter().map(|e| (*e).to_owned()).collect(),
    }
}

/// Whether an attachment of this name may be sent with a schedule (png, jpg, jpeg).
pub fn media_allowed(file_name: &str) -> bool {
    MEDIA_EXTENSIONS.contains(&crate::media::extension(file_name).as_str())
}

/// What a send did, for [`ScheduleRepo::record_send`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendOutcome {
    pub status: ScheduleStatus,
    /// Set when the send succeeded.
    pub sent_at: Option<DateTime<Utc>>,
    /// Sends made, this one included when it succeeded.
    pub sends: i64,
    /// When the next send is due (a job is queued for it); `None` when none follows.
    pub next_send_at: Option<DateTime<Utc>>,
    pub error: Option<String>,
}

/// What follows a send made at `now` (`Ok`) or failed with `error`: the status, and the next
/// send's time while fewer than `times` sends were made.
pub fn after_send(
    schedule: &Schedule,
    now: DateTime<Utc>,
    error: Option<String>,
    tz: Tz,
) -> SendOutcome {
    if let Some(error) = error {
        return SendOutcome {
            status: ScheduleStatus::Erro,
            sent_at: schedule.sent_at,
            sends: schedule.sends,
            next_send_at: None,
            error: Some(error),
        };
    }
    let sends = schedule.sends + 1;
    let rule = schedule.recurrence();
    let next = u32::try_from(sends)
        .ok()
        .filter(|n| *n < rule.times)
        .map(|n| send_time(schedule.send_at, n, &rule, tz));
    SendOutcome {
        status: if next.is_some() {
            ScheduleStatus::Agendada
        } else {
            ScheduleStatus::Enviada
        },
        sent_at: Some(now),
        sends,
        next_send_at: next,
        error: None,
    }
}

/// `company-{id}-schedule` `{action: "create"|"update", schedule}` for the whole company.
pub fn schedule_event(action: SaveAction, schedule: &Schedule) -> Event {
    Event::ScheduleSaved {
        action,
        schedule: Box::new(schedule.clone()),
    }
}

/// `company-{id}-schedule` `{action: "delete", scheduleId}` for the whole company.
pub fn schedule_deleted_event(id: ScheduleId) -> Event {
    Event::ScheduleDeleted { schedule_id: id }
}

/// A send claimed and not recorded yet ([`ScheduleRepo::send_claim`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendClaim {
    /// The schedule's revision the claim made.
    pub revision: i64,
    /// The outbound message stored for it, once stored.
    pub message_id: Option<MessageId>,
}

/// What `GET /schedules` filters on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScheduleFilter {
    /// Matches the body or the contact's name (case-insensitive).
    pub search: String,
    pub contact_id: Option<ContactId>,
}

/// Schedules in the store. Every write appends its `company-{id}-schedule` event in its
/// transaction; writes that queue a send store its job
/// ([`crate::jobs::JobPayload::SendSchedule`] with the schedule's new revision) in the same
/// transaction.
#[async_trait]
pub trait ScheduleRepo: Send + Sync {
    /// A page of the company's schedules by next send time (then first send time and id), and
    /// the count of all that match.
    async fn list(
        &self,
        scope: TenantScope,
        filter: &ScheduleFilter,
        offset: u32,
        limit: u32,
    ) -> Result<(Vec<Schedule>, i64)>;
    async fn get(&self, scope: TenantScope, id: ScheduleId) -> Result<Option<Schedule>>;
    /// Stores a schedule (status `PENDENTE`) and its first send's job at `send_at`.
    /// `ERR_NO_CONTACT_FOUND` when the contact is not the company's.
    async fn create(&self, scope: TenantScope, new: &NewSchedule) -> Result<Schedule>;
    /// Replaces a schedule's fields while it is `PENDENTE`, bumps its revision (the old job
    /// becomes harmless) and queues the new first send. `None` when it is not the company's or
    /// no longer pending.
    async fn update(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        new: &NewSchedule,
    ) -> Result<Option<Schedule>>;
    /// Deletes a schedule; its queued job then finds nothing to do.
    async fn delete(&self, scope: TenantScope, id: ScheduleId) -> Result<bool>;
    /// Sets or clears (`None`) the attachment.
    async fn set_media(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        media: Option<(&str, &str)>,
    ) -> Result<Option<Schedule>>;
    /// Takes the send of `revision`: bumps the revision when it still matches and a send is
    /// due (`PENDENTE` or `AGENDADA`), and remembers the claim (the new revision, no message
    /// yet) until [`Self::record_send`]; false when the schedule changed, was deleted or is done.
    async fn claim_send(&self, scope: TenantScope, id: ScheduleId, revision: i64) -> Result<bool>;
    /// The claim taken by [`Self::claim_send`] and not recorded yet, if any: a server that died
    /// mid-send left it, and the send's retried job resumes it.
    async fn send_claim(&self, scope: TenantScope, id: ScheduleId) -> Result<Option<SendClaim>>;
    /// Stores the claimed send's outbound message and ties it to the claim, in one transaction
    /// (so a crash leaves either both or neither). `None`, with nothing stored, when the claim
    /// `revision` is no longer the schedule's open claim or already has its message.
    async fn attach_send_message(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        revision: i64,
        message: &NewMessage,
    ) -> Result<Option<Message>>;
    /// Records a claimed send (`revision` is the claimed one, after [`Self::claim_send`]):
    /// clears the claim, bumps the revision again and queues the next send's job when
    /// `outcome.next_send_at` is set. `None` when the schedule changed meanwhile.
    async fn record_send(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        revision: i64,
        outcome: &SendOutcome,
    ) -> Result<Option<Schedule>>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Timelike;
    use proptest::prelude::*;

    fn rule(interval: Interval, every: u32, day_rule: DayRule) -> Recurrence {
        Recurrence {
            interval,
            every,
            times: 100,
            day_rule,
        }
    }

    fn local(tz: Tz, y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        tz.with_ymd_and_hms(y, m, d, h, min, 0)
            .single()
            .expect("a time")
            .with_timezone(&Utc)
    }

    const SP: Tz = chrono_tz::America::Sao_Paulo;
    const BERLIN: Tz = chrono_tz::Europe::Berlin;

    #[test]
    fn months_clamp_to_short_months_and_come_back() {
        let first = local(SP, 2026, 1, 31, 9, 0);
        let monthly = rule(Interval::Months, 1, DayRule::Any);
        let dates: Vec<String> = (0..4)
            .map(|n| {
                send_time(first, n, &monthly, SP)
                    .with_timezone(&SP)
                    .format("%m-%d %H:%M")
                    .to_string()
            })
            .collect();
        assert_eq!(
            dates,
            ["01-31 09:00", "02-28 09:00", "03-31 09:00", "04-30 09:00"]
        );
    }

    #[test]
    fn days_keep_the_wall_clock_across_daylight_saving() {
        // Berlin moves from +01:00 to +02:00 on 2026-03-29.
        let first = local(BERLIN, 2026, 3, 28, 9, 30);
        let daily = rule(Interval::Days, 1, DayRule::Any);
        let next = send_time(first, 1, &daily, BERLIN);
        assert_eq!((next - first).num_hours(), 23);
        assert_eq!(next.with_timezone(&BERLIN).hour(), 9);
        // 02:30 does not exist that day: moved past the gap.
        let night = local(BERLIN, 2026, 3, 28, 2, 30);
        let moved = send_time(night, 1, &daily, BERLIN).with_timezone(&BERLIN);
        assert_eq!((moved.day(), moved.hour(), moved.minute()), (29, 3, 0));
    }

    #[test]
    fn weekends_move_by_the_day_rule() {
        // 2026-11-27 is a Friday; a day later is Saturday.
        let friday = local(SP, 2026, 11, 27, 10, 0);
        let day = |r: DayRule| {
            send_time(friday, 1, &rule(Interval::Days, 1, r), SP)
                .with_timezone(&SP)
                .date_naive()
        };
        let ymd = |d: u32| NaiveDate::from_ymd_opt(2026, 11, d).expect("date");
        assert_eq!(day(DayRule::Any), ymd(28));
        assert_eq!(day(DayRule::Before), ymd(27));
        assert_eq!(day(DayRule::After), ymd(30));
    }

    #[test]
    fn minutes_count_absolute_time_and_the_first_send_is_as_chosen() {
        let saturday = local(SP, 2026, 11, 28, 10, 0);
        let r = rule(Interval::Minutes, 4, DayRule::After);
        assert_eq!(send_time(saturday, 0, &r, SP), saturday);
        assert_eq!(
            send_time(saturday, 3, &r, SP) - saturday,
            TimeDelta::minutes(12)
        );
    }

    #[test]
    fn validation_follows_the_spec() {
        let now = local(SP, 2026, 11, 24, 10, 0);
        let input = ScheduleInput {
            body: " oi ".into(),
            send_at: Some(now - TimeDelta::hours(1)),
            tipo_dias: 9,
            ..ScheduleInput::default()
        };
        let err = validate(&input, now).expect_err("invalid");
        let fields: Vec<(String, FieldCode)> =
            err.fields.into_iter().map(|f| (f.field, f.code)).collect();
        assert_eq!(
            fields,
            [
                ("body".to_owned(), FieldCode::TooShort),
                ("contactId".to_owned(), FieldCode::Required),
                ("sendAt".to_owned(), FieldCode::OutOfRange),
                ("tipoDias".to_owned(), FieldCode::InvalidFormat),
            ]
        );
        let good = ScheduleInput {
            body: " Olá, tudo bem? ".into(),
            contact_id: Some(ContactId(3)),
            send_at: Some(now + TimeDelta::hours(1)),
            ..ScheduleInput::default()
        };
        let (body, contact, _, rec) = validate(&good, now).expect("valid");
        assert_eq!((body.as_str(), contact), ("Olá, tudo bem?", ContactId(3)));
        assert_eq!(
            rec,
            Recurrence {
                interval: Interval::Days,
                every: 1,
                times: 1,
                day_rule: DayRule::Any
            }
        );
        assert!(media_allowed("foto.JPG") && media_allowed("a.png"));
        assert!(!media_allowed("a.gif") && !media_allowed("png"));
    }

    fn arb_rule() -> impl Strategy<Value = Recurrence> {
        (0usize..3, 1u32..5, 0usize..3).prop_map(|(i, every, d)| Recurrence {
            interval: [Interval::Days, Interval::Weeks, Interval::Months][i],
            every,
            times: 100,
            day_rule: [DayRule::Any, DayRule::Before, DayRule::After][d],
        })
    }

    #[test]
    fn a_send_moved_back_never_goes_before_a_first_send_on_a_weekend() {
        // First due on Saturday 12 April 2025 at 00:00 in Berlin, daily, weekends moved back:
        // Sunday's send would go back to Friday, before the first; it goes to Monday instead.
        let first = local(BERLIN, 2025, 4, 12, 0, 0);
        let rule = Recurrence {
            interval: Interval::Days,
            every: 1,
            times: 10,
            day_rule: DayRule::Before,
        };
        assert_eq!(
            send_time(first, 1, &rule, BERLIN),
            local(BERLIN, 2025, 4, 14, 0, 0)
        );
        assert_eq!(
            send_time(first, 2, &rule, BERLIN),
            local(BERLIN, 2025, 4, 14, 0, 0)
        );
        assert_eq!(
            send_time(first, 3, &rule, BERLIN),
            local(BERLIN, 2025, 4, 15, 0, 0)
        );
        // From a Thursday the weekend still goes back to the Friday.
        let thursday = local(BERLIN, 2025, 4, 10, 9, 0);
        assert_eq!(
            send_time(thursday, 2, &rule, BERLIN),
            local(BERLIN, 2025, 4, 11, 9, 0)
        );
    }

    proptest! {
        #[test]
        fn repeated_sends_follow_the_rule(
            start in 0i64..(4 * 365 * 24 * 60),
            n in 1u32..40,
            r in arb_rule(),
            zone in 0usize..3,
        ) {
            let tz = [SP, BERLIN, chrono_tz::America::New_York][zone];
            let base = local(tz, 2025, 1, 1, 0, 0);
            let first = base + TimeDelta::minutes(start);
            let at = send_time(first, n, &r, tz);
            let previous = send_time(first, n - 1, &r, tz);
            let lo = first.with_timezone(&tz);
            let la = at.with_timezone(&tz);
            // Never before the first send, always in order.
            prop_assert!(at >= first);
            prop_assert!(at >= previous);
            if r.day_rule != DayRule::Any {
                prop_assert!(is_working_day(la.weekday()));
            }
            // The wall-clock time is kept unless a daylight-saving gap moved it (by < 2 h).
            let drift = (la.time() - lo.time()).num_minutes().abs();
            prop_assert!(drift == 0 || drift <= 120, "{lo} -> {la}");
            if r.interval == Interval::Months && r.day_rule == DayRule::Any {
                let days_in_month = |d: chrono::NaiveDate| {
                    let next = d.with_day(1).and_then(|f| f.checked_add_months(Months::new(1)));
                    next.and_then(|f| f.pred_opt()).map_or(31, |l| l.day())
                };
                let expected = lo.day().min(days_in_month(la.date_naive()));
                prop_assert!(la.day() == expected || drift > 0);
            }
        }
    }
}
