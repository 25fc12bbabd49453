//! Contact rules (spec 1 §5): the form's validation and the number normalisation applied before a
//! contact is stored, so the (channel, number) key compares like with like.

use crate::error::{Error, FieldCode, FieldError, Result};
use crate::inbox::model::{ContactInput, ExtraInfo};
use crate::ports::ChannelKind;
use crate::validation::{self, NAME_MAX_CHARS, NAME_MIN_CHARS};

/// Whether numbers of `channel` are phone numbers (8 to 50 digits once formatting is removed).
/// Facebook and Instagram contacts are identified by the platform's id instead.
pub const fn is_phone_channel(channel: ChannelKind) -> bool {
    matches!(channel, ChannelKind::Whatsapp | ChannelKind::Whatsappapi)
}

/// The stored form of a number: digits only for phone channels (`+55 (11) 9999-0000` becomes
/// `551199990000`), trimmed otherwise. Group ids (`...@g.us`-like or with `-`) are kept as given
/// when they are not plain phone numbers.
pub fn normalize_number(number: &str, channel: ChannelKind, is_group: bool) -> String {
    let trimmed = number.trim();
    if !is_phone_channel(channel) || is_group {
        return trimmed.to_owned();
    }
    validation::number_digits(trimmed).unwrap_or_else(|| trimmed.to_owned())
}

/// Validates a contact form and returns it normalised: trimmed name and e-mail (lower-cased),
/// normalised number, channel defaulted to WhatsApp, blank extra fields dropped.
/// `ERR_VALIDATION` lists `name` (Required / Too Short! / Too Long!), `number` and `email`.
pub fn prepare(mut input: ContactInput) -> Result<ContactInput> {
    let channel = input.channel.unwrap_or(ChannelKind::Whatsapp);
    let email = input.email.trim();
    if is_phone_channel(channel) && !input.is_group {
        validation::validate_contact(&validation::ContactInput {
            name: &input.name,
            number: &input.number,
            email: Some(email),
        })?;
    } else {
        // Platform ids and group ids: the name rules and a non-empty id.
        let mut fields = Vec::new();
        let name = input.name.trim().chars().count();
        if name == 0 {
            fields.push(FieldError::new("name", FieldCode::Required));
        } else if name < NAME_MIN_CHARS {
            fields.push(FieldError::new("name", FieldCode::TooShort));
        } else if name > NAME_MAX_CHARS {
            fields.push(FieldError::new("name", FieldCode::TooLong));
        }
        if input.number.trim().is_empty() {
            fields.push(FieldError::new("number", FieldCode::Required));
        }
        if !email.is_empty() && !validation::is_valid_email(email) {
            fields.push(FieldError::new("email", FieldCode::InvalidEmail));
        }
        if !fields.is_empty() {
            return Err(Error::validation(fields));
        }
    }
    input.email = if email.is_empty() {
        String::new()
    } else {
        validation::normalize_email(email)
    };
    input.name = input.name.trim().to_owned();
    input.number = normalize_number(&input.number, channel, input.is_group);
    input.channel = Some(channel);
    input.extra_info = input
        .extra_info
        .into_iter()
        .filter(|e| !e.name.trim().is_empty())
        .map(|e| ExtraInfo {
            id: e.id,
            name: e.name.trim().to_owned(),
            value: e.value,
        })
        .collect();
    Ok(input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn input(name: &str, number: &str, email: &str) -> ContactInput {
        ContactInput {
            name: name.into(),
            number: number.into(),
            email: email.into(),
            channel: None,
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: vec![
                ExtraInfo {
                    id: None,
                    name: " CPF ".into(),
                    value: "1".into(),
                },
                ExtraInfo {
                    id: None,
                    name: "  ".into(),
                    value: "x".into(),
                },
            ],
        }
    }

    fn field_codes(err: &Error) -> Vec<(String, FieldCode)> {
        err.fields
            .iter()
            .map(|f| (f.field.clone(), f.code))
            .collect()
    }

    #[test]
    fn normalises_a_valid_contact() {
        let out = prepare(input(
            "  João  ",
            "+55 (11) 99999-0000",
            " Joao@Example.COM ",
        ))
        .expect("valid");
        assert_eq!(out.name, "João");
        assert_eq!(out.number, "5511999990000");
        assert_eq!(out.email, "joao@example.com");
        assert_eq!(out.channel, Some(ChannelKind::Whatsapp));
        assert_eq!(out.extra_info.len(), 1);
        assert_eq!(out.extra_info[0].name, "CPF");
    }

    #[test]
    fn rejects_names_numbers_and_emails_outside_the_rules() {
        let err = prepare(input("J", "1234567", "nope")).expect_err("invalid");
        assert_eq!(err.code, ErrorCode::ERR_VALIDATION);
        assert_eq!(
            field_codes(&err),
            vec![
                ("name".into(), FieldCode::TooShort),
                ("number".into(), FieldCode::TooShort),
                ("email".into(), FieldCode::InvalidEmail),
            ]
        );
        let err = prepare(input("", "", "")).expect_err("empty");
        assert_eq!(
            field_codes(&err),
            vec![
                ("name".into(), FieldCode::Required),
                ("number".into(), FieldCode::Required)
            ]
        );
        let long = "x".repeat(51);
        let err = prepare(input(&long, "12345678", "")).expect_err("long");
        assert_eq!(field_codes(&err), vec![("name".into(), FieldCode::TooLong)]);
        let err = prepare(input("Ana", "1234-abcd-5678", "")).expect_err("letters");
        assert_eq!(
            field_codes(&err),
            vec![("number".into(), FieldCode::InvalidFormat)]
        );
        assert!(prepare(input("Ana", &"9".repeat(51), "")).is_err());
        assert!(prepare(input("Ana", &"9".repeat(50), "")).is_ok());
    }

    #[test]
    fn platform_ids_and_groups_keep_their_form() {
        let mut ig = input("Ana", " 17841400000000001 ", "");
        ig.channel = Some(ChannelKind::Instagram);
        assert_eq!(prepare(ig).expect("valid").number, "17841400000000001");
        let mut group = input("Team", "120363-0001@g.us", "");
        group.is_group = true;
        assert_eq!(prepare(group).expect("valid").number, "120363-0001@g.us");
        assert_eq!(
            normalize_number("+1 555 0100", ChannelKind::Whatsappapi, false),
            "15550100"
        );
    }
}
