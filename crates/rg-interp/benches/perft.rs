//! Perft throughput on two games of the project's own test fixtures: tic-tac-toe (a board game
//! whose every turn runs reachability checks) and a dice race (random moves, merged by state);
//! and seeded random playouts (`rgt run`) on both.

use criterion::{Criterion, criterion_group, criterion_main};
use rg_core::FileId;
use rg_interp::{CompileOptions, Machine, Program};
use std::hint::black_box;
use std::path::Path;

fn load(rel: &str) -> rg_core::Game {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel);
    let text = std::fs::read_to_string(&path).expect("fixture");
    let mut game = rg_core::parse(FileId(0), &text).expect("valid RG");
    rg_core::builtins::add_builtins(&mut game).expect("builtins");
    assert!(rg_core::typeck::check(&game).is_empty());
    game
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, file, depth) in [
        ("tictactoe_d6", "rg/valid/tictactoe.rg", 6),
        ("dice_race_d8", "interp/perft/dice_race.rg", 8),
    ] {
        let game = load(file);
        let program = Program::new(&game, CompileOptions::default()).expect("compiles");
        group.bench_function(name, |b| {
            let mut m = Machine::new(&program);
            let s = m.initial();
            b.iter(|| black_box(m.perft(&s, depth).expect("no run-time error")));
        });
    }
    group.finish();

    let mut group = c.benchmark_group("playouts");
    group.sample_size(10);
    for (name, file) in [
        ("tictactoe_200", "rg/valid/tictactoe.rg"),
        ("dice_race_200", "interp/perft/dice_race.rg"),
    ] {
        let game = load(file);
        let program = Program::new(&game, CompileOptions::default()).expect("compiles");
        group.bench_function(name, |b| {
            let mut m = Machine::new(&program);
            let s = m.initial();
            b.iter(|| black_box(m.playouts(&s, 200, 1).expect("proper game").plays));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
