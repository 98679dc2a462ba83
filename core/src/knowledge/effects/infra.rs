//! Infrastructure: the cloud, cluster, container and registry verbs of the data, statements
//! run on a database, local files copied to a bucket, `gh api` calls that change something,
//! gists.

use super::data::data;
use super::model::{is, DATABASE};
use super::network::url_host;
use super::verbs::verb_match;
use super::words::option_value;
use super::{Effects, Kind};
use crate::command::SimpleCommand;

impl Effects<'_, '_> {
    /// Cloud, cluster, database and registry changes of `program` (as [`packages`] names it)
    /// with its operands `pos`.
    ///
    /// [`packages`]: Effects::packages
    pub(super) fn infra(&mut self, cmd: &SimpleCommand, program: &str, pos: &[&str]) {
        let verbs = data().infra.verbs.get(program);
        if let Some(v) = verb_match(pos, verbs.map_or(&[][..], Vec::as_slice)) {
            self.push(Kind::InfraChange, format!("{program} {v}"), None);
        } else if is(program, DATABASE) {
            self.database_statement(cmd);
        }
        self.cloud_copy(program, pos);
        self.forge_api(cmd, program, pos);
        self.gist(program, pos);
    }

    /// A database client given a statement of the data (`DROP DATABASE`) in its words or a
    /// here-document.
    fn database_statement(&mut self, cmd: &SimpleCommand) {
        let mut text = String::new();
        for w in cmd.argv.iter().skip(1) {
            text.push_str(&w.value.to_ascii_lowercase());
            text.push(' ');
        }
        for r in cmd.redirects.iter().filter(|r| r.op.is_here()) {
            text.push_str(&r.target.value.to_ascii_lowercase());
            text.push(' ');
        }
        // `DROP   DATABASE`, `DROP\tDATABASE`: one space between words.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if let Some(s) = data()
            .infra
            .statements
            .iter()
            .find(|s| contains_word(&text, s))
        {
            self.push(
                Kind::InfraChange,
                format!("runs `{}` on a database", s.trim().to_ascii_uppercase()),
                None,
            );
        }
    }

    /// `aws s3 cp file s3://…`, `gsutil cp file gs://…`: local files leave the machine.
    fn cloud_copy(&mut self, program: &str, pos: &[&str]) {
        let cloud_copy = matches!(
            (program, pos),
            ("aws", ["s3", "cp" | "sync" | "mv", ..])
                | ("gsutil", ["cp" | "rsync" | "mv", ..])
                | ("gcloud", ["storage", "cp" | "rsync" | "mv", ..])
        );
        if !cloud_copy {
            return;
        }
        if let Some((dest, sources)) = pos.split_last() {
            let bucket = |w: &str| w.starts_with("s3://") || w.starts_with("gs://");
            let local: Vec<&str> = sources
                .iter()
                .skip(2)
                .copied()
                .filter(|s| !bucket(s))
                .collect();
            if bucket(dest) && !local.is_empty() {
                self.push(
                    Kind::NetworkUpload,
                    format!("sends {} to {dest}", local.join(", ")),
                    url_host(dest),
                );
            }
        }
    }

    /// `gh api` reads unless it sends fields, a body or another method.
    fn forge_api(&mut self, cmd: &SimpleCommand, program: &str, pos: &[&str]) {
        if !matches!(program, "gh" | "glab") || pos.first() != Some(&"api") {
            return;
        }
        let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
        let method = option_value(&argv, &["-X", "--method"]).map(str::to_ascii_uppercase);
        let body = argv.iter().any(|w| {
            ["-f", "-F", "--field", "--raw-field", "--input"]
                .iter()
                .any(|o| {
                    w == o
                        || (w.starts_with(o) && w.len() > o.len() && !o.starts_with("--"))
                        || w.starts_with(&format!("{o}="))
                })
        });
        if body || method.is_some_and(|m| m != "GET" && m != "HEAD") {
            self.push(
                Kind::InfraChange,
                format!("{program} api changes something on the server"),
                None,
            );
        }
    }

    /// `gh gist create`: the files named, or piped output, go to gist.github.com.
    fn gist(&mut self, program: &str, pos: &[&str]) {
        if program == "gh" && matches!(pos, ["gist", "create" | "new", ..]) {
            let files: Vec<&str> = pos.iter().skip(2).copied().collect();
            let what = if files.is_empty() {
                "piped output".to_string()
            } else {
                files.join(", ")
            };
            self.push(
                Kind::NetworkUpload,
                format!("sends {what} to gist.github.com"),
                Some("gist.github.com".into()),
            );
        }
    }
}

/// Whether `text` holds `phrase` starting at a word boundary.
fn contains_word(text: &str, phrase: &str) -> bool {
    let phrase = phrase.to_ascii_lowercase();
    text.match_indices(phrase.as_str()).any(|(i, _)| {
        i == 0
            || !text.as_bytes()[i - 1].is_ascii_alphanumeric() && text.as_bytes()[i - 1] != b'_'
            || phrase.starts_with('.')
    })
}
