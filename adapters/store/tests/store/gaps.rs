//! Gaps after an outage on both engines, through the use cases and the durable `checkGap` job:
//! an outage of two minutes or more becomes a gap once the connection is back; when the channel
//! says it caught up, each touched conversation with a message since the gap began asks the
//! phone (a recording provider stands in for WhatsApp) and the others get one notice line; the
//! phone's answer lands in its conversation as history, stored once; a short outage is no gap;
//! a deaf session's gap starts at the last message it heard; another company can neither see
//! nor dismiss a gap. The same stand-in phone answers profile lookups: a new ticket's contact
//! gets its picture by a job.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chatflow_core::identity::{Actor, Profile, UserFlags};
use chatflow_core::inbox::channel::{
    ChannelProvider, ChannelRegistry, HistoryChunk, HistoryRequest, InboundEvent, InboundMessage,
    Outbound,
};
use chatflow_core::inbox::gaps::{GapRepo, GapState};
use chatflow_core::inbox::model::{
    Connection, ConnectionStatus, MediaType, PageStart, ProviderKind, SessionReason, SessionUpdate,
};
use chatflow_core::inbox::ports::{ConnectionRepo, MessageRepo, TicketRepo};
use chatflow_core::ports::Clock;
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::{gaps, ingest};
use chatflow_core::{ErrorCode, Result, TenantScope, TicketId, UserId, WhatsappId};
use chatflow_store::Store;
use chatflow_system::ManualClock;
use chrono::{DateTime, TimeDelta, Utc};

use crate::store_tests;
use crate::support::{connection, two_companies};

store_tests!(
    an_outage_is_checked_once_caught_up_and_the_phones_answer_fills_the_gap,
    a_short_outage_is_no_gap,
    a_deaf_sessions_gap_starts_at_the_last_message_it_heard,
    another_company_can_neither_see_nor_dismiss_a_gap,
    a_new_tickets_contact_gets_its_picture,
    a_channel_that_never_says_it_caught_up_is_checked_two_minutes_after,
    a_conversation_the_phone_never_answers_for_gets_the_notice_after_five_minutes,
);

const ANA: &str = "5511911110000";
const BRUNO: &str = "5511922220000";

/// Stands in for the phone's channel: records the history requests.
struct Phone {
    kind: ProviderKind,
    asked: Mutex<Vec<HistoryRequest>>,
    /// How many profiles were looked up.
    profiles: AtomicUsize,
    /// The contacts' pictures are taken down.
    no_pictures: AtomicBool,
}

#[async_trait]
impl ChannelProvider for Phone {
    fn kind(&self) -> ProviderKind {
        self.kind
    }
    async fn start(&self, _: TenantScope, _: WhatsappId) -> Result<()> {
        Ok(())
    }
    async fn new_qr(&self, _: TenantScope, _: WhatsappId) -> Result<()> {
        Ok(())
    }
    async fn disconnect(&self, _: TenantScope, _: WhatsappId) -> Result<()> {
        Ok(())
    }
    async fn send(&self, _: TenantScope, _: &Outbound) -> Result<String> {
        Ok("sent".into())
    }
    async fn edit(&self, _: TenantScope, _: WhatsappId, _: &str, _: &str, _: &str) -> Result<()> {
        Ok(())
    }
    async fn delete(&self, _: TenantScope, _: WhatsappId, _: &str, _: &str) -> Result<()> {
        Ok(())
    }
    async fn react(
        &self,
        _: TenantScope,
        _: WhatsappId,
        _: &str,
        _: &str,
        _: bool,
        _: &str,
    ) -> Result<()> {
        Ok(())
    }
    async fn mark_read(
        &self,
        _: TenantScope,
        _: WhatsappId,
        _: &str,
        _: &[chatflow_core::inbox::channel::ReadMessage],
    ) -> Result<()> {
        Ok(())
    }
    async fn profile(
        &self,
        _: TenantScope,
        _: WhatsappId,
        number: &str,
    ) -> Result<Option<chatflow_core::inbox::channel::ChannelProfile>> {
        self.profiles.fetch_add(1, Ordering::SeqCst);
        if self.no_pictures.load(Ordering::SeqCst) {
            return Ok(None);
        }
        Ok(Some(chatflow_core::inbox::channel::ChannelProfile {
            number: number.into(),
            name: String::new(),
            profile_pic_url: format!("https://pps.example/{number}.jpg"),
        }))
    }
    async fn request_history(
        &self,
        _: TenantScope,
        _: WhatsappId,
        request: &HistoryRequest,
    ) -> Result<()> {
        self.asked
            .lock()
            .expect("not poisoned")
            .push(request.clone());
        Ok(())
    }
}

