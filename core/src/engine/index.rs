//! The index of one rule chain. A decision looks up the few rules that can match a subject —
//! by tool name, by the command's first word, by exact text, by the literal substrings of
//! patterns (one Aho-Corasick pass), by the folders of path patterns — and checks only those,
//! in rule order. Rules no index can narrow (regexes, flag-only rules) are always checked.
//!
//! The index only ever proposes candidates; the rule itself decides, so an index can be wrong
//! only by proposing too many, never by hiding a match.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use memchr::memmem;

use super::pattern::Pattern;
use super::rule::{CMatcher, CommandView, CompiledRule, Target, Test, TextTest, ToolPattern};
use crate::policy::ast::Text;

pub type RuleId = u32;

/// The index's maps, looked up for every subject of every call: hashed with foldhash (their keys
/// are the policies', not a caller's).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A bucket with at most this many literal substrings looks for them one by one: cheaper than
/// building an automaton, which an engine built for one call (the hook's) would use once.
const SCANNED_KEYS: usize = 16;

/// A bucket with more keys still looks for them one by one for its first this many lookups:
/// building the automaton cost some 350,000 instructions of a hook process (callgrind, the
/// shipped policies' bash bucket), far more than one scan of a command's text, so an engine
/// that decides one call (the hook's) never builds it, and one that decides many (the TUI's,
/// a batch) builds it early.
const SCANNED_LOOKUPS: u32 = 32;

#[derive(Debug, Default)]
pub struct ChainIndex {
    by_tool: HashMap<String, Bucket>,
    /// Rules whose tool is a glob, grouped by the glob.
    by_tool_glob: Vec<ToolGlob>,
    /// Tool globs that are a literal prefix and `*` (`mcp__github__*`), by that prefix.
    glob_by_prefix: HashMap<String, Vec<usize>>,
    /// The other tool globs, tried one by one.
    glob_residue: Vec<usize>,
}

#[derive(Debug)]
struct ToolGlob {
    /// For residue globs; `None` proposes the bucket for every tool (always safe).
    matcher: Option<Pattern>,
    bucket: Bucket,
}

#[derive(Debug, Default)]
struct Bucket {
    cmd_always: Vec<RuleId>,
    first_word: HashMap<Text, Vec<RuleId>>,
    exact: HashMap<Text, Vec<RuleId>>,
    /// Rules whose every match starts with a literal (`git commit *`), by that literal; a
    /// command's text is looked up by each of `prefix_lens` (sorted, distinct).
    prefix: HashMap<Text, Vec<RuleId>>,
    prefix_lens: Vec<usize>,
    substr_keys: Vec<Text>,
    /// A searcher for each of `substr_keys` when they are looked for one by one, made at the
    /// first lookup (`str::contains` set one up per key and text).
    substr_finders: OnceLock<Vec<memmem::Finder<'static>>>,
    substr_rules: Vec<Vec<RuleId>>,
    substr_slot: HashMap<Text, usize>,
    /// For more than [`SCANNED_KEYS`] keys, built after [`SCANNED_LOOKUPS`] lookups; `None`
    /// when it could not be built (too large), and every rule with a key is a candidate.
    substr: OnceLock<Option<AhoCorasick>>,
    /// Lookups so far that scanned more than [`SCANNED_KEYS`] keys.
    scans: AtomicU32,
    path_always: Vec<RuleId>,
    path_dirs: HashMap<PathBuf, Vec<RuleId>>,
    other: Vec<RuleId>,
}

/// Keys borrowed from the binary where the shipped policies' words are (see [`Pattern::text_of`]).
enum CmdKeys {
    FirstWord(Vec<Text>),
    Exact(Vec<Text>),
    Prefix(Vec<Text>),
    Substr(Vec<Text>),
}

