//! The web app held in memory — embedded into the release binary — and how its files are
//! answered.
//!
//! Files come from an [`AssetSource`]: the app embedded at build time ([`embedded`], with the
//! `embed-web` feature) or any other source (tests build one from a map). Each [`AssetFile`]
//! carries its bytes, the gzip and brotli versions prepared when the binary was built (a file
//! that does not shrink by compression has none), its content type and its entity tag, so a
//! request costs a lookup and no compression.
//!
//! [`respond`] turns a file into the answer:
//! - the encoding the client's `Accept-Encoding` prefers among those the file has (brotli before
//!   gzip when both are equally welcome), with `Vary: Accept-Encoding`;
//! - a lifetime by kind of file ([`cache_control`]): the content-hashed build output under
//!   `assets/` is immutable for a year, `index.html` is revalidated on every use (it names the
//!   current hashed files), other files (the unhashed public ones, such as `favicon.svg`) are
//!   kept an hour;
//! - an `ETag` per encoding, and `304 Not Modified` when `If-None-Match` names it.

use std::borrow::Cow;
use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH, VARY,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// `Cache-Control` of the content-hashed files under `assets/`: their names change with their
/// content, so a copy never goes stale.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of HTML pages: always revalidated, so a new release is seen on the next load.
pub const NO_CACHE: &str = "no-cache";
/// `Cache-Control` of other (unhashed) files: an hour.
pub const SHORT: &str = "public, max-age=3600";

/// One file of the app, with what answering it needs.
#[derive(Clone, Debug)]
pub struct AssetFile {
    /// The file as it is.
    pub body: Bytes,
    /// Its gzip version, when one was prepared.
    pub gzip: Option<Bytes>,
    /// Its brotli version, when one was prepared.
    pub br: Option<Bytes>,
    /// Its media type (`text/javascript`, `text/css`...).
    pub content_type: Cow<'static, str>,
    /// Its entity tag, quoted (`"…"`), derived from the content.
    pub etag: Cow<'static, str>,
}

/// Where the app's files come from.
pub trait AssetSource: Send + Sync + 'static {
    /// The file at `path`, relative to the app's root without a leading slash
    /// (`index.html`, `assets/app-1a2b3c4d.js`).
    fn file(&self, path: &str) -> Option<AssetFile>;
}

impl AssetSource for HashMap<String, AssetFile> {
    fn file(&self, path: &str) -> Option<AssetFile> {
        self.get(path).cloned()
    }
}

/// The `Cache-Control` of a file by its path (see the module notes).
pub fn cache_control(path: &str) -> &'static str {
    if path.ends_with(".html") {
        NO_CACHE
    } else if path.starts_with("assets/") {
        IMMUTABLE
    } else {
        SHORT
    }
}

/// A content coding the server can answer with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Encoding {
    fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// The weight (`q`, 0 to 1000) an `Accept-Encoding` value gives `coding`: its own entry, else
/// the `*` entry, else 0.
fn weight(accept_encoding: &str, coding: &str) -> u16 {
    let mut wildcard = None;
    for entry in accept_encoding.split(',') {
        let mut parts = entry.split(';');
        let name = parts.next().unwrap_or_default().trim();
        let q = parts
            .filter_map(|p| {
                let (key, value) = p.split_once('=')?;
                key.trim().eq_ignore_ascii_case("q").then(|| parse_q(value))
            })
            .next()
            .unwrap_or(1000);
        if name.eq_ignore_ascii_case(coding) {
            return q;
        }
        if name == "*" {
            wildcard = Some(q);
        }
    }
    wildcard.unwrap_or(0)
}

/// A quality value (`0`, `0.5`, `1.000`) in thousandths; unreadable values count as 0.
fn parse_q(value: &str) -> u16 {
    let value = value.trim();
    let (whole, fraction) = value.split_once('.').unwrap_or((value, ""));
    let whole = match whole {
        "0" => 0,
        "1" => 1000,
        _ => return 0,
    };
    let digits: String = fraction.chars().take(3).collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return 0;
    }
    let thousandths = format!("{digits:0<3}").parse::<u16>().unwrap_or(0);
    (whole + thousandths).min(1000)
}

/// The encoding to answer with: the most welcome among those available, brotli first on a tie,
/// the file as it is when the client takes neither.
pub fn negotiate(accept_encoding: Option<&str>, has_br: bool, has_gzip: bool) -> Encoding {
    let Some(accept) = accept_encoding else {
        return Encoding::Identity;
    };
    let br = if has_br { weight(accept, "br") } else { 0 };
    let gzip = if has_gzip { weight(accept, "gzip") } else { 0 };
    if br > 0 && br >= gzip {
        Encoding::Brotli
    } else if gzip > 0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// The entity tag of one encoding of a file: each encoding is a different representation, so
/// each has its own tag (`"abc"`, `"abc-br"`, `"abc-gzip"`).
fn etag_of(etag: &str, encoding: Encoding) -> String {
    match encoding.token() {
        None => etag.to_owned(),
        Some(token) => match etag.strip_suffix('"') {
            Some(open) => format!("{open}-{token}\""),
            None => format!("\"{etag}-{token}\""),
        },
    }
}

/// True when an `If-None-Match` value names `etag` (weak comparison) or is `*`.
fn none_match(if_none_match: &str, etag: &str) -> bool {
    let bare = |tag: &str| tag.trim().trim_start_matches("W/").to_owned();
    let etag = bare(etag);
    if_none_match
        .split(',')
        .any(|tag| tag.trim() == "*" || bare(tag) == etag)
}

/// The answer for `file` found at `path` (see the module notes). `head` leaves the body out.
pub fn respond(file: &AssetFile, path: &str, request: &HeaderMap, head: bool) -> Response {
    let accept = request.get(ACCEPT_ENCODING).and_then(|v| v.to_str().ok());
    let encoding = negotiate(accept, file.br.is_some(), file.gzip.is_some());
    let body = match encoding {
        Encoding::Brotli => file.br.clone(),
        Encoding::Gzip => file.gzip.clone(),
        Encoding::Identity => None,
    }
    .unwrap_or_else(|| file.body.clone());
    let etag = etag_of(&file.etag, encoding);
    let not_modified = request
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| none_match(v, &etag));

    let mut headers = HeaderMap::new();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(cache_control(path)));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(ETAG, value);
    }
    if file.br.is_some() || file.gzip.is_some() {
        headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    }
    if not_modified {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let content_type = if file.content_type.starts_with("text/html") {
        Cow::Borrowed("text/html; charset=utf-8")
    } else {
        file.content_type.clone()
    };
    if let Ok(value) = HeaderValue::from_str(&content_type) {
        headers.insert(CONTENT_TYPE, value);
    }
    if let Some(token) = encoding.token() {
        headers.insert(CONTENT_ENCODING, HeaderValue::from_static(token));
    }
    if head {
        // The length the body would have, without it.
        headers.insert(CONTENT_LENGTH, HeaderValue::from(body.len()));
        return (StatusCode::OK, headers).into_response();
    }
    (StatusCode::OK, headers, Body::from(body)).into_response()
}

