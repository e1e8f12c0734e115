//! `rgt completions`: shell completion scripts generated from the command-line definition.

use crate::report::Failure;
use clap::CommandFactory;
use std::process::ExitCode;

/// Print a shell completion script.
///
/// Install for bash: `rgt completions bash > ~/.local/share/bash-completion/completions/rgt`;
/// zsh: `rgt completions zsh > ~/.zfunc/_rgt` (with `fpath+=~/.zfunc` before `compinit`);
/// fish: `rgt completions fish > ~/.config/fish/completions/rgt.fish`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Runs `rgt completions`.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut crate::Cli::command(), "rgt", &mut script);
    crate::io::write_output(None, &script, None)?;
    Ok(ExitCode::SUCCESS)
}
