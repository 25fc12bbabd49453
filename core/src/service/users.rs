//! Users of a company: create, read, update, delete, search, avatar and panel width.
//!
//! Every call is confined to the acting user's company: another company's user id answers
//! `ERR_NO_USER_FOUND`, exactly like an id that does not exist, so nothing about other tenants
//! leaks. Permission questions go to [`crate::policy::authorize`]; form rules to
//! [`crate::validation`]. The platform paths ([`create_in_company`], [`set_password`]) serve the
//! CLI and signup, which act for the platform rather than for a signed-in user.
//!
//! Self-service: a plain user may change their own name, e-mail, password, theme, menu mode and
//! farewell message. Everything else on a user (profile, queues, default connection, work hours
//! and the permission flags) is a privilege change, allowed only when the policy grants
//! `UpdateUserPrivileges`. A request that repeats a privileged field's current value is not a
//! change, so the web app may send its whole form.

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::events::{Event, SaveAction};
use crate::identity::{Actor, AllTicket, MenuMode, Profile, Theme, Toggle, User};
use crate::ids::{CompanyId, QueueId, TenantScope, UserId, WhatsappId};
use crate::policy::{self, Action, UserTarget};
use crate::ports::{NewUser, Page, PageRequest, QueueSummary, UserChanges, UserSettings};
use crate::service::Ports;
use crate::tenancy::Company;
use crate::validation::{self, FormMode};

/// The platform setting that switches user creation by company admins.
const USER_CREATION: &str = "userCreation";

/// Users per page of [`search`].
pub const PAGE_SIZE: u32 = 20;
/// The largest avatar accepted, in bytes (2 MiB).
pub const AVATAR_MAX_BYTES: usize = crate::limits::UploadKind::Avatar.max_bytes() as usize;
/// Work hours of a new user when the form leaves them out.
pub const DEFAULT_START_WORK: &str = validation::DEFAULT_START_WORK;
/// End of the working day of a new user when the form leaves it out.
pub const DEFAULT_END_WORK: &str = validation::DEFAULT_END_WORK;

/// The fields of a new user (`POST /users`, the CLI, signup).
///
/// Missing text fields deserialise as empty so validation, not the JSON reader, reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct NewUserInput {
    pub name: String,
    pub email: String,
    pub password: String,
    /// `user` when absent.
    pub profile: Option<Profile>,
    pub queue_ids: Vec<QueueId>,
    pub whatsapp_id: Option<WhatsappId>,
    /// "HH:MM", 00:00 when absent.
    pub start_work: Option<String>,
    /// "HH:MM", 23:59 when absent.
    pub end_work: Option<String>,
    pub farewell_message: Option<String>,
    pub all_ticket: Option<AllTicket>,
    pub allow_group: Option<bool>,
    pub default_theme: Option<Theme>,
    pub default_menu: Option<MenuMode>,
    pub all_historic: Option<Toggle>,
    pub all_user_chat: Option<Toggle>,
    pub user_close_pending_ticket: Option<Toggle>,
    pub show_dashboard: Option<Toggle>,
    pub allow_real_time: Option<Toggle>,
    pub allow_connections: Option<Toggle>,
}

/// A change to a user (`PUT /users/{id}`): absent fields stay as they are.
///
/// `whatsappId: null` clears the default connection; an empty `farewellMessage` clears it; an
/// empty or absent `password` keeps the current one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct UserUpdate {
    pub name: Option<String>,
    pub email: Option<String>,
    pub password: Option<String>,
    pub profile: Option<Profile>,
    pub queue_ids: Option<Vec<QueueId>>,
    #[serde(deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<WhatsappId>))]
    pub whatsapp_id: Option<Option<WhatsappId>>,
    pub start_work: Option<String>,
    pub end_work: Option<String>,
    pub farewell_message: Option<String>,
    pub all_ticket: Option<AllTicket>,
    pub allow_group: Option<bool>,
    pub default_theme: Option<Theme>,
    pub default_menu: Option<MenuMode>,
    pub all_historic: Option<Toggle>,
    pub all_user_chat: Option<Toggle>,
    pub user_close_pending_ticket: Option<Toggle>,
    pub show_dashboard: Option<Toggle>,
    pub allow_real_time: Option<Toggle>,
    pub allow_connections: Option<Toggle>,
}

