//! The built-in definitions step: adds `Bool`, `Goals`,
//! `Visibility`, `PlayerOrSystem`, `goals`, `player` and `visible` when omitted, and rejects
//! user definitions that are not loosely equal to them — in the reference's order, stopping at
//! the first error, with the reference's messages.

use crate::game::{Game, MapEntry, TypeData, TypeId, Typedef, ValueId, Variable};
use crate::interner::Symbol;
use crate::print::print_type;
use crate::typeck::{Ty, TypeEnv, TypeFail};
use crate::validate::{Location, Severity, Violation};

/// The validator name reported in violations of this step.
pub const VALIDATOR: &str = "builtins";

/// Adds the implicit definitions, or returns the first problem found (a user definition of a
/// built-in name that conflicts with it).
pub fn add_builtins(game: &mut Game) -> Result<(), Box<Violation>> {
    let wk = *game.well_known();
    let zero = wk.zero;
    let one = wk.one;

    // 1. Bool = { 0, 1 }
    let bool_ty = game.type_set([zero, one]);
    ensure_typedef(game, wk.bool_type, bool_ty)?;
    // 2. Score must exist.
    let score_idx = require_typedef(game, wk.score_type)?;
    // 3. Goals = Player -> Score
    let player_name = game.type_name(wk.player_type);
    let score_name = game.type_name(wk.score_type);
    let goals_ty = game.type_arrow(player_name, score_name);
    ensure_typedef(game, wk.goals_type, goals_ty)?;
    // 4. Player must exist.
    let player_idx = require_typedef(game, wk.player_type)?;
    // 5. Visibility = Player -> Bool
    let bool_name = game.type_name(wk.bool_type);
    let vis_ty = game.type_arrow(player_name, bool_name);
    ensure_typedef(game, wk.visibility_type, vis_ty)?;
    // 6. PlayerOrSystem = { P…, keeper, random }
    let players = set_members(game, player_idx)?;
    let mut all = players.clone();
    for s in [wk.keeper, wk.random] {
        if !players.contains(&s) {
            all.push(s);
        }
    }
    let pos_ty = game.type_set(all);
    ensure_typedef(game, wk.player_or_system_type, pos_ty)?;
    // 7. goals: Goals = { :s0 }
    let scores = set_members(game, score_idx)?;
    let Some(&s0) = scores.first() else {
        return Err(violation(
            "rg::builtins::empty-set",
            Location::Typedef(score_idx),
            "Type Score should not be empty.".into(),
            game.typedefs[score_idx].spans.whole,
            Some("declare at least one outcome: `type Score = { 0 };`".into()),
        ));
    };
    let s0v = game.value_elem(s0);
    let goals_init = game.value_map([MapEntry {
        key: None,
        value: s0v,
    }]);
    let goals_name = game.type_name(wk.goals_type);
    ensure_variable(game, wk.goals, goals_name, goals_init)?;
    // 8. player: PlayerOrSystem = keeper
    let pos_name = game.type_name(wk.player_or_system_type);
    let keeper = game.value_elem(wk.keeper);
    ensure_variable(game, wk.player, pos_name, keeper)?;
    // 9. visible: Visibility = { :1 }
    let vis_name = game.type_name(wk.visibility_type);
    let onev = game.value_elem(one);
    let vis_init = game.value_map([MapEntry {
        key: None,
        value: onev,
    }]);
    ensure_variable(game, wk.visible, vis_name, vis_init)?;
    Ok(())
}

fn violation(
    code: &'static str,
    at: Location,
    message: String,
    span: Option<crate::Span>,
    help: Option<String>,
) -> Box<Violation> {
    Box::new(Violation {
        validator: VALIDATOR,
        code,
        severity: Severity::Error,
        at,
        message,
        help,
        span,
        labels: Vec::new(),
    })
}

fn unresolved(game: &Game, f: TypeFail, at: Location, span: Option<crate::Span>) -> Box<Violation> {
    match f {
        TypeFail::Unresolved(n) => violation(
            "rg::types::unresolved-type",
            at,
            format!("Unresolved type {}.", game.name(n)),
            span,
            None,
        ),
        TypeFail::Cyclic(n) => violation(
            "rg::types::cyclic-type",
            at,
            format!("Type {} is defined in terms of itself.", game.name(n)),
            span,
            None,
        ),
    }
}

fn first_typedef(game: &Game, name: Symbol) -> Option<usize> {
    game.typedefs.iter().position(|t| t.name == name)
}

fn require_typedef(game: &Game, name: Symbol) -> Result<usize, Box<Violation>> {
    first_typedef(game, name).ok_or_else(|| {
        let n = game.name(name);
        violation(
            "rg::builtins::missing-type",
            Location::Game,
            format!("Unresolved type {n}."),
            None,
            Some(if n == "Player" {
                "every game declares its players: `type Player = { white, black };`".into()
            } else {
                "every game declares its outcomes: `type Score = { 0, 50, 100 };`".into()
            }),
        )
    })
}

