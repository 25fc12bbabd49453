//! The real `chatflow-server` binary as a child process, for the tests that kill it: start it on
//! a database, wait for `/health`, SIGKILL it; and the few calls those tests make.

// Each test binary uses some of these helpers.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

/// A running server process.
pub struct Server {
    child: Child,
    pub base: String,
    admin_email: String,
    admin_password: String,
}

impl Server {
    /// Starts the server binary on `database_url` with the sandbox on, `dir` for its files and
    /// the super admin `admin` (e-mail, password); `env` adds or overrides variables. Waits for
    /// `/health` (30 s at most).
    pub async fn start(
        dir: &Path,
        database_url: &str,
        admin: (&str, &str),
        env: &[(&str, &str)],
    ) -> Server {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let mut command = Command::new(env!("CARGO_BIN_EXE_chatflow-server"));
        command
            .env("DATABASE_URL", database_url)
            .env("CHATFLOW_HOST", "127.0.0.1")
            .env("PORT", port.to_string())
            .env("CHATFLOW_SANDBOX", "true")
            .env("CHATFLOW_WEB_DIR", dir.join("no-web"))
            .env("CHATFLOW_MEDIA_DIR", dir.join("media"))
            .env("CHATFLOW_SECRET_KEY_FILE", dir.join("secret.key"))
            .env("CHATFLOW_ADMIN_EMAIL", admin.0)
            .env("CHATFLOW_ADMIN_PASSWORD", admin.1)
            .env("RUST_LOG", "error")
            .env_remove("CHATFLOW_CONFIG")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (key, value) in env {
            command.env(key, value);
        }
        let child = command.spawn().expect("the server starts");
        let mut server = Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
            admin_email: admin.0.to_owned(),
            admin_password: admin.1.to_owned(),
        };
        let client = client();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let health = client.get(format!("{}/health", server.base)).send().await;
            if health.is_ok_and(|r| r.status() == StatusCode::OK) {
                return server;
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("the server exited before answering: {status}");
            }
            assert!(Instant::now() < deadline, "the server never answered");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The process id (for `/proc/<pid>/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: no shutdown, no flush, nothing finished.
    pub fn kill(mut self) {
        self.child.kill().expect("killed");
        self.child.wait().expect("reaped");
    }

    /// The super admin's access token.
    pub async fn login(&self, client: &Client) -> String {
        let answer = client
            .post(format!("{}/auth/login", self.base))
            .json(&json!({"email": self.admin_email, "password": self.admin_password}))
            .send()
            .await
            .expect("login answers")
            .json::<Value>()
            .await
            .expect("JSON");
        answer["token"].as_str().expect("a token").to_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A new HTTP client. reqwest is built without a TLS provider of its own (rustls on ring, as
/// the server installs it): this test process installs it before building one.
pub fn client() -> Client {
    chatflow_integrations::install_crypto_provider();
    Client::new()
}

/// Calls `url` with the bearer `token` (and `body` as JSON unless it is null); panics unless the
/// answer is a success; answers its JSON (null when it has none).
pub async fn call(client: &Client, method: Method, url: String, token: &str, body: Value) -> Value {
    let mut request = client.request(method, url.clone()).bearer_auth(token);
    if !body.is_null() {
        request = request.json(&body);
    }
    let response = request
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = response.status();
    let text = response.text().await.expect("a body");
    assert!(status.is_success(), "{url}: {status} {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// The URL of a SQLite database file in `dir`, for the running test (logged as a SQLite run).
pub fn sqlite_url(dir: &Path) -> String {
    chatflow_system::test_engines::record_sqlite();
    format!("sqlite://{}", dir.join("chatflow.db").display())
}

/// Runs `test` with a fresh temporary directory and a SQLite database in it.
pub async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(std::path::PathBuf, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = sqlite_url(dir.path());
    test(dir.path().to_path_buf(), url).await;
}

/// Runs `test` with a fresh temporary directory and a new PostgreSQL database (named from
/// `prefix`) on the server of `CHATFLOW_TEST_POSTGRES_URL`, dropped afterwards. Whether it
/// runs, is skipped or fails is `chatflow_system::test_engines::postgres_or_skip`'s call.
pub async fn on_postgres<F, Fut>(prefix: &str, test: F)
where
    F: FnOnce(std::path::PathBuf, String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let Some(server) = chatflow_system::test_engines::postgres_or_skip() else {
        return;
    };
    use sqlx::Connection as _;
    let name = format!("{prefix}_{}", std::process::id());
    let mut admin = sqlx::PgConnection::connect(&server)
        .await
        .expect("PostgreSQL answers");
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name}"
    )))
    .execute(&mut admin)
    .await
    .expect("dropped");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("created");
    let (base, _) = server.rsplit_once('/').expect("a database URL");
    let url = format!("{base}/{name}");
    let dir = tempfile::tempdir().expect("a temporary directory");
    test(dir.path().to_path_buf(), url).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&mut admin)
    .await
    .expect("dropped");
}
