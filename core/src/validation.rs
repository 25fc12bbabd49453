//! Validation rules of spec 1 §5 and spec 2 §5, and password strength.
//!
//! Each form has one function returning `Ok(())` or an `ERR_VALIDATION` [`Error`] that lists every
//! failing field under its wire name with a [`FieldCode`] the web app translates ("Too Short!",
//! "Required", "Invalid email"...). Lengths count characters, not bytes, after trimming white
//! space at both ends. The same functions run in the server and, compiled to WASM, in the browser:
//! the web app asks [`check_form`] (one entry point over every form's values) and
//! [`password_strength`] through `web/wasm`, and writes none of these rules again.
//!
//! The settings' cross-field rules (a toggle that sends a message needs the message) live with
//! the settings catalogue: [`crate::settings::check_change`].

use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldCode, FieldError, Result};

/// Shortest user, contact, signup, queue and connection name.
pub const NAME_MIN_CHARS: usize = 2;
/// Longest user, contact, signup, queue and connection name.
pub const NAME_MAX_CHARS: usize = 50;
/// Shortest password.
pub const PASSWORD_MIN_CHARS: usize = 5;
/// Longest password.
pub const PASSWORD_MAX_CHARS: usize = 50;
/// Longest e-mail address (RFC 5321).
pub const EMAIL_MAX_CHARS: usize = 254;
/// Fewest digits of a contact number.
pub const CONTACT_NUMBER_MIN_DIGITS: usize = 8;
/// Most digits of a contact number.
pub const CONTACT_NUMBER_MAX_DIGITS: usize = 50;
/// Fewest digits of a signup phone, mask removed: area code and a landline.
pub const PHONE_MIN_DIGITS: usize = 10;
/// Most digits of a signup phone, mask removed: area code and a mobile.
pub const PHONE_MAX_DIGITS: usize = 11;
/// Longest company name.
pub const COMPANY_NAME_MAX_CHARS: usize = 255;
/// Shortest ticket note.
pub const NOTE_MIN_CHARS: usize = 2;
/// Longest ticket note, in characters (as a message's text).
pub const NOTE_MAX_CHARS: usize = 4096;
/// Shortest tag name ("Tag muito curta!").
pub const TAG_MIN_CHARS: usize = 3;
/// Longest tag name.
pub const TAG_MAX_CHARS: usize = 255;
/// Shortest queue colour.
pub const QUEUE_COLOR_MIN_CHARS: usize = 3;
/// Longest queue colour.
pub const QUEUE_COLOR_MAX_CHARS: usize = 9;
/// Default start of a user's working day.
pub const DEFAULT_START_WORK: &str = "00:00";
/// Default end of a user's working day.
pub const DEFAULT_END_WORK: &str = "23:59";
/// Narrowest tickets panel, in pixels.
pub const TICKETS_PANEL_MIN_WIDTH: i64 = 404;
/// Widest tickets panel, in pixels.
pub const TICKETS_PANEL_MAX_WIDTH: i64 = 700;
/// Default tickets panel width, in pixels.
pub const TICKETS_PANEL_DEFAULT_WIDTH: i64 = 550;

/// Collects field errors and turns them into one validation error.
#[derive(Debug, Default)]
struct Fields(Vec<FieldError>);

impl Fields {
    fn push(&mut self, field: &str, code: FieldCode) {
        self.0.push(FieldError::new(field, code));
    }

    /// A required text between `min` and `max` characters after trimming.
    fn text(&mut self, field: &str, value: &str, min: usize, max: usize) {
        if let Some(code) = text_problem(value, min, max) {
            self.push(field, code);
        }
    }

    /// A required, valid e-mail address.
    fn email(&mut self, field: &str, value: &str) {
        let value = value.trim();
        if value.is_empty() {
            self.push(field, FieldCode::Required);
        } else if !is_valid_email(value) {
            self.push(field, FieldCode::InvalidEmail);
        }
    }

