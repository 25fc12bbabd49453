//! A users or settings write and its realtime event are one: a server killed right after such a
//! write loses nothing, and a write whose event cannot be stored is not made at all.
//!
//! The real `chatflow-server` binary runs on a database (SQLite file, then PostgreSQL). First a
//! trigger refuses every row of the event log: a setting change and a user creation then fail
//! whole, leaving neither the data nor the event (a write committed before its event was appended
//! would leave the data and lose the event). Then, with no socket connected (so the dispatcher
//! sends nothing anywhere), a setting is changed and a user created, and the server is SIGKILLed
//! as soon as the answers arrive. After a restart on the same database a socket that reconnects
//! with the sequence number it had before the writes receives both events from `sync`.

mod process;

#[allow(dead_code)]
#[path = "api/socket_client.rs"]
mod socket_client;

use std::path::PathBuf;
use std::time::Duration;

use process::{Server, call, client};
use reqwest::{Client, Method};
use serde_json::{Value, json};
use socket_client::SocketClient;
use sqlx::{PgPool, SqlitePool};

const ADMIN_EMAIL: &str = "events@chatflow.test";
const ADMIN_PASSWORD: &str = "Events-password-1";
const WAIT: Duration = Duration::from_secs(20);

/// The test's own connection to the server's database.
enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Db {
    async fn open(url: &str) -> Db {
        if url.starts_with("sqlite:") {
            Db::Sqlite(SqlitePool::connect(url).await.expect("the file opens"))
        } else {
            Db::Postgres(PgPool::connect(url).await.expect("PostgreSQL answers"))
        }
    }

    async fn execute(&self, sql: &'static str) {
        match self {
            Db::Sqlite(pool) => sqlx::raw_sql(sql).execute(pool).await.map(|_| ()),
            Db::Postgres(pool) => sqlx::raw_sql(sql).execute(pool).await.map(|_| ()),
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    async fn count(&self, sql: &'static str) -> i64 {
        match self {
            Db::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
            Db::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await,
        }
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Every row of the event log is refused from now on.
    async fn refuse_events(&self) {
        match self {
            Db::Sqlite(_) => {
                self.execute(
                    "CREATE TRIGGER refuse_events BEFORE INSERT ON events \
                     BEGIN SELECT RAISE(ABORT, 'the test refuses events'); END",
                )
                .await;
            }
            Db::Postgres(_) => {
                self.execute(
                    "CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS \
                     $$ BEGIN RAISE EXCEPTION 'the test refuses events'; END $$",
                )
                .await;
                self.execute(
                    "CREATE TRIGGER refuse_events BEFORE INSERT ON events \
                     FOR EACH ROW EXECUTE FUNCTION refuse_events()",
                )
                .await;
            }
        }
    }

    async fn accept_events(&self) {
        match self {
            Db::Sqlite(_) => self.execute("DROP TRIGGER refuse_events").await,
            Db::Postgres(_) => {
                self.execute("DROP TRIGGER refuse_events ON events").await;
                self.execute("DROP FUNCTION refuse_events()").await;
            }
        }
    }

    /// The super admin's company's event sequence.
    async fn head(&self) -> i64 {
        self.count(
            "SELECT h.seq FROM event_heads h JOIN users u ON u.company_id = h.company_id \
             WHERE u.email = 'events@chatflow.test'",
        )
        .await
    }

    async fn close(self) {
        match self {
            Db::Sqlite(pool) => pool.close().await,
            Db::Postgres(pool) => pool.close().await,
        }
    }
}

async fn start(dir: &std::path::Path, url: &str) -> Server {
    Server::start(dir, url, (ADMIN_EMAIL, ADMIN_PASSWORD), &[]).await
}

/// The answer's status, without failing on an error.
async fn status_of(client: &Client, method: Method, url: String, token: &str, body: Value) -> u16 {
    client
        .request(method, url)
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .expect("the server answers")
        .status()
        .as_u16()
}

fn new_user() -> Value {
    json!({"name": "Bia", "email": "bia@chatflow.test", "password": "Bia-password-123"})
}

async fn a_write_and_its_event_survive_a_kill_together(dir: PathBuf, url: String) {
    let client = client();
    let server = start(&dir, &url).await;
    let token = server.login(&client).await;
    let db = Db::open(&url).await;

    // The event cannot be stored: the writes fail whole.
    db.refuse_events().await;
    let before = db.head().await;
    let setting = status_of(
        &client,
        Method::PUT,
        format!("{}/settings/userRating", server.base),
        &token,
        json!({"value": "enabled"}),
    )
    .await;
    assert!(setting >= 400, "the setting change failed: {setting}");
    let user = status_of(
        &client,
        Method::POST,
        format!("{}/users", server.base),
        &token,
        new_user(),
    )
    .await;
    assert!(user >= 400, "the user creation failed: {user}");
    assert_eq!(
        db.count("SELECT COUNT(*) FROM company_settings WHERE key = 'userRating'")
            .await,
        0,
        "no setting without its event"
    );
    assert_eq!(
        db.count("SELECT COUNT(*) FROM users WHERE email = 'bia@chatflow.test'")
            .await,
        0,
        "no user without its event"
    );
    assert_eq!(db.head().await, before);
    db.accept_events().await;

    // No socket listens: nothing is sent anywhere before the kill.
    let last_seq = db.head().await;
    call(
        &client,
        Method::PUT,
        format!("{}/settings/userRating", server.base),
        &token,
        json!({"value": "enabled"}),
    )
    .await;
    let created = call(
        &client,
        Method::POST,
        format!("{}/users", server.base),
        &token,
        new_user(),
    )
    .await;
    server.kill();
    let bia = created["id"].as_i64().expect("the new user's id");
    db.close().await;

    let server = start(&dir, &url).await;
    let token = server.login(&client).await;
    let host = server.base.trim_start_matches("http://");
    let mut socket = SocketClient::with_token(host, &token).await;
    let replay = socket
        .emit_with_ack("sync", json!({ "lastSeq": last_seq }), WAIT)
        .await;
    let events = replay["events"].as_array().expect("the missed events");
    let named = |suffix: &str| {
        events
            .iter()
            .filter(|e| e["event"].as_str().is_some_and(|n| n.ends_with(suffix)))
            .map(|e| e["payload"].clone())
            .collect::<Vec<_>>()
    };
    let settings = named("-settings");
    assert_eq!(settings.len(), 1, "{replay}");
    assert_eq!(
        settings[0]["setting"],
        json!({"key": "userRating", "value": "enabled"})
    );
    assert_eq!(settings[0]["seq"], last_seq + 1, "the first write's event");
    let users = named("-user");
    assert!(
        users
            .iter()
            .any(|u| u["action"] == "create" && u["user"]["id"] == bia),
        "{replay}"
    );
    server.kill();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_write_and_its_event_survive_a_kill_together() {
    process::on_sqlite(a_write_and_its_event_survive_a_kill_together).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_write_and_its_event_survive_a_kill_together() {
    process::on_postgres(
        "chatflow_crash_events",
        a_write_and_its_event_survive_a_kill_together,
    )
    .await;
}
