//! A real model server for the real-model tests: llama.cpp's `llama-server` with a small
//! GGUF model on loopback, both installed by `scripts/real-model.sh` (which prints the
//! `LLAMA_SERVER` and `LLAMA_MODEL` paths `scripts/test.sh` passes on).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The name the server gives the model (`--alias`): what `LLM_MODEL` is set to.
pub const LLAMA_MODEL_NAME: &str = "gemma-3-270m";

/// A running `llama-server`, stopped (killed and reaped) when dropped.
pub struct LlamaServer {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

/// How the server generates.
#[derive(Debug, Clone, Copy)]
pub struct LlamaOptions {
    /// Tokens a reply may have at most (`--n-predict`); Asterism sends no limit.
    pub max_tokens: u32,
}

impl Default for LlamaOptions {
    fn default() -> Self {
        Self { max_tokens: 48 }
    }
}

/// What the server runs: `LLAMA_SERVER`, `LLAMA_MODEL` and `LLAMA_TEMPLATE`, the chat
/// template. Gemma 3 270M's GGUF carries none that describes tools; the server is given
/// Gemma 4's from llama.cpp's `models/templates`, for which llama.cpp has its own
/// handler: it renders the tools, constrains a required call to its format
/// (`<|tool_call>call:NAME{…}<tool_call|>`) and parses it back into `tool_calls`.
#[derive(Debug, Clone)]
pub struct LlamaFiles {
    pub server: PathBuf,
    pub model: PathBuf,
    pub template: PathBuf,
}

/// The files from the environment; a clear panic when one is not set (the tests that
/// need them are `#[ignore]`d and run by `scripts/test.sh` after
/// `scripts/real-model.sh`).
pub fn llama_files() -> LlamaFiles {
    let path = |name: &str| {
        std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
            panic!("{name} is not set: run `eval \"$(scripts/real-model.sh)\"` first (scripts/test.sh does)")
        })
    };
    LlamaFiles {
        server: path("LLAMA_SERVER"),
        model: path("LLAMA_MODEL"),
        template: path("LLAMA_TEMPLATE"),
    }
}

impl LlamaServer {
    /// Starts the server from `llama_files()` and waits until it has loaded the model.
    pub fn start(options: LlamaOptions) -> std::io::Result<Self> {
        Self::start_with(&llama_files(), options)
    }

    pub fn start_with(files: &LlamaFiles, options: LlamaOptions) -> std::io::Result<Self> {
        let dir = tempfile::tempdir()?;
        let log = dir.path().join("llama-server.log");
        let port = free_port()?;
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
        let child = Command::new(&files.server)
            .arg("--model")
            .arg(&files.model)
            .arg("--chat-template-file")
            .arg(&files.template)
            .args([
                "--jinja",
                "--alias",
                LLAMA_MODEL_NAME,
                "--host",
                "127.0.0.1",
            ])
            .args(["--port", &port.to_string()])
            .args(["--ctx-size", "16384", "--parallel", "1"])
            .args(["--n-predict", &options.max_tokens.to_string()])
            // Greedy: the same answer every run.
            .args([
                "--threads",
                &threads.to_string(),
                "--seed",
                "7",
                "--temp",
                "0",
            ])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log)?)
            .stderr(std::fs::File::create(dir.path().join("llama-server.err"))?)
            .spawn()?;
        let mut server = Self {
            child,
            port,
            log,
            _dir: dir,
        };
        // Once it answers, it has surely exec'd: right after `spawn` the child can
        // still carry the test thread's name for a moment.
        server.wait_until_ready(Duration::from_secs(180))?;
        server.check_it_is_the_server()?;
        Ok(server)
    }

    /// `LLM_BASE_URL` for this server.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server logged (for a failing test's message).
    pub fn log(&self) -> String {
        let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
        let mut text = read(&self.log);
        text.push_str(&read(&self.log.with_extension("err")));
        let start = text.len().saturating_sub(4000);
        let start = (start..text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        text[start..].to_string()
    }

    /// The pid spawned is `llama-server` itself (no shell in between).
    fn check_it_is_the_server(&self) -> std::io::Result<()> {
        let comm = std::fs::read_to_string(format!("/proc/{}/comm", self.child.id()))?;
        if comm.trim() == "llama-server" {
            Ok(())
        } else {
            Err(std::io::Error::other(format!(
                "pid {} is {comm:?}, not llama-server",
                self.child.id()
            )))
        }
    }

    fn wait_until_ready(&mut self, limit: Duration) -> std::io::Result<()> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Some(status) = self.child.try_wait()? {
                return Err(std::io::Error::other(format!(
                    "llama-server ended ({status}) before it was ready:\n{}",
                    self.log()
                )));
            }
            if health(self.port) == Some(200) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(std::io::Error::other(format!(
            "llama-server was not ready within {limit:?}:\n{}",
            self.log()
        )))
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The status of `GET /health` (200 once the model is loaded, 503 while loading).
fn health(port: u16) -> Option<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}
