//! Outgoing e-mail: [`SmtpMailer`] over SMTP (lettre on tokio), and [`LogMailer`] for servers
//! with no mail server configured.
//!
//! # The SMTP URL
//! `smtp://user:password@host:port` (user and password optional, percent-encoded when they hold
//! reserved characters). The `tls` query parameter says how the connection is protected:
//!
//! | URL | connection |
//! |---|---|
//! | `smtp://host:port` | STARTTLS when the server offers it, plain otherwise (the default) |
//! | `smtp://host:port?tls=required` | STARTTLS, failing when the server does not offer it |
//! | `smtp://host:port?tls=none` | plain SMTP, never upgraded (a local relay) |
//! | `smtps://host:port` | TLS from the first byte (port 465) |
//!
//! Certificates are checked against the Mozilla roots (webpki-roots), with rustls. A path
//! segment (`smtp://host:port/name`) sets the name sent with `EHLO`. Each mail opens its own
//! connection; one conversation may take at most [`SMTP_TIMEOUT`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::ports::{Mailer, OutboundMail};
use chatflow_core::{Error, ErrorCode, Result};
use lettre::message::Mailbox;
use lettre::message::header::ContentType;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// How long one SMTP conversation (connect, greet, send) may take.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a mailer could not be configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MailConfigError {
    /// The SMTP URL cannot be used; the URL in the message has its password hidden.
    #[error("invalid SMTP URL {url}: {reason}")]
    InvalidUrl {
        /// The URL, password hidden.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The sender is not an address (`Name <address>` or `address`).
    #[error("invalid sender address {0:?}: expected `Name <address>` or `address`")]
    InvalidFrom(String),
}

/// Sends mail through an SMTP server.
#[derive(Clone)]
pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The URL with its password hidden, for logs and `Debug`.
    server: String,
}

impl fmt::Debug for SmtpMailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpMailer")
            .field("server", &self.server)
            .field("from", &self.from.to_string())
            .finish_non_exhaustive()
    }
}

impl SmtpMailer {
    /// A mailer for the server named by `url` (see the module notes), sending as `from`
    /// (`Chatflow <no-reply@example.com>` or a bare address). Nothing is contacted yet.
    pub fn new(url: &str, from: &str) -> std::result::Result<Self, MailConfigError> {
        let server = redact_url(url);
        let invalid = |reason: String| MailConfigError::InvalidUrl {
            url: server.clone(),
            reason,
        };
        let lettre_url = transport_url(url).map_err(invalid)?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&lettre_url)
            .map_err(|e| invalid(e.to_string()))?
            .timeout(Some(SMTP_TIMEOUT))
            .build();
        let from = from
            .trim()
            .parse::<Mailbox>()
            .map_err(|_| MailConfigError::InvalidFrom(from.to_owned()))?;
        Ok(Self {
            transport,
            from,
            server,
        })
    }

    /// The server's URL with its password hidden.
    pub fn server(&self) -> &str {
        &self.server
    }
}

#[async_trait]
impl Mailer for SmtpMailer {
    /// Sends a plain-text UTF-8 mail. A recipient that is not an address, or a server that
    /// cannot be reached or refuses the mail, is an internal error whose detail (for the logs)
    /// names the server and the recipient, never the mail's text.
    async fn send(&self, mail: &OutboundMail) -> Result<()> {
        let to = mail
            .to
            .trim()
            .parse::<Mailbox>()
            .map_err(|e| Error::internal(format!("cannot mail {:?}: {e}", mail.to)))?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(mail.subject.clone())
            .header(ContentType::TEXT_PLAIN)
            .body(mail.text.clone())
            .map_err(|e| Error::internal(format!("cannot build the mail to {}: {e}", mail.to)))?;
        self.transport.send(message).await.map_err(|e| {
            Error::internal(format!(
                "the SMTP server {} did not take the mail to {}: {e}",
                self.server, mail.to
            ))
        })?;
        Ok(())
    }
}

/// The mailer of a server with no SMTP configured: it sends nothing, logs a warning naming the
/// recipient and the subject (never the text, which may hold a code), and answers
/// `ERR_MAIL_NOT_CONFIGURED`, so users learn at once that no mail is coming.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogMailer;

#[async_trait]
impl Mailer for LogMailer {
    async fn send(&self, mail: &OutboundMail) -> Result<()> {
        tracing::warn!(
            to = %mail.to,
            subject = %mail.subject,
            "mail \"{}\" for {} not sent: no SMTP configured (set CHATFLOW_SMTP_URL)",
            mail.subject,
            mail.to
        );
        Err(Error::new(ErrorCode::ERR_MAIL_NOT_CONFIGURED))
    }
}

