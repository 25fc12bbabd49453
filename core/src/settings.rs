//! The catalogue of platform and company settings with their defaults.
//!
//! Settings are key/value pairs. Company settings (spec 1 §1, spec 2 §3) switch the behaviour of
//! one company; platform settings (the user-creation and signup toggles, the payment provider keys
//! and the whitelabel appearance) belong to the super user. The store keeps only the values that
//! were set; [`with_defaults`] fills in the rest from [`CATALOGUE`], so every reader sees one value
//! per key.
//!
//! Every rule about a key lives here: its scope, default, allowed values, whether it may be read
//! without signing in ([`SettingDef::public`]) and whether it is a secret only the super user sees
//! ([`SettingDef::secret`]). [`check_change`] adds the cross-field rules of spec 2 §5: a toggle
//! that sends a message cannot be switched on while its message is empty, and the message cannot
//! be cleared while the toggle is on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};

/// Where a setting lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One value per company, changed by the company's admins.
    Company,
    /// One value for the whole platform, changed by the super user.
    Platform,
}

/// The values a setting accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRule {
    /// `"enabled"` or `"disabled"`.
    Toggle,
    /// Exactly one of the listed words.
    OneOf(&'static [&'static str]),
    /// Free text (possibly empty) of at most `max_chars` characters.
    Text {
        /// The longest value accepted, in characters.
        max_chars: usize,
    },
    /// A colour written `#RRGGBB` (hexadecimal digits, either case).
    Color,
    /// The stored name of an uploaded file (possibly empty): no path separators and no `..`.
    FileName,
    /// An IANA time zone name (`America/Sao_Paulo`, `Europe/Istanbul`).
    TimeZone,
}

/// One key of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingDef {
    /// The key as stored and sent on the wire.
    pub key: &'static str,
    /// Whether the key belongs to a company or to the platform.
    pub scope: Scope,
    /// The value used while none is stored.
    pub default: &'static str,
    /// The values the key accepts.
    pub rule: ValueRule,
    /// Readable without signing in (`GET /public-settings/{key}`).
    pub public: bool,
    /// A secret (payment provider key): never sent to anyone but the super user.
    pub secret: bool,
    /// What the key does, for the CLI and the API description.
    pub description: &'static str,
}

/// The value of an enabled toggle.
pub const ENABLED: &str = "enabled";
/// The value of a disabled toggle.
pub const DISABLED: &str = "disabled";

/// The longest custom message a setting accepts, in characters.
pub const MESSAGE_MAX_CHARS: usize = 4096;
/// The longest link a setting accepts, in characters.
pub const LINK_MAX_CHARS: usize = 2048;
/// The longest payment provider key accepted, in characters.
pub const SECRET_MAX_CHARS: usize = 1024;
/// The longest stored file name accepted, in characters.
pub const FILE_NAME_MAX_CHARS: usize = 255;
/// The longest application name accepted, in characters.
pub const APP_NAME_MAX_CHARS: usize = 50;

/// The default notice sent to a contact whose ticket moved to another queue; `{{queue}}` is
/// replaced with the queue's name when the message is sent.
pub const DEFAULT_TRANSFER_MESSAGE: &str =
    "Seu atendimento foi transferido para o setor {{queue}}. Aguarde, em breve você será atendido.";

/// The company setting holding its time zone.
pub const TIME_ZONE_KEY: &str = "timezone";
/// The time zone of a company that has not chosen one.
pub const DEFAULT_TIME_ZONE_NAME: &str = "America/Sao_Paulo";

/// The application name used when none is set.
pub const DEFAULT_APP_NAME: &str = "Chatflow";

const SCHEDULE_TYPES: &[&str] = &["disabled", "queue", "company", "connection"];
const CHATBOT_TYPES: &[&str] = &["text"];

const fn toggle(key: &'static str, default: &'static str, description: &'static str) -> SettingDef {
    SettingDef {
        key,
        scope: Scope::Company,
        default,
        rule: ValueRule::Toggle,
        public: false,
        secret: false,
        description,
    }
}

const fn message(
    key: &'static str,
    default: &'static str,
    description: &'static str,
) -> SettingDef {
    SettingDef {
        key,
        scope: Scope::Company,
        default,
        rule: ValueRule::Text {
            max_chars: MESSAGE_MAX_CHARS,
        },
        public: false,
        secret: false,
        description,
    }
}

