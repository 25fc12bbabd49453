//! Schedules on both engines: a schedule is stored with its send job and its event in one
//! transaction, edits and sends move the revision so older jobs are harmless, a recorded send
//! queues the next one, and another company reaches none of it.

use chatflow_core::TenantScope;
use chatflow_core::identity::Toggle;
use chatflow_core::ids::{ContactId, ScheduleId, UserId};
use chatflow_core::inbox::model::ContactInput;
use chatflow_core::inbox::ports::ContactRepo;
use chatflow_core::jobs::{JobPayload, JobQueue};
use chatflow_core::schedule::{
    DayRule, Interval, NewSchedule, Recurrence, ScheduleFilter, ScheduleRepo, ScheduleStatus,
    SendOutcome,
};
use chatflow_core::ticket::TicketStatus;
use chatflow_store::Store;
use chrono::{SubsecRound, TimeDelta, Utc};

use crate::store_tests;
use crate::support::two_companies;

async fn contact(store: &Store, scope: TenantScope, name: &str, number: &str) -> ContactId {
    ContactRepo::create(
        store,
        scope,
        &ContactInput {
            name: name.into(),
            number: number.into(),
            email: String::new(),
            channel: None,
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        },
    )
    .await
    .expect("contact")
    .id
}

/// A user of the scope's company inserted directly.
async fn user(store: &Store, scope: TenantScope) -> UserId {
    let company = scope.company_id().0;
    let id = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO users (company_id, name, email, password_hash) \
             VALUES ($1, 'Ana', $2, 'x') RETURNING id",
        )
        .bind(company)
        .bind(format!("ana{company}@test"))
        .fetch_one(p)
        .await
        .expect("user inserted")
    });
    UserId(id)
}

fn new_schedule(contact: ContactId, user: UserId, body: &str, times: u32) -> NewSchedule {
    NewSchedule {
        body: body.into(),
        contact_id: contact,
        send_at: (Utc::now() + TimeDelta::hours(1)).trunc_subsecs(6),
        open_ticket: Toggle::Disabled,
        ticket_user_id: None,
        queue_id: None,
        status_ticket: TicketStatus::Closed,
        whatsapp_id: None,
        user_id: user,
        assinar: true,
        recurrence: Recurrence {
            interval: Interval::Weeks,
            every: 1,
            times,
            day_rule: DayRule::After,
        },
    }
}

/// The company's `sendSchedule` jobs as (schedule, revision).
async fn send_jobs(store: &Store, scope: TenantScope) -> Vec<(ScheduleId, i64)> {
    JobQueue::pending(store, scope)
        .await
        .expect("jobs")
        .into_iter()
        .filter_map(|j| match j.payload {
            JobPayload::SendSchedule {
                schedule_id,
                revision,
            } => Some((schedule_id, revision)),
            _ => None,
        })
        .collect()
}

