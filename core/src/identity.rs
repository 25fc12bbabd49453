//! Identity: users, profiles, the per-user flags of spec 1 §3, and the acting user.

use serde::{Deserialize, Serialize};

use crate::ids::{CompanyId, QueueId, TenantScope, UserId, WhatsappId};

/// A user's profile (role within the company).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    Admin,
    User,
}

/// The "enabled" / "disabled" switch most per-user flags use on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Toggle {
    Enabled,
    #[default]
    Disabled,
}

impl Toggle {
    /// True when enabled.
    pub fn is_on(self) -> bool {
        self == Toggle::Enabled
    }
}

/// The "enable" / "disable" switch of `allTicket` (spelled differently on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AllTicket {
    Enable,
    #[default]
    Disable,
}

/// Light or dark theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

/// Whether the side menu starts open or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum MenuMode {
    #[default]
    Open,
    Closed,
}

/// The per-user permission flags of spec 1 §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserFlags {
    /// See tickets without a queue.
    pub all_ticket: AllTicket,
    /// See group tickets and the group tab.
    pub allow_group: bool,
    /// See other queues' history.
    pub all_historic: Toggle,
    /// See other users' chats (grants tickets-manager:showall).
    pub all_user_chat: Toggle,
    /// May close or ignore pending tickets.
    pub user_close_pending_ticket: Toggle,
    /// Sees the dashboard (treated as admin for the management group).
    pub show_dashboard: Toggle,
    /// Sees the real-time panel (treated as admin for the management group).
    pub allow_real_time: Toggle,
    /// Treated as admin for connections and the administration section.
    pub allow_connections: Toggle,
}

/// A user of a company. The password hash never lives here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: UserId,
    pub company_id: CompanyId,
    pub name: String,
    pub email: String,
    pub profile: Profile,
    /// The platform super user flag.
    #[serde(rename = "super")]
    pub is_super: bool,
    #[serde(flatten)]
    pub flags: UserFlags,
    /// Start of the working day, "HH:MM" (default 00:00).
    pub start_work: String,
    /// End of the working day, "HH:MM" (default 23:59).
    pub end_work: String,
    pub farewell_message: Option<String>,
    pub default_theme: Theme,
    pub default_menu: MenuMode,
    /// Default connection.
    pub whatsapp_id: Option<WhatsappId>,
    pub queue_ids: Vec<QueueId>,
    pub profile_image: Option<String>,
    pub online: bool,
    /// Width of the tickets panel in pixels (404 to 700, default 550).
    pub default_tickets_manager_width: i64,
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub updated_at: chrono::DateTime<chrono::Utc>,
}

/// Who is acting: what every policy and service decision is made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub user_id: UserId,
    pub company_id: CompanyId,
    pub profile: Profile,
    pub is_super: bool,
    pub flags: UserFlags,
    pub queue_ids: Vec<QueueId>,
}

impl Actor {
    /// The acting user of `user`.
    pub fn of(user: &User) -> Self {
        Self {
            user_id: user.id,
            company_id: user.company_id,
            profile: user.profile,
            is_super: user.is_super,
            flags: user.flags,
            queue_ids: user.queue_ids.clone(),
        }
    }

    /// The tenant scope of the actor's own company.
    pub fn scope(&self) -> TenantScope {
        TenantScope::new(self.company_id)
    }

    /// True for the admin profile.
    pub fn is_admin(&self) -> bool {
        self.profile == Profile::Admin
    }
}
