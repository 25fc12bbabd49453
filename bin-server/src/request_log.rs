//! The request log's spans: method, URI and version, like tower-http's default, with secrets
//! taken out of the URI.
//!
//! Two kinds of secret travel in URIs: the password-reset code and new password, which the web
//! app puts in the path of `POST /resetpasswords/{email}/{token}/{newPassword}` (spec 3 §7), and
//! the access token a socket.io client may pass as the `token` query parameter. [`loggable_uri`]
//! replaces them with `[redacted]`; everything else is logged as sent.

use axum::http::{Request, Uri};
use tower_http::trace::MakeSpan;

/// What replaces a secret in the log.
pub const REDACTED: &str = "[redacted]";

/// The path prefix whose later segments are secrets.
const RESET_PREFIX: &str = "/resetpasswords/";

/// Makes the span of each HTTP request, at `INFO` level, with [`loggable_uri`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestSpan;

impl<B> MakeSpan<B> for RequestSpan {
    fn make_span(&mut self, request: &Request<B>) -> tracing::Span {
        tracing::info_span!(
            "request",
            method = %request.method(),
            uri = %loggable_uri(request.uri()),
            version = ?request.version(),
        )
    }
}

/// The URI as it may be logged: after `/resetpasswords/{email}/` every path segment is hidden,
/// and so is the value of a `token` or `access_token` query parameter.
pub fn loggable_uri(uri: &Uri) -> String {
    let path = uri.path();
    let path = match path.get(..RESET_PREFIX.len()) {
        Some(prefix) if prefix.eq_ignore_ascii_case(RESET_PREFIX) => {
            let rest = &path[RESET_PREFIX.len()..];
            let mut segments = rest.split('/');
            let email = segments.next().unwrap_or_default();
            let hidden: Vec<&str> = segments.map(|_| REDACTED).collect();
            if hidden.is_empty() {
                format!("{prefix}{email}")
            } else {
                format!("{prefix}{email}/{}", hidden.join("/"))
            }
        }
        _ => path.to_owned(),
    };
    match uri.query() {
        None => path,
        Some(query) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _))
                        if key.eq_ignore_ascii_case("token")
                            || key.eq_ignore_ascii_case("access_token") =>
                    {
                        format!("{key}={REDACTED}")
                    }
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logged(uri: &str) -> String {
        loggable_uri(&uri.parse::<Uri>().expect("a valid URI"))
    }

    #[test]
    fn reset_codes_and_passwords_are_hidden() {
        assert_eq!(
            logged("/resetpasswords/ana%40acme.test/042917/NovaSenha1"),
            "/resetpasswords/ana%40acme.test/[redacted]/[redacted]"
        );
        assert_eq!(
            logged("/ResetPasswords/ana%40acme.test/042917/NovaSenha1/extra"),
            "/ResetPasswords/ana%40acme.test/[redacted]/[redacted]/[redacted]"
        );
        assert_eq!(
            logged("/resetpasswords/ana%40acme.test"),
            "/resetpasswords/ana%40acme.test"
        );
    }

    #[test]
    fn token_parameters_are_hidden_and_the_rest_kept() {
        assert_eq!(
            logged("/socket.io/?EIO=4&transport=polling&token=eyJhbGciOi.x.y"),
            "/socket.io/?EIO=4&transport=polling&token=[redacted]"
        );
        assert_eq!(
            logged("/users/?searchParam=ana&pageNumber=2"),
            "/users/?searchParam=ana&pageNumber=2"
        );
        assert_eq!(
            logged("/forgetpassword/ana%40acme.test"),
            "/forgetpassword/ana%40acme.test"
        );
        assert_eq!(
            logged("/x?access_token=abc&a"),
            "/x?access_token=[redacted]&a"
        );
    }
}
