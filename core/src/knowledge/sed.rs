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

/// What a sed script does with files and commands beyond printing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SedIo {
    /// `w FILE`, `W FILE`, `s///w FILE`: writes the file.
    Write(String),
    /// `r FILE`, `R FILE`: reads the file into the output.
    Read(String),
    /// `e [COMMAND]`, `s///e`: runs a command.
    Exec,
}

/// What the scripts of a sed command (its `-e` values, `--expression=`, or its first operand)
/// write, read and run; a script from a file (`-f`) is not read, and counts as running code.
pub fn sed_io(cmd: &crate::command::SimpleCommand) -> Vec<SedIo> {
    let mut scripts = Vec::new();
    let mut out = Vec::new();
    let args = cmd.argv.get(1..).unwrap_or_default();
    let mut i = 0;
    let mut given = false;
    let mut first_operand = None;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        match v {
            "-e" | "--expression" => {
                scripts.extend(args.get(i + 1).map(|x| x.value.clone()));
                given = true;
                i += 2;
                continue;
            }
            "-f" | "--file" => {
                out.push(SedIo::Exec);
                given = true;
                i += 2;
                continue;
            }
            _ => {}
        }
        if let Some(s) = v.strip_prefix("--expression=") {
            scripts.push(s.to_string());
            given = true;
        } else if v.starts_with("-e") && !v.starts_with("--") && v.len() > 2 {
            scripts.push(v[2..].to_string());
            given = true;
        } else if !v.starts_with('-') && first_operand.is_none() {
            first_operand = Some(v.to_string());
        }
        i += 1;
    }
    if !given {
        scripts.extend(first_operand);
    }
    for script in scripts {
        if prints_only(&script) {
            continue;
        }
        for line in script.split('\n') {
            for part in line.split(';') {
                let part = part.trim_start().trim_start_matches('{').trim_start();
                let body = part.trim_start_matches(|c: char| {
                    c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '+' | '!' | ' ')
                });
                let body = skip_address_regex(body);
                let mut chars = body.chars();
                let (Some(c), rest) = (chars.next(), chars.as_str()) else {
                    continue;
                };
                let file = rest.trim().to_string();
                match c {
                    'w' | 'W' if rest.starts_with([' ', '\t']) || !rest.is_empty() => {
                        out.push(SedIo::Write(file))
                    }
                    'r' | 'R' if !file.is_empty() => out.push(SedIo::Read(file)),
                    'e' if rest.is_empty() || rest.starts_with([' ', '\t']) => {
                        out.push(SedIo::Exec)
                    }
                    's' => {
                        // The flags after the third delimiter: `w FILE`, `e`.
                        let mut cs = rest.chars();
                        if let Some(d) = cs.next() {
                            let fields: Vec<&str> = rest[d.len_utf8()..].splitn(3, d).collect();
                            if let Some(flags) = fields.get(2) {
                                if let Some(at) = flags.find('w') {
                                    out.push(SedIo::Write(flags[at + 1..].trim().to_string()));
                                } else if flags.contains('e') {
                                    out.push(SedIo::Exec);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The text after an address that is a regex (`/re/w f` gives `w f`).
fn skip_address_regex(body: &str) -> &str {
    let Some(rest) = body.strip_prefix('/') else {
        return body;
    };
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'/' => return rest[i + 1..].trim_start_matches(['I', 'M', '!', ' ']),
            _ => i += 1,
        }
    }
    body
}

/// The commands a sed script runs: the text after an `e` command (`1e rm -rf ~`); a
/// substitution with the `e` flag runs its pattern space, known only when it runs (`None`).
pub fn commands_run(script: &str) -> Vec<(Option<String>, bool)> {
    let mut out = Vec::new();
    for part in script.split([';', '\n']) {
        let part = part.trim_start().trim_start_matches('{').trim_start();
        let body = part.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, '$' | ',' | '~' | '+' | '!' | ' ')
        });
        if let Some(cmd) = body.strip_prefix('e') {
            if cmd.is_empty() || cmd.starts_with([' ', '\t']) {
                let cmd = cmd.trim();
                out.push(((!cmd.is_empty()).then(|| cmd.to_string()), false));
            }
        }
        if let Some(rest) = body.strip_prefix('s') {
            let mut chars = rest.chars();
            if let Some(delim) = chars.next() {
                let flags = rest.rsplit(delim).next().unwrap_or("");
                if rest.matches(delim).count() >= 3 && flags.contains('e') {
                    out.push((None, false));
                }
            }
        }
    }
    out
}

/// The files an awk program's `print` and `printf` statements write (`print > "out.txt"`,
/// `printf … >> f`): the literal name, or `None` for a name computed when it runs
/// (`print > ENVIRON["HOME"] "/.bashrc"`, `print > $2`). A `>` inside parentheses is a
/// comparison.
pub fn awk_writes(program: &str) -> Vec<Option<String>> {
    let chars: Vec<char> = program.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let word_at = |i: usize, w: &str| {
        let n = w.chars().count();
        chars
            .get(i..i + n)
            .is_some_and(|s| s.iter().copied().eq(w.chars()))
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'))
    };
    while i < chars.len() {
        // A string or a regular expression: skipped whole.
        if chars[i] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            continue;
        }
        if !(word_at(i, "print") || word_at(i, "printf")) {
            i += 1;
            continue;
        }
        // The statement, to its end: `;`, `}` or a new line outside parentheses and strings.
        let mut depth = 0usize;
        let mut j = i;
        let mut target = None;
        while j < chars.len() {
            match chars[j] {
                '"' => {
                    j += 1;
                    while j < chars.len() && chars[j] != '"' {
                        j += if chars[j] == '\\' { 2 } else { 1 };
                    }
                }
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ';' | '}' | '\n' if depth == 0 => break,
                '>' if depth == 0 && target.is_none() => {
                    let from = if chars.get(j + 1) == Some(&'>') {
                        j + 2
                    } else {
                        j + 1
                    };
                    target = Some(from);
                }
                _ => {}
            }
            j += 1;
        }
        if let Some(from) = target {
            let text: String = chars[from..j.min(chars.len())].iter().collect();
            let text = text.trim();
            let literal = text
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .filter(|t| !t.contains(['"', '\\']));
            out.push(literal.map(str::to_string));
        }
        i = j.max(i + 1);
    }
    out
}

/// The awk program of a command (its first operand, when no `-f` or `-e` gives one).
pub fn awk_program(cmd: &crate::command::SimpleCommand) -> Option<&str> {
    let args = cmd.argv.get(1..)?;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let v = w.value.as_str();
        match v {
            "-f" | "--file" | "-e" | "--source" | "-i" | "--include" => return None,
            "-F" | "-v" | "--assign" | "--field-separator" => i += 2,
            "--" => return args.get(i + 1).map(|w| w.value.as_str()),
            _ if v.starts_with('-') && v.len() > 1 => {
                if v.starts_with("-f") || v.starts_with("-e") || v.starts_with("--source=") {
                    return None;
                }
                i += 1;
            }
            _ => return Some(v),
        }
    }
    None
}

