//! Translation speed of LineGames: the largest example (Tavelspel, a 13 × 13 grid of 169
//! points) and Satoel (93 points, triangles), from `.lg` text to RG, and each stage alone.

use criterion::{Criterion, criterion_group, criterion_main};
use front_linegames::LgFrontEnd;
use rg_core::{FileId, FrontEnd, LowerOptions};
use std::hint::black_box;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/linegames");
    let mut group = c.benchmark_group("lg_translate");
    for game in ["tavelspel_lud", "satoel_lud"] {
        let text = std::fs::read_to_string(dir.join(format!("{game}.lg"))).expect("example");
        group.bench_function(format!("{game}/to_rg"), |b| {
            b.iter(|| {
                black_box(
                    LgFrontEnd
                        .lower(FileId(0), &text, &LowerOptions::default())
                        .expect("lowers"),
                )
            })
        });
        group.bench_function(format!("{game}/to_hrg_text"), |b| {
            b.iter(|| {
                let (g, _) = front_linegames::load(FileId(0), &text).expect("valid");
                black_box(front_linegames::hrg_text(&g))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