fn admin(scope: TenantScope) -> Actor {
    Actor {
        user_id: UserId(0),
        company_id: scope.company_id(),
        profile: Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    }
}

struct Setup {
    ports: Ports,
    clock: ManualClock,
    phone: Arc<Phone>,
    scope: TenantScope,
    other: TenantScope,
    c: WhatsappId,
}

async fn setup(store: &Store) -> Setup {
    let (scope, other) = two_companies(store).await;
    let c = WhatsappId(connection(store, scope, "Main").await);
    let kind = get(store, scope, c).await.provider;
    let clock = ManualClock::starting_now();
    let phone = Arc::new(Phone {
        kind,
        asked: Mutex::new(Vec::new()),
        profiles: AtomicUsize::new(0),
        no_pictures: AtomicBool::new(false),
    });
    let mut ports = crate::support::ports_on(
        store,
        Arc::new(clock.clone()),
        Arc::new(chatflow_system::LogMailer),
    );
    ports.channels = ChannelRegistry::default().with(phone.clone());
    let setup = Setup {
        ports,
        clock,
        phone,
        scope,
        other,
        c,
    };
    setup.session(ConnectionStatus::Connected, None).await;
    setup
}

impl Setup {
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    async fn session(&self, status: ConnectionStatus, reason: Option<SessionReason>) {
        let update = SessionUpdate {
            status,
            qrcode: String::new(),
            retries: 0,
            number: Some("5511900000000".into()),
            pairing_code: None,
            reason,
            until: None,
        };
        ingest::deliver(
            &self.ports,
            self.scope,
            self.c,
            InboundEvent::Session(update),
        )
        .await
        .expect("the session is recorded");
    }

    async fn deliver(&self, event: InboundEvent) {
        ingest::deliver(&self.ports, self.scope, self.c, event)
            .await
            .expect("delivered");
    }

    async fn message(&self, id: &str, chat: &str, body: &str, at: DateTime<Utc>) {
        self.deliver(InboundEvent::Message(text(id, chat, body, at)))
            .await;
    }

    /// Runs the jobs due now until none is; answers how many gap checks ran.
    async fn run_jobs(&self) -> usize {
        let mut checks = 0;
        for _ in 0..100 {
            let claimed = self
                .ports
                .jobs
                .claim_due(self.now(), TimeDelta::seconds(60), 10)
                .await
                .expect("claimed");
            if claimed.is_empty() {
                return checks;
            }
            for job in claimed {
                if matches!(
                    job.payload,
                    chatflow_core::jobs::JobPayload::CheckGap { .. }
                ) {
                    checks += 1;
                }
                let outcome = chatflow_core::service::jobs::run(&self.ports, &job).await;
                chatflow_core::service::jobs::settle(&self.ports, &job, &outcome)
                    .await
                    .expect("settled");
                outcome.expect("the job ran");
            }
        }
        panic!("the jobs never settled");
    }
}

fn text(id: &str, chat: &str, body: &str, at: DateTime<Utc>) -> InboundMessage {
    InboundMessage {
        external_id: id.into(),
        chat: chat.into(),
        chat_name: "Contato".into(),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.into(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: at,
        aliases: Vec::new(),
        media_failed: None,
    }
}

async fn get(store: &Store, scope: TenantScope, c: WhatsappId) -> Connection {
    ConnectionRepo::get(store, scope, c)
        .await
        .expect("read")
        .expect("the connection")
}

/// The ticket of `number` on the company.
async fn ticket_of(store: &Store, scope: TenantScope, number: &str) -> TicketId {
    let company = scope.company_id().0;
    let id: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar(
            "SELECT t.id FROM tickets t JOIN contacts c ON c.id = t.contact_id \
             WHERE t.company_id = $1 AND c.number = $2 ORDER BY t.id LIMIT 1",
        )
        .bind(company)
        .bind(number)
        .fetch_one(p)
        .await
        .expect("the ticket")
    });
    TicketId(id)
}

/// (kind, body, time) of a ticket's messages as the conversation lists them.
async fn conversation(
    store: &Store,
    scope: TenantScope,
    ticket: TicketId,
) -> Vec<(MediaType, String, DateTime<Utc>)> {
    MessageRepo::list(store, scope, ticket, &PageStart::First, 100)
        .await
        .expect("messages")
        .items
        .into_iter()
        .map(|m| (m.media_type, m.body, m.created_at))
        .collect()
}

