//! The commands a line runs, as the analysis gives them and every reader of them takes them:
//! simple commands, their words and redirections, and where they came from. This module
//! depends on nothing else in the crate: the shell analysis ([`crate::shell`]) makes these
//! values, and the program knowledge ([`crate::knowledge`]), the effects model and the engine
//! read them.

pub(crate) mod options;

/// Whether `prefix`, the part of a word before its first `=`, makes the word a `name=value`
/// (`if=…`, `PREFIX=…`) or `--flag=value` (`--file=…`, `-o=…`) whose value is read as a path.
pub(crate) fn assigned_name(prefix: &str) -> bool {
    let name = prefix
        .strip_prefix("--")
        .or_else(|| prefix.strip_prefix('-'))
        .unwrap_or(prefix);
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The value of a `name=value` or `--flag=value` word (see [`assigned_name`]), when it is one.
pub fn assigned_value(word: &str) -> Option<&str> {
    let (name, value) = word.split_once('=')?;
    assigned_name(name).then_some(value)
}

/// What analysing one command line found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    /// Every simple command the line would execute, in source order.
    pub commands: Vec<SimpleCommand>,
    /// Set when the line could not be analysed (syntax error, too long, too deep): the engine
    /// asks with high risk and this text as the reason.
    pub failure: Option<String>,
}

/// One executed simple command, normalised as the shell would run it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimpleCommand {
    /// `NAME=value` assignments before the command, quotes removed.
    pub assignments: Vec<String>,
    /// The words of the command, quotes removed; `argv[0]` is the program as written (`/bin/rm`).
    pub argv: Vec<Word>,
    /// Redirections of this command (including those of enclosing groups/subshells).
    pub redirects: Vec<Redirect>,
    /// Where the command came from.
    pub origin: Origin,
    /// The command reads its standard input from a pipe (a later stage of a pipeline).
    pub piped: bool,
    /// The command calls a function it is defined in (the shape of a fork bomb).
    pub self_call: bool,
    /// Variables whose values the command's words evaluate as code: as arithmetic (`(( x ))`,
    /// `$((x))`, `[[ $x -eq 1 ]]`, a subscript `a[x]`), as a name (`${!x}`) or as a prompt
    /// (`${x@P}`). bash runs a command substitution such a value holds (`x='a[$(id)]'`), so
    /// the line's values decide whether the command is understood (see
    /// [`crate::knowledge::evaluates_unknown`]). `$(…)` stands for the output of a command
    /// substitution evaluated so.
    pub evaluates: Vec<String>,
    /// Byte range of the command in the analysed text.
    pub span: (usize, usize),
}

/// A shell word after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Word {
    /// The text with quotes and backslash escapes removed. Expansions that cannot be known
    /// statically keep their source spelling (`$X`, `$(cmd)`).
    pub value: String,
    /// The word contains an expansion whose value is unknown (`$X`, `$(…)`, `` `…` ``), so its
    /// value at run time may differ from `value`.
    pub dynamic: bool,
    /// The word read as a path: an unquoted leading `~` and `$HOME` / `${HOME}` become a
    /// leading `~`; a quoted literal `~` becomes `./~` (a file named `~`). `None` when the word
    /// is dynamic in a way that is not about the home folder.
    ///
    /// A word of the shape `name=value` or `--flag=value` (the part before the first `=` an
    /// identifier or a flag: `if=~/.ssh/id_rsa`, `--file=$HOME/x`, `of=out.img`) is read as
    /// its value: bash expands a `~` after such an `=`, and `$HOME` there is as known as at the
    /// start of a word. So `dd if=~/.ssh/id_rsa` has the path `~/.ssh/id_rsa`.
    pub path: Option<String>,
}

impl Word {
    /// The word with its path read as written, not as the value after a `name=` or `--flag=`
    /// (see [`Word::path`]): what a redirection or a program run by its path names. A word with
    /// an expansion or a `~` after such a prefix has no known path then: bash expands them
    /// after the `=` in an argument but a redirection's `~` stays as written, and either way
    /// the file is below a folder named for the prefix.
    pub fn as_written(mut self) -> Word {
        let assigned = self
            .value
            .split_once('=')
            .is_some_and(|(name, _)| assigned_name(name));
        if assigned {
            let plain = !self.dynamic && !self.value.contains(['$', '`', '~']);
            self.path = plain.then(|| self.value.clone());
        }
        self
    }
}

