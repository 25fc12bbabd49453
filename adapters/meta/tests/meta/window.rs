//! The 24-hour window and the HUMAN_AGENT rule.

use chatflow_meta::window::{
    HUMAN_AGENT_WINDOW, SERVICE_WINDOW, SendMode, Window, WindowClosed, messenger_send_mode,
    service_window,
};
use chrono::TimeDelta;

use crate::at;

#[test]
fn the_cloud_window_is_open_for_24_hours_inclusive() {
    let last = at(1_764_000_000);
    let closes_at = last + SERVICE_WINDOW;
    assert_eq!(service_window(Some(last), last), Window::Open { closes_at });
    assert_eq!(
        service_window(Some(last), last + TimeDelta::hours(23)),
        Window::Open { closes_at }
    );
    assert_eq!(
        service_window(Some(last), closes_at),
        Window::Open { closes_at }
    );
    let after = closes_at + TimeDelta::seconds(1);
    assert_eq!(
        service_window(Some(last), after),
        Window::Closed {
            closed_at: Some(closes_at)
        }
    );
    assert!(!service_window(Some(last), after).is_open());
    assert_eq!(
        service_window(None, last),
        Window::Closed { closed_at: None }
    );
    // A last message "in the future" (clocks apart) counts as now.
    assert_eq!(
        service_window(Some(last + TimeDelta::hours(2)), last),
        Window::Open {
            closes_at: last + SERVICE_WINDOW
        }
    );
}

#[test]
fn messenger_replies_are_responses_then_human_agent_then_closed() {
    let last = at(1_764_000_000);
    assert_eq!(
        messenger_send_mode(Some(last), last),
        Ok(SendMode::Response)
    );
    assert_eq!(
        messenger_send_mode(Some(last), last + SERVICE_WINDOW),
        Ok(SendMode::Response)
    );
    let tagged = messenger_send_mode(Some(last), last + SERVICE_WINDOW + TimeDelta::seconds(1));
    assert_eq!(tagged, Ok(SendMode::HumanAgent));
    assert_eq!(SendMode::HumanAgent.messaging_type(), "MESSAGE_TAG");
    assert_eq!(SendMode::HumanAgent.tag(), Some("HUMAN_AGENT"));
    assert_eq!(SendMode::Response.messaging_type(), "RESPONSE");
    assert_eq!(SendMode::Response.tag(), None);
    assert_eq!(
        messenger_send_mode(Some(last), last + HUMAN_AGENT_WINDOW),
        Ok(SendMode::HumanAgent)
    );
    let closed = messenger_send_mode(
        Some(last),
        last + HUMAN_AGENT_WINDOW + TimeDelta::seconds(1),
    );
    assert_eq!(
        closed,
        Err(WindowClosed {
            closed_at: Some(last + HUMAN_AGENT_WINDOW)
        })
    );
    assert!(
        closed
            .expect_err("closed")
            .to_string()
            .contains("window is closed"),
        "the error says the window is closed"
    );
    assert_eq!(
        messenger_send_mode(None, last),
        Err(WindowClosed { closed_at: None })
    );
}
