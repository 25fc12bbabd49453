//! The server's API tests: one binary, a real server per test on SQLite and on PostgreSQL.

mod helpers;
mod mailbox;
mod socket_client;

mod auth;
mod cross_company;
mod malformed;
mod password_reset;
mod settings;
mod sockets;
mod users;
mod web;
