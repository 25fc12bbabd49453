//! Company and platform settings: list, read, change, public reads.
//!
//! The catalogue ([`crate::settings`]) says what each key is: company or platform, its default,
//! its allowed values, whether it is public and whether it is a secret. This module adds who may
//! do what: company keys are changed by the company's admins, platform keys by the super user;
//! public keys (appearance and `allowSignup`) are read by anyone, signed in or not. Secrets
//! (payment provider keys) are write-only: stored sealed by the [`crate::ports::SecretCipher`]
//! port, and shown, to the super user only, as [`SECRET_MASK`] when set (empty when not); sending
//! the mask back leaves the stored secret as it is. [`secret`] opens one for the code that uses
//! it. Every change but a secret's appends `company-{id}-settings` ([`settings_event`]) to the
//! company's event log in the write's transaction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, Result};
use crate::events::Event;
use crate::identity::Actor;
use crate::ids::{CompanyId, TenantScope};
use crate::policy::{self, Action};
use crate::service::Ports;
use crate::settings::{self, Scope, SettingDef};

/// One setting and its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Setting {
    pub key: String,
    pub value: String,
}

/// What a secret that is set reads as; never its value.
pub const SECRET_MASK: &str = "********";

/// Every setting the actor may see (`GET /settings`): the company's keys with their defaults,
/// and for the super user the platform keys too (secrets included).
#[tracing::instrument(level = "debug", name = "settings::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<Setting>> {
    policy::authorize(actor, &Action::ViewCompanySettings(actor.company_id))?;
    let stored = ports.settings.company_settings(actor.scope()).await?;
    let mut all = settings::with_defaults(Scope::Company, &stored);
    if actor.is_super {
        let platform = ports.settings.platform_settings().await?;
        all.extend(settings::with_defaults(Scope::Platform, &platform));
    }
    Ok(all
        .into_iter()
        .map(|(key, value)| Setting {
            value: shown(&key, value),
            key,
        })
        .collect())
}

/// One setting (`GET /setting/{key}`, `GET /companySettingOne?column=key`).
///
/// Any user of a company reads its company keys and the platform's non-secret keys; secrets are
/// for the super user. Unknown keys give `ERR_NO_SETTING_FOUND`.
#[tracing::instrument(level = "debug", name = "settings::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn get(ports: &Ports, actor: &Actor, key: &str) -> Result<Setting> {
    let def = known(key)?;
    policy::authorize(actor, &Action::ReadSetting(actor.company_id, def))?;
    let value = current_value(ports, actor.scope(), def).await?;
    Ok(Setting {
        key: def.key.to_owned(),
        value: shown(def.key, value),
    })
}

/// The plain value of a secret platform setting (a payment provider key), for the code that
/// uses it; `None` when it is not set. Never for a browser.
#[tracing::instrument(level = "debug", name = "settings::secret", skip_all)]
pub async fn secret(ports: &Ports, key: &str) -> Result<Option<String>> {
    let def = known(key)?;
    if !def.secret {
        return Err(ErrorCode::ERR_NO_SETTING_FOUND.into());
    }
    let stored = ports.settings.platform_settings().await?;
    let value = value_of(def, &stored);
    if value.is_empty() {
        return Ok(None);
    }
    open_stored(ports, &value).map(Some)
}

/// Seals the secret platform settings still stored in plain text (written before secrets were
/// sealed). Hosts call it on start; it changes nothing the second time.
#[tracing::instrument(level = "debug", name = "settings::seal_stored_secrets", skip_all)]
pub async fn seal_stored_secrets(ports: &Ports) -> Result<usize> {
    let stored = ports.settings.platform_settings().await?;
    let mut sealed = 0;
    for (key, value) in &stored {
        if settings::is_secret(key) && !value.is_empty() && !ports.secrets.is_sealed(value) {
            let value = ports.secrets.seal(value)?;
            ports
                .settings
                .set_platform_setting(key, &value, None)
                .await?;
            sealed += 1;
        }
    }
    Ok(sealed)
}

/// A stored secret's plain text: sealed values are opened, values from before sealing are
/// taken as they are.
fn open_stored(ports: &Ports, stored: &str) -> Result<String> {
    if ports.secrets.is_sealed(stored) {
        ports.secrets.open(stored)
    } else {
        Ok(stored.to_owned())
    }
}

/// What a setting's value is stored as: a secret's (non-empty) value is sealed.
pub fn stored_form(ports: &Ports, def: &SettingDef, value: &str) -> Result<String> {
    if def.secret && !value.is_empty() {
        ports.secrets.seal(value)
    } else {
        Ok(value.to_owned())
    }
}

/// What a reader is shown of a setting's value: a secret's value never leaves the server
/// ([`SECRET_MASK`] when set, empty when not).
pub fn shown(key: &str, value: String) -> String {
    if !settings::is_secret(key) {
        value
    } else if value.is_empty() {
        String::new()
    } else {
        SECRET_MASK.to_owned()
    }
}

