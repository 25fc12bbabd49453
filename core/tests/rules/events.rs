//! The socket names and payloads of the typed events, pinned: what the web app and the spec
//! read must not move when the model does. Each event goes through the log's stored form (JSON
//! text) first, as the dispatcher and the replay read it.

use chatflow_core::CompanyId;
use chatflow_core::events::{Event, RecipientSettings, Recipients, SaveAction};
use chatflow_core::flow_ports::{FlowCampaignId, FlowId};
use chatflow_core::identity::{Actor, MenuMode, Profile, Theme, User, UserFlags};
use chatflow_core::ids::{QueueId, QuickMessageId, ScheduleId, TagId, UserId};
use chatflow_core::quick_message::{created_events, deleted_events, updated_events};
use chatflow_core::service::settings::{Setting, settings_event};
use chatflow_core::service::users::{user_deleted_event, user_saved_event};
use chatflow_core::service::{flow_campaigns, flows, queues};
use serde_json::{Value, json};

const COMPANY: CompanyId = CompanyId(3);

fn actor(user: i64, profile: Profile) -> Actor {
    Actor {
        user_id: UserId(user),
        company_id: COMPANY,
        profile,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    }
}

/// The event after a trip through the log: (name, recipients, payload for a plain user).
fn wire(event: &Event) -> (String, Recipients, Value) {
    let stored = serde_json::to_string(event).expect("serialises");
    let read: Event = serde_json::from_str(&stored).expect("reads back");
    assert_eq!(
        &read, event,
        "the stored form reads back the same: {stored}"
    );
    let reader = match read.recipients() {
        Recipients::User(user) => actor(user.0, Profile::User),
        Recipients::Company => actor(99, Profile::User),
    };
    assert!(read.visible_to(&reader));
    (
        read.name(COMPANY),
        read.recipients(),
        read.for_recipient(&reader, RecipientSettings::default(), 41),
    )
}

fn company_event(event: &Event, name: &str, payload: Value) {
    assert_eq!(wire(event), (name.to_owned(), Recipients::Company, payload));
}

#[test]
fn tag_events() {
    let tag = json!({"id": 5, "name": "Urgente", "color": "#A4CCCC", "kanban": 1});
    let event = chatflow_core::service::inbox::tags::tag_event(
        SaveAction::Create,
        &serde_json::from_value(tag.clone()).expect("a tag"),
    );
    company_event(
        &event,
        "company-3-tag",
        json!({"action": "create", "tag": tag, "seq": 41}),
    );
    let event = chatflow_core::service::inbox::tags::tag_deleted_event(TagId(5));
    company_event(
        &event,
        "company-3-tag",
        json!({"action": "delete", "tagId": 5, "seq": 41}),
    );
}

fn sample_user() -> User {
    let at = chrono::DateTime::<chrono::Utc>::from_timestamp(1_700_000_000, 0).unwrap_or_default();
    User {
        id: UserId(8),
        company_id: COMPANY,
        name: "Ana".into(),
        email: "ana@a.test".into(),
        profile: Profile::User,
        is_super: false,
        flags: UserFlags::default(),
        start_work: "08:00".into(),
        end_work: "18:00".into(),
        farewell_message: Some("Tchau".into()),
        default_theme: Theme::Light,
        default_menu: MenuMode::Open,
        whatsapp_id: None,
        queue_ids: vec![QueueId(2)],
        profile_image: Some("avatar-8.png".into()),
        online: true,
        default_tickets_manager_width: 550,
        created_at: at,
        updated_at: at,
    }
}

#[test]
fn user_events_carry_only_the_colleague_summary() {
    let user = sample_user();
    let event = user_saved_event(SaveAction::Update, &user);
    company_event(
        &event,
        "company-3-user",
        json!({"action": "update", "seq": 41, "user": {
            "id": 8, "name": "Ana", "profile": "user", "online": true,
            "profileImage": "avatar-8.png",
        }}),
    );
    assert_eq!(event.changed_user(), Some(UserId(8)));
    let created = user_saved_event(SaveAction::Create, &user);
    assert_eq!(wire(&created).2["action"], "create");
    let deleted = user_deleted_event(UserId(8));
    company_event(
        &deleted,
        "company-3-user",
        json!({"action": "delete", "userId": 8, "seq": 41}),
    );
    assert_eq!(deleted.changed_user(), Some(UserId(8)));
}

#[test]
fn settings_events_go_to_the_company_and_reset_its_cached_settings() {
    let event = settings_event(&Setting {
        key: "userRating".into(),
        value: "enabled".into(),
    });
    company_event(
        &event,
        "company-3-settings",
        json!({"action": "update", "setting": {"key": "userRating", "value": "enabled"}, "seq": 41}),
    );
    assert!(event.changes_settings());
}

#[test]
fn a_sign_in_goes_to_the_users_own_sockets_only() {
    let family = uuid::Uuid::from_u128(0x1234);
    let event = Event::SignedIn {
        user_id: UserId(8),
        session_id: family,
    };
    assert_eq!(
        wire(&event),
        (
            "company-3-auth".to_owned(),
            Recipients::User(UserId(8)),
            json!({"action": "update", "user": {"id": 8}, "sessionId": family.to_string(), "seq": 41}),
        )
    );
    assert!(!event.visible_to(&actor(9, Profile::Admin)), "another user");
}

