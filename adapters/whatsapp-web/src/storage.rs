//! [`WaBackend`]: the storage traits of `whatsapp-rust` 0.7.0 (`wacore::store::traits`:
//! `SignalStore`, `AppSyncStore`, `ProtocolStore`, `MsgSecretStore`, `DeviceStore`, which
//! together make `Backend`) on the core's byte-level key-state port ([`SessionStateRepo`]), for
//! one connection.
//!
//! # Rows
//!
//! Each library table is one [`StateNamespace`]; a row is `{key, value, aux}`.
//!
//! | library table | namespace | key | value | `aux` |
//! |---|---|---|---|---|
//! | device | `Device` | `b"device"` | sealed JSON of `wacore::store::Device` | 0 |
//! | identities | `Identity` | address | the 32-byte public key | 0 |
//! | sessions | `Session` | address | sealed session record | 0 |
//! | prekeys | `Prekey` | id (u32, 4 bytes big-endian) | sealed record | uploaded: 1, else 0 |
//! | signed prekeys | `SignedPrekey` | id (u32 BE) | sealed record | 0 |
//! | sender keys | `SenderKey` | sender-key address | sealed record | 0 |
//! | app-state sync keys | `AppStateSyncKey` | key id (raw bytes) | sealed JSON of `AppStateSyncKey` | order of setting (1, 2, ...) |
//! | app-state versions | `AppStateVersion` | collection name | JSON of `HashState` | 0 |
//! | mutation MACs | `MutationMac` | `[collection]` + index MAC (raw) | value MAC | 0 |
//! | sender-key device status | `SenderKeyDeviceStatus` | `[group][device]` | `[1]` has key, `[0]` not | 0 |
//! | LID → PN | `LidToPn` | LID user | JSON of `LidPnMappingEntry` | `updated_at` |
//! | PN → LID | `PnToLid` | phone user | LID user (UTF-8) | `updated_at` |
//! | retry base keys | `BaseKey` | `[address][message id]` | base key | 0 |
//! | device lists | `DeviceList` | user | JSON of `DeviceListRecord` | 0 |
//! | group metadata | `GroupMetadata` | group JID | the library's blob | 0 |
//! | tc-tokens | `TcToken` | JID | JSON of `TcTokenEntry` | `token_timestamp` |
//! | sent messages | `SentMessage` | `[chat][message id]` | sealed payload | unix seconds stored |
//! | pending inbound | `PendingInbound` | `[chat][sender][id]` | sealed message | unix seconds stored |
//! | message secrets | `MessageSecret` | `[chat][sender][id]` | sealed `message_ts` (i64 BE) ‖ `expires_at` (i64 BE) ‖ secret | `expires_at`, `i64::MAX` for never (0) |
//! | directory (ours, not the library's: [`crate::directory`]) | `Directory` | phone number (digits), or `<LID user>@lid` while the number is unknown | JSON of [`DirectoryEntry`] `{name, lid?, from, at}` | `at`: when first seen (unix seconds) |
//!
//! **Key encoding.** A key of one text (an address, a JID, a user, a name) is its UTF-8 bytes.
//! A numeric id is its 4 big-endian bytes, so key order is id order. A composite key, written
//! `[a][b]...` above, is each text component as its length (u32, big-endian) followed by its
//! bytes; the last part of the mutation-MAC key is the raw index MAC after the collection.
//! Every encoding is injective and deterministic, and the encoding of a composite's leading
//! components is a byte prefix of the whole key, so "every row of a group" or "every MAC of a
//! collection" is one prefix read or delete.
//!
//! **Sealing.** The store keeps values as given (it does not encrypt). Key material (device,
//! sessions, prekeys, signed prekeys, sender keys, sync keys, sent payloads, pending inbound
//! messages, message secrets) is sealed here with [`SecretCipher::seal_bytes`], bound to its
//! row (the connection, the namespace and the key), so a value copied to another row does not
//! open. Public keys, lookup data and protocol bookkeeping stay clear, and so does the
//! directory: the names and numbers of the people the phone knows are personal data but no key
//! material, like the LID mappings beside them (the database's own protection covers them).
//!
//! # Writes
//!
//! Every write is one [`SessionStateRepo::apply`] (one transaction, all or nothing) fenced with
//! the lease token this backend was built with, or one [`SessionStateRepo::take`]
//! (`take_sent_message`). Every batch method (`*_batch`, `put_lid_mappings`,
//! `update_device_lists`, `put_mutation_macs`, `put_msg_secrets`, ...) is one `apply`, so a
//! failed batch leaves nothing, and rows are upserts, so the library's retry of a failed flush
//! is idempotent. Writes that read first (the tc-token merges, the message-secret merge, the
//! LID reverse index, the sync-key order, the device's creation) and every other write of this
//! backend run under one mutex, which with one lease owner and one backend per client makes
//! them atomic against each other.
//!
//! `tests/crash.rs` checks this on both engines: a row the database refuses in the middle of a
//! batch leaves the table as it was, and a process SIGKILLed while it writes leaves every batch
//! whole or absent.
//!
//! # Semantics followed (those of the library's `InMemoryBackend`, its trait docs)
//!
//! - `mark_prekeys_uploaded` only sets `aux` of existing rows: it never resurrects a consumed
//!   prekey.
//! - `get_pn_mapping` answers the latest LID put for the phone (the reverse index is rewritten
//!   by every put; when a LID moves to another phone, the old phone's index row is dropped if
//!   it still points to that LID).
//! - `get_latest_sync_key_id` is the key id set last (also when an old key is set again).
//! - `delete_expired_sent_messages` and `delete_expired_pending_inbound` delete rows stored
//!   before the cutoff; `delete_expired_msg_secrets` those whose non-zero expiry is at or before
//!   it; `delete_expired_tc_tokens` those whose received token and sender bucket are both stale.
//!   All answer how many rows went.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::directory::{DirectoryEntry, Sighting, merge};
use async_trait::async_trait;
use chatflow_core::WhatsappId;
use chatflow_core::inbox::channel::ChannelChat;
use chatflow_core::inbox::lease::LeaseToken;
use chatflow_core::inbox::session_state::{SessionStateRepo, StateNamespace as Ns, StateOp};
use chatflow_core::ports::SecretCipher;
use tokio::sync::Mutex;
use whatsapp_rust::bytes::Bytes;
use whatsapp_rust::wacore::appstate::hash::HashState;
use whatsapp_rust::wacore::appstate::processor::AppStateMutationMAC;
use whatsapp_rust::wacore::store::Device;
use whatsapp_rust::wacore::store::error::{Result, StoreError};
use whatsapp_rust::wacore::store::traits::{
    AppStateSyncKey, AppSyncStore, DeviceListRecord, DeviceStore, LidPnMappingEntry, MessageSecret,
    MsgSecretEntry, MsgSecretStore, PendingInboundKey, PendingInboundRow, ProtocolStore,
    SignalStore, TcTokenEntry, merge_msg_secret_expiry, merge_msg_secret_message_ts,
};

