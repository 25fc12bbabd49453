//! A minimal socket.io client (protocol 5 over engine.io 4, websocket transport) for the tests.
//!
//! Enough of the protocol to connect with an `auth` payload, answer pings, emit events and read
//! the events the server sends: `0` open, `2`/`3` ping/pong, `40` connect, `44` connect error,
//! `42` event, `43` acknowledgement.

use std::collections::VecDeque;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

/// A connected socket.
pub struct SocketClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Events received while waiting for an acknowledgement.
    pending: VecDeque<(String, Value)>,
    /// The id of the next acknowledged emit.
    next_ack: u64,
}

/// One frame of interest from the server.
enum Frame {
    Text(String),
    Closed,
}

impl SocketClient {
    /// Connects to the default namespace of `host` (`127.0.0.1:PORT`) with `auth` as the
    /// connect payload. `Err` carries the server's `connect_error` message.
    pub async fn connect(host: &str, auth: Option<Value>, query: &str) -> Result<Self, String> {
        let url = format!("ws://{host}/socket.io/?EIO=4&transport=websocket{query}");
        let (ws, _) = connect_async(url)
            .await
            .map_err(|e| format!("websocket: {e}"))?;
        let mut client = Self {
            ws,
            pending: VecDeque::new(),
            next_ack: 0,
        };
        match client.frame(Duration::from_secs(5)).await {
            Some(Frame::Text(open)) if open.starts_with('0') => {}
            _ => return Err("no engine.io open packet".to_owned()),
        }
        let connect = match auth {
            Some(auth) => format!("40{auth}"),
            None => "40".to_owned(),
        };
        client.send(connect).await;
        loop {
            match client.frame(Duration::from_secs(5)).await {
                Some(Frame::Text(text)) if text.starts_with("40") => return Ok(client),
                Some(Frame::Text(text)) if text.starts_with("44") => {
                    let body: Value = serde_json::from_str(&text[2..]).unwrap_or(Value::Null);
                    return Err(body["message"].as_str().unwrap_or("refused").to_owned());
                }
                Some(Frame::Text(_)) => continue,
                Some(Frame::Closed) | None => return Err("closed before connecting".to_owned()),
            }
        }
    }

    /// Connects with `{token}` as the auth payload, expecting success.
    pub async fn with_token(host: &str, token: &str) -> Self {
        Self::connect(host, Some(json!({ "token": token })), "")
            .await
            .expect("the socket connects")
    }

    /// Emits an event with one argument.
    pub async fn emit(&mut self, event: &str, data: Value) {
        self.send(format!("42{}", json!([event, data]))).await;
    }

    /// Emits an event without arguments.
    pub async fn emit_bare(&mut self, event: &str) {
        self.send(format!("42{}", json!([event]))).await;
    }

    /// Emits an event with one argument and waits for the server's acknowledgement, returning
    /// its first argument. Events that arrive meanwhile are kept for [`Self::next_event`].
    pub async fn emit_with_ack(&mut self, event: &str, data: Value, wait: Duration) -> Value {
        let id = self.next_ack;
        self.next_ack += 1;
        self.send(format!("42{id}{}", json!([event, data]))).await;
        let prefix = format!("43{id}[");
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.frame(left).await {
                Some(Frame::Text(text)) if text.starts_with(&prefix) => {
                    let parts: Value =
                        serde_json::from_str(&text[prefix.len() - 1..]).expect("an ack array");
                    return parts.get(0).cloned().unwrap_or(Value::Null);
                }
                Some(Frame::Text(text)) if text.starts_with("42") => {
                    if let Some(event) = parse_event(&text) {
                        self.pending.push_back(event);
                    }
                }
                Some(Frame::Text(_)) => continue,
                Some(Frame::Closed) | None => {
                    panic!("no acknowledgement of `{event}` within {wait:?}")
                }
            }
        }
    }

    /// The next event `(name, first argument)` within `wait`, answering pings on the way.
    pub async fn next_event(&mut self, wait: Duration) -> Option<(String, Value)> {
        if let Some(event) = self.pending.pop_front() {
            return Some(event);
        }
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() {
                return None;
            }
            match self.frame(left).await? {
                Frame::Text(text) if text.starts_with("42") => return parse_event(&text),
                Frame::Text(_) => continue,
                Frame::Closed => return None,
            }
        }
    }

    /// Waits for an event named `name`, skipping others, within `wait`.
    pub async fn expect_event(&mut self, name: &str, wait: Duration) -> Value {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_event(left).await {
                Some((event, payload)) if event == name => return payload,
                Some(_) => continue,
                None => panic!("no `{name}` event within {wait:?}"),
            }
        }
    }

    /// Every event received within `wait`.
    pub async fn drain(&mut self, wait: Duration) -> Vec<(String, Value)> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut events = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_event(left).await {
                Some(event) => events.push(event),
                None => return events,
            }
        }
    }

    async fn send(&mut self, text: String) {
        self.ws
            .send(Message::text(text))
            .await
            .expect("websocket send");
    }

    /// The next text frame, answering engine.io pings.
    async fn frame(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let message = tokio::time::timeout(left, self.ws.next()).await.ok()?;
            match message {
                Some(Ok(Message::Text(text))) => {
                    let text = text.to_string();
                    if text == "2" {
                        self.send("3".to_owned()).await;
                        continue;
                    }
                    return Some(Frame::Text(text));
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return Some(Frame::Closed),
                Some(Ok(_)) => continue,
            }
        }
    }
}

/// `(name, first argument)` of a `42` event frame.
fn parse_event(text: &str) -> Option<(String, Value)> {
    let parts: Value = serde_json::from_str(text.get(2..)?).ok()?;
    let name = parts.get(0)?.as_str()?.to_owned();
    Some((name, parts.get(1).cloned().unwrap_or(Value::Null)))
}
