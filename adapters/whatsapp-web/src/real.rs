//! The library's live session behind our traits (design A1, A4, A6, B3).
//!
//! - [`RealWaClientFactory`] builds a **fresh** `Bot` for every run: the connection's
//!   [`crate::WaBackend`], the Tokio WebSocket transport, our [`ReqwestHttp`] client, the Tokio
//!   runtime, the durability hook made by the factory's [`HookFactory`] for the run's ingestor,
//!   a raw event handler that forwards every event, in order and without blocking, to the
//!   run's channel, and the [`device_props`] (asking for the whole history when the run's
//!   `full_history` says so). With a pair phone it also asks for a pair code once the socket is
//!   up.
//! - [`RealSession`] wraps the `BotHandle`: `finished` awaits it, `shutdown` is the library's
//!   graceful stop bounded by a timeout (then an abort), `abort` stops at once.
//! - [`RealWaClient`] maps each [`WaClient`] call to the library's `Client`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc::UnboundedSender;
use whatsapp_rust::Jid;
use whatsapp_rust::bot::{Bot, BotHandle};
use whatsapp_rust::client::{Client, ClientError};
use whatsapp_rust::http::{HttpClient, HttpRequest, HttpResponse};
use whatsapp_rust::pair_code::PairCodeOptions;
use whatsapp_rust::send::{RevokeType, SendError, SendOptions};
use whatsapp_rust::transport::TokioWebSocketTransportFactory;
use whatsapp_rust::types::events::{Event, EventHandler};
use whatsapp_rust::upload::UploadOptions;
use whatsapp_rust::wacore::download::{Downloadable, MediaType};
use whatsapp_rust::wacore::proto_helpers::MessageExt;
use whatsapp_rust::wacore::store::DevicePropsOverride;
use whatsapp_rust::wacore::store::device::default_history_sync_config;
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::{
    ErrorChainExt as _, InboundDurabilityHook, MediaRetryResult, MediaReuploadError,
    MediaReuploadRequest, TokioRuntime,
};

use crate::client::{
    HistoryAsk, MediaGone, MediaKind, MediaMessageKey, NotConnected, NumberCheck, SessionParams,
    SessionStats, Uploaded, WaClient, WaClientFactory, WaSession,
};
use crate::inbound::Ingestor;

/// The name this device shows in the phone's "Linked devices" and as its push name.
pub const DEVICE_NAME: &str = "Chatflow";

/// How far back the whole history a new link asks for reaches, in days: the import of old
/// messages may reach two years back ([`chatflow_core::inbox::history::MAX_DAYS_BACK`]).
pub const FULL_HISTORY_DAYS: u32 = 730;
const _: () = assert!(FULL_HISTORY_DAYS as i64 == chatflow_core::inbox::history::MAX_DAYS_BACK);

/// The device properties a run announces when it links a phone (the phone applies them only
/// then; a linked session keeps what it was linked with): our name, and with `full_history` the
/// shape WhatsApp's Windows app announces, which asks the phone for its whole history (up to
/// [`FULL_HISTORY_DAYS`] back) and says the device answers history requests on demand, instead of
/// the recent part a browser gets. The library's other history settings are kept.
pub fn device_props(full_history: bool) -> DevicePropsOverride {
    let props = DevicePropsOverride::new().with_os(DEVICE_NAME);
    if !full_history {
        return props;
    }
    props
        .with_platform_type(wa::device_props::PlatformType::UWP)
        .with_require_full_sync(true)
        .with_history_sync_config(wa::device_props::HistorySyncConfig {
            full_sync_days_limit: Some(FULL_HISTORY_DAYS),
            on_demand_ready: Some(true),
            complete_on_demand_ready: Some(true),
            ..default_history_sync_config()
        })
}

/// Makes the durability hook of one run from that run's ingestor (the hook commits decrypted
/// messages through it before WhatsApp gets its ack).
pub type HookFactory = Arc<dyn Fn(Arc<Ingestor>) -> Arc<dyn InboundDurabilityHook> + Send + Sync>;

