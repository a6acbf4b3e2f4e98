//! Skills: instructions for a kind of task, written as `SKILL.md` files with YAML front
//! matter (name, description, mode `inline` | `fork`, allowed-tools). The shipped skills
//! (`skills/` in the repository) are built in; the user's own live in
//! `{data_dir}/skills/<name>/SKILL.md` and win over a shipped skill of the same name.
//! The folder is read when asked, so a new skill needs no restart.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The skills that ship with Asterism: (folder name, SKILL.md).
const SHIPPED: &[(&str, &str)] = &[
    (
        "literature-review",
        include_str!("../../../skills/literature-review/SKILL.md"),
    ),
    (
        "object-dossier",
        include_str!("../../../skills/object-dossier/SKILL.md"),
    ),
    (
        "bibtex-cleanup",
        include_str!("../../../skills/bibtex-cleanup/SKILL.md"),
    ),
    (
        "referee-checklist",
        include_str!("../../../skills/referee-checklist/SKILL.md"),
    ),
];

/// How a skill runs: its text returned to the agent, or a subagent that follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SkillMode {
    #[default]
    Inline,
    Fork,
}

/// `allowed-tools` as a YAML list or a comma-separated string.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolList {
    List(Vec<String>),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct FrontMatter {
    name: String,
    description: String,
    #[serde(default)]
    mode: SkillMode,
    #[serde(default, alias = "allowed_tools", alias = "allowedTools")]
    allowed_tools: Option<ToolList>,
}

/// One skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub mode: SkillMode,
    /// The tools a forked skill may use; `None` = all the subagent's tools.
    pub allowed_tools: Option<Vec<String>>,
    /// The instructions (the Markdown after the front matter).
    pub body: String,
    /// `shipped`, or the file it came from.
    pub source: String,
}

/// Why a SKILL.md could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkillError {
    #[error(
        "{0}: no front matter; a SKILL.md starts with a line `---`, YAML with name and description, and `---`"
    )]
    NoFrontMatter(String),
    #[error("{0}: the front matter is not valid: {1}")]
    BadFrontMatter(String, String),
    #[error("{0}: the skill has no instructions after its front matter")]
    EmptyBody(String),
    #[error("{0}: the name \"{1}\" must be lower-case letters, digits and dashes")]
    BadName(String, String),
}

/// Parses a SKILL.md; `origin` names it in errors and becomes `source`.
pub fn parse_skill(text: &str, origin: &str) -> Result<Skill, SkillError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let Some(rest) = text.strip_prefix("---\n") else {
        return Err(SkillError::NoFrontMatter(origin.into()));
    };
    let (yaml, body) = match rest.split_once("\n---\n") {
        Some(parts) => parts,
        None => match rest.strip_suffix("\n---") {
            Some(yaml) => (yaml, ""),
            None => return Err(SkillError::NoFrontMatter(origin.into())),
        },
    };
    let front: FrontMatter = serde_yaml_ng::from_str(yaml)
        .map_err(|error| SkillError::BadFrontMatter(origin.into(), error.to_string()))?;
    let name = front.name.trim().to_string();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(SkillError::BadName(origin.into(), name));
    }
    let body = body.trim();
    if body.is_empty() {
        return Err(SkillError::EmptyBody(origin.into()));
    }
    let allowed_tools = front.allowed_tools.map(|tools| match tools {
        ToolList::List(list) => list,
        ToolList::Text(text) => text
            .split(',')
            .map(|tool| tool.trim().to_string())
            .filter(|tool| !tool.is_empty())
            .collect(),
    });
    Ok(Skill {
        name,
        description: front.description.trim().to_string(),
        mode: front.mode,
        allowed_tools,
        body: body.to_string(),
        source: origin.to_string(),
    })
}

/// The skills known now, sorted by name, and the files that could not be used.
#[derive(Debug, Clone, Default)]
pub struct SkillRegistry {
    skills: Vec<Skill>,
    problems: Vec<SkillError>,
}