const fn platform(
    key: &'static str,
    default: &'static str,
    rule: ValueRule,
    public: bool,
    secret: bool,
    description: &'static str,
) -> SettingDef {
    SettingDef {
        key,
        scope: Scope::Platform,
        default,
        rule,
        public,
        secret,
        description,
    }
}

/// Every setting, company keys first, in the order settings are listed.
pub const CATALOGUE: &[SettingDef] = &[
    toggle(
        "userRating",
        DISABLED,
        "Ask contacts to rate the attendance when a ticket closes.",
    ),
    SettingDef {
        key: "scheduleType",
        scope: Scope::Company,
        default: "disabled",
        rule: ValueRule::OneOf(SCHEDULE_TYPES),
        public: false,
        secret: false,
        description: "Where working hours are kept: disabled, queue, company or connection.",
    },
    SettingDef {
        key: TIME_ZONE_KEY,
        scope: Scope::Company,
        default: DEFAULT_TIME_ZONE_NAME,
        rule: ValueRule::TimeZone,
        public: false,
        secret: false,
        description: "The company's time zone (IANA name): working hours and dates are read in it.",
    },
    SettingDef {
        key: "chatBotType",
        scope: Scope::Company,
        default: "text",
        rule: ValueRule::OneOf(CHATBOT_TYPES),
        public: false,
        secret: false,
        description: "How chatbot menus are presented to contacts.",
    },
    toggle(
        "acceptCallWhatsapp",
        ENABLED,
        "Accept voice calls; when disabled calls get a reply.",
    ),
    toggle(
        "userRandom",
        DISABLED,
        "Hand new tickets to a random attendant of the queue.",
    ),
    toggle(
        "sendGreetingMessageOneQueues",
        ENABLED,
        "Send the queue greeting when the connection has a single queue.",
    ),
    toggle(
        "sendSignMessage",
        ENABLED,
        "Sign outgoing messages with the attendant's name.",
    ),
    toggle(
        "sendFarewellWaitingTicket",
        DISABLED,
        "Send the farewell message when closing a ticket that is still waiting.",
    ),
    toggle(
        "sendGreetingAccepted",
        DISABLED,
        "Send greetingAcceptedMessage when an attendant accepts a ticket.",
    ),
    toggle(
        "sendQueuePosition",
        DISABLED,
        "Tell waiting contacts their position in the queue (sendQueuePositionMessage).",
    ),
    toggle(
        "acceptAudioMessageContact",
        ENABLED,
        "Accept audio messages from contacts.",
    ),
    toggle(
        "enableLGPD",
        DISABLED,
        "Turn on the LGPD (privacy) handling.",
    ),
    toggle(
        "requiredTag",
        DISABLED,
        "Closing a ticket needs at least one contact tag.",
    ),
    toggle(
        "lgpdDeleteMessage",
        DISABLED,
        "Blank messages deleted by the contact (LGPD).",
    ),
    toggle(
        "lgpdHideNumber",
        DISABLED,
        "Mask contact numbers for plain users (LGPD).",
    ),
    toggle(
        "lgpdConsent",
        DISABLED,
        "Ask new contacts for consent before attendance (LGPD).",
    ),
    message(
        "lgpdMessage",
        "",
        "The consent request sent to contacts (LGPD).",
    ),
    SettingDef {
        key: "lgpdLink",
        scope: Scope::Company,
        default: "",
        rule: ValueRule::Text {
            max_chars: LINK_MAX_CHARS,
        },
        public: false,
        secret: false,
        description: "A link to the company's privacy policy (LGPD).",
    },
    toggle(
        "sendMsgTransfTicket",
        DISABLED,
        "Send transferMessage to the contact when the ticket moves to another queue.",
    ),
    toggle(
        "DirectTicketsToWallets",
        DISABLED,
        "Send a contact's tickets to their wallet owner.",
    ),
    toggle(
        "closeTicketOnTransfer",
        DISABLED,
        "Close the original ticket when it is transferred.",
    ),
    message(
        "transferMessage",
        DEFAULT_TRANSFER_MESSAGE,
        "The transfer notice; {{queue}} is replaced with the queue's name.",
    ),
    message(
        "greetingAcceptedMessage",
        "",
        "The greeting sent when a ticket is accepted.",
    ),
    message(
        "AcceptCallWhatsappMessage",
        "",
        "The reply to voice calls when calls are refused.",
    ),
    message(
        "sendQueuePositionMessage",
        "",
        "The queue position notice sent to waiting contacts.",
    ),
    toggle(
        "showNotificationPending",
        DISABLED,
        "Notify attendants about pending tickets, not only their own.",
    ),
    toggle(
        "campaignsEnabled",
        ENABLED,
        "Campaigns are available to the company.",
    ),
    platform(
        "userCreation",
        ENABLED,
        ValueRule::Toggle,
        false,
        false,
        "New users may be created through signup.",
    ),
    platform(
        "allowSignup",
        ENABLED,
        ValueRule::Toggle,
        true,
        false,
        "The public signup page is open.",
    ),
    platform(
        "keymp",
        "",
        ValueRule::Text {
            max_chars: SECRET_MAX_CHARS,
        },
        false,
        true,
        "The card and wallet payment provider's access key.",
    ),
    platform(
        "asaas",
        "",
        ValueRule::Text {
            max_chars: SECRET_MAX_CHARS,
        },
        false,
        true,
        "The Asaas payment provider's access key.",
    ),
    platform(
        "efi",
        "",
        ValueRule::Text {
            max_chars: SECRET_MAX_CHARS,
        },
        false,
        true,
        "The Efí payment provider's access key.",
    ),
    platform(
        "primaryColorLight",
        "#0000FF",
        ValueRule::Color,
        true,
        false,
        "The primary colour of the light theme.",
    ),
    platform(
        "primaryColorDark",
        "#39ACE7",
        ValueRule::Color,
        true,
        false,
        "The primary colour of the dark theme.",
    ),
    platform(
        "appLogoLight",
        "",
        ValueRule::FileName,
        true,
        false,
        "The logo of the light theme.",
    ),
    platform(
        "appLogoDark",
        "",
        ValueRule::FileName,
        true,
        false,
        "The logo of the dark theme.",
    ),
    platform(
        "appLogoFavicon",
        "",
        ValueRule::FileName,
        true,
        false,
        "The browser favicon.",
    ),
    platform(
        "appName",
        DEFAULT_APP_NAME,
        ValueRule::Text {
            max_chars: APP_NAME_MAX_CHARS,
        },
        true,
        false,
        "The product name shown to users; the default is used when empty.",
    ),
];

