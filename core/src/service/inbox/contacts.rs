//! Contacts (`/contacts`): listing and searching, the contact form, block/unblock, the bot and
//! audio toggles, import from a spreadsheet and export, a number's profile
//! (`/contacts/profile/{number}`) and import from a connection's chats (`/contacts/import/chats`).
//!
//! Policy: any user of the company reads, creates and edits its contacts; deleting needs
//! `contacts-page:deleteContact` ([`Action::DeleteContact`]). Contacts returned to a user go
//! through [`lgpd::contact_for`] (masked numbers for plain users under LGPD).

use serde::Serialize;

use crate::error::{Error, ErrorCode, Result};
use crate::events::RecipientSettings;
use crate::identity::Actor;
use crate::ids::{ContactId, TagId, TenantScope, WhatsappId};
use crate::inbox::contact_rules;
use crate::inbox::import::{self, ImportMapping, ImportReport};
use crate::inbox::lgpd;
use crate::inbox::model::{
    Connection, ConnectionStatus, Contact, ContactFilter, ContactInput, KeysetPage, PageStart,
};
use crate::policy::{self, Action};
use crate::ports::ChannelKind;
use crate::service::Ports;

/// Contacts per page of `GET /contacts`.
pub const PAGE_SIZE: u32 = 20;
/// Most contacts of the brief list (`GET /contacts/list`).
pub const BRIEF_LIMIT: u32 = 100;
/// Contacts read per page while exporting.
const EXPORT_PAGE: u32 = 500;

/// The LGPD view settings of the actor's company.
async fn recipient_settings(ports: &Ports, scope: TenantScope) -> Result<RecipientSettings> {
    let stored = ports.settings.company_settings(scope).await?;
    Ok(RecipientSettings::from_company_settings(&stored))
}

/// Applies the LGPD view to contacts for `actor`.
async fn for_actor(ports: &Ports, actor: &Actor, contacts: Vec<Contact>) -> Result<Vec<Contact>> {
    let settings = recipient_settings(ports, actor.scope()).await?;
    Ok(contacts
        .iter()
        .map(|c| lgpd::contact_for(actor, settings, c))
        .collect())
}

async fn one_for_actor(ports: &Ports, actor: &Actor, contact: Contact) -> Result<Contact> {
    let mut list = for_actor(ports, actor, vec![contact]).await?;
    list.pop()
        .ok_or_else(|| crate::error::Error::internal("contact lost in LGPD view"))
}

/// A page of the company's contacts (`GET /contacts`), ordered by name.
#[tracing::instrument(level = "debug", name = "inbox.contacts::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(
    ports: &Ports,
    actor: &Actor,
    filter: &ContactFilter,
    start: &PageStart,
) -> Result<KeysetPage<Contact>> {
    let page = ports
        .contacts
        .search(actor.scope(), filter, start, PAGE_SIZE)
        .await?;
    let items = for_actor(ports, actor, page.items).await?;
    Ok(KeysetPage { items, ..page })
}

/// The brief list for pickers (`GET /contacts/list`).
#[tracing::instrument(level = "debug", name = "inbox.contacts::list_brief", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list_brief(ports: &Ports, actor: &Actor, search: &str) -> Result<Vec<Contact>> {
    let items = ports
        .contacts
        .list_brief(actor.scope(), search, BRIEF_LIMIT)
        .await?;
    for_actor(ports, actor, items).await
}

/// One contact; `ERR_NO_CONTACT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.contacts::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: ContactId) -> Result<Contact> {
    let contact = find(ports, actor.scope(), id).await?;
    one_for_actor(ports, actor, contact).await
}

/// One contact as its form shows it (`GET /contacts/{id}`): the contact and the other identities
/// WhatsApp knows the same person by.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContactDetail {
    #[serde(flatten)]
    pub contact: Contact,
    /// Every other identity the contact was seen under (a LID `…@lid`, or the phone number when
    /// the contact is under its LID), sorted; masked like the number for plain users under LGPD.
    pub aliases: Vec<String>,
}

/// One contact with its aliases (`GET /contacts/{id}`); `ERR_NO_CONTACT_FOUND` when it is not
/// the company's.
#[tracing::instrument(level = "debug", name = "inbox.contacts::detail", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn detail(ports: &Ports, actor: &Actor, id: ContactId) -> Result<ContactDetail> {
    let scope = actor.scope();
    let contact = find(ports, scope, id).await?;
    let aliases = ports.contacts.aliases(scope, id).await?;
    let settings = recipient_settings(ports, scope).await?;
    Ok(ContactDetail {
        aliases: lgpd::aliases_for(actor, settings, &contact, aliases),
        contact: lgpd::contact_for(actor, settings, &contact),
    })
}

