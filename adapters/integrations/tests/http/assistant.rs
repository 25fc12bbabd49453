//! `HttpAssistant` against a fake OpenAI-compatible server.

use std::time::{Duration, Instant};

use chatflow_core::ErrorCode;
use chatflow_core::integrations::{AssistantClient, PromptSettings, assistant_request};
use chatflow_integrations::{HttpAssistant, HttpOptions};
use serde_json::{Value, json};

use crate::fake::{Fake, Reply, closed_port, fast_options};

const KEY: &str = "sk-test-4f9d2c1b8a7e6d5c";

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-9xYzAbC123",
        "object": "chat.completion",
        "created": 1_763_900_000,
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content, "refusal": null},
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 88, "completion_tokens": 14, "total_tokens": 102},
        "system_fingerprint": "fp_0ba0d124f1"
    })
}

fn server_error(status: u16) -> Reply {
    Reply::json(
        status,
        json!({"error": {"message": "The server is overloaded.", "type": "server_error",
                         "param": null, "code": null}}),
    )
}

fn request() -> chatflow_core::integrations::ChatRequest {
    let mut settings = PromptSettings::new("Você atende a Loja Azul.", KEY);
    settings.max_tokens = 150;
    settings.temperature = 0.7;
    assistant_request(
        &settings,
        &[
            (true, "oi".to_owned()),
            (false, "Olá! Como posso ajudar?".to_owned()),
            (true, "vocês abrem sábado?".to_owned()),
        ],
        "Maria",
    )
}

async fn assistant(fake: &Fake) -> HttpAssistant {
    HttpAssistant::new(format!("{}/v1", fake.base), fast_options()).expect("a client")
}

#[tokio::test]
async fn a_completion_is_sent_as_openai_expects_and_its_content_read() {
    let fake = Fake::start(|_, _| Reply::json(200, completion("Sim, das 9h às 13h."))).await;
    let reply = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect("an answer");
    assert_eq!(reply.content, "Sim, das 9h às 13h.");

    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    let call = &seen[0];
    assert_eq!(call.method, "POST");
    assert_eq!(call.path, "/v1/chat/completions");
    assert_eq!(
        call.authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
    assert_eq!(call.content_type.as_deref(), Some("application/json"));
    assert_eq!(call.body["model"], "gpt-4o-mini");
    assert_eq!(call.body["max_tokens"], 150);
    assert_eq!(call.body["temperature"], 0.7);
    let messages = call.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .expect("text")
            .starts_with("Você atende a Loja Azul.")
    );
    assert_eq!(messages[1], json!({"role": "user", "content": "oi"}));
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "vocês abrem sábado?"})
    );
    let keys: Vec<&String> = call.body.as_object().expect("an object").keys().collect();
    assert_eq!(
        keys.len(),
        4,
        "only model, messages, max_tokens, temperature: {keys:?}"
    );
}

#[tokio::test]
async fn a_request_may_name_its_own_base_url() {
    let fake = Fake::start(|_, _| Reply::json(200, completion("ok"))).await;
    let client = HttpAssistant::new("http://127.0.0.1:9/unused", fast_options()).expect("client");
    let mut request = request();
    request.base_url = Some(format!("{}/openai/v1/", fake.base));
    client.complete(&request).await.expect("an answer");
    assert_eq!(fake.seen()[0].path, "/openai/v1/chat/completions");
}

#[tokio::test]
async fn a_503_is_retried_then_the_answer_is_read() {
    let fake = Fake::start(|n, _| {
        if n == 0 {
            server_error(503)
        } else {
            Reply::json(200, completion("Agora sim."))
        }
    })
    .await;
    let reply = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect("an answer after a retry");
    assert_eq!(reply.content, "Agora sim.");
    assert_eq!(fake.calls(), 2);
    let seen = fake.seen();
    assert_eq!(seen[0].body, seen[1].body, "the same request is sent again");
}