    /// A password of 5 to 50 characters (not trimmed: spaces count).
    fn password(&mut self, field: &str, value: &str) {
        let len = value.chars().count();
        if len == 0 {
            self.push(field, FieldCode::Required);
        } else if len < PASSWORD_MIN_CHARS {
            self.push(field, FieldCode::TooShort);
        } else if len > PASSWORD_MAX_CHARS {
            self.push(field, FieldCode::TooLong);
        }
    }

    fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.0))
        }
    }
}

fn text_problem(value: &str, min: usize, max: usize) -> Option<FieldCode> {
    let len = value.trim().chars().count();
    if len == 0 {
        Some(FieldCode::Required)
    } else if len < min {
        Some(FieldCode::TooShort)
    } else if len > max {
        Some(FieldCode::TooLong)
    } else {
        None
    }
}

/// The form of an e-mail address used for storage and lookup: trimmed and lower-cased.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// True when `email` looks like a deliverable address: one `@`, a non-empty local part without
/// spaces, and a domain of dot-separated labels (letters, digits, hyphens; at least two labels,
/// none empty or starting or ending with a hyphen). Surrounding white space is ignored.
pub fn is_valid_email(email: &str) -> bool {
    let email = email.trim();
    if email.chars().count() > EMAIL_MAX_CHARS {
        return false;
    }
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local
            .chars()
            .all(|c| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        && labels.last().is_some_and(|tld| {
            tld.chars().count() >= 2 && !tld.chars().all(|c| c.is_ascii_digit())
        });
    local_ok && domain_ok
}

/// Minutes since midnight of a time written `HH:MM` (00:00 to 23:59), or `None`.
pub fn parse_hh_mm(value: &str) -> Option<u16> {
    let bytes = value.as_bytes();
    if bytes.len() != 5 || bytes[2] != b':' {
        return None;
    }
    let digit = |i: usize| {
        bytes[i]
            .is_ascii_digit()
            .then(|| u16::from(bytes[i] - b'0'))
    };
    let hours = digit(0)? * 10 + digit(1)?;
    let minutes = digit(3)? * 10 + digit(4)?;
    (hours < 24 && minutes < 60).then_some(hours * 60 + minutes)
}

/// Whether a form creates a record or updates one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormMode {
    /// A new record: every required field must be present.
    Create,
    /// A change: an empty password means "keep the current one".
    Update,
}

/// The fields of the user form (spec 1 §5, spec 2 §5) that have rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UserInput<'a> {
    /// `name`: required, 2 to 50 characters.
    pub name: &'a str,
    /// `email`: required and valid.
    pub email: &'a str,
    /// `password`: 5 to 50 characters; required on create; absent or empty keeps it on update.
    pub password: Option<&'a str>,
    /// `startWork`: `HH:MM` when given.
    pub start_work: Option<&'a str>,
    /// `endWork`: `HH:MM` when given, not before `startWork`.
    pub end_work: Option<&'a str>,
}

/// Checks the user form. Fields: `name`, `email`, `password`, `startWork`, `endWork`.
///
/// Work hours default to 00:00 and 23:59 when absent; an end before the start is reported on
/// `endWork` as [`FieldCode::OutOfRange`].
pub fn validate_user(input: &UserInput<'_>, mode: FormMode) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("name", input.name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    fields.email("email", input.email);
    match (mode, input.password) {
        (FormMode::Create, password) => fields.password("password", password.unwrap_or("")),
        (FormMode::Update, Some(password)) if !password.is_empty() => {
            fields.password("password", password);
        }
        (FormMode::Update, _) => {}
    }
    let start_text = input.start_work.unwrap_or(DEFAULT_START_WORK);
    let end_text = input.end_work.unwrap_or(DEFAULT_END_WORK);
    let start = parse_hh_mm(start_text);
    let end = parse_hh_mm(end_text);
    if start.is_none() {
        fields.push("startWork", FieldCode::InvalidFormat);
    }
    if end.is_none() {
        fields.push("endWork", FieldCode::InvalidFormat);
    }
    if let (Some(start), Some(end)) = (start, end)
        && start > end
    {
        fields.push("endWork", FieldCode::OutOfRange);
    }
    fields.finish()
}

