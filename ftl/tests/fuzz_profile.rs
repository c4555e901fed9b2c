//! Parser fuzzing of drive profiles: arbitrary text and mutated embedded profiles (bytes replaced,
//! ranges dropped or repeated, values swapped for overflowing, negative, NaN or unit-laden ones)
//! never panic or hang (each input must finish within HANG_LIMIT): loading returns a profile or a
//! typed error naming the key. A profile the loader accepts must also build a drive (at a scale
//! small enough for the test) or be refused with a typed error, and then serve a few commands:
//! accepting values the drive later panics on is the same bug one step on.
#![allow(clippy::cast_possible_truncation, clippy::unwrap_used)] // a panic in test code is a failed test; casts are of the test's own small values

use ftl::device::{DeviceOptions, HostOp, SimSsd};
use ftl::layout::scale_geometry;
use ftl::profile::{parse, EMBEDDED};
use nand_model::mutate::{mutate, Mutation};
use proptest::prelude::*;

/// Simulated NAND this test builds at most (the scale divides bigger drives down to it).
const MAX_SIM_BYTES: u64 = 256 << 20;

/// The embedded profiles as shipped, and each with a tiny array (the rest of it kept, every
/// default written out): a scaled drive keeps 256 blocks per plane, so only small arrays build
/// within the test's memory, and the mutations should reach the drive, not only the loader.
fn seeds() -> Vec<String> {
    let mut v: Vec<String> = EMBEDDED.iter().map(|(_, t)| t.to_string()).collect();
    for (name, _) in EMBEDDED {
        let mut p = ftl::profile::load(name).unwrap().profile;
        let g = &mut p.geometry;
        (g.channels, g.dies_per_channel, g.blocks_per_plane) = (1, 2, 24);
        g.pages_per_block = g.cell.bits_per_cell() * 8;
        p.host.user_capacity_bytes = p.geometry.validate().unwrap().raw_bytes() / 2 / 16384 * 16384;
        v.push(ftl::profile::to_toml(&p));
    }
    v
}

/// [`check_unbounded`] within the shared hang limit; a hang or a panic fails with the input.
fn check(text: &str) -> Result<(), TestCaseError> {
    nand_model::mutate::bounded_check(text, check_unbounded, TestCaseError::fail)
}

fn check_unbounded(text: &str) -> Result<(), TestCaseError> {
    let Ok(p) = parse(text, "fuzz.toml") else { return Ok(()) };
    let raw = p.geometry.raw_bytes();
    let divisor = raw.div_ceil(MAX_SIM_BYTES).clamp(1, u32::MAX as u64) as u32;
    if scale_geometry(&p.geometry, divisor).0.raw_bytes() > MAX_SIM_BYTES {
        return Ok(()); // too many blocks even scaled (256 per plane are kept): not for this test
    }
    let opts = DeviceOptions { scale_divisor: divisor, track_sequence: true, ..Default::default() };
    let Ok(mut d) = SimSsd::new(&p, &opts) else { return Ok(()) };
    // Fill up to 32 MiB (past the write buffer, so programs run), read some back, trim it all.
    let cap = d.capacity().user_bytes_sim;
    let chunk = 131072.min(cap) / 4096 * 4096;
    let n = (cap.min(32 << 20) / chunk).max(1);
    let ops =
        (0..n).map(|i| (HostOp::Write, i * chunk)).chain((0..n.min(64)).map(|i| (HostOp::Read, i * 7 % n * chunk)));
    let ops: Vec<_> = ops.chain([(HostOp::Trim, 0)]).collect();
    let (mut submitted, mut done) = (0, 0);
    for (i, &(op, off)) in ops.iter().enumerate() {
        let len = if op == HostOp::Trim { (n * chunk) as u32 } else { chunk as u32 };
        prop_assert!(d.submit(i as u64, op, off, len).is_ok(), "aligned command refused:\n{text}");
        submitted += 1;
        while submitted - done >= 8 {
            prop_assert!(d.next_completion(None).is_some(), "commands lost:\n{}", text);
            done += 1;
        }
    }
    while d.next_completion(None).is_some() {
        done += 1;
    }
    prop_assert_eq!(done, submitted, "commands lost:\n{}", text);
    d.check_invariants().map_err(TestCaseError::fail)?;
    Ok(())
}