/// Reads a field that was present in the JSON (even as `null`) as `Some`.
fn present<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// The company a user belongs to, as the user entity of spec 1 §3 carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserCompany {
    pub id: CompanyId,
    pub name: String,
    pub due_date: chrono::NaiveDate,
    pub document: Option<String>,
    pub address_street: Option<String>,
    pub address_state: Option<String>,
    pub address_city: Option<String>,
}

impl From<&Company> for UserCompany {
    fn from(c: &Company) -> Self {
        Self {
            id: c.id,
            name: c.name.clone(),
            due_date: c.due_date,
            document: c.document.clone(),
            address_street: c.address_street.clone(),
            address_state: c.address_state.clone(),
            address_city: c.address_city.clone(),
        }
    }
}

/// A user as the web app receives it: the entity plus its company and queues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    #[serde(flatten)]
    pub user: User,
    pub company: Option<UserCompany>,
    pub queues: Vec<QueueSummary>,
}

/// One entry of `GET /users/list`, the colleague picker any user of the company may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserSummary {
    pub id: UserId,
    pub name: String,
    pub profile: Profile,
    pub online: bool,
    pub profile_image: Option<String>,
}

impl From<&User> for UserSummary {
    fn from(u: &User) -> Self {
        Self {
            id: u.id,
            name: u.name.clone(),
            profile: u.profile,
            online: u.online,
            profile_image: u.profile_image.clone(),
        }
    }
}

/// One page of `GET /users/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserPage {
    pub users: Vec<UserView>,
    pub count: i64,
    pub has_more: bool,
}

/// An uploaded avatar before it is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvatarUpload {
    /// The content type the client declared.
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

/// A stored avatar, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Avatar {
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

// ------------------------------------------------------------------ creation

/// Creates a user in the actor's company (`POST /users`).
///
/// Needs `CreateUser`. Refused with `ERR_USER_CREATION_DISABLED` when the platform setting
/// `userCreation` is disabled (the super user is exempt), and with `ERR_USER_LIMIT_REACHED` when
/// the company's plan has no room left.
#[tracing::instrument(level = "debug", name = "users::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: NewUserInput) -> Result<UserView> {
    let scope = actor.scope();
    // Creating a user sets every field, privileged ones included: the policy keeps it to those
    // who may also change privileges.
    policy::authorize(actor, &Action::CreateUser(actor.company_id))?;
    if !actor.is_super && !platform_toggle_on(ports, USER_CREATION).await? {
        return Err(ErrorCode::ERR_USER_CREATION_DISABLED.into());
    }
    let user = create_in_company(ports, scope, input).await?;
    view(ports, scope, user).await
}