async fn find(ports: &Ports, scope: TenantScope, id: ContactId) -> Result<Contact> {
    ports
        .contacts
        .get(scope, id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_CONTACT_FOUND.into())
}

/// Creates a contact from the form (`POST /contacts`): validated and normalised;
/// `ERR_DUPLICATED_CONTACT` when the company has that number on that channel. A WhatsApp number
/// is checked with WhatsApp first ([`checked_number`]): the number WhatsApp answers is the one
/// stored, `ERR_WAPP_INVALID_CONTACT` when it has no account.
#[tracing::instrument(level = "debug", name = "inbox.contacts::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: ContactInput) -> Result<Contact> {
    let mut input = contact_rules::prepare(input)?;
    if let Some(number) = checked_number(ports, actor.scope(), &input).await? {
        input.number = number;
    }
    let contact = ports.contacts.create(actor.scope(), &input).await?;
    one_for_actor(ports, actor, contact).await
}

/// The number WhatsApp knows for a new person's WhatsApp contact (`input` prepared), asked
/// through a connected connection of the company (the contact's own, else the default one):
/// WhatsApp's own form of the number (a country's old or new digit rules) when it has an
/// account, `ERR_WAPP_INVALID_CONTACT` when it has none, `ERR_WAPP_CHECK_CONTACT` when the
/// channel failed to answer. `None` when there is nothing to ask: another channel, a group, no
/// connected connection, a session running on another server process, or a channel that cannot
/// check numbers (the sandbox): the number is stored as typed.
pub async fn checked_number(
    ports: &Ports,
    scope: TenantScope,
    input: &ContactInput,
) -> Result<Option<String>> {
    if input.channel.unwrap_or(ChannelKind::Whatsapp) != ChannelKind::Whatsapp || input.is_group {
        return Ok(None);
    }
    let own = match input.whatsapp_id {
        Some(id) => ports
            .connections
            .get(scope, id)
            .await?
            .filter(|c| c.status == ConnectionStatus::Connected),
        None => None,
    };
    let connection = match own {
        Some(connection) => connection,
        None => match connected_connection(ports, scope).await? {
            Some(connection) => connection,
            None => return Ok(None),
        },
    };
    let Ok(provider) = ports.channels.get(connection.provider) else {
        return Ok(None);
    };
    match provider
        .check_number(scope, connection.id, &input.number)
        .await
    {
        Ok(Some(number)) => Ok(Some(number)),
        Ok(None) => Err(Error::with_detail(
            ErrorCode::ERR_WAPP_INVALID_CONTACT,
            "this number has no WhatsApp account",
        )),
        Err(e)
            if matches!(
                e.code,
                ErrorCode::ERR_CHANNEL_NOT_SUPPORTED | ErrorCode::ERR_WAPP_NOT_INITIALIZED
            ) =>
        {
            Ok(None)
        }
        Err(e) if e.code == ErrorCode::ERR_WAPP_INVALID_CONTACT => Err(e),
        Err(e) => Err(Error::with_detail(
            ErrorCode::ERR_WAPP_CHECK_CONTACT,
            e.detail.unwrap_or_else(|| e.code.to_string()),
        )),
    }
}

/// Edits a contact (`PUT /contacts/{id}`). Under LGPD a plain user's form carries the masked
/// number; that value keeps the stored number.
#[tracing::instrument(level = "debug", name = "inbox.contacts::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: ContactId,
    input: ContactInput,
) -> Result<Contact> {
    let mut input = input;
    // A plain user under LGPD only ever saw the masked number: sending it back keeps the stored
    // one.
    let settings = recipient_settings(ports, actor.scope()).await?;
    if lgpd::hides_numbers_for(actor, settings) {
        let current = find(ports, actor.scope(), id).await?;
        if input.number.trim() == lgpd::mask_number(&current.number) {
            input.number = current.number;
        }
    }
    let input = contact_rules::prepare(input)?;
    let contact = ports
        .contacts
        .update(actor.scope(), id, &input)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    one_for_actor(ports, actor, contact).await
}

