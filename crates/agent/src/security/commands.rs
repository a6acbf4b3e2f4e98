//! What a simple command really runs, and whether a word prefix can stand for it.
//!
//! Two questions the permission rules ask of a command's words:
//! - **What does it run?** (for Deny and Ask rules) The program by its name, not its
//!   path (`/bin/rm` is `rm`), seen through wrappers (`command`, `env`, `exec`, `nice`,
//!   `nohup`, `timeout`, `stdbuf`, `xargs`, `sudo`, `doas`, `busybox`, `bash -c '…'`,
//!   `find -exec …`), and `find -delete` counted as `rm`. A Deny rule matching any of
//!   these refuses the command.
//! - **Can a prefix cover it?** (for Allow rules and the grants a card offers) Not when
//!   the command runs code the words do not show: an interpreter or a program that
//!   runs others, a program in the workspace the agent can rewrite, a build that runs the
//!   workspace's own code (`make`, `cargo build`, `npm run`, `pytest`), or an option that
//!   runs a command, writes a file or reads elsewhere (`git -c`, `--upload-pack`,
//!   `--output`, `find -exec`, `rg --pre`, `tar --to-command`, `sed` `e`/`w`, `latexmk
//!   -e`, `-shell-escape` …). Such a command is asked again; only its exact text, or a
//!   grant of the whole tool, allows it.

mod lists;

pub use lists::HAS_SUBCOMMANDS;
use lists::{
    RISKY_OPTIONS, RUNNING_SUBCOMMANDS, RUNS_OTHERS, SYSTEM_PROGRAM_FOLDERS, TEX_ENGINES,
    TEX_ESCAPES,
};

/// How deep wrappers are looked through (`sudo env nice bash -c '…'`).
const MAX_DEPTH: usize = 8;

/// The name a program is known by: its file name, lower-case, a version suffix removed
/// (`/usr/bin/python3.12` is `python`, `pip3` is `pip`, `PERL` on a case-insensitive
/// disk is `perl`).
pub fn program_name(word: &str) -> String {
    let base = word.rsplit('/').next().unwrap_or(word).to_lowercase();
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let trimmed = trimmed.trim_end_matches(['-', '_']);
    if trimmed.is_empty() || trimmed == "." {
        base
    } else {
        trimmed.to_string()
    }
}

fn subcommand_of<'a>(program: &str, words: &'a [String]) -> Option<&'a str> {
    if !HAS_SUBCOMMANDS.contains(&program) {
        return None;
    }
    let mut index = 1;
    while let Some(word) = words.get(index) {
        if !word.starts_with('-') {
            return Some(word);
        }
        // A global option with its value (`git -C dir log`, `cargo +nightly`).
        index += if matches!(word.as_str(), "-C" | "-c" | "--git-dir" | "--work-tree") {
            2
        } else {
            1
        };
    }
    None
}

/// Programs whose one-letter options may be grouped (`tar -xIcmd`, `git grep -nO`).
const GROUPS_SHORT_OPTIONS: &[&str] = &["git", "tar", "rg", "zip", "man", "pip", "sed"];

/// Whether `word` is the option `option`: alone, as `--option=value`, or a one-letter
/// option in a group of them (`-xIcmd`) where the program allows groups.
fn is_option(word: &str, option: &str, groups: bool) -> bool {
    if word == option {
        return true;
    }
    if option.len() > 2 {
        return word
            .strip_prefix(option)
            .is_some_and(|rest| rest.starts_with('='));
    }
    let letter = &option[1..];
    if word.starts_with("--") || !word.starts_with('-') {
        return false;
    }
    if groups {
        word[1..].contains(letter)
    } else {
        word.starts_with(option)
    }
}

