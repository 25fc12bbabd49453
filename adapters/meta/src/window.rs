//! The customer-service windows: pure functions of the time of the customer's last message and
//! now (the caller's clock).
//!
//! - **WhatsApp Cloud API.** A customer's message opens (or refreshes) a 24-hour window. Inside
//!   it any message may be sent; outside it only approved templates (a free-form send fails with
//!   131047). [`service_window`] tells whether it is open and when it closes.
//! - **Messenger and Instagram.** The same 24 hours for a plain reply (`messaging_type`
//!   `RESPONSE`); a human agent may answer up to 7 days after the customer's last message with
//!   the `HUMAN_AGENT` tag; beyond that nothing can be sent. [`messenger_send_mode`] picks.
//!
//! The ends are inclusive: a reply exactly 24 hours after the customer's message is still
//! inside. A last message in the future (clocks apart) counts as now.

use chrono::{DateTime, TimeDelta, Utc};

/// How long a customer's message keeps the window open (24 hours).
pub const SERVICE_WINDOW: TimeDelta = TimeDelta::hours(24);

/// How long a human agent may still answer on Messenger and Instagram with `HUMAN_AGENT` (7 days).
pub const HUMAN_AGENT_WINDOW: TimeDelta = TimeDelta::days(7);

/// Whether a free-form message may be sent now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// Open until `closes_at`.
    Open {
        /// When it closes unless the customer writes again.
        closes_at: DateTime<Utc>,
    },
    /// Closed since `closed_at` (`None`: the customer never wrote).
    Closed {
        /// When it closed (`None`: the customer never wrote).
        closed_at: Option<DateTime<Utc>>,
    },
}

impl Window {
    /// Whether it is open.
    pub fn is_open(self) -> bool {
        matches!(self, Window::Open { .. })
    }
}

/// The 24-hour window of a chat whose customer last wrote at `last_inbound` (`None`: never).
pub fn service_window(last_inbound: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Window {
    let Some(last) = last_inbound else {
        return Window::Closed { closed_at: None };
    };
    let closes_at = last.min(now) + SERVICE_WINDOW;
    if now <= closes_at {
        Window::Open { closes_at }
    } else {
        Window::Closed {
            closed_at: Some(closes_at),
        }
    }
}

/// How a Messenger or Instagram message is sent (its `messaging_type` and `tag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendMode {
    /// `messaging_type: RESPONSE`, inside the 24 hours.
    Response,
    /// `messaging_type: MESSAGE_TAG`, `tag: HUMAN_AGENT`, after 24 hours and within 7 days.
    HumanAgent,
}

impl SendMode {
    /// The `messaging_type` field.
    pub const fn messaging_type(self) -> &'static str {
        match self {
            SendMode::Response => "RESPONSE",
            SendMode::HumanAgent => "MESSAGE_TAG",
        }
    }

    /// The `tag` field, only with `MESSAGE_TAG`.
    pub const fn tag(self) -> Option<&'static str> {
        match self {
            SendMode::Response => None,
            SendMode::HumanAgent => Some("HUMAN_AGENT"),
        }
    }
}

/// Nothing may be sent: the customer's last message is older than 7 days, or there was none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the messaging window is closed (the customer's last message is more than 7 days old, or there is none); wait for the customer to write"
)]
pub struct WindowClosed {
    /// When the human-agent window closed (`None`: the customer never wrote).
    pub closed_at: Option<DateTime<Utc>>,
}

/// The send mode of a Messenger or Instagram reply now, for a customer who last wrote at
/// `last_inbound`: `RESPONSE` within 24 hours, `HUMAN_AGENT` within 7 days, else closed.
pub fn messenger_send_mode(
    last_inbound: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<SendMode, WindowClosed> {
    let Some(last) = last_inbound else {
        return Err(WindowClosed { closed_at: None });
    };
    let elapsed = now - last.min(now);
    if elapsed <= SERVICE_WINDOW {
        Ok(SendMode::Response)
    } else if elapsed <= HUMAN_AGENT_WINDOW {
        Ok(SendMode::HumanAgent)
    } else {
        Err(WindowClosed {
            closed_at: Some(last + HUMAN_AGENT_WINDOW),
        })
    }
}
