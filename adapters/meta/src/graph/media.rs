//! Downloads of inbound files.
//!
//! - **Cloud API** ([`GraphClient::download_cloud_media`]): `GET /{v}/{media_id}` answers a
//!   short-lived `url` with the file's `mime_type`, `sha256` and `file_size`; the URL is fetched
//!   with the same bearer token, but only when it is on the Graph origin or one of the
//!   configured media hosts (HTTPS, exact host), so the token never leaves Meta. The bytes'
//!   SHA-256 must match what Meta gave (the media object's, else the webhook's); a mismatch is
//!   refused, never stored.
//! - **Messenger and Instagram** ([`GraphClient::download_url`]): the attachment's expiring CDN
//!   URL, fetched without any token (HTTPS only).
//!
//! Both are bounded by [`super::GraphConfig::max_media_bytes`] and retried like every call.

use base64::Engine as _;
use chatflow_core::inbox::channel::ChannelMedia;
use chatflow_core::inbox::model::MediaType;
use reqwest::{Method, Url};
use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use super::{Body, GraphClient, GraphError, Operation};
use crate::webhook::MediaRef;

/// A downloaded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    /// The file.
    pub bytes: Vec<u8>,
    /// The type Meta declared (else the answer's `Content-Type`).
    pub mime_type: String,
}

#[derive(Debug, Deserialize)]
struct MediaInfo {
    url: String,
    #[serde(default)]
    mime_type: String,
    #[serde(default)]
    sha256: Option<String>,
}

/// Whether `bytes` hash to `expected` (hex, or base64 of the 32 bytes).
pub fn sha256_matches(bytes: &[u8], expected: &str) -> bool {
    let digest = Sha256::digest(bytes);
    let expected = expected.trim();
    if expected.len() == 64
        && let Ok(raw) = hex::decode(expected)
    {
        return raw.as_slice() == digest.as_slice();
    }
    [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
    ]
    .iter()
    .any(|engine| {
        engine
            .decode(expected)
            .is_ok_and(|raw| raw.as_slice() == digest.as_slice())
    }) || base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(expected.trim_end_matches('='))
        .is_ok_and(|raw| raw.as_slice() == digest.as_slice())
}

impl GraphClient {
    /// Downloads a Cloud API media id with the account's token (see the module's
    /// documentation). `expected_sha256` is the webhook's, used when the media object gives
    /// none.
    pub async fn download_cloud_media(
        &self,
        access_token: &str,
        media_id: &str,
        expected_sha256: Option<&str>,
    ) -> Result<Downloaded, GraphError> {
        let info: MediaInfo = self
            .call(
                Method::GET,
                self.url(&[media_id]),
                Some(access_token),
                Body::None,
            )
            .await?;
        let url = Url::parse(&info.url)
            .map_err(|_| GraphError::local("Graph answered a media URL that is not a URL"))?;
        if !self.trusted_media_url(&url) {
            return Err(GraphError::local(format!(
                "the media URL's host {:?} is not a Graph media host",
                url.host_str().unwrap_or_default()
            )));
        }
        let limit = self.config.max_media_bytes;
        let no_body = Body::None;
        let (bytes, content_type) = self
            .retrying(|| {
                self.attempt(
                    Method::GET,
                    url.clone(),
                    Some(access_token),
                    &no_body,
                    Some(limit),
                )
            })
            .await?;
        let expected = info
            .sha256
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .or(expected_sha256.filter(|s| !s.trim().is_empty()));
        if let Some(expected) = expected
            && !sha256_matches(&bytes, expected)
        {
            return Err(GraphError::local(
                "the downloaded file's sha256 does not match Meta's; refused",
            ));
        }
        let mime_type = Some(info.mime_type)
            .filter(|m| !m.trim().is_empty())
            .or(content_type)
            .unwrap_or_else(|| "application/octet-stream".to_owned());
        Ok(Downloaded { bytes, mime_type })
    }

    /// Downloads a Messenger or Instagram attachment URL (no token; HTTPS, or the Graph origin
    /// itself for tests against the fake).
    pub async fn download_url(&self, url: &str) -> Result<Downloaded, GraphError> {
        let url =
            Url::parse(url).map_err(|_| GraphError::local("the attachment URL is not a URL"))?;
        if url.scheme() != "https" && !self.trusted_media_url(&url) {
            return Err(GraphError::local("the attachment URL is not HTTPS"));
        }
        let limit = self.config.max_media_bytes;
        let no_body = Body::None;
        let (bytes, content_type) = self
            .retrying(|| self.attempt(Method::GET, url.clone(), None, &no_body, Some(limit)))
            .await?;
        Ok(Downloaded {
            bytes,
            mime_type: content_type
                .map(|c| c.split(';').next().unwrap_or_default().trim().to_owned())
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| "application/octet-stream".to_owned()),
        })
    }

    /// The file of an inbound message, ready for the message's `media`: `media` as the parse
    /// gave it ([`crate::webhook::Item::media`]), `access_token` the Cloud account's (unused
    /// for URLs). `ERR_WAPP_DOWNLOAD_MEDIA` when it cannot be had.
    pub async fn fetch_media(
        &self,
        access_token: &str,
        media: &MediaRef,
        external_id: &str,
        media_type: MediaType,
    ) -> chatflow_core::Result<ChannelMedia> {
        let downloaded = match media {
            MediaRef::Cloud { id, sha256, .. } => {
                self.download_cloud_media(access_token, id, sha256.as_deref())
                    .await
            }
            MediaRef::Url { url, .. } => self.download_url(url).await,
        }
        .map_err(|e| e.to_core(Operation::Download))?;
        let mime_type = match media {
            MediaRef::Url {
                mime_type: None, ..
            } => downloaded.mime_type,
            _ => media.mime_type().to_owned(),
        };
        let file_name = match media {
            MediaRef::Url { .. } => MediaRef::Url {
                url: String::new(),
                mime_type: Some(mime_type.clone()),
            }
            .file_name_for(external_id),
            _ => media.file_name_for(external_id),
        };
        Ok(ChannelMedia {
            media_type,
            file_name,
            mime_type,
            bytes: downloaded.bytes,
        })
    }
}
