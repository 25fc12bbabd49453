//! File types by name: the product's one extension → MIME type table.
//!
//! Attachments, flow media, schedule images, files a phone sends without a declared type and the
//! web app's own files are all typed here, by the well-kept table of the `mime_guess` crate, with
//! one product rule on top: an `.opus` file is a voice note, which WhatsApp carries as Opus in an
//! Ogg container and expects as `audio/ogg`.

/// The type of a file whose name says nothing known.
pub const UNKNOWN: &str = "application/octet-stream";

/// The lower-case extension of a file name (after its last dot), or `""` when it has none.
pub fn extension(file_name: &str) -> String {
    file_name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The MIME type of a file by its name's extension ([`UNKNOWN`] when none is known).
pub fn mime_of(file_name: &str) -> &'static str {
    let ext = extension(file_name);
    if ext == "opus" {
        return "audio/ogg";
    }
    if ext.is_empty() {
        return UNKNOWN;
    }
    mime_guess::from_ext(&ext).first_raw().unwrap_or(UNKNOWN)
}

/// The usual extension of files of type `mime` (parameters such as `; codecs=opus` ignored),
/// `bin` when none is known.
pub fn extension_for(mime: &str) -> &'static str {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "image/jpeg" => "jpg",
        "image/png" => "png",
        "image/webp" => "webp",
        "image/gif" => "gif",
        "video/mp4" => "mp4",
        "video/3gpp" => "3gp",
        "audio/ogg" => "ogg",
        "audio/mpeg" => "mp3",
        "audio/mp4" => "m4a",
        "audio/aac" => "aac",
        "application/pdf" => "pdf",
        "text/plain" => "txt",
        other => mime_guess::get_mime_extensions_str(other)
            .and_then(|extensions| extensions.first().copied())
            .unwrap_or("bin"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_types_the_product_handles() {
        for (name, mime) in [
            ("a.jpg", "image/jpeg"),
            ("a.JPEG", "image/jpeg"),
            ("a.png", "image/png"),
            ("a.gif", "image/gif"),
            ("a.webp", "image/webp"),
            ("a.mp3", "audio/mpeg"),
            ("a.ogg", "audio/ogg"),
            ("a.oga", "audio/ogg"),
            ("voz.opus", "audio/ogg"),
            ("a.mp4", "video/mp4"),
            ("a.pdf", "application/pdf"),
            ("a.txt", "text/plain"),
            ("a.csv", "text/csv"),
            ("app.js", "text/javascript"),
            ("app.css", "text/css"),
            ("core.wasm", "application/wasm"),
            ("icon.svg", "image/svg+xml"),
            ("index.html", "text/html"),
        ] {
            assert_eq!(mime_of(name), mime, "{name}");
        }
    }

    #[test]
    fn types_name_their_usual_extension() {
        for (mime, extension) in [
            ("image/jpeg", "jpg"),
            ("IMAGE/PNG", "png"),
            ("audio/ogg; codecs=opus", "ogg"),
            ("video/mp4", "mp4"),
            ("application/pdf", "pdf"),
            (
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                "xlsx",
            ),
            ("application/x-nothing-known", "bin"),
        ] {
            assert_eq!(extension_for(mime), extension, "{mime}");
        }
    }

    #[test]
    fn unknown_or_missing_extensions_are_octet_streams() {
        assert_eq!(mime_of("a"), UNKNOWN);
        assert_eq!(mime_of("a."), UNKNOWN);
        assert_eq!(mime_of("a.nothing-known"), UNKNOWN);
        assert_eq!(extension("Foto.Final.PNG"), "png");
        assert_eq!(extension("sem-extensao"), "");
    }
}