/// The key of the device's one row.
const DEVICE_KEY: &[u8] = b"device";

/// What the sealing context starts with, so these values open only as this backend's rows.
const SEAL_LABEL: &[u8] = b"chatflow-whatsapp-web/state\0";

/// The `aux` of a message secret that never expires (the library's `expires_at = 0`).
const NEVER: i64 = i64::MAX;

/// The `whatsapp-rust` storage backend of one connection (see the module's documentation).
pub struct WaBackend {
    repo: Arc<dyn SessionStateRepo>,
    cipher: Arc<dyn SecretCipher>,
    connection: WhatsappId,
    fence: LeaseToken,
    /// Serialises this backend's writes (and the reads of its read-modify-writes).
    writes: Mutex<()>,
}

impl std::fmt::Debug for WaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaBackend")
            .field("connection", &self.connection)
            .field("fence", &self.fence)
            .finish_non_exhaustive()
    }
}

// ---------------------------------------------------------------------------------------------
// Keys and values
// ---------------------------------------------------------------------------------------------

/// A key of one text.
fn text_key(text: &str) -> Vec<u8> {
    text.as_bytes().to_vec()
}

/// The key of a numeric id: 4 big-endian bytes.
fn id_key(id: u32) -> Vec<u8> {
    id.to_be_bytes().to_vec()
}

/// The id of an [`id_key`].
fn key_id(key: &[u8]) -> Result<u32> {
    let bytes: [u8; 4] = key
        .try_into()
        .map_err(|_| invalid(format!("an id key of {} bytes", key.len())))?;
    Ok(u32::from_be_bytes(bytes))
}

/// Appends one length-prefixed component of a composite key.
fn push_part(key: &mut Vec<u8>, part: &[u8]) {
    // Components are addresses and ids, far below 4 GiB; saturate rather than panic.
    let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
    key.extend_from_slice(&len.to_be_bytes());
    key.extend_from_slice(part);
}

/// A composite key: each component length-prefixed.
fn parts_key(parts: &[&str]) -> Vec<u8> {
    let mut key = Vec::with_capacity(parts.iter().map(|p| p.len() + 4).sum());
    for part in parts {
        push_part(&mut key, part.as_bytes());
    }
    key
}

/// The components of a [`parts_key`].
fn split_parts(mut key: &[u8]) -> Result<Vec<&[u8]>> {
    let mut parts = Vec::new();
    while !key.is_empty() {
        let (len, rest) = key
            .split_first_chunk::<4>()
            .ok_or_else(|| invalid("a truncated composite key"))?;
        let len = u32::from_be_bytes(*len) as usize;
        if rest.len() < len {
            return Err(invalid("a truncated composite key"));
        }
        let (part, rest) = rest.split_at(len);
        parts.push(part);
        key = rest;
    }
    Ok(parts)
}

/// The key of a mutation MAC: the collection as a component, then the raw index MAC.
fn mac_key(collection: &str, index_mac: &[u8]) -> Vec<u8> {
    let mut key = parts_key(&[collection]);
    key.extend_from_slice(index_mac);
    key
}

fn utf8(bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec()).map_err(|e| StoreError::Serialization(Box::new(e)))
}

fn invalid(what: impl Into<String>) -> StoreError {
    StoreError::Validation(what.into())
}

fn json<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| StoreError::Serialization(Box::new(e)))
}

fn from_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Serialization(Box::new(e)))
}

/// A port error (a database failure, `ERR_CHANNEL_LEASE_LOST`) as the library's.
fn port_error(error: chatflow_core::Error) -> StoreError {
    StoreError::Database(Box::new(error))
}

fn count(rows: u64) -> u32 {
    u32::try_from(rows).unwrap_or(u32::MAX)
}

/// Whether the namespace's values are key material (sealed).
fn sealed(ns: Ns) -> bool {
    matches!(
        ns,
        Ns::Device
            | Ns::Session
            | Ns::Prekey
            | Ns::SignedPrekey
            | Ns::SenderKey
            | Ns::AppStateSyncKey
            | Ns::SentMessage
            | Ns::PendingInbound
            | Ns::MessageSecret
    )
}

/// The value of a message secret: `message_ts`, `expires_at` (both i64 BE), the secret.
fn secret_value(secret: &MessageSecret, expires_at: i64, message_ts: i64) -> Vec<u8> {
    let mut value = Vec::with_capacity(16 + secret.len());
    value.extend_from_slice(&message_ts.to_be_bytes());
    value.extend_from_slice(&expires_at.to_be_bytes());
    value.extend_from_slice(secret);
    value
}

/// The `(secret, expires_at, message_ts)` of a [`secret_value`].
fn parse_secret(value: &[u8]) -> Result<(MessageSecret, i64, i64)> {
    let (ts, rest) = value
        .split_first_chunk::<8>()
        .ok_or_else(|| invalid("a truncated message secret"))?;
    let (expires, secret) = rest
        .split_first_chunk::<8>()
        .ok_or_else(|| invalid("a truncated message secret"))?;
    let secret: MessageSecret = secret
        .try_into()
        .map_err(|_| invalid(format!("a message secret of {} bytes", secret.len())))?;
    Ok((
        secret,
        i64::from_be_bytes(*expires),
        i64::from_be_bytes(*ts),
    ))
}

fn expiry_aux(expires_at: i64) -> i64 {
    if expires_at == 0 { NEVER } else { expires_at }
}

impl WaBackend {
    /// The backend of `connection`, writing with `fence` (the token of the lease this process
    /// holds on it) and sealing key material with `cipher`.
    pub fn new(
        repo: Arc<dyn SessionStateRepo>,
        cipher: Arc<dyn SecretCipher>,
        connection: WhatsappId,
        fence: LeaseToken,
    ) -> Self {
        WaBackend {
            repo,
            cipher,
            connection,
            fence,
            writes: Mutex::new(()),
        }
    }

    /// The connection whose state this backend keeps.
    pub fn connection(&self) -> WhatsappId {
        self.connection
    }

