//! Protocol tests of `rgt lsp`: the built binary is driven over standard input and output as an
//! editor drives it (initialize, open, change, diagnostics, definition, references, hover,
//! outline, completion, formatting, code actions, `rgt/gameInfo`, shutdown, exit), and the
//! answers are snapshotted (tests/snapshots/lsp). The diagnostics are also checked against
//! what `rgt translate` prints for the same text.

mod common;
use common::{rgt, settings, stderr};

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `rgt lsp` and the messages it sent.
struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for another one.
    backlog: Vec<Value>,
}

/// How long a test waits for one message before it fails (a guard against a hung server, not a
/// time measurement).
const PATIENCE: Duration = Duration::from_secs(120);

impl Client {
    fn start() -> Client {
        let mut child = rgt()
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rgt lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        length = v.trim().parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                r.read_exact(&mut body).expect("a message body");
                let msg: Value = serde_json::from_slice(&body).expect("a JSON message");
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        let mut c = Client {
            child,
            stdin,
            messages,
            next_id: 1,
            backlog: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "rgt", "{init}");
        c.notify("initialized", json!({}));
        c
    }

    fn send(&mut self, mut msg: Value) {
        msg["jsonrpc"] = json!("2.0");
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("send");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "method": method, "params": params }));
    }

    /// The first message (from the backlog, then from the server) that `want` accepts.
    fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&want) {
            return self.backlog.remove(i);
        }
        loop {
            let msg = self
                .messages
                .recv_timeout(PATIENCE)
                .expect("the server answers");
            if want(&msg) {
                return msg;
            }
            self.backlog.push(msg);
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "id": id, "method": method, "params": params }));
        self.wait(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The result of a request about a position.
    fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let mut params = json!({
            "textDocument": { "uri": uri },
            "position": { "line": line, "character": character },
        });
        if method == "textDocument/references" {
            params["context"] = json!({ "includeDeclaration": true });
        }
        self.request(method, params)["result"].take()
    }

    fn open(&mut self, uri: &str, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "", "version": 1, "text": text } }),
        );
        self.diagnostics(uri, 1)
    }

    /// The diagnostics of the complete check of `version`.
    fn diagnostics(&mut self, uri: &str, version: i64) -> Value {
        let same = |m: &Value| m["params"]["uri"] == uri && m["params"]["version"] == version;
        self.wait(|m| m["method"] == "rgt/checked" && same(m) && m["params"]["complete"] == true);
        // The publication just before it (earlier ones of the same version were fast checks).
        let mut last = None;
        while let Some(i) = self
            .backlog
            .iter()
            .position(|m| m["method"] == "textDocument/publishDiagnostics" && same(m))
        {
            last = Some(self.backlog.remove(i));
        }
        last.expect("diagnostics before rgt/checked")["params"]["diagnostics"].take()
    }

    fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("rgt lsp exits");
        assert!(status.success(), "rgt lsp exited with {status}");
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON")
}

/// What `rgt translate` prints on standard error for `text` saved with extension `ext`.
fn cli_stderr(text: &str, ext: &str) -> String {
    // One directory per call: the tests of this file run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("rgt-lsp-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("game.{ext}"));
    std::fs::write(&path, text).expect("write");
    let out = rgt()
        .args(["translate", "-O0", "-o"])
        .arg(dir.join("out.rg"))
        .arg(&path)
        .output()
        .expect("rgt runs");
    let _ = std::fs::remove_dir_all(&dir);
    stderr(&out)
}

/// Every diagnostic of the server is one the CLI prints (its code and message).
fn assert_same_as_cli(diags: &Value, text: &str, ext: &str) {
    let cli = cli_stderr(text, ext);
    let diags = diags.as_array().expect("a list");
    assert!(!diags.is_empty());
    for d in diags {
        let code = d["code"].as_str().expect("a code");
        let message = d["message"].as_str().expect("a message");
        let first = message.lines().next().unwrap_or("");
        assert!(
            cli.contains(code),
            "`{code}` not in the CLI's output:\n{cli}"
        );
        assert!(
            cli.contains(first),
            "`{first}` not in the CLI's output:\n{cli}"
        );
    }
    let count = cli.lines().last().unwrap_or("");
    let n: usize = count
        .split(" in ")
        .next()
        .unwrap_or("")
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse::<usize>().ok())
        .sum();
    assert_eq!(n, diags.len(), "the CLI counts `{count}`");
}

