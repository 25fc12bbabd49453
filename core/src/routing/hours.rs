//! Working hours: whether a schedule is open at an instant, when it next opens, which schedule
//! applies (setting `scheduleType`), the connection's collective vacation, and the validation of
//! schedule rows.
//!
//! A schedule is seven [`ScheduleRow`]s, one per weekday (found by `weekdayEn`, not by position),
//! each with two shifts A and B written `HH:MM`. Times are read in the company's time zone
//! ([`chrono_tz::Tz`]), so daylight-saving changes move the opening instants the way the clocks on
//! the wall move.
//!
//! Rules (see `docs/routing.md`):
//! - a shift contains the local times from its start (inclusive) to its end (exclusive);
//! - an end of `23:59` means the end of the day (the form cannot say `24:00`), so `00:00`-`23:59`
//!   is open all day;
//! - a shift whose end is before its start spans midnight: it belongs to the weekday it starts
//!   on and runs into the next day (`22:00`-`02:00` on Friday is open Friday 22:00 to Saturday
//!   02:00);
//! - an empty shift, a shift with one end missing or malformed, and a shift whose ends are equal
//!   are closed.

use chrono::{
    DateTime, Datelike, NaiveDate, NaiveDateTime, Offset, TimeDelta, TimeZone, Timelike, Utc,
};
use chrono_tz::Tz;

use crate::error::{Error, FieldCode, FieldError, Result};
use crate::queue::{Queue, ScheduleRow, WEEKDAYS};
use crate::settings::ScheduleType;
use crate::validation::parse_hh_mm;

/// Minutes in a day; the end of a shift written `23:59`.
const DAY_MINUTES: u16 = 24 * 60;

/// How far ahead [`next_opening`] looks: two weeks and a day, so a shift that a clock change
/// swallows this week is still found next week.
const LOOKAHEAD_DAYS: i64 = 15;

/// The zone used when a company has none stored.
pub const DEFAULT_TIME_ZONE: Tz = chrono_tz::America::Sao_Paulo;

/// Reads an IANA zone name (`America/Sao_Paulo`, `Europe/Istanbul`).
///
/// Fails with `ERR_VALIDATION` on the field `timezone` for an unknown name.
pub fn parse_time_zone(name: &str) -> Result<Tz> {
    name.trim()
        .parse::<Tz>()
        .map_err(|_| Error::validation(vec![FieldError::new("timezone", FieldCode::InvalidFormat)]))
}

/// One shift in minutes since midnight. `end` may be [`DAY_MINUTES`]; `end < start` spans
/// midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shift {
    start: u16,
    end: u16,
}

impl Shift {
    /// The shift written `start`-`end`, or `None` when it is closed (empty, half empty,
    /// malformed, or of no length).
    fn parse(start: &str, end: &str) -> Option<Shift> {
        let (start, end) = (start.trim(), end.trim());
        if start == end {
            return None;
        }
        let start_minute = parse_hh_mm(start)?;
        let end_minute = match parse_hh_mm(end)? {
            1439 => DAY_MINUTES,
            minute => minute,
        };
        Some(Shift {
            start: start_minute,
            end: end_minute,
        })
    }

    fn spans_midnight(self) -> bool {
        self.end < self.start
    }

    /// Whether the local minute `minute` of the shift's own day is inside it.
    fn contains_same_day(self, minute: u16) -> bool {
        if self.spans_midnight() {
            minute >= self.start
        } else {
            self.start <= minute && minute < self.end
        }
    }

    /// Whether the local minute `minute` of the day after the shift's day is inside it.
    fn contains_next_day(self, minute: u16) -> bool {
        self.spans_midnight() && minute < self.end
    }
}

/// The open shifts of a row (A then B).
fn row_shifts(row: &ScheduleRow) -> impl Iterator<Item = Shift> {
    [
        Shift::parse(&row.start_time_a, &row.end_time_a),
        Shift::parse(&row.start_time_b, &row.end_time_b),
    ]
    .into_iter()
    .flatten()
}

