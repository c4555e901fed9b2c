//! WA of the timeless FTL on a profile's layout with explicit blocks per plane and word lines per
//! block (diagnostic for scaling): `instant_wa PROFILE BLOCKS_PER_PLANE WORD_LINES SEPARATION OP`
use ftl::core::CoreConfig;
use ftl::instant::InstantFtl;
use ftl::layout::Layout;
use rand::{Rng, SeedableRng};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let p = ftl::profile::load(&a[1]).unwrap();
    let mut g = p.geometry;
    g.blocks_per_plane = a[2].parse().unwrap();
    g.pages_per_block = a[3].parse::<u32>().unwrap() * g.bits_per_cell;
    let sep: bool = a[4].parse().unwrap();
    let op: f64 = a[5].parse().unwrap();
    let l = Layout::new(g, 4096).unwrap();
    let thr = (l.blocks / 100).max(4);
    let user = (l.total_mus() as f64 / (1.0 + op)) as u32;
    let cfg = CoreConfig {
        user_mus: user,
        policy: if a.get(6).map(String::as_str) == Some("cb") {
            ftl::GcPolicy::CostBenefit
        } else {
            ftl::GcPolicy::Greedy
        },
        hot_cold_separation: sep,
        gc_threshold_blocks: thr,
        host_reserve_blocks: thr / 2,
        reserved_blocks_per_die: 0,
        track_sequence: false,
    };
    let mut f = InstantFtl::new(l, cfg);
    for i in 0..user {
        f.write(i).unwrap();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut last = 0.0;
    for _round in 0..5 {
        let b = f.core.stats;
        for _ in 0..user {
            f.write(rng.gen_range(0..user)).unwrap();
        }
        let s = f.core.stats;
        last = (s.nand_write_mus() - b.nand_write_mus()) as f64 / (s.host_write_mus - b.host_write_mus) as f64;
    }
    println!(
        "blocks/die {} WL {} b {} MUs: WA {:.3} (model {:.3})",
        g.blocks_per_plane,
        g.pages_per_block / g.bits_per_cell,
        l.mus_per_block,
        last,
        ftl::wa_model::wa_greedy_uniform(op)
    );
}
