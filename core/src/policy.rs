//! The permission table of spec 1 §6 and the one policy function.
//!
//! [`authorize`] answers "may this actor do this action on this resource" for the server, the CLI
//! and the web app; nothing else in the product decides it. An [`Action`] names what is attempted
//! and carries the company of the resource it touches (and the owner where ownership matters), so
//! the policy denies every cross-company attempt in one place: only the super user crosses
//! companies, and only for platform-level actions.
//!
//! The web app never re-implements these rules: it receives [`capabilities`], the list of names
//! ([`CAPABILITIES`]) the policy grants the caller, and shows a menu entry, page or button only when
//! its name is present. Each capability is derived from [`authorize`] wherever an action exists.
//!
//! Roles in short:
//! - the admin profile, and the super flag on top of it, have every static permission;
//! - a plain user has none, except `tickets-manager:showall` when `allUserChat` is enabled;
//! - per-user flags widen a plain user's reach: `showDashboard` (dashboard), `allowRealTime`
//!   (real-time panel), `allowConnections` (connections and viewing the administration section),
//!   `userClosePendingTicket`, `allHistoric`, `allTicket`, `allowGroup`;
//! - changing users' privileges, creating and deleting users, and changing company settings stay
//!   with admins whatever the flags say.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, Result};
use crate::identity::{Actor, AllTicket, User};
use crate::ids::{CompanyId, UserId};
use crate::settings::{Scope, SettingDef};
use crate::tenancy::PlanFlags;

/// A static permission of spec 1 §6, serialised with its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Permission {
    /// `dashboard:view`: the dashboard.
    #[serde(rename = "dashboard:view")]
    DashboardView,
    /// `drawer-admin-items:view`: the administration section of the side menu.
    #[serde(rename = "drawer-admin-items:view")]
    DrawerAdminItemsView,
    /// `tickets-manager:showall`: the show-all toggle of the inbox.
    #[serde(rename = "tickets-manager:showall")]
    TicketsManagerShowAll,
    /// `user-modal:editProfile`: changing a user's profile in the user modal.
    #[serde(rename = "user-modal:editProfile")]
    UserModalEditProfile,
    /// `user-modal:editQueues`: changing a user's queues in the user modal.
    #[serde(rename = "user-modal:editQueues")]
    UserModalEditQueues,
    /// `ticket-options:deleteTicket`: deleting a ticket.
    #[serde(rename = "ticket-options:deleteTicket")]
    TicketOptionsDeleteTicket,
    /// `contacts-page:deleteContact`: deleting a contact.
    #[serde(rename = "contacts-page:deleteContact")]
    ContactsPageDeleteContact,
    /// `connections-page:actionButtons`: a connection's session buttons.
    #[serde(rename = "connections-page:actionButtons")]
    ConnectionsPageActionButtons,
    /// `connections-page:addConnection`: adding a connection.
    #[serde(rename = "connections-page:addConnection")]
    ConnectionsPageAddConnection,
    /// `connections-page:editOrDeleteConnection`: editing or deleting a connection.
    #[serde(rename = "connections-page:editOrDeleteConnection")]
    ConnectionsPageEditOrDeleteConnection,
    /// `tickets-manager:closeAll`: the close-all button of the inbox.
    #[serde(rename = "tickets-manager:closeAll")]
    TicketsManagerCloseAll,
}

impl Permission {
    /// Every static permission, in the order of spec 1 §6.
    pub const ALL: [Permission; 11] = [
        Permission::DashboardView,
        Permission::DrawerAdminItemsView,
        Permission::TicketsManagerShowAll,
        Permission::UserModalEditProfile,
        Permission::UserModalEditQueues,
        Permission::TicketOptionsDeleteTicket,
        Permission::ContactsPageDeleteContact,
        Permission::ConnectionsPageActionButtons,
        Permission::ConnectionsPageAddConnection,
        Permission::ConnectionsPageEditOrDeleteConnection,
        Permission::TicketsManagerCloseAll,
    ];

    /// The wire name, e.g. `dashboard:view` (a test checks it matches serde's output).
    pub const fn as_str(self) -> &'static str {
        match self {
            Permission::DashboardView => "dashboard:view",
            Permission::DrawerAdminItemsView => "drawer-admin-items:view",
            Permission::TicketsManagerShowAll => "tickets-manager:showall",
            Permission::UserModalEditProfile => "user-modal:editProfile",
            Permission::UserModalEditQueues => "user-modal:editQueues",
            Permission::TicketOptionsDeleteTicket => "ticket-options:deleteTicket",
            Permission::ContactsPageDeleteContact => "contacts-page:deleteContact",
            Permission::ConnectionsPageActionButtons => "connections-page:actionButtons",
            Permission::ConnectionsPageAddConnection => "connections-page:addConnection",
            Permission::ConnectionsPageEditOrDeleteConnection => {
                "connections-page:editOrDeleteConnection"
            }
            Permission::TicketsManagerCloseAll => "tickets-manager:closeAll",
        }
    }
}

