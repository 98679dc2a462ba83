//! The input line: text with a cursor, the editing keys of a shell's line editor (Ctrl+A/E/U/W/K,
//! Home/End, ←/→), several lines, and the history of what was sent (↑/↓).
//!
//! The cursor is a byte index that always sits on a character boundary.

/// The text being typed and its cursor, with the history of sent messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputLine {
    text: String,
    cursor: usize,
    /// Sent messages, oldest first.
    history: Vec<String>,
    /// `Some(i)` while ↑/↓ show `history[i]`; the draft typed before is kept aside.
    browsing: Option<usize>,
    draft: String,
}

impl From<&str> for InputLine {
    fn from(text: &str) -> Self {
        let mut l = InputLine::default();
        l.set(text);
        l
    }
}

impl PartialEq<&str> for InputLine {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

/// History entries kept (in memory and in the history file).
pub const HISTORY_MAX: usize = 500;

impl InputLine {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text; the cursor goes to its end.
    pub fn set(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cursor = self.text.len();
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.browsing = None;
    }

    /// The text, leaving the line empty.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        self.browsing = None;
        std::mem::take(&mut self.text)
    }

    pub fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    pub fn insert_str(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    fn prev_boundary(&self, at: usize) -> usize {
        self.text[..at].char_indices().last().map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self, at: usize) -> usize {
        self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8())
    }

    pub fn backspace(&mut self) {
        if self.cursor == 0 {
            return;
        }
        let from = self.prev_boundary(self.cursor);
        self.text.replace_range(from..self.cursor, "");
        self.cursor = from;
    }

    pub fn delete(&mut self) {
        let to = self.next_boundary(self.cursor);
        self.text.replace_range(self.cursor..to, "");
    }

    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    /// The start of the cursor's line.
    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    /// The end of the cursor's line.
    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// Home, Ctrl+A: the start of the line.
    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    /// End, Ctrl+E: the end of the line.
    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    /// Ctrl+U: deletes from the start of the line to the cursor.
    pub fn kill_to_start(&mut self) {
        let from = self.line_start();
        self.text.replace_range(from..self.cursor, "");
        self.cursor = from;
    }

    /// Ctrl+K: deletes from the cursor to the end of the line.
    pub fn kill_to_end(&mut self) {
        let to = self.line_end();
        self.text.replace_range(self.cursor..to, "");
    }

    /// Ctrl+W: deletes the word before the cursor (and the blanks after it).
    pub fn kill_word(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches([' ', '\t']);
        let from = trimmed.rfind(|c: char| c.is_whitespace()).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        });
        self.text.replace_range(from..self.cursor, "");
        self.cursor = from;
    }

    /// The cursor's line and column (in characters), counting from 0.
    pub fn position(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let row = before.matches('\n').count();
        let col = before[self.line_start()..].chars().count();
        (row, col)
    }

    pub fn lines(&self) -> usize {
        self.text.matches('\n').count() + 1
    }

    /// Moves the cursor a line up (`-1`) or down (`1`), keeping its column when it can. False
    /// when there is no such line.
    pub fn vertical(&mut self, by: isize) -> bool {
        let (row, col) = self.position();
        let target = row as isize + by;
        if target < 0 || target as usize >= self.lines() {
            return false;
        }
        let mut start = 0;
        for (i, line) in self.text.split('\n').enumerate() {
            if i == target as usize {
                let off: usize = line.chars().take(col).map(char::len_utf8).sum();
                self.cursor = start + off;
                return true;
            }
            start += line.len() + 1;
        }
        false
    }

    /// The history, oldest first.
    pub fn history(&self) -> &[String] {
        &self.history
    }

    pub fn set_history(&mut self, entries: Vec<String>) {
        let skip = entries.len().saturating_sub(HISTORY_MAX);
        self.history = entries.into_iter().skip(skip).collect();
        self.browsing = None;
    }

    /// Remembers a sent message (not twice in a row).
    pub fn remember(&mut self, text: &str) {
        if text.trim().is_empty() || self.history.last().is_some_and(|l| l == text) {
            return;
        }
        self.history.push(text.to_string());
        if self.history.len() > HISTORY_MAX {
            self.history.remove(0);
        }
    }

    /// ↑: the previous message of the history (the draft is kept). False at the oldest.
    pub fn history_prev(&mut self) -> bool {
        let i = match self.browsing {
            None if self.history.is_empty() => return false,
            None => {
                self.draft = self.text.clone();
                self.history.len() - 1
            }
            Some(0) => return false,
            Some(i) => i - 1,
        };
        self.browsing = Some(i);
        self.set(self.history[i].clone());
        true
    }

    /// ↓: the next message of the history, then the draft again.
    pub fn history_next(&mut self) -> bool {
        let Some(i) = self.browsing else {
            return false;
        };
        if i + 1 < self.history.len() {
            self.browsing = Some(i + 1);
            self.set(self.history[i + 1].clone());
        } else {
            self.browsing = None;
            let draft = std::mem::take(&mut self.draft);
            self.set(draft);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> InputLine {
        let mut l = InputLine::default();
        l.set(text);
        l
    }

    #[test]
    fn typing_goes_in_at_the_cursor() {
        let mut l = line("helo");
        l.left();
        l.insert('l');
        assert_eq!(l.text(), "hello");
        l.home();
        l.insert('>');
        assert_eq!(l.text(), ">hello");
        l.end();
        l.insert('!');
        assert_eq!(l.text(), ">hello!");
    }

    #[test]
    fn cursor_keys_move_over_wide_characters_whole() {
        let mut l = line("工具ab");
        l.left();
        l.left();
        l.left();
        l.backspace();
        assert_eq!(l.text(), "具ab");
        l.delete();
        assert_eq!(l.text(), "ab");
        l.right();
        l.right();
        l.right();
        assert_eq!(l.cursor(), 2);
    }

    #[test]
    fn ctrl_u_k_and_w_delete_like_a_shell() {
        let mut l = line("git commit -m  msg");
        l.kill_word();
        assert_eq!(l.text(), "git commit -m  ");
        l.kill_word();
        assert_eq!(l.text(), "git commit ");
        l.home();
        l.right();
        l.right();
        l.right();
        l.kill_to_end();
        assert_eq!(l.text(), "git");
        l.kill_to_start();
        assert_eq!(l.text(), "");
    }

    #[test]
    fn line_keys_work_on_the_cursors_line_of_a_multi_line_input() {
        let mut l = line("first\nsecond");
        l.home();
        assert_eq!(l.position(), (1, 0));
        assert!(l.vertical(-1));
        assert_eq!(l.position(), (0, 0));
        l.end();
        assert_eq!(l.position(), (0, 5));
        assert!(!l.vertical(-1), "no line above the first");
        assert!(l.vertical(1));
        assert_eq!(l.position(), (1, 5));
        l.kill_to_start();
        assert_eq!(l.text(), "first\nd");
    }

    #[test]
    fn history_goes_back_and_returns_to_the_draft() {
        let mut l = InputLine::default();
        l.remember("one");
        l.remember("two");
        l.remember("two");
        assert_eq!(l.history(), ["one", "two"], "a repeat is kept once");
        l.set("draft");
        assert!(l.history_prev());
        assert_eq!(l.text(), "two");
        assert!(l.history_prev());
        assert_eq!(l.text(), "one");
        assert!(!l.history_prev(), "nothing older");
        assert!(l.history_next());
        assert_eq!(l.text(), "two");
        assert!(l.history_next());
        assert_eq!(l.text(), "draft");
        assert!(!l.history_next());
    }
}
