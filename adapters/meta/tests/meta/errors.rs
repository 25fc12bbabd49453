//! Graph's errors: classification and the core's codes.

use chatflow_core::ErrorCode;
use chatflow_meta::graph::error::{ErrorClass, GraphError, Operation, classify};
use serde_json::json;

fn answer(status: u16, body: serde_json::Value) -> GraphError {
    GraphError::from_answer(status, body.to_string().as_bytes())
}

#[test]
fn throttling_and_temporary_codes_are_retryable() {
    for code in [4, 17, 32, 613, 80_007, 130_429, 131_056, 2] {
        assert_eq!(
            classify(Some(400), Some(code), None, false),
            ErrorClass::Retryable,
            "{code}"
        );
    }
    // 131000 is "something went wrong": retried only when Graph answered 5xx.
    assert_eq!(
        classify(Some(500), Some(131_000), None, false),
        ErrorClass::Retryable
    );
    assert_eq!(
        classify(Some(400), Some(131_000), None, false),
        ErrorClass::Permanent
    );
    assert_eq!(
        classify(Some(503), None, None, false),
        ErrorClass::Retryable
    );
    assert_eq!(
        classify(Some(429), None, None, false),
        ErrorClass::Retryable
    );
    assert_eq!(
        classify(Some(400), Some(100), None, true),
        ErrorClass::Retryable
    );
}

#[test]
fn the_window_is_its_own_class() {
    assert_eq!(
        classify(Some(400), Some(131_047), None, false),
        ErrorClass::WindowClosed
    );
    assert_eq!(
        classify(Some(400), Some(10), Some(2_018_278), false),
        ErrorClass::WindowClosed
    );
    assert_eq!(
        classify(Some(400), Some(10), None, false),
        ErrorClass::Permanent
    );
}

#[test]
fn everything_else_is_permanent_with_meta_s_reason_kept() {
    for code in [190, 100, 131_026, 131_048, 132_000, 368, 131_051] {
        assert_eq!(
            classify(Some(400), Some(code), None, false),
            ErrorClass::Permanent,
            "{code}"
        );
    }
    let error = answer(
        400,
        json!({"error": {"message": "(#131026) Message Undeliverable", "type": "OAuthException",
                         "code": 131026, "error_data": {"messaging_product": "whatsapp",
                         "details": "Recipient is not a WhatsApp user"}, "fbtrace_id": "Az8or2yhqkZfEZ-_4Qn_Bam"}}),
    );
    assert_eq!(error.class, ErrorClass::Permanent);
    assert_eq!(error.code, Some(131_026));
    assert_eq!(error.fbtrace_id.as_deref(), Some("Az8or2yhqkZfEZ-_4Qn_Bam"));
    assert_eq!(
        error.message,
        "(#131026) Message Undeliverable: Recipient is not a WhatsApp user"
    );
    let core = error.to_core(Operation::Send);
    assert_eq!(core.code, ErrorCode::ERR_SENDING_WAPP_MSG);
    let detail = core.detail.expect("a detail");
    assert!(detail.contains("131026"), "{detail}");
    assert!(
        detail.contains("Recipient is not a WhatsApp user"),
        "{detail}"
    );
}

#[test]
fn the_core_code_follows_what_was_being_done() {
    let token = answer(
        401,
        json!({"error": {"message": "Error validating access token: Session has expired",
                         "type": "OAuthException", "code": 190, "error_subcode": 463}}),
    );
    assert!(token.is_auth());
    assert_eq!(
        token.to_core(Operation::Account).code,
        ErrorCode::ERR_INVALID_CREDENTIALS
    );
    assert_eq!(
        token.to_core(Operation::Send).code,
        ErrorCode::ERR_SENDING_WAPP_MSG
    );
    assert_eq!(
        token.to_core(Operation::Download).code,
        ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA
    );
    let busy = answer(
        500,
        json!({"error": {"message": "busy", "type": "OAuthException", "code": 2}}),
    );
    assert_eq!(busy.class, ErrorClass::Retryable);
    assert!(
        !busy.is_auth(),
        "a temporary error is not a credentials problem"
    );
    assert_eq!(
        busy.to_core(Operation::Account).code,
        ErrorCode::ERR_WAPP_NOT_INITIALIZED
    );
    let window = answer(
        400,
        json!({"error": {"message": "Re-engagement message", "code": 131047}}),
    );
    let detail = window.to_core(Operation::Send).detail.expect("a detail");
    assert!(
        detail.contains("outside the customer-service window"),
        "{detail}"
    );
}

#[test]
fn an_answer_without_graph_s_error_is_classified_by_its_status() {
    let html = GraphError::from_answer(502, b"<html>Bad Gateway</html>");
    assert_eq!(html.class, ErrorClass::Retryable);
    assert_eq!(html.code, None);
    assert_eq!(
        GraphError::from_answer(404, b"").class,
        ErrorClass::Permanent
    );
}
