//! Storage conformance: one suite of the library's storage contract, run against the library's
//! own `InMemoryBackend` (the oracle: the suite's hand-written expectations must hold there
//! too) and against [`WaBackend`] over the real store on SQLite and PostgreSQL (skipped without
//! `CHATFLOW_TEST_POSTGRES_URL`). Then what only `WaBackend` promises: every batch is one fenced
//! `apply`, a write with a stale lease token leaves nothing, prekey flags never resurrect a
//! row, a sent message is taken exactly once under concurrency, and key material is sealed and
//! bound to its row. And the directory of the people the phone knows: names kept by weight, LIDs
//! resolved to numbers through the stored mappings, oldest first, a full sync in one `apply`,
//! gone with the rest on a wipe.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use chatflow_core::inbox::lease::{ChannelLeaseRepo, LeaseToken};
use chatflow_core::inbox::session_state::{
    SessionStateRepo, StateNamespace as Ns, StateOp, StateRow,
};
use chatflow_core::ports::{CompanyRepo, NewCompany, NewPlan, PlanRepo, SecretCipher};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{TenantScope, WhatsappId};
use chatflow_store::{Stamps, Store, testing};
use chatflow_system::SealedSecrets;
use chatflow_whatsapp_web::WaBackend;
use chatflow_whatsapp_web::directory::{NameSource, Sighting};
use chatflow_whatsapp_web::storage::directory_chats;
use chatflow_whatsapp_web::whatsapp_rust::bytes::Bytes;
use chatflow_whatsapp_web::whatsapp_rust::wacore::appstate::hash::HashState;
use chatflow_whatsapp_web::whatsapp_rust::wacore::appstate::processor::AppStateMutationMAC;
use chatflow_whatsapp_web::whatsapp_rust::wacore::store::InMemoryBackend;
use chatflow_whatsapp_web::whatsapp_rust::wacore::store::traits::{
    AppStateSyncKey, AppSyncStore, Backend, DeviceInfo, DeviceListRecord, DeviceStore,
    LidPnMappingEntry, MsgSecretEntry, MsgSecretStore, PendingInboundKey, PendingInboundRow,
    ProtocolStore, SignalStore, TcTokenEntry,
};
use chrono::{TimeDelta, Utc};

// =============================================================================================
// The shared suite
// =============================================================================================

/// Every case of the contract, on one fresh backend.
async fn conformance(backend: Arc<dyn Backend>) {
    let b = backend.as_ref();
    identities(b).await;
    sessions(b).await;
    prekeys(b).await;
    signed_prekeys(b).await;
    sender_keys(b).await;
    sync_keys_and_versions(b).await;
    mutation_macs(b).await;
    sender_key_devices(b).await;
    lid_pn_mappings(b).await;
    base_keys(b).await;
    device_lists(b).await;
    group_metadata(b).await;
    tc_tokens(b).await;
    sent_messages(b).await;
    pending_inbound(b).await;
    msg_secrets(b).await;
    device(b).await;
    tc_token_merges_under_concurrency(backend).await;
}

