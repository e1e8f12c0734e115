//! Runs `examples/embed.rs` (the embedding example must keep working) and checks the
//! embedding API on a bundled game.

#[allow(dead_code)] // its `main` is the example's entry point, not called here
#[path = "../examples/embed.rs"]
mod embed;

use rg_pipeline::{Error, Lang, Options, Pipeline, Playable};
use std::path::Path;

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn the_embedding_example_plays_nim_to_the_end() {
    let out = embed::run(&example("nim.rg")).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.contains("perft(3) = "), "{out}");
    assert!(out.contains("the game ended after"), "{out}");
    assert!(out.contains("goal of "), "{out}");
}

#[test]
fn the_embedding_example_reads_every_language() {
    let out = embed::run(&example("linegames/alquerque.lg")).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.contains("nodes"), "{out}");
}

#[test]
fn errors_are_typed_and_render_like_rgt() {
    let mut p = Pipeline::new(Options::default());
    let err = p
        .load_text(Lang::Rg, "bad.rg", "type Player = { p };\ntype = ;\n")
        .expect_err("a syntax error");
    let Error::Input(diags) = &err else {
        panic!("{err:?}")
    };
    assert!(diags[0].code.as_deref().unwrap().starts_with("rg::parse"));
    let text = p.render_error(&err);
    assert!(text.contains("bad.rg:2:"), "{text}");
    assert!(text.ends_with("1 error in bad.rg\n"), "{text}");
}

#[test]
fn moves_apply_and_goals_are_values() {
    let mut p = Pipeline::default();
    let loaded = p.load_path(&example("nim.rg")).expect("nim loads");
    let play = Playable::new(&loaded.game).expect("nim compiles");
    let start = play.initial();
    assert!(!play.is_final(&start));
    let moves = play.moves(&start).expect("moves");
    assert!(!moves.is_empty());
    let next = play.apply(&moves[0]);
    assert_ne!(next, start);
    assert_eq!(play.perft(&start, 0).expect("perft"), 1);
}