/// Creates a user in `scope`'s company for the platform (the CLI, signup): the same validation,
/// queue check and plan limit as [`create`], without an acting user.
#[tracing::instrument(level = "debug", name = "users::create_in_company", skip_all, fields(company = scope.company_id().0))]
pub async fn create_in_company(
    ports: &Ports,
    scope: TenantScope,
    input: NewUserInput,
) -> Result<User> {
    let email = validation::normalize_email(&input.email);
    let start_work = input
        .start_work
        .clone()
        .unwrap_or_else(|| DEFAULT_START_WORK.to_owned());
    let end_work = input
        .end_work
        .clone()
        .unwrap_or_else(|| DEFAULT_END_WORK.to_owned());
    validation::validate_user(
        &validation::UserInput {
            name: &input.name,
            email: &email,
            password: Some(&input.password),
            start_work: Some(&start_work),
            end_work: Some(&end_work),
        },
        FormMode::Create,
    )?;
    check_queues(ports, scope, &input.queue_ids).await?;
    check_connection(ports, scope, input.whatsapp_id).await?;
    check_plan_room(ports, scope).await?;

    let password_hash = ports.hasher.hash(&input.password).await?;
    let defaults = UserSettings {
        all_ticket: AllTicket::default(),
        allow_group: false,
        all_historic: Toggle::default(),
        all_user_chat: Toggle::default(),
        user_close_pending_ticket: Toggle::default(),
        show_dashboard: Toggle::default(),
        allow_real_time: Toggle::default(),
        allow_connections: Toggle::default(),
        start_work,
        end_work,
        farewell_message: None,
        default_theme: Theme::default(),
        default_menu: MenuMode::default(),
        whatsapp_id: None,
        queue_ids: Vec::new(),
    };
    let settings = UserSettings {
        all_ticket: input.all_ticket.unwrap_or(defaults.all_ticket),
        allow_group: input.allow_group.unwrap_or(defaults.allow_group),
        all_historic: input.all_historic.unwrap_or(defaults.all_historic),
        all_user_chat: input.all_user_chat.unwrap_or(defaults.all_user_chat),
        user_close_pending_ticket: input
            .user_close_pending_ticket
            .unwrap_or(defaults.user_close_pending_ticket),
        show_dashboard: input.show_dashboard.unwrap_or(defaults.show_dashboard),
        allow_real_time: input.allow_real_time.unwrap_or(defaults.allow_real_time),
        allow_connections: input
            .allow_connections
            .unwrap_or(defaults.allow_connections),
        farewell_message: non_empty(input.farewell_message),
        default_theme: input.default_theme.unwrap_or(defaults.default_theme),
        default_menu: input.default_menu.unwrap_or(defaults.default_menu),
        whatsapp_id: input.whatsapp_id,
        queue_ids: dedup(input.queue_ids),
        ..defaults
    };
    let new_user = NewUser {
        name: input.name.trim().to_owned(),
        email,
        password_hash,
        profile: input.profile.unwrap_or(Profile::User),
        is_super: false,
        settings,
    };
    ports.users.create(scope, &new_user).await
}

/// Sets a user's password for the platform (the CLI) and revokes every session of the user.
#[tracing::instrument(level = "debug", name = "users::set_password", skip_all, fields(company = scope.company_id().0, user = user_id.0))]
pub async fn set_password(
    ports: &Ports,
    scope: TenantScope,
    user_id: UserId,
    password: &str,
) -> Result<User> {
    let len = password.chars().count();
    let problem = if len == 0 {
        Some(FieldCode::Required)
    } else if len < validation::PASSWORD_MIN_CHARS {
        Some(FieldCode::TooShort)
    } else if len > validation::PASSWORD_MAX_CHARS {
        Some(FieldCode::TooLong)
    } else {
        None
    };
    if let Some(code) = problem {
        return Err(Error::validation(vec![FieldError::new("password", code)]));
    }
    let password_hash = ports.hasher.hash(password).await?;
    let changes = UserChanges {
        password_hash: Some(password_hash),
        ..UserChanges::default()
    };
    let user = ports
        .users
        .update(scope, user_id, &changes)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    ports.sessions.revoke_user(scope, user_id).await?;
    Ok(user)
}

// ------------------------------------------------------------------ reading

/// One user of the actor's company (`GET /users/{id}`).
#[tracing::instrument(level = "debug", name = "users::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn get(ports: &Ports, actor: &Actor, user_id: UserId) -> Result<UserView> {
    let scope = actor.scope();
    let user = find(ports, scope, user_id).await?;
    policy::authorize(actor, &Action::ReadUser(UserTarget::of(&user)))?;
    view(ports, scope, user).await
}