/// Values a profile key may be set to by mistake: out of range, not finite, the wrong type.
fn odd_value(pick: usize) -> toml::Value {
    use toml::Value::*;
    let vals = [
        Integer(0),
        Integer(-1),
        Integer(1),
        Integer(3),
        Integer(i64::MAX),
        Integer(i64::MIN),
        Integer(1 << 32),
        Float(0.0),
        Float(-0.5),
        Float(1e-9),
        Float(1e300),
        Float(f64::NAN),
        Float(f64::INFINITY),
        Float(0.5),
        Boolean(true),
        String("".into()),
        Array(vec![]),
        Array(vec![Float(-1.0), Float(1e300)]),
    ];
    vals[pick % ODD_VALUES].clone()
}

const ODD_VALUES: usize = 18;

/// Sets the `leaf`-th value (depth first, modulo the count) of a parsed profile to `v`.
fn set_leaf(t: &mut toml::Value, leaf: &mut usize, v: &toml::Value) -> bool {
    match t {
        toml::Value::Table(m) => m.iter_mut().any(|(_, x)| set_leaf(x, leaf, v)),
        toml::Value::Array(a) if !a.is_empty() => a.iter_mut().any(|x| set_leaf(x, leaf, v)),
        _ if *leaf == 0 => {
            *t = v.clone();
            true
        }
        _ => {
            *leaf -= 1;
            false
        }
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (any::<u8>(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(kind, at, len, pick)| Mutation {
        kind,
        at,
        len,
        pick,
    })
}

#[test]
fn every_seed_builds() {
    for s in seeds() {
        let p = parse(&s, "seed.toml").unwrap();
        if p.geometry.raw_bytes() <= MAX_SIM_BYTES {
            check(&s).unwrap();
            SimSsd::new(&p, &DeviceOptions::default()).unwrap();
        }
    }
}

/// Every key of the small profiles set to every odd value in turn (one at a time).
#[test]
fn every_key_with_every_odd_value() {
    let seeds = seeds();
    let small: Vec<&String> =
        seeds.iter().filter(|s| parse(s, "s").unwrap().geometry.raw_bytes() <= MAX_SIM_BYTES).collect();
    for text in small {
        let base: toml::Value = toml::from_str(text).unwrap();
        for leaf in 0.. {
            let mut t = base.clone();
            let mut n = leaf;
            if !set_leaf(&mut t, &mut n, &odd_value(0)) {
                break;
            }
            for pick in 0..ODD_VALUES {
                let mut t = base.clone();
                set_leaf(&mut t, &mut leaf.clone(), &odd_value(pick));
                let edited = toml::to_string(&t).unwrap();
                match std::panic::catch_unwind(|| check(&edited)) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => panic!("value {:?} at leaf {leaf}: {e}\n{edited}", odd_value(pick)),
                    Err(_) => panic!("value {:?} at leaf {leaf} panicked (above)\n{edited}", odd_value(pick)),
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { max_shrink_time: 60_000, cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_profiles_never_panic(seed in 0..2 * EMBEDDED.len(), edits in prop::collection::vec(mutation(), 1..5)) {
        check(&mutate(&seeds()[seed], &edits))?;
    }

    #[test]
    fn odd_values_never_panic(seed in 0..2 * EMBEDDED.len(), edits in prop::collection::vec((0usize..200, 0usize..64), 1..4)) {
        let mut t: toml::Value = toml::from_str(&seeds()[seed]).unwrap();
        for (leaf, pick) in edits {
            let mut n = leaf;
            while !set_leaf(&mut t, &mut n, &odd_value(pick)) {
                n = leaf % (leaf - n).max(1); // fewer leaves than `leaf`: wrap around
            }
        }
        check(&toml::to_string(&t).unwrap())?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "(\\[[a-z_]{0,10}\\]\n|[a-z_]{1,20} = [-0-9a-z.e\"\\[\\], ]{0,12}\n|.{0,20}\n){0,12}") {
        check(&text)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        check(&String::from_utf8_lossy(&bytes))?;
    }
}