/// Whether a `sed` script runs a command (`e`, `s///e`) or writes a file (`w`, `W`,
/// `s///w`); `None` for a script that is neither (or cannot be told apart: say so).
fn sed_script_problem(script: &str) -> bool {
    let bytes: Vec<char> = script.chars().collect();
    // A command letter at the start of a command (after an address), or a flag of `s`.
    for (index, c) in bytes.iter().enumerate() {
        if !matches!(c, 'e' | 'w' | 'W' | 'r' | 'R') {
            continue;
        }
        let before = bytes[..index]
            .iter()
            .rev()
            .find(|c| !c.is_whitespace())
            .copied();
        let after = bytes.get(index + 1).copied();
        let command_start = before.is_none_or(|b| {
            matches!(b, ';' | '{' | '}' | '\n' | '$' | '/' | '!') || b.is_ascii_digit()
        });
        let ends_word = after.is_none_or(|a| a.is_whitespace() || a == ';' || a == '}');
        if command_start && ends_word {
            return true;
        }
    }
    // `s/a/b/e`, `s|a|b|gw file`: the flags after the third delimiter.
    let mut rest = script;
    while let Some(position) = rest.find('s') {
        let tail = &rest[position + 1..];
        if let Some(delimiter) = tail.chars().next()
            && !delimiter.is_alphanumeric()
            && !delimiter.is_whitespace()
        {
            let pieces: Vec<&str> = tail[delimiter.len_utf8()..].splitn(3, delimiter).collect();
            if let [_, _, flags] = pieces.as_slice() {
                let flags: String = flags
                    .chars()
                    .take_while(|c| !matches!(c, ';' | '}' | '\n'))
                    .collect();
                if flags
                    .split_whitespace()
                    .next()
                    .is_some_and(|flags| flags.contains(['e', 'w', 'W']))
                {
                    return true;
                }
            }
        }
        rest = tail;
    }
    false
}

/// Why a prefix rule cannot stand for this command (`None`: it can).
pub fn prefix_problem(words: &[String]) -> Option<String> {
    let first = words.first()?;
    let program = program_name(first);
    if first.contains('/') && !SYSTEM_PROGRAM_FOLDERS.iter().any(|f| first.starts_with(f)) {
        return Some(format!(
            "it runs {first}, a program outside the system folders that may have been changed"
        ));
    }
    if RUNS_OTHERS.contains(&program.as_str()) {
        return Some(format!("{program} runs other programs or code given to it"));
    }
    if let Some(sub) = subcommand_of(&program, words)
        && RUNNING_SUBCOMMANDS
            .iter()
            .any(|(name, subs)| *name == program && subs.contains(&sub))
    {
        return Some(format!(
            "{program} {sub} runs code or changes configuration"
        ));
    }
    if program == "cargo"
        && let Some(sub) = subcommand_of(&program, words)
        && ![
            "tree",
            "metadata",
            "fmt",
            "search",
            "locate-project",
            "pkgid",
            "help",
            "version",
        ]
        .contains(&sub)
    {
        // Any other cargo subcommand is a program `cargo-<sub>` or builds the crate.
        return Some(format!(
            "cargo {sub} may build and run the workspace's code"
        ));
    }
    let risky = RISKY_OPTIONS
        .iter()
        .find(|(name, _)| *name == program)
        .map(|(_, options)| *options)
        .unwrap_or_default();
    let groups = GROUPS_SHORT_OPTIONS.contains(&program.as_str());
    let escapes = if TEX_ENGINES.contains(&program.as_str()) {
        TEX_ESCAPES
    } else {
        &[]
    };
    for word in &words[1..] {
        if word == "--" {
            break;
        }
        if let Some(option) = risky
            .iter()
            .chain(escapes)
            .find(|option| is_option(word, option, groups))
        {
            return Some(format!(
                "{program} {option} can run a command, write a file or read elsewhere"
            ));
        }
        if !escapes.is_empty() && word.contains("write18") {
            return Some(format!("{program} is asked to run shell commands"));
        }
    }
    // `-u` is `--upload-pack` where git talks to another repository (`git add -u` is not).
    if program == "git"
        && subcommand_of(&program, words)
            .is_some_and(|sub| ["clone", "fetch", "pull", "ls-remote", "archive"].contains(&sub))
        && words[1..].iter().any(|word| word.starts_with("-u"))
    {
        return Some("git -u names a program to run on the other side".into());
    }
    if program == "sed" && words[1..].iter().any(|word| sed_script_problem(word)) {
        return Some("the sed script runs a command or writes a file".into());
    }
    None
}

/// The commands these words run, each as its words with the program's name first
/// ([`program_name`]): the command itself, and what its wrappers, `-c` strings and
/// `find -exec` start; `find -delete` adds `rm`.
pub fn commands_run(words: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    collect(words, 0, &mut found);
    found
}