/// The mailer a host wires in: an [`SmtpMailer`] for `smtp_url` sending as `from`, or the
/// [`LogMailer`] when no URL is given (or it is blank).
pub fn configured_mailer(
    smtp_url: Option<&str>,
    from: &str,
) -> std::result::Result<Arc<dyn Mailer>, MailConfigError> {
    match smtp_url.map(str::trim).filter(|url| !url.is_empty()) {
        Some(url) => Ok(Arc::new(SmtpMailer::new(url, from)?)),
        None => Ok(Arc::new(LogMailer)),
    }
}

/// Translates our URL (see the module notes) into lettre's: `smtp://` without `tls` becomes
/// `tls=opportunistic`, and `tls=none` becomes lettre's plain `smtp://`.
fn transport_url(url: &str) -> std::result::Result<String, String> {
    let url = url.trim();
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| "expected smtp://host:port or smtps://host:port".to_owned())?;
    let (base, query) = match rest.split_once('?') {
        Some((base, query)) => (base, query),
        None => (rest, ""),
    };
    let mut tls = None;
    let mut others = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("tls", value)) => tls = Some(value),
            _ => others.push(pair),
        }
    }
    let tls = match (scheme, tls) {
        ("smtp", None | Some("opportunistic")) => Some("opportunistic"),
        ("smtp", Some("required")) => Some("required"),
        ("smtp", Some("none")) => None,
        ("smtp", Some(other)) => {
            return Err(format!(
                "unknown tls={other} (expected required, opportunistic or none)"
            ));
        }
        ("smtps", None) => None,
        ("smtps", Some(_)) => return Err("smtps:// takes no tls parameter".to_owned()),
        (other, _) => {
            return Err(format!(
                "unknown scheme {other}:// (expected smtp or smtps)"
            ));
        }
    };
    if let Some(tls) = tls {
        others.push(match tls {
            "required" => "tls=required",
            _ => "tls=opportunistic",
        });
    }
    Ok(if others.is_empty() {
        format!("{scheme}://{base}")
    } else {
        format!("{scheme}://{base}?{}", others.join("&"))
    })
}

