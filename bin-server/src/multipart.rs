//! The one reader of `multipart/form-data` bodies, shared by every upload route (attachments,
//! flow media and imports, quick-message and schedule files, avatars, contact spreadsheets).
//!
//! It reads the parts a route asks for ([`Select`]), in order, skipping the rest; refuses a body
//! it cannot read (`400 ERR_BAD_REQUEST`; `413 ERR_PAYLOAD_TOO_LARGE` past the body limit), a
//! file name or text field holding U+0000 ([`crate::extract::storable`]), and, with a
//! [`Limit`], a file as soon as it grows past it (`413`), after draining the rest of that part
//! so the client reads the answer rather than a connection closed mid-upload.

use axum::extract::multipart::{Field, Multipart, MultipartRejection};
use chatflow_core::ErrorCode;

use crate::error::{ApiError, ApiResult, multipart_error};

/// One part of the body, read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The form field's name (`""` when the part has none).
    pub field: String,
    /// The file name the client gave, if the part is a file.
    pub file_name: Option<String>,
    /// The content type the client declared.
    pub content_type: Option<String>,
    pub bytes: Vec<u8>,
}

impl Part {
    /// The part as text (a form field), `400` when it is not UTF-8 or holds U+0000.
    pub fn text(&self) -> ApiResult<String> {
        let text = String::from_utf8(self.bytes.clone())
            .map_err(|_| ApiError::code(ErrorCode::ERR_BAD_REQUEST))?;
        crate::extract::storable(text)
    }

    /// The part as an upload of the inbox's send and file routes: its file name (`file` when
    /// none was given) and its declared content type (`application/octet-stream` when none).
    pub fn into_upload(self) -> chatflow_core::service::inbox::messages::Upload {
        chatflow_core::service::inbox::messages::Upload {
            file_name: self.file_name.unwrap_or_else(|| "file".to_owned()),
            mime_type: self
                .content_type
                .unwrap_or_else(|| chatflow_core::media::UNKNOWN.to_owned()),
            bytes: self.bytes,
        }
    }
}

/// Which parts a route reads.
#[derive(Debug, Clone, Copy)]
pub enum Select<'a> {
    /// Every part.
    All,
    /// The parts that carry a file name.
    Files,
    /// The parts of these field names.
    Fields(&'a [&'a str]),
}

impl Select<'_> {
    fn wants(&self, field: &Field<'_>) -> bool {
        match self {
            Select::All => true,
            Select::Files => field.file_name().is_some(),
            Select::Fields(names) => field.name().is_some_and(|name| names.contains(&name)),
        }
    }
}

/// The most bytes one file may have, and what the refusal calls it (`at most N bytes per
/// {what}`).
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub bytes: u64,
    pub what: &'static str,
}

fn unreadable(rejection: MultipartRejection) -> ApiError {
    tracing::debug!(%rejection, "unreadable multipart body");
    ApiError::code(ErrorCode::ERR_BAD_REQUEST)
}

/// The selected parts of a body, in order.
pub async fn read(
    multipart: Result<Multipart, MultipartRejection>,
    select: Select<'_>,
    limit: Option<Limit>,
) -> ApiResult<Vec<Part>> {
    let mut multipart = multipart.map_err(unreadable)?;
    let mut parts = Vec::new();
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        if select.wants(&field) {
            parts.push(read_part(field, limit).await?);
        }
    }
    Ok(parts)
}

/// The first selected part of a body, if any; the rest of the body is not read.
pub async fn first(
    multipart: Result<Multipart, MultipartRejection>,
    select: Select<'_>,
    limit: Option<Limit>,
) -> ApiResult<Option<Part>> {
    let mut multipart = multipart.map_err(unreadable)?;
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        if select.wants(&field) {
            return read_part(field, limit).await.map(Some);
        }
    }
    Ok(None)
}

async fn read_part(mut field: Field<'_>, limit: Option<Limit>) -> ApiResult<Part> {
    let name = field.name().unwrap_or_default().to_owned();
    let file_name = field
        .file_name()
        .map(|name| crate::extract::storable(name.to_owned()))
        .transpose()?;
    let content_type = field.content_type().map(str::to_owned);
    let mut bytes = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if let Some(limit) = limit
            && (bytes.len() + chunk.len()) as u64 > limit.bytes
        {
            drop(bytes);
            while field.chunk().await.map_err(multipart_error)?.is_some() {}
            return Err(chatflow_core::limits::too_large(format!(
                "at most {} bytes per {}",
                limit.bytes, limit.what
            ))
            .into());
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Part {
        field: name,
        file_name,
        content_type,
        bytes,
    })
}
