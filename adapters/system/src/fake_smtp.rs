//! A fake SMTP server for tests (compiled always, see the crate notes): it speaks just enough
//! SMTP for a client such as lettre and records every mail it accepts.
//!
//! The conversation: `220` greeting; `EHLO` (answered with `AUTH PLAIN`, no STARTTLS) or `HELO`
//! `250`; `AUTH PLAIN` `235`; `MAIL FROM` `250`; `RCPT TO` `250` (or `550` with
//! [`Behaviour::RejectRecipients`]); `DATA` `354`, then the message up to the line holding a
//! single dot, `250`; `RSET` and `NOOP` `250`; `QUIT` `221`. A mail is recorded before its `250`
//! goes out, so once a client's send returns, [`FakeSmtpServer::mails`] holds it.
//!
//! [`ReceivedMail`] decodes what tests look at: headers (with RFC 2047 encoded words in the
//! subject) and the text body (7bit, 8bit, quoted-printable or base64).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How the fake server treats mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Behaviour {
    /// Accepts every mail.
    #[default]
    Accept,
    /// Refuses every recipient with `550`, so no mail is ever accepted.
    RejectRecipients,
}

/// One accepted mail, as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReceivedMail {
    /// The name the client gave with `EHLO` or `HELO`.
    pub helo: String,
    /// `user:password` from `AUTH PLAIN`, when the client authenticated.
    pub auth: Option<String>,
    /// The envelope sender (`MAIL FROM`), without angle brackets.
    pub mail_from: String,
    /// The envelope recipients (`RCPT TO`), without angle brackets.
    pub rcpt_to: Vec<String>,
    /// The message (headers and body) with CRLF line ends and dot-stuffing removed.
    pub data: String,
}

impl ReceivedMail {
    /// The raw value of the first header called `name` (any case), unfolded.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut unfolded: Vec<String> = Vec::new();
        for line in head.split("\r\n") {
            match unfolded.last_mut() {
                Some(last) if line.starts_with([' ', '\t']) => last.push_str(line),
                _ => unfolded.push(line.to_owned()),
            }
        }
        unfolded.into_iter().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }

    /// The subject, with RFC 2047 encoded words decoded.
    pub fn subject(&self) -> Option<String> {
        self.header("Subject").map(|s| decode_encoded_words(&s))
    }

    /// The body, decoded according to its `Content-Transfer-Encoding`, with LF line ends.
    pub fn text(&self) -> String {
        let body = self
            .data
            .split_once("\r\n\r\n")
            .map(|(_, body)| body)
            .unwrap_or_default();
        let encoding = self
            .header("Content-Transfer-Encoding")
            .unwrap_or_default()
            .to_ascii_lowercase();
        let bytes = match encoding.as_str() {
            "quoted-printable" => decode_quoted_printable(body),
            "base64" => decode_base64(body),
            _ => body.as_bytes().to_vec(),
        };
        String::from_utf8_lossy(&bytes).replace("\r\n", "\n")
    }
}

/// A fake SMTP server on a free port of 127.0.0.1; it stops when dropped.
#[derive(Debug)]
pub struct FakeSmtpServer {
    addr: SocketAddr,
    mails: Arc<Mutex<Vec<ReceivedMail>>>,
    task: JoinHandle<()>,
}

impl FakeSmtpServer {
    /// Starts a server that accepts every mail.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_with(Behaviour::Accept).await
    }

    /// Starts a server with the given behaviour.
    pub async fn start_with(behaviour: Behaviour) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let mails = Arc::new(Mutex::new(Vec::new()));
        let sink = mails.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let sink = sink.clone();
                tokio::spawn(async move {
                    // A client hanging up mid-conversation only ends its own connection.
                    let _ = converse(stream, behaviour, sink).await;
                });
            }
        });
        Ok(Self { addr, mails, task })
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// An SMTP URL for the server: plain SMTP (it offers no STARTTLS), no credentials.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    /// Every mail accepted so far, oldest first.
    pub fn mails(&self) -> Vec<ReceivedMail> {
        self.mails.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// The mails accepted so far for `recipient` (any case), oldest first.
    pub fn mails_to(&self, recipient: &str) -> Vec<ReceivedMail> {
        self.mails()
            .into_iter()
            .filter(|m| m.rcpt_to.iter().any(|r| r.eq_ignore_ascii_case(recipient)))
            .collect()
    }
}

