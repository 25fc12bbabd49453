//! The sign-in rate limit: attempts per client address, and failures per account.
//!
//! - Per address (governor, keyed GCRA): every sign-in, signup and password-reset attempt from
//!   one client address counts, so one attacker guesses slowly whatever the accounts tried (and
//!   the password hashing they cost stays bounded).
//! - Per account, for sign-in: only failures count, and past [`FREE_FAILURES`] each further
//!   failure doubles the delay before the account may be tried again, up to [`MAX_DELAY`]. The
//!   delay holds back the addresses that failed against the account; an address with no failure
//!   against it still gets through, so a stranger's wrong guesses never lock a real user out,
//!   and guessing from many addresses costs a fresh address per guess. A successful sign-in
//!   clears the account's failures; an hour without failures forgets them.
//! - Per account, for signup and password reset: attempts per minute (governor), which bounds
//!   the mail and hashing one e-mail can cause.
//!
//! Idle keys are forgotten by [`LoginLimiter::forget_idle`], which the server calls every
//! minute.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Failures an account may have before its backoff starts.
pub const FREE_FAILURES: u32 = 5;
/// The delay after the first failure past [`FREE_FAILURES`]; it doubles with each further one.
pub const FIRST_DELAY: Duration = Duration::from_secs(1);
/// The longest delay between failing attempts on one account.
pub const MAX_DELAY: Duration = Duration::from_secs(15 * 60);
/// How long an account's failures are remembered after the last one.
pub const FORGET_FAILURES_AFTER: Duration = Duration::from_secs(60 * 60);
/// The most addresses remembered per account (further ones are held back like known ones).
const MAX_ADDRESSES: usize = 4096;

/// The failures against one account.
#[derive(Debug, Clone)]
struct AccountFailures {
    count: u32,
    last: Instant,
    addresses: HashSet<IpAddr>,
}

impl AccountFailures {
    /// When the account may be tried again by an address that failed against it.
    fn retry_at(&self) -> Instant {
        self.last + backoff(self.count)
    }
}

/// The delay after `failures` failures: none up to [`FREE_FAILURES`], then [`FIRST_DELAY`]
/// doubling with each failure, at most [`MAX_DELAY`].
pub fn backoff(failures: u32) -> Duration {
    match failures.checked_sub(FREE_FAILURES + 1) {
        None => Duration::ZERO,
        Some(doublings) => FIRST_DELAY
            .checked_mul(1u32.checked_shl(doublings.min(31)).unwrap_or(u32::MAX))
            .unwrap_or(MAX_DELAY)
            .min(MAX_DELAY),
    }
}

/// Sign-in limits per client address and per account.
pub struct LoginLimiter {
    per_ip: DefaultKeyedRateLimiter<IpAddr>,
    per_account: DefaultKeyedRateLimiter<String>,
    failures: Mutex<HashMap<String, AccountFailures>>,
    clock: DefaultClock,
}

impl std::fmt::Debug for LoginLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginLimiter")
            .field("addresses", &self.per_ip.len())
            .field("accounts", &self.per_account.len())
            .finish_non_exhaustive()
    }
}

/// The key of an account: its e-mail, trimmed and lower-cased.
fn account_key(account: &str) -> String {
    account.trim().to_lowercase()
}

impl LoginLimiter {
    /// Allows `per_minute` attempts per minute (at least one) for each address, and for each
    /// account on signup and password reset, all of them at once if they come in a burst.
    pub fn new(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN));
        Self {
            per_ip: RateLimiter::keyed(quota),
            per_account: RateLimiter::keyed(quota),
            failures: Mutex::new(HashMap::new()),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one signup or password-reset attempt from `ip` for `account`; `Err` holds how
    /// long to wait.
    pub fn check(&self, ip: IpAddr, account: &str) -> Result<(), Duration> {
        self.check_address(ip)?;
        let now = self.clock.now();
        self.per_account
            .check_key(&account_key(account))
            .map_err(|not_until| not_until.wait_time_from(now))
    }

    /// Counts one sign-in attempt from `ip` and says whether `account` may be tried from it
    /// at `now`: refused while the address is out of attempts, or while the account is in
    /// backoff and this address has failed against it. `Err` holds how long to wait.
    pub fn check_login(&self, ip: IpAddr, account: &str, now: Instant) -> Result<(), Duration> {
        self.check_address(ip)?;
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(record) = failures.get(&account_key(account)) {
            let retry_at = record.retry_at();
            let known = record.addresses.contains(&ip) || record.addresses.len() >= MAX_ADDRESSES;
            if known && retry_at > now {
                return Err(retry_at - now);
            }
        }
        Ok(())
    }

    /// Records a failed sign-in on `account` from `ip` at `now`.
    pub fn record_failure(&self, ip: IpAddr, account: &str, now: Instant) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let record = failures
            .entry(account_key(account))
            .or_insert_with(|| AccountFailures {
                count: 0,
                last: now,
                addresses: HashSet::new(),
            });
        record.count = record.count.saturating_add(1);
        record.last = record.last.max(now);
        if record.addresses.len() < MAX_ADDRESSES {
            record.addresses.insert(ip);
        }
    }

    /// Records a successful sign-in on `account`: its failures are forgotten.
    pub fn record_success(&self, account: &str) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&account_key(account));
    }

    fn check_address(&self, ip: IpAddr) -> Result<(), Duration> {
        let now = self.clock.now();
        self.per_ip
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(now))
    }

    /// Drops keys whose limits are back to full and failures older than
    /// [`FORGET_FAILURES_AFTER`], so the maps do not grow without bound.
    pub fn forget_idle(&self) {
        self.per_ip.retain_recent();
        self.per_ip.shrink_to_fit();
        self.per_account.retain_recent();
        self.per_account.shrink_to_fit();
        let now = Instant::now();
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|_, record| now.saturating_duration_since(record.last) < FORGET_FAILURES_AFTER);
    }
}

