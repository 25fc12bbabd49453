//! Accepting connections: HTTP/1.1 with upgrades (socket.io's WebSocket), a deadline for a
//! request's headers and for an idle keep-alive connection, and a cap on the connections open
//! from one client address. Slow or numerous clients therefore cannot hold the server's file
//! descriptors: a half-sent request is dropped after the read timeout, and one address cannot
//! open more than its share.
//!
//! The cap counts a connection for as long as its socket lives, upgraded WebSockets included
//! (the count is held by the socket's wrapper, which an upgrade keeps).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tower::ServiceExt as _;

/// How many connections one address may hold and how long a client may take to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Open connections allowed from one client address.
    pub per_address: usize,
    /// Time allowed for a request's headers, and for an idle keep-alive connection.
    pub read_timeout: Duration,
}

/// How long a graceful shutdown waits for requests in flight before it gives up on them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// Serves `router` on `listener` until `shutdown` completes, then stops accepting, lets the
/// requests in flight finish (at most [`SHUTDOWN_GRACE`]) and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let open = OpenConnections::default();
    let (stop_tx, stop_rx) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = open.take(remote.ip(), limits.per_address) else {
            tracing::debug!(address = %remote.ip(), "connection refused: too many from this address");
            continue;
        };
        // Best effort: a socket that refuses it still works.
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Counted {
            stream,
            _slot: slot,
        });
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(remote));
            let router = router.clone();
            async move {
                Ok::<_, Infallible>(
                    router
                        .oneshot(request.map(Body::new))
                        .await
                        .unwrap_or_else(|never| match never {}),
                )
            }
        });
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.read_timeout)
                .serve_connection(io, service)
                .with_upgrades();
            let mut connection = pin!(connection);
            tokio::select! {
                result = connection.as_mut() => log_end(result),
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    log_end(connection.await);
                }
            }
            drop(stop);
        });
    }
    drop(listener);
    drop(stop_rx);
    // The signal tells every connection to finish; `closed` resolves once the last connection
    // task has dropped its receiver.
    let _ = stop_tx.send(());
    if tokio::time::timeout(SHUTDOWN_GRACE, stop_tx.closed())
        .await
        .is_err()
    {
        tracing::warn!("shutdown: requests still running after {SHUTDOWN_GRACE:?}, leaving them");
    }
}

fn log_end(result: Result<(), hyper::Error>) {
    if let Err(e) = result {
        tracing::trace!("connection ended: {e}");
    }
}

/// An accept error: per-connection ones (the client left) are ignored; others (out of file
/// descriptors) are logged and the loop pauses a moment instead of spinning.
async fn accept_failed(error: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::warn!("accept error: {error}");
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The connections open per client address.
#[derive(Debug, Clone, Default)]
struct OpenConnections(Arc<Mutex<HashMap<IpAddr, usize>>>);

impl OpenConnections {
    /// Counts one more connection from `ip`, unless it already has `max`.
    fn take(&self, ip: IpAddr, max: usize) -> Option<Slot> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = open.entry(ip).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(Slot {
            open: self.clone(),
            ip,
        })
    }
}

/// One counted connection; dropping it frees the place.
#[derive(Debug)]
struct Slot {
    open: OpenConnections,
    ip: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = open.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// A socket that holds its place in the per-address count while it lives.
struct Counted {
    stream: TcpStream,
    _slot: Slot,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_share_and_frees_it_on_drop() {
        let open = OpenConnections::default();
        let a = IpAddr::from([127, 0, 0, 1]);
        let b = IpAddr::from([127, 0, 0, 2]);
        let first = open.take(a, 2).expect("first");
        let _second = open.take(a, 2).expect("second");
        assert!(open.take(a, 2).is_none(), "a third from the same address");
        let _other = open.take(b, 2).expect("another address has its own share");
        drop(first);
        assert!(
            open.take(a, 2).is_some(),
            "a freed place can be taken again"
        );
    }

    #[test]
    fn the_count_map_forgets_addresses_with_no_connection() {
        let open = OpenConnections::default();
        let slot = open.take(IpAddr::from([10, 0, 0, 1]), 1).expect("taken");
        drop(slot);
        assert!(open.0.lock().expect("lock").is_empty());
    }
}
