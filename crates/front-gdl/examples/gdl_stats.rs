//! Prints the grounding statistics of GDL files: `cargo run --release -p front-gdl --example
//! gdl_stats -- FILE...` (a profiling aid for the grounder).
#![allow(clippy::print_stdout)]

use rg_core::SourceMap;

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                println!("{path}: {e}");
                continue;
            }
        };
        let mut sources = SourceMap::new();
        let file = sources.add(path.clone(), text.clone());
        let opts = front_gdl::TranslateOptions::default();
        match front_gdl::translate(file, &text, &opts, &mut |_| {}) {
            Ok(t) => {
                let s = &t.stats;
                println!(
                    "{path}: atoms {} instances {} rules {} fluents {} sccs {} | ground {:?} simplify {:?} lower {:?} | nodes {} edges {}",
                    s.atoms,
                    s.instances,
                    s.rules,
                    s.fluents,
                    s.recursive_components,
                    s.ground_time,
                    s.simplify_time,
                    s.lower_time,
                    t.game.node_count(),
                    t.game.edge_count()
                );
                println!("  relations: {:?}", s.largest_relations);
                println!("  rules (line, instances): {:?}", s.largest_rules);
            }
            Err(e) => println!("{path}: {e} ({:?})", e.diagnostics.first().map(|d| &d.message)),
        }
    }
}
