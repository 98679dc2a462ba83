//! `harness9 sandbox -- CMD…`: runs a command contained (see [`harness9::sandbox`]).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::Args;

use super::{PolicyArgs, EXIT_USAGE};
use harness9::sandbox::{self, SandboxError, Setup};

/// Exit code when the command could not be run contained (no sandbox here, or a project it
/// refuses): the command did not run.
pub const EXIT_NOT_CONTAINED: i32 = 125;

#[derive(Args, Debug)]
pub struct SandboxArgs {
    /// The caches outside the project the command may also write (`cargo`: Cargo's registry
    /// and git caches; `build`: every profile's). No profile has the network.
    #[arg(long, value_name = "NAME", default_value = "default",
          value_parser = PossibleValuesParser::new(sandbox::PROFILES.iter().map(|p| p.name)))]
    profile: String,
    /// The project folder, which the command may write and starts in (default: the working
    /// folder). Its policies name the protected paths hidden from the command.
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Print bubblewrap's command line instead of running the command.
    #[arg(long)]
    print: bool,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<OsString>,
}

pub fn sandbox(a: SandboxArgs) -> i32 {
    let Some(profile) = sandbox::profile(&a.profile) else {
        eprintln!("error: no sandbox profile `{}`", a.profile);
        return EXIT_USAGE;
    };
    // The hard protections as the hook and `check` see them for this project.
    let policy = PolicyArgs {
        policies: Vec::new(),
        settings: None,
        no_builtin: false,
        cwd: a.cwd.clone(),
    };
    let engine = match policy.engine() {
        Ok(e) => e,
        Err(code) => {
            eprintln!("error: the command was not run");
            return code;
        }
    };
    let ctx = engine.context();
    let setup = Setup {
        project: &ctx.cwd,
        home: ctx.home.as_deref(),
        protections: engine.protections(),
        ctx,
        profile,
    };
    match run(&setup, &a) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}; the command was not run");
            EXIT_NOT_CONTAINED
        }
    }
}

fn run(setup: &Setup, a: &SandboxArgs) -> Result<i32, SandboxError> {
    // On another system `prepare` says there is no sandbox, before bubblewrap is looked for.
    let prepared = sandbox::prepare(setup)?;
    let bwrap = sandbox::find_bwrap()?;
    if a.print {
        let mut line = vec![bwrap.to_string_lossy().into_owned()];
        line.extend(
            prepared
                .args()
                .iter()
                .map(|s| s.to_string_lossy().into_owned()),
        );
        line.push("--".into());
        line.extend(a.command.iter().map(|s| s.to_string_lossy().into_owned()));
        println!("{}", line.join(" "));
        return Ok(0);
    }
    prepared.run(&bwrap, &a.command)
}
