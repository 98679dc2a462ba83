//! Places in a text as the protocol counts them: lines end at `\n`, `\r\n` or `\r`, and a
//! character is a UTF-16 code unit (`é` is one, `😀` two), while the policy's spans are byte
//! offsets.

use lsp_types::{Position, Range};

use crate::policy::ast::Span;

/// Where each line of a text starts, to turn byte offsets into positions and back.
#[derive(Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset where each line starts; the first is 0.
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            let ends_line = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(i + 1);
            }
        }
        LineIndex { text, starts }
    }

    /// The position of a byte offset. An offset past the end is the end; one inside a
    /// character is that character's start.
    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self
            .starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        // A `\r` before the offset on its line is the start of the line's `\r\n`.
        let before = self.text[start..offset].trim_end_matches('\r');
        let character: usize = before.chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(character))
    }

    /// The range a span covers.
    pub fn range(&self, span: Span) -> Range {
        let start = self.position(span.start);
        let end = self.position(span.end.max(span.start));
        Range::new(start, end)
    }

    /// The range of the whole text.
    pub fn whole(&self) -> Range {
        Range::new(Position::new(0, 0), self.position(self.text.len()))
    }

    /// The byte offset of a position. A line past the last is the end of the text, a
    /// character past its line's end is that end, and a position between the two halves of a
    /// surrogate pair is the start of that character.
    pub fn offset(&self, pos: Position) -> usize {
        let line = pos.line as usize;
        let Some(&start) = self.starts.get(line) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let content = self.text[start..end].trim_end_matches(['\n', '\r']);
        let wanted = pos.character as usize;
        let mut units = 0;
        for (i, c) in content.char_indices() {
            if units + c.len_utf16() > wanted {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + content.len()
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    #[test]
    fn ascii_offsets_are_line_and_column_from_zero() {
        let t = "allow x;\ndeny y;\n";
        let ix = LineIndex::new(t);
        assert_eq!(ix.position(0), pos(0, 0));
        assert_eq!(ix.position(6), pos(0, 6));
        assert_eq!(ix.position(8), pos(0, 8), "the newline ends its line");
        assert_eq!(ix.position(9), pos(1, 0));
        assert_eq!(ix.position(t.len()), pos(2, 0));
        assert_eq!(
            ix.range(Span::new(14, 15)),
            Range::new(pos(1, 5), pos(1, 6))
        );
    }

    #[test]
    fn characters_are_counted_in_utf16_code_units() {
        // `é` is 2 bytes and 1 unit, `中` 3 bytes and 1 unit, `😀` 4 bytes and 2 units.
        let t = "allow bash(\"é中😀\") risk hgih;";
        let ix = LineIndex::new(t);
        let at = t.find("hgih").unwrap();
        assert_eq!(at, 29, "bytes");
        assert_eq!(t[..at].chars().count(), 23, "characters");
        assert_eq!(ix.position(at), pos(0, 24), "UTF-16 units");
        assert_eq!(ix.position(t.find('😀').unwrap()), pos(0, 14));
        assert_eq!(ix.position(t.find('😀').unwrap() + 4), pos(0, 16));
        assert_eq!(
            ix.range(Span::new(at, at + 4)),
            Range::new(pos(0, 24), pos(0, 28))
        );
    }

    #[test]
    fn an_offset_inside_a_character_or_past_the_end_is_clamped() {
        let t = "é😀\nx";
        let ix = LineIndex::new(t);
        assert_eq!(ix.position(1), pos(0, 0), "inside `é`");
        assert_eq!(ix.position(4), pos(0, 1), "inside `😀`");
        assert_eq!(ix.position(1000), pos(1, 1));
        assert_eq!(ix.whole(), Range::new(pos(0, 0), pos(1, 1)));
    }

    #[test]
    fn crlf_and_lone_cr_end_lines_and_are_not_characters() {
        let t = "ab\r\ncd\ref";
        let ix = LineIndex::new(t);
        assert_eq!(ix.position(2), pos(0, 2));
        assert_eq!(ix.position(3), pos(0, 2), "between `\\r` and `\\n`");
        assert_eq!(ix.position(4), pos(1, 0));
        assert_eq!(ix.position(7), pos(2, 0));
        assert_eq!(ix.offset(pos(1, 1)), 5);
        assert_eq!(ix.offset(pos(0, 99)), 2, "past the line's end is its end");
        assert_eq!(ix.offset(pos(2, 2)), 9);
    }

    #[test]
    fn positions_turn_back_into_the_same_offsets() {
        let t = "# ünïcödé 中文 😀\nallow bash(\"😀x\");\r\n\nend";
        let ix = LineIndex::new(t);
        for (i, _) in t.char_indices() {
            if t[..i].ends_with('\r') {
                continue; // inside `\r\n`: not a place a position names
            }
            assert_eq!(ix.offset(ix.position(i)), i, "offset {i}");
        }
        assert_eq!(ix.offset(ix.position(t.len())), t.len());
    }

    #[test]
    fn a_position_between_surrogate_halves_or_beyond_the_text_is_clamped() {
        let t = "a😀b\n";
        let ix = LineIndex::new(t);
        assert_eq!(ix.offset(pos(0, 2)), 1, "the middle of `😀` is its start");
        assert_eq!(ix.offset(pos(0, 3)), 5);
        assert_eq!(ix.offset(pos(7, 0)), t.len());
    }
}