fn collect(words: &[String], depth: usize, found: &mut Vec<Vec<String>>) {
    if depth > MAX_DEPTH {
        return;
    }
    // What `$(…)`, backticks and `<(…)` run, inside any word.
    for word in words {
        for opener in ["$(", "`", "<(", ">("] {
            if let Some((_, inner)) = word.split_once(opener) {
                collect_line(inner.trim_end_matches([')', '`']), depth, found);
            }
        }
    }
    // A subshell or a group written against its first word: `(rm x)`, `{ rm x; }`.
    let mut words = words.to_vec();
    while let Some(first) = words.first_mut() {
        let trimmed = first.trim_start_matches(['(', '{', '!']).to_string();
        if trimmed.is_empty() {
            words.remove(0);
        } else {
            *first = trimmed;
            break;
        }
    }
    let words = words.as_slice();
    let Some(first) = words.first() else {
        return;
    };
    let program = program_name(first);
    let mut named = vec![program.clone()];
    named.extend(words[1..].iter().cloned());
    found.push(named);
    let rest = &words[1..];
    match program.as_str() {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "fish" | "csh" | "tcsh" | "su"
        | "runuser" | "script" => {
            if let Some(index) = rest.iter().position(|word| {
                word == "-c"
                    || word == "--command"
                    || (word.starts_with('-') && !word.starts_with("--") && word.ends_with('c'))
            }) && let Some(inner) = rest.get(index + 1)
            {
                collect_line(inner, depth, found);
            } else if let Some(script) = rest.iter().find(|word| !word.starts_with('-')) {
                found.push(vec![program_name(script)]);
            }
        }
        "eval" | "watch" => collect_line(&rest.join(" "), depth, found),
        "find" => collect_find(rest, depth, found),
        _ => {
            if let Some(inner) = wrapped(&program, rest) {
                collect(inner, depth + 1, found);
            }
        }
    }
}

fn collect_line(line: &str, depth: usize, found: &mut Vec<Vec<String>>) {
    for part in super::shell::analyse(line).parts {
        collect(&part.words, depth + 1, found);
    }
}

fn collect_find(rest: &[String], depth: usize, found: &mut Vec<Vec<String>>) {
    let mut index = 0;
    while index < rest.len() {
        let word = rest[index].as_str();
        if word == "-delete" {
            found.push(vec!["rm".into()]);
        }
        if matches!(word, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = index + 1;
            let end = rest[start..]
                .iter()
                .position(|word| word == ";" || word == "+")
                .map_or(rest.len(), |offset| start + offset);
            collect(&rest[start..end], depth + 1, found);
            index = end;
        }
        index += 1;
    }
}

/// Options of wrappers that take a value as the next word.
fn takes_value(program: &str, option: &str) -> bool {
    let with_value: &[&str] = match program {
        "env" => &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"],
        "sudo" => &[
            "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R",
        ],
        "doas" => &["-u", "-C"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
        "timeout" => &["-s", "--signal", "-k", "--kill-after"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "xargs" => &[
            "-a",
            "-d",
            "-E",
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "--arg-file",
            "--delimiter",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        "taskset" | "prlimit" | "flock" | "chroot" => &[],
        _ => &[],
    };
    with_value.contains(&option)
}

/// Positional words a wrapper takes before the command it runs.
fn leading_positionals(program: &str) -> usize {
    match program {
        "timeout" | "chroot" | "taskset" | "flock" => 1,
        _ => 0,
    }
}

/// The command a wrapper runs (`env A=1 rm x` → `rm x`); `None` for a program that is
/// no wrapper, or a wrapper with nothing to run.
fn wrapped<'a>(program: &str, rest: &'a [String]) -> Option<&'a [String]> {
    const WRAPPERS: &[&str] = &[
        "command",
        "builtin",
        "exec",
        "env",
        "nice",
        "ionice",
        "nohup",
        "timeout",
        "stdbuf",
        "xargs",
        "sudo",
        "doas",
        "busybox",
        "time",
        "setsid",
        "unbuffer",
        "chronic",
        "chroot",
        "taskset",
        "flock",
        "firejail",
        "nsenter",
        "unshare",
        "strace",
        "ltrace",
        "valgrind",
        "parallel",
        "prlimit",
        "catchsegv",
        "torsocks",
        "proxychains",
        "caffeinate",
        "then",
        "do",
        "else",
        "!",
    ];
    if !WRAPPERS.contains(&program) {
        return None;
    }
    let mut index = 0;
    let mut positionals = leading_positionals(program);
    while let Some(word) = rest.get(index) {
        if word == "--" {
            index += 1;
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            index += if takes_value(program, word) { 2 } else { 1 };
            continue;
        }
        if program == "env" && word.contains('=') {
            index += 1;
            continue;
        }
        if positionals > 0 {
            positionals -= 1;
            index += 1;
            continue;
        }
        break;
    }
    let inner = &rest[index.min(rest.len())..];
    if inner.is_empty() {
        // `xargs` alone runs `echo`; the others run nothing.
        return None;
    }
    Some(inner)
}

#[cfg(test)]
mod tests;
