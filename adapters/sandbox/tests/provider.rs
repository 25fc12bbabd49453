//! The sandbox provider against an in-memory repository and a recording sink: pairing (QR
//! renewal, timeout, scan, reconnect when paired), linking by pair code (the code shown, typed
//! right or wrong, replaced, expired), sending with acks, and inbound delivery that only
//! acknowledges what the sink accepted.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{
    ChannelProvider, HistoryRequest, InboundEvent, InboundMessage, InboundSink, Outbound,
    OutboundContent,
};
use chatflow_core::inbox::model::{ConnectionStatus, ProviderKind, SessionReason, SessionUpdate};
use chatflow_core::inbox::sandbox::{
    SandboxChange, SandboxChat, SandboxInbound, SandboxPairing, SandboxReceived, SandboxRepo,
};
use chatflow_core::ports::IdGenerator;
use chatflow_core::{CompanyId, ErrorCode, Result, TenantScope, WhatsappId};
use chatflow_sandbox::{
    PAIR_CODE_ALPHABET, PAIR_CODE_LEN, PhoneAct, PhoneMessage, SandboxConfig, SandboxProvider,
    display_pair_code,
};
use chrono::Utc;

const COMPANY: CompanyId = CompanyId(1);
const CONNECTION: WhatsappId = WhatsappId(7);

fn scope() -> TenantScope {
    TenantScope::new(COMPANY)
}

/// Ids that count up, so every nonce (and every pair code) differs.
#[derive(Default)]
struct Counter(Mutex<u64>);

impl IdGenerator for Counter {
    fn uuid(&self) -> uuid::Uuid {
        let mut n = self.0.lock().expect("lock");
        *n += 1;
        // The count in the first bytes, where a pair code is drawn from.
        uuid::Uuid::from_u128(u128::from(*n) << 96)
    }
    fn token(&self, len: usize) -> String {
        let mut n = self.0.lock().expect("lock");
        *n += 1;
        format!("{:0>len$}", *n)
    }
    fn digits(&self, len: usize) -> String {
        "1".repeat(len)
    }
}

/// The sandbox's tables in memory (one company; `connected` stands for the connection's
/// stored status).
#[derive(Default)]
struct Memory {
    pairing: Mutex<Option<SandboxPairing>>,
    inbound: Mutex<Vec<SandboxInbound>>,
    received: Mutex<Vec<SandboxReceived>>,
    connected: Mutex<bool>,
    /// The ids of inbound rows the network lost.
    lost: Mutex<Vec<i64>>,
}