    /// The lease token its writes carry.
    pub fn fence(&self) -> LeaseToken {
        self.fence
    }

    /// What a sealed value of the row `(ns, key)` is bound to.
    fn context(&self, ns: Ns, key: &[u8]) -> Vec<u8> {
        let mut context = Vec::with_capacity(SEAL_LABEL.len() + 10 + key.len());
        context.extend_from_slice(SEAL_LABEL);
        context.extend_from_slice(&self.connection.0.to_be_bytes());
        context.extend_from_slice(&ns.code().to_be_bytes());
        context.extend_from_slice(key);
        context
    }

    /// The stored form of the value of `(ns, key)`.
    fn seal(&self, ns: Ns, key: &[u8], plain: &[u8]) -> Result<Vec<u8>> {
        if !sealed(ns) {
            return Ok(plain.to_vec());
        }
        self.cipher
            .seal_bytes(plain, &self.context(ns, key))
            .map_err(port_error)
    }

    /// The plain value of a stored row of `ns`.
    fn open(&self, ns: Ns, key: &[u8], stored: Vec<u8>) -> Result<Vec<u8>> {
        if !sealed(ns) {
            return Ok(stored);
        }
        self.cipher
            .open_bytes(&stored, &self.context(ns, key))
            .map_err(port_error)
    }

    /// A `Put` of the plain `value`, sealed when its namespace holds key material.
    fn put(&self, ns: Ns, key: Vec<u8>, value: &[u8], aux: i64) -> Result<StateOp> {
        let value = self.seal(ns, &key, value)?;
        Ok(StateOp::Put {
            ns,
            key,
            value,
            aux,
        })
    }

    /// The plain value of `(ns, key)`.
    async fn get(&self, ns: Ns, key: &[u8]) -> Result<Option<Vec<u8>>> {
        match self
            .repo
            .get(self.connection, ns, key)
            .await
            .map_err(port_error)?
        {
            Some(row) => Ok(Some(self.open(ns, key, row.value)?)),
            None => Ok(None),
        }
    }

    /// The `(key, plain value, aux)` of the rows of `ns` under `prefix`, in key order.
    async fn list(&self, ns: Ns, prefix: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u8>, i64)>> {
        let rows = self
            .repo
            .list(self.connection, ns, prefix)
            .await
            .map_err(port_error)?;
        rows.into_iter()
            .map(|row| {
                let value = self.open(ns, &row.key, row.value)?;
                Ok((row.key, value, row.aux))
            })
            .collect()
    }

    /// The keys and `aux` of the rows of `ns` under `prefix`, without opening their values.
    async fn list_keys(&self, ns: Ns, prefix: &[u8]) -> Result<Vec<(Vec<u8>, i64)>> {
        let rows = self
            .repo
            .list(self.connection, ns, prefix)
            .await
            .map_err(port_error)?;
        Ok(rows.into_iter().map(|row| (row.key, row.aux)).collect())
    }

    /// The plain values of the rows of `keys` in `ns` that exist, by key.
    async fn get_many(&self, ns: Ns, keys: &[Vec<u8>]) -> Result<HashMap<Vec<u8>, Vec<u8>>> {
        if keys.is_empty() {
            return Ok(HashMap::new());
        }
        let rows = self
            .repo
            .get_many(self.connection, ns, keys)
            .await
            .map_err(port_error)?;
        rows.into_iter()
            .map(|row| {
                let value = self.open(ns, &row.key, row.value)?;
                Ok((row.key, value))
            })
            .collect()
    }

    /// Applies `ops` as one fenced transaction (nothing for no ops); how many rows changed.
    /// The caller holds [`WaBackend::writes`].
    async fn apply_locked(&self, ops: &[StateOp]) -> Result<u64> {
        if ops.is_empty() {
            return Ok(0);
        }
        self.repo
            .apply(self.connection, self.fence, ops)
            .await
            .map_err(port_error)
    }

    /// Applies `ops` as one fenced transaction under the write mutex.
    async fn apply(&self, ops: &[StateOp]) -> Result<u64> {
        let _writing = self.writes.lock().await;
        self.apply_locked(ops).await
    }

