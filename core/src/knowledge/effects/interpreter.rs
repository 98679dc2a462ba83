//! Interpreter one-liners (`python3 -c`, `node -e`, …): the network calls, the files opened
//! for writing under a computed name and the code built at run time that their text shows.
//! The files the code changes (deletes, moves, writes) are read with the shell-outs
//! (the interpreter reader, `super::super::interp`) and judged as the commands the calls equal.

use super::model::model;
use super::words::short;
use super::{Effects, Kind};
use crate::command::Word;

impl Effects<'_, '_> {
    /// Interpreter one-liners: network calls, files opened for writing, code built at run
    /// time.
    pub(super) fn interpreter(&mut self, code: Option<&(&'static str, Vec<Word>)>) {
        let Some(&(lang, ref codes)) = code else {
            return;
        };
        for code in codes {
            let text = code.value.as_str();
            self.code_network(lang, text);
            if let Some(r) = model().dynamic.get(lang) {
                if let Some(found) = r.find(text) {
                    self.push(
                        Kind::RunCode,
                        format!(
                            "{lang} code builds what it runs at run time (`{}`)",
                            found.as_str().trim()
                        ),
                        None,
                    );
                }
            }
            self.code_writes(lang, text);
            if code.dynamic {
                self.push(
                    Kind::RunCode,
                    format!("{lang} code is computed when it runs (`{}`)", short(text)),
                    None,
                );
            }
        }
    }

    /// Code that connects to a host (the first URL in it, when there is one), and sends to it.
    fn code_network(&mut self, lang: &str, text: &str) {
        let m = model();
        let host = m
            .url
            .as_ref()
            .and_then(|r| r.captures(text))
            .map(|c| c[1].to_ascii_lowercase());
        let to = host.clone().unwrap_or_else(|| "the network".into());
        let net = m.net.get(lang).is_some_and(|r| r.is_match(text));
        if net {
            let sends = m.send.get(lang).is_some_and(|r| r.is_match(text));
            if sends {
                self.push(
                    Kind::NetworkUpload,
                    format!("{lang} code sends data to {to}"),
                    host.clone(),
                );
            }
            self.push(
                Kind::NetworkFetch,
                format!("{lang} code connects to {to}"),
                host,
            );
        }
    }

    /// Files the code opens for writing whose name is not a literal. What every call that
    /// changes files does to the paths it names, home expressions and names given once read
    /// (`open(os.path.expanduser("~/.bashrc"), "a")` writes `~/.bashrc`), is judged where the
    /// shell analysis reads the code: as the command it equals (`tee ~/.bashrc`), or as
    /// unknown when the path is computed when it runs. This is what the text shows of a name
    /// computed whatever that reading made of it.
    fn code_writes(&mut self, lang: &str, text: &str) {
        let Some(r) = model().writes.get(lang) else {
            return;
        };
        let computed = r
            .captures_iter(text)
            .any(|c| c.name("path").or_else(|| c.name("path2")).is_none());
        if computed {
            self.push(
                Kind::WriteOutside,
                format!("{lang} code writes a file whose name is computed"),
                None,
            );
        }
    }
}

/// Interpreter code that opens network connections.
pub(super) const INTERP_NET: &[(&str, &str)] = &[
    (
        "python",
        r"\b(urllib|urlopen|requests\.|httpx|http\.client|socket\.|aiohttp|smtplib|ftplib|paramiko|websocket)",
    ),
    (
        "node",
        r#"\b(fetch\s*\(|https?\.(request|get)|net\.(connect|createConnection)|axios|XMLHttpRequest|WebSocket|dgram)|require\s*\(\s*['"`](node:)?(https?|net|tls|dgram|http2)['"`]\s*\)"#,
    ),
    ("deno", r"\b(fetch\s*\(|Deno\.connect|WebSocket)"),
    (
        "ruby",
        r"(Net::HTTP|open-uri|URI\.open|TCPSocket|UDPSocket|Faraday|HTTParty|RestClient)",
    ),
    ("perl", r"(LWP|HTTP::Tiny|IO::Socket|Net::|Socket\b)"),
    (
        "php",
        r"\b(curl_init|curl_exec|fsockopen|stream_socket_client|file_get_contents\s*\(\s*.https?:|fopen\s*\(\s*.https?:)",
    ),
];

/// Network code that sends: request bodies, posts, socket writes, files or the environment
/// read into it.
pub(super) const INTERP_SEND: &[(&str, &str)] = &[
    (
        "python",
        r"(data\s*=|json\s*=|files\s*=|\.post\s*\(|\.put\s*\(|\.patch\s*\(|\.send(all)?\s*\(|\.sendto\s*\(|\bopen\s*\(|environ|getenv|POST|PUT)",
    ),
    (
        "node",
        r#"(method\s*:\s*['"](POST|PUT|PATCH)|body\s*:|\.write\s*\(|\.send\s*\(|\.post\s*\(|\.put\s*\(|readFileSync|process\.env)"#,
    ),
    (
        "deno",
        r#"(method\s*:\s*['"](POST|PUT|PATCH)|body\s*:|readTextFile|readFile|Deno\.env|\.write\s*\()"#,
    ),
    (
        "ruby",
        r"(post|put|patch|\.write|\.puts|\.print|\.send|File\.read|IO\.read|ENV\[)",
    ),
    (
        "perl",
        r"(post|put|print\s*\$|send\s*\(|syswrite|<\$|\$ENV|open\s*\()",
    ),
    (
        "php",
        r"(CURLOPT_POST|CURLOPT_POSTFIELDS|fwrite|fputs|file_get_contents\s*\(\s*.[^h]|getenv|\$_ENV)",
    ),
];

/// Code that builds what it runs at run time: what it does cannot be read.
pub(super) const INTERP_DYNAMIC: &[(&str, &str)] = &[
    (
        "python",
        // (An import renamed from a module that runs commands hides the calls: `from os import
        // system as s`, `import subprocess as x`.)
        r"\b(eval|exec|compile|__import__|getattr|execfile)\s*\(|\bimportlib\b|\bmarshal\.loads|\bpickle\.loads|\bctypes\b|\bfrom\s+(os|subprocess|pty|posix|shutil|commands|multiprocessing)\b[^;\n]*\bimport\b[^;\n]*\bas\b|\bimport\s+(os|subprocess|pty|posix|shutil|commands)\s+as\b|=\s*(os|subprocess|pty|posix)\.\w+\s*(;|$)",
    ),
    (
        "node",
        r"\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bvm\.run|\brequire\s*\(\s*[^'`)\s]|\bimport\s*\(\s*[^'`)\s]",
    ),
    (
        "deno",
        r"\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bimport\s*\(\s*[^'`)\s]",
    ),
    (
        "ruby",
        r"\b(eval|instance_eval|class_eval|module_eval|instance_exec|send|public_send|const_get)\b",
    ),
    ("perl", r"\beval\b|\bdo\s*\(?\s*\$|\brequire\s+\$"),
    (
        "php",
        r"\b(eval|assert|create_function|call_user_func|call_user_func_array|include|require|include_once|require_once)\b|\$\w+\s*\(",
    ),
];

/// Files opened for writing, with their path when it is a literal (judged with the
/// shell-outs: only a name that is not one is reported here).
pub(super) const INTERP_WRITES: &[(&str, &str)] = &[
    (
        "python",
        r#"\bopen\s*\(\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)\s*,\s*(?:mode\s*=\s*)?['"][^'"]*[wax+]|Path\s*\(\s*['"](?P<path2>[^'"]+)['"]\s*\)\s*\.\s*(?:write_text|write_bytes|touch|open\s*\(\s*['"][^'"]*[wax+])"#,
    ),
    (
        "node",
        r#"\b(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream|copyFileSync|renameSync|symlinkSync)\s*\(\s*(?:['"`](?P<path>[^'"`]+)['"`]|[^'"`,)]+)"#,
    ),
    (
        "deno",
        r#"\bDeno\.(?:writeTextFile|writeFile|writeTextFileSync|writeFileSync)\s*\(\s*(?:['"`](?P<path>[^'"`]+)['"`]|[^'"`,)]+)"#,
    ),
    (
        "ruby",
        r#"\bFile\.write\s*\(?\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bFile\.open\s*\(\s*(?:['"](?P<path2>[^'"]+)['"]|[^'",)]+)\s*,\s*['"][^'"]*[wa+]"#,
    ),
    (
        "perl",
        r#"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"](?:>>?|\+<|\+>)['"]\s*,\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"](?:>>?|\+<|\+>)\s*(?P<path2>[^'"]+)['"]"#,
    ),
    (
        "php",
        r#"\bfile_put_contents\s*\(\s*(?:['"](?P<path>[^'"]+)['"]|[^'",)]+)|\bfopen\s*\(\s*(?:['"](?P<path2>[^'"]+)['"]|[^'",)]+)\s*,\s*['"][^'"]*[wax+]"#,
    ),
];
