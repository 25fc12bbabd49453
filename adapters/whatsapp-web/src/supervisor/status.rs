//! What the library's session events mean for a connection's status (design B7), as a small
//! state machine without I/O: [`Tracker::on_event`] takes an event and answers the
//! [`SessionUpdate`] to report (if any) and what the run must do about it ([`Effect`]).
//!
//! | event | status | reason | run |
//! |---|---|---|---|
//! | `PairingQrCode` | `qrcode` (the QR as a data URL) | | |
//! | `PairingCode` | `PAIRING` with the code | | |
//! | `PairPasskeyConfirmation` | `PAIRING` with its code | | |
//! | `PairSuccess` | `PAIRING` (the number learnt) | | |
//! | `PairPasskeyRequest` | `PAIRING` | `PasskeyRequired` | |
//! | `Connected` | `CONNECTED` with the number | | the client may send |
//! | `Disconnected` | `OPENING` | `Reconnecting` | the library reconnects |
//! | `LoggedOut` | `DISCONNECTED` | `LoggedOut` | ends, keys wiped |
//! | `StreamReplaced` | `DISCONNECTED` | `Replaced` | ends |
//! | `TemporaryBan` | `DISCONNECTED`, `until` = now + expire | `TemporaryBan{code}` | ends |
//! | `ClientOutdated` | `DISCONNECTED` | `Outdated` | ends |
//! | `PairingQrCodesExhausted` | `TIMEOUT` | `QrExhausted` | ends (see below) |
//! | `ConnectFailure`, the library reconnects | `OPENING` | `Failed{message}` | |
//! | `ConnectFailure`, otherwise | `DISCONNECTED` | `Failed{message}` | ends |
//! | `PairingCodeError` | unchanged | `PairCodeError{throttled}` | |
//! | `PairingCodeRefresh` | unchanged, no code | `PairCodeError` (the code expired) | |
//! | `PairError`, `PairPasskeyError`, `QrScannedWithoutMultidevice` | unchanged | `Failed{message}` | |
//! | `StreamError` | (nothing: the library handles it) | | |
//!
//! Every other event is traffic (messages, receipts, calls, history...), for the inbound path.
//!
//! When the QR codes run out while a pair code is outstanding, the library keeps the socket up
//! for the code, so the user typing it is not cut off: no `TIMEOUT` yet. It comes when the code
//! fails or expires too, or when the run ends unpaired. A pairing clears every ending.
//!
//! "Unchanged" repeats the last update (its status, QR code and number) with the new reason,
//! since the host records every field of an update. An update equal to the last one is not
//! reported again (a pair code both answered and announced by the library is reported once).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::inbox::model::{ConnectionStatus, SessionReason, SessionUpdate};
use chrono::{DateTime, Utc};
use whatsapp_rust::types::events::Event;

/// What the run does about an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// Nothing more than the report.
    None,
    /// The session is logged in and up: its client may send.
    Connected,
    /// The socket is down (the library is reconnecting): no sends.
    Dropped,
    /// The run is over and no new one is built; `wipe_keys` after a logout.
    Ends { wipe_keys: bool },
    /// Not a session event: for the inbound path.
    Traffic,
}

/// The answer to one event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    pub report: Option<SessionUpdate>,
    pub effect: Effect,
}

impl Step {
    fn quiet(effect: Effect) -> Step {
        Step {
            report: None,
            effect,
        }
    }
}

/// The status of a connection as its runs reported it (see the module's documentation).
#[derive(Debug, Clone)]
pub(crate) struct Tracker {
    /// The last update reported (or meant to be: the base of "unchanged").
    last: SessionUpdate,
    /// Whether `last` was reported already.
    reported: bool,
    /// The account's number, once known (every update carries it).
    number: Option<String>,
    /// A QR code or a pair code is showing, and the phone has not paired yet.
    awaiting_link: bool,
    /// The QR codes ran out while a pair code was outstanding.
    qr_exhausted: bool,
    /// The run's ending, once an event ended it.
    ending: Option<Effect>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker::new()
    }
}

impl Tracker {
    pub(crate) fn new() -> Self {
        Tracker {
            last: SessionUpdate {
                status: ConnectionStatus::Opening,
                ..SessionUpdate::default()
            },
            reported: false,
            number: None,
            awaiting_link: false,
            qr_exhausted: false,
            ending: None,
        }
    }