/// The keys anyone may read without signing in (`GET /public-settings/{key}`).
pub const PUBLIC_KEYS: &[&str] = &[
    "primaryColorLight",
    "primaryColorDark",
    "appName",
    "appLogoLight",
    "appLogoDark",
    "appLogoFavicon",
    "allowSignup",
];

/// The catalogue entry of `key`, or `None` for an unknown key. Keys are case-sensitive.
pub fn lookup(key: &str) -> Option<&'static SettingDef> {
    CATALOGUE.iter().find(|def| def.key == key)
}

/// True when `key` may be read without signing in.
pub fn is_public(key: &str) -> bool {
    lookup(key).is_some_and(|def| def.public)
}

/// True when `key` is a secret that only the super user may read.
pub fn is_secret(key: &str) -> bool {
    lookup(key).is_some_and(|def| def.secret)
}

fn invalid(key: &str, code: FieldCode, detail: String) -> Error {
    Error {
        code: ErrorCode::ERR_INVALID_SETTING,
        detail: Some(detail),
        fields: vec![FieldError::new(key, code)],
    }
}

fn is_color(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() == 7 && bytes[0] == b'#' && bytes[1..].iter().all(u8::is_ascii_hexdigit)
}

fn is_file_name(value: &str) -> bool {
    !value.contains(['/', '\\', '\0']) && !value.contains("..")
}

