//! Reading + validation speed of GDL: the largest corpus KIF files (read from ../shared/corpus
//! when it is present) and a generated description with many rules of the usual shapes.

use criterion::{Criterion, criterion_group, criterion_main};
use front_gdl_syntax::ParseOptions;
use rg_core::FileId;
use std::fmt::Write;
use std::hint::black_box;
use std::path::Path;

/// A board game on an n×n board in the style of the library: `succ` tables, cell fluents,
/// frame rules with `distinct`, `or`, negation and a recursive line relation.
fn generated(n: usize) -> String {
    let mut s = String::from("(role white)\n(role black)\n(init (control white))\n");
    for i in 1..n {
        let _ = writeln!(s, "(succ {i} {})", i + 1);
    }
    for x in 1..=n {
        for y in 1..=n {
            let _ = writeln!(s, "(init (cell {x} {y} b))");
        }
    }
    for k in 0..n * 4 {
        let _ = write!(
            s,
            "(<= (legal ?p (mark{k} ?x ?y))\n    (true (control ?p))\n    (true (cell ?x ?y b))\n    (or (succ ?x ?y) (succ ?y ?x) (not (true (cell ?y ?x w)))))\n\
             (<= (next (cell ?x ?y ?c))\n    (true (cell ?x ?y ?c))\n    (does ?p (mark{k} ?u ?v))\n    (or (distinct ?x ?u) (distinct ?y ?v)))\n\
             (<= (line{k} ?x ?y) (true (cell ?x ?y w)))\n\
             (<= (line{k} ?x ?z) (line{k} ?x ?y) (succ ?y ?z) (true (cell ?x ?z w)))\n\
             (<= (goal white 100) (line{k} 1 ?y))\n"
        );
    }
    s.push_str("(<= (next (control black)) (true (control white)))\n(<= (next (control white)) (true (control black)))\n(<= terminal (not (true (control white))) (not (true (control black))))\n(<= (goal black 0) terminal)\n");
    s
}

fn bench(c: &mut Criterion) {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/kif");
    let mut games = vec![("generated_16".to_string(), generated(16))];
    for f in [
        "library/alexChess.kif",
        "library/chess_200.kif",
        "rg-suite/connect4.kif",
    ] {
        if let Ok(text) = std::fs::read_to_string(corpus.join(f)) {
            games.push((f.rsplit('/').next().unwrap_or(f).to_string(), text));
        }
    }
    let mut group = c.benchmark_group("gdl_load");
    for (name, text) in &games {
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                black_box(
                    front_gdl_syntax::load(FileId(0), text, &ParseOptions::default())
                        .expect("valid"),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
