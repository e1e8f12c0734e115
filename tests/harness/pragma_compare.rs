//! `@unique` as inferred by rgt and as the reference toolchain's algorithm (a data flow of the
//! assignments reaching each node, reimplemented in `rg_passes::reference`) would
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
//! `RGT_PRAGMA_DEPTH` moves, default 1, at most `RGT_PRAGMA_STATES` states, default 200) shows to
//! be false: a node marked only by the reference and not shown false may be a pragma rgt
//! misses, or a false one the explored states do not reach.

use rg_core::{Game, NodeId, PragmaKind};
use rg_interp::{Verified, VerifyOptions, verify_pragmas};
use rg_pipeline::Lang;
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
    let max_states = std::env::var("RGT_PRAGMA_STATES")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(200);
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
        let pipeline = rg_pipeline::OptLevel::O2.pipeline();
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
        let opts = VerifyOptions { depth, max_states };
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

/// Per node: `Some(None)` unique, `Some(Some(vars))` a `@repeat` listing `vars` (the last one
/// naming the node, as the interpreter reads them), `None` neither.
type NodePragma = Option<Option<BTreeSet<rg_core::Symbol>>>;

fn node_pragmas(g: &Game) -> std::collections::BTreeMap<NodeId, NodePragma> {
    let mut out = std::collections::BTreeMap::new();
    for p in &g.pragmas {
        if let PragmaKind::Repeat { nodes, variables } = &p.kind {
            for &n in nodes {
                out.insert(n, Some(Some(variables.iter().copied().collect())));
            }
        }
    }
    for n in unique_nodes(g) {
        out.insert(n, Some(None));
    }
    out
}

/// Whether `theirs` promises more than `ours`: unique against a repeat or nothing, or a repeat
/// that leaves out a variable ours compares (no pragma compares every ordinary variable,
/// `ordinary`).
fn stronger(theirs: &NodePragma, ours: &NodePragma, ordinary: &BTreeSet<rg_core::Symbol>) -> bool {
    let compared = |p: &NodePragma| match p {
        Some(None) => None,
        Some(Some(vs)) => Some(vs.clone()),
        None => Some(ordinary.clone()),
    };
    match (compared(theirs), compared(ours)) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(t), Some(o)) => !o.is_subset(&t),
    }
}