/// Deletes a contact (`DELETE /contacts/{id}`); needs `contacts-page:deleteContact`.
#[tracing::instrument(level = "debug", name = "inbox.contacts::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: ContactId) -> Result<()> {
    policy::authorize(actor, &Action::DeleteContact(actor.company_id))?;
    if ports.contacts.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NO_CONTACT_FOUND.into())
    }
}

/// Blocks (`active = false`) or unblocks a contact (`PUT /contacts/block/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.contacts::set_active", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn set_active(
    ports: &Ports,
    actor: &Actor,
    id: ContactId,
    active: bool,
) -> Result<Contact> {
    let contact = ports
        .contacts
        .set_active(actor.scope(), id, active)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    one_for_actor(ports, actor, contact).await
}

/// Flips whether the contact may send audio (`PUT /contacts/toggleAcceptAudio/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.contacts::toggle_accept_audio", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn toggle_accept_audio(ports: &Ports, actor: &Actor, id: ContactId) -> Result<Contact> {
    let current = find(ports, actor.scope(), id).await?;
    let contact = ports
        .contacts
        .set_flags(actor.scope(), id, None, Some(!current.accept_audio_message))
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    one_for_actor(ports, actor, contact).await
}

/// Flips whether the bot skips the contact (`PUT /contacts/toggleDisableBot/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.contacts::toggle_disable_bot", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = id.0))]
pub async fn toggle_disable_bot(ports: &Ports, actor: &Actor, id: ContactId) -> Result<Contact> {
    let current = find(ports, actor.scope(), id).await?;
    let contact = ports
        .contacts
        .set_flags(actor.scope(), id, Some(!current.disable_bot), None)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    one_for_actor(ports, actor, contact).await
}

/// What staging an upload answers: its token, header, first rows and row count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedPreview {
    /// Pass to [`import_staged`].
    pub token: String,
    pub columns: Vec<String>,
    /// The first [`import::PREVIEW_ROWS`] data rows.
    pub rows: Vec<Vec<String>>,
    /// How many data rows the file has.
    pub total: usize,
}

/// Stages a read spreadsheet for its import (`POST /contacts/upload`): kept in the store under a
/// new random token bound to the actor's company for
/// [`limits::STAGED_UPLOAD_TTL_SECONDS`](crate::limits::STAGED_UPLOAD_TTL_SECONDS), at most
/// [`limits::STAGED_UPLOADS_PER_COMPANY`](crate::limits::STAGED_UPLOADS_PER_COMPANY) per company
/// (the company's oldest is dropped; other companies' uploads are never touched).
#[tracing::instrument(level = "debug", name = "inbox.contacts::stage_upload", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn stage_upload(
    ports: &Ports,
    actor: &Actor,
    sheet: &import::Sheet,
) -> Result<StagedPreview> {
    use crate::limits::{STAGED_UPLOAD_TTL_SECONDS, STAGED_UPLOADS_PER_COMPANY};
    if sheet.len() > import::MAX_ROWS {
        return Err(crate::limits::too_large(format!(
            "at most {} rows per import",
            import::MAX_ROWS
        )));
    }
    let token = ports.ids.token(32);
    let now = ports.clock.now();
    let expires_at = now + chrono::Duration::seconds(STAGED_UPLOAD_TTL_SECONDS);
    ports
        .staged_uploads
        .stage(
            actor.scope(),
            &token,
            sheet,
            now,
            expires_at,
            STAGED_UPLOADS_PER_COMPANY,
        )
        .await?;
    Ok(StagedPreview {
        token,
        columns: sheet.header.clone(),
        rows: sheet
            .rows()
            .take(import::PREVIEW_ROWS)
            .map(|row| row.into_iter().map(str::to_owned).collect())
            .collect(),
        total: sheet.len(),
    })
}

/// Imports a staged upload with a column mapping (`POST /contactsImport`). A mapping mistake
/// (`ERR_VALIDATION`) leaves the upload staged so it can be corrected; an unknown, expired, already
/// imported or another company's token is `ERR_INVALID_FILE`.
#[tracing::instrument(level = "debug", name = "inbox.contacts::import_staged", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn import_staged(
    ports: &Ports,
    actor: &Actor,
    token: &str,
    mapping: &ImportMapping,
) -> Result<ImportReport> {
    let scope = actor.scope();
    let now = ports.clock.now();
    let staged = ports
        .staged_uploads
        .staged(scope, token, now)
        .await?
        .ok_or_else(import::invalid_file)?;
    import::resolve(&staged.header, mapping)?;
    drop(staged);
    let sheet = ports
        .staged_uploads
        .take(scope, token, now)
        .await?
        .ok_or_else(import::invalid_file)?;
    import_rows(ports, scope, &sheet, mapping, &mut |_, _| {}).await
}

