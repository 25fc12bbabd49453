//! The deaf-session watchdog: a session whose socket is alive (frames keep arriving: at least
//! the keepalive's pongs) but that has received no message for much longer than the
//! connection usually goes without one is presumed deaf, and the supervisor restarts it with a
//! fresh client.
//!
//! Judged from the client's counters ([`SessionStats`]) at each check, only while the session
//! is connected:
//!
//! - The connection's **usual gap** between messages is a moving average of the gaps seen so
//!   far (across runs: it belongs to the connection, not to one client).
//! - The **window** of silence tolerated is `max(min_silence, factor × usual gap)`, the minimum
//!   alone until a gap was seen. A gap across a restart for deafness is not counted. Each
//!   restart for deafness with no message since doubles it, so
//!   a number that is merely quiet (at night, say) is restarted at growing intervals, not every
//!   window.
//! - A session is deaf when it has been connected and silent (no new message) for the window
//!   while its frame counter advanced. A socket that receives nothing at all is the library's
//!   keepalive's business, not ours.

use std::time::Duration;

use tokio::time::Instant;

use crate::client::SessionStats;

/// The longest window: a quiet number is still checked once a day.
const MAX_WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// Weight of a new gap in the moving average (the rest is the old average).
const NEW_GAP_WEIGHT: f64 = 0.2;

/// One connection's watchdog (see the module's documentation).
#[derive(Debug, Clone)]
pub(crate) struct Watchdog {
    min_silence: Duration,
    factor: u32,
    /// Moving average of the time between two messages.
    usual_gap: Option<Duration>,
    /// When messages last advanced (any run).
    last_message: Option<Instant>,
    /// Since when this run has been connected and silent, and its frame count then.
    quiet_since: Instant,
    frames_then: u64,
    /// The counters at the previous check of this run.
    messages: u64,
    /// Deaf verdicts with no message since.
    strikes: u32,
}

impl Watchdog {
    pub(crate) fn new(min_silence: Duration, factor: u32, now: Instant) -> Self {
        Watchdog {
            min_silence,
            factor: factor.max(1),
            usual_gap: None,
            last_message: None,
            quiet_since: now,
            frames_then: 0,
            messages: 0,
            strikes: 0,
        }
    }

    /// A fresh client started: its counters start from zero.
    pub(crate) fn new_run(&mut self, now: Instant) {
        self.quiet_since = now;
        self.frames_then = 0;
        self.messages = 0;
    }

    /// The silence tolerated now.
    pub(crate) fn window(&self) -> Duration {
        let usual = self
            .usual_gap
            .map_or(Duration::ZERO, |gap| gap.saturating_mul(self.factor));
        let base = self.min_silence.max(usual);
        base.saturating_mul(2u32.saturating_pow(self.strikes.min(31)))
            .min(MAX_WINDOW.max(self.min_silence))
    }

    /// Looks at the counters at `now`; `connected` when the session is logged in and its socket
    /// up. True when the session is deaf (the caller restarts it).
    pub(crate) fn check(&mut self, now: Instant, stats: SessionStats, connected: bool) -> bool {
        if !connected {
            // Silence while not connected says nothing about deafness.
            self.quiet_since = now;
            self.frames_then = stats.frames_received;
            self.messages = stats.messages_received;
            return false;
        }
        if stats.messages_received > self.messages {
            let arrived = stats.messages_received - self.messages;
            if let Some(last) = self.last_message {
                let gap = now.saturating_duration_since(last)
                    / u32::try_from(arrived).unwrap_or(u32::MAX);
                self.usual_gap = Some(match self.usual_gap {
                    Some(usual) => {
                        usual.mul_f64(1.0 - NEW_GAP_WEIGHT) + gap.mul_f64(NEW_GAP_WEIGHT)
                    }
                    None => gap,
                });
            }
            self.last_message = Some(now);
            self.messages = stats.messages_received;
            self.quiet_since = now;
            self.frames_then = stats.frames_received;
            self.strikes = 0;
            return false;
        }
        let silent_for = now.saturating_duration_since(self.quiet_since);
        if silent_for >= self.window() && stats.frames_received > self.frames_then {
            self.strikes = self.strikes.saturating_add(1);
            // The silence was presumably not real: the next gap is not measured across it.
            self.last_message = None;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: Duration = Duration::from_secs(30 * 60);

    fn stats(frames: u64, messages: u64) -> SessionStats {
        SessionStats {
            frames_received: frames,
            messages_received: messages,
            ..SessionStats::default()
        }
    }

    fn minutes(m: u64) -> Duration {
        Duration::from_secs(m * 60)
    }

    #[test]
    fn frames_without_messages_for_the_window_is_deaf() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        assert!(!dog.check(start + minutes(1), stats(10, 0), true));
        assert!(!dog.check(start + minutes(29), stats(300, 0), true));
        assert!(dog.check(start + minutes(30), stats(310, 0), true));
    }

    #[test]
    fn no_frames_either_is_not_deafness() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        assert!(!dog.check(start + minutes(60), stats(0, 0), true));
    }

    #[test]
    fn silence_while_not_connected_does_not_count() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        assert!(!dog.check(start + minutes(40), stats(100, 0), false));
        assert!(!dog.check(start + minutes(41), stats(110, 0), true));
        assert!(!dog.check(start + minutes(69), stats(200, 0), true));
        assert!(dog.check(start + minutes(70), stats(210, 0), true));
    }

    #[test]
    fn a_message_restarts_the_silence() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        assert!(!dog.check(start + minutes(20), stats(100, 1), true));
        assert!(!dog.check(start + minutes(49), stats(200, 1), true));
        assert!(dog.check(start + minutes(50), stats(210, 1), true));
    }

    #[test]
    fn the_window_follows_the_usual_gap_and_doubles_after_each_verdict() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        assert_eq!(dog.window(), MIN);
        // Messages every 6 minutes: usual gap 6 min, window 60 min.
        dog.check(start + minutes(6), stats(10, 1), true);
        dog.check(start + minutes(12), stats(20, 2), true);
        assert_eq!(dog.window(), minutes(60));
        // Two messages in 6 minutes: a 3-minute gap pulls the average down.
        dog.check(start + minutes(18), stats(30, 4), true);
        assert_eq!(dog.window(), Duration::from_secs(54 * 60));
        let last = start + minutes(18);
        assert!(!dog.check(last + minutes(53), stats(90, 4), true));
        assert!(dog.check(last + minutes(54), stats(91, 4), true));
        assert_eq!(dog.window(), Duration::from_secs(108 * 60));
        // A fresh client: counters from zero, the silence counted from its start.
        let restart = last + minutes(55);
        dog.new_run(restart);
        assert!(!dog.check(restart + minutes(107), stats(50, 0), true));
        assert!(dog.check(restart + minutes(108), stats(51, 0), true));
        // A message clears the strikes.
        dog.check(restart + minutes(110), stats(52, 1), true);
        assert!(dog.window() < minutes(108));
    }

    #[test]
    fn the_window_is_capped() {
        let start = Instant::now();
        let mut dog = Watchdog::new(MIN, 10, start);
        let mut now = start;
        for _ in 0..20 {
            now += dog.window();
            assert!(dog.check(now, stats(now.duration_since(start).as_secs(), 0), true));
        }
        assert_eq!(dog.window(), MAX_WINDOW);
    }
}
