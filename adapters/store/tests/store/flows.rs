//! Flows and phrase campaigns on both engines: drafts, atomic numbered publication, versions,
//! runs per version, deletion refused while in use, events in the write's transaction, and
//! company isolation.

use chatflow_core::TenantScope;
use chatflow_core::flow::Flow;
use chatflow_core::flow_ports::{
    FlowCampaignInput, FlowCampaignRepo, FlowDeleteOutcome, FlowId, FlowRepo, NewFlowRun,
    PublishOutcome,
};
use chatflow_core::ids::{ContactId, TicketId};
use chatflow_core::inbox::model::ContactInput;
use chatflow_core::inbox::ports::ContactRepo;
use chatflow_store::Store;
use serde_json::{Value, json};

use crate::store_tests;
use crate::support::two_companies;

/// A start node and one message node saying `text`.
fn graph(text: &str) -> Flow {
    serde_json::from_value(json!({
        "nodes": [
            {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "m", "type": "message", "position": {"x": 0, "y": 100}, "data": {"label": text}},
        ],
        "connections": [{"id": "c1", "source": "1", "target": "m"}],
    }))
    .expect("a flow")
}

/// The payloads of the company's `company-{id}-{suffix}` events, in order.
async fn events(store: &Store, scope: TenantScope, suffix: &str) -> Vec<Value> {
    crate::support::logged_events(store, scope, suffix)
        .await
        .into_iter()
        .map(|(payload, _)| payload)
        .collect()
}

async fn ticket(store: &Store, scope: TenantScope, number: &str) -> TicketId {
    let contact: ContactId = ContactRepo::create(
        store,
        scope,
        &ContactInput {
            name: "Ana".into(),
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
    .id;
    let company = scope.company_id().0;
    let id = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO tickets (company_id, uuid, contact_id) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(company)
        .bind(uuid::Uuid::new_v4())
        .bind(contact.0)
        .fetch_one(p)
        .await
        .expect("ticket inserted")
    });
    TicketId(id)
}

