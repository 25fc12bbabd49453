//! WhatsApp Cloud API calls: `POST /{v}/{phone_number_id}/messages` (every kind of message,
//! reactions, read marks), `POST /{v}/{phone_number_id}/media` (uploads), `GET
//! /{v}/{phone_number_id}` (the number's check) and `GET /{v}/{waba_id}/message_templates`.
//!
//! The message JSON is built by the pure [`message_json`], which also checks WhatsApp's limits
//! before anything is sent (a refusal here is `ERR_VALIDATION`, never a Graph call):
//!
//! | content | JSON `type` | limits checked |
//! |---|---|---|
//! | [`CloudContent::Text`] | `text` (`preview_url`) | 1–4096 characters |
//! | [`CloudContent::Media`] | `image` / `video` / `audio` / `document` / `sticker`, by uploaded `id` or `link`; `caption` (not audio, sticker); `filename` (document) | caption ≤ 1024 |
//! | [`CloudContent::Location`] | `location` | latitude −90..90, longitude −180..180 |
//! | [`CloudContent::Contacts`] | `contacts` (`name.formatted_name`, `phones[].phone`, `wa_id`) | at least one card with a name |
//! | [`CloudContent::Template`] | `template` with `language.code` and the body's text parameters | a name and a language |
//! | [`CloudContent::Buttons`] | `interactive` `button` | 1–3 buttons, titles 1–20, ids 1–256 and distinct, body 1–1024 |
//! | [`CloudContent::List`] | `interactive` `list` | 1–10 rows in all, 1–10 sections, button text 1–20, row titles 1–24, descriptions ≤ 72, ids distinct, body 1–4096 |
//! | [`CloudContent::Reaction`] | `reaction` (`emoji` empty: removed) | a message id |
//!
//! Every message carries `messaging_product: whatsapp` and `recipient_type: individual`; the
//! recipient is `to` for a phone number and `recipient` for a BSUID ([`Recipient`]); a reply
//! carries `context.message_id`; our idempotency key, when given, goes in
//! `biz_opaque_callback_data` (Meta echoes it in the message's statuses, for reconciliation).

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Body, GraphClient, GraphError};

/// The credentials and ids of one Cloud API connection.
#[derive(Clone, PartialEq, Eq)]
pub struct CloudAccount {
    /// The business phone number's id (the path of sends and uploads; webhooks name it in
    /// `metadata.phone_number_id`).
    pub phone_number_id: String,
    /// The WhatsApp Business Account's id (templates).
    pub waba_id: String,
    /// A system-user or business token.
    pub access_token: String,
}

impl std::fmt::Debug for CloudAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloudAccount")
            .field("phone_number_id", &self.phone_number_id)
            .field("waba_id", &self.waba_id)
            .field("access_token", &"<redacted>")
            .finish()
    }
}

/// Whom a message goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recipient {
    /// A phone number, digits only (`to`).
    Phone(String),
    /// A business-scoped user id (`recipient`), e.g. `US.13491208655302741918`.
    Bsuid(String),
}

impl Recipient {
    /// The recipient a chat string names: digits (formatting such as `+`, spaces, dashes and
    /// parentheses ignored) are a phone number; `CC.` followed by letters, digits and dots is
    /// a BSUID. `ERR_WAPP_INVALID_CONTACT` for anything else.
    pub fn parse(chat: &str) -> chatflow_core::Result<Self> {
        let chat = chat.trim();
        let invalid = || {
            chatflow_core::Error::with_detail(
                chatflow_core::ErrorCode::ERR_WAPP_INVALID_CONTACT,
                format!("{chat:?} is neither a phone number nor a WhatsApp user id"),
            )
        };
        if let Some((country, rest)) = chat.split_once('.') {
            let valid = country.len() == 2
                && country.bytes().all(|b| b.is_ascii_uppercase())
                && !rest.is_empty()
                && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
                && !rest.ends_with('.');
            return if valid {
                Ok(Recipient::Bsuid(chat.to_owned()))
            } else {
                Err(invalid())
            };
        }
        let mut digits = String::with_capacity(chat.len());
        for c in chat.chars() {
            match c {
                '0'..='9' => digits.push(c),
                '+' | ' ' | '-' | '(' | ')' => {}
                _ => return Err(invalid()),
            }
        }
        if digits.is_empty() {
            return Err(invalid());
        }
        Ok(Recipient::Phone(digits))
    }
}