#[async_trait]
impl SandboxRepo for Memory {
    async fn begin_pairing(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        nonce: &str,
        reset: bool,
    ) -> Result<SandboxPairing> {
        let mut pairing = self.pairing.lock().expect("lock");
        let paired = !reset && pairing.as_ref().is_some_and(|p| p.paired);
        let pair_number = pairing
            .as_ref()
            .filter(|_| paired)
            .and_then(|p| p.pair_number.clone());
        let next = SandboxPairing {
            whatsapp_id: connection,
            nonce: nonce.to_owned(),
            paired,
            pair_code: None,
            pair_number,
            updated_at: Utc::now(),
        };
        *pairing = Some(next.clone());
        Ok(next)
    }
    async fn pairing(&self, _: TenantScope, _: WhatsappId) -> Result<Option<SandboxPairing>> {
        Ok(self.pairing.lock().expect("lock").clone())
    }
    async fn mark_scanned(&self, _: TenantScope, _: WhatsappId) -> Result<bool> {
        let mut pairing = self.pairing.lock().expect("lock");
        Ok(match pairing.as_mut() {
            Some(p) => {
                p.paired = true;
                p.pair_code = None;
                p.pair_number = None;
                true
            }
            None => false,
        })
    }
    async fn show_pair_code(
        &self,
        _: TenantScope,
        _: WhatsappId,
        code: &str,
        number: &str,
    ) -> Result<bool> {
        let mut pairing = self.pairing.lock().expect("lock");
        Ok(match pairing.as_mut() {
            Some(p) if !p.paired => {
                p.pair_code = Some(code.to_owned());
                p.pair_number = Some(number.to_owned());
                true
            }
            _ => false,
        })
    }
    async fn confirm_pair_code(&self, _: TenantScope, _: WhatsappId, code: &str) -> Result<bool> {
        let mut pairing = self.pairing.lock().expect("lock");
        Ok(match pairing.as_mut() {
            Some(p) if !p.paired && p.pair_code.as_deref() == Some(code) => {
                p.paired = true;
                p.pair_code = None;
                true
            }
            _ => false,
        })
    }
    async fn unpair(&self, _: TenantScope, _: WhatsappId) -> Result<()> {
        *self.pairing.lock().expect("lock") = None;
        Ok(())
    }
    async fn push_inbound(
        &self,
        _: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
    ) -> Result<Option<i64>> {
        let mut rows = self.inbound.lock().expect("lock");
        let id = rows.len() as i64 + 1;
        rows.push(SandboxInbound {
            id,
            company_id: COMPANY,
            whatsapp_id: connection,
            event: event.clone(),
            created_at: Utc::now(),
            delivered_at: None,
            attempts: 0,
            retry_at: None,
        });
        Ok(Some(id))
    }
    async fn push_lost(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        message: &InboundMessage,
    ) -> Result<Option<i64>> {
        let id = self
            .push_inbound(scope, connection, &InboundEvent::Message(message.clone()))
            .await?;
        self.lost.lock().expect("lock").extend(id);
        Ok(id)
    }
    async fn phone_history(
        &self,
        _: TenantScope,
        _: WhatsappId,
        chat: &str,
        anchor_external_id: &str,
        anchor_time: chrono::DateTime<Utc>,
        count: u32,
    ) -> Result<Vec<InboundMessage>> {
        let rows = self.inbound.lock().expect("lock");
        let messages: Vec<(i64, &InboundMessage)> = rows
            .iter()
            .filter_map(|r| match &r.event {
                InboundEvent::Message(m) if m.chat == chat => Some((r.id, m)),
                _ => None,
            })
            .collect();
        let anchor = messages
            .iter()
            .find(|(_, m)| m.external_id == anchor_external_id)
            .map(|(id, _)| *id);
        let before: Vec<InboundMessage> = messages
            .into_iter()
            .filter(|(id, m)| match anchor {
                Some(anchor) => *id < anchor,
                None => m.timestamp <= anchor_time && m.external_id != anchor_external_id,
            })
            .map(|(_, m)| m.clone())
            .collect();
        let skip = before.len().saturating_sub(count as usize);
        Ok(before.into_iter().skip(skip).collect())
    }
    async fn undelivered(&self, per_connection: u32) -> Result<Vec<SandboxInbound>> {
        if !*self.connected.lock().expect("lock") {
            return Ok(Vec::new());
        }
        let lost = self.lost.lock().expect("lock").clone();
        let mut taken: std::collections::HashMap<WhatsappId, u32> = Default::default();
        Ok(self
            .inbound
            .lock()
            .expect("lock")
            .iter()
            .filter(|r| r.delivered_at.is_none() && !lost.contains(&r.id))
            .filter(|r| {
                let n = taken.entry(r.whatsapp_id).or_default();
                *n += 1;
                *n <= per_connection
            })
            .cloned()
            .collect())
    }
    async fn mark_failed(
        &self,
        _: TenantScope,
        id: i64,
        attempts: i64,
        retry_at: chrono::DateTime<Utc>,
        _error: &str,
    ) -> Result<()> {
        for row in self.inbound.lock().expect("lock").iter_mut() {
            if row.id == id {
                row.attempts = attempts;
                row.retry_at = Some(retry_at);
            }
        }
        Ok(())
    }
    async fn prune_delivered(&self, before: chrono::DateTime<Utc>) -> Result<u64> {
        let mut rows = self.inbound.lock().expect("lock");
        let count = rows.len();
        rows.retain(|r| r.delivered_at.is_none_or(|at| at >= before));
        Ok((count - rows.len()) as u64)
    }
    async fn react_to_sent(&self, _: TenantScope, _: WhatsappId, _: &str, _: &str) -> Result<bool> {
        Ok(false)
    }
    async fn reaction_to_sent(
        &self,
        _: TenantScope,
        _: WhatsappId,
        _: &str,
    ) -> Result<Option<String>> {
        Ok(None)
    }
    async fn mark_delivered(&self, _: TenantScope, ids: &[i64]) -> Result<()> {
        for row in self.inbound.lock().expect("lock").iter_mut() {
            if ids.contains(&row.id) {
                row.delivered_at = Some(Utc::now());
            }
        }
        Ok(())
    }
    async fn record_received(
        &self,
        _: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        content: &OutboundContent,
        body: &str,
    ) -> Result<SandboxReceived> {
        if let Some(first) = self
            .received
            .lock()
            .expect("lock")
            .iter()
            .find(|r| r.whatsapp_id == connection && r.external_id == external_id)
        {
            return Ok(first.clone());
        }
        let row = SandboxReceived {
            id: 1,
            whatsapp_id: connection,
            to: to.to_owned(),
            external_id: external_id.to_owned(),
            content: content.clone(),
            body: body.to_owned(),
            ack: 1,
            deleted: false,
            reaction: String::new(),
            read_at: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        };
        self.received.lock().expect("lock").push(row.clone());
        Ok(row)
    }
    async fn set_ack(
        &self,
        _: TenantScope,
        _: WhatsappId,
        external_id: &str,
        ack: i64,
    ) -> Result<bool> {
        let mut rows = self.received.lock().expect("lock");
        let row = rows.iter_mut().find(|r| r.external_id == external_id);
        Ok(row.map(|r| r.ack = r.ack.max(ack)).is_some())
    }
    async fn report_acks(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        acks: &[(String, i64)],
    ) -> Result<usize> {
        let mut queued = 0;
        for (external_id, ack) in acks {
            let raised = {
                let mut rows = self.received.lock().expect("lock");
                match rows
                    .iter_mut()
                    .find(|r| &r.external_id == external_id && r.ack < *ack)
                {
                    Some(row) => {
                        row.ack = *ack;
                        true
                    }
                    None => false,
                }
            };
            if raised {
                let event = InboundEvent::Ack {
                    external_id: external_id.clone(),
                    ack: *ack,
                };
                self.push_inbound(scope, connection, &event).await?;
                queued += 1;
            }
        }
        Ok(queued)
    }
    async fn change_received(
        &self,
        _: TenantScope,
        _: WhatsappId,
        external_id: &str,
        change: &SandboxChange,
    ) -> Result<bool> {
        let mut rows = self.received.lock().expect("lock");
        let Some(row) = rows.iter_mut().find(|r| r.external_id == external_id) else {
            return Ok(false);
        };
        match change {
            SandboxChange::Edit(body) => row.body = body.clone(),
            SandboxChange::Delete => row.deleted = true,
            SandboxChange::React(emoji) => row.reaction = emoji.clone(),
        }
        Ok(true)
    }
    async fn mark_chat_read(&self, _: TenantScope, _: WhatsappId, _: &str) -> Result<()> {
        Ok(())
    }
    async fn received(
        &self,
        _: TenantScope,
        _: WhatsappId,
        _: Option<&str>,
    ) -> Result<Vec<SandboxReceived>> {
        Ok(self.received.lock().expect("lock").clone())
    }
    async fn phone_sent(
        &self,
        _: TenantScope,
        _: WhatsappId,
        chat: &str,
        external_id: &str,
    ) -> Result<bool> {
        Ok(self.inbound.lock().expect("lock").iter().any(|r| {
            matches!(&r.event, InboundEvent::Message(m) if m.chat == chat && m.external_id == external_id)
        }))
    }
    async fn chats(&self, _: TenantScope, _: WhatsappId) -> Result<Vec<SandboxChat>> {
        let mut chats: Vec<SandboxChat> = Vec::new();
        for row in self.inbound.lock().expect("lock").iter() {
            if let InboundEvent::Message(m) = &row.event {
                match chats.iter_mut().find(|c| c.number == m.chat) {
                    Some(chat) => chat.name = m.chat_name.clone(),
                    None => chats.push(SandboxChat {
                        number: m.chat.clone(),
                        name: m.chat_name.clone(),
                    }),
                }
            }
        }
        Ok(chats)
    }
}