/// The colleague picker (`GET /users/list`): every user of the actor's company, briefly.
#[tracing::instrument(level = "debug", name = "users::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<UserSummary>> {
    policy::authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    let users = ports.users.list_all(actor.scope()).await?;
    Ok(users.iter().map(UserSummary::from).collect())
}

/// The users table (`GET /users/`): a lower-cased search on name and e-mail, 20 per page.
#[tracing::instrument(level = "debug", name = "users::search", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn search(
    ports: &Ports,
    actor: &Actor,
    search: &str,
    page_number: u32,
) -> Result<UserPage> {
    policy::authorize(actor, &Action::ViewUsers(actor.company_id))?;
    let scope = actor.scope();
    let page = PageRequest {
        page_number: page_number.max(1),
        page_size: PAGE_SIZE,
    };
    let Page {
        items,
        count,
        has_more,
    } = ports
        .users
        .search(scope, &search.trim().to_lowercase(), page)
        .await?;
    let company = ports.companies.get(scope).await?;
    let queues = ports.queues.list(scope).await?;
    let users = items
        .into_iter()
        .map(|u| assemble(u, company.as_ref(), &queues))
        .collect();
    Ok(UserPage {
        users,
        count,
        has_more,
    })
}

// ------------------------------------------------------------------ changes

/// Changes a user of the actor's company (`PUT /users/{id}`).
///
/// Self-service fields need `UpdateUser`; any real change to a privileged field also needs
/// `UpdateUserPrivileges` (the policy keeps super users to the super user). A password change
/// signs the user out everywhere at once (their sessions are revoked, so their access tokens stop
/// working), except, when users change their own password, the session that made the change
/// (`acting_session`, the access token's session id).
#[tracing::instrument(level = "debug", name = "users::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    acting_session: Option<uuid::Uuid>,
    user_id: UserId,
    changes: UserUpdate,
) -> Result<UserView> {
    let scope = actor.scope();
    let current = find(ports, scope, user_id).await?;
    let target = UserTarget::of(&current);
    policy::authorize(actor, &Action::UpdateUser(target))?;

    let settings = merged_settings(&current, &changes);
    let profile = changes.profile.unwrap_or(current.profile);
    if profile != current.profile || privileged_settings_changed(&current, &settings) {
        policy::authorize(actor, &Action::UpdateUserPrivileges(target))?;
    }

    let name = changes
        .name
        .as_deref()
        .map_or_else(|| current.name.clone(), |n| n.trim().to_owned());
    let email = changes
        .email
        .as_deref()
        .map_or_else(|| current.email.clone(), validation::normalize_email);
    let password = changes.password.as_deref().filter(|p| !p.is_empty());
    validation::validate_user(
        &validation::UserInput {
            name: &name,
            email: &email,
            password,
            start_work: Some(&settings.start_work),
            end_work: Some(&settings.end_work),
        },
        FormMode::Update,
    )?;
    if changes.queue_ids.is_some() {
        check_queues(ports, scope, &settings.queue_ids).await?;
    }
    if let Some(connection) = changes.whatsapp_id {
        check_connection(ports, scope, connection).await?;
    }
    let password_hash = match password {
        Some(p) => Some(ports.hasher.hash(p).await?),
        None => None,
    };
    let revoke = password_hash.is_some();
    let user_changes = UserChanges {
        name: Some(name),
        email: Some(email),
        password_hash,
        profile: Some(profile),
        settings: Some(settings),
        ..UserChanges::default()
    };
    let user = ports
        .users
        .update(scope, user_id, &user_changes)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    if revoke {
        match acting_session.filter(|_| actor.user_id == user_id) {
            Some(keep) => {
                ports
                    .sessions
                    .revoke_user_except(scope, user_id, keep)
                    .await?;
            }
            None => ports.sessions.revoke_user(scope, user_id).await?,
        }
    }
    view(ports, scope, user).await
}

