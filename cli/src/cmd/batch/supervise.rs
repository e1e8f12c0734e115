//! The supervisor side: runs one game in a worker process and turns what happens into a report
//! record.
//!
//! Why processes and not threads: a thread cannot be stopped. A game that loops forever (or
//! grounds into gigabytes) in a thread would keep a core and its memory until the whole batch
//! ends, and a stack overflow or an abort in a front-end kills every game of the batch, since
//! neither can be caught. A child process can be killed at the deadline, its memory is returned
//! at once, its crash is only its own, and its resident memory can be watched for
//! `--max-memory`. Starting a process costs about a millisecond, which is negligible next to
//! translating a game.
//!
//! Nothing partial is ever written: the worker only writes (atomically, via a temporary file and
//! a rename) after the supervisor has accepted its result and sent `commit`; a worker that
//! is killed or abandoned before that writes nothing. Workers run in their own process group, so
//! a Ctrl-C at the terminal stops the supervisor but not a worker in the middle of its rename;
//! workers that have not been told to commit see their standard input close and exit without
//! writing (see `worker.rs`).

use super::discover::Job;
use super::worker::{
    PREFIX, SUBCOMMAND, WorkerRecord, WriteOutcome, plain_record, proc_status_kib,
};
use super::{GameRecord, Status};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start a worker and what limits apply to it.
#[derive(Clone, Debug)]
pub struct Supervisor {
    /// The `rgt` executable.
    pub exe: PathBuf,
    /// The options of every worker (see `worker::options`): the batch's loading options.
    pub args: Vec<OsString>,
    /// Per-game time limit.
    pub timeout: Option<Duration>,
    /// Per-game resident memory limit, in bytes.
    pub max_memory: Option<u64>,
}

/// How often the memory of a worker is sampled when `--max-memory` is set.
const MEMORY_POLL: Duration = Duration::from_millis(10);

