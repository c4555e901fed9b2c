//! Opening teaching pages in headless Chromium and reading what they show (the DOM after the
//! scripts ran): for tests/explore_browser.rs and tests/explore_timeline.rs.

use super::temp_dir;
use host_bench::explore::Page;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's chromium, or None (SKIPPED) outside CI; under `CI=true` its absence fails.
pub fn chromium() -> Option<PathBuf> {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] {
        if Path::new(c).is_file() {
            return Some(c.into());
        }
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("chromium is not installed: run scripts/install-test-deps.sh");
    }
    eprintln!("SKIPPED: chromium is not installed (scripts/install-test-deps.sh installs it)");
    None
}

/// The page's DOM after its scripts ran, and Chromium's stderr (console messages included).
pub fn dump_dom(chrome: &Path, page: &Path, fragment: &str, budget_ms: u32) -> (String, String) {
    let profile = temp_dir(&format!("profile-{}", fragment.len() + budget_ms as usize + page.as_os_str().len()));
    let url = format!("file://{}#{fragment}", page.display());
    let out_path = profile.join("dom.html");
    let err_path = profile.join("stderr.txt");
    let mut child = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.join("ud").display()))
        .arg(format!("--virtual-time-budget={budget_ms}"))
        .args(["--dump-dom", &url])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill(); // by its pid
            let _ = child.wait();
            panic!("chromium did not finish within 90 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let dom = std::fs::read_to_string(&out_path).unwrap();
    let err = std::fs::read_to_string(&err_path).unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    (dom, err)
}

/// Value of attribute `name` in the first tag at or after `from` in `html`.
pub fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(&tag[i..i + tag[i..].find('"')?])
}

/// The opening tags containing `needle`.
pub fn tags<'a>(html: &'a str, needle: &str) -> impl Iterator<Item = &'a str> + 'a {
    let needle = needle.to_string();
    let idx: Vec<usize> = html.match_indices(&needle).map(|(i, _)| i).collect();
    idx.into_iter().map(move |i| {
        let s = html[..i].rfind('<').unwrap();
        &html[s..i + html[i..].find('>').unwrap()]
    })
}

/// The HTML of run panel `run`.
pub fn run_panel(dom: &str, run: usize) -> &str {
    let start = dom.find(&format!("class=\"run\" data-run=\"{run}\"")).expect("run panel");
    let end = dom[start + 10..].find("class=\"run\" data-run=").map_or(dom.len(), |e| start + 10 + e);
    &dom[start..end]
}

pub fn readout(panel: &str, k: &str) -> String {
    let t = tags(panel, &format!("data-k=\"{k}\"")).next().unwrap_or_else(|| panic!("readout {k}"));
    attr(t, "data-v").unwrap_or_else(|| panic!("readout {k} has no value")).to_string()
}

pub fn embedded(page: &Path) -> Page {
    host_bench::explore::page::embedded(&std::fs::read_to_string(page).unwrap()).unwrap()
}

pub fn assert_clean(dom: &str, err: &str, what: &str) {
    let body = tags(dom, "<body").next().unwrap_or_else(|| panic!("{what}: no body"));
    assert_eq!(attr(body, "data-ready"), Some("1"), "{what}: the script did not finish:\n{err}");
    assert_eq!(attr(body, "data-error"), Some(""), "{what}: script error");
    let console: Vec<&str> = err.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "{what}: console messages:\n{}", console.join("\n"));
}

/// `ssdlab explore --lesson NAME --out DIR`, which must succeed; the page's path.
pub fn write_lesson(name: &str, dir: &Path) -> PathBuf {
    let o = Command::new(super::bin())
        .args(["explore", "--lesson", name, "--out", dir.to_str().expect("a UTF-8 temporary path")])
        .output()
        .expect("run the ssdlab binary");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    dir.join("index.html")
}
