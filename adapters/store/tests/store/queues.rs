//! Queues with their chatbot menus, and the company's working hours, on both engines: a round
//! trip of a three-level menu, tree replacement that keeps ids, colour uniqueness on create and
//! update (a failed write leaves nothing behind), realtime events in the write's transaction,
//! deletion, and company isolation.

use chatflow_core::ports::{CompanyRepo, QueueRepo};
use chatflow_core::queue::{
    ChatbotId, ChatbotOption, ChatbotOptionType, Queue, QueueInput, ScheduleRow, default_schedules,
};
use chatflow_core::{ErrorCode, QueueId, TenantScope};
use chatflow_store::Store;
use serde_json::Value;

use crate::store_tests;
use crate::support::two_companies;

store_tests!(
    a_three_level_menu_round_trips,
    updating_keeps_sent_ids_and_drops_the_rest,
    colours_are_unique_on_create_and_update,
    deleting_a_queue_keeps_its_tickets_and_clears_targets,
    another_company_never_reaches_a_queue,
    company_schedules_round_trip
);

fn option(name: &str, children: Vec<ChatbotOption>) -> ChatbotOption {
    ChatbotOption {
        name: name.to_owned(),
        greeting_message: if children.is_empty() {
            String::new()
        } else {
            format!("{name}: escolha")
        },
        options: children,
        ..ChatbotOption::default()
    }
}

fn input(name: &str, color: &str, chatbots: Vec<ChatbotOption>) -> QueueInput {
    QueueInput {
        name: name.to_owned(),
        color: color.to_owned(),
        order_queue: Some(1),
        greeting_message: "Bem-vindo".into(),
        out_of_hours_message: "Fechado".into(),
        close_ticket: false,
        ativar_roteador: true,
        tempo_roteador: 5,
        integration_id: None,
        file_list_id: None,
        schedules: Some(default_schedules()),
        chatbots,
    }
}

/// A menu: Vendas > (Planos > (Mensal, Anual), Contato), Suporte.
fn three_levels() -> Vec<ChatbotOption> {
    vec![
        option(
            "Vendas",
            vec![
                option(
                    "Planos",
                    vec![option("Mensal", vec![]), option("Anual", vec![])],
                ),
                option("Contato", vec![]),
            ],
        ),
        option("Suporte", vec![]),
    ]
}

/// The tree's names, nested, for comparisons that ignore ids.
fn names(options: &[ChatbotOption]) -> Vec<(String, Vec<String>)> {
    options
        .iter()
        .map(|o| {
            (
                o.name.clone(),
                o.options
                    .iter()
                    .flat_map(|c| {
                        std::iter::once(c.name.clone())
                            .chain(c.options.iter().map(|g| format!("{}/{}", c.name, g.name)))
                    })
                    .collect(),
            )
        })
        .collect()
}

fn id_of(option: &ChatbotOption) -> ChatbotId {
    option.id.expect("a stored option has an id")
}

async fn queue_events(store: &Store, scope: TenantScope) -> Vec<Value> {
    crate::support::logged_events(store, scope, "queue")
        .await
        .into_iter()
        .map(|(payload, _)| payload)
        .collect()
}

async fn chatbot_rows(store: &Store) -> i64 {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM chatbots")
            .fetch_one(p)
            .await
            .expect("counted")
    })
}

async fn a_three_level_menu_round_trips(store: Store) {
    let (a, _) = two_companies(&store).await;
    let created = QueueRepo::create_queue(&store, a, &input("Vendas", "#ff0000", three_levels()))
        .await
        .expect("created");
    assert_eq!(names(&created.chatbots), names(&three_levels()));
    assert_eq!(created.schedules, default_schedules());
    assert_eq!(created.tempo_roteador, 5);
    assert!(created.ativar_roteador);
    let third = &created.chatbots[0].options[0].options[1];
    assert_eq!(third.name, "Anual");
    assert!(third.id.is_some());

    let read = QueueRepo::get_queue(&store, a, created.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(read, created);
    let listed = QueueRepo::list_queues(&store, a).await.expect("listed");
    assert_eq!(listed, vec![created.clone()]);
    assert_eq!(
        QueueRepo::chatbot_queue(&store, a, id_of(third))
            .await
            .expect("looked up"),
        Some(created.id)
    );

    let events = queue_events(&store, a).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["action"], "create");
    assert_eq!(
        events[0]["queue"],
        serde_json::to_value(&created).expect("json")
    );
}