/// Deletes a user of the actor's company (`DELETE /users/{id}`): never oneself, never the super
/// user unless by a super user (the policy's rules). The store revokes the user's sessions,
/// deletes the user and appends the event in one transaction; then the avatar is removed.
#[tracing::instrument(level = "debug", name = "users::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, user_id: UserId) -> Result<()> {
    let scope = actor.scope();
    let current = find(ports, scope, user_id).await?;
    policy::authorize(actor, &Action::DeleteUser(UserTarget::of(&current)))?;
    if !ports.users.delete(scope, user_id).await? {
        return Err(ErrorCode::ERR_NO_USER_FOUND.into());
    }
    if let Some(image) = &current.profile_image {
        // The row is gone; a file left behind is only wasted space, so a failure is not an error.
        let _ = ports.media.delete(scope, image).await;
    }
    Ok(())
}

/// Sets the width of a user's tickets panel (`PUT /users/toggleChangeWidht/{id}`), 404 to 700.
#[tracing::instrument(level = "debug", name = "users::toggle_tickets_manager_width", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn toggle_tickets_manager_width(
    ports: &Ports,
    actor: &Actor,
    user_id: UserId,
    width: i64,
) -> Result<UserView> {
    let scope = actor.scope();
    let current = find(ports, scope, user_id).await?;
    policy::authorize(actor, &Action::SetOwnPanelWidth(UserTarget::of(&current)))?;
    validation::validate_tickets_panel_width(width)?;
    let changes = UserChanges {
        default_tickets_manager_width: Some(width),
        ..UserChanges::default()
    };
    let user = ports
        .users
        .update(scope, user_id, &changes)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    view(ports, scope, user).await
}

/// Replaces a user's avatar (`POST /users/{id}/media-upload`).
///
/// Only PNG, JPEG, GIF and WebP images (checked by their content, not just the declared type)
/// up to [`AVATAR_MAX_BYTES`]: larger files give `ERR_PAYLOAD_TOO_LARGE`, other files a validation
/// error on `profileImage`.
#[tracing::instrument(level = "debug", name = "users::upload_avatar", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn upload_avatar(
    ports: &Ports,
    actor: &Actor,
    user_id: UserId,
    upload: AvatarUpload,
) -> Result<UserView> {
    let scope = actor.scope();
    let current = find(ports, scope, user_id).await?;
    policy::authorize(actor, &Action::UploadAvatar(UserTarget::of(&current)))?;
    if upload.bytes.len() > AVATAR_MAX_BYTES {
        return Err(ErrorCode::ERR_PAYLOAD_TOO_LARGE.into());
    }
    let kind = ImageKind::sniff(&upload.bytes)
        .filter(|k| {
            upload
                .content_type
                .as_deref()
                .is_none_or(|declared| k.accepts_declared(declared))
        })
        .ok_or_else(|| {
            Error::validation(vec![FieldError::new(
                "profileImage",
                FieldCode::InvalidFormat,
            )])
        })?;
    let file_name = format!("avatar-{user_id}.{}", kind.extension());
    let stored = ports.media.put(scope, &file_name, &upload.bytes).await?;
    let changes = UserChanges {
        profile_image: Some(Some(stored.clone())),
        ..UserChanges::default()
    };
    let user = ports
        .users
        .update(scope, user_id, &changes)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    if let Some(old) = current.profile_image.filter(|old| *old != stored) {
        // The new avatar is in place; an old file left behind is only wasted space.
        let _ = ports.media.delete(scope, &old).await;
    }
    view(ports, scope, user).await
}

/// The avatar of a user of the actor's company, for any user of that company.
#[tracing::instrument(level = "debug", name = "users::avatar", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, user_id = user_id.0))]
pub async fn avatar(ports: &Ports, actor: &Actor, user_id: UserId) -> Result<Avatar> {
    let scope = actor.scope();
    // Whoever may see the colleague list may see its pictures.
    policy::authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    let user = find(ports, scope, user_id).await?;
    let name = user.profile_image.ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let bytes = ports
        .media
        .get(scope, &name)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let kind = ImageKind::sniff(&bytes).ok_or(ErrorCode::ERR_NOT_FOUND)?;
    Ok(Avatar {
        content_type: kind.mime(),
        bytes,
    })
}