/// Whole seconds to announce in `Retry-After` (at least one).
pub fn retry_after_secs(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signup_and_reset_are_limited_per_address_and_per_account() {
        let limiter = LoginLimiter::new(2);
        let a = IpAddr::from([10, 0, 0, 1]);
        let b = IpAddr::from([10, 0, 0, 2]);
        assert!(limiter.check(a, "x@example.com").is_ok());
        assert!(limiter.check(a, "y@example.com").is_ok());
        // The third attempt from the same address is refused, whatever the account.
        assert!(limiter.check(a, "z@example.com").is_err());
        // Another address may still try other accounts...
        assert!(limiter.check(b, "w@example.com").is_ok());
        // ...but not an account that was already tried twice (case does not matter).
        assert!(limiter.check(b, "X@Example.com").is_ok());
        let c = IpAddr::from([10, 0, 0, 3]);
        let wait = limiter
            .check(c, "x@example.com")
            .expect_err("account exhausted");
        assert!(wait > Duration::ZERO && wait <= Duration::from_secs(60));
    }

    #[test]
    fn sign_in_attempts_are_limited_per_address() {
        let limiter = LoginLimiter::new(3);
        let ip = IpAddr::from([10, 0, 0, 1]);
        let now = Instant::now();
        for n in 0..3 {
            assert!(
                limiter
                    .check_login(ip, &format!("u{n}@x.test"), now)
                    .is_ok()
            );
        }
        assert!(limiter.check_login(ip, "u9@x.test", now).is_err());
    }

    #[test]
    fn backoff_grows_from_the_sixth_failure_and_is_capped() {
        assert_eq!(backoff(0), Duration::ZERO);
        assert_eq!(backoff(FREE_FAILURES), Duration::ZERO);
        assert_eq!(backoff(FREE_FAILURES + 1), FIRST_DELAY);
        assert_eq!(backoff(FREE_FAILURES + 2), FIRST_DELAY * 2);
        assert_eq!(backoff(FREE_FAILURES + 5), FIRST_DELAY * 16);
        assert_eq!(backoff(FREE_FAILURES + 40), MAX_DELAY);
        assert_eq!(backoff(u32::MAX), MAX_DELAY);
    }

    #[test]
    fn failures_hold_back_their_addresses_but_not_a_fresh_one() {
        let limiter = LoginLimiter::new(1000);
        let start = Instant::now();
        let account = "ana@acme.test";
        for n in 1..=10u8 {
            let ip = IpAddr::from([10, 0, 1, n]);
            assert!(
                limiter.check_login(ip, account, start).is_ok(),
                "attempt {n}"
            );
            limiter.record_failure(ip, account, start);
        }
        // Ten failures: the failing addresses wait backoff(10)...
        let wait = limiter
            .check_login(IpAddr::from([10, 0, 1, 1]), "ANA@acme.test", start)
            .expect_err("held back");
        assert_eq!(wait, backoff(10));
        // ...and are let through once it has passed.
        let later = start + backoff(10);
        assert!(
            limiter
                .check_login(IpAddr::from([10, 0, 1, 1]), account, later)
                .is_ok()
        );
        // An address without failures is never held back.
        let fresh = IpAddr::from([10, 0, 2, 1]);
        assert!(limiter.check_login(fresh, account, start).is_ok());
        // Each further failure doubles the wait.
        limiter.record_failure(fresh, account, start);
        assert_eq!(limiter.check_login(fresh, account, start), Err(backoff(11)));
        assert_eq!(backoff(11), backoff(10) * 2);
        // Other accounts are not affected; a success clears the account.
        assert!(
            limiter
                .check_login(IpAddr::from([10, 0, 1, 1]), "other@acme.test", start)
                .is_ok()
        );
        limiter.record_success(account);
        assert!(limiter.check_login(fresh, account, start).is_ok());
    }

    #[test]
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(30)), 30);
        assert_eq!(retry_after_secs(Duration::from_millis(29_500)), 30);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
