//! The server's configuration: command-line flags, each with an environment variable.
//!
//! Precedence, highest first: a command-line flag, an environment variable, a line of the
//! optional configuration file (`--config FILE` or `CHATFLOW_CONFIG`, `KEY=VALUE` lines read
//! with dotenvy before parsing, never overriding a variable already set), the default. Secrets
//! are wrapped in [`Secret`] so `Debug` output and logs never show them. The table of variables
//! lives in the README.

use std::ffi::OsString;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::{ArgAction, Parser, ValueEnum};

/// A value that must not appear in logs: `Debug` and `Display` print `[redacted]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_owned()))
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Chatflow's HTTP + socket.io server.
#[derive(Clone, Parser)]
#[command(
    name = "chatflow-server",
    version,
    about = "Chatflow's HTTP API, realtime events and web app"
)]
pub struct Config {
    /// An optional file of `KEY=VALUE` lines, loaded before the other settings are read;
    /// variables already set in the environment win over the file.
    #[arg(long = "config", env = "CHATFLOW_CONFIG", value_name = "FILE")]
    pub config_file: Option<PathBuf>,

    /// The database: `sqlite://path` (created on first start) or `postgres://...`.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://data/chatflow.db",
        hide_env_values = true
    )]
    pub database_url: Secret,

    /// The address to listen on.
    #[arg(long, env = "CHATFLOW_HOST", default_value = "0.0.0.0")]
    pub host: IpAddr,

    /// The port to listen on (0 picks a free one).
    #[arg(long, env = "PORT", default_value_t = 8080)]
    pub port: u16,

    /// The key that signs access tokens. When absent, one is generated on first start and kept
    /// in the platform settings, sealed with the secret key, so restarts keep sessions.
    #[arg(long, env = "CHATFLOW_JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<Secret>,

    /// The key that seals the secrets kept in the database (the generated access-token key,
    /// payment provider keys): at least 32 characters. When absent, the key file is used.
    #[arg(long, env = "CHATFLOW_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<Secret>,

    /// The key file used without `CHATFLOW_SECRET_KEY`; generated (mode 0600) when missing. By
    /// default `secret.key` next to the SQLite file, else `data/secret.key`.
    #[arg(long, env = "CHATFLOW_SECRET_KEY_FILE")]
    pub secret_key_file: Option<PathBuf>,

    /// Lifetime of an access token, in seconds.
    #[arg(long, env = "CHATFLOW_ACCESS_TOKEN_TTL", default_value_t = 900)]
    pub access_token_ttl: u64,

    /// Lifetime of a refresh token (the `jrt` cookie), in seconds; each use renews it.
    #[arg(long, env = "CHATFLOW_REFRESH_TOKEN_TTL", default_value_t = 7 * 24 * 3600)]
    pub refresh_token_ttl: u64,

    /// Seconds during which an already-rotated refresh token is still honoured (two tabs
    /// refreshing at once); after that, presenting it is treated as theft and revokes the session.
    #[arg(long, env = "CHATFLOW_REFRESH_REUSE_GRACE", default_value_t = 10)]
    pub refresh_reuse_grace: u64,

    /// Seconds a claimed durable job stays invisible to other workers; a job whose server died
    /// is run again once its lease has run out. Far longer than any job takes.
    #[arg(long, env = "CHATFLOW_JOB_LEASE", default_value_t = 120)]
    pub job_lease: u64,

    /// The e-mail of the super admin created on first start (default admin@chatflow.local).
    #[arg(long, env = "CHATFLOW_ADMIN_EMAIL")]
    pub admin_email: Option<String>,

    /// The password of the super admin created on first start; generated and printed once when
    /// absent.
    #[arg(long, env = "CHATFLOW_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<Secret>,

    /// A built web app on disk, served on the same port with a fallback to its index.html, in
    /// place of the app embedded in the binary (development). Without it: the embedded app, else
    /// `web/dist` when it holds one, else the API alone.
    #[arg(long, env = "CHATFLOW_WEB_DIR")]
    pub web_dir: Option<PathBuf>,

    /// Where uploaded media (avatars, attachments) are stored.
    #[arg(long, env = "CHATFLOW_MEDIA_DIR", default_value = "data/media")]
    pub media_dir: PathBuf,

    /// The largest request body accepted on upload routes, in bytes; JSON routes accept 1 MiB.
    #[arg(long, env = "CHATFLOW_MAX_BODY_BYTES", default_value_t = 20 * 1024 * 1024)]
    pub max_body_bytes: usize,

    /// Sign-in attempts allowed per minute, per client address and per account.
    #[arg(long, env = "CHATFLOW_LOGIN_RATE_PER_MINUTE", default_value_t = 10)]
    pub login_rate_per_minute: u32,

    /// Mark the refresh cookie `Secure` (sent over HTTPS only). Turn on behind HTTPS.
    #[arg(long, env = "CHATFLOW_COOKIE_SECURE", default_value_t = false, action = ArgAction::Set)]
    pub cookie_secure: bool,

    /// Take the client address from the last `X-Forwarded-For` entry (only behind a trusted
    /// reverse proxy that sets it).
    #[arg(long, env = "CHATFLOW_TRUST_PROXY", default_value_t = false, action = ArgAction::Set)]
    pub trust_proxy: bool,

    /// Log line format.
    #[arg(long, env = "CHATFLOW_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Also log each span as it closes, with how long it was busy and idle: with
    /// `RUST_LOG=info,chatflow_core=debug,chatflow_store=debug`, every use case and store call of
    /// a request (with its company, user and ids), so a slow request can be read from the logs.
    #[arg(long, env = "CHATFLOW_LOG_SPANS", default_value_t = false, action = ArgAction::Set)]
    pub log_spans: bool,

    /// The SMTP server that sends mail (password-reset codes): `smtp://user:password@host:port`
    /// (STARTTLS when the server offers it; `?tls=required`, `?tls=none`, or `smtps://` for TLS
    /// from the start). Without it, password-reset requests answer `503 ERR_MAIL_NOT_CONFIGURED`.
    #[arg(long, env = "CHATFLOW_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<Secret>,

    /// The sender of the mail the server sends: `Name <address>` or `address`.
    #[arg(
        long,
        env = "CHATFLOW_MAIL_FROM",
        default_value = DEFAULT_MAIL_FROM
    )]
    pub mail_from: String,

    /// Run the sandbox channel (the built-in simulated phone network) and its routes. Default:
    /// on with SQLite, off with PostgreSQL.
    #[arg(long, env = "CHATFLOW_SANDBOX", action = ArgAction::Set)]
    pub sandbox: Option<bool>,

    /// The OpenAI-compatible server the assistant calls (`openai` flow nodes, prompts):
    /// `POST {url}/chat/completions` with the company's API key. Any compatible server works
    /// (a proxy, a self-hosted model server).
    #[arg(
        long,
        env = "CHATFLOW_OPENAI_BASE_URL",
        default_value = chatflow_integrations::OPENAI_BASE_URL
    )]
    pub openai_base_url: String,

    /// Open connections allowed from one client address; more are closed at once. Behind a
    /// reverse proxy every connection comes from the proxy: raise it there.
    #[arg(
        long,
        env = "CHATFLOW_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_connections_per_address: usize,

    /// Seconds a connection may take to send a request's headers, and may stay idle between
    /// requests; a request body that sends nothing for this long is cut too.
    #[arg(long, env = "CHATFLOW_READ_TIMEOUT", default_value_t = 15)]
    pub read_timeout: u64,
}

