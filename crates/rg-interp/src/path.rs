//! Paths of moves (`/m1/m2/…/`, each move its tags separated by spaces): parsing and replaying.

use crate::error::PathError;
use crate::search::{Machine, State};

/// Parses a path into moves, each a list of tag names.
pub fn parse_path(path: &str) -> Result<Vec<Vec<&str>>, PathError> {
    if path.is_empty() || !path.starts_with('/') || !path.ends_with('/') {
        return Err(PathError::Format(path.to_string()));
    }
    if path == "/" {
        return Ok(Vec::new());
    }
    let inner = &path[1..path.len() - 1];
    inner
        .split('/')
        .map(|m| {
            if m.is_empty() {
                Ok(Vec::new())
            } else {
                let tags: Vec<&str> = m.split(' ').collect();
                if tags.iter().any(|t| t.is_empty()) {
                    Err(PathError::Format(path.to_string()))
                } else {
                    Ok(tags)
                }
            }
        })
        .collect()
}

impl Machine<'_> {
    /// The state after playing `path` from the initial state; every move counts, keeper moves
    /// included. A move is applied by taking the first legal move with those tags.
    pub fn follow(&mut self, path: &str) -> Result<State, PathError> {
        let moves = parse_path(path)?;
        let p = self.program();
        let mut ids = Vec::with_capacity(moves.len());
        for m in &moves {
            let mut tags = Vec::with_capacity(m.len());
            for t in m {
                match p.path_symbols.get(*t) {
                    Some(&s) => tags.push(s),
                    None => return Err(PathError::UnknownTag((*t).to_string())),
                }
            }
            ids.push(tags);
        }
        let mut state = self.initial();
        for (i, tags) in ids.iter().enumerate() {
            let list = self.moves(&state).map_err(|mut e| {
                e.path = moves[..i]
                    .iter()
                    .map(|m| m.iter().map(|t| t.to_string()).collect())
                    .collect();
                e.finish_help();
                PathError::Runtime(e)
            })?;
            match (0..list.len()).find(|&j| list.tags(j) == tags.as_slice()) {
                Some(j) => state = list.state(j),
                None => {
                    return Err(PathError::Illegal {
                        path: path.to_string(),
                        mv: if moves[i].is_empty() {
                            format!("the empty move (move {})", i + 1)
                        } else {
                            format!("`{}` (move {})", moves[i].join(" "), i + 1)
                        },
                    });
                }
            }
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_parse_as_the_reference_does() {
        assert_eq!(parse_path("/").unwrap(), Vec::<Vec<&str>>::new());
        assert_eq!(parse_path("//").unwrap(), vec![Vec::<&str>::new()]);
        assert_eq!(parse_path("//2 2/").unwrap(), vec![vec![], vec!["2", "2"]]);
        assert!(parse_path("").is_err());
        assert!(parse_path("a/").is_err());
        assert!(parse_path("/a").is_err());
        assert!(parse_path("/a  b/").is_err());
    }
}