/// Records whether a user has a live connection (the socket heartbeat) and tells the company
/// (the store appends the user's `update` event with the write).
#[tracing::instrument(level = "debug", name = "users::set_online", skip_all, fields(company = scope.company_id().0, user = user_id.0))]
pub async fn set_online(
    ports: &Ports,
    scope: TenantScope,
    user_id: UserId,
    online: bool,
) -> Result<()> {
    ports.users.set_online(scope, user_id, online).await
}

/// Builds the web app's view of a user: the entity with its company and queues.
#[tracing::instrument(level = "debug", name = "users::view", skip_all, fields(company = scope.company_id().0))]
pub async fn view(ports: &Ports, scope: TenantScope, user: User) -> Result<UserView> {
    let company = ports.companies.get(scope).await?;
    let queues = ports.queues.list(scope).await?;
    Ok(assemble(user, company.as_ref(), &queues))
}

// ------------------------------------------------------------------ helpers

/// `company-{id}-user` `{action, user}` for a created or changed user, for the whole company.
/// The payload holds only what every member of the company may see (the `GET /users/list`
/// fields); admins' tables refetch for the rest. The store appends it with the write.
pub fn user_saved_event(action: SaveAction, user: &User) -> Event {
    Event::UserSaved {
        action,
        user: Box::new(UserSummary::from(user)),
    }
}

/// `company-{id}-user` `{action: "delete", userId}` for the whole company.
pub fn user_deleted_event(id: UserId) -> Event {
    Event::UserDeleted { user_id: id }
}

fn assemble(user: User, company: Option<&Company>, queues: &[QueueSummary]) -> UserView {
    let queues = queues
        .iter()
        .filter(|q| user.queue_ids.contains(&q.id))
        .cloned()
        .collect();
    UserView {
        company: company.map(UserCompany::from),
        queues,
        user,
    }
}

async fn find(ports: &Ports, scope: TenantScope, user_id: UserId) -> Result<User> {
    ports
        .users
        .get(scope, user_id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_USER_FOUND.into())
}

async fn platform_toggle_on(ports: &Ports, key: &str) -> Result<bool> {
    let stored = ports.settings.platform_settings().await?;
    Ok(crate::settings::is_enabled(
        &crate::settings::to_map(&stored),
        key,
    ))
}

async fn check_plan_room(ports: &Ports, scope: TenantScope) -> Result<()> {
    let plan = crate::service::companies::plan_of(ports, scope).await?;
    if ports.users.count(scope).await? >= plan.users {
        return Err(ErrorCode::ERR_USER_LIMIT_REACHED.into());
    }
    Ok(())
}

/// A default connection named must be one of the company's (`ERR_NO_WAPP_FOUND`).
async fn check_connection(
    ports: &Ports,
    scope: TenantScope,
    connection: Option<WhatsappId>,
) -> Result<()> {
    match connection {
        Some(id) if ports.connections.get(scope, id).await?.is_none() => {
            Err(ErrorCode::ERR_NO_WAPP_FOUND.into())
        }
        _ => Ok(()),
    }
}

/// Every queue named must be one of the company's.
async fn check_queues(ports: &Ports, scope: TenantScope, queue_ids: &[QueueId]) -> Result<()> {
    if queue_ids.is_empty() {
        return Ok(());
    }
    let known = ports.queues.list(scope).await?;
    if queue_ids.iter().all(|id| known.iter().any(|q| q.id == *id)) {
        Ok(())
    } else {
        Err(Error::validation(vec![FieldError::new(
            "queueIds",
            FieldCode::InvalidFormat,
        )]))
    }
}

