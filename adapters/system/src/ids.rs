//! Random identifiers, tokens and numeric codes.

use chatflow_core::ports::IdGenerator;
use rand::Rng;
use rand::distr::Alphanumeric;
use uuid::Uuid;

/// Version-4 uuids, alphanumeric tokens (`[A-Za-z0-9]`) and decimal codes from a
/// cryptographically secure generator seeded by the operating system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomIds;

impl IdGenerator for RandomIds {
    fn uuid(&self) -> Uuid {
        Uuid::new_v4()
    }

    fn token(&self, len: usize) -> String {
        rand::rng()
            .sample_iter(&Alphanumeric)
            .take(len)
            .map(char::from)
            .collect()
    }

    fn digits(&self, len: usize) -> String {
        let mut rng = rand::rng();
        (0..len)
            .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let ids = RandomIds;
        let a = ids.uuid();
        let b = ids.uuid();
        assert_eq!(a.get_version_num(), 4);
        assert_ne!(a, b);
    }

    #[test]
    fn tokens_have_the_length_asked_and_only_alphanumerics() {
        let ids = RandomIds;
        for len in [0, 1, 16, 30, 64] {
            let token = ids.token(len);
            assert_eq!(token.chars().count(), len);
            assert!(token.chars().all(|c| c.is_ascii_alphanumeric()), "{token}");
        }
    }

    #[test]
    fn digit_codes_have_the_length_asked_and_use_every_digit() {
        let ids = RandomIds;
        for len in [0, 1, 6, 12] {
            let code = ids.digits(len);
            assert_eq!(code.len(), len);
            assert!(code.chars().all(|c| c.is_ascii_digit()), "{code}");
        }
        // 6000 digits: each of the ten appears (a missing one has odds of about 1e-274).
        let seen: HashSet<char> = (0..1000)
            .flat_map(|_| ids.digits(6).chars().collect::<Vec<_>>())
            .collect();
        assert_eq!(seen.len(), 10, "{seen:?}");
    }

    #[test]
    fn tokens_do_not_repeat() {
        let ids = RandomIds;
        let tokens: HashSet<String> = (0..200).map(|_| ids.token(30)).collect();
        assert_eq!(tokens.len(), 200);
    }
}