/// Checks that `value` is acceptable for `key`.
///
/// Fails with `ERR_INVALID_SETTING` for an unknown key or a value outside the key's rule; the
/// error names the key as its field.
pub fn validate_value(key: &str, value: &str) -> Result<()> {
    let Some(def) = lookup(key) else {
        return Err(Error::with_detail(
            ErrorCode::ERR_INVALID_SETTING,
            format!("unknown setting {key}"),
        ));
    };
    match def.rule {
        ValueRule::Toggle => {
            if value != ENABLED && value != DISABLED {
                return Err(invalid(
                    key,
                    FieldCode::InvalidFormat,
                    format!("{key} must be enabled or disabled"),
                ));
            }
        }
        ValueRule::OneOf(words) => {
            if !words.contains(&value) {
                return Err(invalid(
                    key,
                    FieldCode::InvalidFormat,
                    format!("{key} must be one of {}", words.join(", ")),
                ));
            }
        }
        ValueRule::Text { max_chars } => {
            if value.chars().count() > max_chars {
                return Err(invalid(
                    key,
                    FieldCode::TooLong,
                    format!("{key} must have at most {max_chars} characters"),
                ));
            }
        }
        ValueRule::Color => {
            if !is_color(value) {
                return Err(invalid(
                    key,
                    FieldCode::InvalidFormat,
                    format!("{key} must be a colour written #RRGGBB"),
                ));
            }
        }
        ValueRule::TimeZone => {
            if crate::routing::parse_time_zone(value).is_err() {
                return Err(invalid(
                    key,
                    FieldCode::InvalidFormat,
                    format!("{key} must be an IANA time zone name"),
                ));
            }
        }
        ValueRule::FileName => {
            if value.chars().count() > FILE_NAME_MAX_CHARS {
                return Err(invalid(
                    key,
                    FieldCode::TooLong,
                    format!("{key} must have at most {FILE_NAME_MAX_CHARS} characters"),
                ));
            }
            if !is_file_name(value) {
                return Err(invalid(
                    key,
                    FieldCode::InvalidFormat,
                    format!("{key} must be a stored file name"),
                ));
            }
        }
    }
    Ok(())
}

/// Stored settings by key, as [`check_change`] and [`SettingsView`] read them.
pub type SettingsMap = BTreeMap<String, String>;

/// Builds a [`SettingsMap`] from stored `(key, value)` pairs (as the settings repository returns
/// them). A later pair for the same key wins.
pub fn to_map(stored: &[(String, String)]) -> SettingsMap {
    stored.iter().cloned().collect()
}

/// Every key of `scope` with its value: the stored one when there is one, else the default.
///
/// The result follows the catalogue's order; stored keys the catalogue does not know are dropped.
pub fn with_defaults(scope: Scope, stored: &[(String, String)]) -> Vec<(String, String)> {
    CATALOGUE
        .iter()
        .filter(|def| def.scope == scope)
        .map(|def| {
            let value = stored
                .iter()
                .rev()
                .find(|(key, _)| key == def.key)
                .map_or(def.default, |(_, value)| value.as_str());
            (def.key.to_owned(), value.to_owned())
        })
        .collect()
}

/// A toggle that sends a message, and the message it needs (spec 2 §5).
struct MessageRule {
    toggle: &'static str,
    /// The toggle value that makes the message necessary.
    needs_message_when: &'static str,
    message: &'static str,
}

const MESSAGE_RULES: &[MessageRule] = &[
    MessageRule {
        toggle: "sendMsgTransfTicket",
        needs_message_when: ENABLED,
        message: "transferMessage",
    },
    MessageRule {
        toggle: "sendGreetingAccepted",
        needs_message_when: ENABLED,
        message: "greetingAcceptedMessage",
    },
    MessageRule {
        toggle: "sendQueuePosition",
        needs_message_when: ENABLED,
        message: "sendQueuePositionMessage",
    },
    MessageRule {
        toggle: "acceptCallWhatsapp",
        needs_message_when: DISABLED,
        message: "AcceptCallWhatsappMessage",
    },
];

/// What to do with a call a contact is making to a connection's phone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallAnswer {
    /// The company takes calls (`acceptCallWhatsapp` enabled, the default): the phone rings.
    Ring,
    /// The company does not take calls: decline it, and answer with `reply` when there is one
    /// (`AcceptCallWhatsappMessage`).
    Decline { reply: Option<String> },
}

