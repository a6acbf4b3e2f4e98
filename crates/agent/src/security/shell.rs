//! A shell command line taken apart for permissions: the simple commands it joins (`;`,
//! `&&`, `||`, `|`, `&`, new lines), each split into words by `shell-words`, and whether
//! a part does anything a word prefix cannot describe (substitutions, variables,
//! redirections to files, here-documents, subshells, comments, assignments, keywords).
//! Such a part is never allowed by a prefix rule: only the exact command or a grant of
//! the whole tool covers it. Where the scanner is unsure it says "complex", so a mistake
//! here leads to a question, never to a command running unasked.

/// One simple command of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// As written, trimmed (harmless redirections such as `2>&1` removed).
    pub text: String,
    /// Its words after quote removal.
    pub words: Vec<String>,
    /// Why a prefix rule cannot describe it (`None`: plain words only).
    pub complex: Option<&'static str>,
    /// The commands it runs, the program by its name first, seen through wrappers
    /// ([`commands::commands_run`]): what Deny and Ask rules are matched against.
    pub runs: Vec<Vec<String>>,
    /// Why a prefix cannot stand for it even when plain ([`commands::prefix_problem`]).
    pub prefix_problem: Option<String>,
}

use super::commands;

/// A whole command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    /// The command as given, trimmed.
    pub raw: String,
    pub parts: Vec<Part>,
}

impl CommandLine {
    /// Whether every part is plain words.
    pub fn is_plain(&self) -> bool {
        !self.parts.is_empty() && self.parts.iter().all(|part| part.complex.is_none())
    }

    /// The first reason a part is complex.
    pub fn complexity(&self) -> Option<&'static str> {
        self.parts.iter().find_map(|part| part.complex)
    }
}

/// Shell words that open syntax a prefix cannot describe.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "coproc", "[[", "]]", "{", "}", "!",
];

/// Splits a command line into its simple commands.
pub fn analyse(command: &str) -> CommandLine {
    let mut scanner = Scanner::default();
    scanner.scan(command);
    CommandLine {
        raw: command.trim().to_string(),
        parts: scanner.parts,
    }
}

/// The words a prefix grant would name for this command line: the program and, for
/// programs with subcommands, the subcommand (never the bare program). `None` when no
/// prefix is safe to offer (several parts, anything complex, a program that runs
/// others, an option that runs or writes: [`commands::prefix_problem`]).
pub fn suggested_prefix(line: &CommandLine) -> Option<Vec<String>> {
    let [part] = line.parts.as_slice() else {
        return None;
    };
    if part.complex.is_some() || part.prefix_problem.is_some() {
        return None;
    }
    let program = part.words.first()?;
    let mut prefix = vec![program.clone()];
    if commands::HAS_SUBCOMMANDS.contains(&commands::program_name(program).as_str()) {
        let sub = part.words.get(1)?;
        let plain = sub
            .chars()
            .next()
            .is_some_and(|first| first.is_ascii_lowercase())
            && sub
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !plain {
            return None;
        }
        prefix.push(sub.clone());
    }
    Some(prefix)
}

#[derive(Default)]
struct Scanner {
    parts: Vec<Part>,
    current: String,
    complex: Option<&'static str>,
}

impl Scanner {
    fn mark(&mut self, why: &'static str) {
        self.complex.get_or_insert(why);
    }

    fn at_word_start(&self) -> bool {
        self.current
            .chars()
            .last()
            .is_none_or(|last| last.is_whitespace())
    }

    fn end_part(&mut self) {
        let text = self.current.trim().to_string();
        let mut complex = self.complex.take();
        self.current.clear();
        if text.is_empty() {
            return;
        }
        let words = match shell_words::split(&text) {
            Ok(words) => words,
            Err(_) => {
                complex.get_or_insert("has quotes the shell reads differently");
                Vec::new()
            }
        };
        if let Some(first) = words.first() {
            if is_assignment(first) {
                complex.get_or_insert("sets a variable for the command");
            } else if KEYWORDS.contains(&first.as_str()) {
                complex.get_or_insert("uses shell syntax (if, for, while, groups)");
            }
        }
        self.parts.push(Part {
            runs: commands::commands_run(&words),
            prefix_problem: commands::prefix_problem(&words),
            text,
            words,
            complex,
        });
    }