    /// Writes `rows` of `ns`, keyed by their text (`aux` 0), in one `apply`.
    async fn put_text_rows<V: AsRef<[u8]>>(&self, ns: Ns, rows: &[(Arc<str>, V)]) -> Result<()> {
        let ops = rows
            .iter()
            .map(|(key, value)| self.put(ns, text_key(key), value.as_ref(), 0))
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    fn delete(ns: Ns, key: Vec<u8>) -> StateOp {
        StateOp::Delete { ns, key }
    }

    /// Whether a row of `ns` has the key `user@...` or `user:...`.
    async fn has_user_rows(&self, ns: Ns, user: &str) -> Result<bool> {
        for separator in ['@', ':'] {
            let prefix = format!("{user}{separator}");
            if !self.list_keys(ns, prefix.as_bytes()).await?.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

// ---------------------------------------------------------------------------------------------
// The directory (ours: the people the phone knows, see `crate::directory`)
// ---------------------------------------------------------------------------------------------

/// The key of a person kept under their LID while their number is unknown.
fn lid_key(lid: &str) -> String {
    format!("{lid}@lid")
}

fn is_lid_key(key: &str) -> bool {
    key.ends_with("@lid")
}

impl WaBackend {
    /// Writes what `sightings` tell (in order) into the directory, in one `apply`; answers how
    /// many rows changed. A person told by LID only is keyed by their number when the batch or
    /// the stored LID mappings know it; one kept under their LID until now moves to their
    /// number. Reads and writes under the write mutex, so batches do not interleave.
    pub async fn put_directory(&self, sightings: &[Sighting]) -> Result<u64> {
        if sightings.is_empty() {
            return Ok(0);
        }
        let _writing = self.writes.lock().await;
        // The numbers of LIDs: those the batch tells, then the stored mappings.
        let mut numbers: HashMap<String, String> = HashMap::new();
        for sighting in sightings {
            if let Some(lid) = &sighting.lid
                && !is_lid_key(&sighting.chat)
            {
                numbers.insert(lid.clone(), sighting.chat.clone());
            }
        }
        let mut unknown: Vec<Vec<u8>> = sightings
            .iter()
            .filter(|s| is_lid_key(&s.chat))
            .filter_map(|s| s.lid.as_deref())
            .filter(|lid| !numbers.contains_key(*lid))
            .map(text_key)
            .collect();
        unknown.sort();
        unknown.dedup();
        for (_, value) in self.get_many(Ns::LidToPn, &unknown).await? {
            let mapping: LidPnMappingEntry = from_json(&value)?;
            numbers.insert(mapping.lid, mapping.phone_number);
        }
        let resolved: Vec<Sighting> = sightings
            .iter()
            .map(|sighting| {
                let mut sighting = sighting.clone();
                if is_lid_key(&sighting.chat)
                    && let Some(number) = sighting.lid.as_ref().and_then(|lid| numbers.get(lid))
                {
                    sighting.chat.clone_from(number);
                }
                sighting
            })
            .collect();
        // The stored entries of these people, and of their LIDs.
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for sighting in &resolved {
            keys.push(text_key(&sighting.chat));
            if let Some(lid) = &sighting.lid {
                keys.push(text_key(&lid_key(lid)));
            }
        }
        keys.sort();
        keys.dedup();
        let mut current: HashMap<String, DirectoryEntry> = HashMap::new();
        for (key, value) in self.get_many(Ns::Directory, &keys).await? {
            current.insert(utf8(&key)?, from_json(&value)?);
        }
        let mut changed: BTreeMap<String, bool> = BTreeMap::new();
        for sighting in &resolved {
            if !is_lid_key(&sighting.chat)
                && let Some(lid) = &sighting.lid
                && let Some(kept) = current.remove(&lid_key(lid))
            {
                // Kept under the LID until the number was known: moves to the number.
                changed.insert(lid_key(lid), false);
                let moved = Sighting {
                    chat: sighting.chat.clone(),
                    lid: kept.lid.clone(),
                    name: kept.name.clone(),
                    source: kept.from,
                    at: kept.at,
                    adds: true,
                };
                if let Some(next) = merge(current.get(&sighting.chat), &moved) {
                    current.insert(sighting.chat.clone(), next);
                    changed.insert(sighting.chat.clone(), true);
                }
            }
            if let Some(next) = merge(current.get(&sighting.chat), sighting) {
                current.insert(sighting.chat.clone(), next);
                changed.insert(sighting.chat.clone(), true);
            }
        }
        let mut ops = Vec::with_capacity(changed.len());
        for (key, kept) in changed {
            match current.get(&key) {
                Some(entry) if kept => {
                    ops.push(self.put(Ns::Directory, text_key(&key), &json(entry)?, entry.at)?);
                }
                _ => ops.push(Self::delete(Ns::Directory, text_key(&key))),
            }
        }
        self.apply_locked(&ops).await
    }
}

/// The directory of `connection` as the contacts import lists it (no lease needed: a read):
/// the people with a phone number, oldest first (by when first seen, then by number). A person
/// kept under their LID is listed by the number the stored mappings now know, and left out
/// while it is unknown. A connection that never synced has none.
pub async fn directory_chats(
    repo: &dyn SessionStateRepo,
    connection: WhatsappId,
) -> chatflow_core::Result<Vec<ChannelChat>> {
    let rows = repo.list(connection, Ns::Directory, b"").await?;
    let mut people: HashMap<String, DirectoryEntry> = HashMap::new();
    let mut by_lid: Vec<(String, DirectoryEntry)> = Vec::new();
    for row in rows {
        let (Ok(key), Ok(entry)) = (
            String::from_utf8(row.key),
            serde_json::from_slice::<DirectoryEntry>(&row.value),
        ) else {
            tracing::warn!(
                connection = connection.0,
                "a row of the directory does not read; left out"
            );
            continue;
        };
        match key.strip_suffix("@lid") {
            Some(lid) => by_lid.push((lid.to_owned(), entry)),
            None => {
                people.insert(key, entry);
            }
        }
    }
    if !by_lid.is_empty() {
        let lids: Vec<Vec<u8>> = by_lid.iter().map(|(lid, _)| text_key(lid)).collect();
        let mut numbers: HashMap<String, String> = HashMap::new();
        for row in repo.get_many(connection, Ns::LidToPn, &lids).await? {
            if let Ok(mapping) = serde_json::from_slice::<LidPnMappingEntry>(&row.value) {
                numbers.insert(mapping.lid, mapping.phone_number);
            }
        }
        for (lid, entry) in by_lid {
            let Some(number) = numbers.get(&lid) else {
                continue;
            };
            let moved = Sighting {
                chat: number.clone(),
                lid: Some(lid),
                name: entry.name,
                source: entry.from,
                at: entry.at,
                adds: true,
            };
            if let Some(next) = merge(people.get(number), &moved) {
                people.insert(number.clone(), next);
            }
        }
    }
    let mut listed: Vec<(String, DirectoryEntry)> = people.into_iter().collect();
    listed.sort_by(|(a, x), (b, y)| x.at.cmp(&y.at).then_with(|| a.cmp(b)));
    Ok(listed
        .into_iter()
        .map(|(number, entry)| ChannelChat {
            number,
            name: entry.name,
        })
        .collect())
}

// ---------------------------------------------------------------------------------------------
// SignalStore
// ---------------------------------------------------------------------------------------------

#[async_trait]
impl SignalStore for WaBackend {
    async fn put_identity(&self, address: &str, key: [u8; 32]) -> Result<()> {
        self.put_identities_batch(&[(Arc::from(address), key)])
            .await
    }

    async fn put_identities_batch(&self, identities: &[(Arc<str>, [u8; 32])]) -> Result<()> {
        self.put_text_rows(Ns::Identity, identities).await
    }

    async fn load_identity(&self, address: &str) -> Result<Option<[u8; 32]>> {
        match self.get(Ns::Identity, &text_key(address)).await? {
            Some(key) => {
                let key: [u8; 32] = key
                    .as_slice()
                    .try_into()
                    .map_err(|_| invalid(format!("an identity key of {} bytes", key.len())))?;
                Ok(Some(key))
            }
            None => Ok(None),
        }
    }

    async fn delete_identity(&self, address: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::Identity, text_key(address))])
            .await
            .map(drop)
    }

    async fn get_session(&self, address: &str) -> Result<Option<Bytes>> {
        Ok(self
            .get(Ns::Session, &text_key(address))
            .await?
            .map(Bytes::from))
    }

    async fn put_session(&self, address: &str, session: &[u8]) -> Result<()> {
        let op = self.put(Ns::Session, text_key(address), session, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn put_sessions_batch(&self, sessions: &[(Arc<str>, Bytes)]) -> Result<()> {
        self.put_text_rows(Ns::Session, sessions).await
    }

    async fn delete_session(&self, address: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::Session, text_key(address))])
            .await
            .map(drop)
    }

