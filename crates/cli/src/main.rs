//! `asterism`: the Asterism research agent, headless.

mod doctor;
mod library;
mod mcp;
mod memories;
mod news;
mod papers;
mod permissions;
mod prompt;
mod render;
mod sessions;
mod signals;
mod skills;
mod tasks;

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use std::time::Duration;

use asterism_agent::permissions::{PermissionBroker, PermissionMode, Rule, RuleDecision};
use asterism_agent::questions::QuestionBroker;
use asterism_agent::{FnSink, RunRequest, Settings, bootstrap};
use asterism_protocol::{AgentEvent, RunFinishReason};
use clap::{Parser, Subcommand};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "asterism",
    version,
    about = "A research agent for astronomers: NASA ADS, arXiv, CDS Sesame and your own paper library"
)]
struct Cli {
    /// The folder the agent's file tools and shell may use (default: the working
    /// directory, unless it is / or your home folder: then there is none).
    #[arg(long, global = true, value_name = "DIR", env = "ASTERISM_WORKSPACE")]
    workspace: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Ask the agent a question; the timeline streams to the terminal.
    Ask {
        /// The question, e.g. "Where is NGC 4258?"
        question: String,
        /// Continue this session instead of starting a new one.
        #[arg(long)]
        session: Option<String>,
        /// If another run holds the session, wait for it instead of exiting with 3.
        #[arg(long, requires = "session")]
        wait: bool,
        /// Print one AgentEvent JSON object per line instead of the readable timeline.
        #[arg(long)]
        json: bool,
        /// Ask the model to think (Qwen/DashScope) and show its thinking.
        #[arg(long)]
        thinking: bool,
        /// Model calls before the run stops (default ASTERISM_MAX_STEPS).
        #[arg(long)]
        max_steps: Option<u32>,
        /// Make the first step call this tool (`tool_choice`), e.g. `--tool query_target`:
        /// for a small local model that does not call tools on its own.
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Let a tool run without asking, e.g. `--allow file_write`, `--allow run_bash`
        /// (every command), `--allow "run_bash(git status)"` (commands starting with
        /// those words; each part of a compound command must be allowed; never one
        /// with an option that runs code, such as `git -c` or `find -exec`) or
        /// `--allow "run_bash(=make test)"` (exactly that command). Repeatable.
        #[arg(long = "allow", value_name = "RULE")]
        allow: Vec<String>,
        /// default (ask before writes and commands), read-only, accept-edits or bypass.
        #[arg(long, default_value = "default", value_parser = parse_mode)]
        permission_mode: PermissionMode,
    },
    /// Stored sessions: list, show or replay them (offline).
    Sessions {
        #[command(subcommand)]
        command: sessions::SessionsCommand,
    },
    /// Resolve an object name through CDS Sesame.
    Target {
        /// The name, e.g. "NGC 4258".
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Check the configuration, the database and which services answer.
    Doctor,
    /// New arXiv submissions ranked for your library, with the reasons (once a day).
    News(news::NewsArgs),
    /// Papers from NASA ADS and arXiv.
    Papers {
        #[command(subcommand)]
        command: papers::PapersCommand,
    },
    /// MCP servers whose tools the agent may use (`{data dir}/mcp.json`).
    Mcp {
        #[command(subcommand)]
        command: mcp::McpCommand,
    },
    /// What the agent remembers across sessions.
    Memories {
        #[command(subcommand)]
        command: memories::MemoriesCommand,
    },
    /// Permission rules stored for every session.
    Permissions {
        #[command(subcommand)]
        command: permissions::PermissionsCommand,
    },
    /// Your paper library: import, list, search, delete, export BibTeX.
    Library {
        #[command(subcommand)]
        command: library::LibraryCommand,
    },
    /// Answer a question from your library, with page and section citations.
    Rag {
        question: String,
        #[command(flatten)]
        filter: library::FilterArgs,
        #[arg(long)]
        json: bool,
    },
    /// Skills: instructions for whole tasks the agent can load.
    Skills {
        #[command(subcommand)]
        command: skills::SkillsCommand,
    },
    /// The agent's todo lists and background tasks (of the latest session by default).
    Tasks {
        #[arg(long)]
        session: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

fn parse_mode(text: &str) -> Result<PermissionMode, String> {
    PermissionMode::parse(text).ok_or_else(|| {
        format!("unknown permission mode {text:?}: use default, read-only, accept-edits or bypass")
    })
}

fn main() -> ExitCode {
    // `asterism … | head`: when the reader goes away, stop quietly as other Unix tools
    // do (status 141, SIGPIPE's) instead of panicking in println!.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info
            .payload_as_str()
            .is_some_and(|message| message.contains("Broken pipe"))
        {
            std::process::exit(141);
        }
        default_hook(info);
    }));
    let _ = rustls::crypto::ring::default_provider().install_default();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASTERISM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let loaded = Settings::load();
    if matches!(cli.command, Command::Doctor) {
        // doctor names a bad value's file and still runs every other check.
        return match loaded {
            Ok(mut settings) => {
                choose_workspace(&mut settings, cli.workspace)?;
                doctor::run(&settings).await
            }
            Err(error) => doctor::run_after_load_error(&error, cli.workspace).await,
        };
    }
    let mut settings = loaded.context("reading the configuration")?;
    choose_workspace(&mut settings, cli.workspace)?;
    match cli.command {
        Command::Ask {
            question,
            session,
            wait,
            json,
            thinking,
            max_steps,
            tool,
            allow,
            permission_mode,
        } => {
            if let Some(max_steps) = max_steps {
                anyhow::ensure!(max_steps > 0, "--max-steps must be at least 1");
                settings.max_steps = max_steps;
            }
            let rules = allow
                .iter()
                .map(|rule| Rule::parse(RuleDecision::Allow, rule))
                .collect::<Result<Vec<_>, _>>()?;
            let options = AskOptions {
                session,
                wait,
                json,
                thinking: thinking || settings.enable_thinking,
                rules,
                mode: permission_mode,
                first_tool: tool,
            };
            ask(&settings, question, options).await
        }
        Command::Sessions { command } => sessions::run(&settings, command).await,
        Command::Target { name, json } => target(&settings, &name, json).await,
        Command::Doctor => doctor::run(&settings).await,
        Command::Permissions { command } => permissions::run(&settings, command).await,
        Command::Papers { command } => papers::run(&settings, command).await,
        Command::News(args) => news::run(&settings, args).await,
        Command::Memories { command } => memories::run(&settings, command).await,
        Command::Mcp { command } => mcp::run(&settings, command).await,
        Command::Skills { command } => skills::run(&settings, command),
        Command::Library { command } => library::run(&settings, command).await,
        Command::Rag {
            question,
            filter,
            json,
        } => library::rag(&settings, question, filter, json).await,
        Command::Tasks { session, json } => tasks::run(&settings, session, json).await,
    }
}