/// Imports rows into a company (the server's import and the CLI's): resolves the mapping
/// (`ERR_VALIDATION` when name or number is unmapped or a column is used twice), applies the
/// import rules and saves each contact (a contact with the same number is updated). Tags named in
/// the tags column are linked, created when missing (names under 3 characters are skipped).
/// `progress(done, total)` is called after each row saved.
#[tracing::instrument(level = "debug", name = "inbox.contacts::import_rows", skip_all, fields(company = scope.company_id().0))]
pub async fn import_rows(
    ports: &Ports,
    scope: TenantScope,
    sheet: &import::Sheet,
    mapping: &ImportMapping,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<ImportReport> {
    let header = &sheet.header;
    let columns = import::resolve(header, mapping)?;
    if sheet.len() > import::MAX_ROWS {
        return Err(crate::limits::too_large(format!(
            "at most {} rows per import",
            import::MAX_ROWS
        )));
    }
    let plan = import::plan(columns, sheet.rows(), ChannelKind::Whatsapp);
    let mut report = plan.report;
    let mut known_tags = ports.tags.list(scope, None).await?;
    let total = plan.contacts.len();
    for (done, row) in plan.contacts.into_iter().enumerate() {
        match ports.contacts.upsert(scope, &row.input).await {
            Ok((contact, _created)) => {
                report.imported += 1;
                if !row.tags.is_empty() {
                    let mut ids: Vec<TagId> = contact.tags.iter().map(|t| t.id).collect();
                    for name in &row.tags {
                        let existing = known_tags
                            .iter()
                            .find(|t| t.name.trim().eq_ignore_ascii_case(name.trim()))
                            .map(|t| t.id);
                        let id = match existing {
                            Some(id) => Some(id),
                            None if crate::validation::validate_tag_name(name).is_ok() => {
                                let tag =
                                    ports.tags.create(scope, name.trim(), "#A4CCCC", 0).await?;
                                let id = tag.id;
                                known_tags.push(tag);
                                Some(id)
                            }
                            None => None,
                        };
                        if let Some(id) = id
                            && !ids.contains(&id)
                        {
                            ids.push(id);
                        }
                    }
                    ports.contacts.set_tags(scope, contact.id, &ids).await?;
                }
            }
            Err(error) if error.code == ErrorCode::ERR_INTERNAL => return Err(error),
            Err(error) => report.fail(row.row, &error),
        }
        progress(done + 1, total);
    }
    Ok(report)
}

/// Every contact of the company, by name, for the spreadsheet export (`GET /contacts/export`):
/// admins only ([`Action::ExportContacts`]).
#[tracing::instrument(level = "debug", name = "inbox.contacts::export", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn export(ports: &Ports, actor: &Actor) -> Result<Vec<Contact>> {
    policy::authorize(actor, &Action::ExportContacts(actor.company_id))?;
    let all = export_all(ports, actor.scope()).await?;
    for_actor(ports, actor, all).await
}

/// Every contact of a company, by name (the CLI's listing and export; no LGPD view).
#[tracing::instrument(level = "debug", name = "inbox.contacts::export_all", skip_all, fields(company = scope.company_id().0))]
pub async fn export_all(ports: &Ports, scope: TenantScope) -> Result<Vec<Contact>> {
    let mut out = Vec::new();
    let mut start = PageStart::First;
    loop {
        let page = ports
            .contacts
            .search(scope, &ContactFilter::default(), &start, EXPORT_PAGE)
            .await?;
        out.extend(page.items);
        match page.next_cursor {
            Some(cursor) if page.has_more => start = PageStart::After(cursor),
            _ => break,
        }
    }
    Ok(out)
}

/// What `GET /contacts/profile/{number}` answers: the company's contact with that number, or
/// else the profile the connection's channel knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContactProfile {
    /// The number, digits only (masked for plain users under LGPD when it is a stored
    /// contact's).
    pub number: String,
    pub name: String,
    /// The profile picture's address (empty when none).
    pub profile_pic_url: String,
    /// The company's contact with that number, when there is one.
    pub contact: Option<Contact>,
}