fn merged_settings(current: &User, c: &UserUpdate) -> UserSettings {
    let f = &current.flags;
    UserSettings {
        all_ticket: c.all_ticket.unwrap_or(f.all_ticket),
        allow_group: c.allow_group.unwrap_or(f.allow_group),
        all_historic: c.all_historic.unwrap_or(f.all_historic),
        all_user_chat: c.all_user_chat.unwrap_or(f.all_user_chat),
        user_close_pending_ticket: c
            .user_close_pending_ticket
            .unwrap_or(f.user_close_pending_ticket),
        show_dashboard: c.show_dashboard.unwrap_or(f.show_dashboard),
        allow_real_time: c.allow_real_time.unwrap_or(f.allow_real_time),
        allow_connections: c.allow_connections.unwrap_or(f.allow_connections),
        start_work: c
            .start_work
            .clone()
            .unwrap_or_else(|| current.start_work.clone()),
        end_work: c
            .end_work
            .clone()
            .unwrap_or_else(|| current.end_work.clone()),
        farewell_message: match &c.farewell_message {
            Some(m) => non_empty(Some(m.clone())),
            None => current.farewell_message.clone(),
        },
        default_theme: c.default_theme.unwrap_or(current.default_theme),
        default_menu: c.default_menu.unwrap_or(current.default_menu),
        whatsapp_id: c.whatsapp_id.unwrap_or(current.whatsapp_id),
        queue_ids: c
            .queue_ids
            .clone()
            .map_or_else(|| current.queue_ids.clone(), dedup),
    }
}

/// True when a field only the policy's `UpdateUserPrivileges` may change differs from `current`.
fn privileged_settings_changed(current: &User, s: &UserSettings) -> bool {
    let f = &current.flags;
    let mut old_queues = current.queue_ids.clone();
    old_queues.sort_unstable();
    let mut new_queues = s.queue_ids.clone();
    new_queues.sort_unstable();
    s.all_ticket != f.all_ticket
        || s.allow_group != f.allow_group
        || s.all_historic != f.all_historic
        || s.all_user_chat != f.all_user_chat
        || s.user_close_pending_ticket != f.user_close_pending_ticket
        || s.show_dashboard != f.show_dashboard
        || s.allow_real_time != f.allow_real_time
        || s.allow_connections != f.allow_connections
        || s.start_work != current.start_work
        || s.end_work != current.end_work
        || s.whatsapp_id != current.whatsapp_id
        || new_queues != old_queues
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty())
}

