//! Whether a sed script only prints: the one program whose operand is code that the tables
//! cannot describe by role alone (`sed -n 1,20p f` reads; `sed '1e rm -rf ~' f` runs a
//! command; `sed 's/a/b/w out' f` writes).

/// Whether `script` is made only of commands that print or select lines: addresses (numbers,
/// `$`, `/regex/`, ranges, `!`), then `p d q Q n N = l P D g G h H x z F`, `{ }`, `y/…/…/`, or
/// `s/…/…/` with the flags `g p i I m M` and digits. Anything else (`e`, `w`, `r`, `a`, labels,
/// an `e` or `w` flag) is not understood: not read-only.
pub fn prints_only(script: &str) -> bool {
    let s: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_whitespace() || c == ';' || c == '{' || c == '}' {
            i += 1;
            continue;
        }
        let Some(after) = address_range(&s, i) else {
            return false;
        };
        i = skip_blanks(&s, after);
        if s.get(i) == Some(&'!') {
            i = skip_blanks(&s, i + 1);
        }
        match s.get(i) {
            // A block opens: its commands follow.
            Some('{') => {
                i += 1;
                continue;
            }
            Some(
                'p' | 'd' | 'n' | 'N' | '=' | 'l' | 'P' | 'D' | 'g' | 'G' | 'h' | 'H' | 'x' | 'z'
                | 'F' | '}',
            ) => i += 1,
            Some('q' | 'Q') => {
                i += 1;
                while s.get(i).is_some_and(char::is_ascii_digit) {
                    i += 1;
                }
            }
            Some('s') => match substitution(&s, i + 1) {
                Some(next) => i = next,
                None => return false,
            },
            Some('y') => match delimited(&s, i + 1, 2) {
                Some(next) => i = next,
                None => return false,
            },
            // An address alone (`sed -n 5`) is not a script sed takes.
            _ => return false,
        }
        // Only a separator may follow a command.
        i = skip_blanks(&s, i);
        if !matches!(s.get(i), None | Some(';' | '\n' | '}')) {
            return false;
        }
    }
    true
}

fn skip_blanks(s: &[char], mut i: usize) -> usize {
    while s.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    i
}

/// An optional address or `a,b` range from `i`; the index after it.
fn address_range(s: &[char], i: usize) -> Option<usize> {
    let Some(mut i) = address(s, i) else {
        return Some(i);
    };
    if s.get(i) == Some(&',') {
        i += 1;
        if matches!(s.get(i), Some('+' | '~')) {
            i += 1;
        }
        i = address(s, i)?;
    } else if s.get(i) == Some(&'~') {
        i = address(s, i + 1)?;
    }
    Some(i)
}

/// One address at `i` (`12`, `$`, `/re/` with `I`/`M`): the index after it, `None` if there
/// is none.
fn address(s: &[char], i: usize) -> Option<usize> {
    match s.get(i)? {
        c if c.is_ascii_digit() => {
            let mut j = i;
            while s.get(j).is_some_and(char::is_ascii_digit) {
                j += 1;
            }
            Some(j)
        }
        '$' => Some(i + 1),
        '/' => {
            let mut j = regex_end(s, i + 1, '/')?;
            while matches!(s.get(j), Some('I' | 'M')) {
                j += 1;
            }
            Some(j)
        }
        _ => None,
    }
}

/// The index after the closing `delim` of a regex or replacement starting at `i`.
fn regex_end(s: &[char], mut i: usize, delim: char) -> Option<usize> {
    while let Some(c) = s.get(i) {
        match c {
            '\\' => i += 2,
            '\n' => return None,
            c if *c == delim => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// `parts` delimited fields after the delimiter at `i` (`y/abc/xyz/`).
fn delimited(s: &[char], i: usize, parts: usize) -> Option<usize> {
    let delim = *s.get(i)?;
    if delim == '\\' || delim == '\n' || delim.is_whitespace() {
        return None;
    }
    let mut j = i + 1;
    for _ in 0..parts {
        j = regex_end(s, j, delim)?;
    }
    Some(j)
}

/// `s/re/replacement/flags` from the delimiter at `i`: flags that only print or select.
fn substitution(s: &[char], i: usize) -> Option<usize> {
    let mut j = delimited(s, i, 2)?;
    while let Some(c) = s.get(j) {
        match c {
            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => j += 1,
            c if c.is_ascii_digit() => j += 1,
            ';' | '\n' | '}' | ' ' | '\t' => break,
            _ => return None,
        }
    }
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::prints_only;

    #[test]
    fn printing_scripts_are_read_only_and_the_rest_is_not() {
        for script in [
            "1,20p",
            "p",
            "/^#/d",
            "s/foo/bar/gp",
            "s|a/b|c|g",
            "10q",
            "$p",
            "/start/,/end/p",
            "1~2p",
            "2,+3p",
            "/x/!d",
            "y/abc/xyz/",
            "s/a\\/b/c/;p",
            "/a/{p;q}",
        ] {
            assert!(prints_only(script), "{script}");
        }
        for script in [
            "1e rm -rf ~",
            "e id",
            "s/a/b/w out",
            "s/a/b/e",
            "w out",
            "1w /tmp/x",
            "r /etc/passwd",
            "R f",
            "a text",
            ":a;N;ba",
            "5",
            "s/a/b",
            "p w",
            "s/a/b/gw x",
        ] {
            assert!(!prints_only(script), "{script}");
        }
    }
}
