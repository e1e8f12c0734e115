//! Conversion between byte offsets (what rgt's spans are) and LSP positions (line and UTF-16
//! code unit, what editors send and expect).

use lsp_types::{Position, Range};

/// The starts of the lines of a text, for offset ↔ position conversion.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of byte `offset` (clamped to the text; inside a character, its start).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character: usize = text[start..offset].chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(character))
    }

    /// The range of the bytes `start..end`.
    pub fn range(&self, text: &str, start: usize, end: usize) -> Range {
        Range::new(
            self.position(text, start),
            self.position(text, end.max(start)),
        )
    }

    /// The byte offset of a position (clamped to its line and to the text).
    pub fn offset(&self, text: &str, pos: Position) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .map_or(text.len(), |&e| e.saturating_sub(1));
        let mut units = 0usize;
        for (i, c) in text[start..end].char_indices() {
            if units >= pos.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_positions_round_trip_through_utf16() {
        let text = "ab\nxé𝄞y\n";
        let idx = LineIndex::new(text);
        let y = text.find('y').unwrap();
        assert_eq!(idx.position(text, y), Position::new(1, 4));
        assert_eq!(idx.offset(text, Position::new(1, 4)), y);
        assert_eq!(idx.position(text, 0), Position::new(0, 0));
        assert_eq!(idx.offset(text, Position::new(9, 0)), text.len());
        // Past the end of a line: its end.
        assert_eq!(idx.offset(text, Position::new(0, 40)), 2);
    }
}