async fn updating_keeps_sent_ids_and_drops_the_rest(store: Store) {
    let (a, _) = two_companies(&store).await;
    let created = QueueRepo::create_queue(&store, a, &input("Vendas", "#ff0000", three_levels()))
        .await
        .expect("created");
    let vendas = created.chatbots[0].clone();
    let planos = vendas.options[0].clone();
    let mensal = planos.options[0].clone();
    let suporte = created.chatbots[1].clone();

    // Keep Vendas and Mensal (moved up under Vendas), drop Planos/Anual/Contato and Suporte,
    // add Novo; a foreign id on a new option is ignored.
    let mut moved = mensal.clone();
    moved.name = "Mensal 2".into();
    let mut kept = vendas.clone();
    kept.options = vec![moved, {
        let mut new = option("Novo item", vec![]);
        new.id = Some(ChatbotId(999_999));
        new
    }];
    let mut changed = input("Vendas 2", "#00ff00", vec![kept]);
    changed.schedules = None;
    changed.tempo_roteador = 10;
    let updated = QueueRepo::update_queue(&store, a, created.id, &changed)
        .await
        .expect("updated")
        .expect("found");
    assert_eq!(updated.name, "Vendas 2");
    assert_eq!(updated.color, "#00ff00");
    assert_eq!(updated.tempo_roteador, 10);
    assert_eq!(updated.schedules, default_schedules(), "schedules kept");
    assert_eq!(updated.chatbots.len(), 1);
    assert_eq!(updated.chatbots[0].id, vendas.id);
    let children = &updated.chatbots[0].options;
    assert_eq!(children.len(), 2);
    assert_eq!(children[0].id, mensal.id);
    assert_eq!(children[0].name, "Mensal 2");
    assert_eq!(children[1].name, "Novo item");
    assert_ne!(children[1].id, Some(ChatbotId(999_999)));
    for gone in [&planos, &suporte] {
        assert_eq!(
            QueueRepo::chatbot_queue(&store, a, id_of(gone))
                .await
                .expect("looked up"),
            None
        );
    }
    assert_eq!(chatbot_rows(&store).await, 3);

    // Replacing only the tree, with the order swapped.
    let swapped = vec![updated.chatbots[0].options[1].clone(), {
        let mut top = updated.chatbots[0].clone();
        top.options.truncate(1);
        top
    }];
    let replaced = QueueRepo::replace_chatbots(&store, a, created.id, &swapped)
        .await
        .expect("replaced")
        .expect("found");
    assert_eq!(replaced.name, "Vendas 2");
    assert_eq!(replaced.chatbots[0].id, children[1].id);
    assert_eq!(replaced.chatbots[1].id, vendas.id);
    assert_eq!(replaced.chatbots[1].options[0].id, mensal.id);
    assert_eq!(chatbot_rows(&store).await, 3);

    let actions: Vec<Value> = queue_events(&store, a)
        .await
        .iter()
        .map(|e| e["action"].clone())
        .collect();
    assert_eq!(actions, ["create", "update", "update"]);
}

async fn colours_are_unique_on_create_and_update(store: Store) {
    let (a, b) = two_companies(&store).await;
    let red = QueueRepo::create_queue(&store, a, &input("Vendas", "#ff0000", vec![]))
        .await
        .expect("created");
    let green = QueueRepo::create_queue(&store, a, &input("Suporte", "#00ff00", vec![]))
        .await
        .expect("created");
    let before_events = queue_events(&store, a).await.len();
    let err = QueueRepo::create_queue(&store, a, &input("Outra", "#ff0000", three_levels()))
        .await
        .expect_err("same colour");
    assert_eq!(err.code, ErrorCode::ERR_QUEUE_COLOR_ALREADY_EXISTS);
    let err = QueueRepo::update_queue(
        &store,
        a,
        green.id,
        &input("Suporte", "#ff0000", three_levels()),
    )
    .await
    .expect_err("same colour as another queue");
    assert_eq!(err.code, ErrorCode::ERR_QUEUE_COLOR_ALREADY_EXISTS);
    // Nothing of the failed writes stayed: no menu rows, no events, green unchanged.
    assert_eq!(chatbot_rows(&store).await, 0);
    assert_eq!(queue_events(&store, a).await.len(), before_events);
    let still = QueueRepo::get_queue(&store, a, green.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(still.color, "#00ff00");
    // A queue may keep its own colour, and another company may use it.
    QueueRepo::update_queue(&store, a, red.id, &input("Vendas", "#ff0000", vec![]))
        .await
        .expect("own colour")
        .expect("found");
    QueueRepo::create_queue(&store, b, &input("Vendas", "#ff0000", vec![]))
        .await
        .expect("other company");
}

async fn deleting_a_queue_keeps_its_tickets_and_clears_targets(store: Store) {
    let (a, _) = two_companies(&store).await;
    let target =
        QueueRepo::create_queue(&store, a, &input("Financeiro", "#0000ff", three_levels()))
            .await
            .expect("created");
    let mut pointer = option("Ir para o financeiro", vec![]);
    pointer.queue_type = ChatbotOptionType::Queue;
    pointer.opt_queue_id = Some(target.id);
    let menu = QueueRepo::create_queue(&store, a, &input("Recepção", "#00ff00", vec![pointer]))
        .await
        .expect("created");
    let company = a.company_id().0;
    let contact: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar(
            "INSERT INTO contacts (company_id, name, number) VALUES ($1, 'Ana', '5511999990001') \
             RETURNING id",
        )
        .bind(company)
        .fetch_one(p)
        .await
        .expect("contact")
    });
    let ticket: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar(
            "INSERT INTO tickets (company_id, uuid, contact_id, queue_id) VALUES ($1, $2, $3, $4) \
             RETURNING id",
        )
        .bind(company)
        .bind(uuid::Uuid::new_v4())
        .bind(contact)
        .bind(target.id.0)
        .fetch_one(p)
        .await
        .expect("ticket")
    });

    assert!(
        QueueRepo::delete_queue(&store, a, target.id)
            .await
            .expect("deleted")
    );
    assert!(
        !QueueRepo::delete_queue(&store, a, target.id)
            .await
            .expect("second delete")
    );
    assert_eq!(
        QueueRepo::get_queue(&store, a, target.id)
            .await
            .expect("read"),
        None
    );
    assert_eq!(
        chatbot_rows(&store).await,
        1,
        "only the other queue's option"
    );
    let queue_of_ticket: Option<i64> = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar("SELECT queue_id FROM tickets WHERE id = $1")
            .bind(ticket)
            .fetch_one(p)
            .await
            .expect("the ticket stays")
    });
    assert_eq!(queue_of_ticket, None);
    // The option that pointed at the deleted queue lost its target, and that queue's change was
    // announced after the deletion.
    let menu_now: Queue = QueueRepo::get_queue(&store, a, menu.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(menu_now.chatbots[0].opt_queue_id, None);
    let events = queue_events(&store, a).await;
    let tail: Vec<&Value> = events.iter().rev().take(2).rev().collect();
    assert_eq!(tail[0]["action"], "delete");
    assert_eq!(tail[0]["queueId"], target.id.0);
    assert_eq!(tail[1]["action"], "update");
    assert_eq!(tail[1]["queue"]["id"], menu.id.0);
}

