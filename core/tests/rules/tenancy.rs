//! Property tests of renewal, subscription and plan-price math.

use chatflow_core::CompanyId;
use chatflow_core::tenancy::{
    DueDateAlert, Money, PLATFORM_DUE_DATE, Recurrence, SubscriptionStatus, WARNING_DAYS,
    custom_plan_price, due_date_alert, renew, signup_defaults, subscription,
};
use chrono::{Datelike, Months, NaiveDate};
use proptest::prelude::*;

/// Any day from 1970 to 2999.
fn date() -> impl Strategy<Value = NaiveDate> {
    let first = NaiveDate::from_ymd_opt(1970, 1, 1).expect("valid date");
    (0i64..375_000).prop_map(move |days| first + chrono::Days::new(days.unsigned_abs()))
}

fn recurrence() -> impl Strategy<Value = Recurrence> {
    prop::sample::select(Recurrence::ALL.to_vec())
}

fn month_index(d: NaiveDate) -> i64 {
    i64::from(d.year()) * 12 + i64::from(d.month0())
}

fn days_in_month(year: i32, month: u32) -> u32 {
    (28..=31)
        .rev()
        .find(|day| NaiveDate::from_ymd_opt(year, month, *day).is_some())
        .expect("every month has at least 28 days")
}

proptest! {
    /// Renewal always moves the due date forward.
    #[test]
    fn renew_never_goes_backwards(due in date(), r in recurrence()) {
        prop_assert!(renew(due, r) > due);
    }

    /// Renewal lands exactly `months()` calendar months later, on the same day or, when that month
    /// is shorter, on its last day.
    #[test]
    fn renew_moves_whole_months_clamping_the_day(due in date(), r in recurrence()) {
        let next = renew(due, r);
        prop_assert_eq!(month_index(next) - month_index(due), i64::from(r.months()));
        let last = days_in_month(next.year(), next.month());
        prop_assert_eq!(next.day(), due.day().min(last));
    }

    /// Renewal keeps the order of due dates.
    #[test]
    fn renew_is_monotonic(a in date(), b in date(), r in recurrence()) {
        let (early, late) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(renew(early, r) <= renew(late, r));
    }

    /// N monthly renewals equal adding N months to the original date when its day exists in every
    /// month (up to the 28th); for later days they land in the same month, never after the
    /// original day and never before the 28th.
    #[test]
    fn n_monthly_renewals_add_n_months(due in date(), n in 1u32..40) {
        let mut renewed = due;
        for _ in 0..n {
            renewed = renew(renewed, Recurrence::Mensal);
        }
        let added = due.checked_add_months(Months::new(n)).expect("in range");
        if due.day() <= 28 {
            prop_assert_eq!(renewed, added);
        } else {
            prop_assert_eq!(month_index(renewed), month_index(added));
            prop_assert!(renewed.day() <= due.day());
            prop_assert!(renewed.day() >= 28);
            prop_assert!(renewed <= added);
        }
    }

    /// One longer renewal equals that many monthly renewals when the day is at most the 28th.
    #[test]
    fn longer_recurrences_are_repeated_months(due in date(), r in recurrence()) {
        prop_assume!(due.day() <= 28);
        let mut monthly = due;
        for _ in 0..r.months() {
            monthly = renew(monthly, Recurrence::Mensal);
        }
        prop_assert_eq!(renew(due, r), monthly);
    }

    /// The subscription's status follows its days left; company 1 is always active.
    #[test]
    fn subscription_status_follows_days_left(id in 2i64..1000, due in date(), today in date()) {
        let sub = subscription(CompanyId(id), due, today);
        prop_assert_eq!(sub.due_date, due);
        prop_assert_eq!(sub.days_left, (due - today).num_days());
        let expected = if sub.days_left < 0 {
            SubscriptionStatus::Expired
        } else if sub.days_left < WARNING_DAYS {
            SubscriptionStatus::Warning
        } else {
            SubscriptionStatus::Active
        };
        prop_assert_eq!(sub.status, expected);

        let platform = subscription(CompanyId::PLATFORM, due, today);
        prop_assert_eq!(platform.status, SubscriptionStatus::Active);
        prop_assert_eq!(platform.due_date, PLATFORM_DUE_DATE);
    }

    /// Due-date colours: red from the due day on, yellow in the five days before, none earlier.
    #[test]
    fn due_date_alert_follows_days_left(due in date(), today in date()) {
        let days = (due - today).num_days();
        let alert = due_date_alert(due, today);
        match alert {
            DueDateAlert::Red => prop_assert!(days <= 0),
            DueDateAlert::Yellow => prop_assert!((1..=5).contains(&days)),
            DueDateAlert::None => prop_assert!(days > 5),
        }
    }

    /// A signup's company is due seven days later, monthly, active.
    #[test]
    fn signup_is_due_a_week_later(today in date()) {
        let defaults = signup_defaults(today);
        prop_assert_eq!((defaults.due_date - today).num_days(), 7);
        prop_assert_eq!(defaults.recurrence, Recurrence::Mensal);
        prop_assert!(defaults.status);
    }

    /// The custom plan price is linear above the minimum and flat below it.
    #[test]
    fn custom_plan_price_is_linear(users in 0u32..500, connections in 0u32..500) {
        let price = custom_plan_price(users, connections);
        prop_assert!(price >= Money(49_00));
        prop_assert_eq!(
            custom_plan_price(users.max(3) + 1, connections).0 - custom_plan_price(users.max(3), connections).0,
            11_00
        );
        prop_assert_eq!(
            custom_plan_price(users, connections.max(3) + 1).0 - custom_plan_price(users, connections.max(3)).0,
            20_00
        );
        prop_assert_eq!(price, custom_plan_price(users.max(3), connections.max(3)));
    }
}
