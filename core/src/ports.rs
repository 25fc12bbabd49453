//! Ports: the traits adapters implement and hosts wire together.
//!
//! Tenant repositories take a [`TenantScope`] on every call. The few calls that cross companies
//! by nature (sign-in by e-mail, the platform's company list, refresh-token lookup) say so in
//! their names and documentation.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::Result;
use crate::events::Event;
use crate::identity::{AllTicket, MenuMode, Profile, Theme, Toggle, User};
use crate::ids::{CompanyId, PlanId, QueueId, TenantScope, UserId, WhatsappId};
use crate::tenancy::{Company, Money, Plan, PlanFlags, Recurrence};

/// One page of a list, under the specification's `pageNumber` / `hasMore` contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// Total rows matching the filter.
    pub count: i64,
    pub has_more: bool,
}

/// Paging request: `page_number` starts at 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page_number: u32,
    pub page_size: u32,
}

impl PageRequest {
    /// Rows to skip.
    pub fn offset(self) -> u64 {
        u64::from(self.page_number.max(1) - 1) * u64::from(self.page_size)
    }
}

// ---------------------------------------------------------------- system ports

/// The wall clock.
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// Identifiers and random tokens.
pub trait IdGenerator: Send + Sync {
    /// A random (v4) uuid.
    fn uuid(&self) -> Uuid;
    /// A random alphanumeric token of `len` characters (connection tokens, refresh tokens).
    fn token(&self, len: usize) -> String;
    /// A random string of `len` decimal digits, each uniformly drawn, leading zeros kept
    /// (password-reset codes people type in).
    fn digits(&self, len: usize) -> String;
}

/// Password hashing (argon2id in the adapter). Async so the adapter can move the work off the
/// request threads.
#[async_trait]
pub trait PasswordHasher: Send + Sync {
    async fn hash(&self, password: &str) -> Result<String>;
    /// False on mismatch or on an unreadable hash.
    async fn verify(&self, password: &str, hash: &str) -> bool;
}

/// Encrypts secrets kept in the database (the access-token key, payment provider keys, a
/// channel session's key material) with a key that lives outside it (authenticated encryption
/// in the adapter).
///
/// A sealed text is text that says it is sealed ([`SecretCipher::is_sealed`]), so values
/// stored before encryption existed can be told apart and sealed on the next start. Binary
/// secrets ([`SecretCipher::seal_bytes`]) are bytes, bound to a context the caller names.
pub trait SecretCipher: Send + Sync {
    /// The stored form of `plain`: a fresh nonce each time, so equal secrets do not look equal.
    fn seal(&self, plain: &str) -> Result<String>;
    /// The plain text of a sealed value; `ERR_INTERNAL` when it was sealed with another key or
    /// altered.
    fn open(&self, sealed: &str) -> Result<String>;
    /// True when `stored` is in the sealed form (whatever the key).
    fn is_sealed(&self, stored: &str) -> bool;
    /// The stored form of the bytes `plain` (binary key material), with a fresh nonce each time.
    /// `context` is authenticated but not stored: the same `context` must be given to open it.
    /// Naming where the value is kept (the connection, the namespace and the key of a session
    /// state row) means a sealed value copied to another place does not open there.
    fn seal_bytes(&self, plain: &[u8], context: &[u8]) -> Result<Vec<u8>>;
    /// The bytes sealed by [`SecretCipher::seal_bytes`] under `context`; `ERR_INTERNAL` when
    /// they were sealed with another key or another context, or altered.
    fn open_bytes(&self, sealed: &[u8], context: &[u8]) -> Result<Vec<u8>>;
}

/// A plain-text e-mail to one recipient.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboundMail {
    /// The recipient's address.
    pub to: String,
    /// The subject line.
    pub subject: String,
    /// The body, as plain text.
    pub text: String,
}

/// Sends e-mail (SMTP in the adapter). When no mail server is configured, the adapter answers
/// `ERR_MAIL_NOT_CONFIGURED` instead of pretending the mail left.
#[async_trait]
pub trait Mailer: Send + Sync {
    /// Sends one mail; returns once the mail server accepted it.
    async fn send(&self, mail: &OutboundMail) -> Result<()>;
}