/// Records what it is given; refuses messages while `refuse` is set.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<InboundEvent>>,
    refuse: Mutex<bool>,
}

impl Recorder {
    fn statuses(&self) -> Vec<(ConnectionStatus, i64)> {
        self.events
            .lock()
            .expect("lock")
            .iter()
            .filter_map(|e| match e {
                InboundEvent::Session(s) => Some((s.status, s.retries)),
                _ => None,
            })
            .collect()
    }
}

#[async_trait]
impl InboundSink for Recorder {
    async fn deliver(&self, _: TenantScope, _: WhatsappId, event: InboundEvent) -> Result<()> {
        if matches!(event, InboundEvent::Message(_)) && *self.refuse.lock().expect("lock") {
            return Err(ErrorCode::ERR_INTERNAL.into());
        }
        if let InboundEvent::Message(m) = &event
            && m.body.starts_with("stuck")
        {
            return Err(ErrorCode::ERR_INTERNAL.into());
        }
        self.events.lock().expect("lock").push(event);
        Ok(())
    }
}

/// The wall clock: these tests wait for the provider's own loop.
struct Wall;

impl chatflow_core::ports::Clock for Wall {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now()
    }
}

fn provider(config: SandboxConfig) -> (SandboxProvider, Arc<Memory>, Arc<Recorder>) {
    let memory = Arc::new(Memory::default());
    let sink = Arc::new(Recorder::default());
    let provider = SandboxProvider::new(
        memory.clone(),
        Arc::new(Counter::default()),
        Arc::new(Wall),
        config,
    );
    provider.attach_sink(sink.clone());
    (provider, memory, sink)
}

