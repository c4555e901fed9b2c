//! Spreading a sweep's work over a rayon pool of `threads` workers: one point per task, or
//! (forked sweeps) a group's preconditioning as one task that spawns its points as tasks of
//! their own, so every thread stays busy even when there are fewer groups than threads. A
//! worker takes the tasks it spawned first (rayon's local order), so the points of the group it
//! preconditioned run before it starts another group, which frees that group's drive sooner.

use super::{fork, run_point_until, Point, Row, SweepControl, SweepError, SweepSpec};
use crate::job::JobFile;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

type Results = Result<Vec<Result<Row, SweepError>>, SweepError>;

fn stopped(c: &SweepControl) -> bool {
    c.stop.is_some_and(|s| s.load(Ordering::Relaxed))
}

/// A pool of `threads` workers (at least one, at most one per point).
fn pool(threads: usize, points: usize) -> Result<rayon::ThreadPool, SweepError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.clamp(1, points.max(1)))
        .build()
        .map_err(|e| SweepError::Io { path: "worker threads".into(), message: e.to_string() })
}

/// Rows (and errors) in the order the workers finished them.
struct Collected(Mutex<Vec<Result<Row, SweepError>>>);

impl Collected {
    fn push(&self, r: Result<Row, SweepError>) {
        if let Ok(mut v) = self.0.lock() {
            v.push(r);
        }
    }

    fn into_results(self) -> Results {
        self.0.into_inner().map_err(|_| SweepError::Merge("a worker thread panicked".into()))
    }
}

/// Every point preconditions itself.
pub(super) fn each(spec: &SweepSpec, job: &JobFile, points: &[&Point], c: &SweepControl) -> Results {
    let out = Collected(Mutex::new(Vec::with_capacity(points.len())));
    pool(c.threads, points.len())?.scope(|s| {
        for &p in points {
            let out = &out;
            s.spawn(move |_| {
                if stopped(c) {
                    return;
                }
                match run_point_until(spec, job, p, c.stop) {
                    Ok(None) => {}
                    Ok(Some(row)) => out.push((c.on_done)(&row).map(|()| row)),
                    Err(e) => out.push(Err(e)),
                }
            });
        }
    });
    out.into_results()
}

/// Groups precondition once; their points run from copies of the group's drive.
pub(super) fn forked(
    spec: &SweepSpec,
    prefix: &JobFile,
    suffix: &JobFile,
    points: &[&Point],
    c: &SweepControl,
) -> Results {
    let out = Collected(Mutex::new(Vec::with_capacity(points.len())));
    pool(c.threads, points.len())?.scope(|s| {
        for members in fork::groups(points) {
            let out = &out;
            s.spawn(move |s| {
                if stopped(c) {
                    return;
                }
                let Some(&first) = members.first() else { return };
                let leader = fork::group_leader(spec, first);
                match fork::precondition_cached(spec, prefix, &leader, c.cache, c.stop) {
                    Ok(Some(f)) => {
                        let f = Arc::new(f);
                        for p in members {
                            let f = f.clone();
                            s.spawn(move |_| {
                                if stopped(c) {
                                    return;
                                }
                                match fork::run_forked(spec, suffix, &f, p, c.stop) {
                                    Ok(None) => {}
                                    Ok(Some(row)) => out.push((c.on_done)(&row).map(|()| row)),
                                    Err(e) => out.push(Err(e)),
                                }
                            });
                        }
                    }
                    Ok(None) => {}
                    Err(e) => out.push(Err(e)),
                }
            });
        }
    });
    out.into_results()
}
