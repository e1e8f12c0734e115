//! Size statistics of a game (`rgt stats`, pass traces, batch reports).

use crate::game::{Game, TypeId};
use crate::typeck::{Resolved, TypeEnv};

/// Counts describing the size of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameStats {
    /// Distinct nodes that are an endpoint of some edge (as the reference counts them).
    pub nodes: usize,
    /// Edges (duplicates counted).
    pub edges: usize,
    /// Variable declarations (builtins included once added).
    pub variables: usize,
    /// Constant declarations.
    pub constants: usize,
    /// Type definitions.
    pub types: usize,
    /// Edges labelled with a reachability check.
    pub reachability_checks: usize,
    /// Edges labelled with a tag or a variable tag.
    pub tags: usize,
    /// Pragmas.
    pub pragmas: usize,
    /// Bits needed to store one semistate: for each variable, the product of its key-domain
    /// sizes times ceil(log2(value-domain size)). Saturates at `u64::MAX`.
    pub state_bits: u64,
}

impl GameStats {
    /// Computes the statistics of `game`.
    pub fn of(game: &Game) -> Self {
        let mut s = GameStats {
            nodes: game.node_count(),
            edges: game.edge_count(),
            variables: game.variables.len(),
            constants: game.constants.len(),
            types: game.typedefs.len(),
            pragmas: game.pragmas.len(),
            reachability_checks: game.reach_edge_count(),
            tags: game.tag_edge_count(),
            ..GameStats::default()
        };
        let env = TypeEnv::new(game);
        s.state_bits = game
            .variables
            .iter()
            .map(|v| variable_bits(&env, v.ty))
            .fold(0u64, u64::saturating_add);
        s
    }
}

/// Bits of one variable of type `t`; 0 when the type cannot be resolved.
fn variable_bits(env: &TypeEnv<'_>, t: TypeId) -> u64 {
    let mut keys: u64 = 1;
    let mut t = t;
    // Bounded by the nesting depth of arrow types; resolution failures end the walk.
    for _ in 0..=env.game().typedefs.len() + 64 {
        match env.resolve(t) {
            Ok(Resolved::Set(ms)) => {
                let mut distinct = ms.as_slice().to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                return keys.saturating_mul(ceil_log2(distinct.len() as u64));
            }
            Ok(Resolved::Arrow(k, v)) => {
                let Ok(Resolved::Set(ks)) = env.resolve(k) else {
                    return 0;
                };
                let mut distinct = ks.as_slice().to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                keys = keys.saturating_mul(distinct.len() as u64);
                t = v;
            }
            Err(_) => return 0,
        }
    }
    0
}

fn ceil_log2(n: u64) -> u64 {
    if n <= 1 {
        0
    } else {
        u64::from(64 - (n - 1).leading_zeros())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_state_bits() {
        let mut g = crate::parse(
            crate::FileId(0),
            "type Player = { x, o }; type Score = { 0, 1, 2 }; type C = { a, b, c };\n\
             var board: C -> C -> C = { :{ :a } }; var t: Player = x;\n\
             begin, m: $ a; m, n: $$ t; n, k: ? m -> n; k, end: player = keeper;",
        )
        .unwrap();
        crate::builtins::add_builtins(&mut g).unwrap();
        let s = GameStats::of(&g);
        assert_eq!(
            (s.nodes, s.edges, s.tags, s.reachability_checks),
            (5, 4, 2, 1)
        );
        assert_eq!(s.variables, 5);
        assert_eq!(s.types, 7);
        // board 3*3*2 + t 1 + goals 2*2 + player 2 (4 values) + visible 2*1
        assert_eq!(s.state_bits, 18 + 1 + 4 + 2 + 2);
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(5), 3);
        assert_eq!(ceil_log2(8), 3);
    }
}
