//! Compiling rules from the syntax tree into matchers, reporting every invalid pattern at its
//! string.

use std::sync::Arc;

use super::paths::{PathContext, PathGlob};
use super::pattern::Pattern;
use super::rule::{
    default_risk, CMatcher, CompiledRule, Either, RuleOrigin, Test, TextTest, ToolPattern,
};
use crate::diag::{did_you_mean, Diagnostic, Source};
use crate::knowledge::effects::Kind;
use crate::policy::ast::{self, Action, MatcherKind, Span};

/// Compiles rules, reporting every invalid pattern at its string.
pub struct Compiler<'a> {
    pub ctx: &'a PathContext,
    pub diags: Vec<Diagnostic>,
    /// The action of the rule being compiled: allow rules anchor bare file names in the project.
    within_cwd: bool,
    /// Which forms of shorthand and glob values the rule being compiled needs.
    forms: Forms,
    /// Whether a tool name close to one of harness9's is warned about (not in the shipped
    /// policies, whose tests pass: the check is most of compiling a bare `allow Tool;`).
    pub typos: bool,
}

#[derive(Debug, Clone, Copy)]
struct Forms {
    text: bool,
    path: bool,
}

impl<'a> Compiler<'a> {
    pub fn new(ctx: &'a PathContext) -> Self {
        Compiler {
            ctx,
            diags: Vec::new(),
            within_cwd: false,
            forms: Forms {
                text: true,
                path: true,
            },
            typos: true,
        }
    }

    /// A tool name that is not harness9's but nearly is (`Bash`, `bsh`, `read_fle`): a rule no
    /// call will ever meet, so it is said (a warning: hook adapters pass other agents' tool
    /// names through, `Grep` or `WebFetch`, and those are left alone).
    fn likely_typo(&mut self, source: &Arc<Source>, tool: &ast::Spanned<ast::Text>) {
        let name = &*tool.value;
        if let Some(t) = crate::call::likely_tool(name) {
            self.diags.push(
                Diagnostic::warning(
                    source,
                    "unknown-tool",
                    tool.span,
                    format!("no call names the tool `{name}`, so this rule never matches"),
                )
                .help(format!(
                    "did you mean `{t}`? harness9's tools are `bash`, `read_file`, \
                     `write_file`, `edit_file`, `list_dir`, MCP tools (`mcp__server__tool`) and \
                     the agents' own tool names"
                )),
            );
        }
    }

    /// Compiles one rule; `None` (with diagnostics) when any part of it is invalid.
    pub fn rule(&mut self, source: &Arc<Source>, r: &ast::Rule) -> Option<CompiledRule> {
        let tool = if r.tool.value.contains(['*', '?']) {
            match Pattern::of_word(&r.tool.value) {
                Ok(p) => ToolPattern::Glob(p),
                Err(e) => {
                    self.bad_pattern(source, r.tool.span, &r.tool.value, &e);
                    return None;
                }
            }
        } else {
            if self.typos {
                self.likely_typo(source, &r.tool);
            }
            ToolPattern::Name(r.tool.value.to_string())
        };
        self.within_cwd = r.action.value == Action::Allow;
        self.forms = match &tool {
            ToolPattern::Name(n) if crate::call::is_file_tool(n) => Forms {
                text: false,
                path: true,
            },
            ToolPattern::Name(_) => Forms {
                text: true,
                path: false,
            },
            ToolPattern::Glob(_) => Forms {
                text: true,
                path: true,
            },
        };
        let mut ok = true;
        let mut matchers = Vec::with_capacity(r.matchers.as_ref().map_or(0, Vec::len));
        for m in r.matchers.iter().flatten() {
            match self.matcher(source, m) {
                Some(c) => matchers.push(c),
                None => ok = false,
            }
        }
        let mut unless = Vec::new();
        for group in &r.unless {
            let mut g = Vec::new();
            for m in group {
                match self.matcher(source, m) {
                    Some(c) => g.push(c),
                    None => ok = false,
                }
            }
            unless.push(g);
        }
        if !ok {
            return None;
        }
        let action = r.action.value;
        let risk = r
            .risk
            .as_ref()
            .map(|r| r.value)
            .unwrap_or(default_risk(action));
        let head_end = match r.matchers.as_ref().and_then(|m| m.last()) {
            Some(last) => {
                let after = &source.text[last.span.end.min(source.text.len())..];
                last.span.end + after.find(')').map_or(0, |i| i + 1)
            }
            None => r.tool.span.end,
        };
        Some(CompiledRule {
            action,
            risk,
            written_reason: r.reason.as_ref().map(|r| r.value.to_string()),
            profile: (action == Action::Sandbox).then(|| {
                r.profile
                    .as_ref()
                    .map_or(crate::sandbox::DEFAULT_PROFILE.to_string(), |p| {
                        p.value.to_string()
                    })
            }),
            origin: RuleOrigin::new(source, r.span),
            tool,
            matchers,
            unless,
            head: Span::new(r.tool.span.start, head_end),
        })
    }