impl std::fmt::Display for Permission {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// True for the admin profile and for the super user, who administers the platform.
fn is_admin_like(actor: &Actor) -> bool {
    actor.is_admin() || actor.is_super
}

/// The static permission table of spec 1 §6: admins (and the super user) have all of them; a
/// plain user has none, plus `tickets-manager:showall` when `allUserChat` is enabled.
///
/// Flags that treat a plain user "as admin" for an area (`showDashboard`, `allowConnections`) are
/// not static: [`capabilities`] adds what they grant.
pub fn static_permissions(actor: &Actor) -> BTreeSet<Permission> {
    if is_admin_like(actor) {
        Permission::ALL.into_iter().collect()
    } else if actor.flags.all_user_chat.is_on() {
        BTreeSet::from([Permission::TicketsManagerShowAll])
    } else {
        BTreeSet::new()
    }
}

/// A user an action is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UserTarget {
    /// The target user's company.
    pub company: CompanyId,
    /// The target user.
    pub id: UserId,
    /// Whether the target is the super user, whom only the super user may change.
    pub is_super: bool,
}

impl UserTarget {
    /// The target describing `user`.
    pub fn of(user: &User) -> Self {
        Self {
            company: user.company_id,
            id: user.id,
            is_super: user.is_super,
        }
    }

    /// The target describing the acting user themselves.
    pub fn actor(actor: &Actor) -> Self {
        Self {
            company: actor.company_id,
            id: actor.user_id,
            is_super: actor.is_super,
        }
    }
}

/// A ticket an action is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TicketTarget {
    /// The ticket's company.
    pub company: CompanyId,
    /// The user the ticket is assigned to, if any.
    pub owner: Option<UserId>,
}

/// A message an action is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MessageTarget {
    /// The message's company.
    pub company: CompanyId,
    /// Whether the acting user sent it.
    pub own: bool,
}

