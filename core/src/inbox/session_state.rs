//! A channel session's key state: the protocol state a provider keeps for a connection (for
//! WhatsApp Web: the device identity, Signal identities, sessions and keys, app-state sync keys
//! and versions, LID and phone-number mappings, the inbound messages waiting for their commit,
//! the people the phone knows...)
//! stored in our database, per connection, through one byte-level port.
//!
//! The port knows no protocol types. A provider encodes each of its tables as a
//! [`StateNamespace`] of rows `{key, value, aux}`: the key is what the provider looks rows up by
//! (an address, an id), the value is opaque bytes (sealed by the provider with
//! [`crate::ports::SecretCipher::seal_bytes`] when it is key material), and `aux` is one number
//! the store can compare without reading the value (a timestamp, an expiry, an id, a flag).
//!
//! Every write goes through [`SessionStateRepo::apply`] (a batch of [`StateOp`]s, one
//! transaction) or [`SessionStateRepo::take`], and both carry the [`LeaseToken`] the writer
//! holds for the connection ([`crate::inbox::lease`]): the store checks it against the
//! connection's current token inside the same transaction and refuses the write with
//! `ERR_CHANNEL_LEASE_LOST` when another process took the session over. So a process that lost
//! its lease cannot overwrite the keys its successor is using.
//!
//! The port is internal: it is keyed by connection, not by tenant scope, because only the
//! channel provider of the process holding the connection's lease calls it (no HTTP route or
//! CLI command reaches it), and a connection belongs to exactly one company (its rows go when
//! the connection, or its company, is deleted).

use async_trait::async_trait;

use crate::error::Result;
use crate::ids::WhatsappId;
use crate::inbox::lease::LeaseToken;

