//! Lowering speed of HRG: the largest corpus game (chess.hrg, read from ../shared/corpus when it
//! is present) and the worked example of the test fixtures.

use criterion::{Criterion, criterion_group, criterion_main};
use front_hrg::HrgFrontEnd;
use rg_core::{FileId, FrontEnd, LowerOptions};
use std::hint::black_box;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut games = vec![(
        "take_away",
        std::fs::read_to_string(root.join("tests/fixtures/hrg/valid/take_away.hrg"))
            .expect("fixture"),
    )];
    if let Ok(text) = std::fs::read_to_string(root.join("../shared/corpus/hrg/chess.hrg")) {
        games.push(("chess", text));
    }
    let mut group = c.benchmark_group("hrg_lower");
    for (name, text) in &games {
        group.bench_function(*name, |b| {
            b.iter(|| {
                black_box(
                    HrgFrontEnd
                        .lower(FileId(0), text, &LowerOptions::default())
                        .expect("lowers"),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
