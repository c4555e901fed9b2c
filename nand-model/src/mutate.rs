//! Text mutations for the parser fuzz tests of every crate (job files, profiles, measured CSVs):
//! a valid file with bytes replaced, ranges dropped or repeated, and tokens swapped for values
//! parsers get wrong (empty, negative, overflowing, NaN, units, separators). Kept here, in the
//! lowest crate, so the tests share one mutator; the tests draw the [`Mutation`]s.

/// One edit. `at` and `len` are taken modulo the current text length, `pick` modulo the
/// table it indexes, so any drawn numbers make a valid edit.
#[derive(Clone, Copy, Debug)]
pub struct Mutation {
    pub kind: u8,
    pub at: u32,
    pub len: u32,
    pub pick: u32,
}

/// Bytes that mean something to one of the parsers.
const BYTES: &[u8] = b"=[]\n\r,\"#;:%-+. \t\0/\\0129kKmMgGpPx_ze";

/// Values that overflow, underflow, are not numbers, or carry units and separators.
pub const TOKENS: &[&str] = &[
    "",
    "0",
    "-0",
    "-1",
    "1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "1e308",
    "1e309",
    "-1e309",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "0.0000001",
    ".",
    "1.2.3",
    "-",
    "+1",
    "4 k",
    " 4k ",
    "1p",
    "1P",
    "99999999999999999999k",
    "16E",
    "0x10",
    "1/0",
    "0/0",
    "1:2",
    "100%",
    "-5%",
    "4k-1",
    "1k,2k",
    "1k:0",
    "a,b",
    "\"",
    "\"\"",
    "[x]",
    "true",
    "yes",
    "\u{e9}\u{1f4a5}",
];

/// Applies `edits` in order to `text`; the result is always valid UTF-8 (invalid sequences a
/// byte edit made are replaced).
pub fn mutate(text: &str, edits: &[Mutation]) -> String {
    let mut b = text.as_bytes().to_vec();
    for e in edits {
        let n = b.len().max(1);
        let at = e.at as usize % n;
        let end = (at + e.len as usize % 64).min(b.len());
        match e.kind % 5 {
            0 if !b.is_empty() => b[at] = BYTES[e.pick as usize % BYTES.len()],
            1 => {
                b.drain(at.min(b.len())..end);
            }
            2 => {
                let piece = b[at.min(b.len())..end].to_vec();
                let to = e.pick as usize % n;
                b.splice(to.min(b.len())..to.min(b.len()), piece);
            }
            3 => {
                // Replace the token around `at` (letters, digits and number punctuation).
                let word = |c: &u8| c.is_ascii_alphanumeric() || b"._+-".contains(c);
                let at = at.min(b.len());
                let start = b[..at].iter().rposition(|c| !word(c)).map_or(0, |p| p + 1);
                let stop = b[at..].iter().position(|c| !word(c)).map_or(b.len(), |p| at + p);
                b.splice(start..stop, TOKENS[e.pick as usize % TOKENS.len()].bytes());
            }
            _ => {
                let at = at.min(b.len());
                b.splice(at..at, TOKENS[e.pick as usize % TOKENS.len()].bytes());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Longest one fuzz input may take: parsing (and resolving) one input takes micro- to
/// milliseconds, so only a hang, an unbounded loop on some input, reaches it.
pub const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a bounded check gave no result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unfinished {
    /// Still running after [`HANG_LIMIT`].
    Hang,
    /// The check panicked (its message is already printed).
    Panicked,
}

/// Runs `check` on a thread and waits at most [`HANG_LIMIT`] for its result, so a hang fails a
/// fuzz test with its input instead of stalling it (no fork needed; a hung thread is left
/// behind, which only matters in a test that fails anyway).
pub fn within_hang_limit<T: Send + 'static>(check: impl FnOnce() -> T + Send + 'static) -> Result<T, Unfinished> {
    within(HANG_LIMIT, check)
}

/// A fuzz test's check of one input, bounded: `check(text)` within [`HANG_LIMIT`], a hang or a
/// panic turned into the test's error (`fail`) with the input in its message.
pub fn bounded_check<E: Send + 'static>(
    text: &str,
    check: fn(&str) -> Result<(), E>,
    fail: fn(String) -> E,
) -> Result<(), E> {
    let owned = text.to_string();
    match within_hang_limit(move || check(&owned)) {
        Ok(r) => r,
        Err(Unfinished::Hang) => Err(fail(format!("no result within {HANG_LIMIT:?} (a hang) on:\n{text}"))),
        Err(Unfinished::Panicked) => Err(fail(format!("panicked (above) on:\n{text}"))),
    }
}

/// [`within_hang_limit`] with another limit.
pub fn within<T: Send + 'static>(
    limit: std::time::Duration,
    check: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Unfinished> {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(check());
    });
    rx.recv_timeout(limit).map_err(|e| match e {
        RecvTimeoutError::Timeout => Unfinished::Hang,
        RecvTimeoutError::Disconnected => Unfinished::Panicked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_replacement_swaps_the_whole_number() {
        let m = Mutation { kind: 3, at: 6, len: 0, pick: 3 };
        assert_eq!(mutate("bs=4096\n", &[m]), "bs=-1\n");
    }

    #[test]
    fn any_edit_on_any_text_is_valid() {
        for kind in 0..5 {
            for at in [0, 1, 7, 1000] {
                for text in ["", "a", "x=1\n[y]\n\u{e9}"] {
                    let _ = mutate(text, &[Mutation { kind, at, len: 9, pick: 5 }]);
                }
            }
        }
    }

    #[test]
    fn a_hang_or_a_panic_is_reported_and_a_result_passes() {
        // Generous where an answer comes at once (a loaded machine may take a while to run
        // the thread), short where it never comes.
        assert_eq!(within(HANG_LIMIT, || 7), Ok(7));
        let hang = within(std::time::Duration::from_millis(200), || std::thread::sleep(HANG_LIMIT * 360));
        assert_eq!(hang, Err(Unfinished::Hang));
        assert_eq!(within(HANG_LIMIT, || -> u8 { panic!("on purpose") }), Err(Unfinished::Panicked));
        let panics: fn(&str) -> Result<(), String> = |_| panic!("on purpose");
        let err = bounded_check("the input", panics, |m| m).unwrap_err();
        assert!(err.contains("panicked") && err.contains("the input"), "{err}");
        assert_eq!(bounded_check("x", |t| Err(t.to_string()), |m| m), Err("x".to_string()));
    }
}