impl ChainIndex {
    pub fn build(rules: &[CompiledRule]) -> ChainIndex {
        let mut idx = ChainIndex::default();
        let mut glob_slots: HashMap<&str, usize> = HashMap::default();
        for (i, r) in rules.iter().enumerate() {
            let id = i as RuleId;
            let bucket = match &r.tool {
                ToolPattern::Name(n) => idx.by_tool.entry(n.clone()).or_default(),
                ToolPattern::Glob(g) => {
                    let slot = match glob_slots.get(&*g.text) {
                        Some(slot) => *slot,
                        None => {
                            let slot = idx.by_tool_glob.len();
                            let matcher = match g.as_prefix() {
                                Some(prefix) => {
                                    idx.glob_by_prefix
                                        .entry(prefix.to_string())
                                        .or_default()
                                        .push(slot);
                                    None
                                }
                                None => {
                                    idx.glob_residue.push(slot);
                                    Pattern::command(&g.text).ok()
                                }
                            };
                            idx.by_tool_glob.push(ToolGlob {
                                matcher,
                                bucket: Bucket::default(),
                            });
                            glob_slots.insert(&g.text, slot);
                            slot
                        }
                    };
                    &mut idx.by_tool_glob[slot].bucket
                }
            };
            bucket.insert(id, r);
        }
        for b in idx
            .by_tool
            .values_mut()
            .chain(idx.by_tool_glob.iter_mut().map(|g| &mut g.bucket))
        {
            b.finish();
        }
        idx
    }

    /// How many buckets have built their substring automaton (for tests).
    #[cfg(test)]
    fn automata(&self) -> usize {
        self.by_tool
            .values()
            .chain(self.by_tool_glob.iter().map(|g| &g.bucket))
            .filter(|b| b.substr.get().is_some())
            .count()
    }

