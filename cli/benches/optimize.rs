//! Speed of the `-O2` pipeline (issue: passes, acceptance "Speed"): each game is translated once
//! with `-O0`, then every iteration optimises a fresh copy. The project's own examples always
//! run; the largest corpus games (the reference times out on gess and arimaa, and needs 32 s
//! and 14 s for reversi and pentago) are added when ../shared/corpus is present.

use criterion::{Criterion, criterion_group, criterion_main};
use rg_pipeline::{Lang, OptLevel, Pipeline, optimise};
use std::hint::black_box;
use std::path::Path;

const GAMES: &[(&str, &str)] = &[
    ("nim", "examples/nim.rg"),
    ("alquerque", "examples/linegames/alquerque.lg"),
    ("reversi", "../shared/corpus/rbg/hl/reversi.rbg"),
    ("pentago", "../shared/corpus/rbg/hl/pentago.rbg"),
    ("gess", "../shared/corpus/rbg/hl/gess.rbg"),
    ("arimaa", "../shared/corpus/rbg/hl/arimaa_fixedPosition.rbg"),
    ("backgammon", "../shared/corpus/hrg/backgammon.hrg"),
    ("connect4_kif", "../shared/corpus/kif/rg-suite/connect4.kif"),
];

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pipeline = Pipeline::default();
    let mut group = c.benchmark_group("optimise_O2");
    group.sample_size(10);
    for (name, rel) in GAMES {
        let path = root.join(rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // a corpus game on a machine without the corpus
        };
        let lang = Lang::detect(rel, None).expect("a known extension");
        let game = pipeline
            .translate_text(lang, *rel, text)
            .unwrap_or_else(|_| panic!("{rel} translates"))
            .game;
        group.bench_function(*name, |b| {
            b.iter(|| {
                let mut g = game.clone();
                optimise(&mut g, OptLevel::O2).expect("optimises");
                black_box(g)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
