//! Queue rotation (`ativarRoteador`): handing a waiting ticket to one of the queue's attendants,
//! fairly and predictably, never at random.
//!
//! Only online attendants of the queue are candidates, and one who already holds the cap of open
//! tickets is skipped. Round robin continues after the last attendant the queue assigned, in
//! ascending user id order, wrapping around. Least-loaded picks the attendant with the fewest open
//! tickets, ties broken by that same round-robin order. The product's default is least-loaded
//! ([`RotationStrategy::default`]).

use serde::{Deserialize, Serialize};

use crate::ids::UserId;

/// How the next attendant is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RotationStrategy {
    /// In turn, by ascending user id, after the last one assigned.
    RoundRobin,
    /// The fewest open tickets; ties in round-robin order.
    #[default]
    LeastLoaded,
}

/// An attendant of the queue, as the host found them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub user_id: UserId,
    /// Signed in and available now.
    pub online: bool,
    /// Tickets the attendant holds open now.
    pub open_tickets: u32,
}

/// The attendant who gets the next ticket, or `None` when no online attendant is under the cap.
///
/// `last_assigned` is the attendant the queue handed its previous ticket to (it need not be a
/// candidate any more). `cap` is the most open tickets an attendant may hold to receive one.
/// A user listed twice counts once (with the first entry's figures).
pub fn pick_attendant(
    candidates: &[Candidate],
    last_assigned: Option<UserId>,
    strategy: RotationStrategy,
    cap: Option<u32>,
) -> Option<UserId> {
    let eligible: Vec<Candidate> = candidates
        .iter()
        .enumerate()
        .filter(|(i, c)| !candidates[..*i].iter().any(|e| e.user_id == c.user_id))
        .map(|(_, c)| *c)
        .filter(|c| c.online && cap.is_none_or(|cap| c.open_tickets < cap))
        .collect();
    // Round-robin rank: ids after the last assigned come first (ascending), then the others.
    let rank = |user: UserId| -> (bool, UserId) {
        let wrapped = last_assigned.is_some_and(|last| user <= last);
        (wrapped, user)
    };
    match strategy {
        RotationStrategy::RoundRobin => eligible.iter().map(|c| c.user_id).min_by_key(|u| rank(*u)),
        RotationStrategy::LeastLoaded => eligible
            .iter()
            .min_by_key(|c| (c.open_tickets, rank(c.user_id)))
            .map(|c| c.user_id),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn user(id: i64, online: bool, open: u32) -> Candidate {
        Candidate {
            user_id: UserId(id),
            online,
            open_tickets: open,
        }
    }

    #[test]
    fn round_robin_continues_after_the_last_assigned_and_wraps() {
        let team = [user(7, true, 0), user(3, true, 0), user(5, true, 0)];
        let rr = RotationStrategy::RoundRobin;
        assert_eq!(pick_attendant(&team, None, rr, None), Some(UserId(3)));
        assert_eq!(
            pick_attendant(&team, Some(UserId(3)), rr, None),
            Some(UserId(5))
        );
        assert_eq!(
            pick_attendant(&team, Some(UserId(5)), rr, None),
            Some(UserId(7))
        );
        assert_eq!(
            pick_attendant(&team, Some(UserId(7)), rr, None),
            Some(UserId(3))
        );
        // The last one assigned left the queue: continue after their id all the same.
        assert_eq!(
            pick_attendant(&team, Some(UserId(4)), rr, None),
            Some(UserId(5))
        );
    }

    #[test]
    fn least_loaded_picks_the_fewest_open_tickets() {
        let team = [user(1, true, 4), user(2, true, 1), user(3, true, 2)];
        let ll = RotationStrategy::LeastLoaded;
        assert_eq!(pick_attendant(&team, None, ll, None), Some(UserId(2)));
        assert_eq!(
            pick_attendant(&team, Some(UserId(2)), ll, None),
            Some(UserId(2))
        );
    }

    #[test]
    fn least_loaded_breaks_ties_in_round_robin_order() {
        let team = [user(1, true, 1), user(2, true, 1), user(3, true, 1)];
        let ll = RotationStrategy::LeastLoaded;
        assert_eq!(pick_attendant(&team, None, ll, None), Some(UserId(1)));
        assert_eq!(
            pick_attendant(&team, Some(UserId(1)), ll, None),
            Some(UserId(2))
        );
        assert_eq!(
            pick_attendant(&team, Some(UserId(3)), ll, None),
            Some(UserId(1))
        );
    }

    #[test]
    fn offline_attendants_are_never_picked() {
        let team = [user(1, false, 0), user(2, true, 9)];
        for strategy in [RotationStrategy::RoundRobin, RotationStrategy::LeastLoaded] {
            assert_eq!(pick_attendant(&team, None, strategy, None), Some(UserId(2)));
        }
        assert_eq!(
            pick_attendant(
                &[user(1, false, 0)],
                None,
                RotationStrategy::LeastLoaded,
                None
            ),
            None
        );
        assert_eq!(
            pick_attendant(&[], None, RotationStrategy::RoundRobin, None),
            None
        );
    }

    #[test]
    fn attendants_at_the_cap_are_skipped() {
        let team = [user(1, true, 3), user(2, true, 2)];
        let rr = RotationStrategy::RoundRobin;
        assert_eq!(pick_attendant(&team, None, rr, Some(3)), Some(UserId(2)));
        assert_eq!(pick_attendant(&team, None, rr, Some(2)), None);
        assert_eq!(pick_attendant(&team, None, rr, Some(0)), None);
    }

    #[test]
    fn a_user_listed_twice_counts_once_with_the_first_figures() {
        let team = [user(1, true, 5), user(2, true, 3), user(1, true, 0)];
        assert_eq!(
            pick_attendant(&team, None, RotationStrategy::LeastLoaded, None),
            Some(UserId(2))
        );
    }

    #[test]
    fn default_strategy_is_least_loaded() {
        assert_eq!(RotationStrategy::default(), RotationStrategy::LeastLoaded);
        assert_eq!(
            serde_json::to_string(&RotationStrategy::RoundRobin).expect("json"),
            "\"roundRobin\""
        );
    }

    fn any_candidates() -> impl Strategy<Value = Vec<Candidate>> {
        proptest::collection::vec((1i64..20, any::<bool>(), 0u32..6), 0..12).prop_map(|v| {
            v.into_iter()
                .map(|(id, online, open)| user(id, online, open))
                .collect()
        })
    }

    fn any_strategy() -> impl Strategy<Value = RotationStrategy> {
        prop_oneof![
            Just(RotationStrategy::RoundRobin),
            Just(RotationStrategy::LeastLoaded)
        ]
    }

    proptest! {
        #[test]
        fn never_picks_an_offline_or_capped_user(
            candidates in any_candidates(),
            last in proptest::option::of(1i64..20),
            strategy in any_strategy(),
            cap in proptest::option::of(0u32..6),
        ) {
            let picked = pick_attendant(&candidates, last.map(UserId), strategy, cap);
            let first_entry = |id: UserId| candidates.iter().find(|c| c.user_id == id);
            match picked {
                Some(id) => {
                    let entry = first_entry(id);
                    prop_assert!(entry.is_some_and(|c| c.online));
                    prop_assert!(entry.is_some_and(|c| cap.is_none_or(|cap| c.open_tickets < cap)));
                }
                None => {
                    // Nobody was eligible.
                    let nobody = candidates.iter().all(|c| {
                        let first = first_entry(c.user_id).copied().unwrap_or(*c);
                        !first.online || cap.is_some_and(|cap| first.open_tickets >= cap)
                    });
                    prop_assert!(nobody, "someone was eligible");
                }
            }
        }

        #[test]
        fn equal_loads_spread_evenly_over_rounds(
            ids in proptest::collection::btree_set(1i64..50, 1..8),
            rounds in 0usize..60,
            load in 0u32..4,
            strategy in any_strategy(),
        ) {
            let mut team: Vec<Candidate> = ids.iter().map(|id| user(*id, true, load)).collect();
            let mut last = None;
            let mut counts = std::collections::BTreeMap::new();
            for _ in 0..rounds {
                let picked = pick_attendant(&team, last, strategy, None);
                prop_assert!(picked.is_some());
                let picked = picked.unwrap_or(UserId(0));
                *counts.entry(picked).or_insert(0usize) += 1;
                last = Some(picked);
                // Least-loaded sees the ticket it just handed out; round robin does not look.
                if strategy == RotationStrategy::LeastLoaded {
                    for c in &mut team {
                        if c.user_id == picked {
                            c.open_tickets += 1;
                        }
                    }
                }
            }
            let k = ids.len();
            for id in &ids {
                let got = counts.get(&UserId(*id)).copied().unwrap_or(0);
                prop_assert!(got == rounds / k || got == rounds.div_ceil(k), "{id} got {got} of {rounds}");
            }
        }
    }
}
