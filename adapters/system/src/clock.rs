//! Clocks: the wall clock, and a manual clock tests set and advance.

use std::sync::{Arc, Mutex, PoisonError};

use chatflow_core::ports::Clock;
use chrono::{DateTime, TimeDelta, Utc};

/// The operating system's clock, in UTC.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until it is set or advanced: tests build the server, the CLI or
/// the use cases on it and move time on purpose instead of waiting for it.
///
/// Clones share one time (the value sits behind an `Arc`), so a test keeps a clone and
/// advances the clock every part of the server reads.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    /// A clock showing `at`.
    pub fn at(at: DateTime<Utc>) -> ManualClock {
        ManualClock(Arc::new(Mutex::new(at)))
    }

    /// A clock showing the wall clock's time now, at microsecond precision (what the store
    /// keeps), then standing still.
    pub fn starting_now() -> ManualClock {
        use chrono::SubsecRound;
        ManualClock::at(Utc::now().trunc_subsecs(6))
    }

    /// Shows `at` from now on (it may go backwards, as a wall clock can).
    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = at;
    }

    /// Moves the clock on by `by` and answers the new time.
    pub fn advance(&self, by: TimeDelta) -> DateTime<Utc> {
        let mut now = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        *now += by;
        *now
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_moves_forward_and_is_recent() {
        let clock = SystemClock;
        let first = clock.now();
        let second = clock.now();
        assert!(second >= first);
        // Any machine running these tests is past 2024.
        assert!(first.timestamp() > 1_700_000_000);
    }

    #[test]
    fn a_manual_clock_stands_still_until_moved_and_its_clones_share_the_time() {
        let start = DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time");
        let clock = ManualClock::at(start);
        let shared: Arc<dyn Clock> = Arc::new(clock.clone());
        assert_eq!(shared.now(), start);
        assert_eq!(shared.now(), start, "no time passes by itself");
        let later = clock.advance(TimeDelta::seconds(90));
        assert_eq!(later, start + TimeDelta::seconds(90));
        assert_eq!(shared.now(), later, "a clone sees the advance");
        clock.set(start);
        assert_eq!(shared.now(), start, "set may go backwards");
    }

    #[test]
    fn a_manual_clock_starting_now_keeps_microseconds_only() {
        let clock = ManualClock::starting_now();
        assert_eq!(clock.now().timestamp_subsec_nanos() % 1_000, 0);
    }
}
