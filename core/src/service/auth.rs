//! Sign-in, refresh-token sessions, sign-out, the current user and self-service signup.
//!
//! A sign-in opens a session family: one refresh token per rotation, all sharing the family id,
//! which is also the `sessionId` the access token carries. Tokens are random strings handed to
//! the client once; only their SHA-256 ([`token_hash`]) is stored. Presenting a token that was
//! already rotated is taken as theft: the whole family is revoked (reuse detection). Access
//! tokens themselves (JWTs) are the host's business; this module only decides who is signed in.
//!
//! Timing: an unknown e-mail and a wrong password take the same path through the password
//! hasher, so response times do not reveal which e-mails have accounts.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};
use crate::events::Event;
use crate::identity::{Actor, Profile, User};
use crate::ids::{CompanyId, PlanId, TenantScope, UserId};
use crate::policy::{self, Action, CapabilityContext};
use crate::ports::{NewCompany, RefreshSession};
use crate::service::Ports;
use crate::service::users::{self, NewUserInput, UserView};
use crate::settings;
use crate::tenancy::{self, Company, Plan, Subscription};
use crate::validation;

/// Characters of a refresh token (alphanumeric, about 380 bits).
pub const REFRESH_TOKEN_CHARS: usize = 64;

/// How long sessions last; the host reads it from its configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionPolicy {
    /// Lifetime of a refresh token from its issue; each rotation starts a new one.
    pub refresh_ttl: Duration,
    /// How long after its rotation a refresh token is still honoured, for two tabs of one
    /// browser refreshing at the same moment. Past it, a rotated token is a stolen one.
    pub reuse_grace: Duration,
}

/// What a successful sign-in or refresh grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionGrant {
    /// The signed-in user, as the web app shows it.
    pub user: UserView,
    /// The refresh session just issued; its `family` is the session id of access tokens.
    pub session: RefreshSession,
    /// The company's subscription: an expired one still signs in.
    pub subscription: Subscription,
    /// Capability names the policy grants the user (menu entries, pages, actions).
    pub permissions: Vec<String>,
    /// The refresh token itself, for the client's cookie. It is stored nowhere. `None` when a
    /// concurrent refresh with the same token already rotated it (within the grace window): the
    /// browser's cookie jar already holds, or is about to hold, the winner's token, so no second
    /// live token is made and the family keeps exactly one.
    pub refresh_token: Option<String>,
}

/// The result of [`login`].
pub type LoginResult = SessionGrant;

/// Who is signed in, for `GET /auth/me`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub user: UserView,
    pub permissions: Vec<String>,
    pub subscription: Subscription,
}

/// The public signup form (`POST /auth/signup`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct SignupInput {
    pub company_name: String,
    pub name: String,
    pub email: String,
    pub password: String,
    /// Digits, or formatted as `(99) 99999-9999`.
    pub phone: String,
    pub plan_id: Option<PlanId>,
}

/// What signup created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignupResult {
    pub company_id: CompanyId,
    pub user_id: UserId,
}

/// The SHA-256 of a refresh token, in lower-case hexadecimal: the only form ever stored.
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        hex.push(char::from(HEX[usize::from(byte >> 4)]));
        hex.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    hex
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Signs a user in with e-mail (lower-cased) and password.
///
/// Unknown e-mails and wrong passwords both give `ERR_INVALID_CREDENTIALS`. Records the sign-in
/// on the company, opens a session family and, in the same transaction, appends
/// [`Event::SignedIn`] for the user's other sockets (`company-{id}-auth`, with the new
/// `sessionId`) so other sessions of the same user sign out.
#[tracing::instrument(level = "debug", name = "auth::login", skip_all)]
pub async fn login(
    ports: &Ports,
    email: &str,
    password: &str,
    policy: SessionPolicy,
    now: DateTime<Utc>,
) -> Result<LoginResult> {
    let email = validation::normalize_email(email);
    let Some(found) = ports.users.find_for_login(&email).await? else {
        // Spend the same work as a verification so timing does not reveal unknown e-mails.
        let _ = ports.hasher.hash(password).await;
        return Err(ErrorCode::ERR_INVALID_CREDENTIALS.into());
    };
    if !ports.hasher.verify(password, &found.password_hash).await {
        return Err(ErrorCode::ERR_INVALID_CREDENTIALS.into());
    }
    let user = found.user;
    let scope = TenantScope::new(user.company_id);
    let company = ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_INVALID_CREDENTIALS)?;
    if tenancy::is_blocked(company.id, company.status) {
        return Err(Error::with_detail(
            ErrorCode::ERR_NO_PERMISSION,
            "the company is blocked",
        ));
    }
    ports.companies.touch_last_login(scope, now).await?;

    let (session, refresh_token) = new_session(ports, &user, ports.ids.uuid(), policy, now);
    let signed_in = Event::SignedIn {
        user_id: user.id,
        session_id: session.family,
    };
    ports.sessions.create(scope, &session, &[signed_in]).await?;
    grant(ports, user, &company, session, Some(refresh_token), now).await
}

