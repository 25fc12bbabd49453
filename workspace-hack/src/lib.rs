//! No code: this crate's dependencies ask for the union of the features the workspace's members
//! turn on in third-party crates, so every build (the tests, the server alone, xtask, the
//! first-run check) compiles each of those crates once. `cargo hakari generate` writes its
//! `Cargo.toml` from `.config/hakari.toml`; `cargo xtask test` fails while it is stale.