/// The kind of a file message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A photo (JPEG, PNG).
    Image,
    /// A video (MP4, 3GPP).
    Video,
    /// An audio or voice note.
    Audio,
    /// Any file, with its name.
    Document,
    /// A WebP sticker.
    Sticker,
}

impl MediaKind {
    /// The JSON `type`.
    pub const fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Video => "video",
            MediaKind::Audio => "audio",
            MediaKind::Document => "document",
            MediaKind::Sticker => "sticker",
        }
    }
}

/// Where a file message's file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaSource {
    /// Uploaded first ([`GraphClient::upload_media`]): its media id.
    Id(String),
    /// A public HTTPS URL Meta fetches.
    Link(String),
}

/// A reply button.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyButton {
    /// What the reply reports back (`button_reply.id`).
    pub id: String,
    /// The button's text (1–20 characters).
    pub title: String,
}

/// A section of a list message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSection {
    /// The section's title (needed with several sections).
    pub title: String,
    /// Its rows.
    pub rows: Vec<ListRow>,
}

/// A row of a list message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListRow {
    /// What the reply reports back (`list_reply.id`).
    pub id: String,
    /// The row's text (1–24 characters).
    pub title: String,
    /// Its second line (at most 72 characters; empty: none).
    pub description: String,
}

/// A contact card to share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardOut {
    /// The name shown.
    pub name: String,
    /// Phone numbers (digits, or as written).
    pub phones: Vec<String>,
}

/// What a Cloud API message says.
#[derive(Debug, Clone, PartialEq)]
pub enum CloudContent {
    /// A text message.
    Text {
        /// The text (1–4096 characters).
        body: String,
        /// Whether WhatsApp shows a link's preview.
        preview_url: bool,
    },
    /// A photo, video, audio, document or sticker.
    Media {
        /// Which of them.
        kind: MediaKind,
        /// The uploaded file or a link.
        source: MediaSource,
        /// The caption (empty: none; not on audio and stickers).
        caption: String,
        /// A document's file name.
        file_name: Option<String>,
    },
    /// A location pin.
    Location {
        /// Degrees north.
        latitude: f64,
        /// Degrees east.
        longitude: f64,
        /// The place's name (empty: none).
        name: String,
        /// Its address (empty: none).
        address: String,
    },
    /// Contact cards.
    Contacts(Vec<CardOut>),
    /// An approved template with its body's variables (`{{1}}`, `{{2}}`... in order).
    Template {
        /// The template's name.
        name: String,
        /// Its language code (`pt_BR`).
        language: String,
        /// The values of the body's `{{1}}`, `{{2}}`... in order.
        body_parameters: Vec<String>,
    },
    /// Up to three reply buttons under a text.
    Buttons {
        /// The text above the buttons.
        body: String,
        /// The buttons.
        buttons: Vec<ReplyButton>,
    },
    /// A list of options behind a button.
    List {
        /// The text above the button.
        body: String,
        /// The button's text (1–20 characters).
        button: String,
        /// The sections and their rows.
        sections: Vec<ListSection>,
    },
    /// A reaction to `message_id` (empty `emoji`: removed).
    Reaction {
        /// The message reacted to.
        message_id: String,
        /// The emoji.
        emoji: String,
    },
}

