//! Contacts (`/contacts`): listing and searching, the contact form, block/unblock, the bot and
//! audio toggles, import from a spreadsheet and export.
//!
//! Policy: any user of the company reads, creates and edits its contacts; deleting needs
//! `contacts-page:deleteContact` ([`Action::DeleteContact`]). Contacts returned to a user go
//! through [`lgpd::contact_for`] (masked numbers for plain users under LGPD).

use crate::error::{ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{ContactId, TagId, TenantScope};
use crate::inbox::contact_rules;
use crate::inbox::events::RecipientSettings;
use crate::inbox::import::{self, ImportMapping, ImportReport};
use crate::inbox::lgpd;
use crate::inbox::model::{Contact, ContactFilter, ContactInput, KeysetPage, PageStart};
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
pub async fn list_brief(ports: &Ports, actor: &Actor, search: &str) -> Result<Vec<Contact>> {
    let items = ports
        .contacts
        .list_brief(actor.scope(), search, BRIEF_LIMIT)
        .await?;
    for_actor(ports, actor, items).await
}

/// One contact; `ERR_NO_CONTACT_FOUND` when it is not the company's.
pub async fn get(ports: &Ports, actor: &Actor, id: ContactId) -> Result<Contact> {
    let contact = find(ports, actor.scope(), id).await?;
    one_for_actor(ports, actor, contact).await
}

async fn find(ports: &Ports, scope: TenantScope, id: ContactId) -> Result<Contact> {
    ports
        .contacts
        .get(scope, id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_CONTACT_FOUND.into())
}

/// Creates a contact from the form (`POST /contacts`): validated and normalised;
/// `ERR_DUPLICATED_CONTACT` when the company has that number on that channel.
pub async fn create(ports: &Ports, actor: &Actor, input: ContactInput) -> Result<Contact> {
    let input = contact_rules::prepare(input)?;
    let contact = ports.contacts.create(actor.scope(), &input).await?;
    one_for_actor(ports, actor, contact).await
}

/// Edits a contact (`PUT /contacts/{id}`). Under LGPD a plain user's form carries the masked
/// number; that value keeps the stored number.
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
pub async fn delete(ports: &Ports, actor: &Actor, id: ContactId) -> Result<()> {
    policy::authorize(actor, &Action::DeleteContact(actor.company_id))?;
    if ports.contacts.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NO_CONTACT_FOUND.into())
    }
}

/// Blocks (`active = false`) or unblocks a contact (`PUT /contacts/block/{id}`).
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
pub async fn toggle_disable_bot(ports: &Ports, actor: &Actor, id: ContactId) -> Result<Contact> {
    let current = find(ports, actor.scope(), id).await?;
    let contact = ports
        .contacts
        .set_flags(actor.scope(), id, Some(!current.disable_bot), None)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    one_for_actor(ports, actor, contact).await
}

/// Imports spreadsheet rows (`POST /contactsImport`) for an acting user.
pub async fn import(
    ports: &Ports,
    actor: &Actor,
    header: &[String],
    rows: &[Vec<String>],
    mapping: &ImportMapping,
) -> Result<ImportReport> {
    import_rows(ports, actor.scope(), header, rows, mapping, &mut |_, _| {}).await
}

/// Imports rows into a company (the server's import and the CLI's): resolves the mapping
/// (`ERR_VALIDATION` when name or number is unmapped or a column is used twice), applies the
/// import rules and saves each contact (a contact with the same number is updated). Tags named in
/// the tags column are linked, created when missing (names under 3 characters are skipped).
/// `progress(done, total)` is called after each row saved.
pub async fn import_rows(
    ports: &Ports,
    scope: TenantScope,
    header: &[String],
    rows: &[Vec<String>],
    mapping: &ImportMapping,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> Result<ImportReport> {
    let columns = import::resolve(header, mapping)?;
    if rows.len() > import::MAX_ROWS {
        return Err(crate::error::Error::with_detail(
            ErrorCode::ERR_PAYLOAD_TOO_LARGE,
            format!("at most {} rows per import", import::MAX_ROWS),
        ));
    }
    let plan = import::plan(columns, rows, ChannelKind::Whatsapp);
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

/// Every contact of the company, by name, for the spreadsheet export (`GET /contacts/export`).
pub async fn export(ports: &Ports, actor: &Actor) -> Result<Vec<Contact>> {
    let all = export_all(ports, actor.scope()).await?;
    for_actor(ports, actor, all).await
}

/// Every contact of a company, by name (the CLI's listing and export; no LGPD view).
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
