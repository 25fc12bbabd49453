//! The webhook's challenge and signature checks.

use chatflow_meta::fake::WebhookDriver;
use chatflow_meta::verify::{VerifyError, check_challenge, check_signature, sign};

const SECRET: &str = "6a3f0c2e9b8d4f1a";
const BODY: &[u8] = br#"{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messages":[{"text":{"body":"Ol\u00e1 \ud83d\ude00 caf\u00e9"}}]}}]}]}"#;

#[test]
fn a_body_signed_with_the_secret_passes() {
    let header = sign(BODY, SECRET.as_bytes());
    assert!(header.starts_with("sha256="));
    assert_eq!(header.len(), 7 + 64);
    assert_eq!(check_signature(Some(&header), BODY, &[SECRET]), Ok(()));
    // Meta's header may come in upper case hex and with a capitalised scheme.
    let upper = format!("SHA256={}", header[7..].to_uppercase());
    assert_eq!(check_signature(Some(&upper), BODY, &[SECRET]), Ok(()));
}

#[test]
fn a_known_vector_matches() {
    // HMAC-SHA256(key = "key", "The quick brown fox jumps over the lazy dog").
    assert_eq!(
        sign(b"The quick brown fox jumps over the lazy dog", b"key"),
        "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
    );
}

#[test]
fn a_changed_body_or_another_secret_fails() {
    let header = sign(BODY, SECRET.as_bytes());
    let mut changed = BODY.to_vec();
    changed[10] ^= 1;
    assert_eq!(
        check_signature(Some(&header), &changed, &[SECRET]),
        Err(VerifyError::BadSignature)
    );
    // Re-serialising the JSON (escapes become characters) is another body.
    let reserialised =
        serde_json::to_vec(&serde_json::from_slice::<serde_json::Value>(BODY).expect("json"))
            .expect("bytes");
    assert_ne!(reserialised, BODY);
    assert_eq!(
        check_signature(Some(&header), &reserialised, &[SECRET]),
        Err(VerifyError::BadSignature)
    );
    assert_eq!(
        check_signature(Some(&header), BODY, &["another-secret"]),
        Err(VerifyError::BadSignature)
    );
}

#[test]
fn a_missing_or_malformed_header_fails_closed() {
    assert_eq!(
        check_signature(None, BODY, &[SECRET]),
        Err(VerifyError::MissingSignature)
    );
    let good = sign(BODY, SECRET.as_bytes());
    let digits = &good[7..];
    for bad in [
        String::new(),
        "sha256=".to_owned(),
        digits.to_owned(),
        format!("sha1={digits}"),
        format!("sha256={}", &digits[..63]),
        format!("sha256={digits}0"),
        format!("sha256={}zz", &digits[..62]),
    ] {
        assert_eq!(
            check_signature(Some(&bad), BODY, &[SECRET]),
            Err(VerifyError::MalformedSignature),
            "{bad:?}"
        );
    }
}

#[test]
fn no_secret_or_an_empty_one_refuses_everything() {
    // The signature of an empty key: still refused.
    let header = sign(BODY, b"");
    assert_eq!(
        check_signature::<&str>(Some(&header), BODY, &[]),
        Err(VerifyError::NoSecret)
    );
    assert_eq!(
        check_signature(Some(&header), BODY, &[""]),
        Err(VerifyError::NoSecret)
    );
}

#[test]
fn during_rotation_either_secret_passes() {
    let old = "old-secret-1111";
    let new = "new-secret-2222";
    let by_old = sign(BODY, old.as_bytes());
    let by_new = sign(BODY, new.as_bytes());
    assert_eq!(check_signature(Some(&by_old), BODY, &[new, old]), Ok(()));
    assert_eq!(check_signature(Some(&by_new), BODY, &[new, old]), Ok(()));
    // Once the old one is retired, its signatures fail.
    assert_eq!(
        check_signature(Some(&by_old), BODY, &[new]),
        Err(VerifyError::BadSignature)
    );
    // An empty entry in the list does not open the door.
    assert_eq!(check_signature(Some(&by_new), BODY, &["", new]), Ok(()));
}

#[test]
fn the_driver_signs_what_the_check_accepts() {
    let driver = WebhookDriver::new(SECRET);
    let signed = driver.cloud(
        "102290129340398",
        "106540352242922",
        serde_json::json!({"messages": []}),
    );
    assert_eq!(
        check_signature(Some(&signed.signature), &signed.body, &[SECRET]),
        Ok(())
    );
    assert_eq!(
        check_signature(Some(&signed.signature), &signed.body, &["x"]),
        Err(VerifyError::BadSignature)
    );
}

#[test]
fn the_challenge_is_echoed_only_for_our_token() {
    let query = WebhookDriver::challenge_query("our-verify-token", "1158201444");
    let pairs = || query.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    assert_eq!(
        check_challenge(pairs(), "our-verify-token"),
        Ok("1158201444".to_owned())
    );
    assert_eq!(
        check_challenge(pairs(), "another-token"),
        Err(VerifyError::WrongVerifyToken)
    );
    // An empty configured token matches nothing, not even an empty one.
    assert_eq!(
        check_challenge(
            [
                ("hub.mode", "subscribe"),
                ("hub.verify_token", ""),
                ("hub.challenge", "1")
            ],
            ""
        ),
        Err(VerifyError::WrongVerifyToken)
    );
    assert_eq!(
        check_challenge(
            [
                ("hub.mode", "unsubscribe"),
                ("hub.verify_token", "t"),
                ("hub.challenge", "1")
            ],
            "t"
        ),
        Err(VerifyError::WrongMode)
    );
    assert_eq!(
        check_challenge([("hub.verify_token", "t"), ("hub.challenge", "1")], "t"),
        Err(VerifyError::WrongMode)
    );
    assert_eq!(
        check_challenge([("hub.mode", "subscribe"), ("hub.verify_token", "t")], "t"),
        Err(VerifyError::MissingChallenge)
    );
}

#[test]
fn the_header_alone_is_refused_before_the_body_is_read() {
    use chatflow_meta::verify::check_header;
    let good = sign(BODY, SECRET.as_bytes());
    assert_eq!(check_header(Some(&good), &[SECRET]), Ok(()));
    // A well-formed header passes this step whatever the body: the body is checked next.
    assert_eq!(check_header(Some(&sign(b"other", b"k")), &[SECRET]), Ok(()));
    assert_eq!(
        check_header(None, &[SECRET]),
        Err(VerifyError::MissingSignature)
    );
    assert_eq!(
        check_header(Some("sha256=xyz"), &[SECRET]),
        Err(VerifyError::MalformedSignature)
    );
    assert_eq!(check_header(Some(&good), &[""]), Err(VerifyError::NoSecret));
}
