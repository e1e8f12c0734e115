//! "Did you mean …?" suggestions for misspelt names.

/// The candidate closest to `name` by edit distance, if it is close enough to be a plausible
/// typo: distance at most a third of the name's length (at least 1, except for one-character
/// names), or a difference in letter case only.
/// Ties go to the first candidate, so the result is deterministic for a deterministic order.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let n = name.chars().count();
    let limit = if n <= 1 { 0 } else { (n / 3).max(1) };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let d = if c.eq_ignore_ascii_case(name) {
            0
        } else {
            distance(name, c)
        };
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over chars, with case-only differences costing nothing extra beyond a
/// substitution (so `coord` → `Coord` is distance 1).
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_plausible_typos_only() {
        assert_eq!(closest("Cord", ["Coord", "Piece"]), Some("Coord"));
        assert_eq!(closest("coord", ["Coord"]), Some("Coord"));
        assert_eq!(closest("X", ["Coord", "Piece"]), None);
        assert_eq!(closest("c", ["a", "b"]), None);
        assert_eq!(closest("x", ["X", "O"]), Some("X"));
        assert_eq!(closest("Coord", ["Coord"]), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
