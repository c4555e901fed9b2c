//! Building a `SimSsd` from a profile: scaling, capacity and OP checks, GC thresholds, governor.

use super::*;
use nand_model::cast::{sat_u32, sat_u64};
use nand_model::time::NS_PER_S;

impl DeviceOptions {
    /// The user capacity at full scale these options give `p`, bytes.
    pub fn user_capacity_full(&self, p: &ValidatedProfile) -> Result<u64, DeviceError> {
        Ok(match (self.user_capacity_bytes, self.op) {
            (Some(u), _) => u,
            (None, Some(op)) => {
                if !(op > 0.0 && op <= 10.0) {
                    return Err(DeviceError::Op(op * 100.0));
                }
                sat_u64(p.geometry.raw_bytes() as f64 / (1.0 + op))
            }
            (None, None) => p.profile.host.user_capacity_bytes,
        })
    }
}

impl SimSsd {
    pub fn new(p: &ValidatedProfile, opts: &DeviceOptions) -> Result<SimSsd, DeviceError> {
        let prof = &p.profile;
        let (geo, factor) = scale_geometry(&p.geometry, opts.scale_divisor.max(1));
        let mu = prof.controller.mapping_unit_bytes;
        let layout = Layout::new(geo, mu).map_err(|e| e.advise_scale(&p.geometry, mu))?;
        let raw_full = p.geometry.raw_bytes();
        let user_full = opts.user_capacity_full(p)?;
        let user_mus_wide = sat_u64(user_full as f64 / factor) / mu as u64;
        let blocks = layout.blocks;
        let pct_blocks = |pct: f64| sat_u32((blocks as f64 * pct / 100.0).ceil());
        let reserved_per_die = sat_u32((layout.blocks_per_die as f64 * prof.ftl.reserved_blocks_pct / 100.0).round())
            .min(layout.blocks_per_die / 2);
        let host_reserve = pct_blocks(prof.ftl.gc_fg_free_pct).max(2);
        let threshold = pct_blocks(prof.ftl.gc_bg_free_pct).max(host_reserve + 2);
        let in_service = blocks - reserved_per_die * layout.dies;
        let usable_mus = (in_service.saturating_sub(threshold)) as u64 * layout.mus_per_block as u64;
        // Below the usable units, which Layout keeps within u32.
        let user_mus = u32::try_from(user_mus_wide).ok().filter(|&u| (u as u64) < usable_mus && u > 0);
        let Some(user_mus) = user_mus else {
            let usable = sat_u64(usable_mus as f64 * mu as f64 * factor);
            return Err(DeviceError::Capacity {
                user: user_full,
                usable,
                min_op_pct: (raw_full as f64 / usable as f64 - 1.0) * 100.0,
            });
        };
        let cfg = CoreConfig {
            user_mus,
            policy: opts.gc_policy.unwrap_or(prof.ftl.gc_policy),
            hot_cold_separation: opts.hot_cold_separation.unwrap_or(prof.ftl.hot_cold_separation),
            gc_threshold_blocks: threshold,
            host_reserve_blocks: host_reserve,
            reserved_blocks_per_die: reserved_per_die,
            track_sequence: opts.track_sequence,
        };
        let user_sim = user_mus as u64 * mu as u64;
        let capacity = Capacity {
            scale_factor: factor,
            raw_bytes_full: raw_full,
            user_bytes_full: sat_u64((user_sim as f64 * factor).round()),
            raw_bytes_sim: geo.raw_bytes(),
            user_bytes_sim: user_sim,
            op: (geo.raw_bytes() as f64 - user_sim as f64) / user_sim as f64,
            reserved_blocks: reserved_per_die * layout.dies,
            gc_threshold_blocks: threshold,
            blocks,
        };
        let mut timing = p.timing;
        timing.t_bers_ns = SimTime::from_ns(sat_u64(
            (timing.t_bers_ns.ns() as f64 * scaled_erase_fraction(&p.geometry, &geo)).round(),
        ));
        let mut flash = Flash::new(geo, timing, p.energy);
        if opts.power_cap_w.is_some() || opts.power_meter_interval_ns.is_some() {
            let standby_w = p.energy.standby_w * geo.dies() as f64;
            let interval_ns = opts.power_meter_interval_ns.unwrap_or(NS_PER_S);
            let gc = prof.power.governor_config(opts.power_cap_w, standby_w, interval_ns);
            flash.set_governor(Some(nand_model::Governor::new(gc, geo.dies())?));
        }
        let ctrl = &prof.controller;
        #[allow(clippy::cast_possible_truncation)] // read_ahead_kib <= 2^20 (validated): fits u32
        let ra_window_mus = ((ctrl.read_ahead_kib as u64 * 1024) / mu as u64).max(1) as u32;
        Ok(SimSsd {
            core: FtlCore::new(layout, cfg),
            flash,
            capacity,
            lb_bytes: prof.host.logical_block_bytes,
            mu_bytes: mu,
            now: SimTime::ZERO,
            events: DevEvents::new(),
            cmds: Vec::new(),
            free_cmds: Vec::new(),
            outstanding: 0,
            pending_writes: Default::default(),
            buffer_cap_mus: ((ctrl.write_buffer_mib as u64) << 20) / mu as u64,
            buffer_used_mus: 0,
            buffer_gc_mus: 0,
            ctrl_ns_per_cmd: SimTime::from_ns(sat_u64((1e6 / ctrl.cmd_limit_kiops).round())),
            ctrl_ps_per_write_byte: ctrl.write_bandwidth_mbps.map_or(0, |bw| sat_u64((1e6 / bw).round())),
            ctrl_ps_per_read_byte: ctrl.read_bandwidth_mbps.map_or(0, |bw| sat_u64((1e6 / bw).round())),
            ctrl_ns_per_write: SimTime::from_ns(sat_u64(
                (1e6 / ctrl.write_cmd_limit_kiops.unwrap_or(ctrl.cmd_limit_kiops)).round(),
            )),
            ctrl_free: SimTime::ZERO,
            pcie: TransferTimer::new(sat_u64(prof.host.pcie_bytes_per_s())),
            pcie_in_free: SimTime::ZERO,
            pcie_out_free: SimTime::ZERO,
            read_overhead_ns: us_to_ns(ctrl.read_overhead_us),
            write_ack_ns: us_to_ns(ctrl.write_ack_us),
            pus: Vec::new(),
            free_pus: Vec::new(),
            waiting_programs: vec![VecDeque::new(); 2 * geo.dies() as usize],
            ready_programs: vec![VecDeque::new(); 2 * geo.dies() as usize],
            die_programs: vec![0; geo.dies() as usize],
            last_stream: vec![0; geo.dies() as usize],
            stream_word_lines: vec![0; 2 * geo.dies() as usize],
            full_word_lines: p.geometry.word_lines_per_block(),
            layer_ramp_resolved: true,
            read_waiters: VecDeque::new(),
            read_waiters_base: 0,
            next_waiter: vec![NO_QUEUE; 2 * geo.dies() as usize],
            pu_reads_from: [0; 2],
            read_run_start: 0,
            gc_reads: InOrderTracker::default(),
            pu_done: [InOrderTracker::default(), InOrderTracker::default()],
            victims: VecDeque::new(),
            pending_erases: 0,
            scratch: Vec::new(),
            admit_events: Vec::new(),
            stall: Stall::None,
            pacing: None,
            counters: Counters::default(),
            controller_idle_w: prof.power.controller_idle_w,
            host_j_per_byte: prof.power.host_pj_per_byte * 1e-12,
            plp: opts.plp.unwrap_or(ctrl.plp),
            read_ahead: (ctrl.read_ahead_kib > 0).then(|| ReadAhead::new(ra_window_mus)),
            hint_ring: [u32::MAX; HINT_STAGE],
            hint_pos: 0,
            rmw: RmwReads::default(),
        })
    }
}

impl SimSsd {
    /// Runs the drive until nothing is in flight (no host command outstanding is required):
    /// buffered programs, the GC they trigger and erases all finish.
    pub fn drain(&mut self) {
        debug_assert_eq!(self.outstanding, 0);
        self.next_completion(None);
    }

    /// Sets the power cap of a drained drive (see [`SimSsd::drain`]): a restored or forked
    /// drive measures at its own power setting. The governor's meter and totals carry on.
    pub fn set_power_cap(&mut self, cap_w: Option<f64>) -> Result<(), DeviceError> {
        Ok(self.flash.set_power_cap(cap_w, self.now)?)
    }

    /// The cap the governor holds now, W (`None` = uncapped or no governor).
    pub fn power_cap_w(&self) -> Option<f64> {
        self.flash.governor().and_then(|g| g.config().cap_w)
    }
}