/// The sender of mail when `CHATFLOW_MAIL_FROM` is not set.
pub const DEFAULT_MAIL_FROM: &str = "Chatflow <no-reply@chatflow.local>";

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The database URL may carry a password: show only its scheme.
        let database = self
            .database_url
            .expose()
            .split("://")
            .next()
            .unwrap_or("?");
        f.debug_struct("Config")
            .field("config_file", &self.config_file)
            .field("database_url", &format_args!("{database}://[redacted]"))
            .field("host", &self.host)
            .field("port", &self.port)
            .field("jwt_secret", &self.jwt_secret)
            .field("secret_key", &self.secret_key)
            .field("secret_key_file", &self.secret_key_file)
            .field("access_token_ttl", &self.access_token_ttl)
            .field("refresh_token_ttl", &self.refresh_token_ttl)
            .field("refresh_reuse_grace", &self.refresh_reuse_grace)
            .field("job_lease", &self.job_lease)
            .field("admin_email", &self.admin_email)
            .field("admin_password", &self.admin_password)
            .field("web_dir", &self.web_dir)
            .field("media_dir", &self.media_dir)
            .field("max_body_bytes", &self.max_body_bytes)
            .field("login_rate_per_minute", &self.login_rate_per_minute)
            .field("cookie_secure", &self.cookie_secure)
            .field("trust_proxy", &self.trust_proxy)
            .field("log_format", &self.log_format)
            .field("log_spans", &self.log_spans)
            .field("smtp_url", &self.smtp_url)
            .field("mail_from", &self.mail_from)
            .field("openai_base_url", &self.openai_base_url)
            .field(
                "max_connections_per_address",
                &self.max_connections_per_address,
            )
            .field("read_timeout", &self.read_timeout)
            .finish()
    }
}

