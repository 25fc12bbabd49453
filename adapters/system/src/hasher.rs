//! Argon2id password hashing.
//!
//! Hashing costs tens of milliseconds of CPU and about 19 MiB of memory on purpose, so both
//! hashing and verification run on a small fixed set of worker threads, one per core, and never
//! stall the request threads. Each worker keeps its argon2 memory between hashes. Both matter:
//! allocating and freeing the 19 MiB per sign-in on tokio's blocking pool made the allocator keep
//! arenas of freed buffers, and a burst of sign-ins left the server holding gigabytes (measured
//! with `cargo xtask bench`); with one reused buffer per core it stays at a few tens of MiB, and a
//! burst queues instead of spawning threads.

use std::cell::RefCell;

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use rand::RngCore as _;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

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
    workers: Arc<Workers>,
}

impl Default for Argon2Hasher {
    /// The argon2 crate's default parameters (19 MiB, 2 passes, 1 lane).
    fn default() -> Self {
        Self {
            params: Params::default(),
            workers: Arc::new(Workers::start()),
        }
    }
}

/// A unit of hashing work.
type Job = Box<dyn FnOnce() + Send>;

/// One worker thread per core, fed through a queue; the threads end when the hasher is dropped.
#[derive(Debug)]
struct Workers {
    queue: mpsc::Sender<Job>,
}

impl Workers {
    fn start() -> Self {
        let (queue, jobs) = mpsc::channel::<Job>();
        let jobs = Arc::new(Mutex::new(jobs));
        let count = std::thread::available_parallelism().map_or(1, usize::from);
        for index in 0..count {
            let jobs = Arc::clone(&jobs);
            let spawned = std::thread::Builder::new()
                .name(format!("argon2-{index}"))
                .spawn(move || {
                    loop {
                        // Take the next job, releasing the lock before running it.
                        let job = match jobs.lock() {
                            Ok(receiver) => receiver.recv(),
                            Err(_) => return,
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                });
            if let Err(error) = spawned {
                tracing::error!(%error, "could not start an argon2 worker thread");
            }
        }
        Self { queue }
    }

    /// Runs `work` on a worker thread and waits for its result.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> Result<T> {
        let (done, result) = tokio::sync::oneshot::channel();
        self.queue
            .send(Box::new(move || {
                let _ = done.send(work());
            }))
            .map_err(|_| Error::internal("the argon2 workers have stopped"))?;
        result
            .await
            .map_err(|_| Error::internal("an argon2 worker failed"))
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
        Ok(Self {
            params,
            workers: Arc::new(Workers::start()),
        })
    }
}

thread_local! {
    /// The worker's argon2 memory, kept between hashes and grown to the largest cost seen.
    static MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Runs argon2 with the calling thread's reusable memory.
fn hash_into(
    argon2: &Argon2<'_>,
    params: &Params,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
) -> bool {
    MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        let blocks = params.block_count();
        if memory.len() < blocks {
            memory.resize(blocks, Block::new());
        }
        argon2
            .hash_password_into_with_memory(password, salt, out, &mut memory[..blocks])
            .is_ok()
    })
}

/// Hashes `password` with a fresh random salt into a PHC string.
fn hash_phc(params: &Params, password: &[u8]) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let mut out = [0u8; 32];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    if !hash_into(&argon2, params, password, &salt, &mut out) {
        return Err(Error::internal("argon2 hashing failed"));
    }
    let fail =
        |e: argon2::password_hash::phc::Error| Error::internal(format!("argon2 output: {e}"));
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(params)
            .map_err(|e| Error::internal(format!("argon2 parameters: {e}")))?,
        salt: Some(Salt::new(&salt).map_err(fail)?),
        hash: Some(Output::new(&out).map_err(fail)?),
    };
    Ok(phc.to_string())
}

/// Checks `password` against a PHC string, with the costs, salt and length it records.
fn verify_phc(parsed: &PasswordHash, password: &[u8]) -> bool {
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        return false;
    };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm.as_str()) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from) {
        None => Version::V0x13,
        Some(Ok(version)) => version,
        Some(Err(_)) => return false,
    };
    let Ok(params) = Params::try_from(parsed) else {
        return false;
    };
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let mut out = vec![0u8; expected.len()];
    hash_into(&argon2, &params, password, salt.as_ref(), &mut out)
        // Output's equality is constant-time.
        && Output::new(&out).is_ok_and(|computed| computed == *expected)
}

#[async_trait]
impl PasswordHasher for Argon2Hasher {
    async fn hash(&self, password: &str) -> Result<String> {
        let params = self.params.clone();
        let password = password.to_owned();
        self.workers
            .run(move || hash_phc(&params, password.as_bytes()))
            .await?
    }

    async fn verify(&self, password: &str, hash: &str) -> bool {
        let Ok(parsed) = PasswordHash::new(hash) else {
            return false;
        };
        let password = password.to_owned();
        self.workers
            .run(move || verify_phc(&parsed, password.as_bytes()))
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

    #[tokio::test]
    async fn hashes_are_standard_phc_strings_both_ways() {
        use argon2::password_hash::{PasswordHasher as _, PasswordVerifier as _};
        let hasher = cheap();
        let ours = hasher.hash("interop-Pass1").await.expect("hashing works");
        let crate_argon2 = Argon2::default();
        assert!(
            crate_argon2
                .verify_password(b"interop-Pass1", ours.as_str())
                .is_ok(),
            "the argon2 crate verifies our hash"
        );
        let theirs = Argon2::new(Algorithm::Argon2id, Version::V0x13, hasher.params.clone())
            .hash_password(b"interop-Pass1")
            .expect("the crate hashes")
            .to_string();
        assert!(hasher.verify("interop-Pass1", &theirs).await);
        assert!(!hasher.verify("interop-pass1", &theirs).await);
    }

    #[test]
    fn rejects_invalid_parameters() {
        let err = Argon2Hasher::with_params(1, 1, 1).expect_err("1 KiB is below argon2's minimum");
        assert_eq!(err.code, chatflow_core::ErrorCode::ERR_INTERNAL);
    }
}
