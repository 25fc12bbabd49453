//! Tests of the policy through the public API: tenant isolation for every action, and the
//! capability list the web app receives.

use chatflow_core::identity::{Actor, AllTicket, Profile, Toggle, UserFlags};
use chatflow_core::ids::{CompanyId, UserId};
use chatflow_core::policy::{
    Action, CAPABILITIES, CapabilityContext, MessageTarget, Permission, TicketTarget, UserTarget,
    authorize, can, capabilities, static_permissions,
};
use chatflow_core::settings::{CATALOGUE, SettingDef};
use chatflow_core::tenancy::PlanFlags;
use chatflow_core::{ErrorCode, QueueId};
use proptest::prelude::*;

/// Every action that touches a company's resources, aimed at `company`.
fn company_actions(company: CompanyId) -> Vec<Action> {
    let user = UserTarget {
        company,
        id: UserId(50),
        is_super: false,
    };
    let ticket = TicketTarget {
        company,
        owner: None,
    };
    let message = MessageTarget { company, own: true };
    let mut actions = vec![
        Action::ViewUsers(company),
        Action::ListUsersBrief(company),
        Action::CreateUser(company),
        Action::ReadUser(user),
        Action::UpdateUser(user),
        Action::UpdateUserPrivileges(user),
        Action::DeleteUser(user),
        Action::UploadAvatar(user),
        Action::SetOwnPanelWidth(user),
        Action::ViewCompany(company),
        Action::ViewCompanySettings(company),
        Action::UpdateCompanySetting(company),
        Action::ViewAdministration(company),
        Action::ViewDashboard(company),
        Action::ViewRealTime(company),
        Action::ViewReports(company),
        Action::ManageConnections(company),
        Action::ListConnections(company),
        Action::ManageQueues(company),
        Action::ManageFiles(company),
        Action::ViewFinance(company),
        Action::ManageFlows(company),
        Action::ViewTicketsWithoutQueue(company),
        Action::ViewGroupTickets(company),
        Action::ViewOtherQueuesHistory(company),
        Action::ShowAllTickets(company),
        Action::HandleTicket(ticket),
        Action::CloseOrIgnorePendingTicket(company),
        Action::DeleteTicket(company),
        Action::CloseAllTickets(company),
        Action::DeleteContact(company),
        Action::EditMessage(message),
        Action::DeleteMessage(message),
    ];
    let company_settings = CATALOGUE
        .iter()
        .filter(|def| def.scope == chatflow_core::settings::Scope::Company);
    for def in company_settings {
        let def: &'static SettingDef = def;
        actions.push(Action::ReadSetting(company, def));
        actions.push(Action::UpdateSetting(company, def));
    }
    actions
}

fn toggle() -> impl Strategy<Value = Toggle> {
    prop_oneof![Just(Toggle::Enabled), Just(Toggle::Disabled)]
}

fn flags() -> impl Strategy<Value = UserFlags> {
    (
        (toggle(), toggle(), toggle(), toggle()),
        (toggle(), toggle(), any::<bool>(), any::<bool>()),
    )
        .prop_map(
            |(
                (all_historic, all_user_chat, user_close_pending_ticket, show_dashboard),
                (allow_real_time, allow_connections, allow_group, all_ticket),
            )| UserFlags {
                all_ticket: if all_ticket {
                    AllTicket::Enable
                } else {
                    AllTicket::Disable
                },
                allow_group,
                all_historic,
                all_user_chat,
                user_close_pending_ticket,
                show_dashboard,
                allow_real_time,
                allow_connections,
            },
        )
}

fn actor() -> impl Strategy<Value = Actor> {
    (
        1i64..20,
        prop_oneof![Just(Profile::Admin), Just(Profile::User)],
        any::<bool>(),
        flags(),
    )
        .prop_map(|(company, profile, is_super, flags)| Actor {
            user_id: UserId(50),
            company_id: CompanyId(company),
            profile,
            is_super,
            flags,
            queue_ids: vec![QueueId(1)],
        })
}

fn plan() -> impl Strategy<Value = PlanFlags> {
    prop::array::uniform10(any::<bool>()).prop_map(|b| PlanFlags {
        use_whatsapp: b[0],
        use_facebook: b[1],
        use_instagram: b[2],
        use_campaigns: b[3],
        use_schedules: b[4],
        use_internal_chat: b[5],
        use_external_api: b[6],
        use_kanban: b[7],
        use_open_ai: b[8],
        use_integrations: b[9],
    })
}