/// The CLI's workspace: `--workspace` (or `ASTERISM_WORKSPACE`), else the working
/// directory. A folder given explicitly must be usable; the working directory may be `/`
/// or the home folder, and then there is no workspace (said once, by `ask`).
fn choose_workspace(
    settings: &mut Settings,
    explicit: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let given = explicit.is_some();
    settings.set_workspace(explicit.or_else(|| std::env::current_dir().ok()));
    if given && let Some(problem) = &settings.workspace_problem {
        anyhow::bail!("--workspace: {problem}");
    }
    Ok(())
}

struct AskOptions {
    session: Option<String>,
    wait: bool,
    json: bool,
    thinking: bool,
    rules: Vec<Rule>,
    mode: PermissionMode,
    first_tool: Option<String>,
}

async fn ask(
    settings: &Settings,
    question: String,
    options: AskOptions,
) -> anyhow::Result<ExitCode> {
    let AskOptions {
        session,
        wait,
        json,
        thinking,
        rules,
        mode,
        first_tool,
    } = options;
    anyhow::ensure!(!question.trim().is_empty(), "the question is empty");
    if let Some(problem) = &settings.workspace_problem {
        eprintln!(
            "note: no workspace ({problem}); the agent's file tools reach only the library, and run_bash is off. Start asterism in a project folder or pass --workspace DIR."
        );
    }
    let services = bootstrap::open_services(settings).await?;
    if let Some(session) = &session {
        services
            .store
            .session(session)
            .await
            .with_context(|| format!("cannot continue session {session}"))?;
    }
    // Permission questions are asked on the terminal; without one, asking means no
    // (unless --allow covers the call).
    let interactive = std::io::stdin().is_terminal();
    let broker = PermissionBroker::new(Duration::from_secs(300), interactive);
    let questions = QuestionBroker::new(asterism_agent::questions::DEFAULT_TIMEOUT, interactive);
    let runtime = bootstrap::runtime(settings, services.clone())?
        .with_broker(broker.clone())
        .with_questions(questions.clone())
        .with_grants(rules)
        .with_permission_mode(mode)
        .with_wait_for_session(wait);
    let (requests, prompts) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(prompt::answer_requests(prompts, broker, questions));
    let cancel = CancellationToken::new();
    let stopped_by = signals::cancel_on_signal(cancel.clone());
    let printer = render::Printer::new(json, thinking, std::io::stdout().is_terminal());
    let memory_printer = render::Printer::new(json, false, std::io::stdout().is_terminal());
    let sink = Arc::new(FnSink(move |event: AgentEvent| {
        printer.print(&event);
        if let AgentEvent::PermissionRequest { .. } | AgentEvent::AskUser { .. } = &event {
            let _ = requests.send(event);
        }
    }));
    let outcome = runtime
        .run(
            RunRequest {
                session_id: session,
                question,
                enable_thinking: thinking,
                first_tool,
            },
            sink,
            cancel.clone(),
        )
        .await;
    if outcome.reason == RunFinishReason::Completed {
        after_answer(
            &services,
            &runtime,
            settings,
            &outcome,
            json,
            &cancel,
            memory_printer,
        )
        .await;
    }
    if !json {
        eprintln!("session {}", outcome.session_id);
    }
    Ok(ask_exit_code(&outcome, settings, stopped_by.exit_code()))
}

