//! Argon2id password hashing.
//!
//! Hashing costs tens of milliseconds of CPU and memory on purpose, so both hashing and
//! verification run on tokio's blocking pool and never stall the request threads.

use argon2::password_hash::phc::PasswordHash;
use argon2::{Algorithm, Argon2, Params, PasswordHasher as _, PasswordVerifier as _, Version};
use async_trait::async_trait;
use chatflow_core::ports::PasswordHasher;
use chatflow_core::{Error, Result};

/// Argon2id (version 0x13) hashes in PHC string format (`$argon2id$v=19$m=...`).
///
/// Verification reads the parameters from the stored hash, so hashes made with other costs
/// still verify after the costs change.
#[derive(Debug, Clone)]
pub struct Argon2Hasher {
    params: Params,
}

impl Default for Argon2Hasher {
    /// The argon2 crate's default parameters (19 MiB, 2 passes, 1 lane).
    fn default() -> Self {
        Self {
            params: Params::default(),
        }
    }
}

impl Argon2Hasher {
    /// A hasher with the argon2 crate's default parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// A hasher with explicit costs: memory in KiB, passes and lanes. Meant for tests and
    /// benchmarks that need cheaper (or dearer) hashes; fails on values argon2 rejects.
    pub fn with_params(m_cost: u32, t_cost: u32, p_cost: u32) -> Result<Self> {
        let params = Params::new(m_cost, t_cost, p_cost, None)
            .map_err(|e| Error::internal(format!("invalid argon2 parameters: {e}")))?;
        Ok(Self { params })
    }

    fn argon2(&self) -> Argon2<'static> {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, self.params.clone())
    }
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &str) -> Result<String> {
        let argon2 = self.argon2();
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || {
            argon2
                .hash_password(password.as_bytes())
                .map(|hash| hash.to_string())
                .map_err(|e| Error::internal(format!("argon2 hashing failed: {e}")))
        })
        .await
        .map_err(|e| Error::internal(format!("argon2 hashing task failed: {e}")))?
    }

    async fn verify(&self, password: &str, hash: &str) -> bool {
        let Ok(parsed) = PasswordHash::new(hash) else {
            return false;
        };
        let argon2 = self.argon2();
        let password = password.to_owned();
        tokio::task::spawn_blocking(move || {
            argon2.verify_password(password.as_bytes(), &parsed).is_ok()
        })
        .await
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cheap() -> Argon2Hasher {
        Argon2Hasher::with_params(Params::MIN_M_COST.max(8), 1, 1).expect("valid test parameters")
    }

    #[tokio::test]
    async fn hash_then_verify() {
        let hasher = cheap();
        let hash = hasher.hash("s3cret-Pass").await.expect("hashing works");
        assert!(hash.starts_with("$argon2id$v=19$"), "{hash}");
        assert!(hasher.verify("s3cret-Pass", &hash).await);
        assert!(!hasher.verify("s3cret-pass", &hash).await);
        assert!(!hasher.verify("", &hash).await);
    }

    #[tokio::test]
    async fn same_password_gets_different_salts() {
        let hasher = cheap();
        let a = hasher.hash("repeat").await.expect("hashing works");
        let b = hasher.hash("repeat").await.expect("hashing works");
        assert_ne!(a, b);
        assert!(hasher.verify("repeat", &a).await);
        assert!(hasher.verify("repeat", &b).await);
    }

    #[tokio::test]
    async fn unreadable_hashes_never_verify() {
        let hasher = cheap();
        for hash in [
            "",
            "plain",
            "$argon2id$v=19$garbage",
            "$2b$12$abcdefghijklmnopqrstuv",
        ] {
            assert!(!hasher.verify("plain", hash).await, "{hash}");
        }
    }

    #[tokio::test]
    async fn verification_uses_the_stored_parameters() {
        let made_cheaply = cheap().hash("portable").await.expect("hashing works");
        let default_costs = Argon2Hasher::new();
        assert!(default_costs.verify("portable", &made_cheaply).await);
    }

    #[tokio::test]
    async fn default_parameters_are_the_crates() {
        let hash = Argon2Hasher::new().hash("x").await.expect("hashing works");
        assert!(hash.contains("m=19456,t=2,p=1"), "{hash}");
    }

    #[test]
    fn rejects_invalid_parameters() {
        let err = Argon2Hasher::with_params(1, 1, 1).expect_err("1 KiB is below argon2's minimum");
        assert_eq!(err.code, chatflow_core::ErrorCode::ERR_INTERNAL);
    }
}