/// The digits of a phone or contact number, dropping the usual formatting (`+`, spaces, `-`,
/// `(`, `)`, `.`). `None` when anything else is present.
pub fn number_digits(value: &str) -> Option<String> {
    let mut digits = String::with_capacity(value.len());
    for c in value.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else if !matches!(c, '+' | ' ' | '-' | '(' | ')' | '.') {
            return None;
        }
    }
    Some(digits)
}

fn digits_problem(value: &str, min: usize, max: usize) -> Option<FieldCode> {
    if value.trim().is_empty() {
        return Some(FieldCode::Required);
    }
    match number_digits(value) {
        None => Some(FieldCode::InvalidFormat),
        Some(digits) if digits.is_empty() => Some(FieldCode::InvalidFormat),
        Some(digits) if digits.len() < min => Some(FieldCode::TooShort),
        Some(digits) if digits.len() > max => Some(FieldCode::TooLong),
        Some(_) => None,
    }
}

/// The fields of the contact form that have rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContactInput<'a> {
    /// `name`: required, 2 to 50 characters.
    pub name: &'a str,
    /// `number`: required, 8 to 50 digits once formatting is removed.
    pub number: &'a str,
    /// `email`: valid when present and not blank.
    pub email: Option<&'a str>,
}

/// Checks the contact form. Fields: `name`, `number`, `email`.
pub fn validate_contact(input: &ContactInput<'_>) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("name", input.name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    if let Some(code) = digits_problem(
        input.number,
        CONTACT_NUMBER_MIN_DIGITS,
        CONTACT_NUMBER_MAX_DIGITS,
    ) {
        fields.push("number", code);
    }
    if let Some(email) = input.email
        && !email.trim().is_empty()
        && !is_valid_email(email)
    {
        fields.push("email", FieldCode::InvalidEmail);
    }
    fields.finish()
}

/// The fields of the signup form (spec 2 §2, §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignupInput<'a> {
    /// `companyName`: required, at most 255 characters.
    pub company_name: &'a str,
    /// `name`: the first user's name, required, 2 to 50 characters.
    pub name: &'a str,
    /// `email`: required and valid.
    pub email: &'a str,
    /// `password`: required, 5 to 50 characters.
    pub password: &'a str,
    /// `phone`: 10 or 11 digits once the mask `(99) 99999-9999` is removed.
    pub phone: &'a str,
    /// `planId`: required.
    pub plan_id: Option<i64>,
}

/// Checks the signup form. Fields: `companyName`, `name`, `email`, `password`, `phone`, `planId`.
pub fn validate_signup(input: &SignupInput<'_>) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("companyName", input.company_name, 1, COMPANY_NAME_MAX_CHARS);
    fields.text("name", input.name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    fields.email("email", input.email);
    fields.password("password", input.password);
    if let Some(code) = digits_problem(input.phone, PHONE_MIN_DIGITS, PHONE_MAX_DIGITS) {
        fields.push("phone", code);
    }
    match input.plan_id {
        None => fields.push("planId", FieldCode::Required),
        Some(id) if id <= 0 => fields.push("planId", FieldCode::OutOfRange),
        Some(_) => {}
    }
    fields.finish()
}

/// Checks a ticket note: field `note`, required, 2 to 4096 characters.
pub fn validate_ticket_note(note: &str) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("note", note, NOTE_MIN_CHARS, NOTE_MAX_CHARS);
    fields.finish()
}

/// Checks a tag name: field `name`, required, 3 to 255 characters.
pub fn validate_tag_name(name: &str) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("name", name, TAG_MIN_CHARS, TAG_MAX_CHARS);
    fields.finish()
}