/// A message to send.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudMessage {
    /// Whom it goes to.
    pub to: Recipient,
    /// What it says.
    pub content: CloudContent,
    /// The external id of the message this replies to.
    pub reply_to: Option<String>,
    /// Our key of the stored message, echoed by Meta in the statuses.
    pub idempotency_key: Option<String>,
}

/// What Meta answered to a send: the new message's id (`wamid.…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The message's id (`wamid.…`).
    pub id: String,
}

/// A template of the business account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    /// Meta's id of the template.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Its language code.
    pub language: String,
    /// `APPROVED`, `PENDING`, `REJECTED`, `PAUSED`, `DISABLED`...
    pub status: String,
    /// `UTILITY`, `MARKETING`, `AUTHENTICATION`.
    pub category: String,
    /// The body's text, with its `{{n}}` variables.
    pub body: String,
    /// How many variables the body has (the highest `{{n}}`).
    pub body_variables: usize,
}

fn too(what: &str) -> chatflow_core::Error {
    chatflow_core::Error::with_detail(chatflow_core::ErrorCode::ERR_VALIDATION, what.to_owned())
}

fn len_within(text: &str, min: usize, max: usize) -> bool {
    let n = text.chars().count();
    n >= min && n <= max
}

/// The JSON of a message (see the module's documentation); `ERR_VALIDATION` when it breaks
/// one of WhatsApp's limits.
pub fn message_json(message: &CloudMessage) -> chatflow_core::Result<Value> {
    let mut out = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
    });
    match &message.to {
        Recipient::Phone(number) => out["to"] = json!(number),
        Recipient::Bsuid(id) => out["recipient"] = json!(id),
    }
    let (kind, object) = content_json(&message.content)?;
    out["type"] = json!(kind);
    out[kind] = object;
    if let Some(quoted) = message.reply_to.as_deref().filter(|q| !q.trim().is_empty()) {
        out["context"] = json!({ "message_id": quoted });
    }
    if let Some(key) = message.idempotency_key.as_deref().filter(|k| !k.is_empty()) {
        out["biz_opaque_callback_data"] = json!(key.chars().take(512).collect::<String>());
    }
    Ok(out)
}

