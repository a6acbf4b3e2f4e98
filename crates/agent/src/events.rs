//! Where events go: the desktop app's channel, the CLI's printer, a test's collector.

use std::sync::{Arc, Mutex};

use asterism_protocol::AgentEvent;

/// Receives every event of a run, in order. Emitting must not block for long: sinks
/// forward to a channel, print a line, or push to a vector.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: AgentEvent);
}

/// A sink from a closure.
pub struct FnSink<F>(pub F);

impl<F: Fn(AgentEvent) + Send + Sync> EventSink for FnSink<F> {
    fn emit(&self, event: AgentEvent) {
        (self.0)(event);
    }
}

/// Keeps every event, for tests and for callers that want the whole run.
#[derive(Debug, Default, Clone)]
pub struct CollectingSink {
    events: Arc<Mutex<Vec<AgentEvent>>>,
}

impl CollectingSink {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn events(&self) -> Vec<AgentEvent> {
        self.events
            .lock()
            .map(|events| events.clone())
            .unwrap_or_default()
    }
}

impl EventSink for CollectingSink {
    fn emit(&self, event: AgentEvent) {
        if let Ok(mut events) = self.events.lock() {
            events.push(event);
        }
    }
}
