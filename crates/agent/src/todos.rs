//! The agent's plan: a todo list with `blockedBy` dependencies, checked before it is
//! stored (todo_write) — known statuses, unique ids, dependencies that exist and form no
//! cycle, at most one task in progress and none in progress while what blocks it is
//! unfinished.

use std::collections::{HashMap, HashSet};

use asterism_store::TaskRow;

pub const PENDING: &str = "pending";
pub const IN_PROGRESS: &str = "in_progress";
pub const COMPLETED: &str = "completed";

/// Why a todo list was refused, worded for the model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TodoError {
    #[error("task \"{0}\" appears twice; ids must be unique")]
    DuplicateId(String),
    #[error("a task has an empty id or content")]
    Empty,
    #[error("task \"{id}\" has status \"{status}\"; use pending, in_progress or completed")]
    Status { id: String, status: String },
    #[error("task \"{id}\" is blocked by \"{missing}\", which is not in the list")]
    MissingDependency { id: String, missing: String },
    #[error("the blockedBy dependencies form a cycle: {}", .0.join(" → "))]
    Cycle(Vec<String>),
    #[error("{} tasks are in_progress ({}); exactly one task may be in progress at a time", .0.len(), .0.join(", "))]
    SeveralInProgress(Vec<String>),
    #[error("task \"{id}\" is in_progress but \"{blocker}\", which blocks it, is not completed")]
    StartedTooEarly { id: String, blocker: String },
}

/// Checks a whole list. The order of the list is kept as given.
pub fn validate(tasks: &[TaskRow]) -> Result<(), TodoError> {
    let mut ids = HashSet::new();
    for task in tasks {
        if task.task_id.trim().is_empty() || task.content.trim().is_empty() {
            return Err(TodoError::Empty);
        }
        if !ids.insert(task.task_id.as_str()) {
            return Err(TodoError::DuplicateId(task.task_id.clone()));
        }
        if ![PENDING, IN_PROGRESS, COMPLETED].contains(&task.status.as_str()) {
            return Err(TodoError::Status {
                id: task.task_id.clone(),
                status: task.status.clone(),
            });
        }
    }
    let by_id: HashMap<&str, &TaskRow> = tasks
        .iter()
        .map(|task| (task.task_id.as_str(), task))
        .collect();
    for task in tasks {
        for blocker in &task.blocked_by {
            if !by_id.contains_key(blocker.as_str()) {
                return Err(TodoError::MissingDependency {
                    id: task.task_id.clone(),
                    missing: blocker.clone(),
                });
            }
        }
    }
    if let Some(cycle) = find_cycle(tasks, &by_id) {
        return Err(TodoError::Cycle(cycle));
    }
    let started: Vec<String> = tasks
        .iter()
        .filter(|task| task.status == IN_PROGRESS)
        .map(|task| task.task_id.clone())
        .collect();
    if started.len() > 1 {
        return Err(TodoError::SeveralInProgress(started));
    }
    for task in tasks.iter().filter(|task| task.status != PENDING) {
        if let Some(blocker) = task.blocked_by.iter().find(|blocker| {
            by_id
                .get(blocker.as_str())
                .is_some_and(|b| b.status != COMPLETED)
        }) {
            return Err(TodoError::StartedTooEarly {
                id: task.task_id.clone(),
                blocker: blocker.clone(),
            });
        }
    }
    Ok(())
}

/// A cycle of `blockedBy` edges, as the ids along it (first repeated at the end).
fn find_cycle(tasks: &[TaskRow], by_id: &HashMap<&str, &TaskRow>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Visiting,
        Done,
    }
    fn visit<'a>(
        id: &'a str,
        by_id: &HashMap<&'a str, &'a TaskRow>,
        marks: &mut HashMap<&'a str, Mark>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match marks.get(id) {
            Some(Mark::Done) => return None,
            Some(Mark::Visiting) => {
                let start = path.iter().position(|step| *step == id).unwrap_or(0);
                let mut cycle: Vec<String> =
                    path[start..].iter().map(|step| step.to_string()).collect();
                cycle.push(id.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(id, Mark::Visiting);
        path.push(id);
        if let Some(task) = by_id.get(id) {
            for blocker in &task.blocked_by {
                if let Some(cycle) = visit(blocker.as_str(), by_id, marks, path) {
                    return Some(cycle);
                }
            }
        }
        path.pop();
        marks.insert(id, Mark::Done);
        None
    }
    let mut marks = HashMap::new();
    for task in tasks {
        let mut path = Vec::new();
        if let Some(cycle) = visit(task.task_id.as_str(), by_id, &mut marks, &mut path) {
            return Some(cycle);
        }
    }
    None
}

