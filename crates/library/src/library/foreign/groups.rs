//! The groups a `.bib` file's tool keeps in comments, as collections:
//!
//! - JabRef 5 `@Comment{jabref-meta: grouping: …}`: the group tree (`LEVEL
//!   Type:Name\;…;`); an entry names its static groups in its `groups` field, and a
//!   nested group becomes `Parent/Child`.
//! - JabRef 2–4 `@comment{jabref-meta: groupstree: …}`: the same tree, an explicit group
//!   listing its entries' keys itself (lines may be wrapped).
//! - BibDesk `@comment{BibDesk Static Groups{<plist>}}`: an array of `{group name, keys}`
//!   with the keys comma-separated.
//!
//! Dynamic groups (JabRef keyword, search and automatic groups, BibDesk smart groups)
//! hold no membership of their own: they are parents in a path, never collections.

use std::collections::{BTreeSet, HashMap};

/// The groups of one `.bib` file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BibGroups {
    /// A static group's name → its path (`Parent/Child`).
    paths: HashMap<String, String>,
    /// A citation key → the paths of the groups listing it.
    members: HashMap<String, Vec<String>>,
}

impl BibGroups {
    /// The groups `text` (a whole `.bib` file) defines.
    pub fn read(text: &str) -> Self {
        let mut groups = Self::default();
        for prefix in ["jabref-meta: grouping:", "jabref-meta: groupstree:"] {
            if let Some(body) = comment_body(text, prefix) {
                groups.read_jabref_tree(&body);
            }
        }
        if let Some(plist) = bibdesk_static_groups(text) {
            groups.read_bibdesk(&plist);
        }
        groups
    }

    /// The collections of an entry: its `groups` field's names (as paths when the tree
    /// knows them) and the groups that list its key.
    pub fn collections_of(&self, key: &str, named: &[String]) -> Vec<String> {
        let mut collections: Vec<String> = named
            .iter()
            .map(|name| {
                self.paths
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| name.clone())
            })
            .collect();
        for path in self.members.get(key).into_iter().flatten() {
            if !collections.contains(path) {
                collections.push(path.clone());
            }
        }
        collections
    }

    fn read_jabref_tree(&mut self, body: &str) {
        let unwrapped: String = body.chars().filter(|c| *c != '\n' && *c != '\r').collect();
        let mut stack: Vec<String> = Vec::new();
        // Two levels of quoting: records end at an unescaped `;`; once unescaped, a
        // record's fields end at an unescaped `;` (a `;` in a name is `\\\;` in the file).
        for record in split_unescaped(&unwrapped, ';') {
            let record = unescape(record.trim());
            let Some((level, rest)) = record.split_once(' ') else {
                continue;
            };
            let (Ok(level), Some((kind, rest))) = (level.parse::<usize>(), rest.split_once(':'))
            else {
                continue;
            };
            if level == 0 {
                continue; // AllEntriesGroup
            }
            let fields: Vec<String> = split_unescaped(rest, ';')
                .iter()
                .map(|field| unescape(field))
                .collect();
            let Some(name) = fields.first().filter(|name| !name.is_empty()).cloned() else {
                continue;
            };
            stack.truncate(level - 1);
            stack.push(name.clone());
            let path = stack.join("/");
            match kind {
                "StaticGroup" => {
                    self.paths.entry(name).or_insert(path);
                }
                "ExplicitGroup" => {
                    self.paths.entry(name).or_insert_with(|| path.clone());
                    for key in fields.iter().skip(2).filter(|key| !key.is_empty()) {
                        self.add_member(key, &path);
                    }
                }
                _ => {}
            }
        }
    }

    fn read_bibdesk(&mut self, plist: &str) {
        let Ok(value) = plist::Value::from_reader_xml(plist.as_bytes()) else {
            return;
        };
        for group in value.as_array().into_iter().flatten() {
            let Some(group) = group.as_dictionary() else {
                continue;
            };
            let name = group.get("group name").and_then(plist::Value::as_string);
            let keys = group.get("keys").and_then(plist::Value::as_string);
            let (Some(name), Some(keys)) = (name, keys) else {
                continue;
            };
            for key in keys.split(',').map(str::trim).filter(|key| !key.is_empty()) {
                self.add_member(key, name);
            }
        }
    }

    fn add_member(&mut self, key: &str, path: &str) {
        let paths = self.members.entry(key.to_string()).or_default();
        if !paths.iter().any(|known| known == path) {
            paths.push(path.to_string());
        }
    }
}