proptest! {
    /// Nobody acts on another company's resources, whatever their profile and flags; the super
    /// user only reads other companies' records.
    #[test]
    fn no_action_crosses_companies(actor in actor(), offset in 1i64..5) {
        let other = CompanyId(actor.company_id.0 + offset);
        for action in company_actions(other) {
            let allowed = can(&actor, &action);
            if actor.is_super && matches!(action, Action::ViewCompany(_)) {
                prop_assert!(allowed);
            } else {
                prop_assert!(!allowed, "{:?} allowed across companies for {:?}", action, actor);
                let err = authorize(&actor, &action).expect_err("denied");
                prop_assert_eq!(err.code, ErrorCode::ERR_NO_PERMISSION);
            }
        }
    }

    /// A plain user never gets a privilege over another user, whatever the flags.
    #[test]
    fn plain_users_never_manage_others(mut actor in actor(), target_id in 51i64..60) {
        actor.profile = Profile::User;
        actor.is_super = false;
        let target = UserTarget { company: actor.company_id, id: UserId(target_id), is_super: false };
        for action in [
            Action::CreateUser(actor.company_id),
            Action::UpdateUser(target),
            Action::UpdateUserPrivileges(target),
            Action::DeleteUser(target),
            Action::UploadAvatar(target),
            Action::UpdateUserPrivileges(UserTarget::actor(&actor)),
            Action::UpdateCompanySetting(actor.company_id),
            Action::DeleteTicket(actor.company_id),
            Action::CloseAllTickets(actor.company_id),
            Action::DeleteContact(actor.company_id),
            Action::ManageCompanies,
            Action::UpdatePlatformSetting,
        ] {
            prop_assert!(!can(&actor, &action), "{:?}", action);
        }
    }

    /// The capability list is in catalogue order, always holds the everyday entries, includes the
    /// static permissions, and only grows when the plan switches a feature on.
    #[test]
    fn capabilities_are_consistent(actor in actor(), plan in plan(), helps in any::<bool>(), flag in 0usize..10) {
        let ctx = CapabilityContext { helps_exist: helps };
        let caps = capabilities(&actor, &plan, &ctx);
        let mut positions = caps.iter().map(|c| {
            CAPABILITIES.iter().position(|name| name == c).expect("a catalogued name")
        });
        let mut previous = positions.next();
        for next in positions {
            prop_assert!(previous < Some(next), "out of order or duplicated");
            previous = Some(next);
        }
        for everyday in ["menu:tickets", "menu:quick-messages", "menu:contacts", "menu:tags"] {
            prop_assert!(caps.iter().any(|c| c == everyday));
        }
        for permission in static_permissions(&actor) {
            prop_assert!(caps.iter().any(|c| c == permission.as_str()), "{}", permission);
        }
        prop_assert_eq!(caps.iter().any(|c| c == "menu:helps"), helps);

        let mut richer = plan;
        let switches = [
            &mut richer.use_whatsapp, &mut richer.use_facebook, &mut richer.use_instagram,
            &mut richer.use_campaigns, &mut richer.use_schedules, &mut richer.use_internal_chat,
            &mut richer.use_external_api, &mut richer.use_kanban, &mut richer.use_open_ai,
            &mut richer.use_integrations,
        ];
        for (i, switch) in switches.into_iter().enumerate() {
            if i == flag {
                *switch = true;
            }
        }
        let more = capabilities(&actor, &richer, &ctx);
        for c in &caps {
            prop_assert!(more.contains(c), "{} lost when a plan flag was switched on", c);
        }
    }
}

/// The capability names, serialised as the web app receives them. The web app keeps the same
/// string in its own test; a change here must be made there too.
#[test]
fn capability_names_are_stable() {
    let json = serde_json::to_string(CAPABILITIES).expect("serialises");
    assert_eq!(
        json,
        concat!(
            r#"["dashboard:view","drawer-admin-items:view","tickets-manager:showall","#,
            r#""user-modal:editProfile","user-modal:editQueues","ticket-options:deleteTicket","#,
            r#""contacts-page:deleteContact","connections-page:actionButtons","#,
            r#""connections-page:addConnection","connections-page:editOrDeleteConnection","#,
            r#""tickets-manager:closeAll","menu:dashboard","menu:reports","menu:moments","#,
            r#""menu:tickets","menu:quick-messages","menu:contacts","menu:tags","menu:helps","#,
            r#""menu:kanban","menu:schedules","menu:chats","menu:campaigns","menu:messages-api","#,
            r#""menu:prompts","menu:queue-integration","menu:flowbuilders","menu:connections","#,
            r#""menu:users","menu:queues","menu:files","menu:financeiro","menu:settings","#,
            r#""menu:announcements","menu:all-connections","menu:companies","page:users","#,
            r#""page:settings","settings:platform","tickets:groups","tickets:without-queue","#,
            r#""tickets:close-pending","tickets:all-history","contacts:export","tags:delete"]"#
        )
    );
    let permissions: Vec<&str> = Permission::ALL.iter().map(|p| p.as_str()).collect();
    assert_eq!(permissions, CAPABILITIES[..Permission::ALL.len()]);
}

/// The seeded super admin on the all-features plan sees every entry of the side menu.
#[test]
fn super_admin_sees_the_whole_menu() {
    let sup = Actor {
        user_id: UserId(1),
        company_id: CompanyId::PLATFORM,
        profile: Profile::Admin,
        is_super: true,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    };
    let caps = capabilities(
        &sup,
        &PlanFlags::ALL,
        &CapabilityContext { helps_exist: true },
    );
    for name in CAPABILITIES.iter().filter(|name| name.starts_with("menu:")) {
        assert!(caps.iter().any(|c| c == name), "{name}");
    }
    assert!(caps.iter().any(|c| c == "settings:platform"));
    // Per-user inbox switches stay per user, even for the super user.
    assert!(!caps.iter().any(|c| c == "tickets:groups"));
}