/// The largest JSON body accepted, in bytes.
pub const JSON_BODY_LIMIT: usize = 1024 * 1024;

impl Config {
    /// Reads the configuration from the process's arguments and environment, after loading the
    /// configuration file named by `--config` or `CHATFLOW_CONFIG` (if any).
    pub fn load() -> anyhow::Result<Self> {
        Self::load_from(std::env::args_os())
    }

    /// Like [`Config::load`], with explicit arguments (the first is the program name).
    pub fn load_from<I, T>(args: I) -> anyhow::Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        if let Some(file) = config_file_named(&args) {
            load_env_file(&file)?;
        }
        Ok(Self::try_parse_from(args)?)
    }

    /// A configuration with every default, for tests and embedding: nothing is read from the
    /// environment.
    pub fn defaults() -> Self {
        Self {
            config_file: None,
            database_url: Secret::new("sqlite://data/chatflow.db"),
            host: IpAddr::from([0, 0, 0, 0]),
            port: 8080,
            jwt_secret: None,
            secret_key: None,
            secret_key_file: None,
            access_token_ttl: 900,
            refresh_token_ttl: 7 * 24 * 3600,
            refresh_reuse_grace: 10,
            job_lease: 120,
            admin_email: None,
            admin_password: None,
            web_dir: None,
            media_dir: PathBuf::from("data/media"),
            max_body_bytes: 20 * 1024 * 1024,
            login_rate_per_minute: 10,
            cookie_secure: false,
            trust_proxy: false,
            log_format: LogFormat::Text,
            log_spans: false,
            smtp_url: None,
            mail_from: DEFAULT_MAIL_FROM.to_owned(),
            sandbox: None,
            openai_base_url: chatflow_integrations::OPENAI_BASE_URL.to_owned(),
            max_connections_per_address: 256,
            read_timeout: 15,
        }
    }

    /// Whether the sandbox channel runs: `CHATFLOW_SANDBOX` when set, else on for SQLite.
    pub fn sandbox_enabled(&self) -> bool {
        self.sandbox
            .unwrap_or_else(|| self.database_url.expose().starts_with("sqlite:"))
    }
}

/// The configuration file named on the command line (`--config F` or `--config=F`), else in
/// `CHATFLOW_CONFIG`.
fn config_file_named(args: &[OsString]) -> Option<PathBuf> {
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        let text = arg.to_string_lossy();
        if text == "--config" {
            return iter.next().map(PathBuf::from);
        }
        if let Some(value) = text.strip_prefix("--config=") {
            return Some(PathBuf::from(value));
        }
    }
    std::env::var_os("CHATFLOW_CONFIG").map(PathBuf::from)
}