    /// Candidate rule ids for a subject, sorted, without duplicates.
    pub fn candidates(&self, tool: &str, target: &Target, out: &mut Vec<RuleId>) {
        out.clear();
        if let Some(b) = self.by_tool.get(tool) {
            b.candidates(target, out);
        }
        if !self.glob_by_prefix.is_empty() {
            let ends = tool
                .char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(tool.len()));
            for end in ends {
                for &slot in self.glob_by_prefix.get(&tool[..end]).into_iter().flatten() {
                    self.by_tool_glob[slot].bucket.candidates(target, out);
                }
            }
        }
        for &slot in &self.glob_residue {
            let g = &self.by_tool_glob[slot];
            if g.matcher.as_ref().is_none_or(|m| m.is_match(tool)) {
                g.bucket.candidates(target, out);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

impl Bucket {
    fn insert(&mut self, id: RuleId, r: &CompiledRule) {
        self.other.push(id);
        match r.matchers.iter().find_map(cmd_keys) {
            Some(CmdKeys::FirstWord(ws)) => {
                for w in ws {
                    self.first_word.entry(w).or_default().push(id);
                }
            }
            Some(CmdKeys::Exact(xs)) => {
                for x in xs {
                    self.exact.entry(x).or_default().push(id);
                }
            }
            Some(CmdKeys::Prefix(ps)) => {
                for p in ps {
                    if !self.prefix_lens.contains(&p.len()) {
                        self.prefix_lens.push(p.len());
                    }
                    self.prefix.entry(p).or_default().push(id);
                }
            }
            Some(CmdKeys::Substr(ks)) => {
                for k in ks {
                    let slot = match self.substr_slot.get(&k) {
                        Some(s) => *s,
                        None => {
                            self.substr_keys.push(k.clone());
                            self.substr_rules.push(Vec::new());
                            self.substr_slot.insert(k, self.substr_keys.len() - 1);
                            self.substr_keys.len() - 1
                        }
                    };
                    self.substr_rules[slot].push(id);
                }
            }
            None => self.cmd_always.push(id),
        }
        match r.matchers.iter().find_map(path_keys) {
            Some(dirs) => {
                for d in dirs {
                    self.path_dirs.entry(d).or_default().push(id);
                }
            }
            None => self.path_always.push(id),
        }
    }

    fn finish(&mut self) {
        self.prefix_lens.sort_unstable();
        self.substr_slot = HashMap::default();
    }

    /// The rules whose literal substrings `text` holds.
    fn substr_candidates(&self, text: &str, out: &mut Vec<RuleId>) {
        let rules = &self.substr_rules;
        let scan = self.substr_keys.len() <= SCANNED_KEYS
            || (self.substr.get().is_none()
                && self.scans.fetch_add(1, Ordering::Relaxed) < SCANNED_LOOKUPS);
        if scan {
            let finders = self.substr_finders.get_or_init(|| {
                self.substr_keys
                    .iter()
                    .map(|key| memmem::Finder::new(key.as_bytes()).into_owned())
                    .collect()
            });
            for (key, ids) in finders.iter().zip(rules) {
                if key.find(text.as_bytes()).is_some() {
                    out.extend_from_slice(ids);
                }
            }
            return;
        }
        // A contiguous NFA rather than the DFA the builder picks for few patterns: building the
        // DFA cost more than a hook process's whole search.
        let ac = self.substr.get_or_init(|| {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(self.substr_keys.iter().map(|k| k.as_bytes()))
                .ok()
        });
        match ac {
            Some(ac) => {
                for m in ac.find_overlapping_iter(text) {
                    out.extend_from_slice(&rules[m.pattern().as_usize()]);
                }
            }
            None => rules.iter().for_each(|ids| out.extend_from_slice(ids)),
        }
    }

    fn candidates(&self, target: &Target, out: &mut Vec<RuleId>) {
        match target {
            Target::Command(c) => self.command_candidates(c, out),
            Target::File(p) => {
                out.extend_from_slice(&self.path_always);
                for a in p.ancestors() {
                    if let Some(ids) = self.path_dirs.get(a) {
                        out.extend_from_slice(ids);
                    }
                }
            }
            Target::Other => out.extend_from_slice(&self.other),
        }
    }

    fn command_candidates(&self, c: &CommandView, out: &mut Vec<RuleId>) {
        out.extend_from_slice(&self.cmd_always);
        let texts: &[&str] = if c.literal == c.canonical {
            &[c.literal.as_str()]
        } else {
            &[c.literal.as_str(), c.canonical.as_str()]
        };
        let firsts = [c.literal_words.first(), c.canonical_words.first()];
        for (i, w) in firsts.iter().enumerate() {
            if let Some(w) = w {
                if i == 1 && firsts[0] == firsts[1] {
                    break;
                }
                if let Some(ids) = self.first_word.get(**w) {
                    out.extend_from_slice(ids);
                }
            }
        }
        for t in texts {
            if let Some(ids) = self.exact.get(*t) {
                out.extend_from_slice(ids);
            }
            for &n in self.prefix_lens.iter().take_while(|&&n| n <= t.len()) {
                if let Some(ids) = t.get(..n).and_then(|p| self.prefix.get(p)) {
                    out.extend_from_slice(ids);
                }
            }
            self.substr_candidates(t, out);
        }
    }
}

/// Index keys for commands from one matcher, if it narrows by the primary argument.
fn cmd_keys(m: &CMatcher) -> Option<CmdKeys> {
    if m.arg.is_some() {
        return None;
    }
    match &m.test {
        Test::Shorthand(vs) | Test::Glob(vs) => {
            let mut exact = Vec::new();
            let mut prefix = Vec::new();
            let mut substr = Vec::new();
            for v in vs {
                match v.text.as_ref()? {
                    TextTest::Contains(c) => substr.push(c.clone()),
                    TextTest::Glob(p) => {
                        match (p.exact(), p.anchored_prefix(), p.required_literal()) {
                            (Some(x), _, _) => exact.push(p.text_of(x)),
                            (None, Some(pre), _) => prefix.push(p.text_of(pre)),
                            (None, None, Some(lit)) => substr.push(p.text_of(lit)),
                            (None, None, None) => return None,
                        }
                    }
                }
            }
            // A list of several kinds goes to the loosest index: an exact value is its own
            // prefix, and contains itself, as a prefix does.
            if !substr.is_empty() {
                substr.extend(exact);
                substr.extend(prefix);
                Some(CmdKeys::Substr(substr))
            } else if !prefix.is_empty() {
                prefix.extend(exact);
                Some(CmdKeys::Prefix(prefix))
            } else {
                Some(CmdKeys::Exact(exact))
            }
        }
        Test::Prefix(vs) => {
            let firsts: Option<Vec<Text>> = vs
                .iter()
                .map(|(toks, _)| toks.first().cloned().map(Text::Owned))
                .collect();
            firsts.map(CmdKeys::FirstWord)
        }
        Test::Program(vs) => {
            let exact: Option<Vec<Text>> =
                vs.iter().map(|p| p.exact().map(|x| p.text_of(x))).collect();
            match exact {
                Some(words) => Some(CmdKeys::FirstWord(words)),
                None => vs
                    .iter()
                    .map(|p| p.required_literal().map(|x| p.text_of(x)))
                    .collect::<Option<Vec<_>>>()
                    .map(CmdKeys::Substr),
            }
        }
        Test::Contains(vs) if vs.iter().all(|v| !v.is_empty()) => Some(CmdKeys::Substr(vs.clone())),
        Test::Exact(vs) => Some(CmdKeys::Exact(
            vs.iter().map(|(v, _)| Text::Owned(v.clone())).collect(),
        )),
        _ => None,
    }
}

/// Index keys for paths: the literal folder each pattern is confined to.
fn path_keys(m: &CMatcher) -> Option<Vec<PathBuf>> {
    if m.arg.is_some() {
        return None;
    }
    let from_glob = |g: &super::paths::PathGlob| -> Option<PathBuf> {
        g.literal().or(g.literal_prefix.clone())
    };
    match &m.test {
        Test::Shorthand(vs) | Test::Glob(vs) => vs
            .iter()
            .map(|v| v.path.as_ref().and_then(from_glob))
            .collect(),
        Test::Path(vs) => vs.iter().map(from_glob).collect(),
        Test::Prefix(vs) => Some(vs.iter().map(|(_, p)| p.clone()).collect()),
        Test::Exact(vs) => Some(vs.iter().map(|(_, p)| p.clone()).collect()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::call::{Action, ToolCall};
    use crate::engine::{Engine, PathContext};

    /// `n` rules that each deny commands holding their own word, `k0z` … `kNz`, then an allow.
    fn engine(n: usize) -> Engine {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!("deny bash(contains \"k{i}z\");\n"));
        }
        text.push_str("allow bash;\n");
        Engine::builder()
            .context(PathContext::new("/work/p", Some("/home/u".into())))
            .builtin(false)
            .policy_text("keys.policy", text)
            .build()
            .unwrap()
    }

    /// A few keys are looked for one by one, many by an automaton once the engine has looked
    /// up enough commands: either way each rule is found by its key, in any place of the
    /// line, and only by it.
    #[test]
    fn literal_substrings_find_their_rules_whether_scanned_or_by_automaton() {
        for n in [3, super::SCANNED_KEYS, super::SCANNED_KEYS + 1, 40] {
            let e = engine(n);
            let probe = |round: &str| {
                for i in [0, n / 2, n - 1] {
                    let d = e.decide(&ToolCall::primary("bash", format!("echo a k{i}z b")));
                    assert_eq!(d.action, Action::Deny, "{n} keys, {round}, k{i}z: {d:?}");
                    assert_eq!(
                        d.rule.to_string(),
                        format!("keys.policy:{}", i + 1),
                        "{n} keys, {round}"
                    );
                }
                let d = e.decide(&ToolCall::primary("bash", "echo k z kz"));
                assert_eq!(d.action, Action::Allow, "{n} keys, {round}: {d:?}");
            };
            let automata =
                || -> usize { e.user_chains().iter().map(|c| c.index().automata()).sum() };
            probe("first lookups");
            assert_eq!(automata(), 0, "{n} keys: scanned at first");
            for j in 0..super::SCANNED_LOOKUPS {
                e.decide(&ToolCall::primary("bash", format!("echo x{j}")));
            }
            probe("later lookups");
            let built = usize::from(n > super::SCANNED_KEYS);
            assert_eq!(automata(), built, "{n} keys: by automaton later");
        }
    }

    /// The text a glob's rule is looked up by is in everything the glob matches, so no rule is
    /// hidden: `**/evil` matches `evil` (its `/` is optional), a class may hold a `]` first.
    #[test]
    fn a_glob_is_found_by_text_every_match_holds() {
        for (glob, command) in [
            ("**/evil", "evil"),
            ("**/evil", "x/evil"),
            ("[!]long]*", "rm -rf"),
        ] {
            let e = Engine::builder()
                .context(PathContext::new("/work/p", Some("/home/u".into())))
                .builtin(false)
                .policy_text(
                    "p.policy",
                    format!("deny bash(glob \"{glob}\");\nallow bash;\n"),
                )
                .build()
                .unwrap();
            let d = e.decide(&ToolCall::primary("bash", command));
            assert_eq!(d.action, Action::Deny, "{glob} on {command}: {d:?}");
        }
    }
}