/// Something an actor attempts. Variants name the company (and owner) of the resource touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    // ------------------------------------------------------------------ users
    /// List and search the company's users with their details (`GET /users/`, the users page):
    /// admins, and users with `allowConnections` (administration section).
    ViewUsers(CompanyId),
    /// The brief list of the company's users (`GET /users/list`): any user of the company.
    ListUsersBrief(CompanyId),
    /// Create a user in the company: admins.
    CreateUser(CompanyId),
    /// Read one user: the user themselves, or whoever may [`Action::ViewUsers`].
    ReadUser(UserTarget),
    /// Update a user's self-service fields (name, e-mail, password, theme, menu, farewell
    /// message): the user themselves, or an admin.
    UpdateUser(UserTarget),
    /// Change a user's profile, queues, default connection, work hours and permission flags:
    /// admins only, never the user on their own behalf.
    UpdateUserPrivileges(UserTarget),
    /// Delete a user: admins, never themselves.
    DeleteUser(UserTarget),
    /// Replace a user's avatar: the user themselves, or an admin.
    UploadAvatar(UserTarget),
    /// Save the width of one's own tickets panel: only the user themselves.
    SetOwnPanelWidth(UserTarget),

    // --------------------------------------------------- companies and settings
    /// Read a company's record: its own users; the super user for any company.
    ViewCompany(CompanyId),
    /// The settings page and the full list of the company's settings: admins, and users with
    /// `allowConnections` (administration section).
    ViewCompanySettings(CompanyId),
    /// Change a company-scoped setting: admins of the company.
    UpdateCompanySetting(CompanyId),
    /// Read one setting of a company (`GET /setting/{key}`): public keys for anyone, secrets for
    /// the super user only, other platform keys for any signed-in user, company keys for the
    /// company's users.
    ReadSetting(CompanyId, &'static SettingDef),
    /// Change one setting: company keys as [`Action::UpdateCompanySetting`], platform keys as
    /// [`Action::UpdatePlatformSetting`].
    UpdateSetting(CompanyId, &'static SettingDef),
    /// Change a platform setting (signup and user-creation toggles, payment keys, appearance):
    /// the super user.
    UpdatePlatformSetting,

    // ----------------------------------------------------------- platform (super)
    /// Create, edit, delete and list companies: the super user.
    ManageCompanies,
    /// Create, edit and delete plans: the super user.
    ManagePlans,
    /// Create, edit and delete help entries: the super user.
    ManageHelps,
    /// Create, edit and delete announcements: the super user.
    ManageAnnouncements,
    /// See every company's connections (`/allConnections`): the super user.
    ViewAllConnections,
    /// Change the whitelabel appearance (colours, name, logos): the super user.
    ManageWhitelabel,

    // ----------------------------------------------------------- company areas
    /// The administration section (users, queues, connections, files, financeiro, settings):
    /// admins, and users with `allowConnections`.
    ViewAdministration(CompanyId),
    /// The dashboard: admins, and users with `showDashboard`.
    ViewDashboard(CompanyId),
    /// The real-time attendance panel (`/moments`): admins, and users with `allowRealTime`.
    ViewRealTime(CompanyId),
    /// The reports page: any user of the company (the specification sets no role check).
    ViewReports(CompanyId),
    /// Add, edit, delete, connect and disconnect connections: admins, and users with
    /// `allowConnections`.
    ManageConnections(CompanyId),
    /// List the company's connections (inbox filters, new ticket): any user of the company.
    ListConnections(CompanyId),
    /// Manage queues and their chatbots: the administration section.
    ManageQueues(CompanyId),
    /// Manage file lists: the administration section.
    ManageFiles(CompanyId),
    /// Invoices and checkout (`/financeiro`): the administration section.
    ViewFinance(CompanyId),
    /// Manage conversation flows (`/flowbuilders`): the administration section.
    ManageFlows(CompanyId),
    /// See, retry and discard the inbound events that could not be stored
    /// (`/inbound-failures`): admins.
    ManageInboundFailures(CompanyId),
    /// Drive the sandbox channel's simulated phones (`/sandbox/...`: scan, send as a phone, read
    /// what phones received): admins.
    UseSandbox(CompanyId),

    // ------------------------------------------------------------------ tickets
    /// See tickets without a queue: users with `allTicket` enabled.
    ViewTicketsWithoutQueue(CompanyId),
    /// See group tickets and the group tab: users with `allowGroup`.
    ViewGroupTickets(CompanyId),
    /// See other queues' ticket history: admins, and users with `allHistoric`.
    ViewOtherQueuesHistory(CompanyId),
    /// See other users' tickets (show-all): `tickets-manager:showall`.
    ShowAllTickets(CompanyId),
    /// Work on a ticket (return, resolve, transfer): an unassigned ticket or one's own for any user
    /// of the company; someone else's with [`Action::ShowAllTickets`].
    HandleTicket(TicketTarget),
    /// Close or ignore a pending ticket: admins, and users with `userClosePendingTicket`.
    CloseOrIgnorePendingTicket(CompanyId),
    /// Delete a ticket: `ticket-options:deleteTicket`.
    DeleteTicket(CompanyId),
    /// Close every ticket of a status and queues: `tickets-manager:closeAll`.
    CloseAllTickets(CompanyId),

    // -------------------------------------------------------- contacts, messages
    /// Delete a contact: `contacts-page:deleteContact`.
    DeleteContact(CompanyId),
    /// Export every contact of the company to a spreadsheet (`GET /contacts/export`): admins.
    /// The whole contact base with numbers is the company's data, not an attendant's tool.
    ExportContacts(CompanyId),
    /// Delete a company tag (`DELETE /tags/{id}`), which takes it off every contact and ticket:
    /// admins. Creating, editing and attaching tags stays with every user.
    DeleteTag(CompanyId),
    /// Edit a message: one's own messages only (the 15-minute window is
    /// [`crate::ticket::can_edit_message`]).
    EditMessage(MessageTarget),
    /// Delete a message: one's own messages only.
    DeleteMessage(MessageTarget),
}

impl Action {
    /// The company of the resource the action touches; `None` for platform-level actions.
    pub fn company(&self) -> Option<CompanyId> {
        use Action::*;
        match *self {
            ViewUsers(c)
            | ListUsersBrief(c)
            | CreateUser(c)
            | ViewCompany(c)
            | ViewCompanySettings(c)
            | UpdateCompanySetting(c)
            | ReadSetting(c, _)
            | UpdateSetting(c, _)
            | ViewAdministration(c)
            | ViewDashboard(c)
            | ViewRealTime(c)
            | ViewReports(c)
            | ManageConnections(c)
            | ListConnections(c)
            | ManageQueues(c)
            | ManageFiles(c)
            | ViewFinance(c)
            | ManageFlows(c)
            | ManageInboundFailures(c)
            | UseSandbox(c)
            | ViewTicketsWithoutQueue(c)
            | ViewGroupTickets(c)
            | ViewOtherQueuesHistory(c)
            | ShowAllTickets(c)
            | CloseOrIgnorePendingTicket(c)
            | DeleteTicket(c)
            | CloseAllTickets(c)
            | DeleteContact(c)
            | ExportContacts(c)
            | DeleteTag(c) => Some(c),
            ReadUser(t)
            | UpdateUser(t)
            | UpdateUserPrivileges(t)
            | DeleteUser(t)
            | UploadAvatar(t)
            | SetOwnPanelWidth(t) => Some(t.company),
            HandleTicket(t) => Some(t.company),
            EditMessage(m) | DeleteMessage(m) => Some(m.company),
            UpdatePlatformSetting
            | ManageCompanies
            | ManagePlans
            | ManageHelps
            | ManageAnnouncements
            | ViewAllConnections
            | ManageWhitelabel => None,
        }
    }

    /// True for actions the super user may perform on any company's resources.
    fn crosses_companies_for_super(&self) -> bool {
        match self {
            Action::ViewCompany(_) => true,
            // Platform keys are the same for every company.
            Action::ReadSetting(_, def) | Action::UpdateSetting(_, def) => {
                def.scope == Scope::Platform
            }
            _ => false,
        }
    }
}

fn admin_over(actor: &Actor, target: &UserTarget) -> bool {
    is_admin_like(actor) && (!target.is_super || actor.is_super)
}

fn has_static(actor: &Actor, permission: Permission) -> bool {
    static_permissions(actor).contains(&permission)
}

/// The rule of each action, once the company check has passed.
fn allowed(actor: &Actor, action: &Action) -> bool {
    use Action::*;
    let flags = &actor.flags;
    let admin = is_admin_like(actor);
    let administration = admin || flags.allow_connections.is_on();
    let is_self = |t: &UserTarget| t.id == actor.user_id;
    match *action {
        ViewUsers(_) => administration,
        ListUsersBrief(_) => true,
        CreateUser(_) => admin,
        ReadUser(t) => is_self(&t) || administration,
        UpdateUser(t) | UploadAvatar(t) => is_self(&t) || admin_over(actor, &t),
        UpdateUserPrivileges(t) => admin_over(actor, &t),
        DeleteUser(t) => !is_self(&t) && admin_over(actor, &t),
        SetOwnPanelWidth(t) => is_self(&t),

        ViewCompany(c) => c == actor.company_id || actor.is_super,
        ViewCompanySettings(_) => administration,
        UpdateCompanySetting(_) => admin,
        ReadSetting(_, def) => {
            if def.public {
                true
            } else if def.secret {
                actor.is_super
            } else {
                // Platform keys that are neither public nor secret (userCreation) may be read by
                // anyone signed in; company keys by the company's users (company already checked).
                true
            }
        }
        UpdateSetting(c, def) => match def.scope {
            Scope::Company => allowed(actor, &UpdateCompanySetting(c)),
            Scope::Platform => allowed(actor, &UpdatePlatformSetting),
        },
        UpdatePlatformSetting
        | ManageCompanies
        | ManagePlans
        | ManageHelps
        | ManageAnnouncements
        | ViewAllConnections
        | ManageWhitelabel => actor.is_super,

        ViewAdministration(_) => administration,
        ViewDashboard(_) => admin || flags.show_dashboard.is_on(),
        ViewRealTime(_) => admin || flags.allow_real_time.is_on(),
        ViewReports(_) | ListConnections(_) => true,
        ManageConnections(_) => administration,
        ManageQueues(_) | ManageFiles(_) | ViewFinance(_) | ManageFlows(_) => administration,
        ManageInboundFailures(_) | UseSandbox(_) => admin,

        ViewTicketsWithoutQueue(_) => flags.all_ticket == AllTicket::Enable,
        ViewGroupTickets(_) => flags.allow_group,
        ViewOtherQueuesHistory(_) => admin || flags.all_historic.is_on(),
        ShowAllTickets(_) => has_static(actor, Permission::TicketsManagerShowAll),
        HandleTicket(t) => match t.owner {
            None => true,
            Some(owner) if owner == actor.user_id => true,
            Some(_) => has_static(actor, Permission::TicketsManagerShowAll),
        },
        CloseOrIgnorePendingTicket(_) => admin || flags.user_close_pending_ticket.is_on(),
        DeleteTicket(_) => has_static(actor, Permission::TicketOptionsDeleteTicket),
        CloseAllTickets(_) => has_static(actor, Permission::TicketsManagerCloseAll),

        DeleteContact(_) => has_static(actor, Permission::ContactsPageDeleteContact),
        ExportContacts(_) | DeleteTag(_) => admin,
        EditMessage(m) | DeleteMessage(m) => m.own,
    }
}

/// May `actor` perform `action`? `Ok(())` or `ERR_NO_PERMISSION`.
///
/// The one source of truth for permissions. A resource of another company is always denied,
/// except to the super user for platform-level actions (reading any company's record and the
/// platform settings).
pub fn authorize(actor: &Actor, action: &Action) -> Result<()> {
    let same_company = match action.company() {
        None => true,
        Some(company) => {
            company == actor.company_id || (actor.is_super && action.crosses_companies_for_super())
        }
    };
    if same_company && allowed(actor, action) {
        Ok(())
    } else {
        Err(Error::new(ErrorCode::ERR_NO_PERMISSION))
    }
}

/// True when [`authorize`] allows the action.
pub fn can(actor: &Actor, action: &Action) -> bool {
    authorize(actor, action).is_ok()
}

/// What the capability list needs to know besides the actor and the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CapabilityContext {
    /// At least one help entry exists (the helps menu entry shows only then).
    pub helps_exist: bool,
}