    /// A new run starts (a fresh client): its pairing state starts over; the number is kept.
    pub(crate) fn new_run(&mut self) {
        self.awaiting_link = false;
        self.qr_exhausted = false;
        self.ending = None;
    }

    /// The last status reported.
    pub(crate) fn status(&self) -> ConnectionStatus {
        self.last.status
    }

    /// Whether a QR code or pair code is showing, the phone not yet paired: a pair code
    /// request is answered by this run's client.
    pub(crate) fn awaiting_link(&self) -> bool {
        self.awaiting_link
    }

    /// How an event ended the run, if one did.
    pub(crate) fn ending(&self) -> Option<Effect> {
        self.ending
    }

    /// The update to report for `status` with `reason` (no QR code, no pair code).
    pub(crate) fn set(
        &mut self,
        status: ConnectionStatus,
        reason: Option<SessionReason>,
        retries: i64,
    ) -> Option<SessionUpdate> {
        self.record(SessionUpdate {
            status,
            qrcode: String::new(),
            retries,
            number: self.number.clone(),
            pairing_code: None,
            reason,
            until: None,
        })
    }

    /// The session connected; `number` is the account's number when the caller knows it
    /// (from the device's stored identity), else the one learnt at pairing.
    pub(crate) fn connected(&mut self, number: Option<String>) -> Option<SessionUpdate> {
        self.awaiting_link = false;
        self.qr_exhausted = false;
        self.ending = None;
        if number.is_some() {
            self.number = number;
        }
        self.set(ConnectionStatus::Connected, None, 0)
    }

    /// A pair code this run's client answered (the library may announce it as an event too).
    pub(crate) fn pair_code(&mut self, code: String) -> Option<SessionUpdate> {
        self.awaiting_link = true;
        self.record(SessionUpdate {
            status: ConnectionStatus::Pairing,
            qrcode: String::new(),
            retries: 0,
            number: self.number.clone(),
            pairing_code: Some(code),
            reason: None,
            until: None,
        })
    }

    /// The run ended before any event ended it: `Some` when that is final (the QR codes had
    /// run out and the pair code did not pair), with the update to report.
    pub(crate) fn run_ended(&mut self) -> Option<(Option<SessionUpdate>, Effect)> {
        if let Some(ending) = self.ending {
            return Some((None, ending));
        }
        if self.qr_exhausted {
            return Some(self.timeout());
        }
        None
    }