    fn bad_pattern(
        &mut self,
        source: &Arc<Source>,
        span: Span,
        text: &str,
        e: &dyn std::fmt::Display,
    ) {
        self.diags.push(
            Diagnostic::error(
                source,
                "invalid-glob",
                span,
                format!("invalid glob `{text}`"),
            )
            .label(e.to_string())
            .help("globs use `*`, `?`, `[abc]`, `{a,b}` and `**`; escape a literal with `\\`"),
        );
    }

    /// Compiles one matcher; `None` (with diagnostics) when any of its values is invalid.
    pub fn matcher(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<CMatcher> {
        let arg = m
            .arg
            .as_ref()
            .map(|a| a.value.split('.').map(str::to_string).collect());
        let test = match m.kind {
            MatcherKind::Shorthand | MatcherKind::Glob => self.glob_test(source, m),
            MatcherKind::Prefix => Some(self.prefix_test(m)),
            MatcherKind::Contains => Some(Test::Contains(
                m.values.iter().map(|v| v.value.clone()).collect(),
            )),
            MatcherKind::Exact => Some(self.exact_test(m)),
            MatcherKind::Regex => self.regex_test(source, m),
            MatcherKind::Path | MatcherKind::Redirect => self.path_test(source, m),
            MatcherKind::Flag => self.flag_test(source, m),
            MatcherKind::Program
            | MatcherKind::Argument
            | MatcherKind::Operand
            | MatcherKind::Subcommand
            | MatcherKind::Host => self.word_test(source, m),
            MatcherKind::Piped => Some(Test::Piped),
            MatcherKind::SelfCall => Some(Test::SelfCall),
            MatcherKind::ReadOnly => Some(Test::ReadOnly),
            MatcherKind::Unknown => Some(Test::Unknown),
            MatcherKind::Secret => Some(Test::Secret),
            MatcherKind::Outside => Some(Test::Outside),
            MatcherKind::Disposable => Some(Test::Disposable),
            MatcherKind::Effect => self.effect_test(source, m),
        }?;
        Some(CMatcher { arg, test })
    }

    /// A shorthand or glob matcher: each value as text, as a path, or both, as the tool needs.
    fn glob_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        let mut vs = Vec::with_capacity(m.values.len());
        // Only the forms the rule's tool can meet are compiled.
        let need_text = self.forms.text || m.arg.is_some();
        let need_path = self.forms.path && m.arg.is_none();
        for v in &m.values {
            let text = if !need_text {
                None
            } else if m.kind == MatcherKind::Shorthand && !v.value.contains('*') {
                Some(TextTest::Contains(v.value.clone()))
            } else {
                match Pattern::of_word(&v.value) {
                    Ok(p) => Some(TextTest::Glob(p)),
                    Err(e) => {
                        self.bad_pattern(source, v.span, &v.value, &e);
                        ok = false;
                        continue;
                    }
                }
            };
            let path = if !need_path {
                None
            } else {
                match PathGlob::new(&v.value, self.ctx, self.within_cwd) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        self.bad_pattern(source, v.span, &v.value, &e);
                        ok = false;
                        continue;
                    }
                }
            };
            vs.push(Either { text, path });
        }
        let test = if m.kind == MatcherKind::Shorthand {
            Test::Shorthand(vs)
        } else {
            Test::Glob(vs)
        };
        ok.then_some(test)
    }

    /// A prefix matcher: each value as words and as a resolved path.
    fn prefix_test(&self, m: &ast::Matcher) -> Test {
        Test::Prefix(
            m.values
                .iter()
                .map(|v| {
                    (
                        v.value.split_whitespace().map(str::to_string).collect(),
                        self.ctx.resolve(&v.value),
                    )
                })
                .collect(),
        )
    }

    /// An exact matcher: each value as written and as a resolved path.
    fn exact_test(&self, m: &ast::Matcher) -> Test {
        Test::Exact(
            m.values
                .iter()
                .map(|v| (v.value.to_string(), self.ctx.resolve(&v.value)))
                .collect(),
        )
    }

    /// A regex matcher, each regex's size bounded.
    fn regex_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        let mut vs = Vec::with_capacity(m.values.len());
        for v in &m.values {
            match regex::RegexBuilder::new(&v.value)
                .size_limit(1 << 20)
                .build()
            {
                Ok(r) => vs.push(r),
                Err(e) => {
                    ok = false;
                    self.diags.push(
                        Diagnostic::error(source, "invalid-regex", v.span, format!("invalid regex `{}`", v.value))
                            .label(first_line(&e.to_string()))
                            .help("regexes use Rust `regex` syntax; write them in 'single quotes' to keep backslashes"),
                    );
                }
            }
        }
        ok.then_some(Test::Regex(vs))
    }

    /// A path or redirect matcher: each value as a path glob.
    fn path_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        let mut vs = Vec::with_capacity(m.values.len());
        for v in &m.values {
            match PathGlob::new(&v.value, self.ctx, self.within_cwd) {
                Ok(p) => vs.push(p),
                Err(e) => {
                    ok = false;
                    self.bad_pattern(source, v.span, &v.value, &e);
                }
            }
        }
        let test = if m.kind == MatcherKind::Path {
            Test::Path(vs)
        } else {
            Test::Redirect(vs)
        };
        ok.then_some(test)
    }

    /// A flag matcher: every value must be written with its dashes.
    fn flag_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        for v in &m.values {
            if !v.value.starts_with('-') || v.value == "-" || v.value == "--" {
                ok = false;
                self.diags.push(
                    Diagnostic::error(
                        source,
                        "bad-matcher",
                        v.span,
                        format!("`{}` is not a flag", v.value),
                    )
                    .help("write a flag with its dashes: `-r` or `--recursive`"),
                );
            }
        }
        ok.then_some(Test::Flag(
            m.values.iter().map(|v| v.value.to_string()).collect(),
        ))
    }

    /// A program, argument, operand, subcommand or host matcher: each value as a word glob
    /// (a host's in lower case).
    fn word_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        let mut vs = Vec::with_capacity(m.values.len());
        for v in &m.values {
            let pattern = if m.kind == MatcherKind::Host {
                Pattern::command(&v.value.to_ascii_lowercase())
            } else {
                Pattern::of_word(&v.value)
            };
            match pattern {
                Ok(p) => vs.push(p),
                Err(e) => {
                    ok = false;
                    self.bad_pattern(source, v.span, &v.value, &e);
                }
            }
        }
        let test = match m.kind {
            MatcherKind::Host => Test::Host(vs),
            MatcherKind::Program => Test::Program(vs),
            MatcherKind::Operand => Test::Operand(vs),
            MatcherKind::Subcommand => Test::Subcommand(vs),
            _ => Test::Argument(vs),
        };
        ok.then_some(test)
    }

    /// An effect matcher: each value must name a kind of effect.
    fn effect_test(&mut self, source: &Arc<Source>, m: &ast::Matcher) -> Option<Test> {
        let mut ok = true;
        let mut kinds = Vec::new();
        for v in &m.values {
            match Kind::parse(&v.value) {
                Some(k) => kinds.push(k),
                None => {
                    ok = false;
                    let help = match did_you_mean(&v.value, Kind::names()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => {
                            format!("effects: {}", Kind::names().collect::<Vec<_>>().join(", "))
                        }
                    };
                    self.diags.push(
                        Diagnostic::error(
                            source,
                            "bad-matcher",
                            v.span,
                            format!("`{}` is not an effect", v.value),
                        )
                        .help(help),
                    );
                }
            }
        }
        ok.then_some(Test::Effect(kinds))
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .to_string()
}