/// The facts a capability is decided on.
struct Facts<'a> {
    actor: &'a Actor,
    plan: &'a PlanFlags,
    ctx: &'a CapabilityContext,
}

impl Facts<'_> {
    fn can(&self, action: fn(CompanyId) -> Action) -> bool {
        can(self.actor, &action(self.actor.company_id))
    }

    fn can_platform(&self, action: Action) -> bool {
        can(self.actor, &action)
    }

    fn can_on_self(&self, action: fn(UserTarget) -> Action) -> bool {
        can(self.actor, &action(UserTarget::actor(self.actor)))
    }
}

macro_rules! capability_table {
    ($($name:literal => |$facts:ident| $rule:expr,)*) => {
        /// Every capability name the web app may gate on, in a fixed order: the static permissions
        /// of spec 1 §6, the side-menu entries (`menu:*`), pages (`page:*`), platform settings and
        /// inbox switches (`tickets:*`).
        pub const CAPABILITIES: &[&str] = &[$($name),*];

        /// The rule of each entry of [`CAPABILITIES`], in the same order.
        const RULES: &[fn(&Facts<'_>) -> bool] = &[$(|$facts: &Facts<'_>| $rule),*];
    };
}

capability_table! {
    // Static permissions, widened by the flags that treat a plain user as admin for an area.
    "dashboard:view" => |f| f.can(Action::ViewDashboard),
    "drawer-admin-items:view" => |f| f.can(Action::ViewAdministration),
    "tickets-manager:showall" => |f| f.can(Action::ShowAllTickets),
    "user-modal:editProfile" => |f| f.can_on_self(Action::UpdateUserPrivileges),
    "user-modal:editQueues" => |f| f.can_on_self(Action::UpdateUserPrivileges),
    "ticket-options:deleteTicket" => |f| f.can(Action::DeleteTicket),
    "contacts-page:deleteContact" => |f| f.can(Action::DeleteContact),
    "connections-page:actionButtons" => |f| f.can(Action::ManageConnections),
    "connections-page:addConnection" => |f| f.can(Action::ManageConnections),
    "connections-page:editOrDeleteConnection" => |f| f.can(Action::ManageConnections),
    "tickets-manager:closeAll" => |f| f.can(Action::CloseAllTickets),
    // Side menu: management group.
    "menu:dashboard" => |f| f.can(Action::ViewDashboard),
    "menu:reports" => |f| f.can(Action::ViewDashboard) || f.can(Action::ViewRealTime),
    "menu:moments" => |f| f.can(Action::ViewRealTime),
    // Side menu: everyone's entries.
    "menu:tickets" => |_f| true,
    "menu:quick-messages" => |_f| true,
    "menu:contacts" => |_f| true,
    "menu:tags" => |_f| true,
    "menu:helps" => |f| f.ctx.helps_exist,
    // Side menu: plan features.
    "menu:kanban" => |f| f.plan.use_kanban,
    "menu:schedules" => |f| f.plan.use_schedules,
    "menu:chats" => |f| f.plan.use_internal_chat,
    "menu:campaigns" => |f| f.plan.use_campaigns,
    "menu:messages-api" => |f| f.plan.use_external_api,
    "menu:prompts" => |f| f.plan.use_open_ai,
    "menu:queue-integration" => |f| f.plan.use_integrations,
    // Side menu: administration section.
    "menu:flowbuilders" => |f| f.can(Action::ManageFlows),
    "menu:connections" => |f| f.can(Action::ManageConnections),
    "menu:users" => |f| f.can(Action::ViewUsers),
    "menu:queues" => |f| f.can(Action::ManageQueues),
    "menu:files" => |f| f.can(Action::ManageFiles),
    "menu:financeiro" => |f| f.can(Action::ViewFinance),
    "menu:settings" => |f| f.can(Action::ViewCompanySettings),
    // Side menu: super only.
    "menu:announcements" => |f| f.can_platform(Action::ManageAnnouncements),
    "menu:all-connections" => |f| f.can_platform(Action::ViewAllConnections),
    "menu:companies" => |f| f.can_platform(Action::ManageCompanies),
    // Pages and tabs.
    "page:users" => |f| f.can(Action::ViewUsers),
    "page:settings" => |f| f.can(Action::ViewCompanySettings),
    "settings:platform" => |f| f.can_platform(Action::UpdatePlatformSetting),
    // Inbox switches.
    "tickets:groups" => |f| f.can(Action::ViewGroupTickets),
    "tickets:without-queue" => |f| f.can(Action::ViewTicketsWithoutQueue),
    "tickets:close-pending" => |f| f.can(Action::CloseOrIgnorePendingTicket),
    "tickets:all-history" => |f| f.can(Action::ViewOtherQueuesHistory),
    // Contacts and tags.
    "contacts:export" => |f| f.can(Action::ExportContacts),
    "tags:delete" => |f| f.can(Action::DeleteTag),
}