/// Concurrent issuers and receivers of one contact's tc-token converge: the sender bucket is
/// the largest time touched, the token the one received with the largest time.
async fn tc_token_merges_under_concurrency(backend: Arc<dyn Backend>) {
    let jid = "950@lid";
    let tasks: Vec<_> = (1..=16i64)
        .map(|i| {
            let backend = backend.clone();
            tokio::spawn(async move {
                if i % 2 == 0 {
                    backend
                        .touch_tc_token_sender_timestamp(jid, i * 10)
                        .await
                        .expect("touch");
                } else {
                    backend
                        .store_received_tc_token(jid, format!("t{i}").as_bytes(), i * 10)
                        .await
                        .expect("store");
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("joined");
    }
    assert_eq!(
        token(&backend.get_tc_token(jid).await.expect("get")),
        Some((b"t15".to_vec(), 150, Some(160)))
    );
}

fn arc(s: &str) -> Arc<str> {
    Arc::from(s)
}

async fn identities(b: &dyn Backend) {
    let alice = "111@s.whatsapp.net";
    assert_eq!(b.load_identity(alice).await.expect("load"), None);
    b.put_identity(alice, [1; 32]).await.expect("put");
    assert_eq!(b.load_identity(alice).await.expect("load"), Some([1; 32]));
    b.put_identities_batch(&[
        (arc(alice), [2; 32]),
        (arc("222:3@s.whatsapp.net"), [3; 32]),
    ])
    .await
    .expect("batch");
    assert_eq!(b.load_identity(alice).await.expect("load"), Some([2; 32]));
    assert_eq!(
        b.load_identity("222:3@s.whatsapp.net").await.expect("load"),
        Some([3; 32])
    );
    assert!(b.has_signal_state_for_user("222").await.expect("user"));
    b.delete_identity(alice).await.expect("delete");
    assert_eq!(b.load_identity(alice).await.expect("load"), None);
    // Deleting what is not there is fine.
    b.delete_identity(alice).await.expect("delete again");
}

async fn sessions(b: &dyn Backend) {
    let one = "333@s.whatsapp.net";
    let two = "333:7@s.whatsapp.net";
    assert!(!b.has_session(one).await.expect("has"));
    assert!(!b.has_signal_state_for_user("333").await.expect("user"));
    b.put_session(one, b"session one").await.expect("put");
    assert!(b.has_session(one).await.expect("has"));
    assert_eq!(
        b.get_session(one).await.expect("get"),
        Some(Bytes::from_static(b"session one"))
    );
    b.put_sessions_batch(&[
        (arc(one), Bytes::from_static(b"updated")),
        (arc(two), Bytes::from_static(b"session two")),
    ])
    .await
    .expect("batch");
    assert_eq!(
        b.get_session(one).await.expect("get"),
        Some(Bytes::from_static(b"updated"))
    );
    assert_eq!(
        b.get_session(two).await.expect("get"),
        Some(Bytes::from_static(b"session two"))
    );
    assert!(b.has_signal_state_for_user("333").await.expect("user"));
    // A user whose id only starts like another's has no state.
    assert!(!b.has_signal_state_for_user("33").await.expect("user"));
    b.delete_session(one).await.expect("delete");
    assert_eq!(b.get_session(one).await.expect("get"), None);
    assert!(b.has_session(two).await.expect("has"));
}

async fn prekeys(b: &dyn Backend) {
    assert_eq!(b.get_max_prekey_id().await.expect("max"), 0);
    b.store_prekey(5, b"five", false).await.expect("store");
    b.store_prekeys_batch(
        &[
            (7, Bytes::from_static(b"seven")),
            (300, Bytes::from_static(b"three hundred")),
            (6, Bytes::from_static(b"six")),
        ],
        true,
    )
    .await
    .expect("batch");
    // The largest id, not the last stored nor the largest in text order ("7" > "300").
    assert_eq!(b.get_max_prekey_id().await.expect("max"), 300);
    assert_eq!(
        b.load_prekey(5).await.expect("load"),
        Some(Bytes::from_static(b"five"))
    );
    assert_eq!(
        b.load_prekeys_batch(&[300, 4, 5])
            .await
            .expect("load batch"),
        vec![
            (300, Bytes::from_static(b"three hundred")),
            (5, Bytes::from_static(b"five")),
        ]
    );
    // Consumed between the upload snapshot and the mark: it stays consumed.
    b.remove_prekey(5).await.expect("remove");
    b.mark_prekeys_uploaded(&[5, 6]).await.expect("mark");
    assert_eq!(b.load_prekey(5).await.expect("load"), None);
    assert_eq!(
        b.load_prekey(6).await.expect("load"),
        Some(Bytes::from_static(b"six"))
    );
    b.remove_prekey(300).await.expect("remove");
    assert_eq!(b.get_max_prekey_id().await.expect("max"), 7);
}

async fn signed_prekeys(b: &dyn Backend) {
    assert!(b.load_all_signed_prekeys().await.expect("all").is_empty());
    b.store_signed_prekey(1, b"one").await.expect("store");
    b.store_signed_prekey(2, b"two").await.expect("store");
    b.store_signed_prekey(1, b"one again").await.expect("store");
    assert_eq!(
        b.load_signed_prekey(1).await.expect("load"),
        Some(b"one again".to_vec())
    );
    let mut all = b.load_all_signed_prekeys().await.expect("all");
    all.sort();
    assert_eq!(all, vec![(1, b"one again".to_vec()), (2, b"two".to_vec())]);
    b.remove_signed_prekey(1).await.expect("remove");
    assert_eq!(b.load_signed_prekey(1).await.expect("load"), None);
}

async fn sender_keys(b: &dyn Backend) {
    let address = "120363@g.us::444:1@s.whatsapp.net";
    assert_eq!(b.get_sender_key(address).await.expect("get"), None);
    b.put_sender_key(address, b"key").await.expect("put");
    b.put_sender_keys_batch(&[
        (arc(address), Bytes::from_static(b"rotated")),
        (
            arc("120363@g.us::555@s.whatsapp.net"),
            Bytes::from_static(b"other"),
        ),
    ])
    .await
    .expect("batch");
    assert_eq!(
        b.get_sender_key(address).await.expect("get"),
        Some(b"rotated".to_vec())
    );
    b.delete_sender_key(address).await.expect("delete");
    assert_eq!(b.get_sender_key(address).await.expect("get"), None);
    assert_eq!(
        b.get_sender_key("120363@g.us::555@s.whatsapp.net")
            .await
            .expect("get"),
        Some(b"other".to_vec())
    );
}

fn sync_key(data: u8, timestamp: i64) -> AppStateSyncKey {
    AppStateSyncKey {
        key_data: vec![data; 32],
        fingerprint: vec![data, 1, 2],
        timestamp,
    }
}

async fn sync_keys_and_versions(b: &dyn Backend) {
    assert_eq!(b.get_latest_sync_key_id().await.expect("latest"), None);
    assert!(b.get_sync_key(b"\x00\x01").await.expect("get").is_none());
    b.set_sync_key(b"\x00\x01", sync_key(1, 10))
        .await
        .expect("set");
    b.set_sync_key(b"\x00\x02", sync_key(2, 20))
        .await
        .expect("set");
    assert_eq!(
        b.get_latest_sync_key_id().await.expect("latest"),
        Some(b"\x00\x02".to_vec())
    );
    // Setting an older key again makes it the latest.
    b.set_sync_key(b"\x00\x01", sync_key(3, 30))
        .await
        .expect("set");
    assert_eq!(
        b.get_latest_sync_key_id().await.expect("latest"),
        Some(b"\x00\x01".to_vec())
    );
    let key = b
        .get_sync_key(b"\x00\x01")
        .await
        .expect("get")
        .expect("stored");
    assert_eq!(
        (key.key_data, key.fingerprint, key.timestamp),
        (vec![3; 32], vec![3, 1, 2], 30)
    );

    let fresh = b.get_version("regular").await.expect("version");
    assert_eq!((fresh.version, fresh.hash), (0, [0; 128]));
    assert!(fresh.index_value_map.is_empty());
    let mut state = HashState {
        version: 42,
        hash: [9; 128],
        ..HashState::default()
    };
    state
        .index_value_map
        .insert("index".to_owned(), vec![1, 2, 3]);
    state.mac_mismatch_fatal = true;
    b.set_version("regular", state).await.expect("set version");
    let read = b.get_version("regular").await.expect("version");
    assert_eq!((read.version, read.hash), (42, [9; 128]));
    assert_eq!(read.index_value_map.get("index"), Some(&vec![1, 2, 3]));
    assert!(read.mac_mismatch_fatal);
    assert_eq!(
        b.get_version("critical_block")
            .await
            .expect("version")
            .version,
        0
    );
}

fn mac(index: u8, value: u8) -> AppStateMutationMAC {
    AppStateMutationMAC {
        index_mac: vec![index; 32],
        value_mac: vec![value; 32],
    }
}

async fn mutation_macs(b: &dyn Backend) {
    b.put_mutation_macs("regular", 1, &[mac(1, 10), mac(2, 20), mac(3, 30)])
        .await
        .expect("put");
    b.put_mutation_macs("regular_low", 1, &[mac(1, 11)])
        .await
        .expect("put");
    // A name that starts like another is another collection.
    b.put_mutation_macs("regula", 1, &[mac(1, 12)])
        .await
        .expect("put");
    assert_eq!(
        b.get_mutation_mac("regular", &[1; 32]).await.expect("get"),
        Some(vec![10; 32])
    );
    // The batch read agrees with the single one, and leaves out the missing.
    let many = b
        .get_mutation_macs("regular", &[[1; 32], [2; 32], [9; 32]])
        .await
        .expect("get many");
    assert_eq!(many.len(), 2);
    assert_eq!(many.get(&[1; 32]), Some(&vec![10; 32]));
    assert_eq!(many.get(&[2; 32]), Some(&vec![20; 32]));
    for index in [[1u8; 32], [2; 32], [9; 32]] {
        assert_eq!(
            many.get(&index).cloned(),
            b.get_mutation_mac("regular", &index).await.expect("get")
        );
    }
    b.delete_mutation_macs("regular", &[vec![2; 32]])
        .await
        .expect("delete");
    assert_eq!(
        b.get_mutation_mac("regular", &[2; 32]).await.expect("get"),
        None
    );
    b.clear_mutation_macs("regular").await.expect("clear");
    assert!(
        b.get_mutation_macs("regular", &[[1; 32], [3; 32]])
            .await
            .expect("get many")
            .is_empty()
    );
    assert_eq!(
        b.get_mutation_mac("regular_low", &[1; 32])
            .await
            .expect("get"),
        Some(vec![11; 32])
    );
    assert_eq!(
        b.get_mutation_mac("regula", &[1; 32]).await.expect("get"),
        Some(vec![12; 32])
    );
}

async fn sender_key_devices(b: &dyn Backend) {
    let group = "120363001@g.us";
    let other = "120363002@g.us";
    b.set_sender_key_status(
        group,
        &[("1@s.whatsapp.net", true), ("2:1@s.whatsapp.net", false)],
    )
    .await
    .expect("set");
    b.set_sender_key_status(group, &[("2:1@s.whatsapp.net", true), ("3@lid", false)])
        .await
        .expect("set");
    b.set_sender_key_status(other, &[("1@s.whatsapp.net", true), ("4@lid", true)])
        .await
        .expect("set");
    let mut devices = b.get_sender_key_devices(group).await.expect("get");
    devices.sort();
    assert_eq!(
        devices,
        vec![
            ("1@s.whatsapp.net".to_owned(), true),
            ("2:1@s.whatsapp.net".to_owned(), true),
            ("3@lid".to_owned(), false),
        ]
    );
    b.delete_sender_key_device_rows(&["1@s.whatsapp.net"])
        .await
        .expect("delete rows");
    let mut devices = b.get_sender_key_devices(group).await.expect("get");
    devices.sort();
    assert_eq!(devices.len(), 2);
    assert_eq!(
        b.get_sender_key_devices(other).await.expect("get"),
        vec![("4@lid".to_owned(), true)]
    );
    b.clear_sender_key_devices(group).await.expect("clear");
    assert!(
        b.get_sender_key_devices(group)
            .await
            .expect("get")
            .is_empty()
    );
    assert_eq!(b.get_sender_key_devices(other).await.expect("get").len(), 1);
    b.clear_all_sender_key_devices().await.expect("clear all");
    assert!(
        b.get_sender_key_devices(other)
            .await
            .expect("get")
            .is_empty()
    );
}

fn mapping(lid: &str, phone: &str, at: i64) -> LidPnMappingEntry {
    LidPnMappingEntry {
        lid: lid.to_owned(),
        phone_number: phone.to_owned(),
        created_at: at,
        updated_at: at,
        learning_source: "usync".to_owned(),
    }
}

async fn lid_pn_mappings(b: &dyn Backend) {
    assert!(b.get_lid_mapping("100").await.expect("get").is_none());
    assert!(b.get_pn_mapping("5511").await.expect("get").is_none());
    b.put_lid_mapping(&mapping("100", "5511", 1))
        .await
        .expect("put");
    // Both ways.
    let by_lid = b.get_lid_mapping("100").await.expect("get").expect("found");
    assert_eq!(by_lid.phone_number, "5511");
    let by_pn = b.get_pn_mapping("5511").await.expect("get").expect("found");
    assert_eq!(
        (by_pn.lid.as_str(), by_pn.learning_source.as_str()),
        ("100", "usync")
    );
    // The phone gets a new LID: the phone answers the latest, the old LID still answers.
    b.put_lid_mapping(&mapping("101", "5511", 2))
        .await
        .expect("put");
    assert_eq!(
        b.get_pn_mapping("5511")
            .await
            .expect("get")
            .expect("found")
            .lid,
        "101"
    );
    assert_eq!(
        b.get_lid_mapping("100")
            .await
            .expect("get")
            .expect("found")
            .phone_number,
        "5511"
    );
    // A batch in one go, the later entry of a phone winning.
    b.put_lid_mappings(&[
        mapping("200", "5522", 3),
        mapping("300", "5533", 3),
        mapping("201", "5522", 4),
    ])
    .await
    .expect("batch");
    assert_eq!(
        b.get_pn_mapping("5522")
            .await
            .expect("get")
            .expect("found")
            .lid,
        "201"
    );
    assert_eq!(
        b.get_pn_mapping("5533")
            .await
            .expect("get")
            .expect("found")
            .lid,
        "300"
    );
    // A LID that moves to another phone leaves its old phone.
    b.put_lid_mapping(&mapping("300", "5544", 5))
        .await
        .expect("put");
    assert!(b.get_pn_mapping("5533").await.expect("get").is_none());
    assert_eq!(
        b.get_pn_mapping("5544")
            .await
            .expect("get")
            .expect("found")
            .lid,
        "300"
    );
    let mut all: Vec<(String, String)> = b
        .get_all_lid_mappings()
        .await
        .expect("all")
        .into_iter()
        .map(|e| (e.lid, e.phone_number))
        .collect();
    all.sort();
    let expected: Vec<(String, String)> = [
        ("100", "5511"),
        ("101", "5511"),
        ("200", "5522"),
        ("201", "5522"),
        ("300", "5544"),
    ]
    .iter()
    .map(|(l, p)| ((*l).to_owned(), (*p).to_owned()))
    .collect();
    assert_eq!(all, expected);
}

async fn base_keys(b: &dyn Backend) {
    let address = "666@s.whatsapp.net";
    assert!(
        !b.has_same_base_key(address, "M1", b"k")
            .await
            .expect("same")
    );
    b.save_base_key(address, "M1", b"base").await.expect("save");
    assert!(
        b.has_same_base_key(address, "M1", b"base")
            .await
            .expect("same")
    );
    assert!(
        !b.has_same_base_key(address, "M1", b"other")
            .await
            .expect("same")
    );
    assert!(
        !b.has_same_base_key(address, "M2", b"base")
            .await
            .expect("same")
    );
    b.delete_base_key(address, "M1").await.expect("delete");
    assert!(
        !b.has_same_base_key(address, "M1", b"base")
            .await
            .expect("same")
    );
}

fn device_list(user: &str, devices: &[u32], timestamp: i64) -> DeviceListRecord {
    DeviceListRecord {
        user: user.to_owned(),
        devices: devices
            .iter()
            .map(|d| DeviceInfo::new(*d, Some(d + 1)))
            .collect(),
        timestamp,
        phash: Some("2:abc".to_owned()),
        raw_id: Some(7),
    }
}

async fn device_lists(b: &dyn Backend) {
    assert!(b.get_devices("777").await.expect("get").is_none());
    b.update_device_list(device_list("777", &[0, 1], 1))
        .await
        .expect("update");
    b.update_device_lists(vec![
        device_list("777", &[0, 1, 2], 2),
        device_list("888", &[0], 2),
    ])
    .await
    .expect("batch");
    let read = b.get_devices("777").await.expect("get").expect("found");
    let ids: Vec<(u32, Option<u32>)> = read
        .devices
        .iter()
        .map(|d| (d.device_id, d.key_index))
        .collect();
    assert_eq!(ids, vec![(0, Some(1)), (1, Some(2)), (2, Some(3))]);
    assert_eq!(
        (read.timestamp, read.phash.as_deref(), read.raw_id),
        (2, Some("2:abc"), Some(7))
    );
    b.delete_devices("777").await.expect("delete");
    assert!(b.get_devices("777").await.expect("get").is_none());
    assert!(b.get_devices("888").await.expect("get").is_some());
}

async fn group_metadata(b: &dyn Backend) {
    let group = "120363009@g.us";
    assert!(b.get_group_metadata(group).await.expect("get").is_none());
    b.put_group_metadata(group, b"v1").await.expect("put");
    b.put_group_metadata(group, b"v2").await.expect("put");
    assert_eq!(
        b.get_group_metadata(group).await.expect("get"),
        Some(b"v2".to_vec())
    );
    b.delete_group_metadata(group).await.expect("delete");
    assert!(b.get_group_metadata(group).await.expect("get").is_none());
}

fn token(entry: &Option<TcTokenEntry>) -> Option<(Vec<u8>, i64, Option<i64>)> {
    entry
        .as_ref()
        .map(|e| (e.token.clone(), e.token_timestamp, e.sender_timestamp))
}

async fn tc_tokens(b: &dyn Backend) {
    let jid = "900@lid";
    assert!(b.get_tc_token(jid).await.expect("get").is_none());
    b.put_tc_token(
        jid,
        &TcTokenEntry {
            token: b"t1".to_vec(),
            token_timestamp: 100,
            sender_timestamp: None,
        },
    )
    .await
    .expect("put");
    // The sender bucket only moves forward and keeps the token.
    b.touch_tc_token_sender_timestamp(jid, 150)
        .await
        .expect("touch");
    b.touch_tc_token_sender_timestamp(jid, 120)
        .await
        .expect("touch");
    assert_eq!(
        token(&b.get_tc_token(jid).await.expect("get")),
        Some((b"t1".to_vec(), 100, Some(150)))
    );
    // A stale token does not replace a fresher one; a newer one does, keeping the bucket.
    b.store_received_tc_token(jid, b"old", 90)
        .await
        .expect("store");
    assert_eq!(
        token(&b.get_tc_token(jid).await.expect("get")),
        Some((b"t1".to_vec(), 100, Some(150)))
    );
    b.store_received_tc_token(jid, b"t2", 200)
        .await
        .expect("store");
    assert_eq!(
        token(&b.get_tc_token(jid).await.expect("get")),
        Some((b"t2".to_vec(), 200, Some(150)))
    );
    // Touching an unknown contact leaves a placeholder, which a real token replaces.
    let placeholder = "901@lid";
    b.touch_tc_token_sender_timestamp(placeholder, 300)
        .await
        .expect("touch");
    assert_eq!(
        token(&b.get_tc_token(placeholder).await.expect("get")),
        Some((Vec::new(), 300, Some(300)))
    );
    b.store_received_tc_token(placeholder, b"real", 10)
        .await
        .expect("store");
    assert_eq!(
        token(&b.get_tc_token(placeholder).await.expect("get")),
        Some((b"real".to_vec(), 10, Some(300)))
    );
    let stale = "902@lid";
    b.put_tc_token(
        stale,
        &TcTokenEntry {
            token: b"s".to_vec(),
            token_timestamp: 5,
            sender_timestamp: Some(5),
        },
    )
    .await
    .expect("put");
    let mut jids = b.get_all_tc_token_jids().await.expect("jids");
    jids.sort();
    assert_eq!(jids, vec![jid, placeholder, stale]);
    // Token cutoff 150, sender cutoff 250: the stale row goes; `jid` keeps its live token,
    // `placeholder` its live sender bucket.
    assert_eq!(
        b.delete_expired_tc_tokens(150, 250).await.expect("sweep"),
        1
    );
    assert!(b.get_tc_token(stale).await.expect("get").is_none());
    assert_eq!(b.get_all_tc_token_jids().await.expect("jids").len(), 2);
    b.delete_tc_token(jid).await.expect("delete");
    assert!(b.get_tc_token(jid).await.expect("get").is_none());
}

async fn sent_messages(b: &dyn Backend) {
    let chat = "123@s.whatsapp.net";
    b.store_sent_message(chat, "3EB0A", b"payload a")
        .await
        .expect("store");
    b.store_sent_message(chat, "3EB0B", b"payload b")
        .await
        .expect("store");
    b.store_sent_message("456@g.us", "3EB0A", b"other chat")
        .await
        .expect("store");
    // Taken once, then gone.
    assert_eq!(
        b.take_sent_message(chat, "3EB0A").await.expect("take"),
        Some(b"payload a".to_vec())
    );
    assert_eq!(
        b.take_sent_message(chat, "3EB0A").await.expect("take"),
        None
    );
    // Stored now: an old cutoff keeps them, a future one sweeps them with their count.
    let now = Utc::now().timestamp();
    assert_eq!(
        b.delete_expired_sent_messages(now - 3600)
            .await
            .expect("sweep"),
        0
    );
    assert_eq!(
        b.delete_expired_sent_messages(now + 3600)
            .await
            .expect("sweep"),
        2
    );
    assert_eq!(
        b.take_sent_message("456@g.us", "3EB0A")
            .await
            .expect("take"),
        None
    );
}

async fn pending_inbound(b: &dyn Backend) {
    // The library's probe row.
    let probe = "0@s.whatsapp.net";
    b.store_pending_inbound(probe, probe, "probe", b"p")
        .await
        .expect("store");
    assert_eq!(
        b.get_pending_inbound(probe, probe, "probe")
            .await
            .expect("get"),
        Some(b"p".to_vec())
    );
    b.delete_pending_inbound(probe, probe, "probe")
        .await
        .expect("delete");
    assert_eq!(
        b.get_pending_inbound(probe, probe, "probe")
            .await
            .expect("get"),
        None
    );
    // Ids are unique per (chat, sender) only.
    let group = "120363@g.us";
    b.store_pending_inbound_batch(&[
        PendingInboundRow {
            chat: group,
            sender: "1@lid",
            id: "M",
            message: b"from one",
        },
        PendingInboundRow {
            chat: group,
            sender: "2@lid",
            id: "M",
            message: b"from two",
        },
        PendingInboundRow {
            chat: "3@lid",
            sender: "3@lid",
            id: "N",
            message: b"direct",
        },
    ])
    .await
    .expect("batch");
    assert_eq!(
        b.get_pending_inbound(group, "2@lid", "M")
            .await
            .expect("get"),
        Some(b"from two".to_vec())
    );
    b.delete_pending_inbound_batch(&[
        PendingInboundKey {
            chat: group,
            sender: "1@lid",
            id: "M",
        },
        PendingInboundKey {
            chat: "3@lid",
            sender: "3@lid",
            id: "N",
        },
    ])
    .await
    .expect("delete batch");
    assert_eq!(
        b.get_pending_inbound(group, "1@lid", "M")
            .await
            .expect("get"),
        None
    );
    assert_eq!(
        b.get_pending_inbound(group, "2@lid", "M")
            .await
            .expect("get"),
        Some(b"from two".to_vec())
    );
    let now = Utc::now().timestamp();
    assert_eq!(
        b.delete_expired_pending_inbound(now - 3600)
            .await
            .expect("sweep"),
        0
    );
    assert_eq!(
        b.delete_expired_pending_inbound(now + 3600)
            .await
            .expect("sweep"),
        1
    );
}

fn secret_entry(id: &str, secret: u8, expires_at: i64, message_ts: i64) -> MsgSecretEntry {
    MsgSecretEntry {
        chat: arc("5@s.whatsapp.net"),
        sender: arc("6@s.whatsapp.net"),
        msg_id: arc(id),
        secret: [secret; 32],
        expires_at,
        message_ts,
    }
}

async fn msg_secrets(b: &dyn Backend) {
    let (chat, sender) = ("5@s.whatsapp.net", "6@s.whatsapp.net");
    assert!(
        b.get_msg_secret(chat, sender, "A")
            .await
            .expect("get")
            .is_none()
    );
    b.put_msg_secret(chat, sender, "A", &[1; 32])
        .await
        .expect("put");
    assert_eq!(
        b.get_msg_secret_with_ts(chat, sender, "A")
            .await
            .expect("get"),
        Some((vec![1; 32], 0))
    );
    assert_eq!(
        b.put_msg_secrets(vec![
            secret_entry("B", 2, 1000, 50),
            secret_entry("C", 3, 2000, 60),
            // A later write of B in the same batch: new secret, later expiry, later time.
            secret_entry("B", 4, 1500, 70),
        ])
        .await
        .expect("put batch"),
        3
    );
    assert_eq!(
        b.get_msg_secret_with_ts(chat, sender, "B")
            .await
            .expect("get"),
        Some((vec![4; 32], 70))
    );
    // A re-persist never shortens the window nor forgets a known time.
    b.put_msg_secrets(vec![secret_entry("B", 5, 900, 0)])
        .await
        .expect("put");
    assert_eq!(
        b.get_msg_secret_with_ts(chat, sender, "B")
            .await
            .expect("get"),
        Some((vec![5; 32], 70))
    );
    // "Never" (A, 0) beats a deadline on merge, and is never swept.
    b.put_msg_secrets(vec![secret_entry("A", 1, 10, 0)])
        .await
        .expect("put");
    // B expires at 1500, C at 2000: a sweep at 1500 takes B only (at or before the cutoff).
    assert_eq!(b.delete_expired_msg_secrets(1499).await.expect("sweep"), 0);
    assert_eq!(b.delete_expired_msg_secrets(1500).await.expect("sweep"), 1);
    assert!(
        b.get_msg_secret(chat, sender, "B")
            .await
            .expect("get")
            .is_none()
    );
    assert_eq!(
        b.delete_expired_msg_secrets(i64::MAX - 1)
            .await
            .expect("sweep"),
        1
    );
    assert_eq!(
        b.get_msg_secret(chat, sender, "A").await.expect("get"),
        Some(vec![1; 32])
    );
}

async fn device(b: &dyn Backend) {
    assert!(!b.exists().await.expect("exists"));
    assert!(b.load().await.expect("load").is_none());
    b.create().await.expect("create");
    assert!(b.exists().await.expect("exists"));
    let mut device = b.load().await.expect("load").expect("created");
    let created = serde_json::to_value(&device).expect("json");
    // Creating again keeps the device (its keys).
    b.create().await.expect("create again");
    let again = b.load().await.expect("load").expect("kept");
    assert_eq!(serde_json::to_value(&again).expect("json"), created);
    device.push_name = "Chatflow".to_owned();
    device.pn = Some("5511999@s.whatsapp.net".parse().expect("a JID"));
    device.app_version_last_fetched_ms = 1_700_000_000_000;
    b.save(&device).await.expect("save");
    let read = b.load().await.expect("load").expect("saved");
    assert_eq!(
        serde_json::to_value(&read).expect("json"),
        serde_json::to_value(&device).expect("json")
    );
    assert_eq!(read.push_name, "Chatflow");
    assert_eq!(
        read.pn.map(|jid| jid.to_string()).as_deref(),
        Some("5511999@s.whatsapp.net")
    );
}

// =============================================================================================
// Engines
// =============================================================================================

/// A store with one company, two connections (the second another company's), the first leased.
struct Fixture {
    store: Store,
    connection: WhatsappId,
    other: WhatsappId,
    token: LeaseToken,
}

impl Fixture {
    fn cipher() -> Arc<dyn SecretCipher> {
        Arc::new(
            SealedSecrets::from_key_text("a test key of at least thirty-two characters")
                .expect("a key"),
        )
    }

    fn backend(&self) -> WaBackend {
        WaBackend::new(
            Arc::new(self.store.clone()),
            Self::cipher(),
            self.connection,
            self.token,
        )
    }
}

fn stamps() -> Stamps {
    Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

async fn company(store: &Store, plan: chatflow_core::PlanId, name: &str) -> TenantScope {
    let company = CompanyRepo::create(
        store,
        &NewCompany {
            name: name.to_owned(),
            email: Some(format!(
                "{}@example.com",
                name.to_lowercase().replace(' ', "-")
            )),
            phone: None,
            plan_id: plan,
            status: true,
            due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 31).expect("a date"),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect("company created");
    TenantScope::new(company.id)
}

async fn connection(store: &Store, scope: TenantScope, name: &str) -> WhatsappId {
    let company = scope.company_id().0;
    WhatsappId(chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO whatsapps (company_id, name) VALUES ($1, $2) RETURNING id",
        )
        .bind(company)
        .bind(name)
        .fetch_one(p)
        .await
        .expect("connection inserted")
    }))
}

async fn fixture(store: Store) -> Fixture {
    let plan = PlanRepo::create(
        &store,
        &NewPlan {
            name: "Basic".to_owned(),
            users: 10,
            connections: 5,
            queues: 8,
            amount: Money(4990),
            is_public: true,
            flags: PlanFlags::ALL,
        },
    )
    .await
    .expect("plan created")
    .id;
    let a = company(&store, plan, "Company A").await;
    let b = company(&store, plan, "Company B").await;
    let connection = connection(&store, a, "A's number").await;
    let other = connection_of(&store, b).await;
    let token = lease(&store, connection, "server-a").await;
    Fixture {
        store,
        connection,
        other,
        token,
    }
}

async fn connection_of(store: &Store, scope: TenantScope) -> WhatsappId {
    connection(store, scope, "B's number").await
}

async fn lease(store: &Store, connection: WhatsappId, owner: &str) -> LeaseToken {
    store
        .acquire(connection, owner, Utc::now(), TimeDelta::hours(1))
        .await
        .expect("acquired")
        .expect("free")
}

/// Runs `test` on a migrated store over a new SQLite file, with the fixture's company and
/// connection.
async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_sqlite(stamps(), true, |store, _| async move {
        test(fixture(store).await).await;
    })
    .await;
}

/// Runs `test` on a migrated store over a new PostgreSQL database, dropped afterwards.
async fn on_postgres<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_postgres(stamps(), true, |store, _| async move {
        test(fixture(store).await).await;
    })
    .await;
}

/// One test per engine for each listed `async fn(Fixture)`.
macro_rules! engine_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_sqlite(super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_postgres(super::$name).await;
                }
            )*
        }
    };
}

