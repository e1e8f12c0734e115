//! `rgt lsp`: the language server, over standard input and output.

use crate::report::Failure;
use std::process::ExitCode;

/// Run the language server (Language Server Protocol over standard input and output).
///
/// For editors: diagnostics as you type (the same as `rgt translate` reports), go to definition,
/// find references, hover, outline, completion, formatting (`rgt fmt`) and quick fixes for RG,
/// HRG, RBG, KIF and LineGames files. The editor starts it; see README for VS Code and Neovim.
/// Initialisation options: `{ "allow": [CODE, …], "denyWarnings": bool, "sizeLimit": N }`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Accepted for editors that pass it; standard input and output are the only transport.
    #[arg(long)]
    pub stdio: bool,
}

/// Runs `rgt lsp` until the editor shuts it down.
pub fn run(_args: Args) -> Result<ExitCode, Failure> {
    rg_lsp::run_stdio().map_err(|e| Failure::Io(format!("language server: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
