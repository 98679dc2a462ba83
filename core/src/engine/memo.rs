//! The last few command lines analysed, so that the questions asked about one call (the
//! policy's decision, the built-in layer's, the managed floor, an explanation, a proposal's
//! check) analyse its line once.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::shell::{self, Analysis};

/// How many lines are kept: one call's questions come one after another, and a proposal's
/// probes are other lines, analysed once each.
const KEPT: usize = 4;

#[derive(Debug, Default)]
pub(super) struct Recent {
    lines: Mutex<VecDeque<(Arc<str>, Arc<Analysis>)>>,
    analysed: AtomicUsize,
}

impl Recent {
    /// The analysis of `command`, from the kept ones when it was analysed lately.
    pub(super) fn analyse(&self, command: &str) -> Arc<Analysis> {
        if let Some(found) = self.find(command) {
            return found;
        }
        // Analysed outside the lock: another thread may analyse the same line meanwhile,
        // which costs time, never a wrong answer (the analysis depends on the text alone).
        let analysis = Arc::new(shell::analyse(command));
        self.analysed.fetch_add(1, Ordering::Relaxed);
        // Lines over the analysis's limit are not analysed, so what is kept stays small.
        if command.len() <= shell::MAX_COMMAND_LEN {
            let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
            if lines.len() == KEPT {
                lines.pop_front();
            }
            lines.push_back((command.into(), analysis.clone()));
        }
        analysis
    }

    fn find(&self, command: &str) -> Option<Arc<Analysis>> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines
            .iter()
            .find(|(line, _)| **line == *command)
            .map(|(_, a)| a.clone())
    }

    /// How many lines were analysed (not found among the kept ones) so far.
    pub(super) fn analysed(&self) -> usize {
        self.analysed.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_asked_about_again_is_analysed_once() {
        let r = Recent::default();
        let a = r.analyse("git status && ls");
        let b = r.analyse("git status && ls");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(r.analysed(), 1);
    }

    #[test]
    fn only_the_last_few_lines_are_kept() {
        let r = Recent::default();
        for i in 0..=KEPT {
            r.analyse(&format!("echo {i}"));
        }
        assert_eq!(r.analysed(), KEPT + 1);
        r.analyse(&format!("echo {KEPT}"));
        assert_eq!(r.analysed(), KEPT + 1, "the newest is kept");
        r.analyse("echo 0");
        assert_eq!(r.analysed(), KEPT + 2, "the oldest was dropped");
    }

    #[test]
    fn a_line_too_long_to_analyse_is_not_kept() {
        let r = Recent::default();
        let long = "a".repeat(shell::MAX_COMMAND_LEN + 1);
        let a = r.analyse(&long);
        assert!(a.failure.is_some());
        r.analyse(&long);
        assert_eq!(r.analysed(), 2);
    }
}