async fn an_outage_is_checked_once_caught_up_and_the_phones_answer_fills_the_gap(store: Store) {
    let s = setup(&store).await;
    let t0 = s.now();
    s.message("a1", ANA, "oi", t0).await;
    s.message("b1", BRUNO, "bom dia", t0).await;
    let (ana, bruno) = (
        ticket_of(&store, s.scope, ANA).await,
        ticket_of(&store, s.scope, BRUNO).await,
    );

    // Down for ten minutes.
    s.clock.advance(TimeDelta::minutes(1));
    let down = s.now();
    s.session(ConnectionStatus::Opening, Some(SessionReason::Reconnecting))
        .await;
    assert_eq!(get(&store, s.scope, s.c).await.down_since, Some(down));
    s.clock.advance(TimeDelta::minutes(10));
    let back = s.now();
    s.session(ConnectionStatus::Connected, None).await;
    let connection = get(&store, s.scope, s.c).await;
    assert_eq!(connection.down_since, None);
    let gap = connection.last_gap.expect("a gap");
    assert_eq!(
        (gap.from, gap.to, gap.state),
        (down, back, GapState::Waiting)
    );
    assert_eq!(
        s.run_jobs().await,
        0,
        "nothing is checked before the queue is in"
    );

    // The queue drains: Ana's next message arrives, then the channel says it caught up.
    s.message("a3", ANA, "alguém aí?", back).await;
    s.deliver(InboundEvent::CaughtUp).await;
    assert_eq!(
        get(&store, s.scope, s.c).await.last_gap.map(|g| g.state),
        Some(GapState::Checking)
    );
    assert_eq!(s.run_jobs().await, 1);

    let asked = s.phone.asked.lock().expect("not poisoned").clone();
    assert_eq!(
        asked.len(),
        1,
        "only Ana's conversation has an anchor: {asked:?}"
    );
    assert_eq!(
        (asked[0].chat.as_str(), asked[0].anchor_external_id.as_str()),
        (ANA, "a3")
    );
    assert_eq!(asked[0].anchor_time, back);
    let noted = conversation(&store, s.scope, bruno).await;
    assert_eq!(noted.len(), 2, "Bruno's message and the notice: {noted:?}");
    assert_eq!(noted[1].0, MediaType::Gap);
    assert_eq!(noted[1].2, down, "the notice sits where the gap began");
    assert_eq!(noted[1].1, chatflow_core::inbox::gaps::interval(down, back));
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("the gap");
    let checked_at = s.now();
    assert_eq!(
        (gap.state, gap.fetched, gap.noted, gap.answer_by),
        (
            GapState::Asked,
            1,
            1,
            Some(checked_at + TimeDelta::minutes(5))
        ),
        "waiting for the phone's answer"
    );

    // Checking again (a retry after a crash) asks nothing more and writes no second notice.
    gaps::check(&s.ports, s.scope, gap.id)
        .await
        .expect("checked again");
    assert_eq!(conversation(&store, s.scope, bruno).await.len(), 2);
    assert_eq!(s.phone.asked.lock().expect("not poisoned").len(), 1);

    // The phone answers with what Ana sent while the connection was down, and one we have.
    let lost_at = down + TimeDelta::minutes(3);
    s.deliver(InboundEvent::History(HistoryChunk {
        messages: vec![
            text("a2", ANA, "perdida", lost_at),
            text("a1", ANA, "oi", t0),
        ],
        progress: None,
        on_demand: true,
    }))
    .await;
    let filled = conversation(&store, s.scope, ana).await;
    let bodies: Vec<(&str, DateTime<Utc>)> =
        filled.iter().map(|(_, b, at)| (b.as_str(), *at)).collect();
    assert_eq!(
        bodies,
        vec![("oi", t0), ("perdida", lost_at), ("alguém aí?", back)],
        "the lost message in its place, the known one once"
    );
    let ticket = TicketRepo::get(&store, s.scope, ana)
        .await
        .expect("read")
        .expect("Ana's ticket");
    assert_eq!(
        ticket.last_message, "alguém aí?",
        "the preview stays the newest"
    );
    assert_eq!(ticket.unread_messages, 2, "history adds nothing unread");
    // The phone answered for every conversation asked: the gap is checked at once, and the
    // end of the wait adds no notice.
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("the gap");
    assert_eq!(
        (gap.state, gap.fetched, gap.noted, gap.answer_by),
        (GapState::Checked, 1, 1, None)
    );
    s.clock.advance(TimeDelta::minutes(5));
    assert_eq!(
        s.run_jobs().await,
        2,
        "the fallback check and the end of the wait"
    );
    assert_eq!(conversation(&store, s.scope, ana).await.len(), 3);
    assert_eq!(conversation(&store, s.scope, bruno).await.len(), 2);

    gaps::dismiss(&s.ports, &admin(s.scope), s.c)
        .await
        .expect("dismissed");
    assert_eq!(get(&store, s.scope, s.c).await.last_gap, None);
}

