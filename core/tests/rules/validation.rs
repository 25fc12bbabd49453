//! Property tests of validation and password strength.

use chatflow_core::error::{ErrorCode, FieldCode};
use chatflow_core::validation::{
    FormMode, StrengthLabel, UserInput, is_valid_email, needs_strength_warning, normalize_email,
    parse_hh_mm, password_strength, validate_user,
};
use proptest::prelude::*;

fn name(min: usize, max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::char::range('a', 'z'), min..=max)
        .prop_map(|chars| chars.into_iter().collect())
}

fn email() -> impl Strategy<Value = String> {
    ("[a-z0-9._%+-]{0,10}", "[a-z0-9]{1,10}", "[a-z]{2,6}").prop_map(|(local, domain, tld)| {
        // A local part never starts or ends with a dot nor doubles them.
        let local: String = local
            .split('.')
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(".");
        let local = if local.is_empty() {
            "x".to_owned()
        } else {
            local
        };
        format!("{local}@{domain}.{tld}")
    })
}

proptest! {
    /// The score is the number of criteria met; the label and the warning follow the score.
    #[test]
    fn strength_is_the_number_of_criteria_met(pw in ".{0,20}") {
        let s = password_strength(&pw);
        let expected = u8::from(pw.chars().count() >= 8)
            + u8::from(pw.chars().any(char::is_uppercase))
            + u8::from(pw.chars().any(char::is_lowercase))
            + u8::from(pw.chars().any(|c| c.is_ascii_digit()))
            + u8::from(pw.chars().any(|c| !c.is_alphanumeric() && !c.is_whitespace()));
        prop_assert_eq!(s.score, expected);
        prop_assert!(s.score <= 5);
        let label = match s.score {
            0..=2 => StrengthLabel::Weak,
            3 | 4 => StrengthLabel::Medium,
            _ => StrengthLabel::Strong,
        };
        prop_assert_eq!(s.label, label);
        prop_assert_eq!(needs_strength_warning(s.score), s.label == StrengthLabel::Weak);
    }

    /// Normalising an e-mail is idempotent and keeps it valid or invalid.
    #[test]
    fn email_normalisation(raw in "[ ]{0,2}[A-Za-z0-9.@+-]{0,20}[ ]{0,2}") {
        let once = normalize_email(&raw);
        prop_assert_eq!(normalize_email(&once), once.clone());
        prop_assert_eq!(is_valid_email(&raw), is_valid_email(&once));
        prop_assert_eq!(once.trim(), once.as_str());
    }

    /// Well-formed user forms pass; names over 50 characters fail on `name` alone.
    #[test]
    fn user_forms(n in name(2, 50), long in name(51, 80), e in email(), pw in "[a-zA-Z0-9]{5,50}") {
        let input = UserInput { name: &n, email: &e, password: Some(&pw), start_work: None, end_work: None };
        prop_assert!(validate_user(&input, FormMode::Create).is_ok(), "{:?}", input);
        let too_long = UserInput { name: &long, ..input };
        let err = validate_user(&too_long, FormMode::Create).expect_err("too long");
        prop_assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        prop_assert_eq!(err.fields.len(), 1);
        prop_assert_eq!(err.fields[0].field.as_str(), "name");
        prop_assert_eq!(err.fields[0].code, FieldCode::TooLong);
    }

    /// Every valid time parses back to its minutes; work hours are accepted exactly when the
    /// start is not after the end.
    #[test]
    fn work_hours(h1 in 0u16..24, m1 in 0u16..60, h2 in 0u16..24, m2 in 0u16..60) {
        let start = format!("{h1:02}:{m1:02}");
        let end = format!("{h2:02}:{m2:02}");
        prop_assert_eq!(parse_hh_mm(&start), Some(h1 * 60 + m1));
        let input = UserInput {
            name: "Ana",
            email: "ana@example.com",
            password: None,
            start_work: Some(&start),
            end_work: Some(&end),
        };
        let ok = validate_user(&input, FormMode::Update).is_ok();
        prop_assert_eq!(ok, h1 * 60 + m1 <= h2 * 60 + m2);
    }
}