/// Stored media (avatars, attachments): a local directory by default.
#[async_trait]
pub trait MediaStore: Send + Sync {
    /// Stores bytes under the company's area and returns the stored name.
    async fn put(&self, scope: TenantScope, file_name: &str, bytes: &[u8]) -> Result<String>;
    /// Reads a stored file of the company.
    async fn get(&self, scope: TenantScope, stored_name: &str) -> Result<Option<Vec<u8>>>;
    async fn delete(&self, scope: TenantScope, stored_name: &str) -> Result<()>;
}

/// The kind of channel a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ChannelKind {
    Whatsapp,
    Whatsappapi,
    Facebook,
    Instagram,
}

// The channel port (providers, inbound events) is in `crate::inbox::channel`.

// ---------------------------------------------------------------- repositories

/// A new company, for signup, the CLI and the super user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCompany {
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub plan_id: PlanId,
    pub status: bool,
    pub due_date: NaiveDate,
    pub recurrence: Recurrence,
    pub document: Option<String>,
}

/// Companies. Listing and creating companies is platform-level (super user, CLI, signup).
#[async_trait]
pub trait CompanyRepo: Send + Sync {
    /// The scope's own company.
    async fn get(&self, scope: TenantScope) -> Result<Option<Company>>;
    /// Platform-level: every company, by id.
    async fn list_all(&self) -> Result<Vec<Company>>;
    /// Platform-level: creates a company.
    async fn create(&self, company: &NewCompany) -> Result<Company>;
    /// Moves the scope's company's due date.
    async fn set_due_date(&self, scope: TenantScope, due_date: NaiveDate) -> Result<()>;
    /// Records a sign-in.
    async fn touch_last_login(&self, scope: TenantScope, at: DateTime<Utc>) -> Result<()>;
    /// The company's working hours as stored (an empty list when never saved); `None` when the
    /// company does not exist.
    async fn schedules(&self, scope: TenantScope)
    -> Result<Option<Vec<crate::queue::ScheduleRow>>>;
    /// Stores the company's working hours; false when the company does not exist.
    async fn set_schedules(
        &self,
        scope: TenantScope,
        rows: &[crate::queue::ScheduleRow],
    ) -> Result<bool>;
}

/// A new plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlan {
    pub name: String,
    pub users: i64,
    pub connections: i64,
    pub queues: i64,
    pub amount: Money,
    pub is_public: bool,
    pub flags: PlanFlags,
}

/// Plans are platform-level rows (no company).
#[async_trait]
pub trait PlanRepo: Send + Sync {
    async fn get(&self, id: PlanId) -> Result<Option<Plan>>;
    /// Every plan, or only the public ones (signup).
    async fn list(&self, public_only: bool) -> Result<Vec<Plan>>;
    async fn create(&self, plan: &NewPlan) -> Result<Plan>;
}

/// Fields of a new user. `password_hash` is already hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUser {
    pub name: String,
    pub email: String,
    pub password_hash: String,
    pub profile: Profile,
    pub is_super: bool,
    pub settings: UserSettings,
}

/// The editable settings of a user besides identity and password.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserSettings {
    pub all_ticket: AllTicket,
    pub allow_group: bool,
    pub all_historic: Toggle,
    pub all_user_chat: Toggle,
    pub user_close_pending_ticket: Toggle,
    pub show_dashboard: Toggle,
    pub allow_real_time: Toggle,
    pub allow_connections: Toggle,
    pub start_work: String,
    pub end_work: String,
    pub farewell_message: Option<String>,
    pub default_theme: Theme,
    pub default_menu: MenuMode,
    pub whatsapp_id: Option<WhatsappId>,
    pub queue_ids: Vec<QueueId>,
}

/// A change to an existing user; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserChanges {
    pub name: Option<String>,
    pub email: Option<String>,
    pub password_hash: Option<String>,
    pub profile: Option<Profile>,
    pub settings: Option<UserSettings>,
    pub profile_image: Option<Option<String>>,
    pub default_tickets_manager_width: Option<i64>,
}