/// Every pragma kind the reference infers, counted for rgt's `-O2` automaton and for the
/// reference toolchain's own inference algorithms run on the same automaton (as
/// `rg_passes::reference` reimplements them, defects included: its `@unique`/`@repeat` forgets
/// everything at every tag and `player` assignment, so it is not sound): one Markdown
/// table row per corpus game. `weaker` counts the nodes where the reference's pragma promises
/// more than rgt's (for `@disjoint`: the nodes only the reference gives one). `@simpleApply` is
/// rgt's only: the reference decides it inside its C++ code generator, an implementation
/// detail not reimplemented here. Run with
///
/// ```text
/// cargo test -p rgt-tests --release pragma_kinds -- --ignored --nocapture
/// ```
#[test]
#[ignore = "a measuring tool over the corpus; see the function documentation"]
fn pragma_kinds_compared_with_the_reference_algorithms() {
    let Some(root) = corpus() else {
        skip_without_corpus("pragma_compare");
        return;
    };
    let only = std::env::var("RGT_PRAGMA_GAMES").unwrap_or_default();
    println!(
        "| game | nodes | @unique rgt/ref | @repeat rgt/ref | weaker | @disjoint rgt/ref (ref only) | @tagIndex rgt/ref | @tagMaxIndex rgt/ref | weaker | @simpleApply rgt |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut totals = [0usize; 15];
    for dir in ["hrg", "rbg/hl", "rbg/ll", "rg", "kif/rg-suite"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("corpus directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| Lang::from_path(p).is_some())
            .filter(|p| p.to_string_lossy().contains(&only))
            .collect();
        files.sort();
        for path in files {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            match pragma_kinds_row(&name, &path) {
                Ok(row) => {
                    print_kinds_row(&name, &row);
                    for (t, x) in totals.iter_mut().zip(row) {
                        *t += x;
                    }
                }
                Err(line) => println!("{line}"),
            }
        }
    }
    print_kinds_row("total", &totals);
}

/// Prints one row of the pragma-kinds table.
fn print_kinds_row(name: &str, row: &[usize; 15]) {
    println!(
        "| {name} | {} | {}/{} | {}/{} | {} | {}/{} ({}) | {}/{} | {}/{} | {} | {} |",
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        row[11],
        row[12],
        row[13],
        row[14]
    );
}

/// The counts of one corpus game's row of the pragma-kinds table (nodes, then the
/// `@unique`/`@repeat`, `@disjoint`, tag-index and `@simpleApply` columns), or the row
/// that says why there are none.
fn pragma_kinds_row(name: &str, path: &std::path::Path) -> Result<[usize; 15], String> {
    let text = std::fs::read_to_string(path).expect("corpus file");
    let lang = Lang::from_path(path).expect("a known extension");
    let Ok(mut g) = load(lang, name, &text) else {
        return Err(format!("| {name} | does not load |||||||||"));
    };
    let pipeline = rg_pipeline::OptLevel::O2.pipeline();
    let opts = rg_passes::Options {
        validate_each: false,
        ..Default::default()
    };
    if rg_passes::run(&mut g, &pipeline, &opts, &mut |_, _| Ok(())).is_err() {
        return Err(format!("| {name} | does not optimise |||||||||"));
    }
    let nodes = g
        .nodes()
        .ids()
        .filter(|&n| !g.outgoing(n).is_empty() || !g.incoming(n).is_empty())
        .count();
    let Some([u1, u2, r1, r2, weaker]) = unique_repeat_counts(&g) else {
        return Err(format!(
            "| {name} | {nodes} | the reference's solve is over its step limit |||||||||"
        ));
    };
    let [d1, d2, d3] = disjoint_counts(&g);
    let [t1, t2, t3, t4, t5, simple_apply] = tag_index_counts(&g);
    Ok([
        nodes,
        u1,
        u2,
        r1,
        r2,
        weaker,
        d1,
        d2,
        d3,
        t1,
        t2,
        t3,
        t4,
        t5,
        simple_apply,
    ])
}

/// `@unique` nodes of rgt and of the reference, `@repeat` nodes of both, and the nodes where
/// the reference's promises more; the reference's pass runs on the automaton without rgt's
/// `@unique` and `@repeat`. `None` when it is over its step limit.
fn unique_repeat_counts(g: &Game) -> Option<[usize; 5]> {
    let ours = node_pragmas(g);
    let mut bare = g.clone();
    bare.pragmas
        .retain(|p| !matches!(p.kind, PragmaKind::Unique(_) | PragmaKind::Repeat { .. }));
    let r = rg_passes::reference::reference_pragmas_within(&bare, 2_000_000)?;
    let wk = *g.well_known();
    let ordinary: BTreeSet<rg_core::Symbol> = g
        .variables
        .iter()
        .map(|v| v.name)
        .filter(|v| ![wk.goals, wk.player, wk.visible].contains(v))
        .collect();
    let mut theirs: std::collections::BTreeMap<NodeId, NodePragma> = r
        .repeat
        .iter()
        .map(|(n, vs)| (*n, Some(Some(vs.iter().copied().collect()))))
        .collect();
    for &n in &r.unique {
        theirs.insert(n, Some(None));
    }
    let count = |m: &std::collections::BTreeMap<NodeId, NodePragma>, unique: bool| {
        m.values()
            .filter(|p| match p {
                Some(None) => unique,
                Some(Some(_)) => !unique,
                None => false,
            })
            .count()
    };
    let weaker_nodes = theirs
        .iter()
        .filter(|(n, t)| stronger(t, ours.get(n).unwrap_or(&None), &ordinary))
        .count();
    Some([
        count(&ours, true),
        count(&theirs, true),
        count(&ours, false),
        count(&theirs, false),
        weaker_nodes,
    ])
}

/// `@disjoint` nodes of rgt and of the reference, and those only the reference has.
fn disjoint_counts(g: &Game) -> [usize; 3] {
    let our_disjoint: BTreeSet<NodeId> = g
        .pragmas
        .iter()
        .filter_map(|p| match p.kind {
            PragmaKind::Disjoint { node, .. } | PragmaKind::DisjointExhaustive { node, .. } => {
                Some(node)
            }
            _ => None,
        })
        .collect();
    let their_disjoint = rg_passes::reference::reference_disjoints(g);
    let disjoint_only = their_disjoint
        .iter()
        .filter(|(n, _)| !our_disjoint.contains(n))
        .count();
    [our_disjoint.len(), their_disjoint.len(), disjoint_only]
}

/// `@tagIndex` nodes of rgt and of the reference, `@tagMaxIndex` nodes of both, the nodes
/// where the reference's promises more, and rgt's `@simpleApply` pragmas.
fn tag_index_counts(g: &Game) -> [usize; 6] {
    let mut our_exact = BTreeSet::new();
    let mut our_max = BTreeSet::new();
    let mut simple_apply = 0;
    for p in &g.pragmas {
        match &p.kind {
            PragmaKind::TagIndex { nodes, .. } => our_exact.extend(nodes.iter().copied()),
            PragmaKind::TagMaxIndex { nodes, .. } => our_max.extend(nodes.iter().copied()),
            PragmaKind::SimpleApply { .. } => simple_apply += 1,
            _ => {}
        }
    }
    let (their_exact, their_max) = rg_passes::reference::reference_tag_indexes(g);
    let weaker_tags = their_exact
        .iter()
        .filter(|n| !our_exact.contains(n))
        .count()
        + their_max
            .iter()
            .filter(|n| !our_exact.contains(n) && !our_max.contains(n))
            .count();
    [
        our_exact.len(),
        their_exact.len(),
        our_max.len(),
        their_max.len(),
        weaker_tags,
        simple_apply,
    ]
}
