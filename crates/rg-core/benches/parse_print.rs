//! Parse + builtins + type check + print of a generated RG game with 100 000 edges (the
//! foundation issue's target: under 1 s).

use criterion::{Criterion, criterion_group, criterion_main};
use rg_core::{FileId, builtins, parse, print, typeck};
use std::fmt::Write;
use std::hint::black_box;

/// A game with `n` edges cycling through every label kind over a 16-cell board.
pub fn generated_game(n: usize) -> String {
    let mut s = String::from(
        "type Player = { a, b };\ntype Score = { 0, 1 };\n\
         type Cell = { c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15 };\n\
         type Piece = { none, pa, pb };\n\
         const next: Cell -> Cell = { c0: c1, c1: c2, c2: c3, c3: c4, c4: c5, c5: c6, c6: c7, c7: c8, \
         c8: c9, c9: c10, c10: c11, c11: c12, c12: c13, c13: c14, c14: c15, :c0 };\n\
         const owner: Player -> Piece = { a: pa, :pb };\n\
         var board: Cell -> Piece = { :none };\nvar at: Cell = c0;\nvar turn: Player = a;\n",
    );
    for i in 0..n {
        let (f, t) = (i, i + 1);
        let label = match i % 8 {
            0 => "at = Cell(*)".to_owned(),
            1 => "$$ at".to_owned(),
            2 => "board[at] == none".to_owned(),
            3 => "board[at] = owner[turn]".to_owned(),
            4 => format!("? n{} -> n{}", t, t + 1),
            5 => "at = next[at]".to_owned(),
            6 => "$ step".to_owned(),
            _ => String::new(),
        };
        let _ = writeln!(s, "n{f}, n{t}: {label};");
    }
    let _ = writeln!(
        s,
        "begin, n0: player = PlayerOrSystem(turn);\nn{n}, end: player = keeper;"
    );
    s
}

fn bench(c: &mut Criterion) {
    let text = generated_game(100_000);
    let mut group = c.benchmark_group("parse_print");
    group.sample_size(10);
    group.bench_function("100k_edges", |b| {
        b.iter(|| {
            let mut g = parse(FileId(0), black_box(&text)).expect("parses");
            builtins::add_builtins(&mut g).expect("builtins");
            assert!(typeck::check(&g).is_empty());
            black_box(print(&g))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