impl Drop for FakeSmtpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One SMTP conversation.
async fn converse(
    stream: TcpStream,
    behaviour: Behaviour,
    sink: Arc<Mutex<Vec<ReceivedMail>>>,
) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let mut current = ReceivedMail::default();
    write.write_all(b"220 fake.smtp ESMTP ready\r\n").await?;
    loop {
        let Some(line) = read_line(&mut lines).await? else {
            return Ok(());
        };
        let upper = line.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") {
            current.helo = line[4..].trim().to_owned();
            b"250-fake.smtp\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n"
        } else if upper.starts_with("HELO") {
            current.helo = line[4..].trim().to_owned();
            b"250 fake.smtp\r\n"
        } else if upper.starts_with("AUTH PLAIN") {
            let initial = line[10..].trim().to_owned();
            let response = if initial.is_empty() {
                write.write_all(b"334 \r\n").await?;
                read_line(&mut lines).await?.unwrap_or_default()
            } else {
                initial
            };
            // PLAIN carries "authzid NUL user NUL password".
            let decoded = String::from_utf8_lossy(&decode_base64(&response)).into_owned();
            let mut parts = decoded.split('\0').skip(1);
            let user = parts.next().unwrap_or_default();
            let password = parts.next().unwrap_or_default();
            current.auth = Some(format!("{user}:{password}"));
            b"235 2.7.0 Authentication successful\r\n"
        } else if upper.starts_with("MAIL FROM:") {
            current.mail_from = address_of(&line[10..]);
            b"250 2.1.0 OK\r\n"
        } else if upper.starts_with("RCPT TO:") {
            match behaviour {
                Behaviour::Accept => {
                    current.rcpt_to.push(address_of(&line[8..]));
                    b"250 2.1.5 OK\r\n"
                }
                Behaviour::RejectRecipients => b"550 5.1.1 No such user here\r\n",
            }
        } else if upper == "DATA" {
            write
                .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                .await?;
            let mut data = Vec::new();
            loop {
                let Some(line) = read_line(&mut lines).await? else {
                    return Ok(());
                };
                if line == "." {
                    break;
                }
                data.push(line.strip_prefix('.').map_or(line.clone(), str::to_owned));
            }
            // The greeting and authentication hold for the next mail of the connection.
            let mail = ReceivedMail {
                helo: current.helo.clone(),
                auth: current.auth.clone(),
                mail_from: std::mem::take(&mut current.mail_from),
                rcpt_to: std::mem::take(&mut current.rcpt_to),
                data: data.join("\r\n"),
            };
            if let Ok(mut mails) = sink.lock() {
                mails.push(mail);
            }
            b"250 2.0.0 Queued\r\n"
        } else if upper == "RSET" {
            current.mail_from.clear();
            current.rcpt_to.clear();
            b"250 2.0.0 OK\r\n"
        } else if upper == "NOOP" {
            b"250 2.0.0 OK\r\n"
        } else if upper == "QUIT" {
            write.write_all(b"221 2.0.0 Bye\r\n").await?;
            return Ok(());
        } else {
            b"502 5.5.2 Command not recognised\r\n"
        };
        write.write_all(reply).await?;
    }
}

/// Reads one line without its CRLF; `None` at the end of the stream.
async fn read_line(
    lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>,
) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    if lines.read_until(b'\n', &mut buf).await? == 0 {
        return Ok(None);
    }
    while buf.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

