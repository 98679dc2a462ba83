//! curl, wget, httpie and friends: where they fetch from, what they send (files, variables,
//! piped output) and the files they write.

use super::data::{data, Network};
use super::network::url_host;
use super::opts::{names_option, Opts};
use super::{Effects, Kind};
use crate::command::SimpleCommand;

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
        // The HTTP method: a DELETE destroys what it names, a request with a body or a
        // POST, PUT or PATCH changes the service.
        match method(cmd, &opts) {
            Some(m) if m == "DELETE" => self.push(
                Kind::Destroy,
                format!("sends an HTTP DELETE to {to}"),
                host.clone(),
            ),
            Some(m) if !matches!(m.as_str(), "GET" | "HEAD" | "OPTIONS") => self.push(
                Kind::RemoteChange,
                format!("sends an HTTP {m} to {to}"),
                host.clone(),
            ),
            _ => {}
        }
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
            // `-o .bashrc --output-dir ~`: the file is in that folder.
            Some(v)
                if program == "curl"
                    && dir.is_some_and(|d| !std::ptr::eq(d.word, v.word))
                    && !v.text.starts_with('/') =>
            {
                match dir.filter(|d| !d.word.dynamic) {
                    Some(d) => {
                        let joined = format!("{}/{}", d.text.trim_end_matches('/'), v.text);
                        self.write_text(&joined);
                    }
                    None => self.write_value(dir.unwrap_or(v)),
                }
            }
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
                // `-w '%output{>>FILE}…'` writes what follows into FILE.
                let write_out = names_option(name, "--write-out") || name == "-w";
                if program == "curl" && write_out {
                    for file in output_variables(v.text) {
                        let file = file.trim_start_matches('>');
                        // `$HOME/…` is the home folder's; any other computed name is unknown.
                        let home = ["$HOME/", "${HOME}/", "~/"]
                            .iter()
                            .any(|h| file.starts_with(h) && !file[h.len()..].contains('$'));
                        if v.word.dynamic && !home {
                            self.write_value(*v);
                        } else {
                            self.write_text(file);
                        }
                    }
                }
            }
        }
    }
}

/// The files a curl `--write-out` format writes to (`%output{FILE}`, `%output{>>FILE}`).
fn output_variables(format: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = format;
    while let Some(i) = rest.find("%output{") {
        let after = &rest[i + "%output{".len()..];
        let end = after.find('}').unwrap_or(after.len());
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

/// The HTTP method a fetcher's request uses: given (`-X DELETE`, `--request=PUT`, wget's
/// `--method`, httpie's `http DELETE url`), or the one its body implies (curl and httpie send
/// a body with POST, `-T` with PUT); upper-cased. `None` for a plain fetch.
fn method(cmd: &SimpleCommand, opts: &Opts) -> Option<String> {
    let program = cmd.program();
    let given = match program {
        "wget" => opts.value(&["--method"]),
        _ => opts.value(&["-X", "--request"]),
    };
    if let Some(v) = given {
        return Some(if v.word.dynamic {
            "request computed when it runs".to_string()
        } else {
            v.text.to_ascii_uppercase()
        });
    }
    let httpie = matches!(program, "http" | "https" | "xh" | "xhs" | "httpie");
    if httpie {
        let words: Vec<&str> = cmd
            .argv
            .iter()
            .skip(1)
            .map(|w| w.value.as_str())
            .filter(|v| !v.starts_with('-'))
            .collect();
        const METHODS: [&str; 7] = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];
        if let Some(m) = words
            .first()
            .filter(|m| METHODS.contains(&m.to_ascii_uppercase().as_str()))
        {
            return Some(m.to_ascii_uppercase());
        }
        // Request items (`name=value`, `name:=json`, `name@file`) make a POST.
        let items = words.iter().skip(1).any(|w| {
            w.contains('=') || (w.contains('@') && !w.starts_with('@') && !w.contains("://"))
        });
        return items.then(|| "POST".to_string());
    }
    let body = |names: &[&str]| opts.given(names);
    if program == "curl" {
        if body(&["-T", "--upload-file"]) {
            return Some("PUT".to_string());
        }
        let data = [
            "-d",
            "--data",
            "--data-ascii",
            "--data-binary",
            "--data-raw",
            "--data-urlencode",
            "--json",
            "-F",
            "--form",
            "--form-string",
        ];
        let get = body(&["-G", "--get"]);
        if body(&data) && !get {
            return Some("POST".to_string());
        }
    }
    if program == "wget" && body(&["--post-data", "--post-file", "--body-data", "--body-file"]) {
        return Some("POST".to_string());
    }
    None
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
        } else if let Some(file) = at_file(v).or_else(|| urlencoded_file(name, v)) {
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

/// `name@file` of `--data-urlencode` and `--url-query`: the file's content, URL-encoded.
fn urlencoded_file<'v>(option: &str, v: &'v str) -> Option<&'v str> {
    if !matches!(option, "--data-urlencode" | "--url-query") {
        return None;
    }
    let (name, file) = v.split_once('@')?;
    (!name.contains('=') && !file.is_empty()).then_some(file)
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
    "--url-query",
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
