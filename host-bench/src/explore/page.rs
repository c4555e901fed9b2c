//! The teaching page: one HTML file with its CSS, script and data inline, so it opens offline
//! from disk in any current browser (nothing is fetched).

use super::model::Page;
use super::series;

const TEMPLATE: &str = include_str!("page.html");
const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Escapes text for an HTML text node.
fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The page for `page` as one HTML document, with each run's chart series computed over the
/// runs' common time axis (stored into `page.runs[..].series`).
pub fn render(page: &mut Page) -> Result<String, serde_json::Error> {
    let t_end = page.runs.iter().filter_map(|r| r.frames.t_ns.last().copied()).max().unwrap_or(0);
    let t_start = page.runs.iter().filter_map(|r| r.frames.t_ns.first().copied()).min().unwrap_or(0).min(t_end);
    for r in &mut page.runs {
        r.series = series::chart_series(r, t_start, t_end);
    }
    let page = &*page;
    // Inside <script type="application/json">, "</" could end the element: escape it (JSON
    // allows "\/"), and nothing else needs escaping there.
    let data = serde_json::to_string(page)?.replace("</", "<\\/");
    Ok(TEMPLATE
        .replacen("{{TITLE}}", &escape_text(&page.title), 1)
        .replacen("{{CSS}}", CSS, 1)
        .replacen("{{JS}}", JS, 1)
        .replacen("{{DATA}}", &data, 1))
}
