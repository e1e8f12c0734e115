//! The cheap validator set (run after every pass) on a generated game with 100 000 edges:
//! assignments into maps, comparisons, tags, variable tags and reachability checks.

use criterion::{Criterion, criterion_group, criterion_main};
use rg_core::FileId;
use rg_validate::{Selection, validate};
use std::fmt::Write;
use std::hint::black_box;

fn generated(edges: usize) -> rg_core::Game {
    let mut s = String::from(
        "type Player = { a, b };\ntype Score = { 0, 1 };\ntype C = { c0, c1, c2, c3 };\n\
         const next: C -> C = { c0: c1, c1: c2, c2: c3, :c0 };\n\
         var board: C -> C -> C = { :{ :c0 } };\nvar x: C = c0;\nvar y: C = c0;\n\
         begin, n0: player = a;\n",
    );
    let mut i = 0;
    while i < edges {
        let (from, to) = (format!("n{i}"), format!("n{}", i + 1));
        let label = match i % 5 {
            0 => "x = C(*)".to_string(),
            1 => "board[x][y] = next[board[y][x]]".to_string(),
            2 => "board[x][next[y]] != c3".to_string(),
            3 => "$$ x".to_string(),
            _ => format!("? n{} -> n{}", i + 1, i + 2),
        };
        writeln!(s, "{from}, {to}: {label};").expect("string");
        i += 1;
    }
    writeln!(s, "n{i}, end: player = keeper;").expect("string");
    let mut g = rg_core::parse(FileId(0), &s).expect("generated RG parses");
    rg_core::builtins::add_builtins(&mut g).expect("builtins");
    g
}

fn bench(c: &mut Criterion) {
    let game = generated(100_000);
    assert!(validate(&game, Selection::Cheap).is_empty());
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.bench_function("cheap/100k_edges", |b| {
        b.iter(|| black_box(validate(&game, Selection::Cheap)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
