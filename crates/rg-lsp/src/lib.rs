//! `rg-lsp`: the language server of `rgt` (`rgt lsp`), for every language rgt reads — RG,
//! HRG, RBG, GDL in KIF and LineGames.
//!
//! - **Diagnostics** as the document is edited: the records of the `rg_pipeline` diagnostics
//!   model, the same the command line renders (codes, help, related locations), see [`check`].
//! - **Navigation**: go to definition, find references, hover (kind, type and value) and the
//!   outline, from a name index that tolerates text being typed, see [`index`]: RG types,
//!   constants, variables, symbols and nodes; HRG domains, symbols, functions, variables,
//!   graphs, parameters and pattern variables; RBG players, pieces, variables, directions and
//!   macros; GDL relations and fluent and action symbols.
//! - **Completion** of the declared names and the keywords; **formatting** with the code of
//!   `rgt fmt` (RG, HRG, LineGames); a **quick fix** for each "did you mean" diagnostic.
//! - **`rgt/gameInfo`**: statistics and DOT (and the `rgt view` page) of the document's game,
//!   see [`info`].
//!
//! The server speaks JSON-RPC over standard input and output ([`run_stdio`]) or over any
//! `lsp_server::Connection` ([`serve`], which the tests drive in memory). It writes only
//! protocol messages; a panic in a check or a request is caught and reported to the client,
//! and the server goes on.
//!
//! Initialisation options (all optional): `{ "allow": ["CODE", …], "denyWarnings": bool,
//! "sizeLimit": N }`, as `rgt`'s `--allow`, `--deny warnings` and `--size-limit`.

pub mod check;
pub mod features;
pub mod index;
pub mod info;
pub mod position;
pub mod server;

use lsp_server::Connection;
use lsp_types::{
    CompletionOptions, HoverProviderCapability, InitializeParams, OneOf, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
};
use rg_pipeline::{LintConfig, Options};
use serde::Deserialize;

pub use server::Error;

/// The options a client may pass at initialisation.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct InitOptions {
    /// Codes not to report (`--allow`).
    pub allow: Vec<String>,
    /// Warnings are errors (`--deny warnings`).
    pub deny_warnings: bool,
    /// `--size-limit`.
    pub size_limit: Option<u64>,
    /// `--lenient` (GDL: unsafe rules are warnings, read as GGP-Base reads them).
    pub lenient: bool,
}

/// Serves a client over standard input and output until it exits.
pub fn run_stdio() -> Result<(), Error> {
    let (connection, io_threads) = Connection::stdio();
    serve(connection)?;
    io_threads.join()?;
    Ok(())
}

/// Serves a client over `connection`: the initialisation handshake, then requests until the
/// client shuts the server down or closes the connection.
pub fn serve(connection: Connection) -> Result<(), Error> {
    let (id, params) = connection.initialize_start()?;
    let init: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let (options, problem) = options(init.initialization_options);
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "rgt".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    connection.initialize_finish(id, result)?;
    if let Some(message) = problem {
        let params = lsp_types::ShowMessageParams {
            typ: lsp_types::MessageType::ERROR,
            message,
        };
        connection.sender.send(lsp_server::Message::Notification(
            lsp_server::Notification::new("window/showMessage".into(), params),
        ))?;
    }
    server::Server::new(connection, options)?.run()
}

/// The pipeline options of the initialisation options, and what was wrong with them.
fn options(init: Option<serde_json::Value>) -> (Options, Option<String>) {
    let parsed: Result<InitOptions, String> = match init {
        None | Some(serde_json::Value::Null) => Ok(InitOptions::default()),
        Some(v) => serde_json::from_value(v).map_err(|e| e.to_string()),
    };
    let init = match parsed {
        Ok(i) => i,
        Err(e) => {
            return (
                Options::default(),
                Some(format!("rgt lsp: ignoring the initialisation options: {e}")),
            );
        }
    };
    match LintConfig::new(init.deny_warnings, init.allow) {
        Ok(lints) => (
            Options {
                size_limit: init.size_limit,
                lenient: init.lenient,
                lints,
                ..Options::default()
            },
            None,
        ),
        Err(e) => (
            Options {
                size_limit: init.size_limit,
                lenient: init.lenient,
                ..Options::default()
            },
            Some(format!("rgt lsp: {e}")),
        ),
    }
}

/// What the server can do.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions::default()),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(lsp_types::CodeActionProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}