fn ensure_typedef(game: &mut Game, name: Symbol, expected: TypeId) -> Result<(), Box<Violation>> {
    let Some(i) = first_typedef(game, name) else {
        game.typedefs.push(Typedef {
            name,
            ty: expected,
            spans: Default::default(),
        });
        return Ok(());
    };
    let user = game.typedefs[i].ty;
    let at = Location::Typedef(i);
    let span = game.typedefs[i].spans.whole;
    let env = TypeEnv::new(game);
    match env.loosely_equal(Ty::Id(user), Ty::Id(expected)) {
        Ok(true) => Ok(()),
        Ok(false) => {
            let resolved = env.resolve_id(user).unwrap_or(user);
            Err(violation(
                "rg::builtins::type-mismatch",
                at,
                format!(
                    "Type {} is incorrect.\n  Expected: {}\n  Resolved: {}",
                    game.name(name),
                    print_type(game, expected),
                    print_type(game, resolved)
                ),
                span,
                Some(format!(
                    "remove the declaration (rgt adds `type {} = {};`) or make it match",
                    game.name(name),
                    print_type(game, expected)
                )),
            ))
        }
        Err(f) => Err(unresolved(game, f, at, span)),
    }
}

fn ensure_variable(
    game: &mut Game,
    name: Symbol,
    ty: TypeId,
    init: ValueId,
) -> Result<(), Box<Violation>> {
    let Some(i) = game.variables.iter().position(|v| v.name == name) else {
        game.variables.push(Variable {
            name,
            ty,
            init,
            spans: Default::default(),
        });
        return Ok(());
    };
    let user = game.variables[i].ty;
    let at = Location::Variable(i);
    let span = game.variables[i].spans.whole;
    let env = TypeEnv::new(game);
    match env.loosely_equal(Ty::Id(user), Ty::Id(ty)) {
        Ok(true) => Ok(()),
        Ok(false) => Err(violation(
            "rg::builtins::variable-mismatch",
            at,
            format!(
                "Variable {} has incorrect type.\n  Expected: {}\n  Resolved: {}",
                game.name(name),
                print_type(game, ty),
                print_type(game, user)
            ),
            span,
            Some(format!(
                "declare it as `var {}: {} = …;`",
                game.name(name),
                print_type(game, ty)
            )),
        )),
        Err(f) => Err(unresolved(game, f, at, span)),
    }
}

/// The members of the set literal of typedef `i` ("Expected Set type, got …" otherwise).
fn set_members(game: &Game, i: usize) -> Result<Vec<Symbol>, Box<Violation>> {
    let t = &game.typedefs[i];
    match game.ty(t.ty) {
        TypeData::Set(ms) => Ok(ms.to_vec()),
        _ => Err(violation(
            "rg::builtins::set-expected",
            Location::Typedef(i),
            format!("Expected Set type, got {}.", print_type(game, t.ty)),
            t.spans.part_or_whole(1),
            Some(format!(
                "`{}` must be declared with a set literal, e.g. `type {} = {{ a, b }};`",
                game.name(t.name),
                game.name(t.name)
            )),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn with_builtins(text: &str) -> Result<String, String> {
        let mut g = crate::parse(FileId(0), text).expect("parses");
        add_builtins(&mut g).map_err(|v| v.message)?;
        Ok(crate::print(&g))
    }

    #[test]
    fn example_of_rg_md_6_2() {
        let out = with_builtins(
            "type Player = { white, black };\ntype Score = { 0, 1, 2 };\nvar turn: Player = white;\nbegin, end: player = keeper;\n",
        )
        .unwrap();
        assert_eq!(
            out,
            "type Player = { white, black };\ntype Score = { 0, 1, 2 };\ntype Bool = { 0, 1 };\n\
             type Goals = Player -> Score;\ntype Visibility = Player -> Bool;\n\
             type PlayerOrSystem = { white, black, keeper, random };\nvar turn: Player = white;\n\
             var goals: Goals = { :0 };\nvar player: PlayerOrSystem = keeper;\nvar visible: Visibility = { :1 };\n\
             begin, end: player = keeper;\n"
        );
    }

    #[test]
    fn loose_comparison_and_errors_in_reference_order() {
        // A common member suffices.
        assert!(
            with_builtins("type Player = {x}; type Score = {0}; type Bool = { 0, 2 };").is_ok()
        );
        assert_eq!(
            with_builtins("type Player = {x}; type Score = {0}; type Bool = { 2 };").unwrap_err(),
            "Type Bool is incorrect.\n  Expected: { 0, 1 }\n  Resolved: { 2 }"
        );
        assert_eq!(
            with_builtins("type Player = {x};").unwrap_err(),
            "Unresolved type Score."
        );
        assert_eq!(
            with_builtins("type Score = {x};").unwrap_err(),
            "Unresolved type Player."
        );
        assert_eq!(
            with_builtins("type P = {x}; type Player = P; type Score = {0};").unwrap_err(),
            "Expected Set type, got P."
        );
        assert_eq!(
            with_builtins("type Player = {x}; type Score = {0}; var player: Bool = 0;")
                .unwrap_err(),
            "Variable player has incorrect type.\n  Expected: PlayerOrSystem\n  Resolved: Bool"
        );
        // keeper in Player is not added twice.
        let out = with_builtins("type Player = {x, keeper}; type Score = {0};").unwrap();
        assert!(out.contains("type PlayerOrSystem = { x, keeper, random };"));
    }
}