/// After an answer: background tasks and teammates finish before the process ends
/// (their results are stored for the next run of the session; Ctrl-C leaves them as
/// interrupted), then what is worth remembering is saved when memory extraction is on.
async fn after_answer(
    services: &asterism_agent::Services,
    runtime: &asterism_agent::AgentRuntime,
    settings: &Settings,
    outcome: &asterism_agent::RunOutcome,
    json: bool,
    cancel: &CancellationToken,
    memory_printer: render::Printer,
) {
    let background = services.background.running_ids().len() + services.team.running().len();
    if background > 0 {
        if !json {
            eprintln!(
                "waiting for {background} background task(s) to finish (Ctrl-C to leave them)…"
            );
        }
        tokio::select! {
            () = async {
                services.background.wait_idle().await;
                services.team.wait_idle().await;
            } => {}
            () = cancel.cancelled() => services.background.shutdown(),
        }
    }
    if settings.memory_extraction {
        let sink = Arc::new(FnSink(move |event: AgentEvent| {
            memory_printer.print(&event);
        }));
        if let Err(error) = runtime
            .extract_memories(&outcome.session_id, sink, cancel.clone())
            .await
        {
            eprintln!("warning: memory extraction failed: {error}");
        }
    }
}

/// How `ask` ends: 0 answered, 4 at the step limit, the signal's code when cancelled,
/// 3 when the session is busy, 1 when the run failed; each with its line on stderr.
fn ask_exit_code(
    outcome: &asterism_agent::RunOutcome,
    settings: &Settings,
    cancelled: u8,
) -> ExitCode {
    match outcome.reason {
        RunFinishReason::Completed => ExitCode::SUCCESS,
        RunFinishReason::MaxSteps => {
            eprintln!(
                "error: the run stopped at the step limit ({}); raise it with --max-steps",
                settings.max_steps
            );
            ExitCode::from(4)
        }
        RunFinishReason::Cancelled => {
            eprintln!(
                "cancelled; the session is stored and can be continued with --session {}",
                outcome.session_id
            );
            ExitCode::from(cancelled)
        }
        RunFinishReason::Failed if outcome.busy_pid.is_some() => {
            eprintln!(
                "error: {}; try again when it has finished, or add --wait",
                outcome.error.as_deref().unwrap_or("the session is busy")
            );
            ExitCode::from(3)
        }
        RunFinishReason::Failed => {
            eprintln!(
                "error: {}",
                outcome.error.as_deref().unwrap_or("the run failed")
            );
            eprintln!(
                "the session so far is stored: asterism sessions show {}",
                outcome.session_id
            );
            ExitCode::FAILURE
        }
    }
}

async fn target(settings: &Settings, name: &str, json: bool) -> anyhow::Result<ExitCode> {
    let services = bootstrap::open_services(settings).await?;
    match services.targets.resolve(name).await {
        Ok(lookup) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&lookup.target)?);
            } else {
                print!("{}", render::target(&lookup.target, lookup.from_cache));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("error: {error}");
            Ok(ExitCode::FAILURE)
        }
    }
}