const HRG: &str = "\
domain Player = white | black
domain Score = 0 | 100
domain Pos = P(N) where N in 0..2

next : Pos -> Pos
next(P(N)) = if N < 2 then P(N + 1) else P(0)

at : Player -> Pos = { :P(0) }

graph step(who: Player) {
  player = who
  branch {
    $ go
    at[who] = next(at[who])
  } or {
    $ stay
  }
}

graph rules() {
  stap(white)
  step(black)
  end()
}
";

#[test]
fn hrg_session_diagnostics_navigation_and_fixes() {
    let uri = "file:///games/walk.hrg";
    let mut c = Client::start();
    let diags = c.open(uri, HRG);
    settings("lsp").bind(|| insta::assert_snapshot!("hrg_diagnostics", pretty(&diags)));
    assert_same_as_cli(&diags, HRG, "hrg");

    // The quick fix of "did you mean `step`?".
    let actions = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": { "uri": uri },
            "range": diags[0]["range"],
            "context": { "diagnostics": diags },
        }),
    );
    settings("lsp").bind(|| insta::assert_snapshot!("hrg_code_action", pretty(&actions["result"])));

    // Apply it as an editor does: an incremental change; the diagnostics go away.
    let edit = &actions["result"][0]["edit"]["changes"][uri][0];
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": uri, "version": 2 },
            "contentChanges": [{ "range": edit["range"], "text": edit["newText"] }],
        }),
    );
    assert_eq!(c.diagnostics(uri, 2), json!([]));

    // `step(black)` (line 21): definition, references, hover.
    let def = c.at("textDocument/definition", uri, 21, 3);
    let refs = c.at("textDocument/references", uri, 21, 3);
    let hover_graph = c.at("textDocument/hover", uri, 21, 3);
    // `who` in `at[who]` (line 13) is the parameter; `next` is the function.
    let hover_param = c.at("textDocument/hover", uri, 13, 7);
    let hover_fn = c.at("textDocument/hover", uri, 13, 14);
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    )["result"]
        .take();
    settings("lsp").bind(|| {
        insta::assert_snapshot!(
            "hrg_navigation",
            pretty(&json!({
                "definition": def,
                "references": refs,
                "hover step": hover_graph,
                "hover who": hover_param,
                "hover next": hover_fn,
                "symbols": symbols,
            }))
        )
    });

    // Completion inside `step` offers its parameter, the globals and the keywords.
    let items = c.at("textDocument/completion", uri, 13, 4);
    let labels: Vec<&str> = items
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    for want in [
        "who", "at", "next", "Player", "white", "step", "rules", "branch",
    ] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    // The pattern variable of `next(P(N))` is local to that case.
    assert!(!labels.contains(&"N"), "{labels:?}");
    c.shutdown();
}

#[test]
fn formatting_is_rgt_fmt() {
    let uri = "file:///games/messy.hrg";
    let messy =
        "domain   Player = p\ndomain Score = 0\ngraph rules() {   player = p\n $ x\n  end() }\n";
    let mut c = Client::start();
    c.open(uri, messy);
    let edits = c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": uri }, "options": { "tabSize": 2, "insertSpaces": true } }),
    )["result"]
        .take();
    let fmt = rgt()
        .args(["fmt", "--from", "hrg", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut ch| {
            ch.stdin
                .take()
                .expect("stdin")
                .write_all(messy.as_bytes())?;
            ch.wait_with_output()
        })
        .expect("rgt fmt runs");
    assert_eq!(
        edits[0]["newText"].as_str(),
        Some(String::from_utf8_lossy(&fmt.stdout).as_ref())
    );
    settings("lsp").bind(|| insta::assert_snapshot!("hrg_formatting", pretty(&edits)));
    c.shutdown();
}

const RG: &str = "\
type Player = { solo };
type Score = { 0, 100 };
type Count = { 0, 1, 2 };
const start: Count = 2;
var left: Count = start;
var goals: Player -> Score = { :0 };
begin, turn: player = solo;
turn, take: $ take;
take, check: left = Count(1);
check, win: left == 0;
check, turn: left != O;
win, done: goals[solo] = 100;
done, end: player = keeper;
";