/// `<a@b>` (with optional parameters after it) → `a@b`.
fn address_of(argument: &str) -> String {
    let argument = argument.trim();
    match (argument.find('<'), argument.find('>')) {
        (Some(start), Some(end)) if start < end => argument[start + 1..end].to_owned(),
        _ => argument
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

fn hex_value(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// Decodes quoted-printable text: `=XX` escapes and `=` soft line breaks.
fn decode_quoted_printable(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' {
            if bytes[i + 1..].starts_with(b"\r\n") {
                i += 3;
                continue;
            }
            if bytes[i + 1..].starts_with(b"\n") {
                i += 2;
                continue;
            }
            if let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex_value),
                bytes.get(i + 2).copied().and_then(hex_value),
            ) {
                out.push(hi * 16 + lo);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Decodes base64, skipping white space and stopping at padding.
fn decode_base64(text: &str) -> Vec<u8> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut out = Vec::new();
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes().take_while(|c| *c != b'=') {
        let Some(v) = value(c) else { continue };
        buffer = ((buffer << 6) | v) & 0x00ff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((buffer >> bits) & 0xff) as u8);
        }
    }
    out
}

/// Decodes RFC 2047 encoded words (`=?charset?B|Q?text?=`) in a header value; white space
/// between two encoded words is dropped, as the RFC says.
fn decode_encoded_words(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let (before, candidate) = rest.split_at(start);
        let decoded = candidate[2..].splitn(3, '?').collect::<Vec<_>>();
        let word = match decoded.as_slice() {
            [_charset, encoding, tail] => tail.find("?=").map(|end| {
                let text = &tail[..end];
                let bytes = if encoding.eq_ignore_ascii_case("b") {
                    decode_base64(text)
                } else {
                    decode_quoted_printable(&text.replace('_', " "))
                };
                let consumed = 2 + candidate[2..].len() - tail.len() + end + 2;
                (String::from_utf8_lossy(&bytes).into_owned(), consumed)
            }),
            _ => None,
        };
        match word {
            Some((text, consumed)) => {
                if !(after_word && before.trim().is_empty()) {
                    out.push_str(before);
                }
                out.push_str(&text);
                rest = &candidate[consumed..];
                after_word = true;
            }
            None => {
                out.push_str(before);
                out.push_str("=?");
                rest = &candidate[2..];
                after_word = false;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoders() {
        assert_eq!(decode_base64("T2zDoQ=="), "Olá".as_bytes());
        assert_eq!(
            decode_quoted_printable("Ol=C3=A1, =\r\nmundo =3D"),
            "Olá, mundo =".as_bytes()
        );
        assert_eq!(
            decode_encoded_words("=?utf-8?b?UmVkZWZpbmnDp8Ojbw==?= =?utf-8?b?IGRlIHNlbmhh?="),
            "Redefinição de senha"
        );
        assert_eq!(
            decode_encoded_words("=?UTF-8?Q?Ol=C3=A1_mundo?= e mais"),
            "Olá mundo e mais"
        );
        assert_eq!(decode_encoded_words("plain text"), "plain text");
        assert_eq!(address_of("<a@b.test> SIZE=10"), "a@b.test");
        assert_eq!(address_of(" a@b.test"), "a@b.test");
    }

    #[test]
    fn headers_unfold_and_bodies_decode() {
        let mail = ReceivedMail {
            data: "Subject: =?utf-8?b?T2zDoQ==?=\r\nX-Long: one\r\n two\r\n\
                   Content-Transfer-Encoding: quoted-printable\r\n\r\nC=C3=B3digo: 0=\r\n42917\r\n"
                .to_owned(),
            ..ReceivedMail::default()
        };
        assert_eq!(mail.subject().as_deref(), Some("Olá"));
        assert_eq!(mail.header("x-long").as_deref(), Some("one two"));
        assert_eq!(mail.header("Missing"), None);
        assert_eq!(mail.text(), "Código: 042917\n");
    }
}