impl UserChanges {
    /// Whether the change is announced to the company (`company-{id}-user` `update`): a change of
    /// what colleagues see or of what decides the user's visibility; not one of only the password
    /// (which revokes sessions instead) or the tickets panel's width (the user's own screen).
    pub fn announced(&self) -> bool {
        let UserChanges {
            name,
            email,
            password_hash: _,
            profile,
            settings,
            profile_image,
            default_tickets_manager_width: _,
        } = self;
        name.is_some()
            || email.is_some()
            || profile.is_some()
            || settings.is_some()
            || profile_image.is_some()
    }
}

/// The user behind an access token, with what every request needs of the company.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub user: User,
    /// The company's subscription due date.
    pub company_due_date: chrono::NaiveDate,
    /// The company's `status` (false: blocked).
    pub company_active: bool,
}

/// A user with the password hash, for sign-in only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserLogin {
    pub user: User,
    pub password_hash: String,
}

/// Users of a company.
///
/// Writes append their `company-{id}-user` event to the company's event log in their own
/// transaction ([`crate::service::users::user_saved_event`],
/// [`crate::service::users::user_deleted_event`]).
#[async_trait]
pub trait UserRepo: Send + Sync {
    /// Cross-company by nature: sign-in looks a user up by (lower-cased) e-mail.
    async fn find_for_login(&self, email: &str) -> Result<Option<UserLogin>>;
    async fn get(&self, scope: TenantScope, id: UserId) -> Result<Option<User>>;
    /// The user with their company's subscription due date, in one round trip: every
    /// authenticated request reads both.
    async fn get_signed_in(
        &self,
        scope: TenantScope,
        id: UserId,
    ) -> Result<Option<(User, chrono::NaiveDate)>>;
    /// The user of an access token, in one round trip: the user with their company's due date
    /// and status, only while session family `family` of that user is alive (not revoked).
    /// `None` when the user is gone or the session was revoked (sign-out, reuse detection, a
    /// password change, deletion). Every authenticated request reads it.
    async fn get_in_session(
        &self,
        scope: TenantScope,
        id: UserId,
        family: Uuid,
    ) -> Result<Option<SignedIn>>;
    /// Search (lower-cased, on name and e-mail) with paging, ordered by name.
    async fn search(
        &self,
        scope: TenantScope,
        search: &str,
        page: PageRequest,
    ) -> Result<Page<User>>;
    /// Every user of the company, ordered by name.
    async fn list_all(&self, scope: TenantScope) -> Result<Vec<User>>;
    async fn count(&self, scope: TenantScope) -> Result<i64>;
    /// Creates a user and appends its `create` event; an e-mail already used anywhere gives
    /// `ERR_DUPLICATED_EMAIL`.
    async fn create(&self, scope: TenantScope, user: &NewUser) -> Result<User>;
    /// Applies changes and appends the user's `update` event when they are announced
    /// ([`UserChanges::announced`]); `None` when the user is not in the scope's company.
    async fn update(
        &self,
        scope: TenantScope,
        id: UserId,
        changes: &UserChanges,
    ) -> Result<Option<User>>;
    /// Revokes the user's sessions, deletes the user and appends the `delete` event, in one
    /// transaction; false (nothing written) when the user is not in the scope's company.
    async fn delete(&self, scope: TenantScope, id: UserId) -> Result<bool>;
    /// Marks the user online or offline and appends the user's `update` event; nothing when the
    /// user is not in the scope's company.
    async fn set_online(&self, scope: TenantScope, id: UserId, online: bool) -> Result<()>;
}

