//! `rgt`: translate games written in any GGP language into checked Regular Games (RG).
//!
//! The binary is a thin wrapper around [`run`]: argument parsing, printing and exit codes over
//! the `rg_pipeline` library, which owns loading, checking, optimising and rendering. This
//! library exposes the command-line definition (for completions and man pages).
#![allow(clippy::print_stdout, clippy::print_stderr)] // the CLI is where output happens

pub mod cmd;
pub mod io;
pub mod pipeline;
pub mod report;

pub use rg_pipeline::{lang, native};

use clap::{Parser, Subcommand};
use report::{ColorChoice, Session};
use std::process::ExitCode;

/// The assembler for General Game Playing.
///
/// Reads a game in RG (.rg), HRG (.hrg), RBG (.rbg), GDL/KIF (.kif) or LineGames (.lg), checks it
/// and writes one low-level Regular Games description of it.
///
/// Exit status: 0 success; 1 the input has errors (diagnostics are printed) or a file could not be
/// read or written; 2 usage error; 3 internal error (a bug in rgt: please report it).
#[derive(Debug, Parser)]
#[command(name = "rgt", version, max_term_width = 100, after_long_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// When to colour diagnostics.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorChoice::Auto,
        help_heading = "Global options",
        display_order = 1000
    )]
    pub color: ColorChoice,
}

/// Examples for `rgt --help` and the man page.
const EXAMPLES: &str = "\
Examples:
  rgt translate examples/nim.rg                 translate a game; canonical RG on standard output
  rgt translate game.kif -o game.rg             translate GDL into a file
  rgt translate lib/ --out-dir out --report r.json
                                                translate a whole library, one JSON report
  rgt perft examples/nim.rg -d 4                count the game tree to depth 4
  rgt moves game.hrg --after '/'                the legal moves of the initial state
  rgt fmt --write game.rg                       rewrite a file in canonical form, comments kept
  rgt opt game.rbg --trace=summary              what every optimisation pass did
  rgt completions zsh > ~/.zfunc/_rgt           shell completions";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    Translate(cmd::translate::Args),
    Fmt(cmd::fmt::Args),
    Stats(cmd::stats::Args),
    Perft(cmd::perft::Args),
    Moves(cmd::moves::Args),
    Run(cmd::run::Args),
    Check(cmd::check::Args),
    Equiv(cmd::equiv::Args),
    Verify(cmd::verify::Args),
    Compile(cmd::compile::Args),
    Bench(cmd::bench::Args),
    Opt(cmd::opt::Args),
    View(cmd::view::Args),
    Passes(cmd::passes::Args),
    Completions(cmd::completions::Args),
    Lsp(cmd::lsp::Args),
    #[command(name = "batch-worker", hide = true)]
    BatchWorker(cmd::batch::worker::Args),
}

/// The stack of the thread that runs a command (see [`rg_pipeline::STACK_SIZE`]).
pub const STACK_SIZE: usize = rg_pipeline::STACK_SIZE;

/// Parses the command line, runs the command and returns the exit status.
pub fn run() -> ExitCode {
    report::install_panic_hook();
    io::install_interrupt_handler();
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .name("rgt".into())
        .stack_size(STACK_SIZE)
        .spawn(move || run_command(cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        // The panic hook has reported the panic.
        Ok(Err(_)) => ExitCode::from(report::EXIT_INTERNAL),
        Err(e) => {
            eprintln!("error: cannot start a thread: {e}");
            ExitCode::from(report::EXIT_INTERNAL)
        }
    }
}

fn run_command(cli: Cli) -> ExitCode {
    let mut session = Session::new(cli.color);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match cli.command {
        Command::Translate(args) => cmd::translate::run(&mut session, args),
        Command::Fmt(args) => cmd::fmt::run(&mut session, args),
        Command::Stats(args) => cmd::stats::run(&mut session, args),
        Command::Perft(args) => cmd::perft::run(&mut session, args),
        Command::Moves(args) => cmd::moves::run(&mut session, args),
        Command::Run(args) => cmd::run::run(&mut session, args),
        Command::Check(args) => cmd::check::run(&mut session, args),
        Command::Equiv(args) => cmd::equiv::run(&mut session, args),
        Command::Verify(args) => cmd::verify::run(&mut session, args),
        Command::Compile(args) => cmd::compile::run(&mut session, args),
        Command::Bench(args) => cmd::bench::run(&mut session, args),
        Command::Opt(args) => cmd::opt::run(&mut session, args),
        Command::View(args) => cmd::view::run(&mut session, args),
        Command::Passes(args) => cmd::passes::run(args),
        Command::Completions(args) => cmd::completions::run(args),
        Command::Lsp(args) => cmd::lsp::run(args),
        Command::BatchWorker(args) => cmd::batch::worker::main(&mut session, args),
    }));
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(failure)) => session.fail(failure),
        Err(_) => ExitCode::from(report::EXIT_INTERNAL),
    }
}