impl Supervisor {
    /// Translates one game in a worker and reports what happened.
    pub fn run(&self, job: &Job) -> GameRecord {
        let start = Instant::now();
        let mut record = GameRecord::new(job);
        let mut cmd = Command::new(&self.exe);
        cmd.arg(SUBCOMMAND)
            .args(&self.args)
            .arg("--output")
            .arg(&job.output)
            .arg("--")
            .arg(&job.input)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                return record.internal(
                    start,
                    format!("cannot start a worker `{}`: {e}", self.exe.display()),
                );
            }
        };
        let lines = read_lines(child.stdout.take().expect("piped stdout"));
        let stderr = read_all(child.stderr.take().expect("piped stderr"));

        // Phase 1: translation, under the time and memory limits.
        let first = match self.wait_line(&mut child, &lines, start) {
            Wait::Line(line) => line,
            Wait::Closed => {
                let status = child.wait();
                let err = stderr.join().unwrap_or_default();
                return record.internal(start, crash_message(job, status.ok(), &err));
            }
            Wait::Timeout => {
                kill(&mut child);
                let limit = self.timeout.map_or(0.0, |t| t.as_secs_f64());
                record.status = Status::Timeout;
                record.seconds = start.elapsed().as_secs_f64();
                record.diagnostics.push(plain_record(
                    "rgt::batch::timeout",
                    &format!("translation did not finish within {limit} s (--timeout); nothing was written"),
                ));
                return record;
            }
            Wait::Memory(rss) => {
                kill(&mut child);
                return self.over_memory(record, start, rss);
            }
        };
        record.seconds = start.elapsed().as_secs_f64();
        let Ok(worker) = serde_json::from_str::<WorkerRecord>(&first) else {
            kill(&mut child);
            return record.internal(
                start,
                format!("a worker sent an unreadable record: {first}"),
            );
        };
        record.stats_before = worker.stats_before;
        record.stats_after = worker.stats_after;
        record.peak_rss_bytes = worker.peak_rss_bytes;
        record.diagnostics = worker.diagnostics;
        let mut stdin = child.stdin.take().expect("piped stdin");
        // A game can finish between two memory samples: its own peak decides then.
        if let (Some(limit), Some(peak)) = (self.max_memory, worker.peak_rss_bytes)
            && peak > limit
        {
            drop(stdin);
            let _ = child.wait();
            record.diagnostics.clear();
            return self.over_memory(record, start, peak);
        }
        if !worker.ok {
            drop(stdin);
            let _ = child.wait();
            record.status = Status::Failed;
            return record;
        }

        // Phase 2: accepted; the worker writes the output. No time limit: it only renames a
        // temporary file into place, and killing it now could leave that temporary file behind.
        let committed = stdin
            .write_all(b"commit\n")
            .and_then(|()| stdin.flush())
            .is_ok();
        drop(stdin);
        let outcome = committed.then(|| lines.recv().ok()).flatten();
        let status = child.wait();
        let err = stderr.join().unwrap_or_default();
        match outcome.map(|l| serde_json::from_str::<WriteOutcome>(&l)) {
            Some(Ok(WriteOutcome { error: None })) => record.status = Status::Ok,
            Some(Ok(WriteOutcome { error: Some(e) })) => {
                record.status = Status::Failed;
                record.diagnostics.push(plain_record("rgt::io", &e));
            }
            _ => return record.internal(start, crash_message(job, status.ok(), &err)),
        }
        record
    }

    fn over_memory(&self, mut record: GameRecord, start: Instant, rss: u64) -> GameRecord {
        record.status = Status::MemoryLimit;
        record.seconds = start.elapsed().as_secs_f64();
        record.peak_rss_bytes = Some(rss);
        record.stats_before = None;
        record.stats_after = None;
        record.diagnostics.push(plain_record(
            "rgt::batch::memory-limit",
            &format!(
                "translation used {:.1} MiB, over the limit of {:.1} MiB (--max-memory); nothing was written",
                rss as f64 / 1048576.0,
                self.max_memory.unwrap_or(0) as f64 / 1048576.0
            ),
        ));
        record
    }

    fn wait_line(&self, child: &mut Child, lines: &Receiver<String>, start: Instant) -> Wait {
        let deadline = self.timeout.map(|t| start + t);
        loop {
            let now = Instant::now();
            let mut slice = match deadline {
                Some(d) if d <= now => return Wait::Timeout,
                Some(d) => d - now,
                None => Duration::from_secs(3600),
            };
            if self.max_memory.is_some() {
                slice = slice.min(MEMORY_POLL);
            }
            match lines.recv_timeout(slice) {
                Ok(line) => return Wait::Line(line),
                Err(RecvTimeoutError::Disconnected) => return Wait::Closed,
                Err(RecvTimeoutError::Timeout) => {
                    if let Some(limit) = self.max_memory
                        && let Some(rss) = rss_of(child.id())
                        && rss > limit
                    {
                        return Wait::Memory(rss);
                    }
                }
            }
        }
    }
}

enum Wait {
    Line(String),
    Closed,
    Timeout,
    Memory(u64),
}

/// Kills a worker and reaps it.
fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Resident memory of a process (Linux), in bytes.
fn rss_of(pid: u32) -> Option<u64> {
    proc_status_kib(Path::new(&format!("/proc/{pid}/status")), "VmRSS:").map(|k| k * 1024)
}

/// Why a worker ended without a result: its panic message, or how it died.
fn crash_message(job: &Job, status: Option<std::process::ExitStatus>, stderr: &str) -> String {
    let how = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_owned())
        .unwrap_or_else(|| match status {
            #[cfg(unix)]
            Some(s) if std::os::unix::process::ExitStatusExt::signal(&s).is_some() => format!(
                "the worker was killed by signal {}",
                std::os::unix::process::ExitStatusExt::signal(&s).unwrap_or(0)
            ),
            Some(s) => format!("the worker ended without a result ({s})"),
            None => "the worker ended without a result".to_owned(),
        });
    format!(
        "{how}\nThis is a bug in rgt, not in the game; reproduce it with `rgt translate {}`",
        job.input.display()
    )
}

/// Sends each protocol line of `r`, without its prefix, to the returned channel (closed at end
/// of input).
fn read_lines(r: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines() {
            let Ok(line) = line else { break };
            let Some(msg) = line.strip_prefix(PREFIX) else {
                continue;
            };
            if tx.send(msg.to_owned()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Reads all of `r` on a thread (so a chatty worker never blocks on a full pipe).
fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = r.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