async fn drafts_publish_as_numbered_versions(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Boas-vindas", None)
        .await
        .expect("created");
    assert_eq!(flow.published_version, None);
    assert!(!flow.has_draft);
    assert!(flow.active);

    let saved = FlowRepo::save_draft(&store, a, flow.id, &graph("Olá"))
        .await
        .expect("saved")
        .expect("found");
    assert!(saved.has_draft);
    let record = FlowRepo::get(&store, a, flow.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(record.draft, Some(graph("Olá")));
    assert_eq!(record.published, None);

    let PublishOutcome::Published(v1) = FlowRepo::publish(&store, a, flow.id, &graph("Olá"), None)
        .await
        .expect("published")
    else {
        panic!("the flow exists");
    };
    assert_eq!(v1.version, 1);
    assert_eq!(v1.published_by, None);
    let record = FlowRepo::get(&store, a, flow.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(record.summary.published_version, Some(1));
    assert!(!record.summary.has_draft, "the published draft is cleared");
    assert_eq!(record.published, Some(graph("Olá")));

    FlowRepo::save_draft(&store, a, flow.id, &graph("Oi de novo"))
        .await
        .expect("saved");
    let PublishOutcome::Published(v2) =
        FlowRepo::publish(&store, a, flow.id, &graph("Oi de novo"), None)
            .await
            .expect("published")
    else {
        panic!("the flow exists");
    };
    assert_eq!(v2.version, 2);
    let versions = FlowRepo::versions(&store, a, flow.id)
        .await
        .expect("versions");
    assert_eq!(
        versions.iter().map(|v| v.version).collect::<Vec<_>>(),
        [2, 1]
    );
    assert_eq!(
        FlowRepo::version_graph(&store, a, flow.id, 1)
            .await
            .expect("read"),
        Some(graph("Olá"))
    );
    assert_eq!(
        FlowRepo::version_graph(&store, a, flow.id, 3)
            .await
            .expect("read"),
        None
    );

    // Company B reaches none of it.
    assert_eq!(FlowRepo::get(&store, b, flow.id).await.expect("read"), None);
    assert!(FlowRepo::list(&store, b).await.expect("list").is_empty());
    assert_eq!(
        FlowRepo::rename(&store, b, flow.id, "x")
            .await
            .expect("rename"),
        None
    );
    assert_eq!(
        FlowRepo::save_draft(&store, b, flow.id, &graph("x"))
            .await
            .expect("save"),
        None
    );
    assert_eq!(
        FlowRepo::publish(&store, b, flow.id, &graph("x"), None)
            .await
            .expect("publish"),
        PublishOutcome::NotFound
    );
    assert!(
        FlowRepo::versions(&store, b, flow.id)
            .await
            .expect("versions")
            .is_empty()
    );
    assert_eq!(
        FlowRepo::version_graph(&store, b, flow.id, 1)
            .await
            .expect("read"),
        None
    );
    assert_eq!(
        FlowRepo::delete(&store, b, flow.id).await.expect("delete"),
        FlowDeleteOutcome::NotFound
    );

    let actions: Vec<Value> = events(&store, a, "flowbuilder")
        .await
        .into_iter()
        .map(|e| e["action"].clone())
        .collect();
    assert_eq!(
        actions,
        ["create", "update", "update", "update", "update"].map(Value::from)
    );
    assert!(events(&store, b, "flowbuilder").await.is_empty());
}

async fn publishing_keeps_a_draft_saved_meanwhile(store: Store) {
    let (a, _) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", Some(&graph("novo")))
        .await
        .expect("created");
    assert!(flow.has_draft);
    // The use case validated "velho" while someone saved "novo": "novo" stays the draft.
    FlowRepo::publish(&store, a, flow.id, &graph("velho"), None)
        .await
        .expect("published");
    let record = FlowRepo::get(&store, a, flow.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(record.draft, Some(graph("novo")));
    assert_eq!(record.published, Some(graph("velho")));
}

async fn list_orders_by_name_and_renames(store: Store) {
    let (a, _) = two_companies(&store).await;
    for name in ["Vendas", "Atendimento", "Suporte"] {
        FlowRepo::create(&store, a, name, None)
            .await
            .expect("created");
    }
    let names = |list: Vec<chatflow_core::flow_ports::FlowSummary>| {
        list.into_iter().map(|f| f.name).collect::<Vec<_>>()
    };
    assert_eq!(
        names(FlowRepo::list(&store, a).await.expect("list")),
        ["Atendimento", "Suporte", "Vendas"]
    );
    let first = FlowRepo::list(&store, a).await.expect("list")[0].id;
    FlowRepo::rename(&store, a, first, "Zeta")
        .await
        .expect("renamed")
        .expect("found");
    assert_eq!(
        names(FlowRepo::list(&store, a).await.expect("list")),
        ["Suporte", "Vendas", "Zeta"]
    );
}

async fn deleting_is_refused_while_in_use(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let input = FlowCampaignInput {
        name: "Promo".into(),
        flow_id: flow.id,
        whatsapp_id: None,
        phrase: "quero promo".into(),
        status: true,
    };
    let campaign = FlowCampaignRepo::create(&store, a, &input)
        .await
        .expect("campaign");
    assert_eq!(campaign.phrase, "quero promo");
    assert_eq!(
        FlowRepo::delete(&store, a, flow.id).await.expect("delete"),
        FlowDeleteOutcome::InUse
    );
    // B cannot read, change or delete A's campaign.
    assert_eq!(
        FlowCampaignRepo::get(&store, b, campaign.id)
            .await
            .expect("read"),
        None
    );
    assert_eq!(
        FlowCampaignRepo::update(&store, b, campaign.id, &input)
            .await
            .expect("update"),
        None
    );
    assert!(
        !FlowCampaignRepo::delete(&store, b, campaign.id)
            .await
            .expect("delete")
    );
    let changed = FlowCampaignRepo::update(
        &store,
        a,
        campaign.id,
        &FlowCampaignInput {
            status: false,
            ..input.clone()
        },
    )
    .await
    .expect("update")
    .expect("found");
    assert!(!changed.status);
    assert!(
        FlowCampaignRepo::delete(&store, a, campaign.id)
            .await
            .expect("delete")
    );

    // A connection's welcome flow also holds it.
    let company = a.company_id().0;
    let flow_id = flow.id.0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query(
            "INSERT INTO whatsapps (company_id, name, flow_id_welcome) VALUES ($1, 'Conexão', $2)",
        )
        .bind(company)
        .bind(flow_id)
        .execute(p)
        .await
        .expect("connection inserted")
        .rows_affected()
    });
    assert_eq!(
        FlowRepo::delete(&store, a, flow.id).await.expect("delete"),
        FlowDeleteOutcome::InUse
    );
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("UPDATE whatsapps SET flow_id_welcome = NULL WHERE company_id = $1")
            .bind(company)
            .execute(p)
            .await
            .expect("connection updated")
            .rows_affected()
    });
    assert_eq!(
        FlowRepo::delete(&store, a, flow.id).await.expect("delete"),
        FlowDeleteOutcome::Deleted
    );
    assert_eq!(FlowRepo::get(&store, a, flow.id).await.expect("read"), None);
    let campaign_actions: Vec<Value> = events(&store, a, "flowcampaign")
        .await
        .into_iter()
        .map(|e| e["action"].clone())
        .collect();
    assert_eq!(
        campaign_actions,
        ["create", "update", "delete"].map(Value::from)
    );
}

async fn runs_are_read_per_version_and_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let flow = FlowRepo::create(&store, a, "Fluxo", None)
        .await
        .expect("created");
    let t1 = ticket(&store, a, "5511999990001").await;
    let t2 = ticket(&store, a, "5511999990002").await;
    for (ticket, version, node) in [(t1, 1, "m"), (t2, 2, "1")] {
        FlowRepo::insert_run(
            &store,
            a,
            &NewFlowRun {
                ticket_id: ticket,
                flow_id: flow.id,
                version,
                state: json!({"visited": ["1", node]}).to_string(),
                current_node: Some(node.into()),
                status: "ended".into(),
                timer: None,
                memory: None,
            },
        )
        .await
        .expect("run recorded");
    }
    let v1 = FlowRepo::runs(&store, a, flow.id, 1).await.expect("runs");
    assert_eq!(v1.len(), 1);
    assert_eq!(v1[0].current_node.as_deref(), Some("m"));
    assert_eq!(v1[0].status, "ended");
    assert_eq!(
        FlowRepo::runs(&store, a, flow.id, 2)
            .await
            .expect("runs")
            .len(),
        1
    );
    assert!(
        FlowRepo::runs(&store, b, flow.id, 1)
            .await
            .expect("runs")
            .is_empty()
    );
    // B cannot record a run on A's flow or ticket.
    let refused = FlowRepo::insert_run(
        &store,
        b,
        &NewFlowRun {
            ticket_id: t1,
            flow_id: FlowId(flow.id.0),
            version: 1,
            state: "{}".into(),
            current_node: None,
            status: "running".into(),
            timer: None,
            memory: None,
        },
    )
    .await;
    assert!(refused.is_err());
}

store_tests!(
    drafts_publish_as_numbered_versions,
    publishing_keeps_a_draft_saved_meanwhile,
    list_orders_by_name_and_renames,
    deleting_is_refused_while_in_use,
    runs_are_read_per_version_and_company,
);
