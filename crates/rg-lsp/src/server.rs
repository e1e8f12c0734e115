//! The server loop: documents, debouncing, the check workers and request dispatch.
//!
//! One thread owns the documents and talks to the client. A change updates the document and
//! its name index at once (requests always see the latest text) and schedules a check
//! [`DEBOUNCE`] later; further changes within that time push the check back. Checks run on two
//! worker threads so that a slow one never delays a quick one: the *quick* worker runs the full
//! check of RG, HRG and LineGames documents and the fast check of GDL and RBG ones, the *slow*
//! worker the full check of GDL (grounding) and RBG (lowering the board) documents. A worker takes only the latest version
//! of each document from its queue. Results of an outdated version are dropped; a fast result
//! is not shown once the full one of the same version is. Each publication is followed by a
//! [`CHECKED`] notification.

use crate::check;
use crate::features::Doc;
use crate::info;
use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{PublishDiagnosticsParams, Url, notification as note, request as req};
use rg_pipeline::{Diagnostic, Lang, Options};
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long after a change a document is checked (changes within it restart the wait).
pub const DEBOUNCE: Duration = Duration::from_millis(25);

/// The notification sent after each publication of diagnostics: `{ "uri", "version",
/// "complete" }`, where `complete` is false for the fast check of a GDL document (the full
/// one follows). Editors ignore it; tests and `scripts/lsp-latency` wait for it.
pub const CHECKED: &str = "rgt/checked";

/// A check to run.
#[derive(Debug)]
struct Job {
    uri: Url,
    version: i32,
    lang: Lang,
    text: Arc<String>,
    /// The fast check (GDL) rather than the full one.
    fast: bool,
}

/// A check's findings.
#[derive(Debug)]
struct Checked {
    uri: Url,
    version: i32,
    fast: bool,
    diagnostics: Vec<Diagnostic>,
}

/// Why the server stopped abnormally.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The server's state.
pub struct Server {
    conn: Connection,
    docs: HashMap<Url, Doc>,
    /// Documents waiting for their check, and when it is due.
    due: BTreeMap<Url, Instant>,
    /// The versions whose full check has been published.
    full_shown: HashMap<Url, i32>,
    quick: Sender<Job>,
    slow: Sender<Job>,
    results: Receiver<Checked>,
    options: Arc<Options>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("docs", &self.docs.len())
            .finish()
    }
}

impl Server {
    /// A server on an initialised connection, checking with `options`.
    pub fn new(conn: Connection, options: Options) -> Result<Server, Error> {
        let options = Arc::new(options);
        let (results_tx, results) = crossbeam_channel::unbounded();
        let quick = spawn_worker("rgt-lsp-quick", options.clone(), results_tx.clone())?;
        let slow = spawn_worker("rgt-lsp-slow", options.clone(), results_tx)?;
        Ok(Server {
            conn,
            docs: HashMap::new(),
            due: BTreeMap::new(),
            full_shown: HashMap::new(),
            quick,
            slow,
            results,
            options,
        })
    }

    /// Serves until the client asks to shut down or goes away.
    pub fn run(mut self) -> Result<(), Error> {
        loop {
            let wait = self
                .due
                .values()
                .min()
                .map_or(Duration::from_secs(3600), |d| {
                    d.saturating_duration_since(Instant::now())
                });
            select! {
                recv(self.conn.receiver) -> msg => match msg {
                    Ok(msg) => {
                        if self.message(msg)? {
                            return Ok(());
                        }
                    }
                    Err(_) => return Ok(()),
                },
                recv(self.results) -> r => {
                    if let Ok(r) = r {
                        self.publish(r)?;
                    }
                }
                default(wait) => {}
            }
            self.start_due_checks();
        }
    }

