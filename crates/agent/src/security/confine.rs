//! The OS sandbox of `run_bash` on Linux. The shell starts from a thread confined by
//! Landlock, so it and everything it starts may
//! - **read** only the system's folders (`/usr`, `/bin`, `/lib*`, `/opt`, `/sys`, `/etc`
//!   but its secret files, a few files of `/proc` and devices of `/dev`; no other
//!   process's `/proc/PID`), the workspace, its own temporary folder and
//!   the folders the user added (`SHELL_READ`): the home folder outside the workspace
//!   and Asterism's data folder are not there to read, whatever a command does with
//!   them (`base64 ~/.ssh/id_rsa` fails; it is not scrubbed afterwards);
//! - **write** only inside the workspace and its temporary folder (plus `/dev/null` and
//!   terminals);
//! - unless the user turned the shell's network on, open **no socket** at all (a seccomp
//!   filter: no TCP, no UDP, and no Unix socket, so no way to ask `systemd-run` or
//!   D-Bus for an unconfined process) and make no TCP connection (Landlock, ABI 4).
//!
//! The shell is the leader of a session of its own and cannot start another one
//! (`setsid` is refused), so when it ends, times out or is cancelled every process it
//! started is killed with it ([`kill_session`]). The confinement is the spawning
//! thread's, inherited by the child; the thread ends after the spawn, so nothing else of
//! the process is confined. Where the kernel has no Landlock the shell runs unconfined
//! and `doctor`, the permission card and each result say so.

use std::path::PathBuf;
use std::sync::OnceLock;

/// What a confined shell may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellLimits {
    /// Folders (and their contents) the shell may read and change.
    pub writable: Vec<PathBuf>,
    /// Folders outside the system's the shell may read (`SHELL_READ`).
    pub readable: Vec<PathBuf>,
    /// Whether sockets (and TCP connections) are allowed.
    pub network: bool,
}

/// How much of the sandbox this kernel enforces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Reads, writes and network all restricted.
    Full,
    /// Reads and writes restricted; the kernel cannot restrict TCP (Landlock before ABI
    /// 4); sockets are still refused by seccomp.
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
                "sandboxed (Landlock, seccomp): reads only system folders, the workspace and its temporary folder; writes only in the workspace and that folder; no network unless allowed".into()
            }
            Confinement::WritesOnly => {
                "sandboxed (Landlock, seccomp): reads only system folders, the workspace and its temporary folder; writes only in the workspace and that folder; sockets refused (this kernel cannot filter TCP itself)".into()
            }
            Confinement::NoLandlock => {
                "NOT sandboxed: this kernel has no Landlock; run_bash can read and write anywhere you can"
                    .into()
            }
            Confinement::Unavailable(why) => {
                format!("NOT sandboxed: {why}; run_bash can read and write anywhere you can")
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
            readable: Vec::new(),
            network: false,
        };
        std::thread::spawn(move || imp::confine(&limits))
            .join()
            .unwrap_or_else(|_| Confinement::Unavailable("the Landlock probe failed".into()))
    })
}