impl SkillRegistry {
    /// The shipped skills plus those under `user_dir` (which may not exist).
    pub fn load(user_dir: &Path) -> Self {
        let mut registry = Self::default();
        for (folder, text) in SHIPPED {
            match parse_skill(text, "shipped") {
                Ok(skill) => registry.insert(skill),
                Err(error) => registry.problems.push(match error {
                    SkillError::NoFrontMatter(_) => SkillError::NoFrontMatter((*folder).into()),
                    other => other,
                }),
            }
        }
        for path in user_skill_files(user_dir) {
            let origin = path.display().to_string();
            match std::fs::read_to_string(&path) {
                Ok(text) => match parse_skill(&text, &origin) {
                    Ok(skill) => registry.insert(skill),
                    Err(error) => registry.problems.push(error),
                },
                Err(error) => registry
                    .problems
                    .push(SkillError::BadFrontMatter(origin, error.to_string())),
            }
        }
        registry.skills.sort_by(|a, b| a.name.cmp(&b.name));
        registry
    }

    /// A later skill of the same name replaces an earlier one (user over shipped).
    fn insert(&mut self, skill: Skill) {
        self.skills.retain(|known| known.name != skill.name);
        self.skills.push(skill);
    }

    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    pub fn problems(&self) -> &[SkillError] {
        &self.problems
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        let name = name.trim().to_lowercase();
        self.skills.iter().find(|skill| skill.name == name)
    }

    /// The part of the system prompt that lists the skills.
    pub fn prompt_section(&self) -> String {
        if self.skills.is_empty() {
            return String::new();
        }
        let mut text = String::from(
            "\n\nSkills (instructions for whole tasks; load one with load_skill when the request matches):",
        );
        for skill in &self.skills {
            text.push_str(&format!("\n- {}: {}", skill.name, skill.description));
        }
        text
    }
}

/// `<dir>/<name>/SKILL.md` for each folder, sorted.
fn user_skill_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("SKILL.md"))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_skills_all_parse() {
        let registry = SkillRegistry::load(Path::new("/nonexistent"));
        assert!(registry.problems().is_empty(), "{:?}", registry.problems());
        let names: Vec<&str> = registry.skills().iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "bibtex-cleanup",
                "literature-review",
                "object-dossier",
                "referee-checklist"
            ]
        );
        let review = registry.get("literature-review").unwrap();
        assert_eq!(review.mode, SkillMode::Fork);
        assert!(
            review
                .allowed_tools
                .as_ref()
                .unwrap()
                .contains(&"search_papers".to_string())
        );
        assert!(registry.prompt_section().contains("- object-dossier: "));
    }

    #[test]
    fn front_matter_variants_and_errors() {
        let skill = parse_skill(
            "---\r\nname: my-skill\r\ndescription: Does X\r\nallowed-tools: read_file, grep_files\r\n---\r\nDo X.\r\n",
            "test",
        )
        .unwrap();
        assert_eq!(skill.mode, SkillMode::Inline);
        assert_eq!(
            skill.allowed_tools,
            Some(vec!["read_file".into(), "grep_files".into()])
        );
        assert_eq!(skill.body, "Do X.");
        assert_eq!(
            parse_skill("# Just markdown\n", "x.md"),
            Err(SkillError::NoFrontMatter("x.md".into()))
        );
        assert!(matches!(
            parse_skill("---\nname: a\n---\nbody", "x"),
            Err(SkillError::BadFrontMatter(..))
        ));
        assert!(matches!(
            parse_skill(
                "---\nname: a\ndescription: d\nmode: sideways\n---\nbody",
                "x"
            ),
            Err(SkillError::BadFrontMatter(..))
        ));
        assert!(matches!(
            parse_skill("---\nname: Bad Name\ndescription: d\n---\nbody", "x"),
            Err(SkillError::BadName(..))
        ));
        assert!(matches!(
            parse_skill("---\nname: a\ndescription: d\n---\n", "x"),
            Err(SkillError::EmptyBody(..))
        ));
    }
}
