//! `chatflow-server`: configuration → database (connect, migrate, seed) → serve until SIGINT or
//! SIGTERM. Everything else lives in the library.

use chatflow_server::Config;
use chatflow_server::config::LogFormat;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::FmtSpan;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let config = match Config::load() {
        Ok(config) => config,
        Err(e) => {
            // Usage errors (and --help, --version) print clap's own text.
            if let Some(clap_error) = e.downcast_ref::<clap::Error>() {
                clap_error.exit();
            }
            eprintln!("chatflow-server: {e:#}");
            return std::process::ExitCode::from(2);
        }
    };
    init_logs(config.log_format, config.log_spans);
    tracing::debug!(?config, "configuration");

    let app = match chatflow_server::build(config).await {
        Ok(app) => app,
        Err(e) => {
            tracing::error!("cannot start: {e:#}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let report = app.seed_report();
    if let Some(password) = &report.generated_password {
        // Printed once, on the start that created the account; never logged.
        println!();
        println!("  ┌────────────────────────────────────────────────────────────┐");
        println!("  │ Chatflow super admin created (shown only this once)        │");
        println!("  │   e-mail:   {:<47}│", report.admin_email);
        println!("  │   password: {:<47}│", password);
        println!("  └────────────────────────────────────────────────────────────┘");
        println!();
    }
    match app.local_addr() {
        Ok(addr) => tracing::info!(%addr, "Chatflow listening on http://{addr}"),
        Err(e) => tracing::warn!("cannot read the listening address: {e}"),
    }
    if let Err(e) = app.serve(shutdown_signal()).await {
        tracing::error!("server error: {e}");
        return std::process::ExitCode::FAILURE;
    }
    std::process::ExitCode::SUCCESS
}

fn init_logs(format: LogFormat, spans: bool) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new("info,tower_http=info,socketioxide=warn,engineioxide=warn")
    });
    let span_events = if spans { FmtSpan::CLOSE } else { FmtSpan::NONE };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(span_events);
    match format {
        LogFormat::Json => builder.json().init(),
        LogFormat::Text => builder.init(),
    }
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!("cannot listen for Ctrl-C: {e}");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::warn!("cannot listen for SIGTERM: {e}");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
