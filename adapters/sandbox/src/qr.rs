//! The pairing QR code as an image.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::{Error, Result};

/// The QR code of `text` as a `data:image/svg+xml;base64,...` URL.
pub fn qr_data_url(text: &str) -> Result<String> {
    let code = qrcode::QrCode::new(text.as_bytes())
        .map_err(|e| Error::internal(format!("cannot encode the QR code: {e}")))?;
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
    use super::*;

    #[test]
    fn qr_codes_are_svg_data_urls() {
        let url = qr_data_url("chatflow-sandbox:1:2:abc").expect("encoded");
        let encoded = url
            .strip_prefix("data:image/svg+xml;base64,")
            .expect("prefix");
        let svg = String::from_utf8(STANDARD.decode(encoded).expect("base64")).expect("utf-8");
        assert!(svg.contains("<svg"));
    }
}
