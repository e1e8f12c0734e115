//! `skip_artificial_tags`: the tags declared by `@artificialTag` are removed from
//! the automaton (each such `$ s` edge becomes a skip) and the pragmas are deleted.
//!
//! Artificial tags come from the HRG statement `$_ name` and from the RBG translator's copies of
//! move paths inside checks (`<tag>_copy`). They keep walks apart, so that no pass merges branches
//! that differ only in them, until the other passes are done.
//!
//! Scheduling (a deliberate difference from the reference, where it is a final pass): it is the
//! last loop pass of the canonical order, so in restart mode it only runs in an iteration in which
//! every other loop pass changed nothing, i.e. at the point where the reference leaves the loop.
//! Unlike the reference, the loop then goes on: the skips left by the removed tags are compacted
//! and the branches they kept apart can be joined (on the HRG corpus games this takes 2–26 % more
//! edges off; e.g. amazons.hrg 586 → 428). The pragma calculations then describe the automaton
//! that is actually interpreted.
//!
//! How the labels change (the pass *relabels*): the declaration is the author's or translator's
//! promise that the rest of the move determines the artificial tags (in a breakthrough move
//! "from, direction, to" the direction follows from the squares), so deleting them maps the moves
//! of every state one-to-one onto the new moves, and the game tree is the same. Copies inside
//! checks never reach a move at all. The promise itself cannot be verified in general: the tag
//! skeleton (the nodes a walk can be at after each tag sequence) ignores conditions, and it is
//! exactly the conditions that make an artificial tag determined, so a skeleton-based check would
//! flag every legitimate use; no warning is issued.
//!
//! Complexity: O(E + pragmas).

use super::meta;
use crate::util::edge_ids;
use crate::{Pass, PassContext, PassError};
use rg_core::{Game, Label, PragmaKind, Symbol};
use std::collections::HashSet;

#[derive(Debug)]
pub(crate) struct SkipArtificialTags;

impl Pass for SkipArtificialTags {
    meta!(
        "skip_artificial_tags",
        "remove the tags declared by @artificialTag (and the pragmas)",
        Relabels,
        Loop,
        Tags
    );
    fn run(&self, g: &mut Game, _cx: &mut PassContext) -> Result<bool, PassError> {
        let mut artificial: HashSet<Symbol> = HashSet::new();
        let before = g.pragmas.len();
        g.pragmas.retain(|p| match &p.kind {
            PragmaKind::ArtificialTag(tags) => {
                artificial.extend(tags.iter().copied());
                false
            }
            _ => true,
        });
        let mut changed = g.pragmas.len() != before;
        for e in edge_ids(g) {
            if let Label::Tag(s) = g.edge(e).label
                && artificial.contains(&s)
            {
                g.set_label(e, Label::Skip);
                changed = true;
            }
        }
        Ok(changed)
    }
}

#[cfg(test)]
mod tests {
    use super::SkipArtificialTags;
    use crate::testing::{edges, run};
    use rg_core::PragmaKind;

    #[test]
    fn declared_tags_become_skips_and_the_pragma_goes() {
        let text = "@artificialTag t;\nbegin, a: player = x;\na, b: $ t;\nb, c: $ u;\n\
                    c, end: player = keeper;\n";
        let (_, after, changed, _) = run(&SkipArtificialTags, text);
        assert!(changed);
        assert_eq!(edges(&after)[1..3], ["a, b: ;", "b, c: $ u;"]);
        assert!(
            !after
                .pragmas
                .iter()
                .any(|p| matches!(p.kind, PragmaKind::ArtificialTag(_)))
        );
    }
}
