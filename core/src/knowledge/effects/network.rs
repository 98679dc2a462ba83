//! Programs that talk to other hosts: the dispatch over the network programs of the data,
//! DNS and ping lookups, raw sockets (nc, socat), copiers (scp, rsync, sftp), a web server and a
//! remote shell; the reading of hosts in URLs and scp-style remotes.

use crate::command::RedirectOp;

use super::model::{is, COPIER, FETCHER, LOOKUP, RAW};
use super::words::{option_value, positional};
use super::{Effects, Kind};
use crate::command::{SimpleCommand, Word};

impl Effects<'_, '_> {
    /// The network programs of the data (fetchers, raw sockets, copiers, lookups), and a web
    /// server an interpreter starts.
    pub(super) fn network(
        &mut self,
        cmd: &SimpleCommand,
        code: Option<&(&'static str, Vec<Word>)>,
    ) {
        let program = cmd.program();
        if is(program, FETCHER) {
            self.fetcher(cmd);
        } else if is(program, RAW) {
            self.raw_socket(cmd);
        } else if is(program, COPIER) {
            self.copier(cmd);
        } else if is(program, LOOKUP) {
            self.lookup(cmd);
        }
        self.server(cmd, code);
    }

    /// `ssh host 'cat > x' < f`, `tar c . | ssh host …`, `mail a@b < .env`: what is fed to the
    /// input of a remote shell or a mail program leaves the machine.
    pub(super) fn fed_to_remote(&mut self, cmd: &SimpleCommand) {
        const MAILERS: [&str; 8] = [
            "mail", "mailx", "sendmail", "mutt", "msmtp", "ssmtp", "s-nail", "neomutt",
        ];
        let program = cmd.program();
        if program != "ssh" && !MAILERS.contains(&program) {
            return;
        }
        let input = cmd
            .redirects
            .iter()
            .find(|r| r.fd.is_none_or(|fd| fd == 0) && (r.op.reads_input()))
            .map(|r| {
                if r.op.is_here() {
                    "a here-document".to_string()
                } else {
                    r.target.value.clone()
                }
            })
            .or_else(|| cmd.piped.then(|| "piped output".to_string()));
        // A mail program's attachments (`-a FILE`, `-A FILE`).
        let attached = MAILERS.contains(&program).then(|| {
            cmd.argv
                .windows(2)
                .find(|w| matches!(w[0].value.as_str(), "-a" | "-A" | "--attach"))
                .map(|w| w[1].value.clone())
        });
        let sent = input.or(attached.flatten()).or_else(|| {
            // A mail sent with no input given still sends what the terminal gives it.
            MAILERS.contains(&program).then(|| "a message".to_string())
        });
        if let Some(what) = sent {
            let to = positional(cmd)
                .iter()
                .find(|w| !w.starts_with('-'))
                .map_or_else(|| "the network".to_string(), |h| h.to_string());
            self.push(Kind::NetworkUpload, format!("sends {what} to {to}"), None);
        }
    }

    /// `ssh HOST [COMMAND]`: a shell on another machine. What it runs there is not judged by
    /// this machine's paths (`ssh host rm -rf build` deletes the remote's `~/build`, not a
    /// build output of the project), and forwarded ports reach past it. Only its queries
    /// (`-V`, `-G`, `-Q`) stay here.
    pub(super) fn remote_shell(&mut self, cmd: &SimpleCommand) {
        /// ssh's options that take a value.
        const VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";
        if cmd.program() != "ssh" {
            return;
        }
        let mut host = None;
        let mut words = cmd.argv.iter().skip(1).map(|w| w.value.as_str());
        while let Some(w) = words.next() {
            if w == "--" {
                host = words.next();
                break;
            }
            let Some(flags) = w.strip_prefix('-').filter(|f| !f.is_empty()) else {
                host = Some(w);
                break;
            };
            for (i, c) in flags.char_indices() {
                if matches!(c, 'V' | 'G' | 'Q') {
                    return;
                }
                if VALUED.contains(c) {
                    // The value is the rest of the word, or the next word.
                    if i + c.len_utf8() == flags.len() {
                        words.next();
                    }
                    break;
                }
            }
        }
        let on = host.map_or_else(|| "another machine".to_string(), |h| format!("`{h}`"));
        self.push(
            Kind::RunCode,
            format!("runs commands on {on}, which this machine's paths do not describe"),
            None,
        );
    }

    /// dig, host, ping and the like send what they look up: a word computed when it runs, a
    /// payload given to ping (`-p`).
    fn lookup(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let computed = cmd.argv.iter().skip(1).find(|w| w.dynamic);
        let pattern =
            program.starts_with("ping") && cmd.argv.iter().any(|w| w.value.starts_with("-p"));
        if let Some(w) = computed {
            self.push(
                Kind::NetworkUpload,
                format!(
                    "sends `{}`, computed when it runs, in a {program} query",
                    w.value
                ),
                None,
            );
        } else if pattern {
            self.push(
                Kind::NetworkUpload,
                "sends a chosen payload in ping packets".into(),
                None,
            );
        }
    }

    /// nc, socat, telnet, `openssl s_client`: whatever they are fed goes to the host.
    fn raw_socket(&mut self, cmd: &SimpleCommand) {
        let program = cmd.program();
        let pos = positional(cmd);
        if program == "openssl" && pos.first() != Some(&"s_client") {
            return;
        }
        if pos.is_empty() || (program == "socat" && pos.len() < 2) {
            return;
        }
        let host = match program {
            "openssl" => cmd
                .argv
                .iter()
                .position(|w| w.value == "-connect")
                .and_then(|i| cmd.argv.get(i + 1))
                .map(|w| w.value.split(':').next().unwrap_or("").to_ascii_lowercase()),
            "socat" => None,
            _ => pos.first().map(|h| h.to_ascii_lowercase()),
        };
        let to = host.clone().unwrap_or_else(|| "the network".into());
        let input = cmd
            .redirects
            .iter()
            .find(|r| matches!(r.op, RedirectOp::In | RedirectOp::ReadWrite))
            .map(|r| r.target.value.clone());
        let exec = cmd.argv.iter().any(|w| {
            matches!(
                w.value.as_str(),
                "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec"
            ) || w.value.starts_with("--exec=")
                || w.value.starts_with("--sh-exec=")
        }) || (program == "socat"
            && cmd.argv.iter().any(|w| {
                let v = w.value.to_ascii_uppercase();
                v.starts_with("EXEC:") || v.starts_with("SYSTEM:")
            }));
        let what = if exec {
            Some("a shell".to_string())
        } else if let Some(f) = input {
            Some(f)
        } else if cmd.piped || cmd.redirects.iter().any(|r| r.op.is_here()) {
            Some("piped output".to_string())
        } else if program == "socat" {
            Some("a local file or stream".to_string())
        } else {
            None
        };
        match what {
            Some(w) => self.push(Kind::NetworkUpload, format!("sends {w} to {to}"), host),
            None => self.push(Kind::NetworkFetch, format!("connects to {to}"), host),
        }
    }

    /// scp, rsync, sftp, rclone, ftp clients.
    fn copier(&mut self, cmd: &SimpleCommand) {
        let pos = positional(cmd);
        let program = cmd.program();
        // `rsync --delete…`, `--remove-source-files`: files are deleted, at the destination or
        // at the source, whatever they are.
        let deletes = program == "rsync"
            && cmd.argv.iter().skip(1).any(|w| {
                let v = w.value.as_str();
                v.starts_with("--del") || v == "--remove-source-files"
            });
        if deletes {
            let dest = pos.last().copied().unwrap_or("its destination");
            self.push(
                Kind::Destroy,
                format!("deletes files in {dest} that its sources do not have"),
                None,
            );
        }
        if matches!(program, "scp" | "rsync" | "rclone") {
            self.copy(program, pos);
            return;
        }
        let host = pos
            .iter()
            .find_map(|w| remote_host(w).or_else(|| Some(w.split('@').next_back()?.to_string())));
        let to = host.clone().unwrap_or_else(|| "the network".into());
        let scripted = cmd.piped
            || cmd.redirects.iter().any(|r| r.op.reads_input())
            || cmd
                .argv
                .iter()
                .any(|w| matches!(w.value.as_str(), "-b" | "-c" | "-e" | "-f"));
        if scripted {
            self.push(
                Kind::NetworkUpload,
                format!("runs scripted transfers (which may send files) with {to}"),
                host,
            );
        } else {
            self.push(Kind::NetworkFetch, format!("connects to {to}"), host);
        }
    }

    /// scp, rsync and rclone's copying verbs: local sources sent to a remote destination, or
    /// a copy from a remote.
    fn copy(&mut self, program: &str, pos: Vec<&str>) {
        let pos = if program == "rclone" {
            match pos.split_first() {
                Some((verb, rest))
                    if matches!(
                        *verb,
                        "copy" | "sync" | "move" | "copyto" | "moveto" | "bisync"
                    ) =>
                {
                    rest.to_vec()
                }
                _ => return,
            }
        } else {
            pos
        };
        let Some((dest, sources)) = pos.split_last() else {
            return;
        };
        match remote_host(dest) {
            Some(host) if sources.iter().any(|s| remote_host(s).is_none()) => {
                let files: Vec<&str> = sources
                    .iter()
                    .copied()
                    .filter(|s| remote_host(s).is_none())
                    .collect();
                self.push(
                    Kind::NetworkUpload,
                    format!("sends {} to {host}", files.join(", ")),
                    Some(host),
                );
            }
            _ => {
                if let Some(host) = sources.iter().find_map(|s| remote_host(s)) {
                    self.push(
                        Kind::NetworkFetch,
                        format!("copies from {host}"),
                        Some(host),
                    );
                }
            }
        }
    }

    /// A web server (`python3 -m http.server`, `php -S`) on every interface: it sends the
    /// folder it serves.
    fn server(&mut self, cmd: &SimpleCommand, code: Option<&(&'static str, Vec<Word>)>) {
        let program = cmd.program();
        if !program.starts_with("python") && !program.starts_with("php") {
            return;
        }
        let argv: Vec<&str> = cmd.argv.iter().map(|w| w.value.as_str()).collect();
        let (bind, dir) = if code.is_some_and(|(lang, _)| *lang == "python")
            && argv
                .windows(2)
                .any(|w| w[0] == "-m" && matches!(w[1], "http.server" | "SimpleHTTPServer"))
        {
            (
                option_value(&argv, &["-b", "--bind"]),
                option_value(&argv, &["-d", "--directory"]),
            )
        } else if program.starts_with("php") && argv.contains(&"-S") {
            (
                option_value(&argv, &["-S"]).map(|a| a.rsplit_once(':').map_or(a, |(h, _)| h)),
                option_value(&argv, &["-t"]),
            )
        } else {
            return;
        };
        let local = bind.is_some_and(|b| {
            b == "localhost" || b.starts_with("127.") || b == "::1" || b == "[::1]"
        });
        if local {
            return;
        }
        let served = dir.map_or_else(
            || self.places.cwd.to_path_buf(),
            |d| (self.places.resolve)(d),
        );
        // On every interface, what it serves is sent to whoever asks: the project's `.env`
        // and `.git` as much as home.
        let shown = self.show(&served);
        self.push(
            Kind::NetworkUpload,
            format!("serves {shown} to every host that can reach this machine"),
            None,
        );
    }
}

/// The host of a URL, lowercased (`https://user@Host:443/x` → `host`); `None` when the text
/// is not a URL with a host. The one reading of URLs: `host` matchers use it too.
pub fn url_host(s: &str) -> Option<String> {
    url::Url::parse(s)
        .ok()?
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
        .filter(|h| !h.is_empty())
}

/// The host of an scp-style remote (`user@host:path`, `host:`), not a URL or a local path.
pub(super) fn remote_host(w: &str) -> Option<String> {
    if w.contains("://") || w.starts_with(['/', '.', '~']) {
        return None;
    }
    let (host, _) = w.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let host = host.rsplit('@').next()?;
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}
