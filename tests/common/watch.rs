//! A simulated target that passes every call through and, after each call the explore recorder
//! counts as a frame (every `wait` and `settle`), hands the target and the completion the wait
//! returned to a closure: the browser tests re-run a lesson and capture the model at the
//! recorder's frames.

use host_bench::device::{Device, DeviceError, DeviceInfo, IoCompletion, IoRequest};
use host_bench::sim::SimTarget;

pub struct Watched<'a, F: FnMut(&mut SimTarget, Option<&IoCompletion>)> {
    pub target: &'a mut SimTarget,
    pub after: F,
}

impl<F: FnMut(&mut SimTarget, Option<&IoCompletion>)> Device for Watched<'_, F> {
    fn info(&self) -> DeviceInfo {
        self.target.info()
    }
    fn now_ns(&self) -> u64 {
        self.target.now_ns()
    }
    fn submit(&mut self, req: IoRequest) -> Result<(), DeviceError> {
        self.target.submit(req)
    }
    fn wait(&mut self, deadline_ns: Option<u64>) -> Result<Option<IoCompletion>, DeviceError> {
        let r = self.target.wait(deadline_ns);
        (self.after)(self.target, r.as_ref().ok().and_then(|c| c.as_ref()));
        r
    }
    fn outstanding(&self) -> usize {
        self.target.outstanding()
    }
    fn hint_next_offset(&mut self, offset_bytes: u64) {
        self.target.hint_next_offset(offset_bytes)
    }
    fn settle(&mut self) {
        self.target.settle();
        (self.after)(self.target, None);
    }
    fn resolve_slow_swings(&mut self, resolved: bool) {
        self.target.resolve_slow_swings(resolved)
    }
    fn report_grid(&mut self, origins_ns: &[u64], interval_ns: u64) {
        self.target.report_grid(origins_ns, interval_ns)
    }
    fn report_point(&mut self) {
        self.target.report_point()
    }
}