/// `2> /dev/null`, `>> log.txt`, `< input`, `&> out`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirect {
    pub op: RedirectOp,
    /// File descriptor given before the operator, if any.
    pub fd: Option<u32>,
    pub target: Word,
    /// A here-document's text as written (its target is the delimiter): what the program
    /// reads, which a program with commands of its own may run (`sqlite3 <<EOF .shell …`).
    pub body: Option<String>,
}

/// A redirection's operator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum RedirectOp {
    /// `<`
    #[default]
    In,
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `&>`
    OutErr,
    /// `&>>`
    AppendOutErr,
    /// `<>`
    ReadWrite,
    /// `>&` (a descriptor copy, or `>& file`)
    DupOut,
    /// `<&`
    DupIn,
    /// `>&-`
    CloseOut,
    /// `<&-`
    CloseIn,
    /// `<<`
    HereDoc,
    /// `<<-`
    HereDocStrip,
    /// `<<<`
    HereString,
}

impl RedirectOp {
    const ALL: [RedirectOp; 14] = [
        RedirectOp::In,
        RedirectOp::Out,
        RedirectOp::Append,
        RedirectOp::Clobber,
        RedirectOp::OutErr,
        RedirectOp::AppendOutErr,
        RedirectOp::ReadWrite,
        RedirectOp::DupOut,
        RedirectOp::DupIn,
        RedirectOp::CloseOut,
        RedirectOp::CloseIn,
        RedirectOp::HereDoc,
        RedirectOp::HereDocStrip,
        RedirectOp::HereString,
    ];

    /// The operator as bash writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectOp::In => "<",
            RedirectOp::Out => ">",
            RedirectOp::Append => ">>",
            RedirectOp::Clobber => ">|",
            RedirectOp::OutErr => "&>",
            RedirectOp::AppendOutErr => "&>>",
            RedirectOp::ReadWrite => "<>",
            RedirectOp::DupOut => ">&",
            RedirectOp::DupIn => "<&",
            RedirectOp::CloseOut => ">&-",
            RedirectOp::CloseIn => "<&-",
            RedirectOp::HereDoc => "<<",
            RedirectOp::HereDocStrip => "<<-",
            RedirectOp::HereString => "<<<",
        }
    }

    /// The operator of this spelling; `None` for one the analysis does not know (the line is
    /// then not understood).
    pub fn parse(text: &str) -> Option<RedirectOp> {
        RedirectOp::ALL.into_iter().find(|op| op.as_str() == text)
    }

    /// Output goes to the target (`>`, `>>`, `&>`, `>&`, …).
    pub fn writes_output(self) -> bool {
        self.as_str().contains('>')
    }

    /// A here-document or here-string: text, not a file.
    pub fn is_here(self) -> bool {
        matches!(
            self,
            RedirectOp::HereDoc | RedirectOp::HereDocStrip | RedirectOp::HereString
        )
    }

    /// Input comes from the target (`<`, `<>`, `<&`, here-documents).
    pub fn reads_input(self) -> bool {
        self.as_str().starts_with('<')
    }
}

impl std::fmt::Display for RedirectOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Devices an output redirection may name without writing a file: the bit buckets and the
/// terminal's streams (`2>/dev/null`, `>/dev/tty`, `>/dev/fd/2`).
pub const HARMLESS_DEVICES: [&str; 7] = [
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/fd/1",
    "/dev/fd/2",
];

impl Redirect {
    /// Whether the redirection writes to its target.
    pub fn writes(&self) -> bool {
        self.op.writes_output()
    }

    /// A copy or close of a file descriptor (`>&2`, `2>&1`, `<&-`), which names no file; a
    /// target only known at run time is not one (`>& $F` may be a file).
    pub fn duplicates_fd(&self) -> bool {
        let t = self.target.value.as_str();
        matches!(self.op, RedirectOp::DupOut | RedirectOp::DupIn)
            && !self.target.dynamic
            && !t.is_empty()
            && (t == "-" || t.bytes().all(|b| b.is_ascii_digit()))
    }

    /// The redirection writes no file: a descriptor copy, or a harmless device.
    pub fn writes_no_file(&self) -> bool {
        self.duplicates_fd()
            || (!self.target.dynamic && HARMLESS_DEVICES.contains(&self.target.value.as_str()))
    }
}

/// Two readings of one command. Deny and ask rules match the canonical view, so that
/// re-spelling a command (`/bin/rm`, `FOO=1 rm`) cannot dodge them; allow rules match the
/// literal view, so that a look-alike (`./ls`, `LD_PRELOAD=x ls`) is never allowed by a rule
/// written for the real thing. Re-spelling therefore never loosens a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum View {
    /// Assignments, then the words as written (quotes removed).
    Literal,
    /// The words with the program's directory stripped, assignments left out.
    Canonical,
}