/// Loads `KEY=VALUE` lines into the environment without overriding variables already set.
fn load_env_file(path: &Path) -> anyhow::Result<()> {
    dotenvy::from_path(path)
        .map_err(|e| anyhow::anyhow!("cannot read the configuration file {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_in_debug() {
        let mut config = Config::defaults();
        config.jwt_secret = Some(Secret::new("top-secret-key"));
        config.secret_key = Some(Secret::new("sealing-key-of-enough-characters"));
        config.admin_password = Some(Secret::new("hunter2-password"));
        config.database_url = Secret::new("postgres://app:db-password@db/chatflow");
        config.smtp_url = Some(Secret::new("smtp://mailer:smtp-password@mail.test:587"));
        let printed = format!("{config:?}");
        assert!(!printed.contains("smtp-password"), "{printed}");
        assert!(!printed.contains("top-secret-key"), "{printed}");
        assert!(!printed.contains("sealing-key"), "{printed}");
        assert!(!printed.contains("hunter2-password"), "{printed}");
        assert!(!printed.contains("db-password"), "{printed}");
        assert!(printed.contains("postgres://[redacted]"), "{printed}");
    }

    #[test]
    fn flags_parse_and_defaults_match() {
        let parsed = Config::try_parse_from([
            "chatflow-server",
            "--port",
            "9000",
            "--cookie-secure",
            "true",
            "--log-format",
            "json",
            "--log-spans",
            "true",
        ])
        .expect("valid flags");
        assert!(parsed.log_spans);
        assert_eq!(parsed.port, 9000);
        assert!(parsed.cookie_secure);
        assert_eq!(parsed.log_format, LogFormat::Json);
        assert_eq!(parsed.access_token_ttl, Config::defaults().access_token_ttl);
    }

    #[test]
    fn mail_settings_parse_and_default() {
        let parsed = Config::try_parse_from([
            "chatflow-server",
            "--smtp-url",
            "smtp://mail.test:2525",
            "--mail-from",
            "Suporte <suporte@example.com>",
        ])
        .expect("valid flags");
        assert_eq!(
            parsed.smtp_url.as_ref().map(Secret::expose),
            Some("smtp://mail.test:2525")
        );
        assert_eq!(parsed.mail_from, "Suporte <suporte@example.com>");
        assert_eq!(Config::defaults().smtp_url, None);
        assert_eq!(Config::defaults().mail_from, DEFAULT_MAIL_FROM);
    }

    #[test]
    fn the_openai_base_url_defaults_to_openai() {
        let parsed = Config::try_parse_from(["chatflow-server"]).expect("no flags");
        assert_eq!(parsed.openai_base_url, "https://api.openai.com/v1");
        assert_eq!(Config::defaults().openai_base_url, parsed.openai_base_url);
        let parsed = Config::try_parse_from([
            "chatflow-server",
            "--openai-base-url",
            "http://10.0.0.5:11434/v1",
        ])
        .expect("valid flags");
        assert_eq!(parsed.openai_base_url, "http://10.0.0.5:11434/v1");
    }

    #[test]
    fn the_config_file_fills_in_unset_variables() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = dir.path().join("chatflow.env");
        // A variable no other test reads, so setting it in this process is harmless.
        std::fs::write(&file, "# comment\nCHATFLOW_LOGIN_RATE_PER_MINUTE=77\n").expect("written");
        let config = Config::load_from([
            "chatflow-server".into(),
            "--config".into(),
            file.clone().into_os_string(),
        ])
        .expect("loads");
        assert_eq!(config.login_rate_per_minute, 77);
        assert_eq!(config.config_file.as_deref(), Some(file.as_path()));
        let missing = Config::load_from(["chatflow-server", "--config", "/no/such/file.env"]);
        assert!(missing.is_err());
    }

    /// The sample configuration shipped in the release archive names every setting, each with
    /// the default the server really has.
    #[test]
    fn the_sample_configuration_lists_every_setting_with_its_default() {
        use clap::CommandFactory;
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("packaging")
            .join("chatflow.env.example");
        let sample = std::fs::read_to_string(&path).expect("packaging/chatflow.env.example");
        let lines: Vec<(&str, &str)> = sample
            .lines()
            .filter_map(|line| line.strip_prefix("# ")?.split_once('='))
            .filter(|(key, _)| {
                !key.is_empty() && key.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            })
            .collect();
        let command = Config::command();
        for arg in command.get_arguments() {
            let Some(env) = arg.get_env().and_then(|e| e.to_str()) else {
                continue;
            };
            if env == "CHATFLOW_CONFIG" {
                continue;
            }
            let Some((_, raw)) = lines.iter().find(|(key, _)| *key == env) else {
                panic!("{env} is missing from {}", path.display());
            };
            // The value as the server reads it once the line is uncommented.
            let line = format!("{env}={raw}\n");
            let value = dotenvy::from_read_iter(line.as_bytes())
                .next()
                .and_then(Result::ok)
                .map(|(_, value)| value)
                .unwrap_or_else(|| panic!("{env}: {raw} does not parse as a KEY=VALUE line"));
            if let Some(default) = arg.get_default_values().first() {
                assert_eq!(
                    Some(value.as_str()),
                    default.to_str(),
                    "the default of {env}"
                );
            }
            if let (false, Some(flag)) = (value.is_empty(), arg.get_long()) {
                let flag = format!("--{flag}");
                let parsed = Config::try_parse_from(["chatflow-server", &flag, &value]);
                assert!(parsed.is_ok(), "{env}={value} is refused: {parsed:?}");
            }
        }
        for (key, _) in &lines {
            let known = *key == "RUST_LOG"
                || command
                    .get_arguments()
                    .any(|arg| arg.get_env().is_some_and(|e| e == *key));
            assert!(known, "{key} in the sample is not a setting of the server");
        }
    }

    #[test]
    fn config_file_is_found_in_either_flag_form() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            config_file_named(&args(&["x", "--config", "a.env"])),
            Some(PathBuf::from("a.env"))
        );
        assert_eq!(
            config_file_named(&args(&["x", "--config=b.env"])),
            Some(PathBuf::from("b.env"))
        );
    }
}