/// Checks a queue: `name` 2 to 50 characters and `color` 3 to 9 characters, both required.
pub fn validate_queue(name: &str, color: &str) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("name", name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    fields.text("color", color, QUEUE_COLOR_MIN_CHARS, QUEUE_COLOR_MAX_CHARS);
    fields.finish()
}

/// Checks a connection's name: field `name`, required, 2 to 50 characters.
pub fn validate_connection_name(name: &str) -> Result<()> {
    let mut fields = Fields::default();
    fields.text("name", name, NAME_MIN_CHARS, NAME_MAX_CHARS);
    fields.finish()
}

/// Checks a tickets panel width: field `defaultTicketsManagerWidth`, 404 to 700 pixels.
pub fn validate_tickets_panel_width(width: i64) -> Result<()> {
    let mut fields = Fields::default();
    if !(TICKETS_PANEL_MIN_WIDTH..=TICKETS_PANEL_MAX_WIDTH).contains(&width) {
        fields.push("defaultTicketsManagerWidth", FieldCode::OutOfRange);
    }
    fields.finish()
}

/// Shortest password chosen through a password reset (spec 3 §5, §9).
pub const RESET_PASSWORD_MIN_CHARS: usize = 8;

/// Checks a password chosen through a password reset (spec 3 §5): field `newPassword`.
///
/// At least 8 characters with an upper-case letter, a lower-case letter and a digit ("Sua senha
/// precisa ter no mínimo 8 caracteres, sendo uma letra maiúscula, uma minúscula e um número."),
/// reported as [`FieldCode::InvalidFormat`]; an empty one is [`FieldCode::Required`] and one over
/// 50 characters, the longest any password may be, [`FieldCode::TooLong`]. Not trimmed: spaces
/// count.
pub fn validate_new_password(password: &str) -> Result<()> {
    let mut fields = Fields::default();
    let len = password.chars().count();
    if len == 0 {
        fields.push("newPassword", FieldCode::Required);
    } else if len > PASSWORD_MAX_CHARS {
        fields.push("newPassword", FieldCode::TooLong);
    } else if len < RESET_PASSWORD_MIN_CHARS
        || !password.chars().any(char::is_uppercase)
        || !password.chars().any(char::is_lowercase)
        || !password.chars().any(|c| c.is_ascii_digit())
    {
        fields.push("newPassword", FieldCode::InvalidFormat);
    }
    fields.finish()
}

/// How strong a password looks on the login page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum StrengthLabel {
    /// Score 0 to 2.
    Weak,
    /// Score 3 or 4.
    Medium,
    /// Score 5.
    Strong,
}

/// A password's strength score (0 to 5) and its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Strength {
    /// One point each for: at least 8 characters, an upper-case letter, a lower-case letter, a
    /// digit, a symbol.
    pub score: u8,
    /// The label of the score.
    pub label: StrengthLabel,
}

/// The strength of `password` (spec 2 §5): one point per criterion met, out of five.
pub fn password_strength(password: &str) -> Strength {
    let criteria = [
        password.chars().count() >= 8,
        password.chars().any(char::is_uppercase),
        password.chars().any(char::is_lowercase),
        password.chars().any(|c| c.is_ascii_digit()),
        password
            .chars()
            .any(|c| !c.is_alphanumeric() && !c.is_whitespace()),
    ];
    let score = criteria.iter().map(|met| u8::from(*met)).sum();
    let label = match score {
        0..=2 => StrengthLabel::Weak,
        3 | 4 => StrengthLabel::Medium,
        _ => StrengthLabel::Strong,
    };
    Strength { score, label }
}

/// True when the login page should show the low-strength dialog (score 2 or lower).
pub fn needs_strength_warning(score: u8) -> bool {
    score <= 2
}