/// Platform-level (super user) and company-level key/value settings.
#[async_trait]
pub trait SettingsRepo: Send + Sync {
    /// Stored company settings (keys never set are absent; the catalogue supplies defaults).
    async fn company_settings(&self, scope: TenantScope) -> Result<Vec<(String, String)>>;
    /// The same, as of the company's event sequence `seq` (read by the caller before this):
    /// settings changes append events, so a store may answer from a cache keyed by
    /// the sequence.
    async fn company_settings_at(
        &self,
        scope: TenantScope,
        seq: i64,
    ) -> Result<Vec<(String, String)>> {
        let _ = seq;
        self.company_settings(scope).await
    }
    /// Stores a company setting and appends `events` to the company's log in the same
    /// transaction.
    async fn set_company_setting(
        &self,
        scope: TenantScope,
        key: &str,
        value: &str,
        events: &[Event],
    ) -> Result<()>;
    /// Stored platform settings.
    async fn platform_settings(&self) -> Result<Vec<(String, String)>>;
    /// Stores a platform setting and, when `announce` names a company, appends its events to
    /// that company's log in the same transaction.
    async fn set_platform_setting(
        &self,
        key: &str,
        value: &str,
        announce: Option<(TenantScope, &[Event])>,
    ) -> Result<()>;
}

/// A refresh-token session: one family per sign-in, one row per rotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshSession {
    pub id: Uuid,
    /// All rotations of one sign-in share the family; reuse revokes it whole.
    pub family: Uuid,
    pub company_id: CompanyId,
    pub user_id: UserId,
    /// SHA-256 (hex) of the token; the token itself is never stored.
    pub token_hash: String,
    pub expires_at: DateTime<Utc>,
    /// Set when this token was rotated (used) or revoked.
    pub used_at: Option<DateTime<Utc>>,
    pub revoked: bool,
}

/// Refresh-token sessions.
#[async_trait]
pub trait SessionRepo: Send + Sync {
    /// Stores a new session and appends `events` (the sign-in's) in the same transaction.
    async fn create(
        &self,
        scope: TenantScope,
        session: &RefreshSession,
        events: &[Event],
    ) -> Result<()>;
    /// Cross-company by nature: the cookie carries only the token.
    async fn find_by_token_hash(&self, token_hash: &str) -> Result<Option<RefreshSession>>;
    /// Atomically marks `old` used (only if it was unused and not revoked) and stores `new`.
    /// Returns false, storing nothing, when `old` was already used or revoked.
    async fn rotate(
        &self,
        scope: TenantScope,
        old: Uuid,
        new: &RefreshSession,
        at: DateTime<Utc>,
    ) -> Result<bool>;
    /// Revokes every token of a family.
    async fn revoke_family(&self, scope: TenantScope, family: Uuid) -> Result<()>;
    /// Revokes every session of a user (password change, deletion).
    async fn revoke_user(&self, scope: TenantScope, user: UserId) -> Result<()>;
    /// Revokes every session of a user but family `keep` (the user's own password change keeps
    /// the session that made it).
    async fn revoke_user_except(&self, scope: TenantScope, user: UserId, keep: Uuid) -> Result<()>;
}

/// A queue, as other entities reference it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueSummary {
    pub id: QueueId,
    pub name: String,
    pub color: String,
}

