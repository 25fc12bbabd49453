//! The pause between two runs of a connection: doubling from the first delay up to a cap, each
//! drawn a little shorter at random so that connections dropped together do not come back
//! together.

use std::time::Duration;

/// Delays between rebuilds (see the module's documentation).
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    first: Duration,
    max: Duration,
    /// Each delay is drawn from `[d × (1 − jitter), d]`.
    jitter: f64,
    /// Rebuilds since the last reset.
    attempt: u32,
}

impl Backoff {
    pub(crate) fn new(first: Duration, max: Duration, jitter: f64) -> Self {
        Backoff {
            first,
            max: max.max(first),
            jitter: jitter.clamp(0.0, 1.0),
            attempt: 0,
        }
    }

    /// The delay before the next rebuild, `draw` in `[0, 1)` choosing within the jitter, and
    /// counts the rebuild.
    pub(crate) fn next(&mut self, draw: f64) -> Duration {
        let factor = 2u32.saturating_pow(self.attempt.min(31));
        let full = self.first.saturating_mul(factor).min(self.max);
        self.attempt = self.attempt.saturating_add(1);
        full.mul_f64(1.0 - self.jitter * draw.clamp(0.0, 1.0))
    }

    /// Rebuilds since the last reset.
    pub(crate) fn attempts(&self) -> u32 {
        self.attempt
    }

    /// Starts again from the first delay (after a run that stayed connected).
    pub(crate) fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_and_reset() {
        let mut backoff = Backoff::new(Duration::from_secs(2), Duration::from_secs(300), 0.2);
        let full: Vec<_> = (0..10).map(|_| backoff.next(0.0).as_secs()).collect();
        assert_eq!(full, [2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
        assert_eq!(backoff.attempts(), 10);
        backoff.reset();
        assert_eq!(backoff.next(0.0), Duration::from_secs(2));
    }

    #[test]
    fn jitter_only_shortens_a_delay_and_by_at_most_its_fraction() {
        let mut backoff = Backoff::new(Duration::from_secs(10), Duration::from_secs(300), 0.2);
        assert_eq!(backoff.next(0.999_999).as_millis(), 8_000);
        backoff.reset();
        assert_eq!(backoff.next(0.5), Duration::from_secs(9));
        backoff.reset();
        // Draws out of range are clamped.
        assert_eq!(backoff.next(7.0), Duration::from_secs(8));
    }

    #[test]
    fn many_attempts_do_not_overflow() {
        let mut backoff = Backoff::new(Duration::from_secs(2), Duration::from_secs(300), 0.0);
        for _ in 0..100 {
            backoff.next(0.0);
        }
        assert_eq!(backoff.next(0.0), Duration::from_secs(300));
    }
}
