//! The `rgt/gameInfo` request: what `rgt stats` and `rgt translate --emit dot` (and, asked
//! for, `rgt view`) give for the open document, computed from its current text on a thread of
//! its own (a translation may take seconds) that sends the response itself.
//!
//! Parameters: `{ "textDocument": { "uri": … }, "html": false }`. Result: `{ "language",
//! "stats": { "nodes", "edges", … } | null, "dot": … | null, "html": … | null, "diagnostics":
//! … }`, where `diagnostics` is the text `rgt` prints for the errors and warnings met (empty
//! when there are none) and `stats`, `dot` and `html` are those of the game translated and
//! optimised at the default level (`null` when it has errors).

use crate::features::Doc;
use lsp_server::{Message, RequestId, Response};
use lsp_types::TextDocumentIdentifier;
use rg_pipeline::{Emit, Lang, Options, Pipeline};
use serde::{Deserialize, Serialize};

/// The request type.
#[derive(Debug)]
pub enum GameInfo {}

impl lsp_types::request::Request for GameInfo {
    type Params = GameInfoParams;
    type Result = GameInfoResult;
    const METHOD: &'static str = "rgt/gameInfo";
}

/// Its parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfoParams {
    pub text_document: TextDocumentIdentifier,
    /// Also return the page of `rgt view`.
    #[serde(default)]
    pub html: bool,
}

/// Its result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameInfoResult {
    pub language: String,
    /// The object `rgt stats --json` prints.
    pub stats: Option<serde_json::Value>,
    pub dot: Option<String>,
    pub html: Option<String>,
    pub diagnostics: String,
}

/// Computes the information about `doc` on a new thread, which answers request `id`.
pub fn spawn(
    id: RequestId,
    doc: &Doc,
    html: bool,
    options: &Options,
    sender: crossbeam_channel::Sender<Message>,
) -> std::io::Result<()> {
    let lang = doc.lang;
    let name = doc
        .uri
        .path()
        .rsplit('/')
        .next()
        .unwrap_or("game")
        .to_owned();
    let text = doc.text.clone();
    let options = options.clone();
    std::thread::Builder::new()
        .name("rgt-lsp-info".into())
        .stack_size(rg_pipeline::STACK_SIZE)
        .spawn(move || {
            let response =
                match crate::check::guarded_value(|| compute(lang, &name, text, html, options)) {
                    Some(r) => Response::new_ok(id, r),
                    None => Response::new_err(
                        id,
                        lsp_server::ErrorCode::InternalError as i32,
                        "internal error: rgt failed on this file (a bug in rgt)".into(),
                    ),
                };
            let _ = sender.send(Message::Response(response));
        })?;
    Ok(())
}

/// The information about a game text.
pub fn compute(
    lang: Lang,
    name: &str,
    text: String,
    html: bool,
    options: Options,
) -> GameInfoResult {
    let mut pipeline = Pipeline::new(options);
    let mut result = GameInfoResult {
        language: lang.name().to_owned(),
        stats: None,
        dot: None,
        html: None,
        diagnostics: String::new(),
    };
    match pipeline.load_text(lang, name, text) {
        Ok(loaded) => {
            result.stats = Some(rg_pipeline::stats_json(&loaded.game));
            result.dot = Some(rg_pipeline::emit(&loaded.game, Emit::Dot));
            if html {
                let opts = rg_fmt::view::ViewOptions {
                    title: format!("{name} -O2"),
                    graph_clusters: matches!(lang, Lang::Hrg | Lang::Lg),
                };
                result.html = Some(rg_fmt::view::to_html(&loaded.game, opts));
            }
            result.diagnostics = pipeline.render(&loaded.diagnostics);
        }
        Err(e) => result.diagnostics = pipeline.render_error(&e),
    }
    result
}
