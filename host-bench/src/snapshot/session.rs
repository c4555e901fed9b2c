//! Sessions and snapshots: saving the drive of a session, and a session on a saved drive.

use super::{Frozen, Identity, Sampling, SnapshotError, SnapshotMeta, SteadyStateRecord};
use crate::simrun::{SimConfig, SimError, SimSession};
use ftl::ValidatedProfile;
use std::path::Path;

impl SimSession {
    /// The identity a snapshot of this session's drive carries.
    pub fn identity(&self) -> Identity {
        // As asked (the drive's own figure is rounded to whole units of the scaled drive).
        let asked = ftl::device::DeviceOptions {
            user_capacity_bytes: self.cfg.user_capacity_bytes,
            op: self.cfg.op,
            ..Default::default()
        };
        let user = asked.user_capacity_full(&self.profile).unwrap_or(self.target.ssd.capacity().user_bytes_full);
        Identity::of(&self.cfg, &self.profile, self.scale_divisor, user)
    }

    /// The drive as it is now, frozen in memory (the session's [`SimSession::position`] is what
    /// a continuing run will number from: advance it past the jobs run before freezing).
    pub fn freeze(&self, made_by: String, steady_state: Option<SteadyStateRecord>) -> Frozen {
        let (interval_ns, next_ns) = self.target.sampling();
        Frozen::new(self.snapshot_meta(made_by, steady_state), &self.target.ssd, Sampling { interval_ns, next_ns })
    }

    /// The readable header of a snapshot of this session's drive as it is now.
    pub(super) fn snapshot_meta(&self, made_by: String, steady_state: Option<SteadyStateRecord>) -> SnapshotMeta {
        let ssd = &self.target.ssd;
        let c = ssd.counters();
        SnapshotMeta {
            identity: self.identity(),
            seed: self.cfg.seed,
            power_state: self.cfg.power_state,
            power_cap_w: self.power_cap_w,
            position: self.position,
            sim_time_ns: ssd.now().ns(),
            host_write_bytes: c.host_write_bytes,
            drive_writes: c.host_write_bytes as f64 / ssd.capacity().user_bytes_sim.max(1) as f64,
            made_by,
            steady_state,
            mid_run: None,
        }
    }

    /// A session on the drive frozen in `frozen` (named `source` in errors), built as `cfg`
    /// asks: refused unless `cfg` describes the same drive ([`Identity::check`]). When `cfg`'s
    /// power cap differs from the one the drive was saved at, the drive first finishes all it
    /// has in flight (buffered programs and GC), then the cap changes.
    pub fn thaw(cfg: SimConfig, frozen: &Frozen, source: &str) -> Result<SimSession, SimError> {
        Self::thaw_with(cfg, None, frozen, source)
    }

    /// [`SimSession::thaw`] with the profile given in memory (see [`SimSession::from_profile`]).
    pub fn thaw_with(
        cfg: SimConfig,
        profile: Option<ValidatedProfile>,
        frozen: &Frozen,
        source: &str,
    ) -> Result<SimSession, SimError> {
        if frozen.meta.mid_run.is_some() {
            let message = "saved in the middle of a run (run --save-at): continue that run with \
                           `ssdlab run JOB --resume-from`, or save a drive after a whole run with --save-drive alone"
                .to_string();
            return Err(SnapshotError::Refused { path: source.to_string(), message }.into());
        }
        let (profile, opts) = Self::prepare_for(&cfg, profile, frozen, source)?;
        let device = |source| SimError::Device { drive: cfg.drive.clone(), source };
        let (mut ssd, sampling) = frozen.thaw(source)?;
        if ssd.power_cap_w() != opts.power_cap_w {
            ssd.drain();
            ssd.set_power_cap(opts.power_cap_w).map_err(device)?;
        }
        let mut s = Self::with_drive(cfg, profile, &opts, ssd);
        s.target.set_sampling(sampling.interval_ns, sampling.next_ns);
        s.position = frozen.meta.position;
        Ok(s)
    }

    /// The profile and device options `cfg` asks for, refused unless they build the drive
    /// `frozen` was saved from ([`Identity::check`]).
    pub(super) fn prepare_for(
        cfg: &SimConfig,
        profile: Option<ValidatedProfile>,
        frozen: &Frozen,
        source: &str,
    ) -> Result<(ftl::profile::ValidatedProfile, ftl::device::DeviceOptions), SimError> {
        let (profile, opts) = Self::prepare_with(cfg, profile, false)?;
        let device = |source| SimError::Device { drive: cfg.drive.clone(), source };
        let user = opts.user_capacity_full(&profile).map_err(device)?;
        let want = Identity::of(cfg, &profile, opts.scale_divisor, user);
        frozen
            .meta
            .identity
            .check(&want)
            .map_err(|message| SnapshotError::Refused { path: source.to_string(), message })?;
        Ok((profile, opts))
    }

    /// [`SimSession::thaw`] from a snapshot file.
    pub fn from_snapshot(cfg: SimConfig, path: &Path) -> Result<(SimSession, SnapshotMeta), SimError> {
        Self::from_snapshot_with(cfg, None, path)
    }

    /// [`SimSession::from_snapshot`] with the profile given in memory.
    pub fn from_snapshot_with(
        cfg: SimConfig,
        profile: Option<ValidatedProfile>,
        path: &Path,
    ) -> Result<(SimSession, SnapshotMeta), SimError> {
        let frozen = Frozen::read(path)?;
        let s = Self::thaw_with(cfg, profile, &frozen, &path.display().to_string())?;
        Ok((s, frozen.meta))
    }
}