/// Starts `command` confined by `limits`, as the leader of a session of its own. Returns
/// the child and what was enforced; an error when the sandbox should apply but could not
/// be set up (the command does not run then).
pub async fn spawn_confined(
    mut command: tokio::process::Command,
    limits: ShellLimits,
) -> std::io::Result<(tokio::process::Child, Confinement)> {
    imp::isolate(&mut command, limits.network)?;
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

/// Kills every process of the session `leader` started (the shell of
/// [`spawn_confined`] and whatever it left running in the background). Returns how many
/// were signalled.
pub fn kill_session(leader: u32) -> usize {
    imp::kill_session(leader)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use landlock::{
        ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, path_beneath_rules,
    };
    use seccompiler::{BpfProgram, SeccompAction, SeccompFilter};

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

    /// The system's folders and files, readable (those that exist). `/etc` is added
    /// entry by entry, without [`ETC_SECRETS`]. Not `/proc` as a whole: another
    /// process's `/proc/PID/environ` and `cmdline` (Asterism's own, with its keys)
    /// would be readable, as Landlock's ptrace scoping does not stop it on every kernel;
    /// not `/dev` as a whole: a disk device read by root bypasses every path rule.
    const SYSTEM: [&str; 24] = [
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/opt",
        "/sys",
        "/proc/cpuinfo",
        "/proc/meminfo",
        "/proc/stat",
        "/proc/loadavg",
        "/proc/uptime",
        "/proc/version",
        "/proc/filesystems",
        "/proc/sys",
        "/dev/random",
        "/dev/urandom",
        "/nix/store",
        "/var/lib/texmf",
        "/var/cache/fontconfig",
        "/run/systemd/resolve",
        "/etc/ssl/certs",
    ];

    /// What in `/etc` holds passwords, keys or network secrets.
    const ETC_SECRETS: [&str; 14] = [
        "shadow",
        "shadow-",
        "gshadow",
        "gshadow-",
        "sudoers",
        "sudoers.d",
        "ssh",
        "ssl",
        "krb5.keytab",
        "NetworkManager",
        "wpa_supplicant",
        "wireguard",
        "openvpn",
        "ppp",
    ];

    fn readable_system() -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = SYSTEM
            .iter()
            .map(PathBuf::from)
            .filter(|path| path.exists())
            .collect();
        if let Ok(entries) = std::fs::read_dir("/etc") {
            for entry in entries.flatten() {
                let name = entry.file_name();
                if !ETC_SECRETS.iter().any(|secret| name == *secret) {
                    paths.push(entry.path());
                }
            }
        }
        paths
    }

    /// Confines the calling thread (and what it starts from now on).
    pub fn confine(limits: &ShellLimits) -> Confinement {
        let abi = ABI::V5;
        let result = (|| {
            let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
            if !limits.network {
                ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
            }
            let readable: Vec<&PathBuf> = limits
                .readable
                .iter()
                .filter(|path| path.exists())
                .collect();
            ruleset
                .create()?
                .add_rules(path_beneath_rules(
                    readable_system(),
                    AccessFs::from_read(abi),
                ))?
                .add_rules(path_beneath_rules(readable, AccessFs::from_read(abi)))?
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

    /// The seccomp filter of a shell: `setsid` refused (it stays in its session), and
    /// without network every new socket and io_uring (which could open one unseen).
    fn filter(network: bool) -> std::io::Result<BpfProgram> {
        let mut refused: Vec<i64> = vec![libc::SYS_setsid];
        if !network {
            refused.extend([libc::SYS_socket, libc::SYS_io_uring_setup]);
        }
        let rules = refused
            .into_iter()
            .map(|syscall| (syscall, Vec::new()))
            .collect::<BTreeMap<_, _>>();
        let arch = std::env::consts::ARCH
            .try_into()
            .map_err(|error| std::io::Error::other(format!("seccomp: {error:?}")))?;
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(libc::EPERM as u32),
            arch,
        )
        .and_then(BpfProgram::try_from)
        .map_err(|error| std::io::Error::other(format!("seccomp: {error}")))
    }

    /// Makes the command the leader of a new session, then installs [`filter`] in it,
    /// between fork and exec.
    pub fn isolate(command: &mut tokio::process::Command, network: bool) -> std::io::Result<()> {
        let program = filter(network)?;
        #[allow(unsafe_code)]
        // SAFETY: the closure runs in the forked child before exec and calls only
        // `setsid` and the seccomp `prctl`s, which are async-signal-safe; it allocates
        // nothing (the program was built before the fork).
        unsafe {
            command.pre_exec(move || {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                seccompiler::apply_filter(&program)
                    .map_err(|error| std::io::Error::other(error.to_string()))
            });
        }
        Ok(())
    }

    pub fn kill_session(leader: u32) -> usize {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return 0;
        };
        let mut killed = 0;
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|name| name.parse::<i32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // After the command's name (in parentheses): state, ppid, pgrp, session.
            let session = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(3))
                .and_then(|field| field.parse::<u32>().ok());
            if session == Some(leader) {
                #[allow(unsafe_code)]
                // SAFETY: `kill` takes plain integers and has no memory effects.
                let sent = unsafe { libc::kill(pid, libc::SIGKILL) } == 0;
                killed += usize::from(sent);
            }
        }
        killed
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use super::{Confinement, ShellLimits};

    pub fn confine(_limits: &ShellLimits) -> Confinement {
        Confinement::NoLandlock
    }

    pub fn isolate(_command: &mut tokio::process::Command, _network: bool) -> std::io::Result<()> {
        Ok(())
    }

    pub fn kill_session(_leader: u32) -> usize {
        0
    }
}