/// The profile of `number` (`GET /contacts/profile/{number}`): the company's WhatsApp contact
/// with that number (8 to 50 digits, formatting ignored); otherwise the profile the company's
/// default connection's channel reports (another connected connection when the default is not
/// connected). `ERR_WAPP_INVALID_CONTACT` for a value that is not a phone number,
/// `ERR_NO_CONTACT_FOUND` when neither the company nor a connected channel knows the number,
/// `ERR_CHANNEL_NOT_SUPPORTED` when the channel cannot look profiles up.
#[tracing::instrument(level = "debug", name = "inbox.contacts::profile", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn profile(ports: &Ports, actor: &Actor, number: &str) -> Result<ContactProfile> {
    let scope = actor.scope();
    use crate::validation::{CONTACT_NUMBER_MAX_DIGITS, CONTACT_NUMBER_MIN_DIGITS};
    let digits = crate::validation::number_digits(number)
        .filter(|d| (CONTACT_NUMBER_MIN_DIGITS..=CONTACT_NUMBER_MAX_DIGITS).contains(&d.len()))
        .ok_or(ErrorCode::ERR_WAPP_INVALID_CONTACT)?;
    if let Some(contact) = ports
        .contacts
        .find_by_number(scope, ChannelKind::Whatsapp, &digits)
        .await?
    {
        let contact = one_for_actor(ports, actor, contact).await?;
        return Ok(ContactProfile {
            number: contact.number.clone(),
            name: contact.name.clone(),
            profile_pic_url: contact.url_picture.clone().unwrap_or_default(),
            contact: Some(contact),
        });
    }
    let connection = connected_connection(ports, scope).await?.ok_or_else(|| {
        Error::with_detail(
            ErrorCode::ERR_NO_CONTACT_FOUND,
            "no contact has this number and no connection is connected to ask",
        )
    })?;
    let provider = ports.channels.get(connection.provider)?;
    let found = provider.profile(scope, connection.id, &digits).await?;
    let found = found.ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    Ok(ContactProfile {
        number: digits,
        name: found.name,
        profile_pic_url: found.profile_pic_url,
        contact: None,
    })
}

/// Fetches the profile picture of a ticket's contact (a person or a group) from the ticket's
/// connection and keeps its address on the contact (the `refreshPicture` job, queued when a
/// ticket is created and [`Contact::picture_due`](crate::inbox::model::Contact::picture_due)).
/// No picture on the channel clears it. A channel that cannot look pictures up or a session
/// that is not connected here leave the contact as it is: the picture is a nicety, not worth a
/// retry.
#[tracing::instrument(level = "debug", name = "inbox.contacts::refresh_picture", skip_all, fields(company = scope.company_id().0, ticket = ticket_id.0))]
pub async fn refresh_picture(
    ports: &Ports,
    scope: TenantScope,
    ticket_id: crate::ids::TicketId,
) -> Result<()> {
    let Some(ticket) = ports.tickets.get(scope, ticket_id).await? else {
        return Ok(());
    };
    let Some(connection_id) = ticket.whatsapp_id else {
        return Ok(());
    };
    let Some(connection) = ports.connections.get(scope, connection_id).await? else {
        return Ok(());
    };
    let Ok(provider) = ports.channels.get(connection.provider) else {
        return Ok(());
    };
    keep_picture(
        ports,
        scope,
        provider.as_ref(),
        &connection,
        ticket.contact.id,
        &ticket.contact.number,
    )
    .await
}

/// [`refresh_picture`] for the contacts of a batch's new tickets on one connection (the
/// `refreshPictures` job): the connection is read once, each contact is looked up by the
/// number the job carries, one after another.
#[tracing::instrument(level = "debug", name = "inbox.contacts::refresh_pictures", skip_all, fields(company = scope.company_id().0, connection = whatsapp_id.0, contacts = contacts.len()))]
pub async fn refresh_pictures(
    ports: &Ports,
    scope: TenantScope,
    whatsapp_id: WhatsappId,
    contacts: &[crate::jobs::PictureLookup],
) -> Result<()> {
    let Some(connection) = ports.connections.get(scope, whatsapp_id).await? else {
        return Ok(());
    };
    let Ok(provider) = ports.channels.get(connection.provider) else {
        return Ok(());
    };
    for contact in contacts {
        keep_picture(
            ports,
            scope,
            provider.as_ref(),
            &connection,
            contact.contact_id,
            &contact.number,
        )
        .await?;
    }
    Ok(())
}

