//! fio's substitutions in an option line, before the option is parsed (fio 3.33, options.c:
//! `fio_option_dup_subs`, `fio_keyword_replace`, `bc_calc`):
//!
//! 1. `${NAME}` becomes the environment variable's value, or nothing when it is unset.
//! 2. `$pagesize`, `$mb_memory` and `$ncpus` become this machine's page size, megabytes of
//!    memory and configured CPUs, wherever they occur.
//! 3. Only if a keyword of step 2 was replaced and the line holds `+ - * /` (and no `'`), the
//!    value after `=` is computed as `bc` computes it: integers, truncating division. fio hands
//!    it to `bc` and leaves lines of 128 characters or more (values over 100) as they are.
//!
//! Without a keyword fio computes nothing: `size=8*1024k` is not arithmetic to fio 3.33 (it
//! reads the leading 8), and ssdlab's value parser refuses it.

use std::collections::BTreeMap;

/// What the substitutions stand for: the environment and the host fio would run on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostVars {
    /// Environment variables `${NAME}` may name.
    pub env: BTreeMap<String, String>,
    /// `$ncpus`: CPUs configured (fio: `sysconf(_SC_NPROCESSORS_CONF)`).
    pub ncpus: u64,
    /// `$mb_memory`: physical memory in MiB.
    pub mb_memory: u64,
    /// `$pagesize`: the page size in bytes.
    pub pagesize: u64,
}

impl HostVars {
    /// This process's environment and machine, as fio reads them.
    pub fn of_this_process() -> Self {
        // SAFETY: sysconf only reads system configuration.
        let (pages, page, cpus) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
                libc::sysconf(libc::_SC_NPROCESSORS_CONF),
            )
        };
        let pos = |v: libc::c_long| u64::try_from(v).unwrap_or(0);
        HostVars {
            env: std::env::vars().collect(),
            ncpus: pos(cpus).max(1),
            mb_memory: pos(pages).saturating_mul(pos(page)) / (1024 * 1024),
            pagesize: pos(page),
        }
    }
}

/// An option line after fio's substitutions, and which host values went into it (for the
/// report: a result that depends on the machine says so).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substituted {
    pub text: String,
    /// Keywords replaced, e.g. `"$ncpus = 2"`.
    pub host_values: Vec<String>,
}

/// Why a substituted line cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubstituteError(pub String);

/// Applies fio's substitutions to one `key[=value]` line (comments already stripped).
pub fn substitute(line: &str, vars: &HostVars) -> Result<Substituted, SubstituteError> {
    let text = expand_env(line, &vars.env);
    let keywords = [("$pagesize", vars.pagesize), ("$mb_memory", vars.mb_memory), ("$ncpus", vars.ncpus)];
    let mut text = text;
    let mut host_values = Vec::new();
    for (word, value) in keywords {
        if text.contains(word) {
            text = text.replace(word, &value.to_string());
            host_values.push(format!("{word} = {value}"));
        }
    }
    if host_values.is_empty() {
        return Ok(Substituted { text, host_values });
    }
    let has_math = text.contains(['+', '-', '*', '/']) && !text.contains('\'');
    let Some((key, value)) = text.split_once('=') else {
        return Ok(Substituted { text, host_values });
    };
    if !has_math || text.len() >= 128 || value.len() > 100 {
        return Ok(Substituted { text, host_values });
    }
    let n = bc_integer(value)
        .map_err(|why| SubstituteError(format!("bc after substituting {}: {why}", host_values.join(", "))))?;
    Ok(Substituted { text: format!("{key}={n}"), host_values })
}

/// `${NAME}` replaced by the variable's value, or removed when it is unset (fio's rule).
fn expand_env(line: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("${") {
        let Some(close) = rest[at + 2..].find('}') else { break };
        out.push_str(&rest[..at]);
        let name = &rest[at + 2..at + 2 + close];
        if let Some(v) = env.get(name) {
            out.push_str(v);
        }
        rest = &rest[at + 2 + close + 1..];
    }
    out.push_str(rest);
    out
}