#[test]
fn rg_and_kif_and_rbg_sessions() {
    let mut c = Client::start();
    let rg = "file:///games/count.rg";
    let rg_diags = c.open(rg, RG);
    assert_same_as_cli(&rg_diags, RG, "rg");
    let rg_def = c.at("textDocument/definition", rg, 4, 18); // `start` in `var left`
    let rg_hover = c.at("textDocument/hover", rg, 4, 5); // `left`
    let node_refs = c.at("textDocument/references", rg, 9, 1); // the node `check`

    let kif = "file:///games/bad.kif";
    let kif_text = "(role red)\n(init (cell a))\n(<= (legal red (go ?x)) (true (cell ?x)))\n\
                    (<= (next (cell ?x)) (does red (go ?x)))\n(<= terminal (true (cell b)))\n\
                    (<= (goal red 100) terminal)\n(<= (goal red 0) (not terminal) (pos ?y))\n";
    let kif_diags = c.open(kif, kif_text);
    assert_same_as_cli(&kif_diags, kif_text, "kif");
    let kif_def = c.at("textDocument/definition", kif, 5, 24); // `terminal` in a body

    let rbg = "file:///games/line.rbg";
    let rbg_text = "#players = red(1)\n#pieces = e, r\n#variables =\n\
                    #board = rectangle(left, right, [e, e])\n\
                    #move(p) = ->red {e} [p] [$ red=1] ->> {}\n#rules = move(r) left move(x)\n";
    let rbg_diags = c.open(rbg, rbg_text);
    let rbg_def = c.at("textDocument/definition", rbg, 5, 10); // `move` in the rules
    let rbg_hover = c.at("textDocument/hover", rbg, 4, 18); // `e` in the macro

    settings("lsp").bind(|| {
        insta::assert_snapshot!(
            "rg_kif_rbg",
            pretty(&json!({
                "rg diagnostics": rg_diags,
                "rg definition": rg_def,
                "rg hover": rg_hover,
                "rg node references": node_refs,
                "kif diagnostics": kif_diags,
                "kif definition": kif_def,
                "rbg diagnostics": rbg_diags,
                "rbg definition": rbg_def,
                "rbg hover": rbg_hover,
            }))
        )
    });
    c.shutdown();
}

#[test]
fn game_info_gives_stats_and_dot() {
    let uri = "file:///games/count.rg";
    let fixed = RG.replace("left != O", "left != 0");
    let mut c = Client::start();
    assert_eq!(c.open(uri, &fixed), json!([]));
    let info =
        c.request("rgt/gameInfo", json!({ "textDocument": { "uri": uri } }))["result"].take();
    assert!(
        info["dot"]
            .as_str()
            .is_some_and(|d| d.starts_with("digraph")),
        "{info}"
    );
    // The statistics are those of `rgt stats`.
    let dir = std::env::temp_dir().join(format!("rgt-lsp-info-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("count.rg");
    std::fs::write(&path, &fixed).expect("write");
    let stats = rgt()
        .args(["stats", "--json"])
        .arg(&path)
        .output()
        .expect("rgt stats");
    let _ = std::fs::remove_dir_all(&dir);
    let cli: Value = serde_json::from_slice(&stats.stdout).expect("JSON stats");
    assert_eq!(info["stats"], cli);
    let mut shown = info.clone();
    shown["dot"] = json!(info["dot"].as_str().map(|d| d.lines().count()));
    settings("lsp").bind(|| insta::assert_snapshot!("game_info", pretty(&shown)));
    c.shutdown();
}

#[test]
fn the_server_survives_any_text_and_bad_requests() {
    let mut c = Client::start();
    let texts = [
        "",
        "(",
        "graph g(",
        "#x = (",
        "type T = {",
        "a, b: ? ->",
        "\u{0}é",
    ];
    for (i, t) in texts.iter().enumerate() {
        for ext in ["rg", "hrg", "rbg", "kif", "lg"] {
            let uri = format!("file:///fuzz/{i}.{ext}");
            c.open(&uri, t);
            let _ = c.at("textDocument/hover", &uri, 0, 1);
            let _ = c.at("textDocument/definition", &uri, 5, 99);
        }
    }
    let bad = c.request("textDocument/hover", json!({ "nonsense": true }));
    assert!(bad["error"]["code"].is_i64(), "{bad}");
    let unknown = c.request("rgt/unknown", json!({}));
    assert_eq!(unknown["error"]["code"], json!(-32601), "{unknown}");
    c.shutdown();
}
