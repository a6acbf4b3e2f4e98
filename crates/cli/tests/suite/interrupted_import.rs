//! An interrupted import never leaves a broken paper. The real `asterism` process (its
//! own pid, checked to be the program and not a shell) is stopped with SIGINT or
//! SIGKILL at random moments of a four-paper import, again and again; then the same
//! command is run to the end. Every paper must end with passages, once, in a database
//! SQLite finds intact.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use asterism_testkit::fixture_path;

const PAPERS: [&str; 4] = [
    "celerite_ms.pdf",
    "gammapy_v1_ms.pdf",
    "paperqa_2407.01603.pdf",
    "rudolf_ms.pdf",
];

fn import(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_asterism"));
    command
        .args(["library", "import", "--offline", "--no-index", "papers"])
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ASTERISM_DATA_DIR", home.join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none")
        .env("SESAME_URL", "http://127.0.0.1:9/sesame")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// A small deterministic generator (xorshift), seeded from the clock and printed, so a
/// failing run can be replayed with `ASTERISM_KILL_SEED`.
struct Random(u64);

impl Random {
    fn seeded() -> Self {
        let seed = std::env::var("ASTERISM_KILL_SEED")
            .ok()
            .and_then(|seed| seed.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|time| time.as_nanos() as u64)
                    .unwrap_or(1)
            })
            | 1;
        eprintln!("ASTERISM_KILL_SEED={seed}");
        Self(seed)
    }

    /// Milliseconds in `low..high`.
    fn millis(&mut self, low: u64, high: u64) -> Duration {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_millis(low + self.0 % (high - low))
    }
}

/// The program the pid names, from /proc: a kill must reach `asterism` itself.
fn program_of(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim().to_string())
        .unwrap_or_default()
}

fn send(child: &Child, signal: &str) {
    assert_eq!(program_of(child.id()), "asterism", "pid {}", child.id());
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success(), "kill -{signal} {}", child.id());
}

/// Stops the import after `delay` with `signal`; true when the signal ended it (false:
/// it had finished before).
fn interrupt(home: &Path, delay: Duration, signal: &str) -> bool {
    let mut child = import(home).spawn().unwrap();
    let started = Instant::now();
    while started.elapsed() < delay {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if child.try_wait().unwrap().is_some() {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
        return false;
    }
    send(&child, signal);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if signal == "KILL" {
        assert_eq!(output.status.signal(), Some(9), "{output:?}");
    } else {
        assert_eq!(output.status.code(), Some(130), "{output:?}");
        let said = stderr
            .lines()
            .find(|line| line.starts_with("stopped after "))
            .unwrap_or_else(|| panic!("Ctrl-C said nothing: {stderr}"));
        assert!(
            said.ends_with(" of 4 papers; run the same command again to finish"),
            "{said}"
        );
    }
    true
}

#[test]
fn an_import_killed_at_random_moments_finishes_every_paper_once_when_run_again() {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("papers");
    std::fs::create_dir_all(&folder).unwrap();
    for name in PAPERS {
        std::fs::copy(fixture_path(&format!("pdfs/{name}")), folder.join(name)).unwrap();
    }
    let mut random = Random::seeded();
    let mut stopped = [0; 2];
    for round in 0..8 {
        let (signal, slot) = if round % 2 == 0 {
            ("INT", 0)
        } else {
            ("KILL", 1)
        };
        if interrupt(home.path(), random.millis(150, 2500), signal) {
            stopped[slot] += 1;
        }
    }
    assert!(
        stopped[0] >= 2 && stopped[1] >= 2,
        "too few imports were stopped to test anything (SIGINT, SIGKILL): {stopped:?}"
    );

    let last = import(home.path()).stdout(Stdio::piped()).output().unwrap();
    assert!(last.status.success(), "{last:?}");
    let list = Command::new(env!("CARGO_BIN_EXE_asterism"))
        .args(["library", "list", "--json"])
        .env_clear()
        .env("HOME", home.path())
        .env("ASTERISM_DATA_DIR", home.path().join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none")
        .output()
        .unwrap();
    assert!(list.status.success(), "{list:?}");
    let papers: Vec<serde_json::Value> = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(
        papers.len(),
        PAPERS.len(),
        "one paper per file: {papers:#?}"
    );
    for paper in &papers {
        assert!(
            paper["chunks"].as_i64().unwrap() > 0,
            "no passages: {paper:#}"
        );
        assert_eq!(paper["status"], "unidentified", "{paper:#}");
        assert_eq!(paper["files"].as_array().unwrap().len(), 1, "{paper:#}");
    }
    let mut names: Vec<&str> = papers
        .iter()
        .map(|paper| paper["files"][0]["originalName"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, PAPERS);

    let integrity = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = asterism_store::Store::open_in_dir(&home.path().join("data"))
            .await
            .unwrap();
        store.integrity_check().await.unwrap()
    });
    assert_eq!(integrity, "ok");
    let stored: Vec<String> = std::fs::read_dir(home.path().join("data/papers"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    let copies = stored.iter().filter(|name| name.ends_with(".pdf")).count();
    assert_eq!(
        copies,
        PAPERS.len(),
        "one stored copy per paper: {stored:?}"
    );
    eprintln!("stopped (SIGINT, SIGKILL): {stopped:?}; stored: {stored:?}");
}
