//! The sign-in rate limit: attempts per minute per client address and per account.
//!
//! Two keyed GCRA limiters (governor): one keyed by the client's IP address, one by the
//! lower-cased e-mail tried. Every attempt counts, successful or not, so guessing is slow from
//! one address and against one account from many addresses. Idle keys are forgotten by
//! [`LoginLimiter::forget_idle`], which the server calls every minute.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Sign-in limits per client address and per account.
pub struct LoginLimiter {
    per_ip: DefaultKeyedRateLimiter<IpAddr>,
    per_account: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
}

impl std::fmt::Debug for LoginLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoginLimiter")
            .field("addresses", &self.per_ip.len())
            .field("accounts", &self.per_account.len())
            .finish()
    }
}

impl LoginLimiter {
    /// Allows `per_minute` attempts per minute (at least one) for each address and each account,
    /// all of them at once if they come in a burst.
    pub fn new(per_minute: u32) -> Self {
        let quota = Quota::per_minute(NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN));
        Self {
            per_ip: RateLimiter::keyed(quota),
            per_account: RateLimiter::keyed(quota),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one attempt from `ip` against `account`; `Err` holds how long to wait.
    pub fn check(&self, ip: IpAddr, account: &str) -> Result<(), Duration> {
        let now = self.clock.now();
        self.per_ip
            .check_key(&ip)
            .map_err(|not_until| not_until.wait_time_from(now))?;
        self.per_account
            .check_key(&account.trim().to_lowercase())
            .map_err(|not_until| not_until.wait_time_from(now))?;
        Ok(())
    }

    /// Drops keys whose limits are back to full, so the maps do not grow without bound.
    pub fn forget_idle(&self) {
        self.per_ip.retain_recent();
        self.per_ip.shrink_to_fit();
        self.per_account.retain_recent();
        self.per_account.shrink_to_fit();
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
    fn limits_per_address_and_per_account() {
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
    fn retry_after_rounds_up() {
        assert_eq!(retry_after_secs(Duration::from_millis(1)), 1);
        assert_eq!(retry_after_secs(Duration::from_secs(30)), 30);
        assert_eq!(retry_after_secs(Duration::from_millis(29_500)), 30);
        assert_eq!(retry_after_secs(Duration::ZERO), 1);
    }
}