/// The URL with the password of its user information replaced by `***`.
fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => match user_info.split_once(':') {
            Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::fake_smtp::{Behaviour, FakeSmtpServer};

    fn mail(to: &str) -> OutboundMail {
        OutboundMail {
            to: to.to_owned(),
            subject: "Redefinição de senha".to_owned(),
            text: "Olá, Ana!\n\nSeu código de verificação: 042917\n\nAté mais.\n".to_owned(),
        }
    }

    #[test]
    fn urls_translate_to_lettre() {
        assert_eq!(
            transport_url("smtp://u:p@mail.test:2525").as_deref(),
            Ok("smtp://u:p@mail.test:2525?tls=opportunistic")
        );
        assert_eq!(
            transport_url("smtp://mail.test:587?tls=required").as_deref(),
            Ok("smtp://mail.test:587?tls=required")
        );
        assert_eq!(
            transport_url("smtp://mail.test:25/ehlo.name?tls=none").as_deref(),
            Ok("smtp://mail.test:25/ehlo.name")
        );
        assert_eq!(
            transport_url("smtps://mail.test").as_deref(),
            Ok("smtps://mail.test")
        );
        assert!(transport_url("smtp://mail.test?tls=maybe").is_err());
        assert!(transport_url("smtps://mail.test?tls=none").is_err());
        assert!(transport_url("http://mail.test").is_err());
        assert!(transport_url("mail.test:25").is_err());
    }

    #[test]
    fn configuration_errors_hide_the_password() {
        assert_eq!(
            redact_url("smtp://user:s3cret@mail.test:25/x?tls=none"),
            "smtp://user:***@mail.test:25/x?tls=none"
        );
        assert_eq!(redact_url("smtp://mail.test:25"), "smtp://mail.test:25");
        let err = SmtpMailer::new("ftp://user:s3cret@mail.test", "a@b.test").expect_err("ftp");
        assert!(!err.to_string().contains("s3cret"), "{err}");
        assert!(matches!(err, MailConfigError::InvalidUrl { .. }));
        let err = SmtpMailer::new("smtp://mail.test:25", "not an address").expect_err("from");
        assert_eq!(
            err,
            MailConfigError::InvalidFrom("not an address".to_owned())
        );
        let mailer = SmtpMailer::new(
            "smtp://user:s3cret@mail.test:587?tls=required",
            "Chatflow <no-reply@chatflow.local>",
        )
        .expect("a valid configuration");
        let printed = format!("{mailer:?}");
        assert!(!printed.contains("s3cret"), "{printed}");
        assert!(printed.contains("mail.test"), "{printed}");
        SmtpMailer::new("smtps://mail.test", "no-reply@chatflow.local").expect("implicit TLS");
    }

    #[tokio::test]
    async fn smtp_mailer_delivers_to_the_server() {
        let server = FakeSmtpServer::start().await.expect("fake SMTP server");
        let url = format!("smtp://mailer:pa%3Ass@{}", server.addr());
        let mailer = SmtpMailer::new(&url, "Chatflow <no-reply@chatflow.local>").expect("valid");
        mailer
            .send(&mail("Ana@Example.com"))
            .await
            .expect("the server takes it");
        let received = server.mails();
        assert_eq!(received.len(), 1);
        let got = &received[0];
        assert_eq!(got.rcpt_to, vec!["Ana@Example.com".to_owned()]);
        assert_eq!(got.mail_from, "no-reply@chatflow.local");
        assert_eq!(
            got.auth.as_deref(),
            Some("mailer:pa:ss"),
            "URL credentials are used, percent-decoded"
        );
        assert_eq!(got.subject().as_deref(), Some("Redefinição de senha"));
        assert_eq!(
            got.header("From").as_deref(),
            Some("Chatflow <no-reply@chatflow.local>")
        );
        let text = got.text();
        assert!(text.contains("Seu código de verificação: 042917"), "{text}");
        assert!(text.starts_with("Olá, Ana!"), "{text}");
        assert!(
            got.header("Content-Type")
                .is_some_and(|t| t.starts_with("text/plain; charset=utf-8")),
            "{:?}",
            got.header("Content-Type")
        );
    }

    #[tokio::test]
    async fn hosts_get_smtp_only_when_a_url_is_given() {
        let server = FakeSmtpServer::start().await.expect("fake SMTP server");
        let smtp = configured_mailer(Some(&server.url()), "no-reply@chatflow.local")
            .expect("valid configuration");
        smtp.send(&mail("ana@example.com")).await.expect("sent");
        assert_eq!(server.mails().len(), 1);
        for unset in [None, Some(""), Some("  ")] {
            let log = configured_mailer(unset, "no-reply@chatflow.local").expect("the log mailer");
            let err = log
                .send(&mail("ana@example.com"))
                .await
                .expect_err("not sent");
            assert_eq!(err.code, ErrorCode::ERR_MAIL_NOT_CONFIGURED);
        }
        assert_eq!(server.mails().len(), 1);
        assert!(configured_mailer(Some("nope://x"), "a@b.test").is_err());
    }

    #[tokio::test]
    async fn without_credentials_no_authentication_happens() {
        let server = FakeSmtpServer::start().await.expect("fake SMTP server");
        let mailer = SmtpMailer::new(&server.url(), "no-reply@chatflow.local").expect("valid");
        mailer.send(&mail("bob@example.com")).await.expect("sent");
        mailer.send(&mail("carla@example.com")).await.expect("sent");
        let received = server.mails();
        assert_eq!(received.len(), 2, "one connection per mail, both delivered");
        assert_eq!(received[0].auth, None);
        assert_eq!(received[1].rcpt_to, vec!["carla@example.com".to_owned()]);
    }

    #[tokio::test]
    async fn refusals_and_unreachable_servers_are_internal_errors() {
        let server = FakeSmtpServer::start_with(Behaviour::RejectRecipients)
            .await
            .expect("fake SMTP server");
        let mailer = SmtpMailer::new(&server.url(), "no-reply@chatflow.local").expect("valid");
        let err = mailer
            .send(&mail("ana@example.com"))
            .await
            .expect_err("the recipient is refused");
        assert_eq!(err.code, ErrorCode::ERR_INTERNAL);
        let detail = err.detail.unwrap_or_default();
        assert!(detail.contains("ana@example.com"), "{detail}");
        assert!(!detail.contains("042917"), "the text never lands in errors");
        assert!(server.mails().is_empty());

        let addr = server.addr();
        drop(server);
        let closed =
            SmtpMailer::new(&format!("smtp://{addr}"), "no-reply@chatflow.local").expect("valid");
        let err = closed
            .send(&mail("ana@example.com"))
            .await
            .expect_err("nobody listens");
        assert_eq!(err.code, ErrorCode::ERR_INTERNAL);

        let err = closed
            .send(&mail("not an address"))
            .await
            .expect_err("a bad recipient");
        assert_eq!(err.code, ErrorCode::ERR_INTERNAL);
    }

    /// Collects log output written by a `tracing` subscriber.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?
                .extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn log_mailer_refuses_and_warns_without_the_text() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let err = {
            let _guard = tracing::subscriber::set_default(subscriber);
            LogMailer
                .send(&mail("ana@example.com"))
                .await
                .expect_err("nothing is sent")
        };
        assert_eq!(err.code, ErrorCode::ERR_MAIL_NOT_CONFIGURED);
        let logs = String::from_utf8(captured.0.lock().expect("not poisoned").clone())
            .expect("UTF-8 logs");
        assert!(logs.contains("WARN"), "{logs}");
        assert!(
            logs.contains("for ana@example.com not sent: no SMTP configured"),
            "{logs}"
        );
        assert!(logs.contains("Redefinição de senha"), "{logs}");
        assert!(
            !logs.contains("042917"),
            "the code never reaches the logs: {logs}"
        );
    }
}