/// JabRef 5's grouping comment for these collections (`Parent/Child` a static group
/// inside its parent), as JabRef writes it; `None` when there are none. With the
/// entries' `groups` fields it gives JabRef (and `library import`) the tree back.
pub fn jabref_grouping(collections: &[String]) -> Option<String> {
    let mut nodes: BTreeSet<Vec<&str>> = BTreeSet::new();
    for collection in collections {
        let parts: Vec<&str> = collection.split('/').filter(|p| !p.is_empty()).collect();
        for depth in 1..=parts.len() {
            nodes.insert(parts[..depth].to_vec());
        }
    }
    if nodes.is_empty() {
        return None;
    }
    let escape = |text: &str| text.replace('\\', "\\\\").replace(';', "\\;");
    let mut comment = String::from("@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n");
    for node in &nodes {
        let name: String = node[node.len() - 1]
            .chars()
            .filter(|c| !matches!(c, '{' | '}'))
            .collect();
        // Each field ends in `;`, as JabRef writes them: name, independent, expanded,
        // colour, icon, description.
        let record = [escape(&name).as_str(), "0", "1", "", "", ""].join(";") + ";";
        comment.push_str(&format!(
            "{} StaticGroup:{};\n",
            node.len(),
            escape(&record)
        ));
    }
    comment.push('}');
    Some(comment)
}

/// What follows `prefix` up to the end of its comment (JabRef does not escape `}` in
/// group names, so the first `}` ends it, as JabRef itself reads it).
fn comment_body(text: &str, prefix: &str) -> Option<String> {
    let start = text.find(prefix)? + prefix.len();
    let end = text[start..]
        .find('}')
        .map_or(text.len(), |end| start + end);
    Some(text[start..end].to_string())
}

/// The plist of BibDesk's static groups comment.
fn bibdesk_static_groups(text: &str) -> Option<String> {
    let start = text.find("BibDesk Static Groups{")? + "BibDesk Static Groups{".len();
    let end = text[start..].find("</plist>")? + start + "</plist>".len();
    Some(text[start..end].trim().to_string())
}

/// Splits on `separator` where it is not escaped by a backslash (`\;`, and `\\` is an
/// escaped backslash), keeping the escapes.
fn split_unescaped(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            part.push(c);
            escaped = false;
        } else if c == '\\' {
            part.push(c);
            escaped = true;
        } else if c == separator {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
    }
    parts.push(part);
    parts
}

/// `\;` → `;`, `\\` → `\`, `\:` → `:`.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jabref_5_nests_static_groups_and_leaves_dynamic_ones_as_parents() {
        let text = "@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n\
            1 StaticGroup:Distances\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;\n\
            2 StaticGroup:TRGB\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;\n\
            1 KeywordGroup:By keyword\\;0\\;keywords\\;cepheids\\;0\\;0\\;1\\;\\;\\;\\;;\n\
            2 StaticGroup:Cepheids\\\\\\; and masers\\;0\\;1\\;\\;\\;\\;;\n}\n";
        let groups = BibGroups::read(text);
        let named = [
            "TRGB".to_string(),
            "Cepheids; and masers".to_string(),
            "Loose".to_string(),
        ];
        assert_eq!(
            groups.collections_of("k", &named),
            ["Distances/TRGB", "By keyword/Cepheids; and masers", "Loose"]
        );
    }

    #[test]
    fn the_grouping_written_reads_back_as_the_same_paths() {
        let paths = [
            "Distances/TRGB".to_string(),
            "Distances".into(),
            "Odd; name\\x".into(),
        ];
        let comment = jabref_grouping(&paths).unwrap();
        assert!(
            comment.contains("1 StaticGroup:Distances\\;0\\;1\\;\\;\\;\\;;\n"),
            "{comment}"
        );
        let groups = BibGroups::read(&comment);
        let named = ["TRGB".to_string(), "Odd; name\\x".into()];
        assert_eq!(
            groups.collections_of("k", &named),
            ["Distances/TRGB", "Odd; name\\x"]
        );
        assert_eq!(jabref_grouping(&[]), None);
    }

    #[test]
    fn legacy_explicit_groups_list_their_keys_even_when_wrapped() {
        let text = "@comment{jabref-meta: groupsversion:3;}\n@comment{jabref-meta: groupstree:\n\
            0 AllEntriesGroup:;\n1 ExplicitGroup:Methods\\;0\\;Riess2022\\;Free\ndman2019\\;;\n\
            2 ExplicitGroup:Sub\\;0\\;Riess2022\\;;\n}";
        let groups = BibGroups::read(text);
        assert_eq!(
            groups.collections_of("Riess2022", &[]),
            ["Methods", "Methods/Sub"]
        );
        assert_eq!(groups.collections_of("Freedman2019", &[]), ["Methods"]);
        assert!(groups.collections_of("Other", &[]).is_empty());
    }
}
