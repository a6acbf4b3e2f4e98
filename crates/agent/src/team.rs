//! Teams: named teammates (subagents that run beside the main agent) talk through file
//! inboxes, one JSON Lines file per member under `{data_dir}/teams/{session}/`. Every
//! read-modify-write of an inbox holds an exclusive OS lock on the file, so concurrent
//! senders never interleave or lose a message, and draining is atomic.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

/// The lead's name in a team.
pub const LEAD: &str = asterism_protocol::MAIN_AGENT;

/// One message between teammates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamMessage {
    pub from: String,
    pub to: String,
    pub content: String,
    pub sent_at: String,
}

#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("the team inbox could not be used: {0}")]
    Io(#[from] std::io::Error),
    #[error("\"{0}\" is not a valid teammate name (lower-case letters, digits, dashes)")]
    BadName(String),
    #[error("there is no teammate named \"{0}\"; the team is: {1}")]
    Unknown(String, String),
}

/// Teammates started by this process: (name, task).
type Running = Arc<Mutex<Vec<(String, JoinHandle<()>)>>>;

/// The team of each session: its members' inboxes and the teammates running now.
#[derive(Clone, Default)]
pub struct TeamManager {
    root: PathBuf,
    running: Running,
}

impl std::fmt::Debug for TeamManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamManager")
            .field("root", &self.root)
            .finish()
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Opens (creating) a file and holds an exclusive lock on it until dropped.
fn locked(path: &Path) -> std::io::Result<File> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    file.lock()?;
    Ok(file)
}

impl TeamManager {
    /// Teams live under `{data_dir}/teams`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            root: data_dir.join("teams"),
            running: Arc::default(),
        }
    }

    fn session_dir(&self, session_id: &str) -> PathBuf {
        // Session ids are UUIDs; anything else is flattened to a safe folder name.
        let safe: String = session_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.root.join(safe)
    }

    fn inbox(&self, session_id: &str, name: &str) -> PathBuf {
        self.session_dir(session_id).join(format!("{name}.jsonl"))
    }

    /// Adds a member (its inbox is created empty).
    pub fn join(&self, session_id: &str, name: &str) -> Result<(), TeamError> {
        if !valid_name(name) {
            return Err(TeamError::BadName(name.into()));
        }
        locked(&self.inbox(session_id, name))?;
        Ok(())
    }

    /// The members of a session's team, the lead first.
    pub fn members(&self, session_id: &str) -> Vec<String> {
        let mut members: Vec<String> = std::fs::read_dir(self.session_dir(session_id))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter_map(|entry| {
                        entry
                            .file_name()
                            .to_str()
                            .and_then(|name| name.strip_suffix(".jsonl"))
                            .map(str::to_string)
                    })
                    .filter(|name| name != LEAD)
                    .collect()
            })
            .unwrap_or_default();
        members.sort();
        members.insert(0, LEAD.to_string());
        members
    }

    /// Appends a message to `to`'s inbox (under its lock).
    pub fn send(
        &self,
        session_id: &str,
        from: &str,
        to: &str,
        content: &str,
    ) -> Result<TeamMessage, TeamError> {
        let members = self.members(session_id);
        if !members.iter().any(|member| member == to) {
            return Err(TeamError::Unknown(to.into(), members.join(", ")));
        }
        let message = TeamMessage {
            from: from.into(),
            to: to.into(),
            content: content.into(),
            sent_at: asterism_store::now_rfc3339(),
        };
        let mut line = serde_json::to_string(&message).map_err(std::io::Error::other)?;
        line.push('\n');
        let mut file = locked(&self.inbox(session_id, to))?;
        file.write_all(line.as_bytes())?;
        file.flush()?;
        Ok(message)
    }

    /// Reads and empties `name`'s inbox (under its lock), oldest first. Lines that are not
    /// messages (a torn write from a crash) are skipped.
    pub fn drain(&self, session_id: &str, name: &str) -> Result<Vec<TeamMessage>, TeamError> {
        let path = self.inbox(session_id, name);
        let mut file = locked(&path)?;
        file.seek(SeekFrom::Start(0))?;
        let messages = BufReader::new(&file)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str(&line).ok())
            .collect();
        file.set_len(0)?;
        Ok(messages)
    }

    /// Keeps a running teammate's task (to wait for or stop it).
    pub fn track(&self, name: &str, handle: JoinHandle<()>) {
        if let Ok(mut running) = self.running.lock() {
            running.retain(|(_, handle)| !handle.is_finished());
            running.push((name.to_string(), handle));
        }
    }

    /// Names of the teammates still working.
    pub fn running(&self) -> Vec<String> {
        self.running
            .lock()
            .map(|running| {
                running
                    .iter()
                    .filter(|(_, handle)| !handle.is_finished())
                    .map(|(name, _)| name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits for every teammate started so far.
    pub async fn wait_idle(&self) {
        let handles: Vec<JoinHandle<()>> = match self.running.lock() {
            Ok(mut running) => running.drain(..).map(|(_, handle)| handle).collect(),
            Err(_) => return,
        };
        for handle in handles {
            let _ = handle.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_senders_lose_nothing_and_drain_empties() {
        let dir = tempfile::tempdir().unwrap();
        let team = TeamManager::new(dir.path());
        team.join("s1", "reader").unwrap();
        let threads: Vec<_> = (0..8)
            .map(|sender| {
                let team = team.clone();
                std::thread::spawn(move || {
                    for n in 0..50 {
                        team.send(
                            "s1",
                            &format!("w{sender}"),
                            "reader",
                            &format!("{sender}:{n} {}", "x".repeat(200)),
                        )
                        .unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let messages = team.drain("s1", "reader").unwrap();
        assert_eq!(messages.len(), 400);
        for sender in 0..8 {
            let from = format!("w{sender}");
            let order: Vec<usize> = messages
                .iter()
                .filter(|m| m.from == from)
                .map(|m| m.content.split([':', ' ']).nth(1).unwrap().parse().unwrap())
                .collect();
            assert_eq!(order, (0..50).collect::<Vec<_>>());
        }
        assert!(team.drain("s1", "reader").unwrap().is_empty());
        assert_eq!(team.members("s1"), ["main", "reader"]);
        assert!(matches!(
            team.send("s1", "main", "ghost", "hi"),
            Err(TeamError::Unknown(..))
        ));
        assert!(matches!(
            team.join("s1", "../x"),
            Err(TeamError::BadName(_))
        ));
    }
}