/// Declares the namespaces once: the enum with its stored codes, and the list of all of them.
macro_rules! namespaces {
    ($($(#[doc = $doc:literal])* $name:ident = $code:literal,)*) => {
        /// One table of a provider's session state. Stored as its [`StateNamespace::code`], which
        /// never changes once released (a test pins every code).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum StateNamespace {
            $($(#[doc = $doc])* $name,)*
        }

        impl StateNamespace {
            /// Every namespace, in code order.
            pub const ALL: &'static [StateNamespace] = &[$(StateNamespace::$name,)*];

            /// The number the store keeps in its `ns` column.
            pub const fn code(self) -> i16 {
                match self {
                    $(StateNamespace::$name => $code,)*
                }
            }

            /// The namespace stored as `code`; `None` for a code no namespace has.
            pub const fn from_code(code: i16) -> Option<StateNamespace> {
                match code {
                    $($code => Some(StateNamespace::$name),)*
                    _ => None,
                }
            }

            /// The namespace's name, for logs and spans.
            pub const fn name(self) -> &'static str {
                match self {
                    $(StateNamespace::$name => stringify!($name),)*
                }
            }
        }
    };
}

namespaces! {
    /// The device: the connection's own identity and registration (one row).
    Device = 1,
    /// Identity keys of remote addresses (public keys).
    Identity = 2,
    /// Signal sessions, per remote address.
    Session = 3,
    /// One-time prekeys, by id; `aux` says whether the server has it (uploaded).
    Prekey = 4,
    /// Signed prekeys, by id.
    SignedPrekey = 5,
    /// Group sender keys, per (group, sender).
    SenderKey = 6,
    /// App-state sync keys, by key id; `aux` orders them (the latest key).
    AppStateSyncKey = 7,
    /// App-state collection versions (hash states), per collection.
    AppStateVersion = 8,
    /// App-state mutation MACs, per (collection, index).
    MutationMac = 9,
    /// Which devices already hold our sender key, per group.
    SenderKeyDeviceStatus = 10,
    /// LID → phone-number mappings; `aux` is when the mapping was learnt.
    LidToPn = 11,
    /// Phone-number → LID mappings (the reverse index; the latest LID wins).
    PnToLid = 12,
    /// Base keys of retried messages, per (address, message).
    BaseKey = 13,
    /// Device lists, per user.
    DeviceList = 14,
    /// Group metadata, per group.
    GroupMetadata = 15,
    /// Trusted-contact tokens, per address; `aux` is the token's time.
    TcToken = 16,
    /// Payloads of sent messages kept for retries, per (chat, id); `aux` is when they were sent.
    SentMessage = 17,
    /// Inbound messages received and not yet committed by the inbox; `aux` is when they came.
    PendingInbound = 18,
    /// Message secrets (polls, reactions to them...), per (chat, sender, id); `aux` is their
    /// expiry.
    MessageSecret = 19,
    /// The people the phone knows (its address book, its one-to-one chats), by phone number;
    /// `aux` is when each was first seen.
    Directory = 20,
}

impl std::fmt::Display for StateNamespace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of a namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StateRow {
    /// What the provider looks the row up by; unique in its namespace and connection.
    pub key: Vec<u8>,
    /// The row's bytes, opaque to the store.
    pub value: Vec<u8>,
    /// A number the store compares without reading the value: a time, an expiry, an id, a flag.
    pub aux: i64,
}

/// One write of a batch ([`SessionStateRepo::apply`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StateOp {
    /// Inserts the row, or replaces the value and `aux` of the row with this key.
    Put {
        ns: StateNamespace,
        key: Vec<u8>,
        value: Vec<u8>,
        aux: i64,
    },
    /// Sets `aux` of the row with this key when there is one; never creates a row (a prekey
    /// marked uploaded after it was consumed stays consumed).
    SetAux {
        ns: StateNamespace,
        key: Vec<u8>,
        aux: i64,
    },
    /// Deletes the row with this key, if any.
    Delete { ns: StateNamespace, key: Vec<u8> },
    /// Deletes every row of the namespace whose key starts with `prefix` (every row for an
    /// empty prefix).
    DeletePrefix { ns: StateNamespace, prefix: Vec<u8> },
    /// Deletes every row of the namespace whose `aux` is below `cutoff` (expiry sweeps).
    DeleteAuxBelow { ns: StateNamespace, cutoff: i64 },
}

impl StateOp {
    /// The namespace the op writes to.
    pub fn namespace(&self) -> StateNamespace {
        match self {
            StateOp::Put { ns, .. }
            | StateOp::SetAux { ns, .. }
            | StateOp::Delete { ns, .. }
            | StateOp::DeletePrefix { ns, .. }
            | StateOp::DeleteAuxBelow { ns, .. } => *ns,
        }
    }
}

/// The smallest byte string greater than every key that starts with `prefix`, for a range
/// `prefix <= key < end` that a byte-ordered index answers; `None` when there is none (an
/// empty prefix, or one of only `0xFF` bytes: every key from `prefix` on matches).
///
/// Keys compare as bytes (SQLite's `BLOB` and PostgreSQL's `bytea` both compare that way), so
/// the end is the prefix with its trailing `0xFF` bytes removed and its last byte incremented.
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&byte| byte != 0xFF)?;
    let mut end = prefix[..=keep].to_vec();
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    Some(end)
}

