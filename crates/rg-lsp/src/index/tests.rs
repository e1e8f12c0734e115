use super::*;

/// The declaration the `n`-th occurrence of the whole word `word` in `text` resolves to: its
/// kind and where its name is declared.
fn resolve_at(lang: Lang, text: &str, word: &str, n: usize) -> Option<(Kind, usize)> {
    let name_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let at = text
        .match_indices(word)
        .filter(|&(i, _)| {
            !name_char(text[..i].chars().next_back())
                && !name_char(text[i + word.len()..].chars().next())
        })
        .nth(n)?
        .0;
    let idx = Index::new(lang, text);
    let d = &idx.defs[idx.at(at)?];
    Some((d.kind, d.name_span.0))
}

#[test]
fn rg_nodes_and_values_are_separate_name_spaces() {
    let text = "type T = { a, b };\nconst c: T = a;\nvar v: T = b;\n\
                begin, a: v = c;\na, end: ? a -> begin;\n";
    let idx = Index::new(Lang::Rg, text);
    let kinds: Vec<(&str, Kind)> = idx.defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("T", Kind::Type),
            ("a", Kind::Symbol),
            ("b", Kind::Symbol),
            ("c", Kind::Constant),
            ("v", Kind::Variable),
            ("begin", Kind::Node),
            ("a", Kind::Node),
            ("end", Kind::Node),
        ]
    );
    // `a` in `const c: T = a` is the symbol; `a` as an edge end and in `? a ->` is the node.
    assert_eq!(
        resolve_at(Lang::Rg, text, "a", 1).map(|r| r.0),
        Some(Kind::Symbol)
    );
    let node_a = text.find("begin, a").unwrap() + 7;
    assert_eq!(
        resolve_at(Lang::Rg, text, "a", 2),
        Some((Kind::Node, node_a))
    );
    assert_eq!(
        resolve_at(Lang::Rg, text, "a", 4),
        Some((Kind::Node, node_a))
    );
    let v = idx.defs.iter().position(|d| d.name == "v").unwrap();
    assert_eq!(idx.occurrences(v).len(), 2);
    let begin = idx.defs.iter().position(|d| d.name == "begin").unwrap();
    // The edge end and the target of the reachability check.
    assert_eq!(idx.occurrences(begin).len(), 2);
    assert_eq!(
        idx.defs[begin].summary,
        "node `begin`: 1 outgoing edge, 0 incoming"
    );
}

#[test]
fn hrg_locals_shadow_nothing_and_stay_in_their_item() {
    let text = "domain Player = white | black\n\
                domain Pos = P(X) where X in 0..3\n\
                next : Player -> Player\n\
                next(white) = black\n\
                next(_) = white\n\
                me : Player = white\n\
                graph turn(who: Player) {\n  branch d in {white, black} { me = next(who) }\n}\n\
                graph rules() { turn(me) }\n";
    let idx = Index::new(Lang::Hrg, text);
    let find = |n: &str| idx.defs.iter().find(|d| d.name == n).unwrap();
    assert_eq!(find("Player").kind, Kind::Type);
    assert_eq!(find("white").kind, Kind::Symbol);
    assert_eq!(find("P").kind, Kind::Symbol);
    assert_eq!(find("X").kind, Kind::Local);
    assert_eq!(find("next").kind, Kind::Function);
    assert_eq!(find("me").kind, Kind::Variable);
    assert_eq!(find("turn").kind, Kind::Graph);
    assert_eq!(find("who").kind, Kind::Parameter);
    assert_eq!(find("d").kind, Kind::Local);
    assert!(find("next").detail.contains("next(white) = black"));
    // `who` in the body is the parameter; `me` in `rules` is the global variable.
    assert_eq!(
        resolve_at(Lang::Hrg, text, "who", 1).map(|r| r.0),
        Some(Kind::Parameter)
    );
    assert_eq!(
        resolve_at(Lang::Hrg, text, "me", 2).map(|r| r.0),
        Some(Kind::Variable)
    );
    // `Player` in `domain Player` is the declaration; in `next : Player` a reference to it.
    let player = text.find("Player").unwrap();
    assert_eq!(
        resolve_at(Lang::Hrg, text, "Player", 1),
        Some((Kind::Type, player))
    );
}

#[test]
fn rbg_players_pieces_variables_and_macros() {
    let text = "#players = red(100), blue(100)\n#pieces = e, r\n#variables = n(5)\n\
                #board = rectangle(up, down, [e, e])\n\
                #turn(me; p) = ->me {e} [p] [$ n = 1]\n#rules = (turn(red; r) up)*\n";
    let idx = Index::new(Lang::Rbg, text);
    let kinds: Vec<(&str, Kind)> = idx.defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
    assert_eq!(
        kinds,
        [
            ("red", Kind::Player),
            ("blue", Kind::Player),
            ("e", Kind::Piece),
            ("r", Kind::Piece),
            ("n", Kind::Variable),
            ("up", Kind::Direction),
            ("down", Kind::Direction),
            ("turn", Kind::Macro),
            ("me", Kind::Parameter),
            ("p", Kind::Parameter),
        ]
    );
    assert_eq!(
        resolve_at(Lang::Rbg, text, "turn", 1).map(|r| r.0),
        Some(Kind::Macro)
    );
    assert_eq!(
        resolve_at(Lang::Rbg, text, "me", 1).map(|r| r.0),
        Some(Kind::Parameter)
    );
}

#[test]
fn kif_relations_are_declared_by_every_head() {
    let text = "(role x)\n(init (cell 1 b))\n(<= (legal x (mark ?c)) (true (cell ?c b)))\n\
                (<= (legal x noop) (not open))\n(<= open (true (cell ?c b)))\n";
    let idx = Index::new(Lang::Kif, text);
    let legal = idx.defs.iter().find(|d| d.name == "legal").unwrap();
    assert_eq!(legal.kind, Kind::Relation);
    assert_eq!(legal.more.len(), 1);
    assert_eq!(legal.summary, "relation `legal/2`: 2 declaring forms");
    assert_eq!(
        idx.defs.iter().find(|d| d.name == "cell").map(|d| d.kind),
        Some(Kind::Term)
    );
    // `open` in `(not open)` refers to the relation declared by `(<= open …)`.
    let open = text.rfind("open").unwrap();
    assert_eq!(
        resolve_at(Lang::Kif, text, "open", 0),
        Some((Kind::Relation, open))
    );
    // Variables are not names.
    assert_eq!(resolve_at(Lang::Kif, text, "?c", 0), None);
}

#[test]
fn any_text_is_indexed_without_panicking() {
    let samples = [
        "",
        "(",
        ")",
        "((((",
        "#",
        "# = (",
        "type",
        "type ;",
        "a, b",
        "a, b:",
        "? a ->",
        "domain",
        "domain D =",
        "graph g(",
        "graph g(x:",
        "x :",
        "(<=",
        "(<= (",
        "{ } ] )",
        "é\u{0}\u{feff}//",
        "/*",
        "\"",
    ];
    for text in samples {
        for lang in Lang::ALL {
            let idx = Index::new(lang, text);
            for off in 0..=text.len() {
                let _ = idx.at(off);
            }
        }
    }
}
