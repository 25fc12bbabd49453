//! The server's API tests: one binary, a real server per test on SQLite and on PostgreSQL.

mod helpers;
mod mailbox;
mod socket_client;

mod auth;
mod automation;
mod connections;
mod contacts;
mod contacts_from_chats;
mod cross_company;
mod flows;
mod gaps;
mod handoff;
mod hostile_input;
mod malformed;
mod messages;
mod password_reset;
mod queues;
mod quick_message_tickets;
mod quick_messages;
mod realtime_seq;
mod sandbox_phones;
mod schedules;
mod session_hardening;
mod settings;
mod sockets;
mod tag_events;
mod tags;
mod tickets;
mod transport;
mod uploads;
mod users;
mod web;
mod whatsapp_web;