/// One form's values as the web app holds them, tagged by `form`, for [`check_form`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(
    tag = "form",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FormValues {
    /// The user form ([`validate_user`]); `create` false for an edit.
    User {
        create: bool,
        name: String,
        email: String,
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        password: Option<String>,
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        start_work: Option<String>,
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        end_work: Option<String>,
    },
    /// The contact form ([`validate_contact`]).
    Contact {
        name: String,
        number: String,
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        email: Option<String>,
    },
    /// The signup form ([`validate_signup`]).
    Signup {
        company_name: String,
        name: String,
        email: String,
        password: String,
        phone: String,
        #[serde(default)]
        #[cfg_attr(test, ts(optional = nullable))]
        plan_id: Option<i64>,
    },
    /// A ticket note ([`validate_ticket_note`]).
    Note { note: String },
    /// A tag's name ([`validate_tag_name`]).
    Tag { name: String },
    /// A queue's name and colour ([`validate_queue`]).
    Queue { name: String, color: String },
    /// A connection's name ([`validate_connection_name`]).
    Connection { name: String },
    /// A password chosen through a reset ([`validate_new_password`]).
    NewPassword { new_password: String },
}

/// Every failing field of `form` (empty when it may be sent), by the form's rule above.
pub fn check_form(form: &FormValues) -> Vec<FieldError> {
    let result = match form {
        FormValues::User {
            create,
            name,
            email,
            password,
            start_work,
            end_work,
        } => validate_user(
            &UserInput {
                name,
                email,
                password: password.as_deref(),
                start_work: start_work.as_deref(),
                end_work: end_work.as_deref(),
            },
            if *create {
                FormMode::Create
            } else {
                FormMode::Update
            },
        ),
        FormValues::Contact {
            name,
            number,
            email,
        } => validate_contact(&ContactInput {
            name,
            number,
            email: email.as_deref(),
        }),
        FormValues::Signup {
            company_name,
            name,
            email,
            password,
            phone,
            plan_id,
        } => validate_signup(&SignupInput {
            company_name,
            name,
            email,
            password,
            phone,
            plan_id: *plan_id,
        }),
        FormValues::Note { note } => validate_ticket_note(note),
        FormValues::Tag { name } => validate_tag_name(name),
        FormValues::Queue { name, color } => validate_queue(name, color),
        FormValues::Connection { name } => validate_connection_name(name),
        FormValues::NewPassword { new_password } => validate_new_password(new_password),
    };
    result.err().map(|e| e.fields).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn fields_of(result: Result<()>) -> Vec<(String, FieldCode)> {
        match result {
            Ok(()) => Vec::new(),
            Err(err) => {
                assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
                err.fields.into_iter().map(|f| (f.field, f.code)).collect()
            }
        }
    }

    fn one(field: &str, code: FieldCode) -> Vec<(String, FieldCode)> {
        vec![(field.to_owned(), code)]
    }

    fn user<'a>() -> UserInput<'a> {
        UserInput {
            name: "Ana",
            email: "ana@example.com",
            password: Some("secret"),
            start_work: Some("08:00"),
            end_work: Some("18:00"),
        }
    }

    #[test]
    fn emails() {
        for ok in [
            "a@b.co",
            "ana.souza+x@mail.example.com.br",
            "  Ana@Example.COM ",
            "joão@exemplo.com.br",
        ] {
            assert!(is_valid_email(ok), "{ok}");
        }
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.com",
            "ana@example",
            "ana@@example.com",
            "ana@exa mple.com",
            "an a@example.com",
            "ana@example..com",
            "ana@-example.com",
            "ana@example.c",
            ".ana@example.com",
            "ana@example.123",
        ] {
            assert!(!is_valid_email(bad), "{bad}");
        }
        assert_eq!(normalize_email("  Ana@Example.COM "), "ana@example.com");
    }

    #[test]
    fn reset_passwords_follow_the_spec_rule() {
        assert_eq!(fields_of(validate_new_password("NovaSenha1")), vec![]);
        assert_eq!(fields_of(validate_new_password("Abcdef1 ")), vec![]);
        assert_eq!(fields_of(validate_new_password("Ábcdefg1")), vec![]);
        assert_eq!(
            fields_of(validate_new_password("")),
            one("newPassword", FieldCode::Required)
        );
        for weak in [
            "Abcde1", "Abcdef1", "abcdefg1", "ABCDEFG1", "Abcdefgh", "12345678",
        ] {
            assert_eq!(
                fields_of(validate_new_password(weak)),
                one("newPassword", FieldCode::InvalidFormat),
                "{weak}"
            );
        }
        let fifty = format!("Aa1{}", "x".repeat(47));
        assert_eq!(fields_of(validate_new_password(&fifty)), vec![]);
        let fifty_one = format!("Aa1{}", "x".repeat(48));
        assert_eq!(
            fields_of(validate_new_password(&fifty_one)),
            one("newPassword", FieldCode::TooLong)
        );
    }

    #[test]
    fn hh_mm() {
        assert_eq!(parse_hh_mm("00:00"), Some(0));
        assert_eq!(parse_hh_mm("23:59"), Some(23 * 60 + 59));
        assert_eq!(parse_hh_mm("08:30"), Some(510));
        for bad in [
            "24:00", "12:60", "8:30", "08:3", "0830", "aa:bb", "08:30 ", "-1:00",
        ] {
            assert_eq!(parse_hh_mm(bad), None, "{bad}");
        }
    }

    #[test]
    fn user_form() {
        assert_eq!(fields_of(validate_user(&user(), FormMode::Create)), vec![]);
        let name = |name| UserInput { name, ..user() };
        assert_eq!(
            fields_of(validate_user(&name(""), FormMode::Create)),
            one("name", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_user(&name("   "), FormMode::Create)),
            one("name", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_user(&name("A"), FormMode::Create)),
            one("name", FieldCode::TooShort)
        );
        assert_eq!(
            fields_of(validate_user(&name("Al"), FormMode::Create)),
            vec![]
        );
        let fifty = "x".repeat(50);
        let fifty_one = "x".repeat(51);
        assert_eq!(
            fields_of(validate_user(&name(&fifty), FormMode::Create)),
            vec![]
        );
        assert_eq!(
            fields_of(validate_user(&name(&fifty_one), FormMode::Create)),
            one("name", FieldCode::TooLong)
        );

        let email = |email| UserInput { email, ..user() };
        assert_eq!(
            fields_of(validate_user(&email(""), FormMode::Update)),
            one("email", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_user(&email("x@"), FormMode::Update)),
            one("email", FieldCode::InvalidEmail)
        );

        let password = |password| UserInput { password, ..user() };
        assert_eq!(
            fields_of(validate_user(&password(None), FormMode::Create)),
            one("password", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_user(&password(Some("")), FormMode::Create)),
            one("password", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_user(&password(Some("abcd")), FormMode::Create)),
            one("password", FieldCode::TooShort)
        );
        assert_eq!(
            fields_of(validate_user(&password(Some("abcde")), FormMode::Create)),
            vec![]
        );
        let long = "p".repeat(51);
        assert_eq!(
            fields_of(validate_user(&password(Some(&long)), FormMode::Create)),
            one("password", FieldCode::TooLong)
        );
        assert_eq!(
            fields_of(validate_user(&password(None), FormMode::Update)),
            vec![]
        );
        assert_eq!(
            fields_of(validate_user(&password(Some("")), FormMode::Update)),
            vec![]
        );
        assert_eq!(
            fields_of(validate_user(&password(Some("abc")), FormMode::Update)),
            one("password", FieldCode::TooShort)
        );
    }

    #[test]
    fn user_work_hours() {
        let hours = |start, end| UserInput {
            start_work: start,
            end_work: end,
            ..user()
        };
        assert_eq!(
            fields_of(validate_user(&hours(None, None), FormMode::Create)),
            vec![]
        );
        assert_eq!(
            fields_of(validate_user(
                &hours(Some("09:00"), Some("09:00")),
                FormMode::Create
            )),
            vec![]
        );
        assert_eq!(
            fields_of(validate_user(
                &hours(Some("18:00"), Some("08:00")),
                FormMode::Create
            )),
            one("endWork", FieldCode::OutOfRange)
        );
        assert_eq!(
            fields_of(validate_user(
                &hours(Some("25:00"), Some("8h")),
                FormMode::Create
            )),
            vec![
                ("startWork".to_owned(), FieldCode::InvalidFormat),
                ("endWork".to_owned(), FieldCode::InvalidFormat)
            ]
        );
    }

    #[test]
    fn every_failing_field_is_reported() {
        let input = UserInput {
            name: "",
            email: "nope",
            password: Some("1"),
            start_work: None,
            end_work: None,
        };
        assert_eq!(
            fields_of(validate_user(&input, FormMode::Create)),
            vec![
                ("name".to_owned(), FieldCode::Required),
                ("email".to_owned(), FieldCode::InvalidEmail),
                ("password".to_owned(), FieldCode::TooShort)
            ]
        );
    }

    #[test]
    fn contact_form() {
        let ok = ContactInput {
            name: "Maria",
            number: "+55 (11) 98765-4321",
            email: None,
        };
        assert_eq!(fields_of(validate_contact(&ok)), vec![]);
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                email: Some(""),
                ..ok
            })),
            vec![]
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                email: Some("maria@"),
                ..ok
            })),
            one("email", FieldCode::InvalidEmail)
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                number: "1234567",
                ..ok
            })),
            one("number", FieldCode::TooShort)
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                number: "12345678",
                ..ok
            })),
            vec![]
        );
        let long = "1".repeat(51);
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                number: &long,
                ..ok
            })),
            one("number", FieldCode::TooLong)
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput {
                number: "5511abc45678",
                ..ok
            })),
            one("number", FieldCode::InvalidFormat)
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput { number: "", ..ok })),
            one("number", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_contact(&ContactInput { name: "M", ..ok })),
            one("name", FieldCode::TooShort)
        );
    }

    #[test]
    fn signup_form() {
        let ok = SignupInput {
            company_name: "Loja da Ana",
            name: "Ana",
            email: "ana@example.com",
            password: "secret",
            phone: "(11) 98765-4321",
            plan_id: Some(1),
        };
        assert_eq!(fields_of(validate_signup(&ok)), vec![]);
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                phone: "1133334444",
                ..ok
            })),
            vec![]
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                phone: "(11) 3333-444",
                ..ok
            })),
            one("phone", FieldCode::TooShort)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                phone: "551198765432",
                ..ok
            })),
            one("phone", FieldCode::TooLong)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput { phone: "", ..ok })),
            one("phone", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                phone: "(11) 9876x-4321",
                ..ok
            })),
            one("phone", FieldCode::InvalidFormat)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                company_name: " ",
                ..ok
            })),
            one("companyName", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                plan_id: None,
                ..ok
            })),
            one("planId", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                plan_id: Some(0),
                ..ok
            })),
            one("planId", FieldCode::OutOfRange)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput { password: "", ..ok })),
            one("password", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_signup(&SignupInput {
                email: "ANA@EXAMPLE.COM",
                ..ok
            })),
            vec![]
        );
    }

    #[test]
    fn small_forms() {
        assert_eq!(
            fields_of(validate_ticket_note("")),
            one("note", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_ticket_note("a")),
            one("note", FieldCode::TooShort)
        );
        assert_eq!(fields_of(validate_ticket_note("ok")), vec![]);
        assert_eq!(
            fields_of(validate_ticket_note(&"a".repeat(NOTE_MAX_CHARS))),
            vec![]
        );
        assert_eq!(
            fields_of(validate_ticket_note(&"a".repeat(NOTE_MAX_CHARS + 1))).len(),
            1
        );
        assert_eq!(
            fields_of(validate_tag_name("ab")),
            one("name", FieldCode::TooShort)
        );
        assert_eq!(fields_of(validate_tag_name("vip")), vec![]);
        assert_eq!(fields_of(validate_queue("Vendas", "#fff")), vec![]);
        assert_eq!(
            fields_of(validate_queue("V", "#f")),
            vec![
                ("name".to_owned(), FieldCode::TooShort),
                ("color".to_owned(), FieldCode::TooShort)
            ]
        );
        assert_eq!(
            fields_of(validate_queue("Vendas", "#1234567890")),
            one("color", FieldCode::TooLong)
        );
        assert_eq!(
            fields_of(validate_queue("Vendas", "")),
            one("color", FieldCode::Required)
        );
        assert_eq!(
            fields_of(validate_connection_name("W")),
            one("name", FieldCode::TooShort)
        );
        assert_eq!(fields_of(validate_connection_name("WhatsApp 1")), vec![]);
        assert_eq!(
            fields_of(validate_tickets_panel_width(403)),
            one("defaultTicketsManagerWidth", FieldCode::OutOfRange)
        );
        assert_eq!(fields_of(validate_tickets_panel_width(404)), vec![]);
        assert_eq!(fields_of(validate_tickets_panel_width(700)), vec![]);
        assert_eq!(
            fields_of(validate_tickets_panel_width(701)),
            one("defaultTicketsManagerWidth", FieldCode::OutOfRange)
        );
    }

    #[test]
    fn strength() {
        let s = |pw: &str| password_strength(pw);
        assert_eq!(
            s(""),
            Strength {
                score: 0,
                label: StrengthLabel::Weak
            }
        );
        assert_eq!(
            s("abc"),
            Strength {
                score: 1,
                label: StrengthLabel::Weak
            }
        );
        assert_eq!(
            s("abcdefgh"),
            Strength {
                score: 2,
                label: StrengthLabel::Weak
            }
        );
        assert_eq!(
            s("Abcdefgh"),
            Strength {
                score: 3,
                label: StrengthLabel::Medium
            }
        );
        assert_eq!(
            s("Abcdefg1"),
            Strength {
                score: 4,
                label: StrengthLabel::Medium
            }
        );
        assert_eq!(
            s("Abcdef1!"),
            Strength {
                score: 5,
                label: StrengthLabel::Strong
            }
        );
        assert_eq!(
            s("A1!"),
            Strength {
                score: 3,
                label: StrengthLabel::Medium
            }
        );
        assert_eq!(s("        ").score, 1, "spaces are not symbols");
        assert!(needs_strength_warning(0));
        assert!(needs_strength_warning(2));
        assert!(!needs_strength_warning(3));
        assert!(!needs_strength_warning(5));
    }

    #[test]
    fn forms_from_the_web_app() {
        let form: FormValues = serde_json::from_str(
            r#"{"form":"signup","companyName":"Loja","name":"A","email":"x@","password":"abc","phone":"(11) 9","planId":null}"#,
        )
        .expect("signup");
        let fields: Vec<(String, FieldCode)> = check_form(&form)
            .into_iter()
            .map(|f| (f.field, f.code))
            .collect();
        assert_eq!(
            fields,
            vec![
                ("name".to_owned(), FieldCode::TooShort),
                ("email".to_owned(), FieldCode::InvalidEmail),
                ("password".to_owned(), FieldCode::TooShort),
                ("phone".to_owned(), FieldCode::TooShort),
                ("planId".to_owned(), FieldCode::Required),
            ]
        );
        let user: FormValues = serde_json::from_str(
            r#"{"form":"user","create":false,"name":"Ana","email":"ana@example.com","password":""}"#,
        )
        .expect("user");
        assert!(check_form(&user).is_empty(), "an empty password keeps it");
        let tag = FormValues::Tag { name: "ab".into() };
        assert_eq!(check_form(&tag).len(), 1);
    }
}
