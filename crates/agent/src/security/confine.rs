//! The OS sandbox of `run_bash` on Linux: the shell starts from a thread confined by
//! Landlock, so it and everything it starts may read the system but write only inside
//! the workspace and the session's temporary folder (plus `/dev/null` and terminals), and, unless
//! the user turned the shell's network on, make no TCP connection. The confinement is
//! the thread's, inherited by the child; the thread ends after the spawn, so nothing
//! else of the process is confined. Where the kernel has no Landlock the shell runs
//! unconfined and `doctor` and the permission card say so.

use std::path::PathBuf;
use std::sync::OnceLock;

/// What a confined shell may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLimits {
    /// Folders (and their contents) the shell may change.
    pub writable: Vec<PathBuf>,
    /// Whether TCP connections are allowed.
    pub network: bool,
}

/// How much of the sandbox this kernel enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Writes and network both restricted.
    Full,
    /// Writes restricted; the kernel cannot restrict the network (Landlock before ABI 4).
    WritesOnly,
    /// The kernel has no Landlock (too old, or not enabled): the shell runs unconfined.
    NoLandlock,
    /// Landlock is there but confining failed (why); the shell does not run.
    Unavailable(String),
}

impl Confinement {
    /// One line for `doctor`, the permission card and the tool's metadata.
    pub fn describe(&self) -> String {
        match self {
            Confinement::Full => {
                "sandboxed (Landlock): writes only in the workspace and its own temporary folder; no network unless allowed".into()
            }
            Confinement::WritesOnly => {
                "sandboxed (Landlock): writes only in the workspace and its own temporary folder; this kernel cannot block the network".into()
            }
            Confinement::NoLandlock => {
                "NOT sandboxed: this kernel has no Landlock; run_bash can write anywhere you can"
                    .into()
            }
            Confinement::Unavailable(why) => {
                format!("NOT sandboxed: {why}; run_bash can write anywhere you can")
            }
        }
    }

    pub fn is_enforced(&self) -> bool {
        matches!(self, Confinement::Full | Confinement::WritesOnly)
    }
}

/// What this kernel enforces, probed once on a throw-away thread.
pub fn confinement() -> &'static Confinement {
    static PROBED: OnceLock<Confinement> = OnceLock::new();
    PROBED.get_or_init(|| {
        let limits = ShellLimits {
            writable: vec![std::env::temp_dir()],
            network: false,
        };
        std::thread::spawn(move || imp::confine(&limits))
            .join()
            .unwrap_or_else(|_| Confinement::Unavailable("the Landlock probe failed".into()))
    })
}

/// Starts `command` confined by `limits`. Returns the child and what was enforced; an
/// error when the sandbox should apply but could not be set up (the command does not
/// run then).
pub async fn spawn_confined(
    mut command: tokio::process::Command,
    limits: ShellLimits,
) -> std::io::Result<(tokio::process::Child, Confinement)> {
    let handle = tokio::runtime::Handle::current();
    let (sender, receiver) = tokio::sync::oneshot::channel();
    // A thread of its own: a pooled thread would stay confined for everything after.
    std::thread::spawn(move || {
        let _runtime = handle.enter();
        let confinement = imp::confine(&limits);
        let spawned = match &confinement {
            // Landlock is there and confining failed: the command does not run unconfined.
            Confinement::Unavailable(why) => Err(std::io::Error::other(format!(
                "the shell sandbox could not be set up: {why}"
            ))),
            _ => command.spawn().map(|child| (child, confinement)),
        };
        let _ = sender.send(spawned);
    });
    receiver
        .await
        .unwrap_or_else(|_| Err(std::io::Error::other("the shell sandbox thread stopped")))
}

#[cfg(target_os = "linux")]
mod imp {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, path_beneath_rules,
    };

    use super::{Confinement, ShellLimits};

    /// Devices a shell writes to in ordinary use.
    const DEVICES: [&str; 7] = [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/shm",
    ];

    /// Confines the calling thread (and what it starts from now on).
    pub fn confine(limits: &ShellLimits) -> Confinement {
        let abi = ABI::V5;
        let result = (|| {
            let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
            if !limits.network {
                ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
            }
            ruleset
                .create()?
                .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
                .add_rules(path_beneath_rules(
                    &limits.writable,
                    AccessFs::from_all(abi),
                ))?
                .add_rules(path_beneath_rules(DEVICES, AccessFs::from_all(abi)))?
                .restrict_self()
        })();
        match result {
            Ok(status) => match (status.ruleset, status.landlock) {
                (RulesetStatus::NotEnforced, _) => Confinement::NoLandlock,
                (_, LandlockStatus::Available { effective_abi, .. })
                    if !limits.network && effective_abi < ABI::V4 =>
                {
                    Confinement::WritesOnly
                }
                _ => Confinement::Full,
            },
            Err(error) => Confinement::Unavailable(error.to_string()),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Confinement, ShellLimits};

    pub fn confine(_limits: &ShellLimits) -> Confinement {
        Confinement::NoLandlock
    }
}