/// The list as the model reads it back: `[x]` done, `[>]` in progress, `[ ]` pending,
/// with what still blocks a pending task.
pub fn render(tasks: &[TaskRow]) -> String {
    if tasks.is_empty() {
        return "The todo list is empty.".into();
    }
    let done: HashSet<&str> = tasks
        .iter()
        .filter(|task| task.status == COMPLETED)
        .map(|task| task.task_id.as_str())
        .collect();
    let mut lines = vec![format!(
        "Todo list ({} of {} done):",
        done.len(),
        tasks.len()
    )];
    for task in tasks {
        let mark = match task.status.as_str() {
            COMPLETED => "[x]",
            IN_PROGRESS => "[>]",
            _ => "[ ]",
        };
        let waiting: Vec<&str> = task
            .blocked_by
            .iter()
            .map(String::as_str)
            .filter(|blocker| !done.contains(blocker))
            .collect();
        let blocked = if waiting.is_empty() || task.status == COMPLETED {
            String::new()
        } else {
            format!(" (waits for {})", waiting.join(", "))
        };
        lines.push(format!(
            "{mark} {}: {}{blocked}",
            task.task_id, task.content
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: &str, blocked_by: &[&str]) -> TaskRow {
        TaskRow {
            task_id: id.into(),
            content: format!("do {id}"),
            status: status.into(),
            blocked_by: blocked_by.iter().map(|b| b.to_string()).collect(),
        }
    }

    #[test]
    fn a_plan_with_dependencies_is_accepted() {
        let tasks = [
            task("search", COMPLETED, &[]),
            task("read", IN_PROGRESS, &["search"]),
            task("answer", PENDING, &["read", "search"]),
        ];
        assert_eq!(validate(&tasks), Ok(()));
        let text = render(&tasks);
        assert!(text.contains("1 of 3 done"), "{text}");
        assert!(text.contains("[>] read"), "{text}");
        assert!(
            text.contains("[ ] answer: do answer (waits for read)"),
            "{text}"
        );
    }

    #[test]
    fn cycles_are_named() {
        let tasks = [
            task("a", PENDING, &["c"]),
            task("b", PENDING, &["a"]),
            task("c", PENDING, &["b"]),
        ];
        let Err(TodoError::Cycle(cycle)) = validate(&tasks) else {
            panic!("cycle not found");
        };
        assert_eq!(cycle.first(), cycle.last());
        assert_eq!(cycle.len(), 4);
        assert_eq!(
            validate(&[task("self", PENDING, &["self"])]),
            Err(TodoError::Cycle(vec!["self".into(), "self".into()]))
        );
    }

    #[test]
    fn bad_lists_are_refused_with_the_reason() {
        assert!(matches!(
            validate(&[task("a", IN_PROGRESS, &[]), task("b", IN_PROGRESS, &[])]),
            Err(TodoError::SeveralInProgress(ids)) if ids == ["a", "b"]
        ));
        assert_eq!(
            validate(&[task("a", PENDING, &[]), task("a", PENDING, &[])]),
            Err(TodoError::DuplicateId("a".into()))
        );
        assert!(matches!(
            validate(&[task("a", PENDING, &["ghost"])]),
            Err(TodoError::MissingDependency { .. })
        ));
        assert!(matches!(
            validate(&[task("a", "doing", &[])]),
            Err(TodoError::Status { .. })
        ));
        assert!(matches!(
            validate(&[task("a", PENDING, &[]), task("b", IN_PROGRESS, &["a"])]),
            Err(TodoError::StartedTooEarly { .. })
        ));
        assert_eq!(validate(&[task(" ", PENDING, &[])]), Err(TodoError::Empty));
    }
}