#[test]
fn quick_message_events_follow_sharing() {
    let record = json!({
        "id": 4, "shortcode": "oi", "message": "Olá!", "geral": false, "visao": true,
        "status": true, "userId": 7, "mediaPath": "/quick-messages/4/media",
        "mediaName": "a.png", "isMedia": true,
    });
    let private = serde_json::from_value(record.clone()).expect("a quick message");
    let [created] = created_events(&private).try_into().expect("one event");
    assert_eq!(
        wire(&created),
        (
            "company-3-quickmessage".to_owned(),
            Recipients::User(UserId(7)),
            json!({"action": "create", "record": record, "seq": 41}),
        )
    );
    let [unshared, updated] = updated_events(true, &private)
        .try_into()
        .expect("two events");
    company_event(
        &unshared,
        "company-3-quickmessage",
        json!({"action": "delete", "id": 4, "seq": 41}),
    );
    assert_eq!(wire(&updated).1, Recipients::User(UserId(7)));
    assert_eq!(wire(&updated).2["action"], "update");
    let [deleted] = deleted_events(&private).try_into().expect("one event");
    assert_eq!(
        wire(&deleted),
        (
            "company-3-quickmessage".to_owned(),
            Recipients::User(UserId(7)),
            json!({"action": "delete", "id": QuickMessageId(4), "seq": 41}),
        )
    );
}

#[test]
fn schedule_events() {
    let schedule = json!({
        "id": 12, "body": "Bom dia", "contactId": 2, "contact": {"id": 2, "name": "Bia"},
        "sendAt": "2026-01-02T03:04:05Z", "nextSendAt": null, "sentAt": null,
        "status": "PENDENTE", "openTicket": "disabled", "ticketUserId": null, "queueId": null,
        "statusTicket": "closed", "whatsappId": 1, "userId": 8, "mediaPath": null,
        "mediaName": null, "assinar": false, "intervalo": 1, "valorIntervalo": 0,
        "enviarQuantasVezes": 1, "tipoDias": 4, "sends": 0, "lastError": null,
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
    });
    let event = chatflow_core::schedule::schedule_event(
        SaveAction::Update,
        &serde_json::from_value(schedule.clone()).expect("a schedule"),
    );
    company_event(
        &event,
        "company-3-schedule",
        json!({"action": "update", "schedule": schedule, "seq": 41}),
    );
    company_event(
        &chatflow_core::schedule::schedule_deleted_event(ScheduleId(12)),
        "company-3-schedule",
        json!({"action": "delete", "scheduleId": 12, "seq": 41}),
    );
}

#[test]
fn flow_and_flow_campaign_events() {
    let flow = json!({
        "id": 6, "name": "Boas-vindas", "active": true, "updatedAt": "2026-01-01T00:00:00Z",
        "publishedVersion": 2, "hasDraft": false,
    });
    let event = flows::flow_event(
        SaveAction::Create,
        &serde_json::from_value(flow.clone()).expect("a flow"),
    );
    company_event(
        &event,
        "company-3-flowbuilder",
        json!({"action": "create", "flow": flow, "seq": 41}),
    );
    company_event(
        &flows::flow_deleted_event(FlowId(6)),
        "company-3-flowbuilder",
        json!({"action": "delete", "flowId": 6, "seq": 41}),
    );
    let campaign = json!({
        "id": 9, "name": "Promo", "flowId": 6, "whatsappId": null, "phrase": "quero",
        "status": true,
    });
    let event = flow_campaigns::campaign_event(
        SaveAction::Update,
        &serde_json::from_value(campaign.clone()).expect("a campaign"),
    );
    company_event(
        &event,
        "company-3-flowcampaign",
        json!({"action": "update", "flowCampaign": campaign, "seq": 41}),
    );
    company_event(
        &flow_campaigns::campaign_deleted_event(FlowCampaignId(9)),
        "company-3-flowcampaign",
        json!({"action": "delete", "flowCampaignId": 9, "seq": 41}),
    );
}

#[test]
fn queue_events() {
    let option = json!({
        "id": 3, "name": "Vendas", "greetingMessage": "Oi", "queueType": "text",
        "optQueueId": null, "optUserId": null, "optIntegrationId": null, "optFileId": null,
        "closeTicket": false, "options": [],
    });
    let queue = json!({
        "id": 2, "name": "Suporte", "color": "#112233", "orderQueue": 1,
        "greetingMessage": "Bem-vindo", "outOfHoursMessage": "", "closeTicket": false,
        "ativarRoteador": false, "tempoRoteador": 0, "integrationId": null, "fileListId": null,
        "schedules": [{
            "weekday": "Segunda-feira", "weekdayEn": "monday", "startTimeA": "08:00",
            "endTimeA": "12:00", "startTimeB": "", "endTimeB": "",
        }],
        "chatbots": [option],
    });
    let event = queues::queue_event(
        SaveAction::Create,
        &serde_json::from_value(queue.clone()).expect("a queue"),
    );
    company_event(
        &event,
        "company-3-queue",
        json!({"action": "create", "queue": queue, "seq": 41}),
    );
    company_event(
        &queues::queue_deleted_event(QueueId(2)),
        "company-3-queue",
        json!({"action": "delete", "queueId": 2, "seq": 41}),
    );
}
