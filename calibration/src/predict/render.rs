//! The predict report as a table and as an SVG bar chart (baseline vs each what-if, anchored
//! figures with their intervals).

use super::{PredictReport, Simulated};
use crate::validate::fmt_num;
use std::fmt::Write as _;

fn config_text(cap: Option<u64>, w: Option<f64>) -> String {
    let c = match cap {
        Some(b) if b >= 1_000_000_000_000 => format!("{:.2} TB", b as f64 / 1e12),
        Some(b) => format!("{:.1} GB", b as f64 / 1e9),
        None => "stock capacity".into(),
    };
    let p = w.map(|w| format!("{w} W")).unwrap_or_else(|| "uncapped".into());
    format!("{c}, {p}")
}

fn limit_text(s: &Simulated) -> String {
    let l = &s.limits;
    format!(
        "{} [die {:.0}% (prog {:.0}%, WA {:.2}), gc-stall {:.0}%, power-held {:.0}%, cmd {:.0}%, pcie {:.0}%]",
        s.binding_limit_text,
        l.nand_busy * 100.0,
        l.nand_program * 100.0,
        l.write_amplification,
        l.gc_stall * 100.0,
        l.power_held * 100.0,
        l.controller_cmd * 100.0,
        l.pcie * 100.0
    )
}

/// Human-readable answer.
pub fn table(r: &PredictReport) -> String {
    let b = &r.baseline;
    let mut t = String::new();
    let _ = writeln!(t, "baseline: {} ({}), {} = {} {}", b.source, b.drive, b.metric, fmt_num(b.measured), b.unit);
    let _ = writeln!(t, "  config {}", config_text(b.config.user_capacity_bytes, b.config.power_cap_w));
    let _ = writeln!(t, "  simulated {} {}; binding: {}", fmt_num(b.simulated.mean), b.unit, limit_text(&b.simulated));
    let _ = writeln!(t, "\n{:<36} {:>12} {:>8} {:>12} {:>25}", "what-if", "absolute", "ratio", "anchored", "interval");
    for w in &r.whatifs {
        let _ = writeln!(
            t,
            "{:<36} {:>12} {:>7.3}x {:>12} {:>25}",
            w.whatif,
            fmt_num(w.simulated.mean),
            w.ratio.value,
            fmt_num(w.anchored.value),
            format!("{} .. {}", fmt_num(w.anchored.low), fmt_num(w.anchored.high))
        );
        let _ = writeln!(t, "  config {}", config_text(w.config.user_capacity_bytes, w.config.power_cap_w));
        let _ = writeln!(t, "  binding: {}", limit_text(&w.simulated));
    }
    let _ = writeln!(
        t,
        "\n{} in {}; anchored = measured x simulated ratio; {} seed(s), scale 1/{}",
        b.metric,
        b.unit,
        r.seeds.len(),
        r.scale_divisor
    );
    for a in &r.assumptions {
        let _ = writeln!(t, "- {a}");
    }
    t
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// One bar: label, anchored value, its interval, the absolute simulated value.
type Bar = (String, f64, Option<(f64, f64)>, f64);

/// Bars: the measured baseline, then each what-if's anchored figure with its interval as an
/// error bar and its absolute simulated figure as a tick.
pub fn svg(r: &PredictReport) -> String {
    let b = &r.baseline;
    let mut bars: Vec<Bar> = vec![("baseline (measured)".into(), b.measured, None, b.simulated.mean)];
    for w in &r.whatifs {
        bars.push((w.whatif.clone(), w.anchored.value, Some((w.anchored.low, w.anchored.high)), w.simulated.mean));
    }
    let top = bars.iter().map(|x| x.1.max(x.2.map_or(0.0, |i| i.1)).max(x.3)).fold(0.0, f64::max).max(1e-9) * 1.1;
    let (w, h, left, bottom, plot_h) = ((160.0 + 170.0 * bars.len() as f64).max(720.0), 460.0, 90.0, 380.0, 320.0);
    let y = |v: f64| bottom - v / top * plot_h;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ =
        writeln!(s, r#"<text x="{left}" y="22" font-size="15">{} {}: what-if</text>"#, esc(&b.drive), esc(&b.metric));
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="40" font-size="11">grey: measured baseline; blue: anchored (measured x simulated ratio) with its interval; red: absolute simulation</text>"#
    );
    let _ = writeln!(s, r#"<line x1="{left}" y1="{bottom}" x2="{}" y2="{bottom}" stroke="black"/>"#, w - 20.0);
    let _ = writeln!(s, r#"<line x1="{left}" y1="{bottom}" x2="{left}" y2="{}" stroke="black"/>"#, bottom - plot_h);
    for k in 0..=4 {
        let v = top * k as f64 / 4.0;
        let _ =
            writeln!(s, r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#, left - 6.0, y(v) + 4.0, esc(&fmt_num(v)));
    }
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" transform="rotate(-90 16 {})">{}</text>"#,
        bottom - plot_h / 2.0,
        bottom - plot_h / 2.0,
        esc(&b.unit)
    );
    for (i, (label, v, iv, abs)) in bars.iter().enumerate() {
        let x = left + 30.0 + 170.0 * i as f64;
        let fill = if i == 0 { "#888888" } else { "#3b7dd8" };
        let _ = writeln!(s, r##"<rect x="{x}" y="{}" width="110" height="{}" fill="{fill}"/>"##, y(*v), bottom - y(*v));
        if let Some((lo, hi)) = iv {
            let cx = x + 55.0;
            let _ = writeln!(
                s,
                r#"<line x1="{cx}" y1="{}" x2="{cx}" y2="{}" stroke="black" stroke-width="2"/>"#,
                y(*lo),
                y(*hi)
            );
            for e in [lo, hi] {
                let _ = writeln!(
                    s,
                    r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="black" stroke-width="2"/>"#,
                    cx - 12.0,
                    y(*e),
                    cx + 12.0,
                    y(*e)
                );
            }
        }
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#d83b3b" stroke-width="3"/>"##,
            x - 4.0,
            y(*abs),
            x + 114.0,
            y(*abs)
        );
        let _ = writeln!(s, r#"<text x="{}" y="{}">{}</text>"#, x + 2.0, y(*v) - 6.0, esc(&fmt_num(*v)));
        let _ =
            writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, x + 55.0, bottom + 18.0, esc(label));
    }
    s.push_str("</svg>\n");
    s
}