/// The `weekdayEn` key of a chrono weekday.
fn weekday_key(weekday: chrono::Weekday) -> &'static str {
    WEEKDAYS[weekday.num_days_from_monday() as usize].1
}

/// The rows of `rows` for `weekday` (all of them, should a malformed list repeat a day).
fn rows_of(rows: &[ScheduleRow], weekday: chrono::Weekday) -> impl Iterator<Item = &ScheduleRow> {
    let key = weekday_key(weekday);
    rows.iter()
        .filter(move |row| row.weekday_en.trim().eq_ignore_ascii_case(key))
}

/// Whether the local wall time `local` falls in one of the shifts of `rows`.
fn is_open_local(rows: &[ScheduleRow], local: NaiveDateTime) -> bool {
    let minute = u16::try_from(local.hour() * 60 + local.minute()).unwrap_or(0);
    let today = local.weekday();
    let yesterday = today.pred();
    rows_of(rows, today)
        .flat_map(row_shifts)
        .any(|shift| shift.contains_same_day(minute))
        || rows_of(rows, yesterday)
            .flat_map(row_shifts)
            .any(|shift| shift.contains_next_day(minute))
}

/// Whether the schedule `rows` is open at `at`, read in the zone `tz`.
///
/// Shift A or B of the local weekday contains the local time (start inclusive, end exclusive),
/// or a shift of the day before that spans midnight still runs. An empty list is never open.
pub fn is_open(rows: &[ScheduleRow], tz: Tz, at: DateTime<Utc>) -> bool {
    is_open_local(rows, at.with_timezone(&tz).naive_local())
}

/// The UTC offset of `tz` at `at`, in seconds.
fn offset_seconds(tz: Tz, at: DateTime<Utc>) -> i32 {
    tz.offset_from_utc_datetime(&at.naive_utc())
        .fix()
        .local_minus_utc()
}

/// The instants in `(from, until]` where the zone's offset changes, to the second (at most one
/// per hour, which every real zone satisfies).
fn offset_changes(tz: Tz, from: DateTime<Utc>, until: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let mut changes = Vec::new();
    let hour = TimeDelta::hours(1);
    let mut lo = from;
    let mut lo_offset = offset_seconds(tz, lo);
    while lo < until {
        let Some(hi) = lo.checked_add_signed(hour) else {
            break;
        };
        let hi_offset = offset_seconds(tz, hi);
        if hi_offset != lo_offset {
            // The first second whose offset is the new one.
            let (mut a, mut b) = (lo, hi);
            while (b - a) > TimeDelta::seconds(1) {
                let mid = a + (b - a) / 2;
                if offset_seconds(tz, mid) == lo_offset {
                    a = mid;
                } else {
                    b = mid;
                }
            }
            changes.push(b);
        }
        lo = hi;
        lo_offset = hi_offset;
    }
    changes
}

/// The first instant at or after `at` when `rows` is open in the zone `tz`, or `None` when the
/// schedule has no open shift in the next two weeks (an empty or all-closed schedule).
///
/// Returns `at` itself when the schedule is open then. Openings are found where a shift starts
/// (both instants of a local time that a clock change repeats) and where a clock change jumps
/// into a shift (a shift whose start a clock change skips opens when the clocks jump).
pub fn next_opening(rows: &[ScheduleRow], tz: Tz, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
    if is_open(rows, tz, at) {
        return Some(at);
    }
    let until = at.checked_add_signed(TimeDelta::days(LOOKAHEAD_DAYS))?;
    let first_day = at.with_timezone(&tz).date_naive().pred_opt()?;
    let mut candidates: Vec<DateTime<Utc>> = Vec::new();
    for day in first_day.iter_days().take(LOOKAHEAD_DAYS as usize + 2) {
        for shift in rows_of(rows, day.weekday()).flat_map(row_shifts) {
            let Some(start) =
                day.and_hms_opt(u32::from(shift.start / 60), u32::from(shift.start % 60), 0)
            else {
                continue;
            };
            // A start inside a clock change's gap maps to nothing; the change itself is a
            // candidate below.
            let local = tz.from_local_datetime(&start);
            candidates.extend(local.earliest().map(|t| t.with_timezone(&Utc)));
            candidates.extend(local.latest().map(|t| t.with_timezone(&Utc)));
        }
    }
    candidates.extend(offset_changes(tz, at, until));
    candidates
        .into_iter()
        .filter(|t| *t > at && *t <= until)
        .filter(|t| is_open(rows, tz, *t))
        .min()
}