async fn a_short_outage_is_no_gap(store: Store) {
    let s = setup(&store).await;
    s.session(ConnectionStatus::Opening, None).await;
    s.clock.advance(TimeDelta::seconds(90));
    s.session(ConnectionStatus::Connected, None).await;
    s.deliver(InboundEvent::CaughtUp).await;
    let connection = get(&store, s.scope, s.c).await;
    assert_eq!((connection.down_since, connection.last_gap), (None, None));
    assert_eq!(s.run_jobs().await, 0);
}

async fn a_deaf_sessions_gap_starts_at_the_last_message_it_heard(store: Store) {
    let s = setup(&store).await;
    let heard = s.now();
    s.message("a1", ANA, "oi", heard).await;
    s.clock.advance(TimeDelta::hours(2));
    s.session(ConnectionStatus::Opening, Some(SessionReason::Deaf))
        .await;
    assert_eq!(get(&store, s.scope, s.c).await.down_since, Some(heard));
    s.clock.advance(TimeDelta::seconds(10));
    s.session(ConnectionStatus::Connected, None).await;
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("a gap");
    assert_eq!(gap.from, heard);
}

async fn another_company_can_neither_see_nor_dismiss_a_gap(store: Store) {
    let s = setup(&store).await;
    s.session(ConnectionStatus::Opening, None).await;
    s.clock.advance(TimeDelta::minutes(5));
    s.session(ConnectionStatus::Connected, None).await;
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("a gap");

    let error = gaps::dismiss(&s.ports, &admin(s.other), s.c)
        .await
        .expect_err("not the other company's");
    assert_eq!(error.code, ErrorCode::ERR_NO_WAPP_FOUND);
    assert_eq!(
        GapRepo::get(&store, s.other, gap.id).await.expect("read"),
        None
    );
    assert!(
        GapRepo::affected(&store, s.other, s.c, &gap)
            .await
            .expect("read")
            .is_empty()
    );
    assert!(
        !GapRepo::dismiss(&store, s.other, s.c)
            .await
            .expect("dismiss")
    );
    assert!(
        get(&store, s.scope, s.c).await.last_gap.is_some(),
        "still there"
    );
}

async fn a_new_tickets_contact_gets_its_picture(store: Store) {
    let s = setup(&store).await;
    s.message("a1", ANA, "oi", s.now()).await;
    let ticket = ticket_of(&store, s.scope, ANA).await;
    let picture = |store: &Store| {
        let scope = s.scope;
        let store = store.clone();
        async move {
            TicketRepo::get(&store, scope, ticket)
                .await
                .expect("read")
                .expect("the ticket")
                .contact
                .url_picture
        }
    };
    assert_eq!(
        picture(&store).await,
        None,
        "looked up off the message's path"
    );
    s.run_jobs().await;
    assert_eq!(
        picture(&store).await.as_deref(),
        Some("https://pps.example/5511911110000.jpg")
    );
    assert_eq!(s.phone.profiles.load(Ordering::SeqCst), 1);

    // A new ticket the same day asks nothing; one a day later asks again, and a picture taken
    // down (or hidden) is dropped, as its address would have expired.
    let close = |store: &Store| {
        let store = store.clone();
        async move {
            chatflow_store::on_pool!(store.pool(), |p| {
                sqlx::query("UPDATE tickets SET status = 'closed' WHERE status <> 'closed'")
                    .execute(p)
                    .await
                    .expect("closed");
            })
        }
    };
    close(&store).await;
    s.clock.advance(TimeDelta::hours(2));
    s.message("a2", ANA, "de novo", s.now()).await;
    s.run_jobs().await;
    assert_eq!(
        s.phone.profiles.load(Ordering::SeqCst),
        1,
        "looked up today"
    );
    close(&store).await;
    s.phone.no_pictures.store(true, Ordering::SeqCst);
    s.clock.advance(TimeDelta::hours(23));
    s.message("a3", ANA, "oi outra vez", s.now()).await;
    s.run_jobs().await;
    assert_eq!(s.phone.profiles.load(Ordering::SeqCst), 2, "a day later");
    assert_eq!(picture(&store).await, None);
}

