//! The system: schedulers, services that start on their own, users and privileges, processes
//! stopped and the machine shut down.

use super::data::data;
use super::model::{is, MACHINE, PRIVILEGED, PROCESS, SCHEDULER};
use super::verbs::verb_match;
use super::words::positional;
use super::{Effects, Kind};
use crate::command::SimpleCommand;

impl Effects<'_, '_> {
    /// Schedulers, services, users, processes and the machine.
    pub(super) fn system(&mut self, cmd: &SimpleCommand) {
        let data = data();
        let program = cmd.program();
        if !is(program, SCHEDULER | PRIVILEGED | PROCESS)
            && !data.process.verbs.contains_key(program)
            && program != "systemctl"
        {
            return;
        }
        let pos = positional(cmd);
        let words: Vec<&str> = cmd.argv.iter().skip(1).map(|w| w.value.as_str()).collect();
        if is(program, SCHEDULER) {
            self.schedules(program, &words);
        }
        if program == "systemctl"
            && pos
                .iter()
                .any(|w| matches!(*w, "enable" | "link" | "preset" | "edit" | "set-property"))
        {
            self.push(
                Kind::Persist,
                "makes a service start on its own".into(),
                None,
            );
        }
        if is(program, PRIVILEGED) {
            self.push(
                Kind::Privilege,
                format!("{program} changes users, groups or privileges"),
                None,
            );
        }
        if is(program, PROCESS) {
            self.stops_processes(program, &words);
        }
        if let Some(v) = verb_match(
            &pos,
            data.process
                .verbs
                .get(program)
                .map_or(&[][..], Vec::as_slice),
        ) {
            self.push(Kind::ProcessControl, format!("{program} {v}"), None);
        }
    }

    /// A scheduler given commands to run later, unless it only lists or removes them.
    fn schedules(&mut self, program: &str, words: &[&str]) {
        let looks = !words.is_empty()
            && words
                .iter()
                .all(|w| data().persist.scheduler_looks.iter().any(|l| l == w));
        let removes =
            program == "crontab" && words.iter().any(|w| w.starts_with('-') && w.contains('r'));
        if !looks && !removes {
            self.push(
                Kind::Persist,
                format!("{program} schedules commands to run later"),
                None,
            );
        }
    }

    /// kill, pkill, shutdown and the like; `kill -1` signals every process.
    fn stops_processes(&mut self, program: &str, words: &[&str]) {
        // `kill -0 PID` only checks, `kill -l` lists the signals.
        let only_looks = program == "kill"
            && words
                .first()
                .is_some_and(|w| matches!(*w, "-0" | "-l" | "-L" | "--list" | "--table"));
        if only_looks {
            return;
        }
        // `-1` first and followed by more words is a signal (SIGHUP), elsewhere a pid.
        let everything = words.iter().enumerate().any(|(i, w)| {
            matches!(*w, "-1" | "1" | "0")
                && !(i == 0 && w.starts_with('-') && words.len() > 1)
                && !matches!(
                    i.checked_sub(1).and_then(|j| words.get(j)),
                    Some(&"-n" | &"-s")
                )
        });
        let what = if is(program, MACHINE) {
            format!("runs `{program}`")
        } else if program == "kill" && everything {
            "signals every process it can (or init)".to_string()
        } else {
            format!("{program} stops processes")
        };
        self.push(Kind::ProcessControl, what, None);
    }
}
