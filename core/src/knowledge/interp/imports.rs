//! The names code gives modules and functions it imports, so that a call by such a name is
//! the module's: `import shutil as sh; sh.move(…)`, `from shutil import rmtree as r; r(…)`,
//! `const f = require("fs"); f.rmSync(…)`, `const { rm } = require("fs/promises")`,
//! `include FileUtils; rm_rf(…)`.

use std::sync::LazyLock;

use regex::Regex;

use super::paths::module_name;
use super::Lang;

/// What the code imports.
#[derive(Debug, Default)]
pub(super) struct Imports {
    /// A name given to a module (`sh` for `shutil`), with the module.
    modules: Vec<(String, String)>,
    /// A name given to a function of a module (`r` for `shutil.rmtree`): the name, the module,
    /// the function.
    functions: Vec<(String, String, String)>,
    /// Modules whose names are all imported (`from os import *`, `include FileUtils`).
    pub(super) star: Vec<String>,
}

impl Imports {
    /// The module a name stands for (`sh` → `shutil`), or the name itself.
    pub(super) fn module<'a>(&'a self, name: &'a str) -> &'a str {
        self.modules
            .iter()
            .find(|(alias, _)| alias == name)
            .map_or(name, |(_, m)| m.as_str())
    }

    /// The module and function a name called alone stands for (`r` → `shutil`, `rmtree`).
    pub(super) fn function(&self, name: &str) -> Option<(&str, &str)> {
        self.functions
            .iter()
            .find(|(alias, ..)| alias == name)
            .map(|(_, m, f)| (m.as_str(), f.as_str()))
    }
}

/// A pattern of the tables below (a test compiles each).
fn re(s: &str) -> Option<Regex> {
    Regex::new(s).ok()
}

/// Every capture of `r` in `code`.
fn all<'c>(r: &'c Option<Regex>, code: &'c str) -> impl Iterator<Item = regex::Captures<'c>> {
    r.iter().flat_map(move |r| r.captures_iter(code))
}

/// The patterns, for the test that they compile.
#[cfg(test)]
pub(super) fn patterns_compile() -> bool {
    [&PY_IMPORT, &PY_FROM, &JS_REQUIRE, &JS_IMPORT, &RUBY_INCLUDE]
        .iter()
        .all(|r| r.is_some())
}

static PY_IMPORT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(?m)(?:^|[;:])\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)")
});
static PY_FROM: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?m)(?:^|[;:])\s*from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^;\n]+)"));
static JS_REQUIRE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"\b(?:const|let|var)\s+(\w+|\{[^}]*\})\s*=\s*(?:await\s+)?require\s*\(\s*['"`]([^'"`]+)['"`]\s*\)(?:\s*\.\s*(\w+))?"#,
    )
});
static JS_IMPORT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"\bimport\s+(?:(\w+)\s*,?\s*)?(?:\*\s*as\s+(\w+)|(\{[^}]*\}))?\s*from\s*['"`]([^'"`]+)['"`]"#,
    )
});
static RUBY_INCLUDE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"\binclude\s+(FileUtils)(?:::\w+)?\b"));

/// The imports of `code`.
pub(super) fn imports(lang: Lang, code: &str) -> Imports {
    let mut out = Imports::default();
    match lang {
        Lang::Python => python(code, &mut out),
        Lang::Node | Lang::Deno => javascript(code, &mut out),
        Lang::Ruby => {
            for c in all(&RUBY_INCLUDE, code) {
                out.star.push(c[1].to_string());
            }
        }
        Lang::Perl | Lang::Php => {}
    }
    out
}

fn python(code: &str, out: &mut Imports) {
    if !code.contains("import") {
        return;
    }
    for c in all(&PY_IMPORT, code) {
        for part in c[1].split(',') {
            if let Some((module, alias)) = part.split_once(" as ") {
                let module = module.trim().rsplit('.').next().unwrap_or("");
                out.modules.push((alias.trim().into(), module.into()));
            }
        }
    }
    for c in all(&PY_FROM, code) {
        let module = c[1].rsplit('.').next().unwrap_or("").to_string();
        let list = c[2].trim_matches(|ch: char| ch == '(' || ch == ')' || ch.is_whitespace());
        for part in list.split(',') {
            let part = part.trim();
            if part == "*" {
                out.star.push(module.clone());
                continue;
            }
            let (name, alias) = part.split_once(" as ").unwrap_or((part, part));
            let (name, alias) = (name.trim(), alias.trim());
            if name.is_empty() || alias.is_empty() {
                continue;
            }
            // `from os import path as p`: a module too.
            out.modules.push((alias.into(), name.into()));
            out.functions
                .push((alias.into(), module.clone(), name.into()));
        }
    }
}

fn javascript(code: &str, out: &mut Imports) {
    if !code.contains("require") && !code.contains("import") {
        return;
    }
    for c in all(&JS_REQUIRE, code) {
        let module = match c.get(3) {
            Some(member) => member.as_str().to_string(),
            None => module_name(&c[2]),
        };
        destructure(&c[1], &module, out);
    }
    for c in all(&JS_IMPORT, code) {
        let module = module_name(&c[4]);
        for alias in [c.get(1), c.get(2)].into_iter().flatten() {
            out.modules.push((alias.as_str().into(), module.clone()));
        }
        if let Some(list) = c.get(3) {
            destructure(list.as_str(), &module, out);
        }
    }
}

/// `f` or `{ a, b: c, d as e }` given `module`'s members.
fn destructure(target: &str, module: &str, out: &mut Imports) {
    let Some(list) = target.strip_prefix('{') else {
        out.modules.push((target.trim().into(), module.into()));
        return;
    };
    for part in list.trim_end_matches('}').split(',') {
        let part = part.trim();
        let (name, alias) = part
            .split_once(':')
            .or_else(|| part.split_once(" as "))
            .unwrap_or((part, part));
        let (name, alias) = (name.trim(), alias.trim());
        if name.is_empty() || alias.is_empty() {
            continue;
        }
        // `{ promises: fsp }` is a module as well.
        out.modules.push((alias.into(), name.into()));
        out.functions
            .push((alias.into(), module.into(), name.into()));
    }
}