async fn a_channel_that_never_says_it_caught_up_is_checked_two_minutes_after(store: Store) {
    let s = setup(&store).await;
    s.message("b1", BRUNO, "bom dia", s.now()).await;
    s.clock.advance(TimeDelta::minutes(1));
    s.session(ConnectionStatus::Opening, None).await;
    s.clock.advance(TimeDelta::minutes(10));
    s.session(ConnectionStatus::Connected, None).await;
    s.clock.advance(TimeDelta::seconds(119));
    assert_eq!(
        s.run_jobs().await,
        0,
        "the channel may still say it caught up"
    );
    s.clock.advance(TimeDelta::seconds(1));
    assert_eq!(s.run_jobs().await, 1);
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("the gap");
    assert_eq!(
        (gap.state, gap.fetched, gap.noted),
        (GapState::Checked, 0, 1)
    );
    // Saying it caught up later checks nothing again.
    s.deliver(InboundEvent::CaughtUp).await;
    assert_eq!(s.run_jobs().await, 0);
    let bruno = ticket_of(&store, s.scope, BRUNO).await;
    assert_eq!(
        conversation(&store, s.scope, bruno).await.len(),
        2,
        "one notice"
    );
}

async fn a_conversation_the_phone_never_answers_for_gets_the_notice_after_five_minutes(
    store: Store,
) {
    let s = setup(&store).await;
    s.message("a1", ANA, "oi", s.now()).await;
    s.message("b1", BRUNO, "bom dia", s.now()).await;
    let (ana, bruno) = (
        ticket_of(&store, s.scope, ANA).await,
        ticket_of(&store, s.scope, BRUNO).await,
    );
    s.clock.advance(TimeDelta::minutes(1));
    let down = s.now();
    s.session(ConnectionStatus::Opening, Some(SessionReason::Reconnecting))
        .await;
    s.clock.advance(TimeDelta::minutes(10));
    let back = s.now();
    s.session(ConnectionStatus::Connected, None).await;
    // Both write once the connection is back: both conversations are asked for.
    s.message("a2", ANA, "alguém aí?", back).await;
    s.message("b2", BRUNO, "olá?", back).await;
    s.deliver(InboundEvent::CaughtUp).await;
    assert_eq!(s.run_jobs().await, 1);
    assert_eq!(s.phone.asked.lock().expect("not poisoned").len(), 2);
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("the gap");
    assert_eq!((gap.state, gap.fetched, gap.noted), (GapState::Asked, 2, 0));

    // The phone answers for Ana only (with a message we have: the answer still counts).
    s.deliver(InboundEvent::History(HistoryChunk {
        messages: vec![text("a1", ANA, "oi", down - TimeDelta::minutes(1))],
        progress: None,
        on_demand: true,
    }))
    .await;
    assert_eq!(
        get(&store, s.scope, s.c).await.last_gap.map(|g| g.state),
        Some(GapState::Asked),
        "Bruno's conversation is still waited for"
    );

    // The fallback check (two minutes after the connection was back) comes before the wait
    // is over: it leaves the gap alone.
    s.clock.advance(TimeDelta::minutes(4));
    assert_eq!(s.run_jobs().await, 1, "the fallback check");
    assert_eq!(conversation(&store, s.scope, bruno).await.len(), 2);
    s.clock.advance(TimeDelta::minutes(1));
    assert_eq!(s.run_jobs().await, 1, "the end of the wait");
    let noted = conversation(&store, s.scope, bruno).await;
    assert_eq!(noted.len(), 3, "Bruno's messages and the notice: {noted:?}");
    assert!(noted.iter().any(|(kind, body, at)| *kind == MediaType::Gap
        && *at == down
        && *body == chatflow_core::inbox::gaps::interval(down, back)));
    assert!(
        conversation(&store, s.scope, ana)
            .await
            .iter()
            .all(|(kind, ..)| *kind != MediaType::Gap),
        "Ana's conversation was answered for"
    );
    let gap = get(&store, s.scope, s.c).await.last_gap.expect("the gap");
    assert_eq!(
        (gap.state, gap.fetched, gap.noted, gap.answer_by),
        (GapState::Checked, 2, 1, None)
    );
    // Checking again (a retry after a crash) writes no second notice.
    gaps::check(&s.ports, s.scope, gap.id)
        .await
        .expect("checked again");
    assert_eq!(conversation(&store, s.scope, bruno).await.len(), 3);
}
