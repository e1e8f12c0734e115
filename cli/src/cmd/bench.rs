//! `rgt bench`: compile a game's forward model natively, check it, and measure it.

use crate::cmd::compile::generate;
use crate::cmd::perft::{InterpArgs, compile as interp_program};
use crate::native::{Toolchain, build, cache_dir};
use crate::pipeline::{GameArgs, load};
use crate::report::{Failure, Session};
use rg_interp::Machine;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// Compile a game to native code, check it against the interpreter, and measure it.
///
/// Generates the game's C++ forward model (as `rgt compile`), builds it with the system C++
/// compiler (`--cxx`, else `$CXX`, else `c++`) and caches the binary by content, so a second run
/// does not recompile. Before measuring, perft of the compiled model is compared with the
/// interpreter's at a small depth. Then it plays random games (`--plays N` or `--seconds T`,
/// default 10 s; the same seed plays the same games as `rgt run --seed`) and prints plays/s,
/// states/s, the statistics of `rgt run` and the mean goals; or, with `--perft D`, counts the
/// game tree as `rgt perft` does.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub game: GameArgs,

    /// Number of random games to play.
    #[arg(long, value_name = "N", conflicts_with = "seconds")]
    pub plays: Option<u64>,

    /// Play random games for this many seconds (default 10 when --plays is not given).
    #[arg(long, value_name = "T")]
    pub seconds: Option<f64>,

    /// Seed of the random generator.
    #[arg(long, value_name = "S", default_value_t = 0)]
    pub seed: u64,

    /// Count the game tree to this depth instead of playing.
    #[arg(long, value_name = "D")]
    pub perft: Option<u32>,

    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,

    /// Depth of the perft comparison with the interpreter before measuring (default: the
    /// deepest of 1..=3 the interpreter counts in about a second; 0 skips the check).
    #[arg(long, value_name = "D")]
    pub check_depth: Option<u32>,

    /// Also report two moves with the same tags that lead to different states while playing
    /// (`rgt run` always checks this; it costs time).
    #[arg(long)]
    pub check: bool,

    #[command(flatten)]
    pub model: crate::cmd::compile::ModelArg,

    /// The C++ compiler (default: $CXX, else `c++`).
    #[arg(long, value_name = "PROG")]
    pub cxx: Option<String>,

    /// Optimisation flags (default: $RGT_CXXFLAGS, else `-O3 -march=native -DNDEBUG`).
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cxxflags: Option<String>,

    /// Where compiled models are cached (default: $RGT_CACHE_DIR, else ~/.cache/rgt/native).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub cache_dir: Option<PathBuf>,

    #[command(flatten)]
    pub interp: InterpArgs,
}

/// Runs the driver; returns its standard output.
fn run_driver(driver: &std::path::Path, args: &[String]) -> Result<String, Failure> {
    let out = Command::new(driver)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Failure::Io(format!("cannot run `{}`: {e}", driver.display())))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let msg = err.trim().trim_start_matches("error: ");
        return Err(Failure::Io(format!(
            "the compiled model stopped: {}",
            if msg.is_empty() {
                format!("exit status {}", out.status)
            } else {
                msg.to_owned()
            }
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `rgt bench`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let tc = Toolchain::find(args.cxx.as_deref(), args.cxxflags.as_deref())?;
    let game = load(session, &args.game)?;
    let sources = generate(
        &game,
        &args.game.input,
        args.interp.ignore_pragmas,
        args.model.get(),
    )?;
    let cache = cache_dir(args.cache_dir.as_deref());
    let built = build(&sources, &tc, &cache)?;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{} {} ({})",
        if built.cached {
            "using the cached build"
        } else {
            "built"
        },
        built.driver.display(),
        if built.cached {
            tc.version.clone()
        } else {
            format!("{:.1} s with {}", built.seconds, tc.version)
        }
    );

    // The compiled model must count the same game tree as the interpreter.
    let program = interp_program(&game, &args.interp)?;
    let mut m = Machine::new(&program);
    let start = m.initial();
    let mut counts = Vec::new();
    let max_depth = args.check_depth.unwrap_or(3);
    for d in 1..=max_depth {
        let t = Instant::now();
        let n = m
            .perft(&start, d as usize)
            .map_err(|e| crate::cmd::perft::runtime_failure(*e))?;
        counts.push(n);
        if args.check_depth.is_none() && t.elapsed().as_secs_f64() > 0.3 {
            break;
        }
    }
    let depth = counts.len();
    if depth > 0 {
        let out = run_driver(
            &built.driver,
            &["perft".into(), depth.to_string(), "--json".into()],
        )?;
        let v: serde_json::Value = serde_json::from_str(&out)
            .map_err(|e| Failure::Io(format!("unreadable output of the compiled model: {e}")))?;
        let got: Vec<u64> = v["counts"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_u64()).collect())
            .unwrap_or_default();
        if got.get(1..) != Some(&counts[..]) {
            return Err(Failure::Io(format!(
                "the compiled model counts {:?} at depths 1..={depth} where the interpreter counts \
                 {counts:?}; this is a bug in rgt: please report it with the game",
                got.get(1..).unwrap_or(&[])
            )));
        }
        let _ = writeln!(
            err,
            "perft to depth {depth} equals the interpreter's: {counts:?}"
        );
    }

    let mut dargs: Vec<String> = Vec::new();
    match args.perft {
        Some(d) => dargs.extend(["perft".into(), d.to_string()]),
        None => {
            dargs.push("play".into());
            match (args.plays, args.seconds) {
                (Some(n), _) => dargs.extend(["--plays".into(), n.to_string()]),
                (None, s) => dargs.extend(["--seconds".into(), s.unwrap_or(10.0).to_string()]),
            }
            dargs.extend(["--seed".into(), args.seed.to_string()]);
            if args.check {
                dargs.push("--check".into());
            }
        }
    }
    if args.json {
        dargs.push("--json".into());
    }
    let out = run_driver(&built.driver, &dargs)?;
    let text = if args.json {
        let mut v: serde_json::Value = serde_json::from_str(&out)
            .map_err(|e| Failure::Io(format!("unreadable output of the compiled model: {e}")))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("game".into(), args.game.input.clone().into());
            o.insert("tool".into(), "rgt".into());
            o.insert("compiler".into(), tc.version.clone().into());
            o.insert("cached".into(), built.cached.into());
            o.insert("build_seconds".into(), built.seconds.into());
            o.insert("checked_depth".into(), depth.into());
        }
        format!("{v}\n")
    } else {
        out
    };
    crate::io::write_output(None, text.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
