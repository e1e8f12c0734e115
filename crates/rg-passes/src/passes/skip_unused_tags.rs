//! `skip_unused_tags`: tags on edges that only reachability checks can walk become skips.
//!
//! Applies to `$ t` and `$$ v` on an edge whose source is not reachable from `begin` without
//! entering a check's sub-automaton (so only a check walks it). Tags named by `@artificialTag`
//! are kept (`skip_artificial_tags` handles them).
//!
//! Why the game tree is kept: a check only asks whether a path exists; the tags it walks over
//! never become part of a move. Paths and states stay the same with skips.
//!
//! ```text
//! before:  a, b: ? c -> d;  c, d: $ probe;
//! after:   a, b: ? c -> d;  c, d: ;
//! ```
//!
//! Complexity: linear in the number of nodes and edges.

use super::meta;
use crate::util::{artificial_tags, edge_ids};
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label};

/// Tags on edges outside the main automaton (inside reachability subautomata) never reach a
/// move; they become skips. Artificial tags are kept.
#[derive(Debug)]
pub(crate) struct SkipUnusedTags;

impl Pass for SkipUnusedTags {
    meta!(
        "skip_unused_tags",
        "tags that can only occur inside reachability checks become skips",
        Safe,
        Loop,
        Tags
    );
    fn run(&self, g: &mut Game, cx: &mut PassContext) -> Result<bool, PassError> {
        let main = cx.reachable_nodes(g, false);
        let artificial = artificial_tags(g);
        let mut changed = false;
        for e in edge_ids(g) {
            let d = g.edge(e);
            if main[d.from] {
                continue;
            }
            let unused = match d.label {
                Label::Tag(s) => !artificial.contains(&s),
                Label::TagVar(_) => true,
                _ => false,
            };
            if unused {
                g.set_label(e, Label::Skip);
                changed = true;
            }
        }
        Ok(changed)
    }
}
