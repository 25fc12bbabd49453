//! The ticket state machine of spec 1 §4.
