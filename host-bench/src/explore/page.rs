//! The teaching page: one HTML file with its CSS, script and data inline, so it opens offline
//! from disk in any current browser (nothing is fetched). The data is JSON, gzipped and base64
//! encoded (a fifth of its size: the die timeline holds every NAND operation); the page inflates
//! it with the browser's `DecompressionStream`.

use super::model::Page;
use super::series;
use std::io::{Read, Write};

const TEMPLATE: &str = include_str!("page.html");
const CSS: &str = include_str!("page.css");
/// replay.js first: page.js uses its functions.
const JS: &str = concat!(include_str!("replay.js"), include_str!("page.js"));
const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// Marks the start of the embedded data in the page.
const DATA_OPEN: &str = "<script type=\"application/gzip+base64\" id=\"data\">";

/// Escapes text for an HTML text node.
fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16 | (*c.get(1).unwrap_or(&0) as u32) << 8 | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            out.push(if k <= c.len() { B64[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

#[allow(clippy::cast_possible_truncation)] // a base64 digit is below 64; a byte is the accumulator's low 8 bits
fn unbase64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0);
    for ch in s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()) {
        acc = acc << 6 | B64.iter().position(|&b| b == ch)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The page for `page` as one HTML document, with each run's chart series computed over the
/// runs' common time axis (stored into `page.runs[..].series`).
pub fn render(page: &mut Page) -> Result<String, serde_json::Error> {
    let t_end = page.runs.iter().filter_map(|r| r.frames.t_ns.last().copied()).max().unwrap_or(0);
    let t_start = page.runs.iter().filter_map(|r| r.frames.t_ns.first().copied()).min().unwrap_or(0).min(t_end);
    for r in &mut page.runs {
        r.series = series::chart_series(r, t_start, t_end);
    }
    let json = serde_json::to_vec(&*page)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    gz.write_all(&json).map_err(serde_json::Error::io)?;
    let data = base64(&gz.finish().map_err(serde_json::Error::io)?);
    Ok(TEMPLATE
        .replacen("{{TITLE}}", &escape_text(&page.title), 1)
        .replacen("{{CSS}}", CSS, 1)
        .replacen("{{JS}}", JS, 1)
        .replacen("{{DATA}}", &data, 1))
}

/// The data embedded in a page [`render`] wrote (what the page's script reads).
pub fn embedded(html: &str) -> Result<Page, String> {
    let a = html.find(DATA_OPEN).ok_or("no embedded data")? + DATA_OPEN.len();
    let b = a + html[a..].find("</script>").ok_or("embedded data not closed")?;
    let gz = unbase64(&html[a..b]).ok_or("embedded data is not base64")?;
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut json).map_err(|e| format!("embedded data: {e}"))?;
    serde_json::from_slice(&json).map_err(|e| format!("embedded data: {e}"))
}

#[cfg(test)]
#[allow(clippy::cast_possible_truncation)] // the tests' own small lengths
mod tests {
    #[test]
    fn base64_round_trips() {
        for n in 0..10usize {
            let v: Vec<u8> = (0..n as u8).map(|b| b.wrapping_mul(97)).collect();
            let s = super::base64(&v);
            assert_eq!(s.len() % 4, 0);
            assert_eq!(super::unbase64(&s).unwrap(), v, "{s}");
        }
        assert_eq!(super::base64(b"Man"), "TWFu");
        assert_eq!(super::base64(b"Ma"), "TWE=");
    }
}