/// The app embedded into the binary at build time (feature `embed-web`), from the folder
/// `build.rs` checked: `CHATFLOW_EMBED_WEB_DIR`, by default `web/dist`.
#[cfg(feature = "embed-web")]
pub mod embedded {
    use rust_embed_for_web::{EmbedableFile, RustEmbed};

    use super::{AssetFile, AssetSource, Bytes, Cow};

    /// The built web app, with gzip and brotli versions made at build time.
    #[derive(RustEmbed)]
    #[folder = "$CHATFLOW_EMBEDDED_WEB_DIR"]
    struct WebDist;

    /// The embedded app as an [`AssetSource`].
    #[derive(Debug, Clone, Copy)]
    pub struct Embedded;

    impl AssetSource for Embedded {
        fn file(&self, path: &str) -> Option<AssetFile> {
            let file = <WebDist as RustEmbed>::get(path)?;
            Some(AssetFile {
                body: Bytes::from_static(file.data()),
                gzip: file.data_gzip().map(Bytes::from_static),
                br: file.data_br().map(Bytes::from_static),
                content_type: Cow::Borrowed(file.mime_type().unwrap_or("application/octet-stream")),
                etag: Cow::Borrowed(file.etag()),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_assets_are_immutable_pages_revalidated_other_files_short() {
        assert_eq!(cache_control("assets/index-B2x9aQ1c.js"), IMMUTABLE);
        assert_eq!(cache_control("assets/index-Cq81pLmZ.css"), IMMUTABLE);
        assert_eq!(cache_control("index.html"), NO_CACHE);
        assert_eq!(cache_control("favicon.svg"), SHORT);
        assert_eq!(cache_control("robots.txt"), SHORT);
    }

    #[test]
    fn negotiation_follows_the_clients_weights() {
        use Encoding::*;
        assert_eq!(negotiate(None, true, true), Identity);
        assert_eq!(
            negotiate(Some("gzip, deflate, br, zstd"), true, true),
            Brotli
        );
        assert_eq!(negotiate(Some("gzip, deflate, br"), false, true), Gzip);
        assert_eq!(negotiate(Some("gzip"), true, true), Gzip);
        assert_eq!(negotiate(Some("br"), true, true), Brotli);
        assert_eq!(negotiate(Some("br"), false, true), Identity);
        assert_eq!(negotiate(Some("br;q=0.5, gzip"), true, true), Gzip);
        assert_eq!(negotiate(Some("br;q=0, gzip;q=0"), true, true), Identity);
        assert_eq!(negotiate(Some("*"), true, true), Brotli);
        assert_eq!(negotiate(Some("*;q=0.1, br;q=0"), true, true), Gzip);
        assert_eq!(negotiate(Some("identity"), true, true), Identity);
        assert_eq!(negotiate(Some("GZIP;Q=1.0"), true, true), Gzip);
        assert_eq!(negotiate(Some("gzip;q=0.001"), false, true), Gzip);
        assert_eq!(negotiate(Some("gzip;q=nonsense"), false, true), Identity);
    }

    #[test]
    fn quality_values_parse_in_thousandths() {
        assert_eq!(parse_q("1"), 1000);
        assert_eq!(parse_q("1.000"), 1000);
        assert_eq!(parse_q("0.5"), 500);
        assert_eq!(parse_q(" 0.05 "), 50);
        assert_eq!(parse_q("0"), 0);
        assert_eq!(parse_q("2"), 0);
        assert_eq!(parse_q("0.x"), 0);
    }

    #[test]
    fn each_encoding_has_its_own_tag_and_if_none_match_compares_weakly() {
        assert_eq!(etag_of("\"abc\"", Encoding::Identity), "\"abc\"");
        assert_eq!(etag_of("\"abc\"", Encoding::Brotli), "\"abc-br\"");
        assert_eq!(etag_of("\"abc\"", Encoding::Gzip), "\"abc-gzip\"");
        assert!(none_match("\"abc\"", "\"abc\""));
        assert!(none_match("W/\"abc\"", "\"abc\""));
        assert!(none_match("\"x\", \"abc-br\"", "\"abc-br\""));
        assert!(none_match("*", "\"abc\""));
        assert!(!none_match("\"abc\"", "\"abc-br\""));
        assert!(!none_match("\"abd\"", "\"abc\""));
    }
}