/// The actions of the company's schedule events, in order.
async fn schedule_actions(store: &Store, scope: TenantScope) -> Vec<String> {
    crate::support::logged_events(store, scope, "schedule")
        .await
        .into_iter()
        .map(|(payload, _)| payload["action"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn stores_with_its_job_and_moves_revisions(store: Store) {
    let (a, _) = two_companies(&store).await;
    let ana = user(&store, a).await;
    let maria = contact(&store, a, "Maria Souza", "5511900000001").await;
    let new = new_schedule(maria, ana, "Lembrete semanal", 2);
    let created = ScheduleRepo::create(&store, a, &new)
        .await
        .expect("created");
    assert_eq!(created.status, ScheduleStatus::Pendente);
    assert_eq!(created.contact.name, "Maria Souza");
    assert_eq!(created.next_send_at, Some(new.send_at));
    assert_eq!((created.intervalo, created.tipo_dias), (2, 6));
    assert!(created.assinar);
    assert_eq!(send_jobs(&store, a).await, [(created.id, 0)]);

    // An edit bumps the revision and queues a new job; the old one is now harmless.
    let mut changed = new.clone();
    changed.body = "Lembrete editado".into();
    let edited = ScheduleRepo::update(&store, a, created.id, &changed)
        .await
        .expect("updated")
        .expect("pending");
    assert_eq!(edited.revision, 1);
    assert_eq!(edited.body, "Lembrete editado");
    assert_eq!(
        send_jobs(&store, a).await,
        [(created.id, 0), (created.id, 1)]
    );
    assert!(
        !ScheduleRepo::claim_send(&store, a, created.id, 0)
            .await
            .expect("claim")
    );

    // A send: claimed once, recorded with the next job.
    assert!(
        ScheduleRepo::claim_send(&store, a, created.id, 1)
            .await
            .expect("claim")
    );
    assert!(
        !ScheduleRepo::claim_send(&store, a, created.id, 1)
            .await
            .expect("claim again")
    );
    let next = new.send_at + TimeDelta::weeks(1);
    let sent_at = Utc::now().trunc_subsecs(6);
    let recorded = ScheduleRepo::record_send(
        &store,
        a,
        created.id,
        2,
        &SendOutcome {
            status: ScheduleStatus::Agendada,
            sent_at: Some(sent_at),
            sends: 1,
            next_send_at: Some(next),
            error: None,
        },
    )
    .await
    .expect("recorded")
    .expect("not changed meanwhile");
    assert_eq!(recorded.status, ScheduleStatus::Agendada);
    assert_eq!(recorded.sent_at, Some(sent_at));
    assert_eq!(recorded.next_send_at, Some(next));
    assert_eq!(recorded.revision, 3);
    assert!(send_jobs(&store, a).await.contains(&(created.id, 3)));
    // Sent once: no more edits.
    assert!(
        ScheduleRepo::update(&store, a, created.id, &changed)
            .await
            .expect("answered")
            .is_none()
    );
    // A failure is kept with its reason and queues nothing.
    assert!(
        ScheduleRepo::claim_send(&store, a, created.id, 3)
            .await
            .expect("claim")
    );
    let failed = ScheduleRepo::record_send(
        &store,
        a,
        created.id,
        4,
        &SendOutcome {
            status: ScheduleStatus::Erro,
            sent_at: Some(sent_at),
            sends: 1,
            next_send_at: None,
            error: Some("ERR_SENDING_WAPP_MSG".into()),
        },
    )
    .await
    .expect("recorded")
    .expect("present");
    assert_eq!(failed.status, ScheduleStatus::Erro);
    assert_eq!(failed.last_error.as_deref(), Some("ERR_SENDING_WAPP_MSG"));
    assert!(
        !ScheduleRepo::claim_send(&store, a, created.id, 5)
            .await
            .expect("claim")
    );

    // Media, then delete.
    let with_media = ScheduleRepo::set_media(&store, a, created.id, Some(("m/1.png", "1.png")))
        .await
        .expect("set")
        .expect("present");
    assert_eq!(with_media.media_name.as_deref(), Some("1.png"));
    assert!(
        ScheduleRepo::delete(&store, a, created.id)
            .await
            .expect("deleted")
    );
    assert!(
        ScheduleRepo::get(&store, a, created.id)
            .await
            .expect("read")
            .is_none()
    );
    assert_eq!(
        schedule_actions(&store, a).await,
        ["create", "update", "update", "update", "update", "delete"]
    );
}

async fn lists_search_and_stay_in_the_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ana = user(&store, a).await;
    let maria = contact(&store, a, "Maria Souza", "5511900000002").await;
    let joao = contact(&store, a, "João", "5511900000003").await;
    for (contact, body) in [
        (maria, "Consulta amanhã"),
        (joao, "Pagamento 50%"),
        (maria, "Retorno"),
    ] {
        ScheduleRepo::create(&store, a, &new_schedule(contact, ana, body, 1))
            .await
            .expect("created");
    }
    let all = ScheduleRepo::list(&store, a, &ScheduleFilter::default(), 0, 20)
        .await
        .expect("listed");
    assert_eq!(all.1, 3);
    let by_name = ScheduleFilter {
        search: "MARIA".into(),
        contact_id: None,
    };
    assert_eq!(
        ScheduleRepo::list(&store, a, &by_name, 0, 20)
            .await
            .expect("list")
            .1,
        2
    );
    let literal = ScheduleFilter {
        search: "50%".into(),
        contact_id: None,
    };
    let (found, count) = ScheduleRepo::list(&store, a, &literal, 0, 20)
        .await
        .expect("list");
    assert_eq!((count, found[0].body.as_str()), (1, "Pagamento 50%"));
    let of_joao = ScheduleFilter {
        search: String::new(),
        contact_id: Some(joao),
    };
    assert_eq!(
        ScheduleRepo::list(&store, a, &of_joao, 0, 20)
            .await
            .expect("list")
            .1,
        1
    );
    let (page, count) = ScheduleRepo::list(&store, a, &ScheduleFilter::default(), 2, 20)
        .await
        .expect("second page");
    assert_eq!((page.len(), count), (1, 3));

    // Company B: sees nothing, changes nothing, cannot use A's contact.
    let first = all.0[0].id;
    let b_user = user(&store, b).await;
    assert_eq!(
        ScheduleRepo::list(&store, b, &ScheduleFilter::default(), 0, 20)
            .await
            .expect("listed")
            .1,
        0
    );
    assert!(
        ScheduleRepo::get(&store, b, first)
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        ScheduleRepo::update(&store, b, first, &new_schedule(maria, b_user, "Invasão", 1))
            .await
            .expect("answered")
            .is_none()
    );
    assert!(
        !ScheduleRepo::delete(&store, b, first)
            .await
            .expect("answered")
    );
    assert!(
        !ScheduleRepo::claim_send(&store, b, first, 0)
            .await
            .expect("answered")
    );
    let err = ScheduleRepo::create(&store, b, &new_schedule(maria, b_user, "Invasão", 1))
        .await
        .expect_err("A's contact");
    assert_eq!(err.code, chatflow_core::ErrorCode::ERR_NO_CONTACT_FOUND);
    assert!(send_jobs(&store, b).await.is_empty());
    assert!(schedule_actions(&store, b).await.is_empty());
}

store_tests!(
    stores_with_its_job_and_moves_revisions,
    lists_search_and_stay_in_the_company,
);
