//! The teaching page: one HTML file with its CSS, script and data inline, so it opens offline
//! from disk in any current browser (nothing is fetched).

use super::model::Page;

const TEMPLATE: &str = include_str!("page.html");
const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// Escapes text for an HTML text node.
fn escape_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The page for `page` as one HTML document.
pub fn render(page: &Page) -> Result<String, serde_json::Error> {
    // Inside <script type="application/json">, "</" could end the element: escape it (JSON
    // allows "\/"), and nothing else needs escaping there.
    let data = serde_json::to_string(page)?.replace("</", "<\\/");
    Ok(TEMPLATE
        .replacen("{{TITLE}}", &escape_text(&page.title), 1)
        .replacen("{{CSS}}", CSS, 1)
        .replacen("{{JS}}", JS, 1)
        .replacen("{{DATA}}", &data, 1))
}
