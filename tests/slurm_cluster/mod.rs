//! A throwaway single-node Slurm for tests: munged, slurmctld and slurmd started as root from
//! Debian's packages on a config, state and a munge key in a temp dir, on a free port pair.
//! Dropping the [`Cluster`] cancels its jobs and stops the three daemons by pid.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a panic in test code is a failed test

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NEEDED: [&str; 8] = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"];

pub struct Cluster {
    pub dir: PathBuf,
    pub conf: PathBuf,
    daemons: Vec<(&'static str, Child)>,
}

fn on_path(prog: &str) -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).chain(["/usr/sbin".into(), "/sbin".into()]).any(|d| d.join(prog).is_file())
}

/// A command's stdout, trimmed; empty when it cannot run (never panics: Drop calls it).
fn output(cmd: &mut Command) -> String {
    cmd.output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("bind a free port").port()
}

impl Cluster {
    /// Starts the cluster, or returns `None` after a loud message when Slurm or root is missing
    /// outside CI; under `CI=true` a missing piece fails the test.
    pub fn start(test: &str) -> Option<Cluster> {
        let mut missing: Vec<String> = NEEDED.iter().filter(|p| !on_path(p)).map(|p| p.to_string()).collect();
        if output(Command::new("id").arg("-u")) != "0" {
            missing.push("root (the test starts slurmctld/slurmd as root)".into());
        }
        if !missing.is_empty() {
            let msg = format!(
                "missing {}: install slurm-wlm munge (scripts/install-test-deps.sh) and run as root",
                missing.join(", ")
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{msg}");
            }
            // Straight to the stderr handle, which the test harness does not capture.
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("\n*** {test} SKIPPED: {msg} ***\n\n").as_bytes(),
            );
            return None;
        }
        let dir = std::env::temp_dir().join(format!("ssdlab-slurm-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for d in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(d)).expect("create the cluster's dirs");
        }
        let mut c = Cluster { conf: dir.join("slurm.conf"), dir, daemons: Vec::new() };
        c.start_munge();
        c.write_conf();
        let conf = c.conf.display().to_string();
        let host = c.host();
        c.spawn("slurmctld", &["-D", "-c", "-f", &conf]);
        c.spawn("slurmd", &["-D", "-f", &conf, "-N", &host]);
        c.wait_idle();
        Some(c)
    }

    fn host(&self) -> String {
        output(Command::new("hostname").arg("-s"))
    }

    fn start_munge(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        let m = self.dir.join("munge");
        let mut key = vec![0u8; 1024];
        std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").unwrap(), &mut key).unwrap();
        std::fs::write(m.join("key"), key).unwrap();
        std::fs::set_permissions(m.join("key"), std::fs::Permissions::from_mode(0o400)).unwrap();
        // munged wants its socket's directory searchable by everyone, and nothing writable by others.
        std::fs::set_permissions(&m, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let p = |n: &str| format!("{}", m.join(n).display());
        let args = [
            "-F".to_string(),
            format!("--socket={}", p("sock")),
            format!("--key-file={}", p("key")),
            format!("--log-file={}", p("log")),
            format!("--pid-file={}", p("pid")),
            format!("--seed-file={}", p("seed")),
        ];
        self.spawn("munged", &args.iter().map(String::as_str).collect::<Vec<_>>());
        let sock = m.join("sock");
        self.wait_for("munged's socket", || sock.exists());
    }

    fn write_conf(&self) {
        let cpus = output(Command::new("slurmd").arg("-C"))
            .split_whitespace()
            .find_map(|t| t.strip_prefix("CPUs=").and_then(|n| n.parse::<u32>().ok()))
            .unwrap_or(1);
        let d = |n: &str| self.dir.join(n).display().to_string();
        let host = self.host();
        let conf = format!(
            "ClusterName=ssdlabtest\nSlurmctldHost={host}(127.0.0.1)\nSlurmctldPort={}\nSlurmdPort={}\n\
             SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nAuthInfo=socket={}\nCredType=cred/munge\n\
             StateSaveLocation={}\nSlurmdSpoolDir={}\nSlurmctldPidFile={}\nSlurmdPidFile={}\n\
             SlurmctldLogFile={}\nSlurmdLogFile={}\nMailProg=/bin/true\n\
             ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nSchedulerType=sched/builtin\nJobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\nMpiDefault=none\n\
             ReturnToService=2\nMinJobAge=10\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n\
             PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            d("munge/sock"),
            d("state"),
            d("spool"),
            d("slurmctld.pid"),
            d("slurmd.pid"),
            d("log/slurmctld.log"),
            d("log/slurmd.log"),
        );
        std::fs::write(&self.conf, conf).unwrap();
    }

    fn spawn(&mut self, prog: &'static str, args: &[&str]) {
        let log = std::fs::File::create(self.dir.join("log").join(format!("{prog}.out"))).unwrap();
        let child = Command::new(prog)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("start {prog}: {e}"));
        self.daemons.push((prog, child));
    }

    fn wait_for(&mut self, what: &str, mut ok: impl FnMut() -> bool) {
        let t0 = Instant::now();
        while !ok() {
            for (name, c) in &mut self.daemons {
                if let Ok(Some(st)) = c.try_wait() {
                    panic!("{name} exited ({st}) while waiting for {what}; logs in {}", self.dir.join("log").display());
                }
            }
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "timed out waiting for {what}; logs in {}",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn wait_idle(&mut self) {
        let conf = self.conf.clone();
        self.wait_for("the node to be idle", || {
            output(Command::new("sinfo").env("SLURM_CONF", &conf).args(["-h", "-o", "%T"])) == "idle"
        });
    }

    /// A Slurm client command (or ssdlab) talking to this cluster.
    pub fn command(&self, prog: &str) -> Command {
        let mut c = Command::new(prog);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// `squeue` of every array task: (job id, task id, state, reason).
    pub fn queue(&self) -> Vec<(String, u32, String, String)> {
        output(self.command("squeue").args(["-h", "-r", "-o", "%F %K %T %r"]))
            .lines()
            .filter_map(|l| {
                let v: Vec<&str> = l.split_whitespace().collect();
                Some((v.first()?.to_string(), v.get(1)?.parse().ok()?, v.get(2)?.to_string(), v.get(3)?.to_string()))
            })
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first, so no slurmstepd or task outlives the daemons.
        let _ = self.command("scancel").args(["--user=root", "--full"]).status();
        let t0 = Instant::now();
        while !self.queue().is_empty() && t0.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(200));
        }
        for (name, c) in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill").args(["-TERM", &c.id().to_string()]).status();
            let t0 = Instant::now();
            while c.try_wait().ok().flatten().is_none() && t0.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(100));
            }
            if c.try_wait().ok().flatten().is_none() {
                eprintln!("{name} ignored SIGTERM; killing pid {}", c.id());
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        // Logs and state stay for a failed test to be read.
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
