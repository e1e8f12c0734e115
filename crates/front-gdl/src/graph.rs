//! Directed graphs over `0..n` in compressed adjacency form, and strongly connected components
//! (Tarjan's algorithm, iterative so that ground graphs with millions of atoms cannot overflow
//! the stack).

/// A directed graph over nodes `0..n`, adjacency in compressed (CSR) form.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    start: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// Builds the graph from an edge list (duplicates allowed). Successors keep edge order.
    pub(crate) fn new(n: usize, edges: &[(u32, u32)]) -> Self {
        let mut start = vec![0u32; n + 1];
        for &(a, _) in edges {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(a, b) in edges {
            targets[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Csr { start, targets }
    }

    /// Number of nodes.
    pub(crate) fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// Successors of `v`.
    #[inline]
    pub(crate) fn succ(&self, v: u32) -> &[u32] {
        &self.targets[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// The strongly connected components of `g`. Every component is listed after every component
/// it has an edge *to* — that is, in reverse topological order (sinks first). Members of a
/// component are in discovery order; components are numbered in the returned order.
pub(crate) fn sccs(g: &Csr) -> Vec<Vec<u32>> {
    const UNSEEN: u32 = u32::MAX;
    let n = g.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out: Vec<Vec<u32>> = Vec::new();
    let mut counter = 0u32;
    // Call stack of (node, position in its successor list).
    let mut calls: Vec<(u32, u32)> = Vec::new();
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        calls.push((root, 0));
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let succ = g.succ(v);
            if (*pos as usize) < succ.len() {
                let w = succ[*pos as usize];
                *pos += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
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
                loop {
                    let w = stack.pop().expect("Tarjan stack holds the component");
                    on_stack[w as usize] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_in_reverse_topological_order() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3, 4 alone, 3 -> 3
        let g = Csr::new(5, &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 3)]);
        let c = sccs(&g);
        let pos = |v: u32| c.iter().position(|s| s.contains(&v)).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(pos(1), pos(2));
        assert!(pos(3) < pos(1));
        assert!(pos(1) < pos(0));
        assert!(c.iter().any(|s| s == &[4]));
    }

    #[test]
    fn deep_chains_do_not_overflow() {
        let n = 200_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).chain([(n - 1, 0)]).collect();
        let c = sccs(&Csr::new(n as usize, &edges));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].len(), n as usize);
    }
}