/// Everything the web app gates on that the policy grants `actor` under `plan`, as names from
/// [`CAPABILITIES`] in that list's order.
pub fn capabilities(actor: &Actor, plan: &PlanFlags, ctx: &CapabilityContext) -> Vec<String> {
    let facts = Facts { actor, plan, ctx };
    CAPABILITIES
        .iter()
        .zip(RULES)
        .filter(|(_, rule)| rule(&facts))
        .map(|(name, _)| (*name).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::{Profile, Toggle, UserFlags};
    use crate::settings::lookup;

    const HOME: CompanyId = CompanyId(2);
    const OTHER: CompanyId = CompanyId(3);

    fn actor(profile: Profile) -> Actor {
        Actor {
            user_id: UserId(10),
            company_id: HOME,
            profile,
            is_super: false,
            flags: UserFlags::default(),
            queue_ids: Vec::new(),
        }
    }

    fn admin() -> Actor {
        actor(Profile::Admin)
    }

    fn user() -> Actor {
        actor(Profile::User)
    }

    fn super_user() -> Actor {
        Actor {
            company_id: CompanyId::PLATFORM,
            is_super: true,
            ..admin()
        }
    }

    fn target(company: CompanyId, id: i64) -> UserTarget {
        UserTarget {
            company,
            id: UserId(id),
            is_super: false,
        }
    }

    fn setting(key: &str) -> &'static SettingDef {
        lookup(key).unwrap_or_else(|| panic!("{key} is in the catalogue"))
    }

    #[test]
    fn sandbox_and_inbound_failures_are_for_admins_of_the_company() {
        let mut connections_user = user();
        connections_user.flags.allow_connections = Toggle::Enabled;
        for action in [
            Action::UseSandbox(HOME),
            Action::ManageInboundFailures(HOME),
        ] {
            assert!(can(&admin(), &action), "{action:?}");
            assert!(!can(&user(), &action), "{action:?}");
            assert!(!can(&connections_user, &action), "{action:?}");
            assert!(!can(&admin(), &with_company(action, OTHER)), "{action:?}");
        }
    }

    #[test]
    fn permission_wire_names() {
        for permission in Permission::ALL {
            let json = serde_json::to_string(&permission).expect("serialises");
            assert_eq!(json, format!("\"{}\"", permission.as_str()));
            let back: Permission = serde_json::from_str(&json).expect("deserialises");
            assert_eq!(back, permission);
            assert_eq!(permission.to_string(), permission.as_str());
        }
        let names: Vec<&str> = Permission::ALL.iter().map(|p| p.as_str()).collect();
        assert_eq!(names, CAPABILITIES[..11]);
    }

    #[test]
    fn static_table() {
        assert_eq!(static_permissions(&admin()).len(), 11);
        assert_eq!(static_permissions(&super_user()).len(), 11);
        assert!(static_permissions(&user()).is_empty());
        let mut chatty = user();
        chatty.flags.all_user_chat = Toggle::Enabled;
        assert_eq!(
            static_permissions(&chatty),
            BTreeSet::from([Permission::TicketsManagerShowAll])
        );
    }

    #[test]
    fn capability_table_is_aligned() {
        assert_eq!(CAPABILITIES.len(), RULES.len());
        for (i, name) in CAPABILITIES.iter().enumerate() {
            assert!(!CAPABILITIES[i + 1..].contains(name), "duplicate {name}");
        }
    }

    #[test]
    fn cross_company_is_denied_even_to_admins() {
        let admin = admin();
        for action in [
            Action::ViewUsers(OTHER),
            Action::ListUsersBrief(OTHER),
            Action::CreateUser(OTHER),
            Action::ReadUser(target(OTHER, 10)),
            Action::UpdateUser(target(OTHER, 10)),
            Action::DeleteUser(target(OTHER, 11)),
            Action::ViewCompany(OTHER),
            Action::ViewCompanySettings(OTHER),
            Action::UpdateCompanySetting(OTHER),
            Action::ReadSetting(OTHER, setting("requiredTag")),
            Action::DeleteTicket(OTHER),
            Action::HandleTicket(TicketTarget {
                company: OTHER,
                owner: None,
            }),
            Action::EditMessage(MessageTarget {
                company: OTHER,
                own: true,
            }),
        ] {
            let err = authorize(&admin, &action).expect_err("other company");
            assert_eq!(err.code, ErrorCode::ERR_NO_PERMISSION, "{action:?}");
            assert!(
                can(&admin, &with_company(action, HOME)),
                "{action:?} at home"
            );
        }
    }

    /// The same action aimed at `company`.
    fn with_company(action: Action, company: CompanyId) -> Action {
        use Action::*;
        match action {
            ViewUsers(_) => ViewUsers(company),
            ListUsersBrief(_) => ListUsersBrief(company),
            CreateUser(_) => CreateUser(company),
            ReadUser(t) => ReadUser(UserTarget { company, ..t }),
            UpdateUser(t) => UpdateUser(UserTarget { company, ..t }),
            DeleteUser(t) => DeleteUser(UserTarget { company, ..t }),
            ViewCompany(_) => ViewCompany(company),
            ViewCompanySettings(_) => ViewCompanySettings(company),
            UpdateCompanySetting(_) => UpdateCompanySetting(company),
            ReadSetting(_, def) => ReadSetting(company, def),
            DeleteTicket(_) => DeleteTicket(company),
            HandleTicket(t) => HandleTicket(TicketTarget { company, ..t }),
            EditMessage(m) => EditMessage(MessageTarget { company, ..m }),
            UseSandbox(_) => UseSandbox(company),
            ManageInboundFailures(_) => ManageInboundFailures(company),
            other => other,
        }
    }

    #[test]
    fn super_user_crosses_companies_only_for_platform_actions() {
        let sup = super_user();
        assert!(can(&sup, &Action::ViewCompany(OTHER)));
        assert!(can(&sup, &Action::ManageCompanies));
        assert!(can(&sup, &Action::ReadSetting(OTHER, setting("keymp"))));
        assert!(can(&sup, &Action::UpdateSetting(OTHER, setting("appName"))));
        assert!(!can(&sup, &Action::ViewUsers(OTHER)));
        assert!(!can(&sup, &Action::DeleteTicket(OTHER)));
        assert!(!can(
            &sup,
            &Action::UpdateSetting(OTHER, setting("requiredTag"))
        ));
        assert!(!can(
            &sup,
            &Action::ReadSetting(OTHER, setting("requiredTag"))
        ));
    }

    #[test]
    fn platform_actions_are_super_only() {
        for action in [
            Action::UpdatePlatformSetting,
            Action::ManageCompanies,
            Action::ManagePlans,
            Action::ManageHelps,
            Action::ManageAnnouncements,
            Action::ViewAllConnections,
            Action::ManageWhitelabel,
        ] {
            assert!(can(&super_user(), &action), "{action:?}");
            assert!(!can(&admin(), &action), "{action:?}");
            assert!(!can(&user(), &action), "{action:?}");
        }
    }

    #[test]
    fn self_service_without_privileges() {
        let me = user();
        let myself = UserTarget::actor(&me);
        assert!(can(&me, &Action::ReadUser(myself)));
        assert!(can(&me, &Action::UpdateUser(myself)));
        assert!(can(&me, &Action::UploadAvatar(myself)));
        assert!(can(&me, &Action::SetOwnPanelWidth(myself)));
        assert!(!can(&me, &Action::UpdateUserPrivileges(myself)));
        assert!(!can(&me, &Action::DeleteUser(myself)));
        let colleague = target(HOME, 11);
        for action in [
            Action::ReadUser(colleague),
            Action::UpdateUser(colleague),
            Action::UploadAvatar(colleague),
            Action::UpdateUserPrivileges(colleague),
            Action::DeleteUser(colleague),
            Action::SetOwnPanelWidth(colleague),
            Action::CreateUser(HOME),
            Action::ViewUsers(HOME),
        ] {
            assert!(!can(&me, &action), "{action:?}");
        }
        assert!(can(&me, &Action::ListUsersBrief(HOME)));
    }

    #[test]
    fn admins_manage_users_but_not_the_super_user_nor_delete_themselves() {
        let admin = admin();
        let colleague = target(HOME, 11);
        for action in [
            Action::ReadUser(colleague),
            Action::UpdateUser(colleague),
            Action::UpdateUserPrivileges(colleague),
            Action::DeleteUser(colleague),
            Action::UploadAvatar(colleague),
            Action::CreateUser(HOME),
            Action::ViewUsers(HOME),
        ] {
            assert!(can(&admin, &action), "{action:?}");
        }
        assert!(!can(&admin, &Action::SetOwnPanelWidth(colleague)));
        assert!(!can(&admin, &Action::DeleteUser(UserTarget::actor(&admin))));
        assert!(can(
            &admin,
            &Action::UpdateUserPrivileges(UserTarget::actor(&admin))
        ));
        let the_super = UserTarget {
            is_super: true,
            ..colleague
        };
        assert!(!can(&admin, &Action::UpdateUser(the_super)));
        assert!(!can(&admin, &Action::UpdateUserPrivileges(the_super)));
        assert!(!can(&admin, &Action::DeleteUser(the_super)));
        assert!(can(&admin, &Action::ReadUser(the_super)));
        let sup = Actor {
            company_id: HOME,
            ..super_user()
        };
        assert!(can(&sup, &Action::UpdateUserPrivileges(the_super)));
    }

    #[test]
    fn flags_widen_a_plain_users_reach() {
        type Flag = fn(&mut UserFlags);
        let cases: [(Flag, Action); 8] = [
            (
                |f| f.show_dashboard = Toggle::Enabled,
                Action::ViewDashboard(HOME),
            ),
            (
                |f| f.allow_real_time = Toggle::Enabled,
                Action::ViewRealTime(HOME),
            ),
            (
                |f| f.allow_connections = Toggle::Enabled,
                Action::ManageConnections(HOME),
            ),
            (
                |f| f.allow_connections = Toggle::Enabled,
                Action::ViewUsers(HOME),
            ),
            (
                |f| f.all_historic = Toggle::Enabled,
                Action::ViewOtherQueuesHistory(HOME),
            ),
            (
                |f| f.user_close_pending_ticket = Toggle::Enabled,
                Action::CloseOrIgnorePendingTicket(HOME),
            ),
            (
                |f| f.all_ticket = AllTicket::Enable,
                Action::ViewTicketsWithoutQueue(HOME),
            ),
            (|f| f.allow_group = true, Action::ViewGroupTickets(HOME)),
        ];
        for (set_flag, action) in cases {
            let plain = user();
            assert!(!can(&plain, &action), "{action:?} without the flag");
            let mut flagged = user();
            set_flag(&mut flagged.flags);
            assert!(can(&flagged, &action), "{action:?} with the flag");
        }
        let mut section = user();
        section.flags.allow_connections = Toggle::Enabled;
        assert!(
            !can(&section, &Action::CreateUser(HOME)),
            "creating users stays with admins"
        );
        assert!(!can(&section, &Action::UpdateCompanySetting(HOME)));
        assert!(!can(
            &section,
            &Action::UpdateUserPrivileges(target(HOME, 11))
        ));
    }

    #[test]
    fn admin_only_ticket_and_contact_actions() {
        for action in [
            Action::DeleteTicket(HOME),
            Action::CloseAllTickets(HOME),
            Action::DeleteContact(HOME),
            Action::ExportContacts(HOME),
            Action::DeleteTag(HOME),
            Action::ShowAllTickets(HOME),
            Action::CloseOrIgnorePendingTicket(HOME),
            Action::ViewOtherQueuesHistory(HOME),
        ] {
            assert!(can(&admin(), &action), "{action:?}");
            assert!(!can(&user(), &action), "{action:?}");
        }
        // allTicket and allowGroup are per-user switches, for admins too.
        assert!(!can(&admin(), &Action::ViewGroupTickets(HOME)));
        assert!(!can(&admin(), &Action::ViewTicketsWithoutQueue(HOME)));
    }

    #[test]
    fn handling_someone_elses_ticket_needs_show_all() {
        let me = user();
        let mine = TicketTarget {
            company: HOME,
            owner: Some(me.user_id),
        };
        let nobodys = TicketTarget {
            company: HOME,
            owner: None,
        };
        let theirs = TicketTarget {
            company: HOME,
            owner: Some(UserId(99)),
        };
        assert!(can(&me, &Action::HandleTicket(mine)));
        assert!(can(&me, &Action::HandleTicket(nobodys)));
        assert!(!can(&me, &Action::HandleTicket(theirs)));
        let mut chatty = user();
        chatty.flags.all_user_chat = Toggle::Enabled;
        assert!(can(&chatty, &Action::HandleTicket(theirs)));
        assert!(can(&admin(), &Action::HandleTicket(theirs)));
    }

    #[test]
    fn messages_are_edited_and_deleted_by_their_sender_only() {
        let own = MessageTarget {
            company: HOME,
            own: true,
        };
        let not_own = MessageTarget {
            company: HOME,
            own: false,
        };
        for actor in [user(), admin()] {
            assert!(can(&actor, &Action::EditMessage(own)));
            assert!(can(&actor, &Action::DeleteMessage(own)));
            assert!(!can(&actor, &Action::EditMessage(not_own)));
            assert!(!can(&actor, &Action::DeleteMessage(not_own)));
        }
    }

    #[test]
    fn reading_settings() {
        let me = user();
        assert!(can(&me, &Action::ReadSetting(HOME, setting("requiredTag"))));
        assert!(can(&me, &Action::ReadSetting(HOME, setting("appName"))));
        assert!(can(
            &me,
            &Action::ReadSetting(HOME, setting("userCreation"))
        ));
        for secret in ["keymp", "asaas", "efi"] {
            assert!(
                !can(&me, &Action::ReadSetting(HOME, setting(secret))),
                "{secret}"
            );
            assert!(
                !can(&admin(), &Action::ReadSetting(HOME, setting(secret))),
                "{secret}"
            );
            assert!(can(
                &super_user(),
                &Action::ReadSetting(CompanyId::PLATFORM, setting(secret))
            ));
        }
        assert!(!can(&me, &Action::ViewCompanySettings(HOME)));
        assert!(can(&admin(), &Action::ViewCompanySettings(HOME)));
    }

    #[test]
    fn updating_settings_by_scope() {
        assert!(can(
            &admin(),
            &Action::UpdateSetting(HOME, setting("requiredTag"))
        ));
        assert!(!can(
            &user(),
            &Action::UpdateSetting(HOME, setting("requiredTag"))
        ));
        assert!(!can(
            &admin(),
            &Action::UpdateSetting(HOME, setting("allowSignup"))
        ));
        assert!(!can(
            &admin(),
            &Action::UpdateSetting(HOME, setting("asaas"))
        ));
        assert!(can(
            &super_user(),
            &Action::UpdateSetting(CompanyId::PLATFORM, setting("asaas"))
        ));
    }

    #[test]
    fn capabilities_of_a_plain_user() {
        let caps = capabilities(
            &user(),
            &PlanFlags::default(),
            &CapabilityContext::default(),
        );
        assert_eq!(
            caps,
            [
                "menu:tickets",
                "menu:quick-messages",
                "menu:contacts",
                "menu:tags"
            ]
        );
    }

    #[test]
    fn capabilities_follow_plan_flags_and_helps() {
        let plan = PlanFlags {
            use_kanban: true,
            use_open_ai: true,
            ..PlanFlags::default()
        };
        let ctx = CapabilityContext { helps_exist: true };
        let caps = capabilities(&user(), &plan, &ctx);
        assert!(caps.iter().any(|c| c == "menu:kanban"));
        assert!(caps.iter().any(|c| c == "menu:prompts"));
        assert!(caps.iter().any(|c| c == "menu:helps"));
        assert!(!caps.iter().any(|c| c == "menu:schedules"));
        assert!(!caps.iter().any(|c| c == "menu:campaigns"));
    }

    #[test]
    fn capabilities_of_admins_and_super() {
        let ctx = CapabilityContext::default();
        let admin_caps = capabilities(&admin(), &PlanFlags::ALL, &ctx);
        for permission in Permission::ALL {
            assert!(
                admin_caps.iter().any(|c| c == permission.as_str()),
                "{permission}"
            );
        }
        for name in [
            "menu:users",
            "menu:settings",
            "page:users",
            "page:settings",
            "menu:moments",
            "contacts:export",
            "tags:delete",
        ] {
            assert!(admin_caps.iter().any(|c| c == name), "{name}");
        }
        for name in [
            "menu:companies",
            "menu:announcements",
            "menu:all-connections",
            "settings:platform",
        ] {
            assert!(!admin_caps.iter().any(|c| c == name), "{name}");
        }
        let super_caps = capabilities(&super_user(), &PlanFlags::ALL, &ctx);
        for name in [
            "menu:companies",
            "menu:announcements",
            "menu:all-connections",
            "settings:platform",
        ] {
            assert!(super_caps.iter().any(|c| c == name), "{name}");
        }
    }

    #[test]
    fn management_group_entries_follow_their_flags() {
        let ctx = CapabilityContext::default();
        let mut dash = user();
        dash.flags.show_dashboard = Toggle::Enabled;
        let caps = capabilities(&dash, &PlanFlags::default(), &ctx);
        assert!(caps.iter().any(|c| c == "menu:dashboard"));
        assert!(caps.iter().any(|c| c == "menu:reports"));
        assert!(caps.iter().any(|c| c == "dashboard:view"));
        assert!(!caps.iter().any(|c| c == "menu:moments"));

        let mut live = user();
        live.flags.allow_real_time = Toggle::Enabled;
        let caps = capabilities(&live, &PlanFlags::default(), &ctx);
        assert!(caps.iter().any(|c| c == "menu:moments"));
        assert!(caps.iter().any(|c| c == "menu:reports"));
        assert!(!caps.iter().any(|c| c == "menu:dashboard"));
    }

    #[test]
    fn allow_connections_opens_the_administration_section() {
        let mut conn = user();
        conn.flags.allow_connections = Toggle::Enabled;
        let caps = capabilities(&conn, &PlanFlags::default(), &CapabilityContext::default());
        for name in [
            "drawer-admin-items:view",
            "connections-page:addConnection",
            "menu:connections",
            "menu:users",
            "menu:queues",
            "menu:files",
            "menu:financeiro",
            "menu:settings",
            "menu:flowbuilders",
        ] {
            assert!(caps.iter().any(|c| c == name), "{name}");
        }
        assert!(!caps.iter().any(|c| c == "user-modal:editProfile"));
        assert!(!caps.iter().any(|c| c == "tickets-manager:closeAll"));
        assert!(!caps.iter().any(|c| c == "contacts:export"));
        assert!(!caps.iter().any(|c| c == "tags:delete"));
    }
}
