//! Building compiled forward models with the system C++ compiler, cached by content.
//!
//! A build is identified by everything that decides the binary: the generated sources, the
//! compiler (its path and the first line of `--version`) and the flags. The driver is kept in
//! `CACHE/<hash>/` with that key material beside it, so a second build of the same game is a
//! lookup, and a hash collision can never reuse a wrong binary (the material is compared, not
//! only the hash). Builds go to a temporary directory that is renamed into place when complete.

use crate::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Default optimisation flags (`--cxxflags`, `RGT_CXXFLAGS`).
pub const DEFAULT_FLAGS: &str = "-O3 -march=native -DNDEBUG";

/// A C++ compiler and the flags to build with.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub cxx: String,
    pub flags: Vec<String>,
    /// The first line of `cxx --version`.
    pub version: String,
}

impl Toolchain {
    /// The compiler named by `cxx`, else `$CXX`, else `c++`; flags from `flags`, else
    /// `$RGT_CXXFLAGS`, else [`DEFAULT_FLAGS`]. Fails with installation advice when the compiler
    /// does not run.
    pub fn find(cxx: Option<&str>, flags: Option<&str>) -> Result<Toolchain, Error> {
        let cxx = cxx
            .map(str::to_owned)
            .or_else(|| std::env::var("CXX").ok().filter(|s| !s.trim().is_empty()))
            .unwrap_or_else(|| "c++".to_owned());
        let flags = flags
            .map(str::to_owned)
            .or_else(|| std::env::var("RGT_CXXFLAGS").ok())
            .unwrap_or_else(|| DEFAULT_FLAGS.to_owned());
        let out = Command::new(&cxx).arg("--version").output().map_err(|e| {
            Error::Usage(format!(
                "cannot run the C++ compiler `{cxx}` ({e}). Install one (Debian/Ubuntu: \
                 `apt-get install g++`; Fedora: `dnf install gcc-c++`; macOS: `xcode-select \
                 --install`) or name it with --cxx or the CXX environment variable"
            ))
        })?;
        if !out.status.success() {
            return Err(Error::Usage(format!(
                "the C++ compiler `{cxx}` does not answer `--version`; name a working one with \
                 --cxx or the CXX environment variable"
            )));
        }
        let version = String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_owned();
        let mut all: Vec<String> = flags.split_whitespace().map(str::to_owned).collect();
        all.extend(rg_compile::REQUIRED_CXXFLAGS.iter().map(|s| s.to_string()));
        Ok(Toolchain {
            cxx,
            flags: all,
            version,
        })
    }
}

/// The directory compiled models are cached in: `--cache-dir`, `$RGT_CACHE_DIR`,
/// `$XDG_CACHE_HOME/rgt/native`, `$HOME/.cache/rgt/native`, else the system temporary
/// directory.
pub fn cache_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Ok(p) = std::env::var("RGT_CACHE_DIR")
        && !p.is_empty()
    {
        return PathBuf::from(p);
    }
    if let Ok(p) = std::env::var("XDG_CACHE_HOME")
        && !p.is_empty()
    {
        return PathBuf::from(p).join("rgt").join("native");
    }
    if let Ok(p) = std::env::var("HOME")
        && !p.is_empty()
    {
        return PathBuf::from(p).join(".cache").join("rgt").join("native");
    }
    std::env::temp_dir().join("rgt-native")
}

/// A built driver.
#[derive(Debug)]
pub struct Built {
    pub driver: PathBuf,
    /// Whether it came from the cache.
    pub cached: bool,
    /// Seconds the build took (0 when cached).
    pub seconds: f64,
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Waits for the compilation of one translation unit.
fn finish_unit(tc: &Toolchain, what: &str, child: std::process::Child) -> Result<(), Error> {
    let out = child
        .wait_with_output()
        .map_err(|e| Error::Io(format!("cannot run `{}`: {e}", tc.cxx)))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(compiler_failure(tc, what, &out.stderr))
    }
}