async fn another_company_never_reaches_a_queue(store: Store) {
    let (a, b) = two_companies(&store).await;
    let queue = QueueRepo::create_queue(&store, a, &input("Vendas", "#ff0000", three_levels()))
        .await
        .expect("created");
    let option = id_of(&queue.chatbots[0]);
    assert_eq!(
        QueueRepo::get_queue(&store, b, queue.id)
            .await
            .expect("read"),
        None
    );
    assert!(
        QueueRepo::list_queues(&store, b)
            .await
            .expect("listed")
            .is_empty()
    );
    assert_eq!(
        QueueRepo::update_queue(&store, b, queue.id, &input("Hack", "#000000", vec![]))
            .await
            .expect("no error"),
        None
    );
    assert_eq!(
        QueueRepo::replace_chatbots(&store, b, queue.id, &[])
            .await
            .expect("no error"),
        None
    );
    assert!(
        !QueueRepo::delete_queue(&store, b, queue.id)
            .await
            .expect("no error")
    );
    assert_eq!(
        QueueRepo::chatbot_queue(&store, b, option)
            .await
            .expect("no error"),
        None
    );
    assert_eq!(
        QueueRepo::get_queue(&store, a, queue.id)
            .await
            .expect("read")
            .expect("still there"),
        queue
    );
    assert!(queue_events(&store, b).await.is_empty());
    // An unknown queue id is not found either.
    assert_eq!(
        QueueRepo::get_queue(&store, a, QueueId(queue.id.0 + 1000))
            .await
            .expect("read"),
        None
    );
}

async fn company_schedules_round_trip(store: Store) {
    let (a, b) = two_companies(&store).await;
    assert_eq!(
        CompanyRepo::schedules(&store, a).await.expect("read"),
        Some(Vec::new())
    );
    let mut rows = default_schedules();
    rows[6] = ScheduleRow {
        start_time_a: String::new(),
        end_time_a: String::new(),
        start_time_b: String::new(),
        end_time_b: String::new(),
        ..rows[6].clone()
    };
    assert!(
        CompanyRepo::set_schedules(&store, a, &rows)
            .await
            .expect("saved")
    );
    assert_eq!(
        CompanyRepo::schedules(&store, a).await.expect("read"),
        Some(rows)
    );
    assert_eq!(
        CompanyRepo::schedules(&store, b).await.expect("read"),
        Some(Vec::new())
    );
    let missing = TenantScope::new(chatflow_core::CompanyId(a.company_id().0 + 1000));
    assert_eq!(
        CompanyRepo::schedules(&store, missing).await.expect("read"),
        None
    );
    assert!(
        !CompanyRepo::set_schedules(&store, missing, &default_schedules())
            .await
            .expect("no error")
    );
}