fn content_json(content: &CloudContent) -> chatflow_core::Result<(&'static str, Value)> {
    Ok(match content {
        CloudContent::Text { body, preview_url } => {
            if !len_within(body, 1, 4096) || body.trim().is_empty() {
                return Err(too("a text is 1 to 4096 characters"));
            }
            ("text", json!({ "preview_url": preview_url, "body": body }))
        }
        CloudContent::Media {
            kind,
            source,
            caption,
            file_name,
        } => {
            let mut object = match source {
                MediaSource::Id(id) if !id.trim().is_empty() => json!({ "id": id }),
                MediaSource::Link(link) if link.starts_with("https://") => json!({ "link": link }),
                _ => return Err(too("a file is sent by its uploaded id or an https link")),
            };
            if !caption.trim().is_empty() {
                if matches!(kind, MediaKind::Audio | MediaKind::Sticker) {
                    return Err(too("audio and stickers take no caption"));
                }
                if !len_within(caption, 1, 1024) {
                    return Err(too("a caption is at most 1024 characters"));
                }
                object["caption"] = json!(caption);
            }
            if *kind == MediaKind::Document
                && let Some(name) = file_name.as_deref().filter(|n| !n.trim().is_empty())
            {
                object["filename"] = json!(name);
            }
            (kind.as_str(), object)
        }
        CloudContent::Location {
            latitude,
            longitude,
            name,
            address,
        } => {
            if !(-90.0..=90.0).contains(latitude) || !(-180.0..=180.0).contains(longitude) {
                return Err(too("a location's latitude or longitude is out of range"));
            }
            let mut object = json!({ "latitude": latitude, "longitude": longitude });
            if !name.trim().is_empty() {
                object["name"] = json!(name);
            }
            if !address.trim().is_empty() {
                object["address"] = json!(address);
            }
            ("location", object)
        }
        CloudContent::Contacts(cards) => {
            if cards.is_empty() || cards.iter().any(|c| c.name.trim().is_empty()) {
                return Err(too("a contact card needs a name"));
            }
            let cards: Vec<Value> = cards
                .iter()
                .map(|card| {
                    let phones: Vec<Value> = card
                        .phones
                        .iter()
                        .map(|phone| {
                            let digits: String =
                                phone.chars().filter(char::is_ascii_digit).collect();
                            let mut p = json!({ "phone": format!("+{digits}"), "type": "CELL" });
                            if !digits.is_empty() {
                                p["wa_id"] = json!(digits);
                            }
                            p
                        })
                        .collect();
                    let first = card.name.split_whitespace().next().unwrap_or_default();
                    json!({
                        "name": { "formatted_name": card.name, "first_name": first },
                        "phones": phones,
                    })
                })
                .collect();
            ("contacts", Value::Array(cards))
        }
        CloudContent::Template {
            name,
            language,
            body_parameters,
        } => {
            if name.trim().is_empty() || language.trim().is_empty() {
                return Err(too("a template needs its name and language"));
            }
            let mut object = json!({ "name": name, "language": { "code": language } });
            if !body_parameters.is_empty() {
                if body_parameters.iter().any(|p| p.trim().is_empty()) {
                    return Err(too("a template variable cannot be empty"));
                }
                let parameters: Vec<Value> = body_parameters
                    .iter()
                    .map(|p| json!({ "type": "text", "text": p }))
                    .collect();
                object["components"] = json!([{ "type": "body", "parameters": parameters }]);
            }
            ("template", object)
        }
        CloudContent::Buttons { body, buttons } => {
            if !len_within(body, 1, 1024) {
                return Err(too("an interactive message's body is 1 to 1024 characters"));
            }
            if buttons.is_empty() || buttons.len() > 3 {
                return Err(too("a button message has 1 to 3 buttons"));
            }
            distinct_ids(buttons.iter().map(|b| b.id.as_str()))?;
            let mut list: Vec<Value> = Vec::new();
            for b in buttons {
                if !len_within(&b.title, 1, 20) || !len_within(&b.id, 1, 256) {
                    return Err(too(
                        "a button's title is 1 to 20 characters, its id 1 to 256",
                    ));
                }
                list.push(json!({ "type": "reply", "reply": { "id": b.id, "title": b.title } }));
            }
            (
                "interactive",
                json!({ "type": "button", "body": { "text": body }, "action": { "buttons": list } }),
            )
        }
        CloudContent::List {
            body,
            button,
            sections,
        } => {
            if !len_within(body, 1, 4096) {
                return Err(too("a list message's body is 1 to 4096 characters"));
            }
            if !len_within(button, 1, 20) {
                return Err(too("a list's button text is 1 to 20 characters"));
            }
            let rows: usize = sections.iter().map(|s| s.rows.len()).sum();
            if sections.is_empty() || sections.len() > 10 || rows == 0 || rows > 10 {
                return Err(too("a list has 1 to 10 sections and 1 to 10 rows in all"));
            }
            if sections.len() > 1 && sections.iter().any(|s| s.title.trim().is_empty()) {
                return Err(too("a list with several sections needs their titles"));
            }
            distinct_ids(
                sections
                    .iter()
                    .flat_map(|s| s.rows.iter().map(|r| r.id.as_str())),
            )?;
            let mut out_sections: Vec<Value> = Vec::new();
            for section in sections {
                if section.rows.is_empty() || section.title.chars().count() > 24 {
                    return Err(too(
                        "a section has rows and a title of at most 24 characters",
                    ));
                }
                let mut rows: Vec<Value> = Vec::new();
                for row in &section.rows {
                    if !len_within(&row.title, 1, 24)
                        || !len_within(&row.id, 1, 200)
                        || row.description.chars().count() > 72
                    {
                        return Err(too(
                            "a row's title is 1 to 24 characters, its id 1 to 200, its description at most 72",
                        ));
                    }
                    let mut r = json!({ "id": row.id, "title": row.title });
                    if !row.description.is_empty() {
                        r["description"] = json!(row.description);
                    }
                    rows.push(r);
                }
                let mut s = json!({ "rows": rows });
                if !section.title.is_empty() {
                    s["title"] = json!(section.title);
                }
                out_sections.push(s);
            }
            (
                "interactive",
                json!({
                    "type": "list",
                    "body": { "text": body },
                    "action": { "button": button, "sections": out_sections },
                }),
            )
        }
        CloudContent::Reaction { message_id, emoji } => {
            if message_id.trim().is_empty() {
                return Err(too("a reaction names its message"));
            }
            (
                "reaction",
                json!({ "message_id": message_id, "emoji": emoji }),
            )
        }
    })
}