/// The syntactic place a simple command came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Origin {
    #[default]
    TopLevel,
    /// A stage of a pipeline (any stage).
    Pipeline,
    /// `$(…)` or back-ticks.
    CommandSubstitution,
    /// `<(…)` or `>(…)`.
    ProcessSubstitution,
    /// `( … )`.
    Subshell,
    /// `{ …; }`.
    Group,
    /// `if`, `while`, `until`, `for`, `case` bodies and conditions.
    Compound,
    /// The body of a function definition.
    Function,
    /// The command a wrapper runs: `rm -rf /` of `sudo rm -rf /`, `env X=1 …`, `nice …`,
    /// `xargs rm`, `find … -exec rm {} +`. The wrapper itself is emitted too.
    Wrapped,
    /// A string a shell executes: `bash -c '…'`, `eval …`, `su -c '…'`, `watch '…'`, a
    /// here-document or here-string fed to a shell. A payload whose text is only known when
    /// the command runs (`sh -c "$(curl …)"`, `eval "$X"`, `bash <(curl …)`) is a command
    /// whose program is dynamic.
    Payload,
    /// A command run on another host: `ssh host 'rm -rf /'`.
    Remote,
    /// A shell-out found in an interpreter one-liner: `python -c 'os.system("…")'`,
    /// `perl -e 'system "…"'`, `node -e "execSync('…')"`.
    Interpreter,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::TopLevel => "top level",
            Origin::Pipeline => "pipeline",
            Origin::CommandSubstitution => "command substitution",
            Origin::ProcessSubstitution => "process substitution",
            Origin::Subshell => "subshell",
            Origin::Group => "group",
            Origin::Compound => "compound statement",
            Origin::Function => "function body",
            Origin::Wrapped => "wrapped command",
            Origin::Payload => "shell string",
            Origin::Remote => "remote command",
            Origin::Interpreter => "interpreter shell-out",
        }
    }
}

impl SimpleCommand {
    /// The program with its directory stripped (`/bin/rm` → `rm`); empty for a command that is
    /// only assignments or redirections.
    pub fn program(&self) -> &str {
        self.argv
            .first()
            .map(|w| {
                // A byte scan: asked of every command many times per call, and `/` is ASCII,
                // so the slice after it starts on a character.
                match w.value.bytes().rposition(|b| b == b'/') {
                    Some(slash) => w.value.get(slash + 1..).unwrap_or(""),
                    None => &w.value,
                }
            })
            .unwrap_or("")
    }

    /// The words a rule matches, in one of two views (see [`View`]).
    pub fn words(&self, view: View) -> Vec<&str> {
        match view {
            View::Literal => self
                .assignments
                .iter()
                .map(String::as_str)
                .chain(self.argv.iter().map(|w| w.value.as_str()))
                .collect(),
            View::Canonical => {
                let mut out: Vec<&str> = self.argv.iter().map(|w| w.value.as_str()).collect();
                if let Some(first) = out.first_mut() {
                    *first = self.program();
                }
                out
            }
        }
    }

    /// The words as one single-spaced line: what command globs and substrings match against.
    pub fn text(&self, view: View) -> String {
        self.words(view).join(" ")
    }

    /// `-r` matches `-r`, `-rf`, `-fr` (short flags combine); `--recursive` matches `--recursive`
    /// and `--recursive=…`, and with `abbreviated` any prefix of it (`--rec`, `--rec=…`). Options
    /// end at `--`.
    pub fn gives_flag(&self, flag: &str, abbreviated: bool) -> bool {
        let long = flag.starts_with("--");
        let short = flag
            .strip_prefix('-')
            .filter(|f| !long && f.chars().count() == 1);
        for w in self.argv.iter().skip(1) {
            let a = w.value.as_str();
            if a == "--" {
                break;
            }
            if long {
                let name = a.split_once('=').map_or(a, |(n, _)| n);
                if name == flag || (abbreviated && name.len() > 2 && flag.starts_with(name)) {
                    return true;
                }
            } else if let Some(c) = short {
                if a.starts_with('-') && !a.starts_with("--") && a[1..].contains(c) {
                    return true;
                }
            } else if a == flag {
                return true;
            }
        }
        false
    }

    /// Whether the program's name is computed at run time (`$X -rf /`), so it cannot be judged.
    pub fn computed_program(&self) -> bool {
        self.argv.first().is_some_and(|w| w.dynamic)
    }
}