    /// Handles a client message; `true` when the server must stop.
    fn message(&mut self, msg: Message) -> Result<bool, Error> {
        match msg {
            Message::Request(r) => {
                if self.conn.handle_shutdown(&r)? {
                    return Ok(true);
                }
                let id = r.id.clone();
                let response = check::guarded_value(|| self.request(r)).unwrap_or_else(|| {
                    let msg = "internal error: rgt failed to answer (a bug in rgt)";
                    Some(Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        msg.into(),
                    ))
                });
                // `None`: the answer is sent by the thread computing it.
                if let Some(response) = response {
                    self.conn.sender.send(Message::Response(response))?;
                }
            }
            Message::Notification(n) => {
                if n.method == note::Exit::METHOD {
                    return Ok(true);
                }
                let _ = check::guarded_value(|| self.notification(n));
            }
            Message::Response(_) => {}
        }
        Ok(false)
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidOpenTextDocumentParams>(n.params) else {
                    return;
                };
                let d = p.text_document;
                let Some(lang) = language(&d.uri, &d.language_id) else {
                    return;
                };
                self.docs.insert(
                    d.uri.clone(),
                    Doc::new(d.uri.clone(), lang, d.version, d.text),
                );
                self.due.insert(d.uri, Instant::now());
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidChangeTextDocumentParams>(n.params) else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return;
                };
                let mut text = std::mem::take(&mut doc.text);
                for change in p.content_changes {
                    apply_change(&mut text, change);
                }
                *doc = Doc::new(uri.clone(), doc.lang, p.text_document.version, text);
                self.due.insert(uri, Instant::now() + DEBOUNCE);
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) = params::<lsp_types::DidCloseTextDocumentParams>(n.params) else {
                    return;
                };
                let uri = p.text_document.uri;
                self.docs.remove(&uri);
                self.due.remove(&uri);
                self.full_shown.remove(&uri);
                let _ = self.send_diagnostics(uri, Vec::new(), None);
            }
            _ => {}
        }
    }

    fn request(&mut self, r: Request) -> Option<Response> {
        let id = r.id.clone();
        let result = match r.method.as_str() {
            req::HoverRequest::METHOD => self.at::<lsp_types::HoverParams, _>(r, |d, p| {
                let pos = p.text_document_position_params.position;
                d.hover(pos)
            }),
            req::GotoDefinition::METHOD => {
                self.at::<lsp_types::GotoDefinitionParams, _>(r, |d, p| {
                    let pos = p.text_document_position_params.position;
                    Some(lsp_types::GotoDefinitionResponse::Array(d.definition(pos)))
                })
            }
            req::References::METHOD => self.at::<lsp_types::ReferenceParams, _>(r, |d, p| {
                let pos = p.text_document_position.position;
                Some(d.references(pos, p.context.include_declaration))
            }),
            req::DocumentSymbolRequest::METHOD => self
                .at::<lsp_types::DocumentSymbolParams, _>(r, |d, _| {
                    Some(lsp_types::DocumentSymbolResponse::Nested(d.symbols()))
                }),
            req::Completion::METHOD => self.at::<lsp_types::CompletionParams, _>(r, |d, p| {
                let pos = p.text_document_position.position;
                Some(lsp_types::CompletionResponse::Array(d.completion(pos)))
            }),
            req::Formatting::METHOD => {
                self.at::<lsp_types::DocumentFormattingParams, _>(r, |d, _| d.formatting())
            }
            req::CodeActionRequest::METHOD => self
                .at::<lsp_types::CodeActionParams, _>(r, |d, p| {
                    Some(d.code_actions(&p.context.diagnostics))
                }),
            info::GameInfo::METHOD => {
                let p = match params::<info::GameInfoParams>(r.params) {
                    Ok(p) => p,
                    Err(e) => {
                        return Some(Response::new_err(id, ErrorCode::InvalidParams as i32, e));
                    }
                };
                let Some(doc) = self.docs.get(&p.text_document.uri) else {
                    return Some(unknown_document(id));
                };
                let sender = self.conn.sender.clone();
                match info::spawn(id.clone(), doc, p.html, &self.options, sender) {
                    Ok(()) => return None,
                    Err(e) => Err((ErrorCode::InternalError, e.to_string())),
                }
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("unknown method {}", r.method),
            )),
        };
        Some(match result {
            Ok(v) => Response::new_ok(id, v),
            Err((code, msg)) => Response::new_err(id, code as i32, msg),
        })
    }

    /// Answers a request about a document with `f` (`null` for a document that is not open).
    fn at<P, R>(
        &self,
        r: Request,
        f: impl FnOnce(&Doc, P) -> Option<R>,
    ) -> Result<serde_json::Value, (ErrorCode, String)>
    where
        P: DeserializeOwned + HasDocument,
        R: serde::Serialize,
    {
        let p: P = params(r.params).map_err(|e| (ErrorCode::InvalidParams, e))?;
        let Some(doc) = self.docs.get(p.uri()) else {
            return Ok(serde_json::Value::Null);
        };
        Ok(serde_json::to_value(f(doc, p)).unwrap_or(serde_json::Value::Null))
    }

    /// Sends the checks that are due to their workers.
    fn start_due_checks(&mut self) {
        let now = Instant::now();
        let ready: Vec<Url> = self
            .due
            .iter()
            .filter(|&(_, &t)| t <= now)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in ready {
            self.due.remove(&uri);
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            let text = Arc::new(doc.text.clone());
            let job = |fast| Job {
                uri: uri.clone(),
                version: doc.version,
                lang: doc.lang,
                text: text.clone(),
                fast,
            };
            if check::has_fast(doc.lang) {
                let _ = self.quick.send(job(true));
                let _ = self.slow.send(job(false));
            } else {
                let _ = self.quick.send(job(false));
            }
        }
    }

    /// Publishes a check's findings if they are about the current version.
    fn publish(&mut self, r: Checked) -> Result<(), Error> {
        let Some(doc) = self.docs.get(&r.uri) else {
            return Ok(());
        };
        if doc.version != r.version || (r.fast && self.full_shown.get(&r.uri) == Some(&r.version)) {
            return Ok(());
        }
        if !r.fast {
            self.full_shown.insert(r.uri.clone(), r.version);
        }
        let diags = r
            .diagnostics
            .iter()
            .map(|d| check::to_lsp(d, &doc.uri, &doc.text, &doc.lines))
            .collect();
        self.send_diagnostics(r.uri.clone(), diags, Some(r.version))?;
        let done = Checked {
            diagnostics: Vec::new(),
            ..r
        };
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                CHECKED.to_owned(),
                serde_json::json!({
                    "uri": done.uri,
                    "version": done.version,
                    "complete": !done.fast,
                }),
            )))?;
        Ok(())
    }

    fn send_diagnostics(
        &self,
        uri: Url,
        diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) -> Result<(), Error> {
        let p = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                note::PublishDiagnostics::METHOD.to_owned(),
                p,
            )))?;
        Ok(())
    }
}

