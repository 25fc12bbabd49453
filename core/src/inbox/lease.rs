//! One owner per connection: the lease a server process holds on a connection's channel
//! session, with a fencing token.
//!
//! A provider whose session lives in one process (WhatsApp Web: one socket, one set of Signal
//! keys per number) must never run it in two at once: two clients on one number replace each
//! other and corrupt each other's keys. Each process names itself with an owner id and
//! [`ChannelLeaseRepo::acquire`]s a connection before running its session, renews the lease
//! well within its time to live, and stops the session at once when a renewal fails. A process
//! that dies stops renewing; once the lease has expired, another process acquires it (the
//! connections to take over are [`ChannelLeaseRepo::claimable_across_companies`]).
//!
//! **Fencing.** Time alone cannot make the handover safe: a process paused past its lease (a
//! long garbage collection, a frozen VM) may wake up and write as if it still held it. So every
//! acquisition gets a new [`LeaseToken`], strictly greater than every token the connection had
//! before (also across releases: tokens are never reused), and every write of the session's
//! key state carries the writer's token ([`crate::inbox::session_state::SessionStateRepo::apply`]).
//! The store refuses, in the write's own transaction, a token that is not the current one
//! (`ERR_CHANNEL_LEASE_LOST`), so a late writer is stopped by the database, not by its own
//! sense of time.
//!
//! Times come from the caller (the [`crate::ports::Clock`] port); the store never reads a clock.
//! Like the key state, the port is internal and keyed by connection: only channel providers
//! call it, no route or command exposes it.

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};

use crate::error::Result;
use crate::ids::WhatsappId;

/// A fencing token: the number of one acquisition of a connection's lease. Later acquisitions
/// have greater tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LeaseToken(pub i64);

impl std::fmt::Display for LeaseToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A connection's lease as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The connection.
    pub connection: WhatsappId,
    /// The process holding it; `None` once released.
    pub owner: Option<String>,
    /// The token of the latest acquisition.
    pub token: LeaseToken,
    /// The holder must renew before this time; after it, another process may acquire.
    pub expires_at: DateTime<Utc>,
}

impl Lease {
    /// Whether a process holds the lease at `now`: it was not released and has not expired.
    pub fn is_held_at(&self, now: DateTime<Utc>) -> bool {
        self.owner.is_some() && now < self.expires_at
    }
}

/// Leases on connections' channel sessions (see the module's documentation). Every call is
/// atomic on its own.
#[async_trait]
pub trait ChannelLeaseRepo: Send + Sync {
    /// Takes the connection's lease for `owner` until `now + ttl` when nobody holds it at `now`
    /// (never acquired, released, or expired) or `owner` already does, and answers the new
    /// token: greater than every earlier token of the connection, also when `owner` held it
    /// already (its older token is fenced out with the rest). `None` when another owner holds
    /// it. `ERR_NO_WAPP_FOUND` when the connection does not exist.
    async fn acquire(
        &self,
        connection: WhatsappId,
        owner: &str,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<Option<LeaseToken>>;
    /// Extends the lease to `now + ttl` while `token` is still `owner`'s current token (also
    /// after its expiry when nobody took it over meanwhile). False when it is not: the lease
    /// was taken over or released, and the session must stop.
    async fn renew(
        &self,
        connection: WhatsappId,
        owner: &str,
        token: LeaseToken,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<bool>;
    /// Gives the lease up (a session stopped on purpose, a process shutting down) so another
    /// process may acquire it at once; the token is kept, so the next one is still greater.
    /// False when `token` was not `owner`'s current token (nothing changes).
    async fn release(&self, connection: WhatsappId, owner: &str, token: LeaseToken)
    -> Result<bool>;
    /// The connection's lease, if it was ever acquired.
    async fn lease(&self, connection: WhatsappId) -> Result<Option<Lease>>;
    /// Platform-level, across companies: the connections whose lease nobody holds at `now`
    /// (released, or expired), in id order, for a process to take over. Connections never
    /// leased are not listed: a process starts those from the connection list.
    async fn claimable_across_companies(&self, now: DateTime<Utc>) -> Result<Vec<WhatsappId>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_held_until_it_expires_or_is_released() {
        let at = DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time");
        let mut lease = Lease {
            connection: WhatsappId(1),
            owner: Some("a".into()),
            token: LeaseToken(3),
            expires_at: at + TimeDelta::seconds(30),
        };
        assert!(lease.is_held_at(at));
        assert!(lease.is_held_at(at + TimeDelta::seconds(29)));
        assert!(!lease.is_held_at(at + TimeDelta::seconds(30)));
        lease.owner = None;
        assert!(!lease.is_held_at(at));
        assert!(LeaseToken(4) > LeaseToken(3));
        assert_eq!(LeaseToken(4).to_string(), "4");
    }
}