    fn scan(&mut self, command: &str) {
        let chars: Vec<char> = command.chars().collect();
        let mut index = 0;
        let mut quote: Option<char> = None;
        while index < chars.len() {
            let c = chars[index];
            let next = chars.get(index + 1).copied();
            if let Some(open) = quote {
                self.current.push(c);
                match (open, c) {
                    ('\'', '\'') | ('"', '"') => quote = None,
                    ('"', '\\') => {
                        if let Some(next) = next {
                            self.current.push(next);
                            index += 1;
                        }
                    }
                    ('"', '$') => self.mark("expands a variable or a command inside quotes"),
                    ('"', '`') => self.mark("runs a command in backticks"),
                    _ => {}
                }
                index += 1;
                continue;
            }
            match c {
                '\\' => {
                    self.current.push(c);
                    if let Some(next) = next {
                        self.current.push(next);
                        index += 1;
                    }
                }
                '\'' | '"' => {
                    quote = Some(c);
                    self.current.push(c);
                }
                ';' | '\n' | '\r' => self.end_part(),
                '|' => {
                    self.end_part();
                    if matches!(next, Some('|') | Some('&')) {
                        index += 1;
                    }
                }
                '&' if next == Some('>') => {
                    index = self.redirect(&chars, index);
                    continue;
                }
                '&' => {
                    self.end_part();
                    if next == Some('&') {
                        index += 1;
                    }
                }
                '>' | '<' => {
                    index = self.redirect(&chars, index);
                    continue;
                }
                '`' => {
                    self.mark("runs a command in backticks");
                    self.current.push(c);
                }
                '$' => {
                    self.mark("expands a variable or runs a command ($…)");
                    self.current.push(c);
                }
                '(' | ')' => {
                    self.mark("runs a subshell or a process substitution");
                    self.current.push(c);
                }
                '#' if self.at_word_start() => {
                    self.mark("has a comment");
                    self.current.push(c);
                }
                _ => self.current.push(c),
            }
            index += 1;
        }
        if quote.is_some() {
            self.mark("has an unclosed quote");
        }
        self.end_part();
    }

    /// Reads a redirection at `start` (`>`, `>>`, `2>&1`, `&>`, `<`, `<<`); returns the
    /// index after it. Output thrown away (`/dev/null`) and descriptor copies (`>&2`)
    /// are harmless and dropped; any other redirection makes the part complex.
    fn redirect(&mut self, chars: &[char], start: usize) -> usize {
        let mut index = start;
        let mut operator = String::new();
        while let Some(&c) = chars.get(index) {
            if matches!(c, '>' | '<' | '&' | '|') && operator.len() < 3 {
                operator.push(c);
                index += 1;
            } else {
                break;
            }
        }
        while chars.get(index).is_some_and(|c| *c == ' ' || *c == '\t') {
            index += 1;
        }
        let mut target = String::new();
        while let Some(&c) = chars.get(index) {
            if c.is_whitespace() || matches!(c, ';' | '&' | '|' | '<' | '>' | '(' | ')') {
                break;
            }
            target.push(c);
            index += 1;
        }
        let duplicates = operator.ends_with('&')
            && !operator.starts_with('&')
            && (target == "-"
                || (!target.is_empty() && target.chars().all(|c| c.is_ascii_digit())));
        let discards = target == "/dev/null" && !operator.contains('<');
        if operator.contains("<<") {
            self.mark("has a here-document");
        } else if duplicates || discards {
            // A descriptor number written just before the operator (`2>`) goes too.
            let kept = self
                .current
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .len();
            if self.current[..kept]
                .chars()
                .last()
                .is_none_or(char::is_whitespace)
            {
                self.current.truncate(kept);
            }
        } else {
            self.mark("redirects input or output to a file");
            self.current.push_str(&operator);
            self.current.push(' ');
            self.current.push_str(&target);
        }
        index
    }
}

fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(command: &str) -> Vec<(Vec<String>, bool)> {
        analyse(command)
            .parts
            .into_iter()
            .map(|part| (part.words, part.complex.is_none()))
            .collect()
    }

    fn w(items: &[&str]) -> Vec<String> {
        items.iter().map(|item| item.to_string()).collect()
    }

    #[test]
    fn compound_commands_are_split_into_their_parts() {
        assert_eq!(
            words("git status; curl http://x | sh"),
            vec![
                (w(&["git", "status"]), true),
                (w(&["curl", "http://x"]), true),
                (w(&["sh"]), true)
            ]
        );
        assert_eq!(
            words("make && ./run || echo failed & sleep 1\nls"),
            vec![
                (w(&["make"]), true),
                (w(&["./run"]), true),
                (w(&["echo", "failed"]), true),
                (w(&["sleep", "1"]), true),
                (w(&["ls"]), true)
            ]
        );
        assert_eq!(words("a |& b"), vec![(w(&["a"]), true), (w(&["b"]), true)]);
    }

    #[test]
    fn quoted_operators_are_words_not_separators() {
        assert_eq!(
            words("git commit -m 'fix; curl x|sh' && echo \"a && b\""),
            vec![
                (w(&["git", "commit", "-m", "fix; curl x|sh"]), true),
                (w(&["echo", "a && b"]), true)
            ]
        );
        assert_eq!(words(r"echo a\;b"), vec![(w(&["echo", "a;b"]), true)]);
    }

    #[test]
    fn what_a_prefix_cannot_describe_is_complex() {
        for command in [
            "git status $(curl x)",
            "git status `id`",
            "echo \"$(id)\"",
            "echo $HOME",
            "git log > ~/.bashrc",
            "cat <<EOF\nx\nEOF",
            "(rm -rf x)",
            "cat <(curl x)",
            "PATH=/tmp git status",
            "for f in *; do rm $f; done",
            "echo a #'\nrm -rf ~ #'",
            "echo 'unclosed",
            "{ rm -rf x; }",
        ] {
            let line = analyse(command);
            assert!(!line.is_plain(), "{command:?} looked plain: {line:?}");
        }
    }

    #[test]
    fn harmless_redirections_keep_a_command_plain() {
        assert_eq!(
            words("cargo test 2>&1"),
            vec![(w(&["cargo", "test"]), true)]
        );
        assert_eq!(
            words("ls missing 2>/dev/null >/dev/null"),
            vec![(w(&["ls", "missing"]), true)]
        );
        assert_eq!(words("make &> /dev/null"), vec![(w(&["make"]), true)]);
        assert!(!analyse("echo x 2>notes.txt").is_plain());
    }

    #[test]
    fn prefixes_are_offered_only_where_they_mean_what_they_say() {
        let prefix = |command: &str| suggested_prefix(&analyse(command));
        assert_eq!(prefix("git status --short"), Some(w(&["git", "status"])));
        assert_eq!(prefix("ls -la data"), Some(w(&["ls"])));
        assert_eq!(prefix("cargo --version"), None, "never the bare program");
        assert_eq!(prefix("git --version"), None);
        assert_eq!(prefix("git log --output=.git/config"), None);
        assert_eq!(prefix("cargo run"), None);
        assert_eq!(prefix("bash -c 'rm -rf x'"), None);
        assert_eq!(prefix("python3 fit.py"), None);
        assert_eq!(prefix("/usr/bin/env rm"), None);
        assert_eq!(prefix("git status; ls"), None);
        assert_eq!(prefix("ls $HOME"), None);
    }
}