engine_tests!(
    the_store_backend_conforms,
    every_batch_is_one_fenced_apply,
    a_batch_with_a_stale_lease_token_leaves_nothing,
    prekey_flags_are_kept_and_never_resurrect_a_row,
    a_sent_message_is_taken_exactly_once_under_concurrency,
    key_material_is_sealed_and_bound_to_its_row,
    connections_do_not_share_state,
    the_directory_keeps_names_by_weight_and_resolves_lids,
    a_full_sync_of_the_directory_is_one_apply,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_memory_oracle_conforms() {
    conformance(Arc::new(InMemoryBackend::new())).await;
}

async fn the_store_backend_conforms(f: Fixture) {
    conformance(Arc::new(f.backend())).await;
}

// =============================================================================================
// What only WaBackend promises
// =============================================================================================

/// The store, counting its `apply` and `take` calls.
struct Counting {
    inner: Store,
    applies: AtomicUsize,
    takes: AtomicUsize,
}

#[async_trait]
impl SessionStateRepo for Counting {
    async fn get(
        &self,
        connection: WhatsappId,
        ns: Ns,
        key: &[u8],
    ) -> chatflow_core::Result<Option<StateRow>> {
        SessionStateRepo::get(&self.inner, connection, ns, key).await
    }
    async fn get_many(
        &self,
        connection: WhatsappId,
        ns: Ns,
        keys: &[Vec<u8>],
    ) -> chatflow_core::Result<Vec<StateRow>> {
        SessionStateRepo::get_many(&self.inner, connection, ns, keys).await
    }
    async fn list(
        &self,
        connection: WhatsappId,
        ns: Ns,
        prefix: &[u8],
    ) -> chatflow_core::Result<Vec<StateRow>> {
        SessionStateRepo::list(&self.inner, connection, ns, prefix).await
    }
    async fn max_aux(&self, connection: WhatsappId, ns: Ns) -> chatflow_core::Result<Option<i64>> {
        SessionStateRepo::max_aux(&self.inner, connection, ns).await
    }
    async fn apply(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ops: &[StateOp],
    ) -> chatflow_core::Result<u64> {
        self.applies.fetch_add(1, Ordering::SeqCst);
        SessionStateRepo::apply(&self.inner, connection, fence, ops).await
    }
    async fn take(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ns: Ns,
        key: &[u8],
    ) -> chatflow_core::Result<Option<StateRow>> {
        self.takes.fetch_add(1, Ordering::SeqCst);
        SessionStateRepo::take(&self.inner, connection, fence, ns, key).await
    }
    async fn wipe(&self, connection: WhatsappId) -> chatflow_core::Result<u64> {
        SessionStateRepo::wipe(&self.inner, connection).await
    }
}

async fn every_batch_is_one_fenced_apply(f: Fixture) {
    let counting = Arc::new(Counting {
        inner: f.store.clone(),
        applies: AtomicUsize::new(0),
        takes: AtomicUsize::new(0),
    });
    let b = WaBackend::new(counting.clone(), Fixture::cipher(), f.connection, f.token);
    let applies = || counting.applies.load(Ordering::SeqCst);
    let sessions: Vec<(Arc<str>, Bytes)> = (0..50)
        .map(|i| {
            (
                arc(&format!("{i}@s.whatsapp.net")),
                Bytes::from(vec![i as u8; 64]),
            )
        })
        .collect();
    b.put_sessions_batch(&sessions).await.expect("sessions");
    assert_eq!(applies(), 1);
    let identities: Vec<(Arc<str>, [u8; 32])> = (0..50)
        .map(|i| (arc(&format!("{i}@s.whatsapp.net")), [i as u8; 32]))
        .collect();
    b.put_identities_batch(&identities)
        .await
        .expect("identities");
    assert_eq!(applies(), 2);
    b.put_sender_keys_batch(&sessions)
        .await
        .expect("sender keys");
    assert_eq!(applies(), 3);
    let prekeys: Vec<(u32, Bytes)> = (1..=50).map(|i| (i, Bytes::from(vec![1; 8]))).collect();
    b.store_prekeys_batch(&prekeys, false)
        .await
        .expect("prekeys");
    b.mark_prekeys_uploaded(&(1..=50).collect::<Vec<_>>())
        .await
        .expect("mark");
    assert_eq!(applies(), 5);
    b.put_lid_mappings(
        &(0..20)
            .map(|i| mapping(&format!("{i}"), &format!("55{i}"), i))
            .collect::<Vec<_>>(),
    )
    .await
    .expect("mappings");
    assert_eq!(applies(), 6);
    b.update_device_lists(
        (0..20)
            .map(|i| device_list(&format!("{i}"), &[0], 1))
            .collect(),
    )
    .await
    .expect("device lists");
    assert_eq!(applies(), 7);
    b.put_mutation_macs(
        "regular",
        1,
        &(0..20).map(|i| mac(i, i)).collect::<Vec<_>>(),
    )
    .await
    .expect("macs");
    assert_eq!(applies(), 8);
    b.put_msg_secrets(
        (0..20)
            .map(|i| secret_entry(&format!("M{i}"), i, 0, 0))
            .collect(),
    )
    .await
    .expect("secrets");
    assert_eq!(applies(), 9);
    let rows: Vec<PendingInboundRow<'_>> = (0..20)
        .map(|_| PendingInboundRow {
            chat: "1@lid",
            sender: "1@lid",
            id: "X",
            message: b"m",
        })
        .collect();
    b.store_pending_inbound_batch(&rows).await.expect("pending");
    assert_eq!(applies(), 10);
    b.store_sent_message("1@lid", "S", b"p")
        .await
        .expect("sent");
    assert_eq!(
        b.take_sent_message("1@lid", "S").await.expect("take"),
        Some(b"p".to_vec())
    );
    assert_eq!(counting.takes.load(Ordering::SeqCst), 1);
    assert_eq!(applies(), 11);
}

async fn a_batch_with_a_stale_lease_token_leaves_nothing(f: Fixture) {
    let old = f.backend();
    old.put_session("kept@s.whatsapp.net", b"before")
        .await
        .expect("written while holding the lease");
    // Another acquisition (the lease expired and was taken over) fences the old token out.
    let newer = store_reacquire(&f).await;
    assert!(newer > f.token);
    let sessions: Vec<(Arc<str>, Bytes)> = vec![
        (
            arc("kept@s.whatsapp.net"),
            Bytes::from_static(b"overwritten"),
        ),
        (arc("new@s.whatsapp.net"), Bytes::from_static(b"new")),
    ];
    assert!(old.put_sessions_batch(&sessions).await.is_err());
    assert!(
        old.store_prekeys_batch(&[(1, Bytes::from_static(b"k"))], false)
            .await
            .is_err()
    );
    assert!(
        old.put_lid_mappings(&[mapping("1", "55", 1), mapping("2", "56", 1)])
            .await
            .is_err()
    );
    assert!(old.take_sent_message("1@lid", "S").await.is_err());
    // Nothing of the refused batches is visible, through either backend.
    let current = WaBackend::new(
        Arc::new(f.store.clone()),
        Fixture::cipher(),
        f.connection,
        newer,
    );
    for b in [&old, &current] {
        assert_eq!(
            b.get_session("kept@s.whatsapp.net").await.expect("read"),
            Some(Bytes::from_static(b"before"))
        );
        assert_eq!(
            b.get_session("new@s.whatsapp.net").await.expect("read"),
            None
        );
        assert_eq!(b.load_prekey(1).await.expect("read"), None);
        assert!(b.get_all_lid_mappings().await.expect("read").is_empty());
    }
    // The new holder writes.
    current
        .put_sessions_batch(&sessions)
        .await
        .expect("the current token writes");
    assert_eq!(
        current
            .get_session("new@s.whatsapp.net")
            .await
            .expect("read"),
        Some(Bytes::from_static(b"new"))
    );
}

async fn store_reacquire(f: &Fixture) -> LeaseToken {
    // The same owner acquiring again gets a greater token (as a takeover would).
    lease(&f.store, f.connection, "server-a").await
}

async fn prekey_flags_are_kept_and_never_resurrect_a_row(f: Fixture) {
    let b = f.backend();
    b.store_prekeys_batch(
        &[(1, Bytes::from_static(b"a")), (2, Bytes::from_static(b"b"))],
        false,
    )
    .await
    .expect("stored");
    b.store_prekey(3, b"c", true).await.expect("stored");
    b.remove_prekey(2).await.expect("consumed");
    b.mark_prekeys_uploaded(&[1, 2]).await.expect("marked");
    let flags: Vec<(u32, i64)> = SessionStateRepo::list(&f.store, f.connection, Ns::Prekey, b"")
        .await
        .expect("rows")
        .into_iter()
        .map(|row| {
            (
                u32::from_be_bytes(row.key.as_slice().try_into().expect("4 bytes")),
                row.aux,
            )
        })
        .collect();
    assert_eq!(flags, vec![(1, 1), (3, 1)]);
    assert_eq!(b.load_prekey(2).await.expect("read"), None);
    assert_eq!(b.get_max_prekey_id().await.expect("max"), 3);
}

async fn a_sent_message_is_taken_exactly_once_under_concurrency(f: Fixture) {
    let b = Arc::new(f.backend());
    for round in 0..5 {
        let id = format!("3EB0{round}");
        b.store_sent_message("7@s.whatsapp.net", &id, b"payload")
            .await
            .expect("stored");
        let takers: Vec<_> = (0..4)
            .map(|_| {
                let b = b.clone();
                let id = id.clone();
                tokio::spawn(async move {
                    b.take_sent_message("7@s.whatsapp.net", &id)
                        .await
                        .expect("take")
                })
            })
            .collect();
        let mut taken = 0;
        for taker in takers {
            if let Some(payload) = taker.await.expect("joined") {
                assert_eq!(payload, b"payload");
                taken += 1;
            }
        }
        assert_eq!(taken, 1, "round {round}");
    }
}

async fn key_material_is_sealed_and_bound_to_its_row(f: Fixture) {
    let b = f.backend();
    b.put_session("1@s.whatsapp.net", b"plain session")
        .await
        .expect("put");
    b.put_identity("1@s.whatsapp.net", [7; 32])
        .await
        .expect("put");
    let session = SessionStateRepo::get(&f.store, f.connection, Ns::Session, b"1@s.whatsapp.net")
        .await
        .expect("row")
        .expect("stored");
    assert!(
        !session
            .value
            .windows(b"plain session".len())
            .any(|w| w == b"plain session"),
        "the session is not stored in clear"
    );
    // A public identity key stays clear.
    let identity = SessionStateRepo::get(&f.store, f.connection, Ns::Identity, b"1@s.whatsapp.net")
        .await
        .expect("row")
        .expect("stored");
    assert_eq!(identity.value, vec![7; 32]);
    // A sealed value copied to another row does not open there.
    SessionStateRepo::apply(
        &f.store,
        f.connection,
        f.token,
        &[StateOp::Put {
            ns: Ns::Session,
            key: b"2@s.whatsapp.net".to_vec(),
            value: session.value.clone(),
            aux: 0,
        }],
    )
    .await
    .expect("copied");
    assert!(b.get_session("2@s.whatsapp.net").await.is_err());
    // Nor under another connection's backend.
    let other_token = lease(&f.store, f.other, "server-a").await;
    SessionStateRepo::apply(
        &f.store,
        f.other,
        other_token,
        &[StateOp::Put {
            ns: Ns::Session,
            key: b"1@s.whatsapp.net".to_vec(),
            value: session.value,
            aux: 0,
        }],
    )
    .await
    .expect("copied");
    let other = WaBackend::new(
        Arc::new(f.store.clone()),
        Fixture::cipher(),
        f.other,
        other_token,
    );
    assert!(other.get_session("1@s.whatsapp.net").await.is_err());
}

async fn connections_do_not_share_state(f: Fixture) {
    let b = f.backend();
    let other_token = lease(&f.store, f.other, "server-b").await;
    let other = WaBackend::new(
        Arc::new(f.store.clone()),
        Fixture::cipher(),
        f.other,
        other_token,
    );
    b.create().await.expect("device");
    b.put_session("1@s.whatsapp.net", b"s").await.expect("put");
    assert!(!other.exists().await.expect("exists"));
    assert_eq!(
        other.get_session("1@s.whatsapp.net").await.expect("get"),
        None
    );
    // A backend cannot write with another connection's token (tokens count per connection,
    // so take the other's lease again to make them differ).
    let other_token = lease(&f.store, f.other, "server-b").await;
    assert_ne!(other_token, f.token);
    let crossed = WaBackend::new(
        Arc::new(f.store.clone()),
        Fixture::cipher(),
        f.other,
        f.token,
    );
    assert!(crossed.put_session("1@s.whatsapp.net", b"x").await.is_err());
}

// =============================================================================================
// The directory
// =============================================================================================

fn sighting(chat: &str, lid: Option<&str>, name: &str, source: NameSource, at: i64) -> Sighting {
    Sighting {
        chat: chat.to_owned(),
        lid: lid.map(str::to_owned),
        name: name.to_owned(),
        source,
        at,
        adds: true,
    }
}

/// The directory as the import lists it: (number, name).
async fn listed(store: &Store, connection: WhatsappId) -> Vec<(String, String)> {
    directory_chats(store, connection)
        .await
        .expect("listed")
        .into_iter()
        .map(|chat| (chat.number, chat.name))
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(number, name)| ((*number).to_owned(), (*name).to_owned()))
        .collect()
}

