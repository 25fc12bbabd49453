//! `cargo xtask types`: the TypeScript declarations of the types the web app shares with the core
//! (`chatflow_core`'s test-only module `typescript`), written to [`GENERATED_FILE`] by the core's
//! test `generated_typescript_is_current` run with `CHATFLOW_WRITE_TYPES=1` (the declarations are
//! derived in the core's own test build only; xtask does not link the core). Without that
//! variable the same test, which `cargo xtask test` runs, fails while the committed file differs.

use std::path::Path;

use crate::util::{Steps, cmd};

/// The generated file, from the repository root (the core names the same path).
pub const GENERATED_FILE: &str = "web/src/lib/core-types/generated.ts";

/// Generates the declarations and writes them when they changed.
pub fn write(root: &Path, steps: &mut Steps) -> anyhow::Result<()> {
    steps.run(
        &format!("types: the core's TypeScript declarations ({GENERATED_FILE})"),
        cmd(
            "cargo",
            &[
                "test",
                "--quiet",
                "--package",
                "chatflow-core",
                "--lib",
                "typescript::tests::generated_typescript_is_current",
                "--",
                "--exact",
                "--nocapture",
            ],
        )
        .env("CHATFLOW_WRITE_TYPES", "1")
        .current_dir(root),
    )
}