/// The company's answer to an incoming call, from its stored settings.
pub fn incoming_call(stored: &SettingsMap) -> CallAnswer {
    let view = SettingsView::new(stored);
    if view.get("acceptCallWhatsapp") != DISABLED {
        return CallAnswer::Ring;
    }
    let reply = view.get("AcceptCallWhatsappMessage").trim().to_owned();
    CallAnswer::Decline {
        reply: (!reply.is_empty()).then_some(reply),
    }
}

/// Checks a change of `key` to `value` against the key's rule and the settings it depends on.
///
/// `current` holds the stored values of the same company (missing keys count as their
/// defaults). Fails with `ERR_INVALID_SETTING` when [`validate_value`] does, and with
/// `ERR_SETTING_MESSAGE_REQUIRED` when the change would leave a message-sending toggle on without
/// its message: switching the toggle on while the message is empty, or clearing the message while
/// the toggle is on. The error's field is the message key.
pub fn check_change(current: &SettingsMap, key: &str, value: &str) -> Result<()> {
    validate_value(key, value)?;
    let view = SettingsView::new(current);
    for rule in MESSAGE_RULES {
        let needs_message = if key == rule.toggle {
            value == rule.needs_message_when && view.get(rule.message).trim().is_empty()
        } else if key == rule.message {
            value.trim().is_empty() && view.get(rule.toggle) == rule.needs_message_when
        } else {
            false
        };
        if needs_message {
            return Err(Error {
                code: ErrorCode::ERR_SETTING_MESSAGE_REQUIRED,
                detail: Some(format!(
                    "{} needs a message in {} while {} is {}",
                    rule.toggle, rule.message, rule.toggle, rule.needs_message_when
                )),
                fields: vec![FieldError::new(rule.message, FieldCode::Required)],
            });
        }
    }
    Ok(())
}

/// Where working hours are kept (setting `scheduleType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ScheduleType {
    /// No working hours: attendance at any time.
    Disabled,
    /// Each queue has its own hours.
    Queue,
    /// The company has one set of hours.
    Company,
    /// Each connection has its own hours.
    Connection,
}

/// Typed reads of a company's or the platform's settings, with the catalogue's defaults.
#[derive(Debug, Clone, Copy)]
pub struct SettingsView<'a> {
    stored: &'a SettingsMap,
}

impl<'a> SettingsView<'a> {
    /// A view over stored values.
    pub fn new(stored: &'a SettingsMap) -> Self {
        Self { stored }
    }

    /// The value of `key`: the stored one, else the catalogue's default, else (unknown key) `""`.
    pub fn get(&self, key: &str) -> &'a str {
        match self.stored.get(key) {
            Some(value) => value.as_str(),
            None => lookup(key).map_or("", |def| def.default),
        }
    }

    /// True when the toggle `key` is `"enabled"`.
    pub fn is_enabled(&self, key: &str) -> bool {
        self.get(key) == ENABLED
    }

    /// The message of `key` when it holds more than white space.
    pub fn message(&self, key: &str) -> Option<&'a str> {
        let value = self.get(key);
        (!value.trim().is_empty()).then_some(value)
    }

    /// Where working hours are kept; an unreadable value counts as disabled.
    pub fn schedule_type(&self) -> ScheduleType {
        match self.get("scheduleType") {
            "queue" => ScheduleType::Queue,
            "company" => ScheduleType::Company,
            "connection" => ScheduleType::Connection,
            _ => ScheduleType::Disabled,
        }
    }

    /// The company's time zone (setting `timezone`); `America/Sao_Paulo` when it is missing or
    /// not a zone name.
    pub fn time_zone(&self) -> chrono_tz::Tz {
        crate::routing::parse_time_zone(self.get(TIME_ZONE_KEY))
            .unwrap_or(crate::routing::hours::DEFAULT_TIME_ZONE)
    }
}

