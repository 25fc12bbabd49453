//! The WhatsApp Cloud API as the core's [`ChannelProvider`] (provider `cloud`), over the
//! [`GraphClient`].
//!
//! The core's port names a connection, not its credentials, and the core does not keep a
//! connection's phone number id, business account id or token yet. So the provider asks a
//! [`CloudAccounts`] of the host for them on every call; the wiring step implements it over the
//! connection's sealed settings.
//!
//! | core call | what happens |
//! |---|---|
//! | `start` | the account checked (`GET /{v}/{phone_number_id}`): `ERR_INVALID_CREDENTIALS` when Meta refuses the token |
//! | `new_qr` | `ERR_CHANNEL_NOT_SUPPORTED` (nothing to pair) |
//! | `disconnect` | nothing to close: `Ok` |
//! | `send` text | `text`, a reply with `context.message_id` |
//! | `send` media | uploaded, then sent by its media id (`image`, `video`, `audio`, `document` with its file name) with the caption (none on audio) |
//! | `send` contact, location | `contacts`, `location` |
//! | `edit`, `delete` | `ERR_CHANNEL_NOT_SUPPORTED`: the Cloud API cannot change or revoke a sent message |
//! | `react` | `reaction` on the message |
//! | `mark_read` | the newest of the messages marked read (WhatsApp marks the earlier ones with it) |
//! | `download_media` | the attachment fetched again from its locator ([`MediaRef`]) |
//! | `profile`, `check_number`, `list_chats`, pair code, calls, history | `ERR_CHANNEL_NOT_SUPPORTED` (the port's defaults): the Cloud API has no such calls |
//!
//! A send is refused with `ERR_SENDING_WAPP_MSG` and Meta's reason; a throttled one is retried
//! first ([`crate::graph`]). The 24-hour window is not checked here: the port does not carry the
//! time of the customer's last message (a send outside it fails with 131047).

use std::sync::Arc;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{
    ChannelMedia, ChannelProvider, FailedMedia, Outbound, OutboundContent, ReadMessage,
    not_supported,
};
use chatflow_core::inbox::model::{MediaType, ProviderKind};
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};

use crate::graph::cloud::{
    CardOut, CloudAccount, CloudContent, CloudMessage, MediaKind, MediaSource, Recipient,
};
use crate::graph::{GraphClient, Operation};
use crate::webhook::MediaRef;

/// The host's source of each Cloud API connection's credentials.
#[async_trait]
pub trait CloudAccounts: Send + Sync {
    /// The account of `connection`; `ERR_WAPP_NOT_INITIALIZED` when it has none (not
    /// configured yet), `ERR_NO_WAPP_FOUND` when it is not the company's.
    async fn account(&self, scope: TenantScope, connection: WhatsappId) -> Result<CloudAccount>;
}

/// The `cloud` provider (see the module's documentation).
#[derive(Clone)]
pub struct CloudProvider {
    client: GraphClient,
    accounts: Arc<dyn CloudAccounts>,
}

impl CloudProvider {
    /// A provider calling Graph with `client`, reading credentials from `accounts`.
    pub fn new(client: GraphClient, accounts: Arc<dyn CloudAccounts>) -> Self {
        Self { client, accounts }
    }
}

/// The file kind a stored message's media type is sent as.
fn kind_of(media_type: MediaType) -> MediaKind {
    match media_type {
        MediaType::Image => MediaKind::Image,
        MediaType::Video => MediaKind::Video,
        MediaType::Audio => MediaKind::Audio,
        _ => MediaKind::Document,
    }
}

#[async_trait]
impl ChannelProvider for CloudProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Cloud
    }

    async fn start(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        let account = self.accounts.account(scope, connection).await?;
        self.client
            .phone_number(&account)
            .await
            .map(|_| ())
            .map_err(|e| e.to_core(Operation::Account))
    }

    async fn new_qr(&self, _scope: TenantScope, _connection: WhatsappId) -> Result<()> {
        Err(not_supported(self.kind(), "show a QR code"))
    }

    async fn disconnect(&self, _scope: TenantScope, _connection: WhatsappId) -> Result<()> {
        Ok(())
    }

    async fn send(&self, scope: TenantScope, message: &Outbound) -> Result<String> {
        let account = self.accounts.account(scope, message.connection).await?;
        let to = Recipient::parse(&message.to)?;
        let content = match &message.content {
            OutboundContent::Text { body } => CloudContent::Text {
                body: body.clone(),
                preview_url: false,
            },
            OutboundContent::Media { media, caption } => {
                let kind = kind_of(media.media_type);
                let id = self
                    .client
                    .upload_media(
                        &account,
                        media.bytes.clone(),
                        &media.mime_type,
                        &media.file_name,
                    )
                    .await
                    .map_err(|e| e.to_core(Operation::Send))?;
                CloudContent::Media {
                    kind,
                    source: MediaSource::Id(id),
                    caption: if kind == MediaKind::Audio {
                        String::new()
                    } else {
                        caption.clone()
                    },
                    file_name: (kind == MediaKind::Document).then(|| media.file_name.clone()),
                }
            }
            OutboundContent::Contact { card } => CloudContent::Contacts(vec![CardOut {
                name: card.name.clone(),
                phones: vec![card.number.clone()],
            }]),
            OutboundContent::Location {
                latitude,
                longitude,
                name,
            } => CloudContent::Location {
                latitude: latitude.get(),
                longitude: longitude.get(),
                name: name.clone(),
                address: String::new(),
            },
        };
        let sent = self
            .client
            .send_cloud(
                &account,
                &CloudMessage {
                    to,
                    content,
                    reply_to: message.quoted_external_id.clone(),
                    idempotency_key: message.idempotency_key.clone(),
                },
            )
            .await
            .map_err(|e| e.to_core())?;
        Ok(sent.id)
    }

    async fn edit(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _to: &str,
        _external_id: &str,
        _body: &str,
    ) -> Result<()> {
        Err(not_supported(self.kind(), "edit a sent message"))
    }

    async fn delete(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _to: &str,
        _external_id: &str,
    ) -> Result<()> {
        Err(not_supported(self.kind(), "delete a sent message"))
    }

    async fn react(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        _from_me: bool,
        emoji: &str,
    ) -> Result<()> {
        let account = self.accounts.account(scope, connection).await?;
        self.client
            .send_cloud(
                &account,
                &CloudMessage {
                    to: Recipient::parse(to)?,
                    content: CloudContent::Reaction {
                        message_id: external_id.to_owned(),
                        emoji: emoji.to_owned(),
                    },
                    reply_to: None,
                    idempotency_key: None,
                },
            )
            .await
            .map(|_| ())
            .map_err(|e| e.to_core())
    }

    async fn mark_read(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        _chat: &str,
        read: &[ReadMessage],
    ) -> Result<()> {
        let Some(newest) = read.iter().rev().find(|m| !m.external_id.is_empty()) else {
            return Ok(());
        };
        let account = self.accounts.account(scope, connection).await?;
        self.client
            .mark_read_cloud(&account, &newest.external_id)
            .await
            .map_err(|e| e.to_core(Operation::Send))
    }

    async fn download_media(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        media: &FailedMedia,
    ) -> Result<ChannelMedia> {
        let reference = MediaRef::from_locator(&media.locator).ok_or_else(|| {
            Error::with_detail(
                ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA,
                "the attachment's locator is not a Cloud API media reference",
            )
        })?;
        let account = self.accounts.account(scope, connection).await?;
        let mut file = self
            .client
            .fetch_media(&account.access_token, &reference, "", media.media_type)
            .await?;
        file.file_name = media.file_name.clone();
        Ok(file)
    }
}
