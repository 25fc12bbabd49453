//! [`PlanRepo`] on the store: platform-level plans.

use async_trait::async_trait;
use chatflow_core::ports::{NewPlan, PlanRepo};
use chatflow_core::tenancy::{Money, Plan, PlanFlags};
use chatflow_core::{PlanId, Result};

use crate::Store;
use crate::error::db_error;

macro_rules! plan_columns {
    () => {
        "id, name, users, connections, queues, amount, is_public, use_whatsapp, use_facebook, \
         use_instagram, use_campaigns, use_schedules, use_internal_chat, use_external_api, \
         use_kanban, use_open_ai, use_integrations"
    };
}

#[derive(sqlx::FromRow)]
struct PlanRow {
    id: i64,
    name: String,
    users: i64,
    connections: i64,
    queues: i64,
    amount: i64,
    is_public: bool,
    use_whatsapp: bool,
    use_facebook: bool,
    use_instagram: bool,
    use_campaigns: bool,
    use_schedules: bool,
    use_internal_chat: bool,
    use_external_api: bool,
    use_kanban: bool,
    use_open_ai: bool,
    use_integrations: bool,
}

impl From<PlanRow> for Plan {
    fn from(row: PlanRow) -> Self {
        Plan {
            id: PlanId(row.id),
            name: row.name,
            users: row.users,
            connections: row.connections,
            queues: row.queues,
            amount: Money(row.amount),
            is_public: row.is_public,
            flags: PlanFlags {
                use_whatsapp: row.use_whatsapp,
                use_facebook: row.use_facebook,
                use_instagram: row.use_instagram,
                use_campaigns: row.use_campaigns,
                use_schedules: row.use_schedules,
                use_internal_chat: row.use_internal_chat,
                use_external_api: row.use_external_api,
                use_kanban: row.use_kanban,
                use_open_ai: row.use_open_ai,
                use_integrations: row.use_integrations,
            },
        }
    }
}

#[async_trait]
impl PlanRepo for Store {
    #[tracing::instrument(level = "debug", name = "PlanRepo::get", skip_all, fields(plan = id.0))]
    async fn get(&self, id: PlanId) -> Result<Option<Plan>> {
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, PlanRow>(concat!(
                "SELECT ",
                plan_columns!(),
                " FROM plans WHERE id = $1"
            ))
            .bind(id.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.map(Plan::from))
    }

    #[tracing::instrument(level = "debug", name = "PlanRepo::list", skip_all)]
    async fn list(&self, public_only: bool) -> Result<Vec<Plan>> {
        let rows = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, PlanRow>(concat!(
                "SELECT ",
                plan_columns!(),
                " FROM plans WHERE is_public OR NOT $1 ORDER BY id"
            ))
            .bind(public_only)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(rows.into_iter().map(Plan::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "PlanRepo::create", skip_all)]
    async fn create(&self, plan: &NewPlan) -> Result<Plan> {
        let at = self.now();
        let flags = plan.flags;
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, PlanRow>(concat!(
                "INSERT INTO plans (name, users, connections, queues, amount, is_public, \
                 use_whatsapp, use_facebook, use_instagram, use_campaigns, use_schedules, \
                 use_internal_chat, use_external_api, use_kanban, use_open_ai, use_integrations, \
                 created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17) \
                 RETURNING ",
                plan_columns!()
            ))
            .bind(&plan.name)
            .bind(plan.users)
            .bind(plan.connections)
            .bind(plan.queues)
            .bind(plan.amount.0)
            .bind(plan.is_public)
            .bind(flags.use_whatsapp)
            .bind(flags.use_facebook)
            .bind(flags.use_instagram)
            .bind(flags.use_campaigns)
            .bind(flags.use_schedules)
            .bind(flags.use_internal_chat)
            .bind(flags.use_external_api)
            .bind(flags.use_kanban)
            .bind(flags.use_open_ai)
            .bind(flags.use_integrations)
            .bind(at)
            .fetch_one(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.into())
    }
}