fn dedup(mut ids: Vec<QueueId>) -> Vec<QueueId> {
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The image formats accepted as avatars, recognised by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ImageKind {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageKind {
    fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            Some(Self::Webp)
        } else {
            None
        }
    }

    fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Gif => "gif",
            Self::Webp => "webp",
        }
    }

    /// A declared type agrees when it is this format's type (or a generic binary type).
    fn accepts_declared(self, declared: &str) -> bool {
        let declared = declared
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        declared == self.mime()
            || (self == Self::Jpeg && declared == "image/jpg")
            || declared == "application/octet-stream"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::UserFlags;

    fn user() -> User {
        let at =
            chrono::DateTime::<chrono::Utc>::from_timestamp(1_700_000_000, 0).unwrap_or_default();
        User {
            id: UserId(5),
            company_id: CompanyId(2),
            name: "Ana".into(),
            email: "ana@example.com".into(),
            profile: Profile::User,
            is_super: false,
            flags: UserFlags::default(),
            start_work: "08:00".into(),
            end_work: "18:00".into(),
            farewell_message: None,
            default_theme: Theme::Light,
            default_menu: MenuMode::Open,
            whatsapp_id: None,
            queue_ids: vec![QueueId(2), QueueId(1)],
            profile_image: None,
            online: false,
            default_tickets_manager_width: 550,
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn repeating_current_values_is_not_a_privilege_change() {
        let current = user();
        let same = UserUpdate {
            start_work: Some("08:00".into()),
            queue_ids: Some(vec![QueueId(1), QueueId(2), QueueId(1)]),
            all_ticket: Some(AllTicket::Disable),
            name: Some("Ana Maria".into()),
            default_theme: Some(Theme::Dark),
            ..UserUpdate::default()
        };
        assert!(!privileged_settings_changed(
            &current,
            &merged_settings(&current, &same)
        ));
        for change in [
            UserUpdate {
                start_work: Some("07:00".into()),
                ..UserUpdate::default()
            },
            UserUpdate {
                queue_ids: Some(vec![QueueId(1)]),
                ..UserUpdate::default()
            },
            UserUpdate {
                allow_connections: Some(Toggle::Enabled),
                ..UserUpdate::default()
            },
            UserUpdate {
                whatsapp_id: Some(Some(WhatsappId(3))),
                ..UserUpdate::default()
            },
            UserUpdate {
                allow_group: Some(true),
                ..UserUpdate::default()
            },
        ] {
            assert!(
                privileged_settings_changed(&current, &merged_settings(&current, &change)),
                "{change:?}"
            );
        }
    }

    #[test]
    fn self_service_fields_merge_and_clear() {
        let mut current = user();
        current.farewell_message = Some("Tchau".into());
        current.whatsapp_id = Some(WhatsappId(9));
        let cleared = UserUpdate {
            farewell_message: Some("  ".into()),
            whatsapp_id: Some(None),
            default_menu: Some(MenuMode::Closed),
            ..UserUpdate::default()
        };
        let merged = merged_settings(&current, &cleared);
        assert_eq!(merged.farewell_message, None);
        assert_eq!(merged.whatsapp_id, None);
        assert_eq!(merged.default_menu, MenuMode::Closed);
        let untouched = merged_settings(&current, &UserUpdate::default());
        assert_eq!(untouched.farewell_message.as_deref(), Some("Tchau"));
        assert_eq!(untouched.whatsapp_id, Some(WhatsappId(9)));
    }

    #[test]
    fn whatsapp_id_null_differs_from_absent() {
        let absent: UserUpdate = serde_json::from_str("{}").expect("valid");
        assert_eq!(absent.whatsapp_id, None);
        let null: UserUpdate = serde_json::from_str(r#"{"whatsappId": null}"#).expect("valid");
        assert_eq!(null.whatsapp_id, Some(None));
        let set: UserUpdate = serde_json::from_str(r#"{"whatsappId": 4}"#).expect("valid");
        assert_eq!(set.whatsapp_id, Some(Some(WhatsappId(4))));
    }

    #[test]
    fn avatars_are_recognised_by_content() {
        let png = b"\x89PNG\r\n\x1a\n rest";
        assert_eq!(ImageKind::sniff(png), Some(ImageKind::Png));
        assert_eq!(
            ImageKind::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageKind::Jpeg)
        );
        assert_eq!(ImageKind::sniff(b"GIF89a..."), Some(ImageKind::Gif));
        assert_eq!(
            ImageKind::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageKind::Webp)
        );
        assert_eq!(
            ImageKind::sniff(b"<svg xmlns=...>"),
            None,
            "SVG can carry scripts"
        );
        assert_eq!(ImageKind::sniff(b"RIFF\0\0\0\0WAVE"), None);
        assert!(ImageKind::Png.accepts_declared("image/png"));
        assert!(ImageKind::Jpeg.accepts_declared("image/jpg"));
        assert!(ImageKind::Png.accepts_declared("application/octet-stream"));
        assert!(!ImageKind::Png.accepts_declared("text/html"));
        assert!(!ImageKind::Png.accepts_declared("image/jpeg"));
    }

    #[test]
    fn new_users_read_missing_text_as_empty() {
        let input: NewUserInput = serde_json::from_str(r#"{"profile": "admin"}"#).expect("valid");
        assert_eq!(input.name, "");
        assert_eq!(input.profile, Some(Profile::Admin));
        assert!(input.queue_ids.is_empty());
    }
}