fn fast() -> SandboxConfig {
    SandboxConfig {
        qr_interval: Duration::from_millis(20),
        max_qr_codes: 3,
        pair_code_ttl: Duration::from_millis(20),
        ack_delay: Duration::from_millis(10),
        poll_interval: Duration::from_millis(10),
    }
}

#[tokio::test]
async fn unscanned_codes_are_renewed_then_time_out() {
    let (provider, _, sink) = provider(fast());
    assert_eq!(provider.kind(), ProviderKind::Sandbox);
    provider.start(scope(), CONNECTION).await.expect("started");
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(30)).await;
        provider.tick().await;
    }
    assert_eq!(
        sink.statuses(),
        vec![
            (ConnectionStatus::Opening, 0),
            (ConnectionStatus::Qrcode, 1),
            (ConnectionStatus::Qrcode, 2),
            (ConnectionStatus::Qrcode, 3),
            (ConnectionStatus::Timeout, 3),
        ]
    );
    let codes: Vec<String> = sink
        .events
        .lock()
        .expect("lock")
        .iter()
        .filter_map(|e| match e {
            InboundEvent::Session(s) if s.status == ConnectionStatus::Qrcode => {
                Some(s.qrcode.clone())
            }
            _ => None,
        })
        .collect();
    assert!(
        codes
            .iter()
            .all(|c| c.starts_with("data:image/svg+xml;base64,"))
    );
    assert_ne!(codes[0], codes[1], "each code has a new nonce");
    let timeout = last_session(&sink);
    assert_eq!(timeout.reason, Some(SessionReason::QrExhausted));
}

