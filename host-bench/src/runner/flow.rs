//! fio 3.33's token flow between jobs (flow.c): jobs of one `flow_id` share a counter that
//! starts at 1; before each I/O a job checks its own count over the shared one against its
//! weight over the flow's total weight, and is held while it is ahead (fio spins; with
//! `flow_sleep` it drains its queue and sleeps). An I/O that passes counts in both. A job
//! that ends takes its count and weight out of the flow.
//!
//! Unlike fio, a flow holds the jobs of the running group only (fio counts the weight of every
//! job in the file from the start, so a later group's weight holds back an earlier one).

/// The shared counter and weight of one `flow_id` in the running group.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub(super) struct FlowShared {
    pub(super) id: u32,
    counter: u64,
    total_weight: u64,
}

/// One instance's part in a flow.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(super) struct FlowMember {
    /// Index into the group's flows.
    pub(super) flow: usize,
    weight: u64,
    counter: u64,
    pub(super) sleep_ns: u64,
    /// Held with `flow_sleep`: may retry from this time on (after its queue drained).
    pub(super) sleep_until_ns: Option<u64>,
    pub(super) left: bool,
}

impl FlowMember {
    /// Joins flow `id` (adding it to `flows` if new); fio `flow_init_job`.
    pub(super) fn join(flows: &mut Vec<FlowShared>, id: u32, weight: u32, sleep_ns: u64) -> Self {
        let flow = match flows.iter().position(|f| f.id == id) {
            Some(f) => f,
            None => {
                flows.push(FlowShared { id, counter: 1, total_weight: 0 });
                flows.len() - 1
            }
        };
        flows[flow].total_weight += u64::from(weight);
        FlowMember { flow, weight: u64::from(weight), counter: 0, sleep_ns, sleep_until_ns: None, left: false }
    }

    /// fio `flow_threshold_exceeded`: true when the job must hold back; otherwise the I/O
    /// about to be issued is counted.
    pub(super) fn held(&mut self, flows: &mut [FlowShared]) -> bool {
        let f = &mut flows[self.flow];
        let counter_ratio = self.counter as f64 / f.counter as f64;
        let weight_ratio = self.weight as f64 / f.total_weight as f64;
        if counter_ratio > weight_ratio {
            return true;
        }
        f.counter += 1;
        self.counter += 1;
        false
    }

    /// fio `flow_exit_job`.
    pub(super) fn leave(&mut self, flows: &mut [FlowShared]) {
        if self.left {
            return;
        }
        self.left = true;
        let f = &mut flows[self.flow];
        f.counter -= self.counter;
        f.total_weight -= self.weight;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_to_one_weights_issue_two_to_one() {
        let mut flows = Vec::new();
        let mut a = FlowMember::join(&mut flows, 7, 2, 0);
        let mut b = FlowMember::join(&mut flows, 7, 1, 0);
        let (mut na, mut nb) = (0u64, 0u64);
        // Both try as fast as they can, alternately.
        for _ in 0..30_000 {
            na += u64::from(!a.held(&mut flows));
            nb += u64::from(!b.held(&mut flows));
        }
        assert!((na as f64 / nb as f64 - 2.0).abs() < 1e-3, "{na} {nb}");
        a.leave(&mut flows);
        assert!(!b.held(&mut flows), "alone in the flow, b is never held");
    }
}
