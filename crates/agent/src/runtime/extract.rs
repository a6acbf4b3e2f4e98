//! Memory extraction at the end of a session: a subagent reads the conversation and
//! saves what is worth remembering with save_memory (through its quality gate). It has
//! `ToolRegistry::empty()` plus read-only tools and save_memory, as in the seed.

use std::sync::{Arc, Mutex};

use asterism_protocol::MAIN_AGENT;
use asterism_store::{MessageRole, StoreError};
use tokio_util::sync::CancellationToken;

use super::{AgentRuntime, Run};
use crate::compaction::CompactionRequest;
use crate::history::RowScope;
use crate::permissions::PermissionGate;
use crate::persist::Persister;
use crate::subagent::{SubagentLauncher, SubagentReport, SubagentSpec};
use crate::tools::{GlobFilesTool, GrepFilesTool, ReadFileTool, SaveMemoryTool};
use crate::{EventSink, ToolContext, ToolRegistry};

/// The name of the extraction subagent.
pub const MEMORY_AGENT: &str = "memory-extractor";
/// How much of the conversation (the end of it) the extractor reads.
const TRANSCRIPT_CHARS: usize = 16_000;

const INSTRUCTIONS: &str = "Read the conversation in your task and save what will still be true and useful \
    in later sessions, with save_memory, one fact per call (at most 5): the user's research topics and \
    projects, instruments, surveys and objects they work on, how they want answers (units, citation style, \
    length), and tools or data they rely on. Do not save what the papers say, answers to one-off questions, \
    or anything about today or this session. If a memory listed below already says it, do not save it again. \
    If nothing is worth remembering, save nothing. Finish with one line: how many memories you saved.";

impl AgentRuntime {
    /// Runs the memory-extraction subagent over a stored session. Its steps are stored
    /// in the session under `memory-extractor` and its events go to `sink`.
    pub async fn extract_memories(
        &self,
        session_id: &str,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Result<SubagentReport, StoreError> {
        let sink = crate::security::ScrubbingSink::wrap(sink, &self.services.scrubber);
        let store = &self.services.store;
        store.session(session_id).await?;
        let transcript = transcript(&store.messages(session_id).await?);
        let known = store.memories(crate::memory::PROMPT_MEMORIES).await?;
        let mut task = format!("The conversation:\n\n{transcript}");
        if !known.is_empty() {
            task.push_str("\n\nAlready remembered:");
            for memory in &known {
                task.push_str(&format!("\n- [{}] {}", memory.kind, memory.content));
            }
        }

        let mut registry = ToolRegistry::empty();
        registry.add_tool(Arc::new(ReadFileTool));
        registry.add_tool(Arc::new(GrepFilesTool));
        registry.add_tool(Arc::new(GlobFilesTool));
        registry.add_tool(Arc::new(SaveMemoryTool));
        let mut extractor = self.clone();
        extractor.registry = Arc::new(registry);

        let persister = Persister::start(store.clone(), self.services.scrubber.clone());
        let run = Run {
            rows: RowScope {
                session_id: session_id.to_string(),
                run_id: uuid::Uuid::new_v4().to_string(),
                agent_name: MAIN_AGENT.to_string(),
            },
            sink: &sink,
            cancel: &cancel,
            persister: persister.clone(),
            enable_thinking: false,
            first_tool: None,
        };
        let permissions = Arc::new(self.permission_checker(&run).await);
        let (hooks, _) = self.load_hooks();
        let hooks = Arc::new(hooks);
        let launcher = SubagentLauncher {
            runtime: extractor,
            persister: persister.clone(),
            permissions: permissions.clone(),
            hooks,
            enable_thinking: false,
            names: Arc::new(Mutex::new(Vec::new())),
            counter: Arc::default(),
        };
        let parent = ToolContext {
            services: self.services.clone(),
            session_id: session_id.to_string(),
            run_id: run.rows.run_id.clone(),
            agent_name: MAIN_AGENT.to_string(),
            tool_call_id: String::new(),
            silent: true,
            enable_thinking: false,
            cancel: cancel.clone(),
            events: sink.clone(),
            compaction: CompactionRequest::default(),
            permissions: PermissionGate {
                broker: self.broker.clone(),
                grants: self.session_rules(session_id),
            },
            rules: permissions,
            model: self.model.clone(),
            questions: self.questions.clone(),
            subagents: None,
        };
        let spec = SubagentSpec {
            name: MEMORY_AGENT.to_string(),
            task,
            instructions: Some(INSTRUCTIONS.to_string()),
            max_steps: 3,
            allowed_tools: None,
        };
        let report = launcher.run(spec, &parent).await;
        for error in persister.flush().await {
            tracing::warn!(%error, "storing the memory extraction failed");
        }
        Ok(report)
    }
}

/// The main agent's questions and answers, the most recent part when long.
fn transcript(messages: &[asterism_store::StoredMessage]) -> String {
    let mut lines = Vec::new();
    for message in messages.iter().filter(|m| m.agent_name == MAIN_AGENT) {
        match message.role {
            MessageRole::User if message.metadata.get("background").is_none() => {
                lines.push(format!("User: {}", message.content.trim()));
            }
            MessageRole::Assistant if !message.content.trim().is_empty() => {
                lines.push(format!("Assistant: {}", message.content.trim()));
            }
            _ => {}
        }
    }
    let text = lines.join("\n\n");
    let count = text.chars().count();
    if count <= TRANSCRIPT_CHARS {
        text
    } else {
        let tail: String = text.chars().skip(count - TRANSCRIPT_CHARS).collect();
        format!("…{tail}")
    }
}
