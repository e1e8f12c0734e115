//! `@unique` as inferred by rgt and as the reference's algorithm (passes.md §2.8, §3.29) would
//! infer it on the same `-O2` automaton, per corpus game. A measuring tool, not a check (the
//! reference's inference is not sound, so it is no target): ignored by default; run it with
//!
//! ```text
//! cargo test -p rgt-tests --release pragma_compare -- --ignored --nocapture
//! ```
//!
//! (`RGT_PRAGMA_GAMES=substring` keeps the games whose path contains it). Per game it prints the
//! nodes, rgt's and the reference's `@unique` nodes, those only the reference marks, and how
//! many of those the interpreter's search-by-search check (from the states within
//! `RGT_PRAGMA_DEPTH` moves, default 1) shows to be false: a node marked only by the reference
//! and not shown false may be a pragma rgt misses, or a false one the explored states do not
//! reach.

use rg_core::{Game, NodeId, PragmaKind};
use rg_interp::{Verified, VerifyOptions, verify_pragmas};
use rgt::lang::Lang;
use rgt_tests::{corpus, load, skip_without_corpus};
use std::collections::BTreeSet;

fn unique_nodes(g: &Game) -> BTreeSet<NodeId> {
    g.pragmas
        .iter()
        .filter_map(|p| match &p.kind {
            PragmaKind::Unique(ns) => Some(ns.iter().copied()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
#[ignore = "a measuring tool over the corpus; see the module documentation"]
fn unique_nodes_compared_with_the_reference_algorithm() {
    let Some(root) = corpus() else {
        skip_without_corpus("pragma_compare");
        return;
    };
    let only = std::env::var("RGT_PRAGMA_GAMES").unwrap_or_default();
    let depth = std::env::var("RGT_PRAGMA_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(1);
    let mut files = Vec::new();
    for dir in ["hrg", "rbg/hl", "rbg/ll", "rg", "kif/rg-suite"] {
        let mut here: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("corpus directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| Lang::from_path(p).is_some())
            .filter(|p| p.to_string_lossy().contains(&only))
            .collect();
        here.sort();
        files.extend(here);
    }
    println!(
        "{:42} {:>6} {:>6} {:>6} {:>8} {:>8} {:>6}",
        "game", "nodes", "rgt", "ref", "ref-only", "rgt-only", "false"
    );
    let mut totals = [0usize; 6];
    for path in files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(&path).expect("corpus file");
        let lang = Lang::from_path(&path).expect("a known extension");
        let mut g = match load(lang, &name, &text) {
            Ok(g) => g,
            Err(e) => {
                println!(
                    "{name:42} does not load: {}",
                    e.lines().next().unwrap_or("")
                );
                continue;
            }
        };
        let pipeline = rgt::pipeline::OptLevel::O2.pipeline();
        let opts = rg_passes::Options {
            validate_each: false,
            ..Default::default()
        };
        if let Err(e) = rg_passes::run(&mut g, &pipeline, &opts, &mut |_, _| Ok(())) {
            println!("{name:42} does not optimise: {e}");
            continue;
        }
        let ours = unique_nodes(&g);
        // The reference's pass on the same automaton, without rgt's node pragmas.
        let mut bare = g.clone();
        bare.pragmas
            .retain(|p| !matches!(p.kind, PragmaKind::Unique(_) | PragmaKind::Repeat { .. }));
        let theirs: BTreeSet<NodeId> = rg_passes::reference::reference_pragmas(&bare)
            .unique
            .into_iter()
            .collect();
        let nodes = g
            .nodes()
            .ids()
            .filter(|&n| !g.outgoing(n).is_empty() || !g.incoming(n).is_empty())
            .count();
        let theirs_only: Vec<NodeId> = theirs.difference(&ours).copied().collect();
        let ours_only = ours.difference(&theirs).count();
        // Claim the reference's extra nodes too and let the interpreter look for duplicates.
        let mut claimed = g.clone();
        claimed.pragmas.push(rg_core::Pragma {
            kind: PragmaKind::Unique(theirs_only.clone()),
            derived: true,
            span: None,
        });
        let opts = VerifyOptions {
            depth,
            max_states: 200,
        };
        let mut shown_false: BTreeSet<NodeId> = BTreeSet::new();
        let false_claims = if theirs_only.is_empty() {
            "0".to_string()
        } else {
            match verify_pragmas(&claimed, &opts) {
                Verified::Holds { .. } => "0".to_string(),
                Verified::Violated(v) => {
                    for &n in &theirs_only {
                        let head = format!("@unique {} ", g.node_name(n));
                        if v.iter().any(|v| v.message.starts_with(&head)) {
                            shown_false.insert(n);
                        }
                    }
                    shown_false.len().to_string()
                }
                Verified::Inconclusive(why) => format!("? ({why})"),
            }
        };
        println!(
            "{name:42} {nodes:>6} {:>6} {:>6} {:>8} {ours_only:>8} {false_claims:>6}",
            ours.len(),
            theirs.len(),
            theirs_only.len()
        );
        if !theirs_only.is_empty() {
            let listed: Vec<String> = theirs_only
                .iter()
                .take(12)
                .map(|&n| {
                    let mark = if shown_false.contains(&n) {
                        " (false)"
                    } else {
                        ""
                    };
                    format!("{}{mark}", g.node_name(n))
                })
                .collect();
            let more = theirs_only.len().saturating_sub(12);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            println!("    only the reference: {}{more}", listed.join(", "));
        }
        for (t, x) in totals.iter_mut().zip([
            nodes,
            ours.len(),
            theirs.len(),
            theirs_only.len(),
            ours_only,
            false_claims.parse().unwrap_or(0),
        ]) {
            *t += x;
        }
    }
    println!(
        "{:42} {:>6} {:>6} {:>6} {:>8} {:>8} {:>6}",
        "total", totals[0], totals[1], totals[2], totals[3], totals[4], totals[5]
    );
}