/// Queues of a company with their chatbot menus.
///
/// Every write appends `company-{id}-queue` to the company's event log in its own transaction
/// (`{action: "create"|"update", queue}` or `{action: "delete", queueId}`, built by
/// [`crate::service::queues::queue_event`] and [`crate::service::queues::queue_deleted_event`]).
/// A colour already used by another queue of the company gives `ERR_QUEUE_COLOR_ALREADY_EXISTS`.
#[async_trait]
pub trait QueueRepo: Send + Sync {
    /// The company's queues as other entities reference them, in their order (ordered queues
    /// first by `orderQueue`, then the rest by name).
    async fn list(&self, scope: TenantScope) -> Result<Vec<QueueSummary>>;
    /// Creates a queue with only a name and a colour (fixtures, scripts).
    async fn create(&self, scope: TenantScope, name: &str, color: &str) -> Result<QueueSummary>;
    /// The company's queues with everything, in the order of [`QueueRepo::list`].
    async fn list_queues(&self, scope: TenantScope) -> Result<Vec<crate::queue::Queue>>;
    /// One queue of the company with its chatbot tree.
    async fn get_queue(
        &self,
        scope: TenantScope,
        id: QueueId,
    ) -> Result<Option<crate::queue::Queue>>;
    /// Creates a queue with its chatbot tree (ids sent on options are ignored). `schedules`
    /// `None` stores an empty list.
    async fn create_queue(
        &self,
        scope: TenantScope,
        input: &crate::queue::QueueInput,
    ) -> Result<crate::queue::Queue>;
    /// Replaces a queue's fields and its chatbot tree in one transaction: options sent with the
    /// id of one of this queue's options keep it, the others are created, stored options not
    /// sent are deleted with their sub-options. `schedules` `None` keeps the stored rows.
    /// `None` when the queue is not the company's.
    async fn update_queue(
        &self,
        scope: TenantScope,
        id: QueueId,
        input: &crate::queue::QueueInput,
    ) -> Result<Option<crate::queue::Queue>>;
    /// Replaces only a queue's chatbot tree, as [`QueueRepo::update_queue`] does.
    async fn replace_chatbots(
        &self,
        scope: TenantScope,
        id: QueueId,
        chatbots: &[crate::queue::ChatbotOption],
    ) -> Result<Option<crate::queue::Queue>>;
    /// Deletes a queue and its chatbot tree; tickets, connections and users lose the link.
    /// False when the queue is not the company's.
    async fn delete_queue(&self, scope: TenantScope, id: QueueId) -> Result<bool>;
    /// The queue holding the chatbot option `id`, when the option is the company's.
    async fn chatbot_queue(
        &self,
        scope: TenantScope,
        id: crate::queue::ChatbotId,
    ) -> Result<Option<QueueId>>;
}

/// Help entries are platform-level (super user); every company reads them.
#[async_trait]
pub trait HelpRepo: Send + Sync {
    async fn count(&self) -> Result<i64>;
}

/// A password-reset code issued to a user. Only the code's SHA-256 is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordReset {
    /// The row's id.
    pub id: i64,
    /// The user's company.
    pub company_id: CompanyId,
    /// The user the code was sent to.
    pub user_id: UserId,
    /// SHA-256 (hex) of the code; the code itself is never stored.
    pub code_hash: String,
    /// The code is refused from this instant on.
    pub expires_at: DateTime<Utc>,
    /// Attempts counted against the code so far.
    pub attempts: u32,
    /// Set when the code was used, or burnt by too many wrong attempts.
    pub used_at: Option<DateTime<Utc>>,
    /// When the code was issued.
    pub created_at: DateTime<Utc>,
}

/// A password-reset code to store for a user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPasswordReset {
    /// The user the code is sent to.
    pub user_id: UserId,
    /// SHA-256 (hex) of the code.
    pub code_hash: String,
    /// The code is refused from this instant on.
    pub expires_at: DateTime<Utc>,
}

/// Password-reset codes of a company's users: at most one live code per user.
#[async_trait]
pub trait PasswordResetRepo: Send + Sync {
    /// Stores a new code for a user of the scope's company, issued at `at`, and drops every
    /// earlier code of that user, so only the newest can be used. `ERR_NO_USER_FOUND` when the
    /// user is not in the scope's company.
    async fn create(
        &self,
        scope: TenantScope,
        reset: &NewPasswordReset,
        at: DateTime<Utc>,
    ) -> Result<PasswordReset>;
    /// The user's most recent code that is unused and has not expired at `now`.
    async fn latest_live(
        &self,
        scope: TenantScope,
        user: UserId,
        now: DateTime<Utc>,
    ) -> Result<Option<PasswordReset>>;
    /// Counts one attempt against an unused code, atomically and only while fewer than
    /// `max_attempts` were counted; returns the new count, or `None` when the code is used,
    /// burnt, exhausted or not the scope's. Counting before comparing keeps concurrent guesses
    /// within the limit.
    async fn count_attempt(
        &self,
        scope: TenantScope,
        id: i64,
        max_attempts: u32,
    ) -> Result<Option<u32>>;
    /// Marks an unused code used (or burnt) at `at`; false when it was already used or is not
    /// the scope's, so of two concurrent uses exactly one succeeds.
    async fn mark_used(&self, scope: TenantScope, id: i64, at: DateTime<Utc>) -> Result<bool>;
}