/// The commands an awk program runs: `system("…")`, `"…" | getline`, `print … | "…"`; one
/// whose command is not a literal is only known when it runs (`None`).
pub fn awk_commands(program: &str) -> Vec<(Option<String>, bool)> {
    let mut out = Vec::new();
    let mut rest = program;
    while let Some(i) = rest.find("system") {
        let after = rest[i + "system".len()..].trim_start();
        match after.strip_prefix('(').map(str::trim_start) {
            Some(arg) if arg.starts_with('"') => {
                let lit = &arg[1..];
                match lit.find('"') {
                    Some(end)
                        if !lit[..end].contains('\\')
                            && arg[1 + end + 1..].trim_start().starts_with(')') =>
                    {
                        out.push((Some(lit[..end].to_string()), false))
                    }
                    _ => out.push((None, false)),
                }
            }
            Some(_) => out.push((None, false)),
            None => {}
        }
        rest = &rest[i + "system".len()..];
    }
    // Pipes to and from commands: `| "cmd"`, `"cmd" |`.
    let bytes: Vec<char> = program.chars().collect();
    for (i, c) in bytes.iter().enumerate() {
        if *c != '|' || bytes.get(i + 1) == Some(&'|') || (i > 0 && bytes[i - 1] == '|') {
            continue;
        }
        let after: String = bytes[i + 1..].iter().collect();
        let after = after.trim_start();
        let before: String = bytes[..i].iter().collect();
        let before = before.trim_end();
        if let Some(lit) = after.strip_prefix('"').and_then(|a| a.split('"').next()) {
            out.push((Some(lit.to_string()), true));
        } else if before.ends_with('"') && after.starts_with("getline") {
            let lit = before[..before.len() - 1].rsplit('"').next().unwrap_or("");
            out.push((Some(lit.to_string()), false));
        } else {
            out.push((None, true));
        }
    }
    out
}

#[cfg(test)]
mod run_tests {
    use super::*;

    #[test]
    fn the_commands_sed_and_awk_scripts_run_are_found() {
        assert_eq!(
            commands_run("1e rm -rf /"),
            [(Some("rm -rf /".to_string()), false)]
        );
        assert_eq!(commands_run("s/x/y/e"), [(None, false)]);
        assert!(commands_run("1,20p;s/a/b/g").is_empty());
        assert_eq!(
            awk_commands("BEGIN{system(\"rm -rf /\")}"),
            [(Some("rm -rf /".to_string()), false)]
        );
        assert_eq!(awk_commands("{system($0)}"), [(None, false)]);
        assert_eq!(
            awk_commands("{print | \"sh\"}"),
            [(Some("sh".to_string()), true)]
        );
        assert_eq!(
            awk_commands("BEGIN{\"id\" | getline x}"),
            [(Some("id".to_string()), false)]
        );
        assert!(awk_commands("{print $1}").is_empty());
        assert_eq!(
            awk_writes("{ print > \"out.txt\" }"),
            [Some("out.txt".into())]
        );
        assert_eq!(
            awk_writes("{ printf \"%s\", $1 >> \"/x/.profile\" }"),
            [Some("/x/.profile".into())]
        );
        assert_eq!(
            awk_writes("{ print > ENVIRON[\"HOME\"] \"/.bashrc\" }"),
            [None]
        );
        assert_eq!(awk_writes("{ print $1 > $2 }"), [None]);
        assert!(awk_writes("{ if ($1 > 5) print $2 }").is_empty());
        assert!(awk_writes("{ print ($1 > 5) }").is_empty());
        assert!(awk_writes("{ print \"a > b\" }").is_empty());
        assert_eq!(awk_commands("{print $1 | cmd}"), [(None, true)]);
    }
}