/// Exchanges a refresh token for a new one (rotation) and a fresh view of the session.
///
/// A family has exactly one live refresh token: rotation is one compare-and-set on it (mark it
/// used only if it still is unused and not revoked, and store its successor, in one
/// transaction). Unknown, expired or revoked tokens, and tokens of a blocked company, give
/// `ERR_SESSION_EXPIRED`. Of concurrent refreshes with the same token exactly one rotates; the
/// others, within `policy.reuse_grace` of that rotation, get an access token of the same family
/// but no refresh token (two tabs of one browser share the cookie jar, which holds the winner's
/// token). A token presented after it was rotated and past the grace window is taken as theft:
/// the whole family is revoked (reuse detection), and its access tokens stop working at once.
#[tracing::instrument(level = "debug", name = "auth::refresh", skip_all)]
pub async fn refresh(
    ports: &Ports,
    refresh_token: &str,
    policy: SessionPolicy,
    now: DateTime<Utc>,
) -> Result<SessionGrant> {
    let expired = || Error::from(ErrorCode::ERR_SESSION_EXPIRED);
    let old = ports
        .sessions
        .find_by_token_hash(&token_hash(refresh_token))
        .await?
        .ok_or_else(expired)?;
    let scope = TenantScope::new(old.company_id);
    if old.revoked || old.expires_at <= now {
        return Err(expired());
    }
    let user = ports
        .users
        .get(scope, old.user_id)
        .await?
        .ok_or_else(expired)?;
    let company = ports.companies.get(scope).await?.ok_or_else(expired)?;
    if tenancy::is_blocked(company.id, company.status) {
        return Err(expired());
    }
    let (session, token) = new_session(ports, &user, old.family, policy, now);
    if old.used_at.is_none() && ports.sessions.rotate(scope, old.id, &session, now).await? {
        return grant(ports, user, &company, session, Some(token), now).await;
    }
    // The token was already rotated: by a sibling tab a moment ago, or by a thief. Re-read it, as
    // the rotation above may have lost a race.
    let current = ports
        .sessions
        .find_by_token_hash(&old.token_hash)
        .await?
        .ok_or_else(expired)?;
    let within_grace = current
        .used_at
        .is_some_and(|used| now.signed_duration_since(used) <= policy.reuse_grace);
    if current.revoked || !within_grace {
        ports.sessions.revoke_family(scope, old.family).await?;
        return Err(Error::with_detail(
            ErrorCode::ERR_SESSION_EXPIRED,
            "refresh token reused",
        ));
    }
    // A concurrent refresh lost the race: an access token of the family, and no second live
    // refresh token.
    grant(ports, user, &company, current, None, now).await
}

/// Signs out the session a refresh token belongs to (revokes its family). Unknown tokens are
/// ignored: signing out is always allowed to succeed.
#[tracing::instrument(level = "debug", name = "auth::logout", skip_all)]
pub async fn logout(ports: &Ports, refresh_token: &str) -> Result<()> {
    if let Some(session) = ports
        .sessions
        .find_by_token_hash(&token_hash(refresh_token))
        .await?
    {
        ports
            .sessions
            .revoke_family(TenantScope::new(session.company_id), session.family)
            .await?;
    }
    Ok(())
}

/// Signs out a session family of the actor's own company (the access token's session id).
#[tracing::instrument(level = "debug", name = "auth::logout_family", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn logout_family(ports: &Ports, actor: &Actor, family: uuid::Uuid) -> Result<()> {
    ports.sessions.revoke_family(actor.scope(), family).await
}

/// The signed-in user with permissions and subscription (`GET /auth/me`).
#[tracing::instrument(level = "debug", name = "auth::me", skip_all)]
pub async fn me(ports: &Ports, user: User, now: DateTime<Utc>) -> Result<SessionInfo> {
    let scope = TenantScope::new(user.company_id);
    let company = ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_SESSION_EXPIRED)?;
    let permissions = permissions(ports, &Actor::of(&user), &company).await?;
    let subscription = tenancy::subscription(company.id, company.due_date, now.date_naive());
    let user = users::view(ports, scope, user).await?;
    Ok(SessionInfo {
        user,
        permissions,
        subscription,
    })
}