/// Whether `at` falls in the collective vacation from `start` to `end` (both days included, read
/// in the zone `tz`). A vacation needs both days; a start after the end is no vacation.
pub fn in_vacation(
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    tz: Tz,
    at: DateTime<Utc>,
) -> bool {
    match (start, end) {
        (Some(start), Some(end)) => {
            let day = at.with_timezone(&tz).date_naive();
            start <= day && day <= end
        }
        _ => false,
    }
}

/// The schedule that decides whether attendance is open, as the `scheduleType` setting says:
/// `None` means always open.
///
/// - `disabled`: always open;
/// - `company`: the company's rows;
/// - `connection`: the connection's rows;
/// - `queue`: the rows of the ticket's queue; a ticket without a queue yet is open (the menu
///   must reach the contact so they can choose).
///
/// A level with no rows stored (never configured) is open too.
pub fn applicable_schedule<'a>(
    schedule_type: ScheduleType,
    company: &'a [ScheduleRow],
    connection: &'a [ScheduleRow],
    queue: Option<&'a Queue>,
) -> Option<&'a [ScheduleRow]> {
    let rows = match schedule_type {
        ScheduleType::Disabled => return None,
        ScheduleType::Company => company,
        ScheduleType::Connection => connection,
        ScheduleType::Queue => queue?.schedules.as_slice(),
    };
    (!rows.is_empty()).then_some(rows)
}

#[cfg(test)]
mod tests {
    use chrono::NaiveTime;
    use proptest::prelude::*;

    use super::*;
    use crate::queue::default_schedules;

    const SAO_PAULO: Tz = chrono_tz::America::Sao_Paulo;
    const ISTANBUL: Tz = chrono_tz::Europe::Istanbul;

    /// A week where every day has the given shifts.
    fn week(a: (&str, &str), b: (&str, &str)) -> Vec<ScheduleRow> {
        WEEKDAYS
            .iter()
            .map(|(pt, en)| ScheduleRow {
                weekday: (*pt).to_owned(),
                weekday_en: (*en).to_owned(),
                start_time_a: a.0.to_owned(),
                end_time_a: a.1.to_owned(),
                start_time_b: b.0.to_owned(),
                end_time_b: b.1.to_owned(),
            })
            .collect()
    }

    /// The UTC instant of a local wall time in `tz` (the earliest one if repeated).
    fn local(tz: Tz, y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        tz.with_ymd_and_hms(y, m, d, h, min, 0)
            .earliest()
            .expect("the local time exists")
            .with_timezone(&Utc)
    }

