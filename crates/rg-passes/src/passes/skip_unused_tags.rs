//! passes.md §3.15 skip_unused_tags.

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
            if main[d.from.0 as usize] {
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