fn distinct_ids<'a>(ids: impl Iterator<Item = &'a str>) -> chatflow_core::Result<()> {
    let mut seen: Vec<&str> = Vec::new();
    for id in ids {
        if seen.contains(&id) {
            return Err(too("option ids must be distinct"));
        }
        seen.push(id);
    }
    Ok(())
}

#[derive(Debug, Deserialize)]
struct SendAnswer {
    #[serde(default)]
    messages: Vec<SentId>,
}

#[derive(Debug, Deserialize)]
struct SentId {
    id: String,
}

#[derive(Debug, Deserialize)]
struct IdAnswer {
    id: String,
}

#[derive(Debug, Deserialize)]
struct TemplatePage {
    #[serde(default)]
    data: Vec<TemplateRow>,
    #[serde(default)]
    paging: Option<Paging>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Paging {
    #[serde(default)]
    pub(crate) cursors: Option<Cursors>,
    #[serde(default)]
    pub(crate) next: Option<String>,
}

impl Paging {
    /// The cursor of the next page, when Graph says there is one.
    pub(crate) fn next_after(paging: Option<Self>) -> Option<String> {
        paging
            .filter(|p| p.next.is_some())
            .and_then(|p| p.cursors)
            .and_then(|c| c.after)
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct Cursors {
    #[serde(default)]
    pub(crate) after: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TemplateRow {
    id: String,
    name: String,
    language: String,
    status: String,
    category: String,
    components: Vec<TemplateComponent>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TemplateComponent {
    #[serde(rename = "type")]
    kind: String,
    text: String,
}

/// The highest `{{n}}` in a template's text.
fn variables_in(text: &str) -> usize {
    let mut highest = 0;
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        rest = &rest[start + 2..];
        let Some(end) = rest.find("}}") else { break };
        if let Ok(n) = rest[..end].trim().parse::<usize>() {
            highest = highest.max(n);
        }
        rest = &rest[end + 2..];
    }
    highest
}

/// At most this many pages of templates are read.
const MAX_TEMPLATE_PAGES: usize = 20;

impl GraphClient {
    /// Sends `message` from `account`'s number: the new message's id. Retried while Meta
    /// throttles; `ERR_VALIDATION` (nothing sent) when it breaks a limit.
    pub async fn send_cloud(
        &self,
        account: &CloudAccount,
        message: &CloudMessage,
    ) -> Result<Sent, CloudSendError> {
        let json = message_json(message).map_err(CloudSendError::Invalid)?;
        let url = self.url(&[&account.phone_number_id, "messages"]);
        let answer: SendAnswer = self
            .call(
                Method::POST,
                url,
                Some(&account.access_token),
                Body::Json(json),
            )
            .await
            .map_err(CloudSendError::Graph)?;
        answer
            .messages
            .into_iter()
            .next()
            .map(|m| Sent { id: m.id })
            .ok_or_else(|| CloudSendError::Graph(GraphError::local("Graph answered no message id")))
    }

    /// Marks the contact's message `message_id` read (blue ticks; WhatsApp marks the earlier
    /// messages of the chat read too).
    pub async fn mark_read_cloud(
        &self,
        account: &CloudAccount,
        message_id: &str,
    ) -> Result<(), GraphError> {
        let url = self.url(&[&account.phone_number_id, "messages"]);
        let body = json!({
            "messaging_product": "whatsapp",
            "status": "read",
            "message_id": message_id,
        });
        let _: Value = self
            .call(
                Method::POST,
                url,
                Some(&account.access_token),
                Body::Json(body),
            )
            .await?;
        Ok(())
    }

    /// Uploads a file to send: its media id (valid about 30 days).
    pub async fn upload_media(
        &self,
        account: &CloudAccount,
        bytes: Vec<u8>,
        mime_type: &str,
        file_name: &str,
    ) -> Result<String, GraphError> {
        let url = self.url(&[&account.phone_number_id, "media"]);
        let body = Body::Multipart {
            fields: vec![
                ("messaging_product".to_owned(), "whatsapp".to_owned()),
                ("type".to_owned(), mime_type.to_owned()),
            ],
            file: (
                "file".to_owned(),
                file_name.to_owned(),
                mime_type.to_owned(),
                bytes,
            ),
        };
        let answer: IdAnswer = self
            .call(Method::POST, url, Some(&account.access_token), body)
            .await?;
        Ok(answer.id)
    }

    /// The number's display number, as a check that the account's id and token work.
    pub async fn phone_number(&self, account: &CloudAccount) -> Result<String, GraphError> {
        #[derive(Deserialize)]
        struct Number {
            #[serde(default)]
            display_phone_number: String,
        }
        let mut url = self.url(&[&account.phone_number_id]);
        url.query_pairs_mut()
            .append_pair("fields", "display_phone_number,verified_name");
        let number: Number = self
            .call(Method::GET, url, Some(&account.access_token), Body::None)
            .await?;
        Ok(number
            .display_phone_number
            .chars()
            .filter(char::is_ascii_digit)
            .collect())
    }

    /// The business account's templates, every page (at most 20 pages of 100).
    pub async fn templates(&self, account: &CloudAccount) -> Result<Vec<Template>, GraphError> {
        let mut out: Vec<Template> = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..MAX_TEMPLATE_PAGES {
            let mut url = self.url(&[&account.waba_id, "message_templates"]);
            {
                let mut query = url.query_pairs_mut();
                query.append_pair("fields", "id,name,language,status,category,components");
                query.append_pair("limit", "100");
                if let Some(cursor) = &after {
                    query.append_pair("after", cursor);
                }
            }
            let page: TemplatePage = self
                .call(Method::GET, url, Some(&account.access_token), Body::None)
                .await?;
            for row in page.data {
                let body = row
                    .components
                    .iter()
                    .find(|c| c.kind.eq_ignore_ascii_case("body"))
                    .map(|c| c.text.clone())
                    .unwrap_or_default();
                out.push(Template {
                    id: row.id,
                    name: row.name,
                    language: row.language,
                    status: row.status,
                    category: row.category,
                    body_variables: variables_in(&body),
                    body,
                });
            }
            after = Paging::next_after(page.paging);
            if after.is_none() {
                break;
            }
        }
        Ok(out)
    }
}

/// Why a Cloud API send failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CloudSendError {
    /// The message breaks a limit; nothing was sent.
    #[error("{0}")]
    Invalid(chatflow_core::Error),
    /// Graph refused it (see [`GraphError::class`]: the window, a permanent refusal...).
    #[error("{0}")]
    Graph(GraphError),
}

impl CloudSendError {
    /// The core's error (`ERR_VALIDATION`, or `ERR_SENDING_WAPP_MSG` with Meta's reason).
    pub fn to_core(&self) -> chatflow_core::Error {
        match self {
            CloudSendError::Invalid(e) => e.clone(),
            CloudSendError::Graph(e) => e.to_core(super::Operation::Send),
        }
    }
}
