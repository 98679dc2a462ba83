//! The walk rules read the program tables: every program and option the tables mark is what
//! [`walks_folders`] and [`follows_links`] find, and nothing else.

use super::*;
use crate::engine::paths::PathContext;
use crate::knowledge::{registry, Program};
use crate::shell::analyse;

/// What `line` does, as `(walks_folders, follows_links)`.
fn walk(line: &str) -> (bool, bool) {
    let ctx = PathContext::new("/work/proj", Some("/home/u".into()));
    let analysis = analyse(line);
    // The command itself (a `find -exec` also runs its command, decided on its own).
    let program = line.split(' ').next().unwrap_or_default();
    let Some(cmd) = analysis.commands.iter().find(|c| c.program() == program) else {
        panic!("{line}: no command");
    };
    let view = CommandView::new(cmd, &ctx);
    (walks_folders(&view), follows_links(&view))
}

/// Every table by every name it is written for (aliases too), with its subcommands.
fn tables() -> Vec<(String, &'static Program)> {
    fn add(name: String, p: &'static Program, out: &mut Vec<(String, &'static Program)>) {
        for (sub, s) in p.sub.values().map(|s| (s.name.clone(), s)) {
            add(sub, s, out);
        }
        out.push((name, p));
    }
    let mut names: Vec<&str> = registry().names().collect();
    names.sort_unstable();
    let mut out = Vec::new();
    for name in names {
        if let Some(p) = registry().entry(name) {
            add(name.to_string(), p, &mut out);
        }
    }
    out
}

/// The first name of each option of `p` marked `effect`.
fn marked(p: &Program, effect: Effect) -> Vec<&str> {
    p.options
        .iter()
        .filter(|o| o.has(effect))
        .map(|o| o.names[0].as_str())
        .collect()
}

#[test]
fn every_program_and_option_the_tables_say_walk_walks() {
    let mut checked = 0;
    for (name, p) in tables() {
        let reads = !p.traits.walk_changes;
        if p.traits.walks {
            assert_eq!(walk(&format!("{name} x ~")).0, reads, "{name}");
            checked += 1;
        }
        for opt in marked(p, Effect::Walk) {
            let line = format!("{name} {opt} x ~");
            assert_eq!(walk(&line).0, reads, "{line}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked}");
    // What the tables do not mark does not walk.
    for line in [
        "cat ~",
        "cp ~ /tmp",
        "zip x.zip ~",
        "rg x ~",
        "find ~ -name x",
        "ls ~",
    ] {
        assert_eq!(walk(line), (false, false), "{line}");
    }
}

#[test]
fn every_option_the_tables_say_follows_links_follows_them() {
    let mut checked = 0;
    for (name, p) in tables() {
        let walk_opt = marked(p, Effect::Walk).first().copied().unwrap_or("");
        for opt in marked(p, Effect::Follow) {
            let alone = format!("{name} {opt} x ~");
            let walking = format!("{name} {walk_opt} {opt} x ~");
            match p.traits.follow {
                Follow::Given => assert!(walk(&alone).1, "{alone}"),
                Follow::Walking => {
                    assert_eq!(walk(&alone).1, p.traits.walks, "{alone}");
                    assert!(walk(&walking).1, "{walking}");
                }
            }
            for keep in marked(p, Effect::NoFollow) {
                let kept = format!("{walking} {keep}");
                assert!(!walk(&kept).1, "{kept}");
            }
            checked += 1;
        }
        if p.traits.keys {
            for (letter, spec) in p
                .options
                .iter()
                .flat_map(|o| o.names.iter().map(move |n| (n, o)))
            {
                let Some(k) = letter.strip_prefix('-').filter(|k| k.len() == 1) else {
                    continue;
                };
                let line = format!("{name} c{k}f x.tar ~");
                assert_eq!(walk(&line).1, spec.has(Effect::Follow), "{line}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 15, "{checked}");
    // The programs that always walk, whole, as the code listed them before the tables did: a
    // `walks` dropped from a table shows here.
    for name in [
        "tar",
        "rsync",
        "7z",
        "7za",
        "bsdtar",
        "cpio",
        "duplicity",
        "restic",
        "borg",
    ] {
        assert_eq!(walk(&format!("{name} x ~")), (true, false), "{name}");
    }
    // The code that stays beside the tables: cp's -L outside a walk, zip's links kept as links.
    // A name filter keeps no folder out of find's walk: a protected folder may hold `*.log`.
    for (line, walks, follows) in [
        ("find -L ~ -name '*.log' -exec cat {} +", true, true),
        ("find -L ~ -name 'id_*' -exec cat {} +", true, true),
        ("cp -L ~/a /tmp", false, false),
        ("cp -rL ~ /tmp", true, true),
        ("zip -ry x.zip ~", true, false),
        ("tar chf x.tar ~", true, true),
        ("chmod -RL 700 ~", false, true),
        ("grep --derefer x ~", true, true),
    ] {
        assert_eq!(walk(line), (walks, follows), "{line}");
    }
}
