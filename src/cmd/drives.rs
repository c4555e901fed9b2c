//! `ssdlab drives`: the embedded drive profiles as a table.

use super::{print_out, CliError};
use ftl::profile::{self, ValidatedProfile};

const TB: f64 = 1e12;
const TIB: f64 = (1u64 << 40) as f64;

pub fn run() -> Result<(), CliError> {
    let mut rows = vec![header()];
    for name in profile::embedded_names() {
        // An embedded profile that does not load is a build defect, not user input.
        let p = profile::load(name).map_err(CliError::failed)?;
        rows.push(row(&p));
    }
    print_out(&render(&rows))
}

fn header() -> Vec<String> {
    ["name", "NAND", "user TB", "raw TB", "raw TiB", "OP %", "dies", "planes/die", "power states W"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn row(p: &ValidatedProfile) -> Vec<String> {
    let g = &p.geometry;
    let raw = p.raw_bytes() as f64;
    let user = p.profile.host.user_capacity_bytes as f64;
    let nand = match layers(&p.profile.description) {
        Some(l) => format!("{} {l}L", g.cell.name()),
        None => g.cell.name().to_string(),
    };
    let power: Vec<String> = p.profile.power.states_w.iter().map(|w| format!("{w}")).collect();
    vec![
        p.profile.name.clone(),
        nand,
        capacity(user / TB),
        capacity(raw / TB),
        capacity(raw / TIB),
        format!("{:.1}", p.stock_op() * 100.0),
        g.dies().to_string(),
        g.planes_per_die.to_string(),
        power.join("/"),
    ]
}

/// Layer count from a description such as "... 176-layer TLC ...", if it names one.
fn layers(description: &str) -> Option<u32> {
    description.split_whitespace().find_map(|w| w.strip_suffix("-layer")?.parse().ok())
}

/// Two decimals for drive-sized capacities; enough digits to be non-zero for toy drives.
fn capacity(x: f64) -> String {
    if x >= 0.1 {
        format!("{x:.2}")
    } else {
        format!("{x:.6}")
    }
}

/// Left-aligned text columns, right-aligned numbers, two spaces between columns.
fn render(rows: &[Vec<String>]) -> String {
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, &w))| if c < 2 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_come_from_the_description() {
        assert_eq!(layers("7.68 TB, 128 x 512 Gb 176-layer TLC dies"), Some(176));
        assert_eq!(layers("Teaching drive: 1 channel"), None);
    }

    #[test]
    fn table_aligns_columns() {
        let rows = vec![
            vec!["name".to_string(), "NAND".to_string(), "dies".to_string()],
            vec!["tiny".to_string(), "TLC".to_string(), "2".to_string()],
        ];
        assert_eq!(render(&rows), "name  NAND  dies\ntiny  TLC      2\n");
    }
}
