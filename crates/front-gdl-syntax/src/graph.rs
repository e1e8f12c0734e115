//! Directed graphs over dense `u32` node ids: compressed adjacency lists and strongly connected
//! components (iterative Tarjan, so ground dependency graphs with millions of atoms cannot
//! overflow the stack). Used for the relation dependency graph here and meant for the ground
//! dependency graph of grounding (whose components are the ground recursion to lower).

/// Adjacency lists in one array (compressed sparse rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// The graph with nodes `0..n` and the given edges (duplicates kept; each node's
    /// successors in the order the edges are given).
    pub fn from_edges(n: usize, edges: impl IntoIterator<Item = (u32, u32)> + Clone) -> Self {
        let mut offsets = vec![0u32; n + 1];
        for (from, _) in edges.clone() {
            offsets[from as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; offsets[n] as usize];
        for (from, to) in edges {
            let slot = &mut fill[from as usize];
            targets[*slot as usize] = to;
            *slot += 1;
        }
        Csr { offsets, targets }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The successors of `node`.
    pub fn successors(&self, node: u32) -> &[u32] {
        let (a, b) = (
            self.offsets[node as usize] as usize,
            self.offsets[node as usize + 1] as usize,
        );
        &self.targets[a..b]
    }

    /// The graph with every edge reversed.
    pub fn reversed(&self) -> Csr {
        let n = self.len();
        Csr::from_edges(
            n,
            (0..n as u32).flat_map(|u| self.successors(u).iter().map(move |&v| (v, u))),
        )
    }
}

/// The strongly connected components of a graph.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sccs {
    /// The components in topological order: for every edge `u → v`,
    /// `component_of[u] <= component_of[v]`.
    pub components: Vec<Vec<u32>>,
    /// The component of each node (an index into `components`).
    pub component_of: Vec<u32>,
}

/// Tarjan's algorithm, iterative. Deterministic: nodes are started in id order and successors
/// visited in adjacency order.
pub fn sccs(g: &Csr) -> Sccs {
    const UNSEEN: u32 = u32::MAX;
    let n = g.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    // (node, position of the next successor to look at)
    let mut calls: Vec<(u32, u32)> = Vec::new();
    let mut next = 0u32;
    // Tarjan finishes a component after every component it reaches: reverse topological.
    let mut finished: Vec<Vec<u32>> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        calls.push((root, 0));
        while let Some(&(v, pos)) = calls.last() {
            let succ = g.successors(v);
            if let Some(&w) = succ.get(pos as usize) {
                if let Some(top) = calls.last_mut() {
                    top.1 += 1;
                }
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                finished.push(comp);
            }
        }
    }
    finished.reverse();
    let mut component_of = vec![0u32; n];
    for (i, comp) in finished.iter().enumerate() {
        for &v in comp {
            component_of[v as usize] = i as u32;
        }
    }
    Sccs {
        components: finished,
        component_of,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_in_topological_order() {
        // 0 → 1 ⇄ 2 → 3, 4 alone, 3 → 3
        let g = Csr::from_edges(5, [(0, 1), (1, 2), (2, 1), (2, 3), (3, 3)]);
        let s = sccs(&g);
        assert_eq!(s.components, vec![vec![4], vec![0], vec![1, 2], vec![3]]);
        for u in 0..5u32 {
            for &v in g.successors(u) {
                assert!(s.component_of[u as usize] <= s.component_of[v as usize]);
            }
        }
        assert_eq!(g.reversed().successors(1), &[0, 2]);
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let n = 1_000_000u32;
        let g = Csr::from_edges(
            n as usize,
            (0..n - 1).map(|i| (i, i + 1)).chain([(n - 1, 0)]),
        );
        let s = sccs(&g);
        assert_eq!(s.components.len(), 1);
        assert_eq!(s.components[0].len(), n as usize);
    }
}
