//! Spreading a sweep's work over threads: one point per task, or (forked sweeps) a group's
//! preconditioning as one task whose points then become tasks of their own, so every thread
//! stays busy even when there are fewer groups than threads.

use super::{fork, run_point_until, Point, Row, SweepControl, SweepError, SweepSpec};
use crate::job::JobFile;
use crate::snapshot::Frozen;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Results = Result<Vec<Result<Row, SweepError>>, SweepError>;

fn stopped(c: &SweepControl) -> bool {
    c.stop.is_some_and(|s| s.load(Ordering::Relaxed))
}

/// Every point preconditions itself.
pub(super) fn each(spec: &SweepSpec, job: &JobFile, points: &[&Point], c: &SweepControl) -> Results {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Result<Row, SweepError>>> = Mutex::new(Vec::with_capacity(points.len()));
    std::thread::scope(|sc| {
        for _ in 0..c.threads.clamp(1, points.len().max(1)) {
            sc.spawn(|| loop {
                if stopped(c) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = points.get(i) else { break };
                let r = match run_point_until(spec, job, p, c.stop) {
                    Ok(None) => break,
                    Ok(Some(row)) => (c.on_done)(&row).map(|()| row),
                    Err(e) => Err(e),
                };
                if let Ok(mut v) = results.lock() {
                    v.push(r);
                }
            });
        }
    });
    results.into_inner().map_err(|_| SweepError::Merge("a worker thread panicked".into()))
}

/// Work of a forked sweep.
enum Task<'a> {
    Precondition(Vec<&'a Point>),
    Measure(&'a Point, Arc<Frozen>),
}

struct Queue<'a> {
    tasks: VecDeque<Task<'a>>,
    /// Preconditioning tasks under way (their points are not queued yet).
    busy: usize,
}

/// Groups precondition once; their points run from copies of the group's drive.
pub(super) fn forked(
    spec: &SweepSpec,
    prefix: &JobFile,
    suffix: &JobFile,
    points: &[&Point],
    c: &SweepControl,
) -> Results {
    let groups = fork::groups(points);
    let threads = c.threads.clamp(1, points.len().max(1));
    let queue = Mutex::new(Queue { tasks: groups.into_iter().map(Task::Precondition).collect(), busy: 0 });
    let results: Mutex<Vec<Result<Row, SweepError>>> = Mutex::new(Vec::with_capacity(points.len()));
    let push = |r: Result<Row, SweepError>| {
        if let Ok(mut v) = results.lock() {
            v.push(r);
        }
    };
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                if stopped(c) {
                    break;
                }
                // Measurements first: they free their group's drive sooner.
                let task = {
                    let Ok(mut q) = queue.lock() else { break };
                    let i = q.tasks.iter().position(|t| matches!(t, Task::Measure(..))).unwrap_or(0);
                    match q.tasks.remove(i) {
                        Some(t) => {
                            if matches!(t, Task::Precondition(_)) {
                                q.busy += 1;
                            }
                            Some(t)
                        }
                        None if q.busy > 0 => None,
                        None => break,
                    }
                };
                match task {
                    None => std::thread::sleep(std::time::Duration::from_millis(5)),
                    Some(Task::Measure(p, frozen)) => match fork::run_forked(spec, suffix, &frozen, p, c.stop) {
                        Ok(None) => break,
                        Ok(Some(row)) => push((c.on_done)(&row).map(|()| row)),
                        Err(e) => push(Err(e)),
                    },
                    Some(Task::Precondition(members)) => {
                        let leader = fork::group_leader(spec, members[0]);
                        let r = fork::precondition_cached(spec, prefix, &leader, c.cache, c.stop);
                        let Ok(mut q) = queue.lock() else { break };
                        q.busy -= 1;
                        match r {
                            Ok(Some(f)) => {
                                let f = Arc::new(f);
                                q.tasks.extend(members.into_iter().map(|p| Task::Measure(p, f.clone())));
                            }
                            Ok(None) => break,
                            Err(e) => push(Err(e)),
                        }
                    }
                }
            });
        }
    });
    results.into_inner().map_err(|_| SweepError::Merge("a worker thread panicked".into()))
}
