//! Mail in API tests: a fake SMTP server beside the test server, whose URL the server is
//! configured with (`CHATFLOW_SMTP_URL`), and readers for what it received.
//!
//! [`mail_app_tests!`] declares each `async fn(TestApp, FakeSmtpServer)` on SQLite and on
//! PostgreSQL, like [`crate::app_tests!`]; [`run_with_mail`] does the same for one test with its
//! own configuration.

use std::future::Future;

use chatflow_server::config::{Config, Secret};
pub use chatflow_system::fake_smtp::FakeSmtpServer;

use crate::helpers::{Backend, TestApp, run};

/// Declares, for each listed `async fn(TestApp, FakeSmtpServer)`, one test on SQLite and one
/// on PostgreSQL, the server sending mail to a fresh fake SMTP server.
#[macro_export]
macro_rules! mail_app_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite_mail {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::mailbox::run_with_mail($crate::helpers::Backend::Sqlite, |_| {}, super::$name).await;
                }
            )*
        }
        mod postgres_mail {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::mailbox::run_with_mail($crate::helpers::Backend::Postgres, |_| {}, super::$name).await;
                }
            )*
        }
    };
}

/// Starts a fake SMTP server, then runs `test` against a fresh server on `backend` whose mail
/// goes to it, with `configure` applied to the configuration afterwards.
pub async fn run_with_mail<C, F, Fut>(backend: Backend, configure: C, test: F)
where
    C: FnOnce(&mut Config),
    F: FnOnce(TestApp, FakeSmtpServer) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let smtp = FakeSmtpServer::start().await.expect("a fake SMTP server");
    let url = smtp.url();
    run(
        backend,
        move |config| {
            config.smtp_url = Some(Secret::new(url));
            configure(config);
        },
        move |app| test(app, smtp),
    )
    .await;
}

/// The password-reset code of the latest mail to `email`; fails when there is none.
pub fn reset_code(smtp: &FakeSmtpServer, email: &str) -> String {
    let mail = smtp
        .mails_to(email)
        .pop()
        .unwrap_or_else(|| panic!("no mail was sent to {email}"));
    let text = mail.text();
    let (_, after) = text
        .split_once("código de verificação: ")
        .unwrap_or_else(|| panic!("the mail names no code: {text}"));
    let code: String = after.chars().take_while(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "a 6-digit code: {text}");
    code
}

/// `value` percent-encoded as one path segment, like the web app's `encodeURIComponent`.
pub fn segment(value: &str) -> String {
    let mut encoded = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}
