//! The integration adapters against local fake servers that behave like the real APIs.

mod assistant;
mod fake;
mod typebot;