/// Request parameters that name a document.
pub trait HasDocument {
    fn uri(&self) -> &Url;
}

macro_rules! has_document {
    ($($t:ty => |$p:ident| $e:expr;)*) => {
        $(impl HasDocument for $t {
            fn uri(&self) -> &Url {
                let $p = self;
                $e
            }
        })*
    };
}

has_document! {
    lsp_types::HoverParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::GotoDefinitionParams => |p| &p.text_document_position_params.text_document.uri;
    lsp_types::ReferenceParams => |p| &p.text_document_position.text_document.uri;
    lsp_types::DocumentSymbolParams => |p| &p.text_document.uri;
    lsp_types::CompletionParams => |p| &p.text_document_position.text_document.uri;
    lsp_types::DocumentFormattingParams => |p| &p.text_document.uri;
    lsp_types::CodeActionParams => |p| &p.text_document.uri;
}

fn params<P: DeserializeOwned>(v: serde_json::Value) -> Result<P, String> {
    serde_json::from_value(v).map_err(|e| format!("invalid parameters: {e}"))
}

fn unknown_document(id: RequestId) -> Response {
    Response::new_err(
        id,
        ErrorCode::InvalidParams as i32,
        "the document is not open".into(),
    )
}

/// The language of a document: by the extension of its path, else by the client's language id.
pub fn language(uri: &Url, language_id: &str) -> Option<Lang> {
    Lang::from_path(std::path::Path::new(uri.path())).or_else(|| {
        Lang::ALL
            .into_iter()
            .find(|l| l.name() == language_id || l.extensions().contains(&language_id))
    })
}

/// Applies one change (a range, or the whole text) to `text`.
fn apply_change(text: &mut String, change: lsp_types::TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = crate::position::LineIndex::new(text);
            let start = lines.offset(text, range.start);
            let end = lines.offset(text, range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

/// Starts a worker thread; returns its job queue.
fn spawn_worker(
    name: &str,
    options: Arc<Options>,
    results: Sender<Checked>,
) -> Result<Sender<Job>, Error> {
    let (tx, rx) = crossbeam_channel::unbounded::<Job>();
    std::thread::Builder::new()
        .name(name.to_owned())
        .stack_size(rg_pipeline::STACK_SIZE)
        .spawn(move || worker(&rx, &options, &results))?;
    Ok(tx)
}

/// Runs jobs until the queue closes, only the latest queued one of each document and kind.
fn worker(jobs: &Receiver<Job>, options: &Options, results: &Sender<Checked>) {
    while let Ok(first) = jobs.recv() {
        let mut latest: BTreeMap<(Url, bool), Job> = BTreeMap::new();
        latest.insert((first.uri.clone(), first.fast), first);
        while let Ok(j) = jobs.try_recv() {
            latest.insert((j.uri.clone(), j.fast), j);
        }
        for (_, job) in latest {
            let name = job.uri.path().to_owned();
            let diagnostics = if job.fast {
                check::fast(job.lang, &job.text, options).unwrap_or_default()
            } else {
                check::full(job.lang, &name, &job.text, options)
            };
            let done = Checked {
                uri: job.uri,
                version: job.version,
                fast: job.fast,
                diagnostics,
            };
            if results.send(done).is_err() {
                return;
            }
        }
    }
}