async fn the_directory_keeps_names_by_weight_and_resolves_lids(f: Fixture) {
    let b = f.backend();
    // Never synced: no chats, no error.
    assert_eq!(listed(&f.store, f.connection).await, []);
    let (ana, carla, duda) = ("5511999990000", "5511955554444", "5511944443333");
    b.put_lid_mapping(&mapping("555", carla, 10))
        .await
        .expect("mapping");
    let mut from_group = sighting("5511933332222", None, "Eva", NameSource::Push, 1);
    from_group.adds = false;
    b.put_directory(&[
        sighting(ana, None, "Ana Souza", NameSource::Book, 500),
        sighting(ana, None, "Aninha", NameSource::Push, 100),
        sighting("555@lid", Some("555"), "Carla", NameSource::Book, 300),
        sighting("777@lid", Some("777"), "Duda", NameSource::Book, 200),
        from_group,
    ])
    .await
    .expect("written");
    // The push name kept the address-book name and gave its earlier time; Carla's LID is her
    // stored number; Duda's number is unknown yet, and a push name seen in a group added nobody.
    assert_eq!(
        listed(&f.store, f.connection).await,
        pairs(&[(ana, "Ana Souza"), (carla, "Carla")])
    );
    let rows = SessionStateRepo::list(&f.store, f.connection, Ns::Directory, b"")
        .await
        .expect("rows");
    let keys: Vec<&[u8]> = rows.iter().map(|row| row.key.as_slice()).collect();
    // In key order (bytes): Carla's number, Ana's, Duda's LID.
    assert_eq!(keys, [carla.as_bytes(), ana.as_bytes(), b"777@lid"]);
    // Not key material: clear JSON, `aux` the first time seen.
    let value: serde_json::Value = serde_json::from_slice(&rows[1].value).expect("clear JSON");
    assert_eq!(
        value,
        serde_json::json!({"name": "Ana Souza", "from": "book", "at": 100})
    );
    assert_eq!(rows[1].aux, 100);
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&rows[0].value).expect("JSON")["lid"],
        "555"
    );

    // Once the session learns Duda's number, she is listed by it, in her place.
    b.put_lid_mapping(&mapping("777", duda, 20))
        .await
        .expect("mapping");
    assert_eq!(
        listed(&f.store, f.connection).await,
        pairs(&[(ana, "Ana Souza"), (duda, "Duda"), (carla, "Carla")])
    );
    // A sighting by number and LID moves her row to the number; a later address-book name
    // replaces Ana's.
    b.put_directory(&[
        sighting(duda, Some("777"), "Dudinha", NameSource::Push, 900),
        sighting(ana, None, "Ana S. Lima", NameSource::Book, 900),
    ])
    .await
    .expect("written");
    let keys: Vec<Vec<u8>> = SessionStateRepo::list(&f.store, f.connection, Ns::Directory, b"")
        .await
        .expect("rows")
        .into_iter()
        .map(|row| row.key)
        .collect();
    assert_eq!(
        keys,
        [
            duda.as_bytes().to_vec(),
            carla.as_bytes().to_vec(),
            ana.as_bytes().to_vec()
        ]
    );
    assert_eq!(
        listed(&f.store, f.connection).await,
        pairs(&[(ana, "Ana S. Lima"), (duda, "Duda"), (carla, "Carla")])
    );

    // Another connection's directory is its own.
    assert_eq!(listed(&f.store, f.other).await, []);
    // A write with a stale token leaves nothing.
    let newer = store_reacquire(&f).await;
    assert_ne!(newer, f.token);
    assert!(
        b.put_directory(&[sighting("5511900000000", None, "Late", NameSource::Book, 1)])
            .await
            .is_err()
    );
    assert_eq!(listed(&f.store, f.connection).await.len(), 3);
    // Gone with the rest of the session's state.
    SessionStateRepo::wipe(&f.store, f.connection)
        .await
        .expect("wiped");
    assert_eq!(listed(&f.store, f.connection).await, []);
}

async fn a_full_sync_of_the_directory_is_one_apply(f: Fixture) {
    let counting = Arc::new(Counting {
        inner: f.store.clone(),
        applies: AtomicUsize::new(0),
        takes: AtomicUsize::new(0),
    });
    let b = WaBackend::new(counting.clone(), Fixture::cipher(), f.connection, f.token);
    let contacts: Vec<Sighting> = (0..5_000)
        .map(|i| {
            sighting(
                &format!("55119{i:08}"),
                None,
                &format!("Contact {i}"),
                NameSource::Book,
                1_000 + i64::from(i),
            )
        })
        .collect();
    assert_eq!(b.put_directory(&contacts).await.expect("written"), 5_000);
    assert_eq!(counting.applies.load(Ordering::SeqCst), 1);
    let chats = directory_chats(&f.store, f.connection)
        .await
        .expect("listed");
    assert_eq!(chats.len(), 5_000);
    assert_eq!(chats[0].number, "5511900000000");
    assert_eq!(chats[4_999].name, "Contact 4999");
    // The same sync again changes nothing and writes nothing.
    assert_eq!(b.put_directory(&contacts).await.expect("written"), 0);
    assert_eq!(counting.applies.load(Ordering::SeqCst), 1);
}
