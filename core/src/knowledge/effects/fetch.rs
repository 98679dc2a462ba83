//! curl, wget, httpie and friends: where they fetch from, what they send (files, variables,
//! piped output) and the files they write.

use super::data::{data, Network};
use super::network::url_host;
use super::opts::{names_option, Opts};
use super::{Effects, Kind};
use crate::shell::SimpleCommand;

impl Effects<'_, '_> {
    /// curl, wget, httpie and friends.
    pub(super) fn fetcher(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let host = cmd.argv.iter().skip(1).find_map(|w| url_host(&w.value));
        let to = host
            .as_deref()
            .map_or_else(|| "the network".to_string(), str::to_string);
        let opts = Opts::of(cmd, fetcher_values(program));
        let net = &data().network;
        if matches!(program, "curl" | "wget") {
            self.fetcher_writes(cmd, &opts);
        }
        let mut sent = sent_by_options(&opts, net);
        sent.extend(sent_by_operands(cmd, &opts));
        let httpie = matches!(program, "http" | "https" | "xh" | "xhs" | "httpie");
        if cmd.piped && (httpie || sent.iter().any(|s| s == "its input")) {
            sent.retain(|s| s != "its input");
            sent.push("piped output".into());
        }
        sent.dedup();
        if sent.is_empty() {
            self.push(Kind::NetworkFetch, format!("fetches from {to}"), host);
        } else {
            self.push(
                Kind::NetworkUpload,
                format!("sends {} to {to}", sent.join(", ")),
                host.clone(),
            );
            self.push(Kind::NetworkFetch, format!("fetches from {to}"), host);
        }
    }

    /// What curl and wget write: their output, headers, cookies, logs.
    fn fetcher_writes(&mut self, cmd: &SimpleCommand, opts: &Opts) {
        let net = &data().network;
        let program = cmd.program();
        let (output, others): (&[&str], &[&str]) = if program == "wget" {
            (&["-O", "--output-document"], &net.wget_writes)
        } else {
            (&["-o", "--output"], &net.curl_writes)
        };
        let dir = opts.value(&["--output-dir", "-P", "--directory-prefix"]);
        match opts.value(output) {
            Some(v) => self.write_value(v),
            None => {
                let named_by_server = if program == "wget" {
                    !opts.given(&["--spider"])
                } else {
                    opts.given(&["-O", "--remote-name", "--remote-name-all", "-J"])
                };
                if named_by_server {
                    match dir {
                        Some(d) => self.write_value(d),
                        None => self.write_text("."),
                    }
                }
            }
        }
        for (name, v) in &opts.given {
            if let Some(v) = v {
                if others.iter().any(|o| names_option(name, o)) {
                    self.write_value(*v);
                }
            }
        }
    }
}

/// What a fetcher's data options send: a file they name (`--data-binary @.env`, `-T file`),
/// its input (`@-`), or a value computed when it runs.
fn sent_by_options(opts: &Opts, net: &Network) -> Vec<String> {
    let mut sent: Vec<String> = Vec::new();
    let named = |list: &[&str], name: &str| list.iter().any(|d| names_option(name, d));
    for (name, value) in &opts.given {
        let Some(value) = value else { continue };
        if !named(&net.curl_data, name) && !named(&net.wget_data, name) {
            continue;
        }
        let v = value.text;
        if named(&net.file_sources, name) {
            sent.push(if v == "-" {
                "its input".into()
            } else {
                v.to_string()
            });
        } else if let Some(file) = at_file(v) {
            sent.push(if file == "-" {
                "its input".into()
            } else {
                file.to_string()
            });
        } else if value.word.dynamic {
            sent.push(format!("`{v}`"));
        }
    }
    sent
}

/// What a fetcher's operands send: words computed when it runs, and httpie's file fields.
fn sent_by_operands(cmd: &SimpleCommand, opts: &Opts) -> Vec<String> {
    let program = cmd.program();
    let mut sent: Vec<String> = Vec::new();
    for (i, w) in cmd.argv.iter().enumerate().skip(1) {
        let v = w.value.as_str();
        if opts.values.contains(&i) || v.starts_with('-') {
            continue;
        }
        if w.dynamic {
            sent.push(format!("`{v}`"));
        } else if let Some(file) = at_file(v) {
            // httpie: `field=@file`, `field:=@file`, `@file`.
            if !matches!(program, "curl" | "wget") || v.starts_with('@') {
                sent.push(file.to_string());
            }
        } else if let Some((name, file)) = v.split_once('@') {
            // httpie's form file field `name@path`.
            let field = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if field && !file.is_empty() && !matches!(program, "curl" | "wget") {
                sent.push(file.to_string());
            }
        }
    }
    sent
}

/// `@file` of curl's data options and httpie's `field=@file`; `<file` of `curl -F name=<file`.
fn at_file(v: &str) -> Option<&str> {
    if let Some(f) = v.strip_prefix('@') {
        return (!f.is_empty()).then_some(f);
    }
    let i = v.find(['=', ':'])?;
    let rest = v[i..].trim_start_matches([':', '=']);
    rest.strip_prefix('@')
        .or_else(|| rest.strip_prefix('<'))
        .map(|f| f.split(';').next().unwrap_or(f))
        .filter(|f| !f.is_empty())
}

/// The value-taking options of a fetcher: enough to tell values from URLs.
pub(super) fn fetcher_values(program: &str) -> &'static [&'static str] {
    match program {
        "wget" => WGET_VALUES,
        _ => CURL_VALUES,
    }
}

const CURL_VALUES: &[&str] = &[
    "-A",
    "-b",
    "-c",
    "-C",
    "-d",
    "-D",
    "-e",
    "-E",
    "-F",
    "-H",
    "-K",
    "-m",
    "-o",
    "-P",
    "-Q",
    "-r",
    "-t",
    "-T",
    "-u",
    "-U",
    "-w",
    "-x",
    "-X",
    "-y",
    "-Y",
    "-z",
    "--data",
    "--data-ascii",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--json",
    "--form",
    "--form-string",
    "--upload-file",
    "--user",
    "--header",
    "--cookie",
    "--referer",
    "--user-agent",
    "--config",
    "--url",
    "--output",
    "--variable",
    "--request",
    "--proxy",
    "--cookie-jar",
    "--dump-header",
    "--write-out",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--cacert",
    "--cert",
    "--key",
    "--resolve",
    "--mail-rcpt",
    "--mail-from",
    "--expand-data",
    "--expand-url",
    "--expand-header",
    "--output-dir",
    "--stderr",
    "--trace",
    "--trace-ascii",
];

const WGET_VALUES: &[&str] = &[
    "-O",
    "-o",
    "-a",
    "-P",
    "-e",
    "-i",
    "-B",
    "-t",
    "-T",
    "-w",
    "-Q",
    "-U",
    "-D",
    "-l",
    "-A",
    "-R",
    "-I",
    "-X",
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--execute",
    "--input-file",
    "--base",
    "--tries",
    "--timeout",
    "--wait",
    "--quota",
    "--user-agent",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
    "--header",
    "--user",
    "--password",
    "--http-user",
    "--http-password",
    "--config",
    "--load-cookies",
    "--save-cookies",
    "--referer",
];