/// Changes one setting (`PUT /settings/{key}`, `PUT /companySettings`).
///
/// The policy's `UpdateSetting` decides: company keys for the company's admins, platform keys for
/// the super user. The value is checked by the catalogue, including the cross-field
/// rules (`ERR_INVALID_SETTING`, `ERR_SETTING_MESSAGE_REQUIRED`).
#[tracing::instrument(level = "debug", name = "settings::set", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn set(ports: &Ports, actor: &Actor, key: &str, value: &str) -> Result<Setting> {
    let Some(def) = settings::lookup(key) else {
        // The catalogue reports unknown keys with its own error.
        settings::validate_value(key, value)?;
        return Err(ErrorCode::ERR_INVALID_SETTING.into());
    };
    let scope = actor.scope();
    policy::authorize(actor, &Action::UpdateSetting(actor.company_id, def))?;
    let setting = Setting {
        key: def.key.to_owned(),
        value: shown(def.key, value.to_owned()),
    };
    // Secrets are not broadcast: the company's sockets include users who may not read them.
    let events = if def.secret {
        Vec::new()
    } else {
        vec![settings_event(&setting)]
    };
    match def.scope {
        Scope::Company => {
            let current = settings::to_map(&ports.settings.company_settings(scope).await?);
            settings::check_change(&current, def.key, value)?;
            ports
                .settings
                .set_company_setting(scope, def.key, value, &events)
                .await?;
        }
        // The mask a reader was shown, sent back: the secret stays as it is.
        Scope::Platform if def.secret && value == SECRET_MASK => {}
        Scope::Platform => {
            let current = settings::to_map(&ports.settings.platform_settings().await?);
            settings::check_change(&current, def.key, value)?;
            let stored = if def.secret && !value.is_empty() {
                ports.secrets.seal(value)?
            } else {
                value.to_owned()
            };
            // Announced to the acting super user's company.
            ports
                .settings
                .set_platform_setting(def.key, &stored, Some((scope, &events)))
                .await?;
        }
    }
    Ok(setting)
}

/// `company-{id}-settings` `{action: "update", setting}` for the whole company (never for a
/// secret: the company's sockets include users who may not read it).
pub fn settings_event(setting: &Setting) -> Event {
    Event::SettingUpdated {
        setting: setting.clone(),
    }
}

/// A public setting for anyone, signed in or not (`GET /public-settings/{key}`): only the
/// whitelisted appearance keys and `allowSignup`; anything else is `ERR_NOT_FOUND`.
#[tracing::instrument(level = "debug", name = "settings::public_get", skip_all)]
pub async fn public_get(ports: &Ports, key: &str) -> Result<Setting> {
    let def = settings::lookup(key)
        .filter(|def| def.public)
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let stored = ports.settings.platform_settings().await?;
    let value = value_of(def, &stored);
    Ok(Setting {
        key: def.key.to_owned(),
        value,
    })
}

/// Every company key of `company_id` with its value (`GET /companySettings/{companyId}`): for
/// the admins of that company and the super user. Another company's id gives
/// `ERR_NO_COMPANY_FOUND` to everyone else.
#[tracing::instrument(level = "debug", name = "settings::company_settings", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, company_id = company_id.0))]
pub async fn company_settings(
    ports: &Ports,
    actor: &Actor,
    company_id: CompanyId,
) -> Result<BTreeMap<String, String>> {
    let own = policy::can(actor, &Action::ViewCompanySettings(company_id));
    // The super user manages every company, so may read any company's settings.
    let platform = company_id != actor.company_id && policy::can(actor, &Action::ManageCompanies);
    if !own && !platform {
        return Err(if company_id == actor.company_id {
            ErrorCode::ERR_NO_PERMISSION.into()
        } else {
            ErrorCode::ERR_NO_COMPANY_FOUND.into()
        });
    }
    let scope = TenantScope::new(company_id);
    ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    let stored = ports.settings.company_settings(scope).await?;
    Ok(settings::with_defaults(Scope::Company, &stored)
        .into_iter()
        .collect())
}

fn known(key: &str) -> Result<&'static SettingDef> {
    settings::lookup(key).ok_or_else(|| ErrorCode::ERR_NO_SETTING_FOUND.into())
}

async fn current_value(ports: &Ports, scope: TenantScope, def: &SettingDef) -> Result<String> {
    let stored = match def.scope {
        Scope::Company => ports.settings.company_settings(scope).await?,
        Scope::Platform => ports.settings.platform_settings().await?,
    };
    Ok(value_of(def, &stored))
}

fn value_of(def: &SettingDef, stored: &[(String, String)]) -> String {
    stored
        .iter()
        .rev()
        .find(|(key, _)| key == def.key)
        .map_or_else(|| def.default.to_owned(), |(_, value)| value.clone())
}
