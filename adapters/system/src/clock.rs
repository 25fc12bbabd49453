//! The wall clock.

use chatflow_core::ports::Clock;
use chrono::{DateTime, Utc};

/// The operating system's clock, in UTC.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
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
}