/// The last session update the sink received.
fn last_session(sink: &Recorder) -> SessionUpdate {
    sink.events
        .lock()
        .expect("lock")
        .iter()
        .rev()
        .find_map(|e| match e {
            InboundEvent::Session(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a session event")
}

/// Asks for a pair code for `phone`; returns the code the connection shows.
async fn ask_pair_code(provider: &SandboxProvider, sink: &Recorder, phone: &str) -> String {
    provider
        .request_pair_code(scope(), CONNECTION, phone)
        .await
        .expect("a pair code");
    let pairing = last_session(sink);
    assert_eq!(pairing.status, ConnectionStatus::Pairing);
    assert_eq!(pairing.qrcode, "");
    let code = pairing.pairing_code.expect("a code");
    assert_eq!(code.len(), PAIR_CODE_LEN, "{code}");
    assert!(
        code.bytes().all(|b| PAIR_CODE_ALPHABET.contains(&b)),
        "{code}"
    );
    code
}

#[tokio::test]
async fn a_typed_pair_code_connects_with_the_number_it_was_asked_for() {
    // QR codes expire at once, a pair code only in an hour: no waiting needed to see which
    // one the session shows.
    let (provider, _, sink) = provider(SandboxConfig {
        pair_code_ttl: Duration::from_secs(3600),
        qr_interval: Duration::ZERO,
        ..fast()
    });
    provider.start(scope(), CONNECTION).await.expect("started");
    let code = ask_pair_code(&provider, &sink, "5511988887777").await;

    // No QR code replaces the pair code while it waits to be typed (a QR code would have been
    // renewed by now).
    provider.tick().await;
    assert_eq!(last_session(&sink).status, ConnectionStatus::Pairing);

    // A wrong code, or something that is no code, is refused and connects nothing.
    let wrong = if code == "ZZZZZZZZ" {
        "YYYYYYYY"
    } else {
        "ZZZZZZZZ"
    };
    for typed in [wrong, "ABC", "OOOO-0000"] {
        let refused = provider
            .type_pair_code(scope(), CONNECTION, typed)
            .await
            .expect_err(typed);
        assert_eq!(refused.code, ErrorCode::ERR_VALIDATION, "{typed}");
        assert_eq!(refused.fields[0].field, "code");
        assert!(refused.detail.is_some());
    }
    assert_eq!(last_session(&sink).status, ConnectionStatus::Pairing);

    // The code as shown (XXXX-XXXX), in any case, connects with the number given.
    let typed = display_pair_code(&code).to_lowercase();
    provider
        .type_pair_code(scope(), CONNECTION, &typed)
        .await
        .expect("typed");
    let connected = last_session(&sink);
    assert_eq!(connected.status, ConnectionStatus::Connected);
    assert_eq!(connected.number.as_deref(), Some("5511988887777"));
    assert_eq!(connected.pairing_code, None);
    // Used up: typing it again is refused.
    let again = provider
        .type_pair_code(scope(), CONNECTION, &code)
        .await
        .expect_err("used");
    assert_eq!(again.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    // A restart reconnects with that number; a connected session asks for no code.
    provider
        .start(scope(), CONNECTION)
        .await
        .expect("restarted");
    let restarted = last_session(&sink);
    assert_eq!(restarted.status, ConnectionStatus::Connected);
    assert_eq!(restarted.number.as_deref(), Some("5511988887777"));
    let refused = provider
        .request_pair_code(scope(), CONNECTION, "5511988887777")
        .await
        .expect_err("connected");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    // A new QR code forgets the number: a scan connects with the sandbox's own.
    provider.new_qr(scope(), CONNECTION).await.expect("new QR");
    provider.scan(scope(), CONNECTION).await.expect("scanned");
    assert_eq!(last_session(&sink).number.as_deref(), Some("55000000007"));
}

#[tokio::test]
async fn a_pair_code_needs_a_pairing_session_is_replaced_and_expires() {
    // A pair code expires at once (at the next round), QR codes only in an hour.
    let (provider, _, sink) = provider(SandboxConfig {
        pair_code_ttl: Duration::ZERO,
        qr_interval: Duration::from_secs(3600),
        ..fast()
    });
    // Before the session starts there is nothing to link.
    let refused = provider
        .request_pair_code(scope(), CONNECTION, "5511988887777")
        .await
        .expect_err("no session");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    let refused = provider
        .type_pair_code(scope(), CONNECTION, "ABCD-EFGH")
        .await
        .expect_err("no code shown");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    provider.start(scope(), CONNECTION).await.expect("started");
    let first = ask_pair_code(&provider, &sink, "5511988887777").await;
    let second = ask_pair_code(&provider, &sink, "5511977776666").await;
    assert_ne!(first, second, "a new request shows a new code");
    let refused = provider
        .type_pair_code(scope(), CONNECTION, &first)
        .await
        .expect_err("replaced");
    assert_eq!(refused.code, ErrorCode::ERR_VALIDATION);

    // Untyped, the code expires: the session times out (no QR codes ran out) and the code
    // pairs nothing any more.
    provider.tick().await;
    let timeout = last_session(&sink);
    assert_eq!(timeout.status, ConnectionStatus::Timeout);
    assert_eq!(timeout.reason, None);
    let refused = provider
        .type_pair_code(scope(), CONNECTION, &second)
        .await
        .expect_err("expired");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
}

#[tokio::test]
async fn a_scan_connects_and_a_paired_phone_reconnects() {
    let (provider, _, sink) = provider(SandboxConfig::default());
    let refused = provider
        .scan(scope(), CONNECTION)
        .await
        .expect_err("not pairing");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    provider.start(scope(), CONNECTION).await.expect("started");
    provider.scan(scope(), CONNECTION).await.expect("scanned");
    let connected = sink
        .events
        .lock()
        .expect("lock")
        .iter()
        .rev()
        .find_map(|e| match e {
            InboundEvent::Session(s) => Some(s.clone()),
            _ => None,
        })
        .expect("a session event");
    assert_eq!(connected.status, ConnectionStatus::Connected);
    assert_eq!(connected.number.as_deref(), Some("55000000007"));

    // A restart of a paired connection skips the QR code.
    sink.events.lock().expect("lock").clear();
    provider
        .start(scope(), CONNECTION)
        .await
        .expect("restarted");
    assert_eq!(
        sink.statuses(),
        vec![
            (ConnectionStatus::Opening, 0),
            (ConnectionStatus::Connected, 0)
        ]
    );
    // A new QR forgets the pairing; disconnecting ends the session.
    sink.events.lock().expect("lock").clear();
    provider.new_qr(scope(), CONNECTION).await.expect("new QR");
    provider
        .disconnect(scope(), CONNECTION)
        .await
        .expect("disconnected");
    assert_eq!(
        sink.statuses(),
        vec![
            (ConnectionStatus::Opening, 0),
            (ConnectionStatus::Qrcode, 1),
            (ConnectionStatus::Disconnected, 0),
        ]
    );
}

#[tokio::test]
async fn sending_needs_a_session_and_acks_climb() {
    let (provider, memory, sink) = provider(fast());
    let message = Outbound {
        connection: CONNECTION,
        to: "5511".into(),
        content: OutboundContent::Text { body: "hi".into() },
        quoted_external_id: None,
        quoted: None,
        idempotency_key: None,
    };
    let refused = provider
        .send(scope(), &message)
        .await
        .expect_err("not connected");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    provider.start(scope(), CONNECTION).await.expect("started");
    provider.scan(scope(), CONNECTION).await.expect("scanned");
    let id = provider.send(scope(), &message).await.expect("sent");
    *memory.connected.lock().expect("lock") = true;
    let receipts = |sink: &Recorder| -> Vec<i64> {
        sink.events
            .lock()
            .expect("lock")
            .iter()
            .filter_map(|e| match e {
                InboundEvent::Ack { external_id, ack } if *external_id == id => Some(*ack),
                _ => None,
            })
            .collect()
    };
    // No background task here: the receipts reach the sink only through rounds (`tick`).
    let waiting = std::time::Instant::now();
    while receipts(&sink).len() < 2 && waiting.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(10)).await;
        provider.tick().await;
    }
    assert_eq!(receipts(&sink), vec![2, 3]);
    assert_eq!(memory.received.lock().expect("lock")[0].ack, 3);

    provider
        .edit(scope(), CONNECTION, "5511", &id, "hello")
        .await
        .expect("edited");
    provider
        .react(scope(), CONNECTION, "5511", &id, true, "👍")
        .await
        .expect("reacted");
    provider
        .delete(scope(), CONNECTION, "5511", &id)
        .await
        .expect("deleted");
    let unknown = provider
        .delete(scope(), CONNECTION, "5511", "nope")
        .await
        .expect_err("unknown");
    assert_eq!(unknown.code, ErrorCode::ERR_DELETE_WAPP_MSG);
    let row = memory.received.lock().expect("lock")[0].clone();
    assert_eq!(
        (row.body.as_str(), row.reaction.as_str(), row.deleted),
        ("hello", "👍", true)
    );
}

#[tokio::test]
async fn inbound_is_acknowledged_only_after_the_sink_accepted_it() {
    let (provider, memory, sink) = provider(fast());
    for text in ["one", "two"] {
        provider
            .phone_send(
                scope(),
                CONNECTION,
                &PhoneMessage {
                    from: "5511".into(),
                    body: text.into(),
                    ..PhoneMessage::default()
                },
            )
            .await
            .expect("queued");
    }
    *memory.connected.lock().expect("lock") = true;
    *sink.refuse.lock().expect("lock") = true;
    provider.tick().await;
    assert!(
        memory
            .inbound
            .lock()
            .expect("lock")
            .iter()
            .all(|r| r.delivered_at.is_none()),
        "a refused message stays queued"
    );
    {
        let rows = memory.inbound.lock().expect("lock");
        assert_eq!(rows[0].attempts, 1, "the failed attempt is counted");
        let wait = rows[0].retry_at.expect("a retry time") - Utc::now();
        assert!(wait > chrono::Duration::zero(), "{wait}");
        assert_eq!(rows[1].attempts, 0, "the rows behind it wait untried");
    }
    // Before its retry time nothing is tried again.
    *sink.refuse.lock().expect("lock") = false;
    provider.tick().await;
    assert!(
        memory
            .inbound
            .lock()
            .expect("lock")
            .iter()
            .all(|r| r.delivered_at.is_none())
    );
    // Once it has come, the queue drains in order.
    for row in memory.inbound.lock().expect("lock").iter_mut() {
        row.retry_at = row.retry_at.map(|_| Utc::now());
    }
    let task = provider.spawn();
    provider.wake();
    tokio::time::sleep(Duration::from_millis(100)).await;
    task.abort();
    let bodies: Vec<String> = sink
        .events
        .lock()
        .expect("lock")
        .iter()
        .filter_map(|e| match e {
            InboundEvent::Message(m) => Some(m.body.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(bodies, vec!["one", "two"], "in order, once each");
    assert!(
        memory
            .inbound
            .lock()
            .expect("lock")
            .iter()
            .all(|r| r.delivered_at.is_some())
    );
}

#[tokio::test]
async fn a_backlog_drains_round_after_round_without_waiting_for_the_poll() {
    // A poll so slow that only draining again at once can empty the queue within the test.
    let (sandbox, repo, sink) = provider(SandboxConfig {
        poll_interval: Duration::from_secs(3600),
        ..fast()
    });
    let total = 3 * chatflow_sandbox::DRAIN_PER_CONNECTION as usize + 7;
    for n in 0..total {
        let message = PhoneMessage {
            from: format!("55119{:08}", n),
            name: format!("Cliente {n}"),
            body: format!("mensagem {n}"),
            ..PhoneMessage::default()
        };
        sandbox
            .phone_send(scope(), CONNECTION, &message)
            .await
            .expect("queued");
    }
    // The phones wrote while the connection was down (a backlog); it comes back.
    *repo.connected.lock().expect("lock") = true;
    let task = sandbox.spawn();
    sandbox.wake();
    let delivered = || {
        sink.events
            .lock()
            .expect("lock")
            .iter()
            .filter(|e| matches!(e, InboundEvent::Message(_)))
            .count()
    };
    for _ in 0..500 {
        if delivered() == total {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    task.abort();
    assert_eq!(
        delivered(),
        total,
        "every round after a full one starts at once"
    );
    assert!(
        repo.inbound
            .lock()
            .expect("lock")
            .iter()
            .all(|r| r.delivered_at.is_some())
    );
}

#[tokio::test]
async fn phones_change_only_their_own_messages() {
    let (sandbox, repo, sink) = provider(fast());
    *repo.connected.lock().expect("lock") = true;
    let sent = sandbox
        .phone_send(
            scope(),
            CONNECTION,
            &PhoneMessage {
                from: "5511999990001".into(),
                name: "Maria".into(),
                body: "oi".into(),
                ..PhoneMessage::default()
            },
        )
        .await
        .expect("queued");
    let edit = |from: &str| PhoneAct::Edit {
        from: from.into(),
        external_id: sent.clone(),
        body: "olá".into(),
    };
    // Another phone may not edit, delete or react to Maria's message.
    for act in [
        edit("5511999990002"),
        PhoneAct::Delete {
            from: "5511999990002".into(),
            external_id: sent.clone(),
        },
        PhoneAct::React {
            from: "5511999990002".into(),
            external_id: sent.clone(),
            emoji: "👍".into(),
        },
    ] {
        let refused = sandbox
            .phone_act(scope(), CONNECTION, &act)
            .await
            .expect_err("not its message");
        assert_eq!(refused.code, ErrorCode::ERR_NOT_FOUND);
    }
    assert_eq!(
        sandbox
            .phone_act(scope(), CONNECTION, &edit("5511999990001"))
            .await
            .expect("her own message"),
        sent
    );
    sandbox
        .phone_act(
            scope(),
            CONNECTION,
            &PhoneAct::Call {
                from: "5511999990001".into(),
                name: "Maria".into(),
            },
        )
        .await
        .expect("a call");
    sandbox.tick().await;
    let kinds: Vec<&'static str> = sink
        .events
        .lock()
        .expect("lock")
        .iter()
        .map(|e| match e {
            InboundEvent::Message(_) => "message",
            InboundEvent::Edit { .. } => "edit",
            InboundEvent::MissedCall { .. } => "call",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["message", "edit", "call"]);
    let chats = sandbox
        .list_chats(scope(), CONNECTION)
        .await
        .expect("chats");
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].name, "Maria");
    let profile = sandbox
        .profile(scope(), CONNECTION, "5511999990001")
        .await
        .expect("asked")
        .expect("known");
    assert_eq!(profile.name, "Maria");
    assert_eq!(
        sandbox
            .profile(scope(), CONNECTION, "5511000000000")
            .await
            .expect("asked"),
        None
    );
}

#[tokio::test]
async fn a_failing_connection_does_not_hold_the_others_up() {
    let (provider, memory, sink) = provider(fast());
    let other = WhatsappId(8);
    for (connection, text) in [
        (CONNECTION, "stuck"),
        (CONNECTION, "behind"),
        (other, "first"),
        (other, "second"),
    ] {
        provider
            .phone_send(
                scope(),
                connection,
                &PhoneMessage {
                    from: "5511".into(),
                    body: text.into(),
                    ..PhoneMessage::default()
                },
            )
            .await
            .expect("queued");
    }
    *memory.connected.lock().expect("lock") = true;
    provider.tick().await;
    provider.tick().await;
    let bodies: Vec<String> = sink
        .events
        .lock()
        .expect("lock")
        .iter()
        .filter_map(|e| match e {
            InboundEvent::Message(m) => Some(m.body.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(bodies, vec!["first", "second"]);
    let rows = memory.inbound.lock().expect("lock");
    assert_eq!(
        rows[0].attempts, 1,
        "tried once, then waiting for its retry time"
    );
    assert!(
        rows[1].delivered_at.is_none(),
        "order within a connection is kept"
    );
}

/// What the sink received since the last clear: messages by body, `caughtUp`, history answers
/// (with their bodies) and session statuses.
fn received_kinds(sink: &Recorder) -> Vec<String> {
    sink.events
        .lock()
        .expect("lock")
        .iter()
        .map(|e| match e {
            InboundEvent::Message(m) => format!("message {}", m.body),
            InboundEvent::CaughtUp => "caughtUp".to_owned(),
            InboundEvent::History(chunk) => format!(
                "history{} {}",
                if chunk.on_demand { " on demand" } else { "" },
                chunk
                    .messages
                    .iter()
                    .map(|m| m.body.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            InboundEvent::Session(s) => format!("session {:?}", s.status),
            other => format!("{other:?}"),
        })
        .collect()
}

async fn phone_says(provider: &SandboxProvider, body: &str, lost: bool) -> String {
    provider
        .phone_send(
            scope(),
            CONNECTION,
            &PhoneMessage {
                from: "5511".into(),
                body: body.into(),
                lost,
                ..PhoneMessage::default()
            },
        )
        .await
        .expect("queued")
}

#[tokio::test]
async fn a_dropped_session_catches_up_after_its_backlog_and_answers_history() {
    let (provider, memory, sink) = provider(fast());
    provider.start(scope(), CONNECTION).await.expect("started");
    provider.scan(scope(), CONNECTION).await.expect("scanned");
    *memory.connected.lock().expect("lock") = true;
    phone_says(&provider, "before", false).await;
    provider.tick().await;
    assert_eq!(
        received_kinds(&sink)[2..],
        ["session Connected", "message before", "caughtUp"],
        "a session says it caught up once what was queued is delivered"
    );
    let again = provider
        .reconnect(scope(), CONNECTION)
        .await
        .expect_err("not dropped");
    assert_eq!(again.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    // The network drops the session: it stays paired, sends nothing, delivers nothing.
    sink.events.lock().expect("lock").clear();
    provider
        .drop_connection(scope(), CONNECTION)
        .await
        .expect("dropped");
    *memory.connected.lock().expect("lock") = false;
    let dropped = last_session(&sink);
    assert_eq!(dropped.status, ConnectionStatus::Opening);
    assert_eq!(dropped.reason, Some(SessionReason::Reconnecting));
    let lost = phone_says(&provider, "lost on the way", true).await;
    let after = phone_says(&provider, "after", false).await;
    provider.tick().await;
    assert_eq!(received_kinds(&sink), ["session Opening"]);
    let refused = provider
        .request_history(
            scope(),
            CONNECTION,
            &HistoryRequest {
                chat: "5511".into(),
                is_group: false,
                anchor_external_id: after.clone(),
                anchor_from_me: false,
                anchor_time: Utc::now(),
                count: 50,
            },
        )
        .await
        .expect_err("a dropped session cannot ask the phone");
    assert_eq!(refused.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    // Back: the live backlog (never the lost message), then "caught up".
    sink.events.lock().expect("lock").clear();
    provider
        .reconnect(scope(), CONNECTION)
        .await
        .expect("reconnected");
    assert_eq!(
        last_session(&sink).number.as_deref(),
        Some("55000000007"),
        "the same number"
    );
    *memory.connected.lock().expect("lock") = true;
    provider.tick().await;
    provider.tick().await;
    assert_eq!(
        received_kinds(&sink),
        ["session Connected", "message after", "caughtUp"]
    );

    // Asked for the messages before `after`, the phone answers later, lost one included; at
    // most `count`.
    sink.events.lock().expect("lock").clear();
    let mut request = HistoryRequest {
        chat: "5511".into(),
        is_group: false,
        anchor_external_id: after.clone(),
        anchor_from_me: false,
        anchor_time: Utc::now(),
        count: 50,
    };
    provider
        .request_history(scope(), CONNECTION, &request)
        .await
        .expect("asked");
    assert!(received_kinds(&sink).is_empty(), "the answer comes later");
    provider.tick().await;
    request.count = 1;
    provider
        .request_history(scope(), CONNECTION, &request)
        .await
        .expect("asked");
    provider.tick().await;
    assert_eq!(
        received_kinds(&sink),
        [
            "history on demand before,lost on the way",
            "history on demand lost on the way"
        ]
    );
    let InboundEvent::History(chunk) = &sink.events.lock().expect("lock")[1] else {
        panic!("a history answer")
    };
    assert_eq!(chunk.messages[0].external_id, lost);
}