/// Limits of the HTTP client the library fetches its version and media with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// How long a connection may take to open.
    pub connect_timeout: Duration,
    /// How long a whole exchange may take (media uploads and downloads included).
    pub timeout: Duration,
    /// The largest response body read; a larger one is an error.
    pub max_body_bytes: u64,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(15),
            timeout: Duration::from_secs(300),
            // WhatsApp's largest media (documents) are 2 GB; we keep media in memory, so less.
            max_body_bytes: 256 * 1024 * 1024,
        }
    }
}

/// The library's [`HttpClient`] on `reqwest`: every completed exchange is `Ok`, 4xx and 5xx
/// included (the library reads the status to refresh its media credentials); a failed
/// connection, a timeout or a body over the cap is an `Err`.
#[derive(Debug, Clone)]
pub struct ReqwestHttp {
    client: reqwest::Client,
    limits: HttpLimits,
}

/// Makes ring the process's TLS crypto provider (reqwest is built without one of its own); a
/// provider already installed is kept.
fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl ReqwestHttp {
    /// A client with `limits`.
    pub fn new(limits: HttpLimits) -> anyhow::Result<Self> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(limits.connect_timeout)
            .timeout(limits.timeout)
            .build()?;
        Ok(Self { client, limits })
    }
}

#[async_trait]
impl HttpClient for ReqwestHttp {
    async fn execute(&self, request: HttpRequest) -> anyhow::Result<HttpResponse> {
        let method = reqwest::Method::from_bytes(request.method.as_bytes())?;
        let mut builder = self.client.request(method, &request.url);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        if let Some(body) = request.body {
            builder = builder.body(body);
        }
        let mut response = builder.send().await?;
        let status_code = response.status().as_u16();
        let cap = self.limits.max_body_bytes;
        if response.content_length().is_some_and(|length| length > cap) {
            anyhow::bail!("the response from {} is over {cap} bytes", request.url);
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if (body.len() + chunk.len()) as u64 > cap {
                anyhow::bail!("the response from {} is over {cap} bytes", request.url);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(HttpResponse { status_code, body })
    }
}

/// Forwards every library event to the run's ordered channel. It runs inline on the library's
/// dispatch path, so it only queues (the channel is unbounded: nothing is dropped or waited for).
pub struct ForwardEvents(pub UnboundedSender<Arc<Event>>);

impl EventHandler for ForwardEvents {
    fn handle_event(&self, event: Arc<Event>) {
        // A closed channel means the supervisor left this run; the event has no reader.
        let _ = self.0.send(event);
    }
}

/// The hook made by a [`HookFactory`], as the builder takes it.
struct Hook(Arc<dyn InboundDurabilityHook>);

#[async_trait]
impl InboundDurabilityHook for Hook {
    async fn on_messages(
        &self,
        client: Arc<Client>,
        batch: &[whatsapp_rust::types::events::InboundMessage],
    ) -> anyhow::Result<()> {
        self.0.on_messages(client, batch).await
    }
}

/// Builds a fresh library session per run (see the module's documentation).
#[derive(Clone)]
pub struct RealWaClientFactory {
    hook: HookFactory,
    http: ReqwestHttp,
    socket_url: Option<String>,
    version: Option<(u32, u32, u32)>,
    shutdown_timeout: Duration,
}

impl RealWaClientFactory {
    /// Sessions whose durability hooks `hook` makes, fetching media with `http`.
    pub fn new(hook: HookFactory, http: ReqwestHttp) -> Self {
        Self {
            hook,
            http,
            socket_url: None,
            version: None,
            shutdown_timeout: Duration::from_secs(10),
        }
    }

    /// Connects to `url` instead of WhatsApp's WebSocket (a proxy, or a local server in tests).
    pub fn with_socket_url(mut self, url: impl Into<String>) -> Self {
        self.socket_url = Some(url.into());
        self
    }

    /// Announces this WhatsApp Web version instead of fetching the current one once a day.
    pub fn with_version(mut self, version: (u32, u32, u32)) -> Self {
        self.version = Some(version);
        self
    }

    /// How long a graceful stop may take before the run is aborted (10 s unless set).
    pub fn with_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// The `Bot` of one run, built on the run's key store (this writes the device row when the
    /// store has none) but not started: nothing connects until it is spawned.
    pub async fn build(&self, params: SessionParams) -> anyhow::Result<Bot> {
        let transport = match &self.socket_url {
            Some(url) => TokioWebSocketTransportFactory::new().with_url(url.clone()),
            None => TokioWebSocketTransportFactory::new(),
        };
        let mut builder = Bot::builder()
            .with_backend_arc(params.backend)
            .with_transport_factory(transport)
            .with_http_client(self.http.clone())
            .with_runtime(TokioRuntime)
            .with_inbound_durability_hook(Hook((self.hook)(params.ingestor)))
            .with_event_handler(ForwardEvents(params.events))
            .with_device_props(device_props(params.full_history))
            .with_push_name(DEVICE_NAME);
        if let Some(version) = self.version {
            builder = builder.with_version(version);
        }
        if let Some(phone) = params.pair_phone {
            builder = builder.with_pair_code(PairCodeOptions {
                phone_number: phone,
                ..Default::default()
            });
        }
        Ok(builder.build().await?)
    }
}

#[async_trait]
impl WaClientFactory for RealWaClientFactory {
    async fn start(&self, params: SessionParams) -> anyhow::Result<Box<dyn WaSession>> {
        let bot = self.build(params).await?;
        let handle = bot.spawn();
        Ok(Box::new(RealSession {
            client: Arc::new(RealWaClient(handle.client())),
            handle,
            shutdown_timeout: self.shutdown_timeout,
        }))
    }
}

/// One run of the library's client.
pub struct RealSession {
    handle: BotHandle,
    client: Arc<RealWaClient>,
    shutdown_timeout: Duration,
}

#[async_trait]
impl WaSession for RealSession {
    fn client(&self) -> Arc<dyn WaClient> {
        self.client.clone()
    }

    async fn finished(&mut self) {
        (&mut self.handle).await;
    }

    async fn shutdown(self: Box<Self>) {
        let client = self.handle.client();
        let mut handle = self.handle;
        let graceful = async {
            client.disconnect().await;
            (&mut handle).await;
        };
        if tokio::time::timeout(self.shutdown_timeout, graceful)
            .await
            .is_err()
        {
            handle.abort();
            // The task is cancelled; wait for it to be gone so the next run starts alone.
            handle.await;
        }
    }

    fn abort(&self) {
        self.handle.abort();
    }
}

/// The library's client behind [`WaClient`].
pub struct RealWaClient(pub Arc<Client>);

impl RealWaClient {
    /// `Err(NotConnected)` unless the socket is up and logged in.
    fn ready(&self) -> anyhow::Result<()> {
        if self.is_connected() {
            Ok(())
        } else {
            Err(NotConnected.into())
        }
    }
}

/// A send failure, with the "not connected" cases as [`NotConnected`].
fn send_error(error: SendError) -> anyhow::Error {
    match error {
        SendError::NotLoggedIn | SendError::Client(ClientError::NotConnected) => {
            NotConnected.into()
        }
        other => other.into(),
    }
}

fn media_type(kind: MediaKind) -> MediaType {
    match kind {
        MediaKind::Image => MediaType::Image,
        MediaKind::Video => MediaType::Video,
        MediaKind::Audio => MediaType::Audio,
        MediaKind::Document => MediaType::Document,
        MediaKind::Sticker => MediaType::Sticker,
    }
}

/// The media part of a received message, when it has one.
fn downloadable(message: &wa::Message) -> Option<&dyn Downloadable> {
    let base = message.get_base_message();
    if let Some(m) = base.image_message.as_option() {
        return Some(m);
    }
    if let Some(m) = base.video_message.as_option() {
        return Some(m);
    }
    // A round video note ("ptv") is a video message in its own field.
    if let Some(m) = base.ptv_message.as_option() {
        return Some(m);
    }
    if let Some(m) = base.audio_message.as_option() {
        return Some(m);
    }
    if let Some(m) = base.document_message.as_option() {
        return Some(m);
    }
    if let Some(m) = base.sticker_message.as_option() {
        return Some(m);
    }
    None
}

#[async_trait]
impl WaClient for RealWaClient {
    async fn send(&self, to: &Jid, message: wa::Message, id: &str) -> anyhow::Result<String> {
        self.ready()?;
        let sent = self
            .0
            .send_message_with_options(
                to.clone(),
                message,
                SendOptions::default().with_message_id(id),
            )
            .await
            .map_err(send_error)?;
        Ok(sent.message_id)
    }

    async fn upload(&self, bytes: Vec<u8>, kind: MediaKind) -> anyhow::Result<Uploaded> {
        self.ready()?;
        let uploaded = self
            .0
            .upload(bytes, media_type(kind), UploadOptions::new())
            .await?;
        Ok(Uploaded {
            url: uploaded.url,
            direct_path: uploaded.direct_path,
            media_key: uploaded.media_key,
            file_enc_sha256: uploaded.file_enc_sha256,
            file_sha256: uploaded.file_sha256,
            file_length: uploaded.file_length,
            media_key_timestamp: uploaded.media_key_timestamp,
            streaming_sidecar: uploaded.streaming_sidecar,
        })
    }

    async fn download(&self, message: &wa::Message) -> anyhow::Result<Vec<u8>> {
        let media = downloadable(message).ok_or_else(|| anyhow::anyhow!("no media to download"))?;
        self.ready()?;
        self.0.download(media).await.map_err(|error| {
            // The library already refreshed its media credentials and tried every host: a
            // 404 or 410 left means the file is gone from WhatsApp's servers.
            let chain: &(dyn std::error::Error + Send + Sync + 'static) = error.as_ref();
            match chain.http_status() {
                Some(status @ (404 | 410)) => MediaGone { status }.into(),
                _ => error,
            }
        })
    }

    async fn edit(&self, to: &Jid, original_id: &str, message: wa::Message) -> anyhow::Result<()> {
        self.ready()?;
        self.0
            .edit_message(to.clone(), original_id, message)
            .await
            .map_err(send_error)?;
        Ok(())
    }

    async fn revoke(&self, to: &Jid, id: &str) -> anyhow::Result<()> {
        self.ready()?;
        self.0
            .revoke_message(to.clone(), id, RevokeType::Sender)
            .await
            .map_err(send_error)
    }

    async fn react(&self, chat: &Jid, key: wa::MessageKey, emoji: &str) -> anyhow::Result<()> {
        self.ready()?;
        self.0
            .send_reaction(chat.clone(), key, emoji)
            .await
            .map_err(send_error)?;
        Ok(())
    }

    async fn mark_read(
        &self,
        chat: &Jid,
        sender: Option<&Jid>,
        ids: &[String],
    ) -> anyhow::Result<()> {
        self.ready()?;
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        self.0.mark_as_read(chat, sender, &ids).await
    }

    async fn is_on_whatsapp(&self, jids: &[Jid]) -> anyhow::Result<Vec<NumberCheck>> {
        self.ready()?;
        let answers = self.0.contacts().is_on_whatsapp(jids).await?;
        Ok(answers
            .into_iter()
            .map(|answer| NumberCheck {
                jid: answer.jid,
                is_registered: answer.is_registered,
                lid: answer.lid,
                pn: answer.pn_jid,
            })
            .collect())
    }

    async fn profile_picture(&self, jid: &Jid) -> anyhow::Result<Option<String>> {
        self.ready()?;
        let picture = self.0.contacts().get_profile_picture(jid, false).await?;
        Ok(picture.map(|p| p.url))
    }

    async fn group_subject(&self, jid: &Jid) -> anyhow::Result<String> {
        self.ready()?;
        Ok(self.0.groups().get_metadata(jid).await?.subject)
    }

    async fn phone_number_of(&self, lid: &Jid) -> anyhow::Result<Option<String>> {
        Ok(self
            .0
            .get_lid_pn_entry(lid)
            .await?
            .map(|entry| entry.phone_number.to_string())
            .filter(|phone| chatflow_core::inbox::identities::is_phone(phone)))
    }

    async fn chat_lid(&self, phone: &Jid) -> anyhow::Result<Option<Jid>> {
        if !phone.is_pn() || !self.0.is_lid_migrated().await {
            return Ok(None);
        }
        Ok(self
            .0
            .get_lid_pn_entry(phone)
            .await?
            .map(|entry| Jid::lid(&*entry.lid)))
    }

    async fn request_history(&self, ask: &HistoryAsk) -> anyhow::Result<String> {
        self.ready()?;
        self.0
            .fetch_message_history(
                &ask.chat,
                &ask.anchor_id,
                ask.anchor_from_me,
                ask.anchor_time_ms,
                ask.count,
            )
            .await
    }

    async fn request_media_reupload(
        &self,
        key: &MediaMessageKey,
        media_key: &[u8],
    ) -> anyhow::Result<String> {
        self.ready()?;
        let request = MediaReuploadRequest {
            msg_id: &key.id,
            chat_jid: &key.chat,
            media_key,
            is_from_me: key.from_me,
            participant: key.participant.as_ref(),
        };
        // The library waits up to 30 s for the phone's answer.
        match self.0.media_reupload().request(&request).await {
            Ok(MediaRetryResult::Success { direct_path }) => Ok(direct_path),
            Ok(other) => anyhow::bail!("the phone could not upload the file again ({other:?})"),
            Err(
                MediaReuploadError::NotLoggedIn
                | MediaReuploadError::Client(ClientError::NotConnected),
            ) => Err(NotConnected.into()),
            Err(MediaReuploadError::Timeout) => {
                anyhow::bail!("the phone did not answer the re-upload request in time")
            }
            Err(other) => Err(other.into()),
        }
    }

    async fn reject_call(&self, call_id: &str, peer: &Jid, creator: &Jid) -> anyhow::Result<()> {
        self.ready()?;
        Ok(self.0.voip().reject_call(call_id, peer, creator).await?)
    }

    async fn pair_with_code(&self, phone: &str) -> anyhow::Result<String> {
        Ok(self
            .0
            .pair_with_code(PairCodeOptions {
                phone_number: phone.to_owned(),
                ..Default::default()
            })
            .await?)
    }

    async fn logout(&self) -> anyhow::Result<()> {
        self.0.logout().await;
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.0.is_connected() && self.0.is_logged_in()
    }

    fn stats(&self) -> SessionStats {
        let stats = self.0.stats();
        SessionStats {
            frames_received: stats.frames_received,
            messages_received: stats.messages_received,
            messages_sent: stats.messages_sent,
            events_dropped: stats.events_dropped,
            reconnects: stats.reconnects,
            last_data_received_ms: stats.last_data_received_ms,
        }
    }
}

#[cfg(test)]
mod tests {
    use whatsapp_rust::buffa::MessageField;

    use super::*;

    /// Every kind of attachment the inbox keeps is one the client downloads, round video notes
    /// ("ptv") included.
    #[test]
    fn every_attachment_kind_is_downloadable() {
        let video = || wa::message::VideoMessage {
            direct_path: Some("/v/t62.7161-24/1".into()),
            ..Default::default()
        };
        let kinds = [
            wa::Message {
                image_message: MessageField::some(Default::default()),
                ..Default::default()
            },
            wa::Message {
                video_message: MessageField::some(video()),
                ..Default::default()
            },
            wa::Message {
                ptv_message: MessageField::some(video()),
                ..Default::default()
            },
            wa::Message {
                audio_message: MessageField::some(Default::default()),
                ..Default::default()
            },
            wa::Message {
                document_message: MessageField::some(Default::default()),
                ..Default::default()
            },
            wa::Message {
                sticker_message: MessageField::some(Default::default()),
                ..Default::default()
            },
        ];
        for message in &kinds {
            assert!(downloadable(message).is_some(), "{message:?}");
            assert!(
                crate::inbound::media_of(message).is_some(),
                "the inbox keeps it: {message:?}"
            );
        }
        let ptv = downloadable(&kinds[2]).expect("a video note");
        assert_eq!(ptv.direct_path(), Some("/v/t62.7161-24/1"));
        assert!(downloadable(&wa::Message::default()).is_none());
    }
}