/// Looks one contact's picture up on `connection` and keeps what it found (nothing when the
/// lookup failed).
async fn keep_picture(
    ports: &Ports,
    scope: TenantScope,
    provider: &dyn crate::inbox::channel::ChannelProvider,
    connection: &Connection,
    contact: ContactId,
    number: &str,
) -> Result<()> {
    let found = match provider.profile(scope, connection.id, number).await {
        Ok(found) => found,
        Err(error) => {
            tracing::debug!(%error, "the contact's picture was not looked up");
            return Ok(());
        }
    };
    // No such contact on the channel, or no picture it shows us: none (a picture taken down
    // or hidden is not kept).
    let url = found
        .map(|profile| profile.profile_pic_url)
        .filter(|url| !url.is_empty());
    ports
        .contacts
        .set_picture(scope, contact, url.as_deref(), ports.clock.now())
        .await?;
    Ok(())
}

/// The company's default connection when it is connected, else its first connected one.
async fn connected_connection(ports: &Ports, scope: TenantScope) -> Result<Option<Connection>> {
    let mut connected: Vec<Connection> = ports
        .connections
        .list(scope)
        .await?
        .into_iter()
        .filter(|c| c.status == ConnectionStatus::Connected)
        .collect();
    connected.sort_by_key(|c| (!c.is_default, c.id.0));
    Ok(connected.into_iter().next())
}

/// What an import from a connection's chats did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChatImportReport {
    /// The connection the chats came from.
    pub whatsapp_id: WhatsappId,
    /// One-to-one chats the channel listed.
    pub chats: usize,
    /// New contacts created.
    pub imported: usize,
    /// Chats whose number is already a contact (left as they are).
    pub existing: usize,
    /// Chats whose number is not valid for a contact.
    pub ignored: usize,
}

/// Imports the contacts of a connection's chats (`POST /contacts/import/chats`, and
/// `POST /contacts/import` with `whatsappId`): the connection named, else the company's
/// default. Each one-to-one chat becomes a contact of the connection's channel named with the
/// chat's name (the number when it has none); numbers that are already contacts are left
/// untouched. The connection must be connected (`ERR_WAPP_NOT_INITIALIZED`); a channel that
/// cannot list its chats answers `ERR_CHANNEL_NOT_SUPPORTED`. Any user of the company may
/// import, as with creating contacts.
#[tracing::instrument(level = "debug", name = "inbox.contacts::import_chats", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn import_chats(
    ports: &Ports,
    actor: &Actor,
    whatsapp: Option<WhatsappId>,
) -> Result<ChatImportReport> {
    let scope = actor.scope();
    let connection = match whatsapp {
        Some(id) => ports
            .connections
            .get(scope, id)
            .await?
            .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?,
        None => super::connections::default_in(ports, scope).await?,
    };
    if connection.status != ConnectionStatus::Connected {
        return Err(Error::with_detail(
            ErrorCode::ERR_WAPP_NOT_INITIALIZED,
            "the connection is not connected",
        ));
    }
    let provider = ports.channels.get(connection.provider)?;
    let chats = provider.list_chats(scope, connection.id).await?;
    let mut report = ChatImportReport {
        whatsapp_id: connection.id,
        chats: chats.len(),
        imported: 0,
        existing: 0,
        ignored: 0,
    };
    for chat in chats {
        let input = |name: &str| ContactInput {
            name: name.to_owned(),
            number: chat.number.clone(),
            channel: Some(connection.channel),
            email: String::new(),
            is_group: false,
            whatsapp_id: Some(connection.id),
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        };
        let prepared = contact_rules::prepare(input(&chat.name))
            .or_else(|_| contact_rules::prepare(input(&chat.number)));
        let Ok(prepared) = prepared else {
            report.ignored += 1;
            continue;
        };
        let channel = prepared.channel.unwrap_or(connection.channel);
        if ports
            .contacts
            .find_by_number(scope, channel, &prepared.number)
            .await?
            .is_some()
        {
            report.existing += 1;
            continue;
        }
        match ports.contacts.create(scope, &prepared).await {
            Ok(_) => report.imported += 1,
            Err(e) if e.code == ErrorCode::ERR_DUPLICATED_CONTACT => report.existing += 1,
            Err(e) if e.code == ErrorCode::ERR_INTERNAL => return Err(e),
            Err(_) => report.ignored += 1,
        }
    }
    Ok(report)
}