/// True when the toggle `key` is enabled in `map` (its default when not stored).
pub fn is_enabled(map: &SettingsMap, key: &str) -> bool {
    SettingsView::new(map).is_enabled(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> SettingsMap {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn keys_are_unique_and_defaults_are_valid() {
        for (i, def) in CATALOGUE.iter().enumerate() {
            assert!(
                CATALOGUE[i + 1..].iter().all(|other| other.key != def.key),
                "duplicate key {}",
                def.key
            );
            validate_value(def.key, def.default)
                .unwrap_or_else(|e| panic!("default of {} is invalid: {e}", def.key));
        }
    }

    #[test]
    fn public_flags_match_the_whitelist() {
        let public: Vec<&str> = CATALOGUE
            .iter()
            .filter(|def| def.public)
            .map(|def| def.key)
            .collect();
        let mut expected = PUBLIC_KEYS.to_vec();
        expected.sort_unstable();
        let mut got = public.clone();
        got.sort_unstable();
        assert_eq!(got, expected);
        assert!(is_public("appName"));
        assert!(!is_public("keymp"));
        assert!(!is_public("userCreation"));
        assert!(!is_public("nope"));
    }

    #[test]
    fn secrets_are_the_payment_keys_and_platform_scoped() {
        let secrets: Vec<&str> = CATALOGUE
            .iter()
            .filter(|def| def.secret)
            .map(|def| def.key)
            .collect();
        assert_eq!(secrets, ["keymp", "asaas", "efi"]);
        for key in secrets {
            assert!(is_secret(key));
            assert_eq!(lookup(key).map(|d| d.scope), Some(Scope::Platform));
        }
        assert!(CATALOGUE.iter().all(|def| !(def.secret && def.public)));
    }

    #[test]
    fn platform_keys_are_exactly_the_super_users() {
        let platform: Vec<&str> = CATALOGUE
            .iter()
            .filter(|def| def.scope == Scope::Platform)
            .map(|def| def.key)
            .collect();
        assert_eq!(
            platform,
            [
                "userCreation",
                "allowSignup",
                "keymp",
                "asaas",
                "efi",
                "primaryColorLight",
                "primaryColorDark",
                "appLogoLight",
                "appLogoDark",
                "appLogoFavicon",
                "appName"
            ]
        );
    }

    #[test]
    fn chosen_defaults() {
        let defaults = with_defaults(Scope::Company, &[]);
        let get = |key: &str| {
            defaults
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{key} missing"))
        };
        for key in [
            "acceptCallWhatsapp",
            "sendGreetingMessageOneQueues",
            "sendSignMessage",
            "acceptAudioMessageContact",
            "campaignsEnabled",
        ] {
            assert_eq!(get(key), ENABLED, "{key}");
        }
        for key in [
            "userRating",
            "requiredTag",
            "sendGreetingAccepted",
            "enableLGPD",
        ] {
            assert_eq!(get(key), DISABLED, "{key}");
        }
        assert_eq!(get("scheduleType"), "disabled");
        assert_eq!(get("chatBotType"), "text");
        assert!(get("transferMessage").contains("{{queue}}"));
        assert_eq!(get("greetingAcceptedMessage"), "");

        let platform = with_defaults(Scope::Platform, &[]);
        let pget = |key: &str| {
            platform
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(pget("userCreation"), ENABLED);
        assert_eq!(pget("allowSignup"), ENABLED);
        assert_eq!(pget("primaryColorLight"), "#0000FF");
        assert_eq!(pget("primaryColorDark"), "#39ACE7");
        assert_eq!(pget("appName"), "Chatflow");
    }

    #[test]
    fn with_defaults_keeps_stored_values_in_catalogue_order() {
        let stored = vec![
            ("requiredTag".to_owned(), ENABLED.to_owned()),
            ("somethingElse".to_owned(), "x".to_owned()),
            ("userRating".to_owned(), ENABLED.to_owned()),
            ("appName".to_owned(), "Ours".to_owned()),
        ];
        let company = with_defaults(Scope::Company, &stored);
        assert_eq!(company[0], ("userRating".to_owned(), ENABLED.to_owned()));
        assert!(company.contains(&("requiredTag".to_owned(), ENABLED.to_owned())));
        assert!(
            company
                .iter()
                .all(|(k, _)| k != "somethingElse" && k != "appName")
        );
        let expected: Vec<&str> = CATALOGUE
            .iter()
            .filter(|d| d.scope == Scope::Company)
            .map(|d| d.key)
            .collect();
        let got: Vec<&str> = company.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(got, expected);
        let platform = with_defaults(Scope::Platform, &stored);
        assert!(platform.contains(&("appName".to_owned(), "Ours".to_owned())));
    }

    #[test]
    fn value_rules() {
        assert!(validate_value("requiredTag", "enabled").is_ok());
        assert!(validate_value("requiredTag", "disabled").is_ok());
        for bad in ["Enabled", "true", "", "enable"] {
            let err = validate_value("requiredTag", bad).expect_err("toggle takes two words");
            assert_eq!(err.code, ErrorCode::ERR_INVALID_SETTING);
            assert_eq!(
                err.fields,
                vec![FieldError::new("requiredTag", FieldCode::InvalidFormat)]
            );
        }
        for ok in ["disabled", "queue", "company", "connection"] {
            assert!(validate_value("scheduleType", ok).is_ok(), "{ok}");
        }
        assert!(validate_value("scheduleType", "weekly").is_err());
        assert!(validate_value("chatBotType", "list").is_err());

        assert!(validate_value("primaryColorLight", "#a1B2c3").is_ok());
        for bad in ["#fff", "0000FF", "#0000FG", "#0000FF0", ""] {
            assert!(validate_value("primaryColorLight", bad).is_err(), "{bad}");
        }

        assert!(validate_value("appLogoLight", "").is_ok());
        assert!(validate_value("appLogoLight", "logo-light.png").is_ok());
        for bad in ["../etc/passwd", "a/b.png", "a\\b.png"] {
            assert!(validate_value("appLogoLight", bad).is_err(), "{bad}");
        }

        assert!(validate_value("appName", &"x".repeat(APP_NAME_MAX_CHARS)).is_ok());
        let err =
            validate_value("appName", &"x".repeat(APP_NAME_MAX_CHARS + 1)).expect_err("too long");
        assert_eq!(
            err.fields,
            vec![FieldError::new("appName", FieldCode::TooLong)]
        );
        // Characters, not bytes, are counted.
        assert!(validate_value("appName", &"é".repeat(APP_NAME_MAX_CHARS)).is_ok());

        let err = validate_value("noSuchKey", "enabled").expect_err("unknown key");
        assert_eq!(err.code, ErrorCode::ERR_INVALID_SETTING);
        assert!(
            validate_value("requiredtag", "enabled").is_err(),
            "keys are case-sensitive"
        );
    }

    #[test]
    fn enabling_a_toggle_needs_its_message() {
        let empty = SettingsMap::new();
        for (toggle, on, message) in [
            ("sendGreetingAccepted", ENABLED, "greetingAcceptedMessage"),
            ("sendQueuePosition", ENABLED, "sendQueuePositionMessage"),
            ("acceptCallWhatsapp", DISABLED, "AcceptCallWhatsappMessage"),
        ] {
            let err = check_change(&empty, toggle, on).expect_err("message missing");
            assert_eq!(
                err.code,
                ErrorCode::ERR_SETTING_MESSAGE_REQUIRED,
                "{toggle}"
            );
            assert_eq!(
                err.fields,
                vec![FieldError::new(message, FieldCode::Required)]
            );

            let blank = map(&[(message, "   ")]);
            assert!(
                check_change(&blank, toggle, on).is_err(),
                "white space is not a message"
            );

            let with_message = map(&[(message, "Olá!")]);
            assert!(check_change(&with_message, toggle, on).is_ok(), "{toggle}");
        }
        // The transfer message has a default, so enabling works on a fresh company...
        assert!(check_change(&empty, "sendMsgTransfTicket", ENABLED).is_ok());
        // ...but not once the message was cleared.
        let cleared = map(&[("transferMessage", "")]);
        let err = check_change(&cleared, "sendMsgTransfTicket", ENABLED).expect_err("cleared");
        assert_eq!(err.code, ErrorCode::ERR_SETTING_MESSAGE_REQUIRED);
        // Switching the toggle the other way never needs a message.
        assert!(check_change(&empty, "sendGreetingAccepted", DISABLED).is_ok());
        assert!(check_change(&empty, "acceptCallWhatsapp", ENABLED).is_ok());
    }

    #[test]
    fn clearing_a_message_while_its_toggle_is_on_is_refused() {
        let on = map(&[
            ("sendGreetingAccepted", ENABLED),
            ("greetingAcceptedMessage", "Oi"),
        ]);
        let err = check_change(&on, "greetingAcceptedMessage", " ").expect_err("toggle is on");
        assert_eq!(err.code, ErrorCode::ERR_SETTING_MESSAGE_REQUIRED);
        assert!(check_change(&on, "greetingAcceptedMessage", "Bom dia").is_ok());

        let off = map(&[("greetingAcceptedMessage", "Oi")]);
        assert!(check_change(&off, "greetingAcceptedMessage", "").is_ok());

        assert_eq!(incoming_call(&SettingsMap::new()), CallAnswer::Ring);
        assert_eq!(
            incoming_call(&map(&[("acceptCallWhatsapp", DISABLED)])),
            CallAnswer::Decline { reply: None }
        );
        assert_eq!(
            incoming_call(&map(&[
                ("acceptCallWhatsapp", DISABLED),
                ("AcceptCallWhatsappMessage", " Não atendemos ligações. "),
            ])),
            CallAnswer::Decline {
                reply: Some("Não atendemos ligações.".into())
            }
        );
        let refusing_calls = map(&[("acceptCallWhatsapp", DISABLED)]);
        assert!(check_change(&refusing_calls, "AcceptCallWhatsappMessage", "").is_err());
        assert!(check_change(&SettingsMap::new(), "AcceptCallWhatsappMessage", "").is_ok());
        // The default toggle state counts: sendMsgTransfTicket is off by default.
        assert!(check_change(&SettingsMap::new(), "transferMessage", "").is_ok());
        let transfer_on = map(&[("sendMsgTransfTicket", ENABLED)]);
        assert!(check_change(&transfer_on, "transferMessage", "").is_err());
    }

    #[test]
    fn check_change_validates_the_value_first() {
        let err = check_change(&SettingsMap::new(), "requiredTag", "yes").expect_err("bad value");
        assert_eq!(err.code, ErrorCode::ERR_INVALID_SETTING);
        let err = check_change(&SettingsMap::new(), "unknown", "x").expect_err("unknown key");
        assert_eq!(err.code, ErrorCode::ERR_INVALID_SETTING);
    }

    #[test]
    fn view_reads_stored_values_then_defaults() {
        let stored = map(&[("requiredTag", ENABLED), ("scheduleType", "queue")]);
        let view = SettingsView::new(&stored);
        assert!(view.is_enabled("requiredTag"));
        assert!(view.is_enabled("sendSignMessage"), "default enabled");
        assert!(!view.is_enabled("userRating"), "default disabled");
        assert!(!view.is_enabled("unknown"));
        assert_eq!(view.get("unknown"), "");
        assert_eq!(view.schedule_type(), ScheduleType::Queue);
        assert_eq!(
            SettingsView::new(&SettingsMap::new()).schedule_type(),
            ScheduleType::Disabled
        );
        assert_eq!(view.message("greetingAcceptedMessage"), None);
        assert!(view.message("transferMessage").is_some());
        assert!(is_enabled(&stored, "requiredTag"));
        assert!(!is_enabled(&SettingsMap::new(), "requiredTag"));
    }

    #[test]
    fn the_time_zone_is_an_iana_name_with_a_default() {
        assert!(validate_value("timezone", "Europe/Istanbul").is_ok());
        assert!(validate_value("timezone", "America/Sao_Paulo").is_ok());
        let err = validate_value("timezone", "Mars/Olympus").expect_err("unknown zone");
        assert_eq!(err.code, ErrorCode::ERR_INVALID_SETTING);
        assert_eq!(err.fields[0].field, "timezone");
        assert!(validate_value("timezone", "").is_err());
        assert_eq!(
            SettingsView::new(&SettingsMap::new()).time_zone(),
            chrono_tz::America::Sao_Paulo
        );
        let istanbul = map(&[("timezone", "Europe/Istanbul")]);
        assert_eq!(
            SettingsView::new(&istanbul).time_zone(),
            chrono_tz::Europe::Istanbul
        );
        let broken = map(&[("timezone", "nowhere")]);
        assert_eq!(
            SettingsView::new(&broken).time_zone(),
            chrono_tz::America::Sao_Paulo
        );
    }

    #[test]
    fn to_map_keeps_the_last_value() {
        let stored = vec![
            ("a".to_owned(), "1".to_owned()),
            ("a".to_owned(), "2".to_owned()),
        ];
        assert_eq!(to_map(&stored).get("a").map(String::as_str), Some("2"));
    }
}