/// Creates a company on a public plan with its first user, an admin (`POST /auth/signup`).
///
/// Refused with `ERR_SIGNUP_DISABLED` when the platform setting `allowSignup` is disabled and
/// with `ERR_USER_CREATION_DISABLED` when `userCreation` is. The company starts on the chosen
/// plan, recurrence MENSAL, due in seven days, active, with campaigns enabled.
#[tracing::instrument(level = "debug", name = "auth::signup", skip_all)]
pub async fn signup(ports: &Ports, input: SignupInput, now: DateTime<Utc>) -> Result<SignupResult> {
    let platform = settings::to_map(&ports.settings.platform_settings().await?);
    if !settings::is_enabled(&platform, "allowSignup") {
        return Err(ErrorCode::ERR_SIGNUP_DISABLED.into());
    }
    if !settings::is_enabled(&platform, "userCreation") {
        return Err(ErrorCode::ERR_USER_CREATION_DISABLED.into());
    }
    let email = validation::normalize_email(&input.email);
    validation::validate_signup(&validation::SignupInput {
        company_name: &input.company_name,
        name: &input.name,
        email: &email,
        password: &input.password,
        phone: &input.phone,
        plan_id: input.plan_id.map(|id| id.0),
    })?;
    let plan_id = input.plan_id.ok_or(ErrorCode::ERR_NO_PLAN_FOUND)?;
    let plan = ports
        .plans
        .get(plan_id)
        .await?
        .filter(|p| p.is_public)
        .ok_or(ErrorCode::ERR_NO_PLAN_FOUND)?;
    // Checked before the company exists, so a taken e-mail leaves nothing behind.
    if ports.users.find_for_login(&email).await?.is_some() {
        return Err(ErrorCode::ERR_DUPLICATED_EMAIL.into());
    }
    let phone = validation::number_digits(&input.phone).filter(|d| !d.is_empty());
    let defaults = tenancy::signup_defaults(now.date_naive());
    let company = ports
        .companies
        .create(&NewCompany {
            name: input.company_name.trim().to_owned(),
            email: Some(email.clone()),
            phone,
            plan_id: plan.id,
            status: defaults.status,
            due_date: defaults.due_date,
            recurrence: defaults.recurrence,
            document: None,
        })
        .await?;
    let scope = TenantScope::new(company.id);
    let campaigns = if defaults.campaigns_enabled {
        settings::ENABLED
    } else {
        settings::DISABLED
    };
    ports
        .settings
        .set_company_setting(scope, "campaignsEnabled", campaigns, &[])
        .await?;
    let user = users::create_in_company(
        ports,
        scope,
        NewUserInput {
            name: input.name,
            email,
            password: input.password,
            profile: Some(Profile::Admin),
            ..NewUserInput::default()
        },
    )
    .await?;
    Ok(SignupResult {
        company_id: company.id,
        user_id: user.id,
    })
}

/// A company's record (`GET /companies/{id}`): the actor's own company, or any company for the
/// super user. Another company's id gives `ERR_NO_COMPANY_FOUND`, like an id that does not exist.
#[tracing::instrument(level = "debug", name = "auth::company", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, company_id = company_id.0))]
pub async fn company(ports: &Ports, actor: &Actor, company_id: CompanyId) -> Result<Company> {
    if !policy::can(actor, &Action::ViewCompany(company_id)) {
        return Err(ErrorCode::ERR_NO_COMPANY_FOUND.into());
    }
    ports
        .companies
        .get(TenantScope::new(company_id))
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_COMPANY_FOUND.into())
}

/// The plan of a company (`GET /companies/listPlan/{companyId}`), under the same rule as
/// [`company`].
#[tracing::instrument(level = "debug", name = "auth::company_plan", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, company_id = company_id.0))]
pub async fn company_plan(ports: &Ports, actor: &Actor, company_id: CompanyId) -> Result<Plan> {
    let company = company(ports, actor, company_id).await?;
    ports
        .plans
        .get(company.plan_id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_PLAN_FOUND.into())
}

/// The plans offered on the signup page (`GET /plans/list`), for anyone.
#[tracing::instrument(level = "debug", name = "auth::public_plans", skip_all)]
pub async fn public_plans(ports: &Ports) -> Result<Vec<Plan>> {
    ports.plans.list(true).await
}

/// The capability names the policy grants `actor` in `company`.
#[tracing::instrument(level = "debug", name = "auth::permissions", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn permissions(ports: &Ports, actor: &Actor, company: &Company) -> Result<Vec<String>> {
    let plan = ports
        .plans
        .get(company.plan_id)
        .await?
        .ok_or(ErrorCode::ERR_NO_PLAN_FOUND)?;
    let helps_exist = ports.helps.count().await? > 0;
    Ok(policy::capabilities(
        actor,
        &plan.flags,
        &CapabilityContext { helps_exist },
    ))
}

fn new_session(
    ports: &Ports,
    user: &User,
    family: uuid::Uuid,
    policy: SessionPolicy,
    now: DateTime<Utc>,
) -> (RefreshSession, String) {
    let token = ports.ids.token(REFRESH_TOKEN_CHARS);
    let session = RefreshSession {
        id: ports.ids.uuid(),
        family,
        company_id: user.company_id,
        user_id: user.id,
        token_hash: token_hash(&token),
        expires_at: now + policy.refresh_ttl,
        used_at: None,
        revoked: false,
    };
    (session, token)
}

async fn grant(
    ports: &Ports,
    user: User,
    company: &Company,
    session: RefreshSession,
    refresh_token: Option<String>,
    now: DateTime<Utc>,
) -> Result<SessionGrant> {
    let permissions = permissions(ports, &Actor::of(&user), company).await?;
    let subscription = tenancy::subscription(company.id, company.due_date, now.date_naive());
    let user = users::view(ports, TenantScope::new(company.id), user).await?;
    Ok(SessionGrant {
        user,
        session,
        subscription,
        permissions,
        refresh_token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_hash_is_sha256_hex() {
        // The SHA-256 of "abc" from FIPS 180-2.
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(token_hash("").len(), 64);
        assert_ne!(token_hash("a"), token_hash("b"));
    }
}
