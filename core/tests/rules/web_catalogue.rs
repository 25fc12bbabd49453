//! The web app keeps its own list of error codes and capability names (it cannot import Rust).
//! These tests read its sources and fail when the two drift apart, so a new code added here is
//! translated there in every language.

use std::path::PathBuf;

use chatflow_core::ErrorCode;
use chatflow_core::policy::CAPABILITIES;

fn web_file(path: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../web")
        .join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()))
}

#[test]
fn the_web_app_knows_every_error_code() {
    let list = web_file("src/lib/api/errors.ts");
    for code in ErrorCode::ALL {
        assert!(
            list.contains(&format!("'{}'", code.as_str())),
            "web/src/lib/api/errors.ts lacks {code}"
        );
    }
}

#[test]
fn every_language_translates_every_error_code() {
    for language in ["pt", "en", "es", "tr"] {
        let catalogue = web_file(&format!("src/lib/i18n/locales/{language}.ts"));
        for code in ErrorCode::ALL {
            assert!(
                catalogue.contains(&format!("{}:", code.as_str())),
                "the {language} catalogue does not translate {code}"
            );
        }
    }
}

#[test]
fn the_web_menu_gates_on_capabilities_the_policy_grants() {
    let routes = web_file("src/app/routes.tsx");
    // Every menu entry is declared as entry('<id>', ...) and gated on `menu:<id>` / `page:<id>`.
    let ids: Vec<&str> = routes
        .split("entry('")
        .skip(1)
        .filter_map(|rest| rest.split('\'').next())
        .collect();
    assert!(ids.len() >= 20, "menu entries found: {ids:?}");
    for id in ids {
        let capability = format!("menu:{id}");
        assert!(
            CAPABILITIES.contains(&capability.as_str()),
            "the web menu gates on {capability}, which the policy never grants"
        );
    }
}