/// Builds (or finds in `cache`) the driver of `sources`.
pub fn build(sources: &rg_compile::Sources, tc: &Toolchain, cache: &Path) -> Result<Built, Error> {
    let mut material = format!(
        "rgt {}\ncompiler {}\nversion {}\nflags {}\n",
        env!("CARGO_PKG_VERSION"),
        tc.cxx,
        tc.version,
        tc.flags.join(" ")
    );
    for (name, text) in sources.files() {
        material.push_str(&format!("{name} {:016x} {}\n", fnv(text), text.len()));
    }
    let mut key = fnv(&material);
    for (_, text) in sources.files() {
        key = key.rotate_left(17) ^ fnv(text);
    }
    let dir = cache.join(format!("{key:016x}"));
    let driver = dir.join("driver");
    if driver.is_file()
        && std::fs::read_to_string(dir.join("key.txt")).is_ok_and(|k| k == material)
        && sources
            .files()
            .iter()
            .all(|(n, t)| std::fs::read_to_string(dir.join(n)).is_ok_and(|s| s == *t))
    {
        return Ok(Built {
            driver,
            cached: true,
            seconds: 0.0,
        });
    }
    let io = |what: &str, p: &Path, e: std::io::Error| {
        Error::Io(format!("cannot {what} `{}`: {e}", p.display()))
    };
    std::fs::create_dir_all(cache).map_err(|e| io("create", cache, e))?;
    let tmp = tempfile::Builder::new()
        .prefix(&format!("{key:016x}.build-"))
        .tempdir_in(cache)
        .map_err(|e| io("create a directory in", cache, e))?;
    for (name, text) in sources.files() {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).map_err(|e| io("write", &p, e))?;
    }
    let t0 = std::time::Instant::now();
    let compile = |src: &str, obj: &str| {
        Command::new(&tc.cxx)
            .args(&tc.flags)
            .args(["-c", "-o", obj, src])
            .current_dir(tmp.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| Error::Io(format!("cannot run `{}`: {e}", tc.cxx)))
    };
    // The translation units in parallel, as many at a time as the machine has cores.
    let units = sources.units();
    let objects: Vec<String> = units.iter().map(|u| u.replace(".cpp", ".o")).collect();
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut running: std::collections::VecDeque<(&str, std::process::Child)> = Default::default();
    let mut result = Ok(());
    for (unit, obj) in units.iter().zip(&objects) {
        if running.len() >= jobs
            && let Some((what, child)) = running.pop_front()
        {
            result = finish_unit(tc, what, child);
        }
        if result.is_err() {
            break;
        }
        match compile(unit, obj) {
            Ok(child) => running.push_back((unit, child)),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    while let Some((what, mut child)) = running.pop_front() {
        if result.is_ok() {
            result = finish_unit(tc, what, child);
        } else {
            // A unit failed: the others are not needed.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
    result?;
    let out = Command::new(&tc.cxx)
        .args(&tc.flags)
        .args(["-o", "driver"])
        .args(&objects)
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::Io(format!("cannot run `{}`: {e}", tc.cxx)))?;
    if !out.status.success() {
        return Err(compiler_failure(tc, "the driver (link)", &out.stderr));
    }
    let seconds = t0.elapsed().as_secs_f64();
    let k = tmp.path().join("key.txt");
    std::fs::write(&k, &material).map_err(|e| io("write", &k, e))?;
    let built = tmp.keep();
    if dir.exists() {
        // Another build finished first (or a stale entry): replace it.
        let _ = std::fs::remove_dir_all(&dir);
    }
    if let Err(e) = std::fs::rename(&built, &dir) {
        let _ = std::fs::remove_dir_all(&built);
        return Err(io("move the build to", &dir, e));
    }
    Ok(Built {
        driver,
        cached: false,
        seconds,
    })
}

fn compiler_failure(tc: &Toolchain, what: &str, stderr: &[u8]) -> Error {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().take(30).collect();
    Error::Io(format!(
        "`{}` could not compile {what} of the generated model (this is a bug in rgt: please \
         report it with the game):\n{}",
        tc.cxx,
        lines.join("\n")
    ))
}