/// Storage of channel sessions' key state, per connection (see the module's documentation).
///
/// Reads see committed rows only. Writes are fenced: `apply` and `take` answer
/// `ERR_CHANNEL_LEASE_LOST`, writing nothing, unless `fence` is the connection's current lease
/// token (acquired and not released), checked in the write's own transaction. `wipe` is not
/// fenced: logging out, asking for a new QR code or deleting a connection must work from any
/// process.
#[async_trait]
pub trait SessionStateRepo: Send + Sync {
    /// The row of `key` in `ns`.
    async fn get(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>>;
    /// The rows of `keys` in `ns` that exist, in key order (missing keys are left out).
    async fn get_many(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        keys: &[Vec<u8>],
    ) -> Result<Vec<StateRow>>;
    /// The rows of `ns` whose key starts with `prefix` (all of them for an empty prefix), in
    /// key order.
    async fn list(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        prefix: &[u8],
    ) -> Result<Vec<StateRow>>;
    /// The largest `aux` in `ns`; `None` when it has no row.
    async fn max_aux(&self, connection: WhatsappId, ns: StateNamespace) -> Result<Option<i64>>;
    /// Applies `ops` in order as one transaction: all of them or, on any failure, none. Answers
    /// how many rows they wrote or deleted (a `SetAux` of a missing row counts none).
    /// `ERR_CHANNEL_LEASE_LOST` when `fence` is not the connection's current lease token.
    async fn apply(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ops: &[StateOp],
    ) -> Result<u64>;
    /// Reads and deletes the row of `key` in `ns` atomically: of concurrent takes of one row,
    /// exactly one answers it. `ERR_CHANNEL_LEASE_LOST` when `fence` is not the connection's
    /// current lease token.
    async fn take(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>>;
    /// Deletes every row of the connection, in every namespace (logout, a new QR code); answers
    /// how many. The lease is left as it is.
    async fn wipe(&self, connection: WhatsappId) -> Result<u64>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_codes_are_pinned_and_unique() {
        // Stored in the database: a code never changes and is never reused.
        let pinned: Vec<(&str, i16)> = StateNamespace::ALL
            .iter()
            .map(|ns| (ns.name(), ns.code()))
            .collect();
        assert_eq!(
            pinned,
            [
                ("Device", 1),
                ("Identity", 2),
                ("Session", 3),
                ("Prekey", 4),
                ("SignedPrekey", 5),
                ("SenderKey", 6),
                ("AppStateSyncKey", 7),
                ("AppStateVersion", 8),
                ("MutationMac", 9),
                ("SenderKeyDeviceStatus", 10),
                ("LidToPn", 11),
                ("PnToLid", 12),
                ("BaseKey", 13),
                ("DeviceList", 14),
                ("GroupMetadata", 15),
                ("TcToken", 16),
                ("SentMessage", 17),
                ("PendingInbound", 18),
                ("MessageSecret", 19),
                ("Directory", 20),
            ]
        );
        for &ns in StateNamespace::ALL {
            assert_eq!(StateNamespace::from_code(ns.code()), Some(ns));
            assert_eq!(ns.to_string(), ns.name());
        }
        assert_eq!(StateNamespace::from_code(0), None);
        assert_eq!(StateNamespace::from_code(21), None);
    }

    #[test]
    fn a_prefix_ends_after_its_last_byte_that_can_grow() {
        assert_eq!(prefix_end(b""), None);
        assert_eq!(prefix_end(b"abc"), Some(b"abd".to_vec()));
        assert_eq!(prefix_end(&[0x01, 0xFF]), Some(vec![0x02]));
        assert_eq!(prefix_end(&[0x01, 0xFF, 0xFF]), Some(vec![0x02]));
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
        assert_eq!(prefix_end(&[0x00]), Some(vec![0x01]));
    }

    #[test]
    fn the_prefix_range_holds_exactly_the_keys_with_the_prefix() {
        let keys: Vec<Vec<u8>> = vec![
            vec![],
            vec![0x00],
            vec![0x01],
            vec![0x01, 0x00],
            vec![0x01, 0xFF],
            vec![0x01, 0xFF, 0x07],
            vec![0x02],
            vec![0xFF],
            vec![0xFF, 0xFF, 0x00],
        ];
        let prefixes: Vec<Vec<u8>> = vec![
            vec![],
            vec![0x01],
            vec![0x01, 0xFF],
            vec![0xFF],
            vec![0xFF, 0xFF],
            vec![0x00],
        ];
        for prefix in &prefixes {
            let end = prefix_end(prefix);
            for key in &keys {
                let in_range = key >= prefix && end.as_ref().is_none_or(|end| key < end);
                assert_eq!(
                    in_range,
                    key.starts_with(prefix),
                    "prefix {prefix:?}, key {key:?}"
                );
            }
        }
    }

    #[test]
    fn an_op_names_its_namespace() {
        let ops = [
            StateOp::Put {
                ns: StateNamespace::Session,
                key: b"k".to_vec(),
                value: b"v".to_vec(),
                aux: 0,
            },
            StateOp::SetAux {
                ns: StateNamespace::Prekey,
                key: b"k".to_vec(),
                aux: 1,
            },
            StateOp::Delete {
                ns: StateNamespace::Identity,
                key: b"k".to_vec(),
            },
            StateOp::DeletePrefix {
                ns: StateNamespace::SenderKey,
                prefix: b"g".to_vec(),
            },
            StateOp::DeleteAuxBelow {
                ns: StateNamespace::PendingInbound,
                cutoff: 5,
            },
        ];
        let names: Vec<StateNamespace> = ops.iter().map(StateOp::namespace).collect();
        assert_eq!(
            names,
            [
                StateNamespace::Session,
                StateNamespace::Prekey,
                StateNamespace::Identity,
                StateNamespace::SenderKey,
                StateNamespace::PendingInbound,
            ]
        );
    }
}