    /// Maps one library event; `now` dates a ban's end.
    pub(crate) fn on_event(&mut self, event: &Event, now: DateTime<Utc>) -> Step {
        match event {
            Event::PairingQrCode(qr) => match qr_data_url(&qr.code) {
                Ok(url) => {
                    self.awaiting_link = true;
                    let update = SessionUpdate {
                        status: ConnectionStatus::Qrcode,
                        qrcode: url,
                        retries: 0,
                        number: self.number.clone(),
                        pairing_code: None,
                        reason: None,
                        until: None,
                    };
                    Step {
                        report: self.record(update),
                        effect: Effect::None,
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "a QR code that cannot be drawn");
                    Step::quiet(Effect::None)
                }
            },
            Event::PairingCode(code) => Step {
                report: self.pair_code(code.code.clone()),
                effect: Effect::None,
            },
            Event::PairPasskeyConfirmation(confirm) => Step {
                report: self.pair_code(confirm.code.clone()),
                effect: Effect::None,
            },
            Event::PairPasskeyRequest(_) => Step {
                report: self.set(
                    ConnectionStatus::Pairing,
                    Some(SessionReason::PasskeyRequired),
                    0,
                ),
                effect: Effect::None,
            },
            Event::PairSuccess(paired) => {
                self.awaiting_link = false;
                self.qr_exhausted = false;
                self.ending = None;
                self.number = Some(paired.id.user.to_string());
                Step {
                    report: self.set(ConnectionStatus::Pairing, None, 0),
                    effect: Effect::None,
                }
            }
            Event::Connected(_) => Step {
                // The caller reads the number and reports through `connected`.
                report: None,
                effect: Effect::Connected,
            },
            Event::Disconnected(_) => Step {
                report: self.set(
                    ConnectionStatus::Opening,
                    Some(SessionReason::Reconnecting),
                    0,
                ),
                effect: Effect::Dropped,
            },
            Event::LoggedOut(_) => self.ends(
                ConnectionStatus::Disconnected,
                SessionReason::LoggedOut,
                None,
                true,
            ),
            Event::StreamReplaced(_) => self.ends(
                ConnectionStatus::Disconnected,
                SessionReason::Replaced,
                None,
                false,
            ),
            Event::TemporaryBan(ban) => self.ends(
                ConnectionStatus::Disconnected,
                SessionReason::TemporaryBan {
                    code: i64::from(ban.code.code()),
                },
                Some(now + ban.expire),
                false,
            ),
            Event::ClientOutdated(_) => self.ends(
                ConnectionStatus::Disconnected,
                SessionReason::Outdated,
                None,
                false,
            ),
            Event::PairingQrCodesExhausted(exhausted) => {
                if exhausted.disconnected {
                    let (report, effect) = self.timeout();
                    Step { report, effect }
                } else {
                    self.qr_exhausted = true;
                    Step::quiet(Effect::None)
                }
            }
            Event::ConnectFailure(failure) => {
                let message = match &failure.message {
                    Some(text) => format!("{} ({})", text, failure.reason.code()),
                    None => format!("connection refused ({})", failure.reason.code()),
                };
                if failure.reason.should_reconnect() {
                    Step {
                        report: self.set(
                            ConnectionStatus::Opening,
                            Some(SessionReason::Failed { message }),
                            0,
                        ),
                        effect: Effect::Dropped,
                    }
                } else {
                    self.ends(
                        ConnectionStatus::Disconnected,
                        SessionReason::Failed { message },
                        None,
                        false,
                    )
                }
            }
            Event::PairingCodeError(error) => {
                if self.qr_exhausted {
                    let (report, effect) = self.timeout();
                    return Step { report, effect };
                }
                let throttled = error.rejection.is_some_and(|r| r.is_throttled());
                Step {
                    report: self.unchanged(SessionReason::PairCodeError {
                        throttled,
                        message: error.error.clone(),
                    }),
                    effect: Effect::None,
                }
            }
            Event::PairingCodeRefresh(_) => {
                if self.qr_exhausted {
                    let (report, effect) = self.timeout();
                    return Step { report, effect };
                }
                Step {
                    report: self.unchanged(SessionReason::PairCodeError {
                        throttled: false,
                        message: "the pair code expired; ask for a new one".to_owned(),
                    }),
                    effect: Effect::None,
                }
            }
            Event::PairError(error) => Step {
                report: self.unchanged(SessionReason::Failed {
                    message: error.error.clone(),
                }),
                effect: Effect::None,
            },
            Event::PairPasskeyError(error) => Step {
                report: self.unchanged(SessionReason::Failed {
                    message: error.error.clone(),
                }),
                effect: Effect::None,
            },
            Event::QrScannedWithoutMultidevice(_) => Step {
                report: self.unchanged(SessionReason::Failed {
                    message: "the phone scanned the QR code but cannot link devices".to_owned(),
                }),
                effect: Effect::None,
            },
            Event::StreamError(error) => {
                tracing::debug!(code = %error.code, "stream error (the library handles it)");
                Step::quiet(Effect::None)
            }
            _ => Step::quiet(Effect::Traffic),
        }
    }

    /// A final status: reported, and the run ends.
    fn ends(
        &mut self,
        status: ConnectionStatus,
        reason: SessionReason,
        until: Option<DateTime<Utc>>,
        wipe_keys: bool,
    ) -> Step {
        let effect = Effect::Ends { wipe_keys };
        self.awaiting_link = false;
        self.ending = Some(effect);
        let report = self.record(SessionUpdate {
            status,
            qrcode: String::new(),
            retries: 0,
            number: self.number.clone(),
            pairing_code: None,
            reason: Some(reason),
            until,
        });
        Step { report, effect }
    }

    /// TIMEOUT: every QR code expired unscanned.
    fn timeout(&mut self) -> (Option<SessionUpdate>, Effect) {
        let step = self.ends(
            ConnectionStatus::Timeout,
            SessionReason::QrExhausted,
            None,
            false,
        );
        (step.report, step.effect)
    }

    /// The last update with another reason (a pair code cleared: it is no longer valid).
    fn unchanged(&mut self, reason: SessionReason) -> Option<SessionUpdate> {
        let mut update = self.last.clone();
        update.number = self.number.clone();
        update.pairing_code = None;
        update.until = None;
        update.reason = Some(reason);
        self.record(update)
    }