#[tokio::test]
async fn transient_failures_stop_after_three_attempts() {
    let fake = Fake::start(|_, _| server_error(502)).await;
    let err = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect_err("always failing");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert_eq!(fake.calls(), 3);
    let detail = err.detail.expect("a detail");
    assert!(detail.contains("assistant at 127.0.0.1"), "{detail}");
    assert!(detail.contains("HTTP 502 (server_error)"), "{detail}");
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after_capped_by_the_longest_backoff() {
    let fake = Fake::start(|n, _| {
        if n == 0 {
            Reply::json(
                429,
                json!({"error": {"message": "Rate limit reached for gpt-4o-mini.",
                                 "type": "requests", "param": null, "code": "rate_limit_exceeded"}}),
            )
            .header("retry-after", "20")
        } else {
            Reply::json(200, completion("Pronto."))
        }
    })
    .await;
    let started = Instant::now();
    let reply = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect("an answer");
    assert_eq!(reply.content, "Pronto.");
    assert_eq!(fake.calls(), 2);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "Retry-After is capped"
    );
}

#[tokio::test]
async fn a_401_fails_at_once_and_never_leaks_the_key() {
    let fake = Fake::start(|_, _| {
        Reply::json(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {KEY}."),
                             "type": "invalid_request_error", "param": null,
                             "code": "invalid_api_key"}}),
        )
    })
    .await;
    let err = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect_err("refused");
    assert_eq!(fake.calls(), 1, "a 401 is not retried");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    let shown = format!("{err} {err:?}");
    assert!(shown.contains("HTTP 401 (invalid_api_key)"), "{shown}");
    assert!(!shown.contains(KEY), "the key leaked: {shown}");
    assert!(
        !shown.contains("Incorrect API key"),
        "the body leaked: {shown}"
    );
}

#[tokio::test]
async fn other_4xx_fail_at_once() {
    let fake = Fake::start(|_, _| {
        Reply::json(
            400,
            json!({"error": {"message": "max_tokens is too large", "type": "invalid_request_error",
                             "param": "max_tokens", "code": null}}),
        )
    })
    .await;
    let err = assistant(&fake)
        .await
        .complete(&request())
        .await
        .expect_err("refused");
    assert_eq!(fake.calls(), 1);
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("HTTP 400 (invalid_request_error)")),
        "{err}"
    );
}

#[tokio::test]
async fn a_slow_server_times_out_without_retrying() {
    let fake =
        Fake::start(|_, _| Reply::json(200, completion("tarde")).after(Duration::from_secs(3)))
            .await;
    let options = HttpOptions {
        request_timeout: Duration::from_millis(300),
        ..fast_options()
    };
    let client = HttpAssistant::new(format!("{}/v1", fake.base), options).expect("client");
    let started = Instant::now();
    let err = client.complete(&request()).await.expect_err("too slow");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("no answer in time")),
        "{err}"
    );
    assert_eq!(fake.calls(), 1);
}

#[tokio::test]
async fn malformed_answers_are_refused() {
    let fake = Fake::start(|n, _| match n {
        0 => Reply::raw(200, "application/json", "{\"choices\": [{\"message\": "),
        1 => Reply::json(200, json!({"object": "chat.completion", "choices": []})),
        2 => Reply::json(
            200,
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                                "refusal": "I can't help with that."}}]}),
        ),
        _ => Reply::raw(200, "text/html", "<html>proxy login</html>"),
    })
    .await;
    let client = assistant(&fake).await;
    for expected in [
        "unreadable answer",
        "no message content",
        "no message content",
        "unreadable answer",
    ] {
        let err = client.complete(&request()).await.expect_err("malformed");
        assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
        let detail = err.detail.expect("a detail");
        assert!(detail.contains(expected), "{detail}");
    }
    assert_eq!(fake.calls(), 4, "malformed answers are not retried");
}

#[tokio::test]
async fn an_unreachable_server_is_retried_then_reported() {
    let base = closed_port().await;
    let client = HttpAssistant::new(base, fast_options()).expect("client");
    let err = client
        .complete(&request())
        .await
        .expect_err("nobody listens");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
    assert!(
        err.detail
            .as_deref()
            .is_some_and(|d| d.contains("cannot connect")),
        "{err}"
    );
}

#[tokio::test]
async fn a_bad_base_url_is_reported() {
    let client = HttpAssistant::new("not a url", fast_options()).expect("client");
    let err = client.complete(&request()).await.expect_err("bad url");
    assert_eq!(err.code, ErrorCode::ERR_INTEGRATION_UNAVAILABLE);
}