    #[test]
    fn shift_start_is_inclusive_and_end_exclusive() {
        let rows = default_schedules();
        // 2026-11-23 is a Monday.
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 7, 59)
        ));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 8, 0)
        ));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 11, 59)
        ));
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 12, 0)
        ));
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 12, 59)
        ));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 13, 0)
        ));
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 18, 0)
        ));
    }

    #[test]
    fn hours_are_read_in_the_company_zone() {
        let rows = default_schedules();
        // 11:00 UTC is 08:00 in São Paulo (UTC-3) and 14:00 in Istanbul (UTC+3).
        let at = Utc
            .with_ymd_and_hms(2026, 11, 23, 11, 0, 0)
            .single()
            .expect("valid");
        assert!(is_open(&rows, SAO_PAULO, at));
        assert!(is_open(&rows, ISTANBUL, at));
        let at = Utc
            .with_ymd_and_hms(2026, 11, 23, 9, 30, 0)
            .single()
            .expect("valid");
        assert!(!is_open(&rows, SAO_PAULO, at), "06:30 in São Paulo");
        assert!(
            !is_open(&rows, ISTANBUL, at),
            "12:30 in Istanbul, lunch break"
        );
    }

    #[test]
    fn empty_half_empty_malformed_and_zero_length_shifts_are_closed() {
        let noon =
            |rows: &[ScheduleRow]| is_open(rows, SAO_PAULO, local(SAO_PAULO, 2026, 11, 23, 12, 0));
        assert!(noon(&week(("08:00", "18:00"), ("", ""))));
        assert!(!noon(&week(("", ""), ("", ""))));
        assert!(!noon(&week(("08:00", ""), ("", "18:00"))));
        assert!(!noon(&week(("8:00", "18:00"), ("08:00", "25:00"))));
        assert!(!noon(&week(("08:00", "08:00"), ("ab:cd", "18:00"))));
        assert!(!noon(&[]), "no rows at all");
    }

    #[test]
    fn end_2359_means_the_end_of_the_day() {
        let rows = week(("00:00", "23:59"), ("", ""));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 0, 0)
        ));
        let last_second = local(SAO_PAULO, 2026, 11, 23, 23, 59) + TimeDelta::seconds(59);
        assert!(is_open(&rows, SAO_PAULO, last_second));
    }

    #[test]
    fn a_shift_ending_before_it_starts_spans_midnight_into_the_next_day() {
        // Only Friday has a night shift 22:00-02:00.
        let mut rows = week(("", ""), ("", ""));
        let friday = rows
            .iter_mut()
            .find(|r| r.weekday_en == "friday")
            .expect("friday");
        friday.start_time_a = "22:00".into();
        friday.end_time_a = "02:00".into();
        // 2026-11-27 is a Friday.
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 27, 21, 59)
        ));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 27, 22, 0)
        ));
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 28, 1, 59)
        ));
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 28, 2, 0)
        ));
        // Thursday night is closed: the shift belongs to Friday.
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 27, 1, 0)
        ));
    }

    #[test]
    fn rows_are_found_by_weekday_not_by_position() {
        let mut rows = week(("", ""), ("", ""));
        rows.reverse();
        let monday = rows
            .iter_mut()
            .find(|r| r.weekday_en == "monday")
            .expect("monday");
        monday.start_time_a = "09:00".into();
        monday.end_time_a = "10:00".into();
        assert!(is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 23, 9, 30)
        ));
        assert!(!is_open(
            &rows,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 11, 24, 9, 30)
        ));
    }

    #[test]
    fn next_opening_is_now_when_open_and_the_next_shift_start_otherwise() {
        let rows = default_schedules();
        let open = local(SAO_PAULO, 2026, 11, 23, 9, 0);
        assert_eq!(next_opening(&rows, SAO_PAULO, open), Some(open));
        let lunch = local(SAO_PAULO, 2026, 11, 23, 12, 30);
        assert_eq!(
            next_opening(&rows, SAO_PAULO, lunch),
            Some(local(SAO_PAULO, 2026, 11, 23, 13, 0))
        );
        let night = local(SAO_PAULO, 2026, 11, 23, 18, 0);
        assert_eq!(
            next_opening(&rows, SAO_PAULO, night),
            Some(local(SAO_PAULO, 2026, 11, 24, 8, 0))
        );
    }

    #[test]
    fn next_opening_skips_closed_days_and_is_none_for_a_closed_week() {
        let mut rows = week(("", ""), ("", ""));
        let monday = rows
            .iter_mut()
            .find(|r| r.weekday_en == "monday")
            .expect("monday");
        monday.start_time_b = "14:00".into();
        monday.end_time_b = "15:00".into();
        // From Tuesday 2026-11-24 the next opening is the following Monday.
        let tuesday = local(ISTANBUL, 2026, 11, 24, 10, 0);
        assert_eq!(
            next_opening(&rows, ISTANBUL, tuesday),
            Some(local(ISTANBUL, 2026, 11, 30, 14, 0))
        );
        assert_eq!(
            next_opening(&week(("", ""), ("", "")), ISTANBUL, tuesday),
            None
        );
        assert_eq!(next_opening(&[], ISTANBUL, tuesday), None);
    }

    #[test]
    fn next_opening_when_a_clock_change_skips_the_shift_start() {
        // São Paulo started daylight saving at local midnight on 2018-11-04 (00:00 became 01:00).
        let rows = week(("00:30", "06:00"), ("", ""));
        let before = local(SAO_PAULO, 2018, 11, 3, 23, 0);
        let opening = next_opening(&rows, SAO_PAULO, before).expect("opens");
        let wall = opening.with_timezone(&SAO_PAULO).naive_local();
        assert_eq!(
            wall.date(),
            NaiveDate::from_ymd_opt(2018, 11, 4).expect("date")
        );
        assert_eq!(wall.time(), NaiveTime::from_hms_opt(1, 0, 0).expect("time"));
        assert!(is_open(&rows, SAO_PAULO, opening));
    }

    #[test]
    fn next_opening_when_a_clock_change_repeats_an_hour() {
        // São Paulo ended daylight saving at local midnight on 2019-02-17: 23:00-24:00 of the
        // 16th happened twice. A shift 23:00-23:30 opens again at the second 23:00.
        let mut rows = week(("", ""), ("", ""));
        let saturday = rows
            .iter_mut()
            .find(|r| r.weekday_en == "saturday")
            .expect("saturday");
        saturday.start_time_a = "23:00".into();
        saturday.end_time_a = "23:30".into();
        let first = local(SAO_PAULO, 2019, 2, 16, 23, 0);
        let after_first = first + TimeDelta::minutes(45);
        let second = next_opening(&rows, SAO_PAULO, after_first).expect("opens again");
        assert_eq!(second - first, TimeDelta::hours(1));
    }

    #[test]
    fn vacation_days_are_inclusive_in_the_company_zone() {
        let start = NaiveDate::from_ymd_opt(2026, 12, 24);
        let end = NaiveDate::from_ymd_opt(2026, 12, 26);
        assert!(!in_vacation(
            start,
            end,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 23, 23, 59)
        ));
        assert!(in_vacation(
            start,
            end,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 24, 0, 0)
        ));
        assert!(in_vacation(
            start,
            end,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 26, 23, 59)
        ));
        assert!(!in_vacation(
            start,
            end,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 27, 0, 0)
        ));
        // 2026-12-27 01:00 UTC is still the 26th in São Paulo.
        let utc = Utc
            .with_ymd_and_hms(2026, 12, 27, 1, 0, 0)
            .single()
            .expect("valid");
        assert!(in_vacation(start, end, SAO_PAULO, utc));
        assert!(!in_vacation(start, end, ISTANBUL, utc));
        assert!(!in_vacation(
            start,
            None,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 25, 0, 0)
        ));
        assert!(!in_vacation(
            end,
            start,
            SAO_PAULO,
            local(SAO_PAULO, 2026, 12, 25, 0, 0)
        ));
    }

    #[test]
    fn applicable_schedule_follows_schedule_type() {
        let company = week(("01:00", "02:00"), ("", ""));
        let connection = week(("03:00", "04:00"), ("", ""));
        let queue = Queue {
            id: crate::ids::QueueId(1),
            name: "Vendas".into(),
            color: "#fff".into(),
            order_queue: None,
            greeting_message: String::new(),
            out_of_hours_message: String::new(),
            close_ticket: false,
            ativar_roteador: false,
            tempo_roteador: 0,
            integration_id: None,
            file_list_id: None,
            schedules: week(("05:00", "06:00"), ("", "")),
            chatbots: Vec::new(),
        };
        let pick = |t| applicable_schedule(t, &company, &connection, Some(&queue));
        assert_eq!(pick(ScheduleType::Disabled), None);
        assert_eq!(pick(ScheduleType::Company), Some(company.as_slice()));
        assert_eq!(pick(ScheduleType::Connection), Some(connection.as_slice()));
        assert_eq!(pick(ScheduleType::Queue), Some(queue.schedules.as_slice()));
        assert_eq!(
            applicable_schedule(ScheduleType::Queue, &company, &connection, None),
            None
        );
        assert_eq!(
            applicable_schedule(ScheduleType::Company, &[], &connection, None),
            None
        );
    }

    #[test]
    fn time_zones_parse_by_iana_name() {
        assert_eq!(parse_time_zone("Europe/Istanbul").ok(), Some(ISTANBUL));
        let err = parse_time_zone("Mars/Olympus").expect_err("unknown");
        assert_eq!(
            err.fields,
            vec![FieldError::new("timezone", FieldCode::InvalidFormat)]
        );
    }

    /// Any shift text: mostly valid times, sometimes empty or malformed.
    fn any_time() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => (0u16..24, 0u16..60).prop_map(|(h, m)| format!("{h:02}:{m:02}")),
            1 => Just(String::new()),
            1 => "[0-9:]{0,6}",
        ]
    }

    fn any_rows() -> impl Strategy<Value = Vec<ScheduleRow>> {
        proptest::collection::vec((any_time(), any_time(), any_time(), any_time()), 7).prop_map(
            |times| {
                times
                    .into_iter()
                    .zip(WEEKDAYS)
                    .map(|((a0, a1, b0, b1), (pt, en))| ScheduleRow {
                        weekday: pt.into(),
                        weekday_en: en.into(),
                        start_time_a: a0,
                        end_time_a: a1,
                        start_time_b: b0,
                        end_time_b: b1,
                    })
                    .collect()
            },
        )
    }

    fn any_zone() -> impl Strategy<Value = Tz> {
        prop_oneof![Just(SAO_PAULO), Just(ISTANBUL)]
    }

    /// Instants from 1975 to 2037 (both zones changed their clocks in that span), at whole
    /// seconds, biased to minute boundaries around local midnight.
    fn any_instant() -> impl Strategy<Value = DateTime<Utc>> {
        (157_766_400i64..2_114_380_800, 0i64..4).prop_map(|(secs, skew)| {
            let secs = if skew == 0 { secs - secs % 60 } else { secs };
            DateTime::from_timestamp(secs, 0).unwrap_or_default()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn next_opening_is_never_before_at_and_is_open(
            rows in any_rows(), tz in any_zone(), at in any_instant()
        ) {
            let _ = is_open(&rows, tz, at);
            if let Some(opening) = next_opening(&rows, tz, at) {
                prop_assert!(opening >= at);
                prop_assert!(is_open(&rows, tz, opening));
                // Nothing earlier is open: check every minute boundary in between (offsets of
                // both zones are whole minutes in this span).
                let mut t = at;
                let step = TimeDelta::minutes(1);
                let mut first = true;
                while t < opening {
                    prop_assert!(!is_open(&rows, tz, t), "open at {t} before {opening}");
                    let next = if first {
                        let rem = t.timestamp().rem_euclid(60);
                        t + TimeDelta::seconds(60 - rem)
                    } else {
                        t + step
                    };
                    first = false;
                    t = next;
                }
            }
        }

        #[test]
        fn around_midnight_and_clock_changes_nothing_panics(
            rows in any_rows(),
            tz in any_zone(),
            // Local midnights of days when the zones changed clocks (São Paulo 2018-11-04,
            // 2019-02-17; Istanbul 2016-03-27, 2015-10-25), give or take three hours.
            base in prop_oneof![
                Just(1_541_300_400i64), Just(1_550_372_400i64),
                Just(1_459_036_800i64), Just(1_445_720_400i64)
            ],
            delta in -10_800i64..10_800,
        ) {
            let at = DateTime::from_timestamp(base + delta, 0).unwrap_or_default();
            let open = is_open(&rows, tz, at);
            let next = next_opening(&rows, tz, at);
            if open {
                prop_assert_eq!(next, Some(at));
            }
            if let Some(opening) = next {
                prop_assert!(opening >= at && is_open(&rows, tz, opening));
            }
        }
    }
}