    async fn has_session(&self, address: &str) -> Result<bool> {
        Ok(self
            .repo
            .get(self.connection, Ns::Session, &text_key(address))
            .await
            .map_err(port_error)?
            .is_some())
    }

    async fn has_signal_state_for_user(&self, user: &str) -> Result<bool> {
        Ok(self.has_user_rows(Ns::Session, user).await?
            || self.has_user_rows(Ns::Identity, user).await?)
    }

    async fn store_prekey(&self, id: u32, record: &[u8], uploaded: bool) -> Result<()> {
        let op = self.put(Ns::Prekey, id_key(id), record, i64::from(uploaded))?;
        self.apply(&[op]).await.map(drop)
    }

    async fn store_prekeys_batch(&self, keys: &[(u32, Bytes)], uploaded: bool) -> Result<()> {
        let ops = keys
            .iter()
            .map(|(id, record)| self.put(Ns::Prekey, id_key(*id), record, i64::from(uploaded)))
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    async fn load_prekey(&self, id: u32) -> Result<Option<Bytes>> {
        Ok(self.get(Ns::Prekey, &id_key(id)).await?.map(Bytes::from))
    }

    async fn load_prekeys_batch(&self, ids: &[u32]) -> Result<Vec<(u32, Bytes)>> {
        let keys: Vec<Vec<u8>> = ids.iter().map(|id| id_key(*id)).collect();
        let mut found = self.get_many(Ns::Prekey, &keys).await?;
        // In the order asked, as the library's loop would answer.
        Ok(ids
            .iter()
            .filter_map(|id| {
                found
                    .remove(id_key(*id).as_slice())
                    .map(|record| (*id, Bytes::from(record)))
            })
            .collect())
    }

    async fn mark_prekeys_uploaded(&self, ids: &[u32]) -> Result<()> {
        let ops: Vec<StateOp> = ids
            .iter()
            .map(|id| StateOp::SetAux {
                ns: Ns::Prekey,
                key: id_key(*id),
                aux: 1,
            })
            .collect();
        self.apply(&ops).await.map(drop)
    }

    async fn remove_prekey(&self, id: u32) -> Result<()> {
        self.apply(&[Self::delete(Ns::Prekey, id_key(id))])
            .await
            .map(drop)
    }

    async fn get_max_prekey_id(&self) -> Result<u32> {
        // Keys are big-endian ids, so the last in key order is the largest.
        match self.list_keys(Ns::Prekey, b"").await?.last() {
            Some((key, _)) => key_id(key),
            None => Ok(0),
        }
    }

    async fn store_signed_prekey(&self, id: u32, record: &[u8]) -> Result<()> {
        let op = self.put(Ns::SignedPrekey, id_key(id), record, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn load_signed_prekey(&self, id: u32) -> Result<Option<Vec<u8>>> {
        self.get(Ns::SignedPrekey, &id_key(id)).await
    }

    async fn load_all_signed_prekeys(&self) -> Result<Vec<(u32, Vec<u8>)>> {
        self.list(Ns::SignedPrekey, b"")
            .await?
            .into_iter()
            .map(|(key, record, _)| Ok((key_id(&key)?, record)))
            .collect()
    }

    async fn remove_signed_prekey(&self, id: u32) -> Result<()> {
        self.apply(&[Self::delete(Ns::SignedPrekey, id_key(id))])
            .await
            .map(drop)
    }

    async fn put_sender_key(&self, address: &str, record: &[u8]) -> Result<()> {
        let op = self.put(Ns::SenderKey, text_key(address), record, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn put_sender_keys_batch(&self, sender_keys: &[(Arc<str>, Bytes)]) -> Result<()> {
        self.put_text_rows(Ns::SenderKey, sender_keys).await
    }

    async fn get_sender_key(&self, address: &str) -> Result<Option<Vec<u8>>> {
        self.get(Ns::SenderKey, &text_key(address)).await
    }

    async fn delete_sender_key(&self, address: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::SenderKey, text_key(address))])
            .await
            .map(drop)
    }
}

// ---------------------------------------------------------------------------------------------
// AppSyncStore
// ---------------------------------------------------------------------------------------------

#[async_trait]
impl AppSyncStore for WaBackend {
    async fn get_sync_key(&self, key_id: &[u8]) -> Result<Option<AppStateSyncKey>> {
        self.get(Ns::AppStateSyncKey, key_id)
            .await?
            .map(|value| from_json(&value))
            .transpose()
    }

    async fn set_sync_key(&self, key_id: &[u8], key: AppStateSyncKey) -> Result<()> {
        let value = json(&key)?;
        let _writing = self.writes.lock().await;
        let latest = self
            .repo
            .max_aux(self.connection, Ns::AppStateSyncKey)
            .await
            .map_err(port_error)?;
        let order = latest.unwrap_or(0).saturating_add(1);
        let op = self.put(Ns::AppStateSyncKey, key_id.to_vec(), &value, order)?;
        self.apply_locked(&[op]).await.map(drop)
    }

    async fn get_version(&self, name: &str) -> Result<HashState> {
        match self.get(Ns::AppStateVersion, &text_key(name)).await? {
            Some(value) => from_json(&value),
            None => Ok(HashState::default()),
        }
    }

    async fn set_version(&self, name: &str, state: HashState) -> Result<()> {
        let op = self.put(Ns::AppStateVersion, text_key(name), &json(&state)?, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn put_mutation_macs(
        &self,
        name: &str,
        _version: u64,
        mutations: &[AppStateMutationMAC],
    ) -> Result<()> {
        let ops = mutations
            .iter()
            .map(|m| {
                self.put(
                    Ns::MutationMac,
                    mac_key(name, &m.index_mac),
                    &m.value_mac,
                    0,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    async fn get_mutation_mac(&self, name: &str, index_mac: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get(Ns::MutationMac, &mac_key(name, index_mac)).await
    }

    async fn get_mutation_macs(
        &self,
        name: &str,
        index_macs: &[[u8; 32]],
    ) -> Result<HashMap<[u8; 32], Vec<u8>>> {
        let keys: Vec<Vec<u8>> = index_macs.iter().map(|m| mac_key(name, m)).collect();
        let mut found = self.get_many(Ns::MutationMac, &keys).await?;
        Ok(index_macs
            .iter()
            .zip(&keys)
            .filter_map(|(index_mac, key)| found.remove(key).map(|mac| (*index_mac, mac)))
            .collect())
    }

    async fn delete_mutation_macs(&self, name: &str, index_macs: &[Vec<u8>]) -> Result<()> {
        let ops: Vec<StateOp> = index_macs
            .iter()
            .map(|m| Self::delete(Ns::MutationMac, mac_key(name, m)))
            .collect();
        self.apply(&ops).await.map(drop)
    }

    async fn clear_mutation_macs(&self, name: &str) -> Result<()> {
        self.apply(&[StateOp::DeletePrefix {
            ns: Ns::MutationMac,
            prefix: parts_key(&[name]),
        }])
        .await
        .map(drop)
    }

    async fn get_latest_sync_key_id(&self) -> Result<Option<Vec<u8>>> {
        Ok(self
            .list_keys(Ns::AppStateSyncKey, b"")
            .await?
            .into_iter()
            .max_by_key(|(_, order)| *order)
            .map(|(key, _)| key))
    }
}

// ---------------------------------------------------------------------------------------------
// ProtocolStore
// ---------------------------------------------------------------------------------------------

#[async_trait]
impl ProtocolStore for WaBackend {
    async fn get_sender_key_devices(&self, group_jid: &str) -> Result<Vec<(String, bool)>> {
        self.list(Ns::SenderKeyDeviceStatus, &parts_key(&[group_jid]))
            .await?
            .into_iter()
            .map(|(key, value, _)| {
                let parts = split_parts(&key)?;
                let device = parts
                    .get(1)
                    .ok_or_else(|| invalid("a sender-key device key without its device"))?;
                Ok((utf8(device)?, value.first() == Some(&1)))
            })
            .collect()
    }

    async fn set_sender_key_status(&self, group_jid: &str, entries: &[(&str, bool)]) -> Result<()> {
        let ops = entries
            .iter()
            .map(|(device, has_key)| {
                self.put(
                    Ns::SenderKeyDeviceStatus,
                    parts_key(&[group_jid, device]),
                    &[u8::from(*has_key)],
                    0,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    async fn clear_sender_key_devices(&self, group_jid: &str) -> Result<()> {
        self.apply(&[StateOp::DeletePrefix {
            ns: Ns::SenderKeyDeviceStatus,
            prefix: parts_key(&[group_jid]),
        }])
        .await
        .map(drop)
    }

    async fn delete_sender_key_device_rows(&self, device_jids: &[&str]) -> Result<()> {
        if device_jids.is_empty() {
            return Ok(());
        }
        let _writing = self.writes.lock().await;
        let mut ops = Vec::new();
        for (key, _) in self.list_keys(Ns::SenderKeyDeviceStatus, b"").await? {
            let parts = split_parts(&key)?;
            if parts
                .get(1)
                .is_some_and(|device| device_jids.iter().any(|d| d.as_bytes() == *device))
            {
                ops.push(Self::delete(Ns::SenderKeyDeviceStatus, key));
            }
        }
        self.apply_locked(&ops).await.map(drop)
    }

    async fn clear_all_sender_key_devices(&self) -> Result<()> {
        self.apply(&[StateOp::DeletePrefix {
            ns: Ns::SenderKeyDeviceStatus,
            prefix: Vec::new(),
        }])
        .await
        .map(drop)
    }

    async fn get_lid_mapping(&self, lid: &str) -> Result<Option<LidPnMappingEntry>> {
        self.get(Ns::LidToPn, &text_key(lid))
            .await?
            .map(|value| from_json(&value))
            .transpose()
    }

    async fn get_pn_mapping(&self, phone: &str) -> Result<Option<LidPnMappingEntry>> {
        let Some(lid) = self.get(Ns::PnToLid, &text_key(phone)).await? else {
            return Ok(None);
        };
        let entry = self.get_lid_mapping(&utf8(&lid)?).await?;
        // The index row outlives its mapping only if a write was lost; never answer another
        // phone's mapping.
        Ok(entry.filter(|entry| entry.phone_number == phone))
    }

    async fn put_lid_mapping(&self, entry: &LidPnMappingEntry) -> Result<()> {
        self.put_lid_mappings(std::slice::from_ref(entry)).await
    }

    async fn put_lid_mappings(&self, entries: &[LidPnMappingEntry]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let _writing = self.writes.lock().await;
        // The stored phone of every LID of the batch, and the stored LID of those phones, to
        // drop a reverse-index row that a LID leaves behind when it moves to another phone.
        let lids: Vec<Vec<u8>> = entries.iter().map(|e| text_key(&e.lid)).collect();
        let mut phone_of: HashMap<String, String> = HashMap::new();
        for (key, value) in self.get_many(Ns::LidToPn, &lids).await? {
            let stored: LidPnMappingEntry = from_json(&value)?;
            phone_of.insert(utf8(&key)?, stored.phone_number);
        }
        let phones: Vec<Vec<u8>> = phone_of.values().map(|p| text_key(p)).collect();
        let mut lid_of: HashMap<String, String> = HashMap::new();
        for (key, value) in self.get_many(Ns::PnToLid, &phones).await? {
            lid_of.insert(utf8(&key)?, utf8(&value)?);
        }
        // The batch in order, as the single puts one after the other would leave it.
        let mut ops = Vec::with_capacity(entries.len() * 3);
        for entry in entries {
            if let Some(old_phone) = phone_of.get(&entry.lid)
                && *old_phone != entry.phone_number
                && lid_of.get(old_phone) == Some(&entry.lid)
            {
                ops.push(Self::delete(Ns::PnToLid, text_key(old_phone)));
                lid_of.remove(old_phone);
            }
            ops.push(self.put(
                Ns::LidToPn,
                text_key(&entry.lid),
                &json(entry)?,
                entry.updated_at,
            )?);
            ops.push(self.put(
                Ns::PnToLid,
                text_key(&entry.phone_number),
                entry.lid.as_bytes(),
                entry.updated_at,
            )?);
            phone_of.insert(entry.lid.clone(), entry.phone_number.clone());
            lid_of.insert(entry.phone_number.clone(), entry.lid.clone());
        }
        self.apply_locked(&ops).await.map(drop)
    }

    async fn get_all_lid_mappings(&self) -> Result<Vec<LidPnMappingEntry>> {
        self.list(Ns::LidToPn, b"")
            .await?
            .into_iter()
            .map(|(_, value, _)| from_json(&value))
            .collect()
    }

    async fn save_base_key(&self, address: &str, message_id: &str, base_key: &[u8]) -> Result<()> {
        let op = self.put(Ns::BaseKey, parts_key(&[address, message_id]), base_key, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn has_same_base_key(
        &self,
        address: &str,
        message_id: &str,
        current_base_key: &[u8],
    ) -> Result<bool> {
        Ok(self
            .get(Ns::BaseKey, &parts_key(&[address, message_id]))
            .await?
            .is_some_and(|stored| stored == current_base_key))
    }

    async fn delete_base_key(&self, address: &str, message_id: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::BaseKey, parts_key(&[address, message_id]))])
            .await
            .map(drop)
    }

    async fn update_device_list(&self, record: DeviceListRecord) -> Result<()> {
        self.update_device_lists(vec![record]).await
    }

    async fn update_device_lists(&self, records: Vec<DeviceListRecord>) -> Result<()> {
        let ops = records
            .iter()
            .map(|record| self.put(Ns::DeviceList, text_key(&record.user), &json(record)?, 0))
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    async fn get_devices(&self, user: &str) -> Result<Option<DeviceListRecord>> {
        self.get(Ns::DeviceList, &text_key(user))
            .await?
            .map(|value| from_json(&value))
            .transpose()
    }

    async fn delete_devices(&self, user: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::DeviceList, text_key(user))])
            .await
            .map(drop)
    }

    async fn get_group_metadata(&self, group_jid: &str) -> Result<Option<Vec<u8>>> {
        self.get(Ns::GroupMetadata, &text_key(group_jid)).await
    }

    async fn put_group_metadata(&self, group_jid: &str, blob: &[u8]) -> Result<()> {
        let op = self.put(Ns::GroupMetadata, text_key(group_jid), blob, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn delete_group_metadata(&self, group_jid: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::GroupMetadata, text_key(group_jid))])
            .await
            .map(drop)
    }

    async fn get_tc_token(&self, jid: &str) -> Result<Option<TcTokenEntry>> {
        self.get(Ns::TcToken, &text_key(jid))
            .await?
            .map(|value| from_json(&value))
            .transpose()
    }

    async fn put_tc_token(&self, jid: &str, entry: &TcTokenEntry) -> Result<()> {
        let op = self.put(
            Ns::TcToken,
            text_key(jid),
            &json(entry)?,
            entry.token_timestamp,
        )?;
        self.apply(&[op]).await.map(drop)
    }

    async fn delete_tc_token(&self, jid: &str) -> Result<()> {
        self.apply(&[Self::delete(Ns::TcToken, text_key(jid))])
            .await
            .map(drop)
    }

    async fn get_all_tc_token_jids(&self) -> Result<Vec<String>> {
        self.list_keys(Ns::TcToken, b"")
            .await?
            .into_iter()
            .map(|(key, _)| utf8(&key))
            .collect()
    }

    async fn delete_expired_tc_tokens(&self, token_cutoff: i64, sender_cutoff: i64) -> Result<u32> {
        let _writing = self.writes.lock().await;
        let mut ops = Vec::new();
        for (key, value, _) in self.list(Ns::TcToken, b"").await? {
            let entry: TcTokenEntry = from_json(&value)?;
            let token_live = !entry.token.is_empty() && entry.token_timestamp >= token_cutoff;
            let sender_live = entry.sender_timestamp.is_some_and(|ts| ts >= sender_cutoff);
            if !token_live && !sender_live {
                ops.push(Self::delete(Ns::TcToken, key));
            }
        }
        self.apply_locked(&ops).await.map(count)
    }

    async fn touch_tc_token_sender_timestamp(
        &self,
        jid: &str,
        sender_timestamp: i64,
    ) -> Result<()> {
        let _writing = self.writes.lock().await;
        let entry = match self.get_tc_token(jid).await? {
            Some(existing) => TcTokenEntry {
                sender_timestamp: Some(
                    existing
                        .sender_timestamp
                        .map_or(sender_timestamp, |e| e.max(sender_timestamp)),
                ),
                ..existing
            },
            None => TcTokenEntry {
                token: Vec::new(),
                token_timestamp: sender_timestamp,
                sender_timestamp: Some(sender_timestamp),
            },
        };
        let op = self.put(
            Ns::TcToken,
            text_key(jid),
            &json(&entry)?,
            entry.token_timestamp,
        )?;
        self.apply_locked(&[op]).await.map(drop)
    }

    async fn store_received_tc_token(
        &self,
        jid: &str,
        token: &[u8],
        token_timestamp: i64,
    ) -> Result<()> {
        let _writing = self.writes.lock().await;
        let existing = self.get_tc_token(jid).await?;
        // Newer wins; a byte-less placeholder never blocks the first real token.
        if let Some(existing) = &existing
            && !existing.token.is_empty()
            && token_timestamp < existing.token_timestamp
        {
            return Ok(());
        }
        let entry = TcTokenEntry {
            token: token.to_vec(),
            token_timestamp,
            sender_timestamp: existing.and_then(|e| e.sender_timestamp),
        };
        let op = self.put(Ns::TcToken, text_key(jid), &json(&entry)?, token_timestamp)?;
        self.apply_locked(&[op]).await.map(drop)
    }

    async fn store_sent_message(
        &self,
        chat_jid: &str,
        message_id: &str,
        payload: &[u8],
    ) -> Result<()> {
        let now = whatsapp_rust::wacore::time::now_secs();
        let op = self.put(
            Ns::SentMessage,
            parts_key(&[chat_jid, message_id]),
            payload,
            now,
        )?;
        self.apply(&[op]).await.map(drop)
    }

    async fn take_sent_message(&self, chat_jid: &str, message_id: &str) -> Result<Option<Vec<u8>>> {
        let key = parts_key(&[chat_jid, message_id]);
        match self
            .repo
            .take(self.connection, self.fence, Ns::SentMessage, &key)
            .await
            .map_err(port_error)?
        {
            Some(row) => Ok(Some(self.open(Ns::SentMessage, &key, row.value)?)),
            None => Ok(None),
        }
    }

    async fn delete_expired_sent_messages(&self, cutoff_timestamp: i64) -> Result<u32> {
        self.apply(&[StateOp::DeleteAuxBelow {
            ns: Ns::SentMessage,
            cutoff: cutoff_timestamp,
        }])
        .await
        .map(count)
    }

    async fn store_pending_inbound(
        &self,
        chat: &str,
        sender: &str,
        id: &str,
        message: &[u8],
    ) -> Result<()> {
        self.store_pending_inbound_batch(&[PendingInboundRow {
            chat,
            sender,
            id,
            message,
        }])
        .await
    }

    async fn get_pending_inbound(
        &self,
        chat: &str,
        sender: &str,
        id: &str,
    ) -> Result<Option<Vec<u8>>> {
        self.get(Ns::PendingInbound, &parts_key(&[chat, sender, id]))
            .await
    }

    async fn delete_pending_inbound(&self, chat: &str, sender: &str, id: &str) -> Result<()> {
        self.delete_pending_inbound_batch(&[PendingInboundKey { chat, sender, id }])
            .await
    }

    async fn delete_expired_pending_inbound(&self, cutoff_timestamp: i64) -> Result<u32> {
        self.apply(&[StateOp::DeleteAuxBelow {
            ns: Ns::PendingInbound,
            cutoff: cutoff_timestamp,
        }])
        .await
        .map(count)
    }

    async fn store_pending_inbound_batch(&self, rows: &[PendingInboundRow<'_>]) -> Result<()> {
        let now = whatsapp_rust::wacore::time::now_secs();
        let ops = rows
            .iter()
            .map(|row| {
                self.put(
                    Ns::PendingInbound,
                    parts_key(&[row.chat, row.sender, row.id]),
                    row.message,
                    now,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        self.apply(&ops).await.map(drop)
    }

    async fn delete_pending_inbound_batch(&self, keys: &[PendingInboundKey<'_>]) -> Result<()> {
        let ops: Vec<StateOp> = keys
            .iter()
            .map(|k| Self::delete(Ns::PendingInbound, parts_key(&[k.chat, k.sender, k.id])))
            .collect();
        self.apply(&ops).await.map(drop)
    }
}

// ---------------------------------------------------------------------------------------------
// MsgSecretStore
// ---------------------------------------------------------------------------------------------

#[async_trait]
impl MsgSecretStore for WaBackend {
    async fn put_msg_secret(
        &self,
        chat: &str,
        sender: &str,
        msg_id: &str,
        secret: &MessageSecret,
    ) -> Result<()> {
        self.put_msg_secrets(vec![MsgSecretEntry {
            chat: Arc::from(chat),
            sender: Arc::from(sender),
            msg_id: Arc::from(msg_id),
            secret: *secret,
            expires_at: 0,
            message_ts: 0,
        }])
        .await
        .map(drop)
    }

    async fn put_msg_secrets(&self, entries: Vec<MsgSecretEntry>) -> Result<usize> {
        let stored = entries.len();
        if entries.is_empty() {
            return Ok(0);
        }
        let _writing = self.writes.lock().await;
        let keys: Vec<Vec<u8>> = entries
            .iter()
            .map(|e| parts_key(&[&e.chat, &e.sender, &e.msg_id]))
            .collect();
        // The rows as they will be: the stored ones merged with the batch, in entry order.
        let mut rows: BTreeMap<Vec<u8>, (MessageSecret, i64, i64)> = BTreeMap::new();
        for (key, value) in self.get_many(Ns::MessageSecret, &keys).await? {
            rows.insert(key, parse_secret(&value)?);
        }
        for (entry, key) in entries.iter().zip(keys) {
            rows.entry(key)
                .and_modify(|(secret, expires_at, message_ts)| {
                    *secret = entry.secret;
                    *expires_at = merge_msg_secret_expiry(*expires_at, entry.expires_at);
                    *message_ts = merge_msg_secret_message_ts(*message_ts, entry.message_ts);
                })
                .or_insert((entry.secret, entry.expires_at, entry.message_ts));
        }
        let ops = rows
            .into_iter()
            .map(|(key, (secret, expires_at, message_ts))| {
                self.put(
                    Ns::MessageSecret,
                    key,
                    &secret_value(&secret, expires_at, message_ts),
                    expiry_aux(expires_at),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        self.apply_locked(&ops).await?;
        Ok(stored)
    }

    async fn get_msg_secret(
        &self,
        chat: &str,
        sender: &str,
        msg_id: &str,
    ) -> Result<Option<Vec<u8>>> {
        Ok(self
            .get_msg_secret_with_ts(chat, sender, msg_id)
            .await?
            .map(|(secret, _)| secret))
    }

    async fn get_msg_secret_with_ts(
        &self,
        chat: &str,
        sender: &str,
        msg_id: &str,
    ) -> Result<Option<(Vec<u8>, i64)>> {
        match self
            .get(Ns::MessageSecret, &parts_key(&[chat, sender, msg_id]))
            .await?
        {
            Some(value) => {
                let (secret, _, message_ts) = parse_secret(&value)?;
                Ok(Some((secret.to_vec(), message_ts)))
            }
            None => Ok(None),
        }
    }

    async fn delete_expired_msg_secrets(&self, cutoff_timestamp: i64) -> Result<u32> {
        // Rows expiring at or before the cutoff; "never" is `i64::MAX`, above every cutoff.
        self.apply(&[StateOp::DeleteAuxBelow {
            ns: Ns::MessageSecret,
            cutoff: cutoff_timestamp.saturating_add(1),
        }])
        .await
        .map(count)
    }
}

// ---------------------------------------------------------------------------------------------
// DeviceStore
// ---------------------------------------------------------------------------------------------

#[async_trait]
impl DeviceStore for WaBackend {
    async fn save(&self, device: &Device) -> Result<()> {
        let op = self.put(Ns::Device, DEVICE_KEY.to_vec(), &json(device)?, 0)?;
        self.apply(&[op]).await.map(drop)
    }

    async fn load(&self) -> Result<Option<Device>> {
        self.get(Ns::Device, DEVICE_KEY)
            .await?
            .map(|value| from_json(&value))
            .transpose()
    }

    async fn exists(&self) -> Result<bool> {
        Ok(self
            .repo
            .get(self.connection, Ns::Device, DEVICE_KEY)
            .await
            .map_err(port_error)?
            .is_some())
    }

    async fn create(&self) -> Result<i32> {
        let _writing = self.writes.lock().await;
        let exists = self
            .repo
            .get(self.connection, Ns::Device, DEVICE_KEY)
            .await
            .map_err(port_error)?
            .is_some();
        if !exists {
            let op = self.put(Ns::Device, DEVICE_KEY.to_vec(), &json(&Device::new())?, 0)?;
            self.apply_locked(&[op]).await?;
        }
        // The library only logs this id; the connection is the device.
        Ok(i32::try_from(self.connection.0).unwrap_or(i32::MAX))
    }

    async fn resource_report(&self) -> whatsapp_rust::wacore::stats::StorageResourceReport {
        // The rows live in the database, not in this process.
        whatsapp_rust::wacore::stats::StorageResourceReport {
            memory_bytes: Some(0),
            ..Default::default()
        }
    }
}