/// An integer expression as `bc` evaluates it with scale 0: `+ - * / % ^`, parentheses,
/// unary minus; division and remainder truncate toward zero.
fn bc_integer(expr: &str) -> Result<i128, String> {
    let tokens = tokenize(expr)?;
    let mut p = Parser { tokens: &tokens, at: 0 };
    let v = p.sum()?;
    if p.at != tokens.len() {
        return Err(format!("unexpected '{}'", p.tokens[p.at]));
    }
    Ok(v)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Num(i128),
    Op(char),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut n: i128 = 0;
            while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
                n = n.checked_mul(10).and_then(|n| n.checked_add(i128::from(d))).ok_or("number too large")?;
                chars.next();
            }
            out.push(Tok::Num(n));
        } else if "+-*/%^()".contains(c) {
            out.push(Tok::Op(c));
            chars.next();
        } else {
            return Err(format!("'{c}' is not part of an integer expression"));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Tok],
    at: usize,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<char> {
        match self.tokens.get(self.at) {
            Some(Tok::Op(c)) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<i128, String> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek_op() {
            self.at += 1;
            let r = self.product()?;
            v = if op == '+' { v.checked_add(r) } else { v.checked_sub(r) }.ok_or("overflow")?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i128, String> {
        let mut v = self.power()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek_op() {
            self.at += 1;
            let r = self.power()?;
            v = match op {
                '*' => v.checked_mul(r).ok_or("overflow")?,
                _ if r == 0 => return Err("divide by zero".into()),
                '/' => v / r,
                _ => v % r,
            };
        }
        Ok(v)
    }

    /// `^` binds tighter than `*` and to the right, as in bc.
    fn power(&mut self) -> Result<i128, String> {
        let base = self.unary()?;
        if self.peek_op() == Some('^') {
            self.at += 1;
            let exp = self.power()?;
            let exp = u32::try_from(exp).map_err(|_| "negative or huge exponent")?;
            return base.checked_pow(exp).ok_or_else(|| "overflow".into());
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<i128, String> {
        match self.tokens.get(self.at) {
            Some(Tok::Op('-')) => {
                self.at += 1;
                Ok(-self.unary()?)
            }
            Some(Tok::Op('(')) => {
                self.at += 1;
                let v = self.sum()?;
                if self.peek_op() != Some(')') {
                    return Err("missing ')'".into());
                }
                self.at += 1;
                Ok(v)
            }
            Some(Tok::Num(n)) => {
                self.at += 1;
                Ok(*n)
            }
            Some(t) => Err(format!("unexpected '{t}'")),
            None => Err("the expression ends early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> HostVars {
        let env = [("QD".to_string(), "7".to_string()), ("EMPTY".to_string(), String::new())].into();
        HostVars { env, ncpus: 2, mb_memory: 24105, pagesize: 4096 }
    }

    fn sub(line: &str) -> String {
        substitute(line, &vars()).unwrap().text
    }

    #[test]
    fn environment_variables_are_replaced_and_unset_ones_removed() {
        assert_eq!(sub("iodepth=${QD}"), "iodepth=7");
        assert_eq!(sub("filename=/dev/${NOPE}x"), "filename=/dev/x");
        assert_eq!(sub("bs=${EMPTY}4k"), "bs=4k");
        assert_eq!(sub("name=${unclosed"), "name=${unclosed");
    }

    #[test]
    fn keywords_are_replaced_and_computed_as_bc_does() {
        // Measured with fio 3.33 and bc: size=5*1024*$ncpus/3 on 2 CPUs ran 3413 bytes.
        assert_eq!(sub("size=5*1024*$ncpus/3"), "size=3413");
        assert_eq!(sub("numjobs=$ncpus"), "numjobs=2");
        assert_eq!(sub("size=5*1024*1024*$mb_memory/8"), "size=15797452800");
        assert_eq!(sub("size=($pagesize+1)*2^2-7%4"), "size=16385");
        assert_eq!(sub("x=-$ncpus/4"), "x=0");
        let s = substitute("numjobs=$ncpus", &vars()).unwrap();
        assert_eq!(s.host_values, vec!["$ncpus = 2".to_string()]);
    }

    #[test]
    fn no_arithmetic_without_a_keyword_or_past_bcs_limits() {
        assert_eq!(sub("size=8*1024k"), "size=8*1024k");
        assert_eq!(sub("ioengine=libaio"), "ioengine=libaio");
        let long = format!("size=$ncpus*{}", "1".repeat(100));
        assert_eq!(sub(&long), format!("size=2*{}", "1".repeat(100)));
        assert!(substitute("size=$ncpus*4k", &vars()).is_err(), "bc cannot compute a suffix");
        assert!(substitute("size=$ncpus/0", &vars()).is_err());
    }
}