    /// Makes `update` the last one; `None` when it repeats what was reported already.
    fn record(&mut self, update: SessionUpdate) -> Option<SessionUpdate> {
        if self.reported && update == self.last {
            return None;
        }
        self.last = update.clone();
        self.reported = true;
        Some(update)
    }
}

/// The QR code of `text` as a `data:image/svg+xml;base64,...` URL (the same drawing as the
/// sandbox's pairing codes).
pub fn qr_data_url(text: &str) -> Result<String, qrcode::types::QrError> {
    let code = qrcode::QrCode::new(text.as_bytes())?;
    let svg = code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(256, 256)
        .build();
    Ok(format!(
        "data:image/svg+xml;base64,{}",
        STANDARD.encode(svg.as_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::TimeDelta;
    use whatsapp_rust::Jid;
    use whatsapp_rust::types::events::{
        ClientOutdated, ConnectFailure, ConnectFailureReason, Connected, Disconnected, LoggedOut,
        OfflineSyncCompleted, PairPasskeyRequest, PairSuccess, PairingCode, PairingCodeError,
        PairingQrCode, PairingQrCodesExhausted, StreamReplaced, TempBanReason, TemporaryBan,
    };
    use whatsapp_rust::wacore::net::DisconnectReason;
    use whatsapp_rust::wacore::pair_code::PairCodeRejection;

    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time")
    }

    fn qr(code: &str) -> Event {
        Event::PairingQrCode(
            PairingQrCode::builder()
                .code(code.to_owned())
                .timeout(Duration::from_secs(60))
                .build(),
        )
    }

    fn pair_code(code: &str) -> Event {
        Event::PairingCode(
            PairingCode::builder()
                .code(code.to_owned())
                .timeout(Duration::from_secs(180))
                .build(),
        )
    }

    fn exhausted(disconnected: bool) -> Event {
        Event::PairingQrCodesExhausted(
            PairingQrCodesExhausted::builder()
                .disconnected(disconnected)
                .build(),
        )
    }

    fn code_error(rejection: Option<PairCodeRejection>) -> Event {
        Event::PairingCodeError(
            PairingCodeError::builder()
                .maybe_rejection(rejection)
                .error("refused".to_owned())
                .build(),
        )
    }

    fn paired(number: &str) -> Event {
        let jid: Jid = format!("{number}@s.whatsapp.net").parse().expect("a jid");
        let lid: Jid = "99887766@lid".parse().expect("a lid");
        Event::PairSuccess(
            PairSuccess::builder()
                .id(jid)
                .lid(lid)
                .business_name(String::new())
                .platform("android".to_owned())
                .build(),
        )
    }

    fn failure(reason: ConnectFailureReason) -> Event {
        Event::ConnectFailure(ConnectFailure::builder().reason(reason).build())
    }

    /// Feeds `event`, answering its report and effect.
    fn feed(tracker: &mut Tracker, event: Event) -> (Option<SessionUpdate>, Effect) {
        let step = tracker.on_event(&event, now());
        (step.report, step.effect)
    }

    fn status_and_reason(update: &SessionUpdate) -> (ConnectionStatus, Option<SessionReason>) {
        (update.status, update.reason.clone())
    }

    #[test]
    fn a_qr_code_is_shown_as_an_svg_data_url() {
        let mut tracker = Tracker::new();
        let (update, effect) = feed(&mut tracker, qr("2@abc,def,ghi"));
        let update = update.expect("reported");
        assert_eq!(effect, Effect::None);
        assert_eq!(update.status, ConnectionStatus::Qrcode);
        let encoded = update
            .qrcode
            .strip_prefix("data:image/svg+xml;base64,")
            .expect("an SVG data URL");
        let svg = String::from_utf8(STANDARD.decode(encoded).expect("base64")).expect("utf-8");
        assert!(svg.contains("<svg"));
        assert!(tracker.awaiting_link());
        // The next QR code is another image.
        let (next, _) = feed(&mut tracker, qr("2@xyz,def,ghi"));
        assert_ne!(next.expect("reported").qrcode, update.qrcode);
    }

    #[test]
    fn pairing_shows_the_code_then_the_number_then_connects() {
        let mut tracker = Tracker::new();
        let (update, _) = feed(&mut tracker, pair_code("ABCD1234"));
        let update = update.expect("reported");
        assert_eq!(update.status, ConnectionStatus::Pairing);
        assert_eq!(update.pairing_code.as_deref(), Some("ABCD1234"));
        assert!(update.qrcode.is_empty());
        // The same code answered by the client after the library announced it: once.
        assert_eq!(tracker.pair_code("ABCD1234".to_owned()), None);

        let (update, _) = feed(&mut tracker, paired("5511999990000"));
        let update = update.expect("reported");
        assert_eq!(update.status, ConnectionStatus::Pairing);
        assert_eq!(update.pairing_code, None);
        assert_eq!(update.number.as_deref(), Some("5511999990000"));
        assert!(!tracker.awaiting_link());

        let (update, effect) = feed(&mut tracker, Event::Connected(Connected::builder().build()));
        assert_eq!(update, None, "the caller reports with the stored number");
        assert_eq!(effect, Effect::Connected);
        let update = tracker.connected(None).expect("reported");
        assert_eq!(update.status, ConnectionStatus::Connected);
        assert_eq!(update.number.as_deref(), Some("5511999990000"));
        assert_eq!(update.reason, None);
        // The stored identity's number wins.
        let update = tracker
            .connected(Some("5511888880000".to_owned()))
            .expect("reported");
        assert_eq!(update.number.as_deref(), Some("5511888880000"));
    }

    #[test]
    fn a_dropped_socket_is_opening_and_reconnecting() {
        let mut tracker = Tracker::new();
        tracker.connected(Some("5511999990000".to_owned()));
        let (update, effect) = feed(
            &mut tracker,
            Event::Disconnected(
                Disconnected::builder()
                    .reason(DisconnectReason::StreamEnded)
                    .build(),
            ),
        );
        let update = update.expect("reported");
        assert_eq!(
            status_and_reason(&update),
            (ConnectionStatus::Opening, Some(SessionReason::Reconnecting))
        );
        assert_eq!(update.number.as_deref(), Some("5511999990000"));
        assert_eq!(effect, Effect::Dropped);
        assert_eq!(tracker.ending(), None);
        assert!(
            tracker.run_ended().is_none(),
            "a run that ends now is rebuilt"
        );
    }

    #[test]
    fn final_events_end_the_run_with_their_reason() {
        let cases: Vec<(Event, ConnectionStatus, SessionReason, bool)> = vec![
            (
                Event::LoggedOut(
                    LoggedOut::builder()
                        .on_connect(false)
                        .reason(ConnectFailureReason::LoggedOut)
                        .build(),
                ),
                ConnectionStatus::Disconnected,
                SessionReason::LoggedOut,
                true,
            ),
            (
                Event::StreamReplaced(StreamReplaced::builder().build()),
                ConnectionStatus::Disconnected,
                SessionReason::Replaced,
                false,
            ),
            (
                Event::ClientOutdated(ClientOutdated::builder().build()),
                ConnectionStatus::Disconnected,
                SessionReason::Outdated,
                false,
            ),
            (
                exhausted(true),
                ConnectionStatus::Timeout,
                SessionReason::QrExhausted,
                false,
            ),
            (
                failure(ConnectFailureReason::BadUserAgent),
                ConnectionStatus::Disconnected,
                SessionReason::Failed {
                    message: "connection refused (409)".to_owned(),
                },
                false,
            ),
        ];
        for (event, status, reason, wipe_keys) in cases {
            let mut tracker = Tracker::new();
            let (update, effect) = feed(&mut tracker, event);
            let update = update.expect("reported");
            assert_eq!(status_and_reason(&update), (status, Some(reason)));
            assert_eq!(update.until, None);
            assert_eq!(effect, Effect::Ends { wipe_keys });
            assert_eq!(tracker.ending(), Some(Effect::Ends { wipe_keys }));
            assert_eq!(
                tracker.run_ended(),
                Some((None, Effect::Ends { wipe_keys }))
            );
        }
    }

    #[test]
    fn a_ban_shows_when_it_ends() {
        let mut tracker = Tracker::new();
        let (update, effect) = feed(
            &mut tracker,
            Event::TemporaryBan(
                TemporaryBan::builder()
                    .code(TempBanReason::SentToTooManyPeople)
                    .expire(TimeDelta::hours(12))
                    .build(),
            ),
        );
        let update = update.expect("reported");
        assert_eq!(update.status, ConnectionStatus::Disconnected);
        assert_eq!(
            update.reason,
            Some(SessionReason::TemporaryBan { code: 101 })
        );
        assert_eq!(update.until, Some(now() + TimeDelta::hours(12)));
        assert_eq!(effect, Effect::Ends { wipe_keys: false });
    }

    #[test]
    fn a_refusal_the_library_retries_keeps_the_run() {
        let mut tracker = Tracker::new();
        let (update, effect) = feed(
            &mut tracker,
            failure(ConnectFailureReason::ServiceUnavailable),
        );
        let update = update.expect("reported");
        assert_eq!(update.status, ConnectionStatus::Opening);
        assert_eq!(
            update.reason,
            Some(SessionReason::Failed {
                message: "connection refused (503)".to_owned()
            })
        );
        assert_eq!(effect, Effect::Dropped);
        assert_eq!(tracker.ending(), None);
    }

    #[test]
    fn a_pair_code_error_keeps_the_status_and_says_whether_to_wait() {
        let mut tracker = Tracker::new();
        let shown = feed(&mut tracker, qr("2@abc")).0.expect("reported");
        let (update, effect) = feed(
            &mut tracker,
            code_error(Some(PairCodeRejection::RateOverlimit)),
        );
        let update = update.expect("reported");
        assert_eq!(effect, Effect::None);
        assert_eq!(update.status, ConnectionStatus::Qrcode);
        assert_eq!(update.qrcode, shown.qrcode, "the QR code stays");
        assert_eq!(
            update.reason,
            Some(SessionReason::PairCodeError {
                throttled: true,
                message: "refused".to_owned()
            })
        );
        let (update, _) = feed(&mut tracker, code_error(None));
        assert_eq!(
            update.expect("reported").reason,
            Some(SessionReason::PairCodeError {
                throttled: false,
                message: "refused".to_owned()
            })
        );
        assert_eq!(tracker.ending(), None);
    }

    #[test]
    fn a_passkey_request_is_pairing_with_its_reason() {
        let mut tracker = Tracker::new();
        let (update, _) = feed(
            &mut tracker,
            Event::PairPasskeyRequest(
                PairPasskeyRequest::builder()
                    .request_options_json("{}".to_owned())
                    .build(),
            ),
        );
        let update = update.expect("reported");
        assert_eq!(
            status_and_reason(&update),
            (
                ConnectionStatus::Pairing,
                Some(SessionReason::PasskeyRequired)
            )
        );
    }

    #[test]
    fn qr_codes_running_out_while_a_pair_code_is_outstanding_wait_for_the_code() {
        let mut tracker = Tracker::new();
        feed(&mut tracker, qr("2@abc"));
        feed(&mut tracker, pair_code("ABCD1234"));
        let (update, effect) = feed(&mut tracker, exhausted(false));
        assert_eq!(
            (update, effect),
            (None, Effect::None),
            "the code may still be typed"
        );
        assert_eq!(tracker.ending(), None);
        // The code fails too: now it is over.
        let (update, effect) = feed(&mut tracker, code_error(None));
        let update = update.expect("reported");
        assert_eq!(
            status_and_reason(&update),
            (ConnectionStatus::Timeout, Some(SessionReason::QrExhausted))
        );
        assert_eq!(effect, Effect::Ends { wipe_keys: false });

        // Or the run ends with the code untyped.
        let mut tracker = Tracker::new();
        feed(&mut tracker, pair_code("ABCD1234"));
        feed(&mut tracker, exhausted(false));
        let (update, effect) = tracker.run_ended().expect("final");
        assert_eq!(
            status_and_reason(&update.expect("reported")),
            (ConnectionStatus::Timeout, Some(SessionReason::QrExhausted))
        );
        assert_eq!(effect, Effect::Ends { wipe_keys: false });

        // Or the phone pairs with it: no timeout at all.
        let mut tracker = Tracker::new();
        feed(&mut tracker, pair_code("ABCD1234"));
        feed(&mut tracker, exhausted(false));
        feed(&mut tracker, paired("5511999990000"));
        assert!(tracker.run_ended().is_none());
    }

    #[test]
    fn other_events_are_traffic_and_repeats_are_not_reported() {
        let mut tracker = Tracker::new();
        let (update, effect) = feed(
            &mut tracker,
            Event::OfflineSyncCompleted(OfflineSyncCompleted::builder().count(3).build()),
        );
        assert_eq!((update, effect), (None, Effect::Traffic));

        let first = tracker.set(ConnectionStatus::Opening, None, 0);
        assert!(first.is_some(), "the first update is always reported");
        assert_eq!(tracker.set(ConnectionStatus::Opening, None, 0), None);
        assert!(tracker.set(ConnectionStatus::Opening, None, 1).is_some());
    }
}
