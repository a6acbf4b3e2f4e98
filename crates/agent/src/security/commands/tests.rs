use super::*;

fn w(text: &str) -> Vec<String> {
    shell_words::split(text).unwrap()
}

fn programs(text: &str) -> Vec<String> {
    commands_run(&w(text))
        .into_iter()
        .map(|words| words[0].clone())
        .collect()
}

#[test]
fn programs_are_known_by_name_not_path_or_version() {
    assert_eq!(program_name("/bin/rm"), "rm");
    assert_eq!(program_name("/usr/bin/python3.12"), "python");
    assert_eq!(program_name("pip3"), "pip");
    assert_eq!(program_name("RM"), "rm");
    assert_eq!(program_name("."), ".");
    assert_eq!(program_name("x86_64-gcc-12"), "x86_64-gcc");
}

#[test]
fn wrappers_are_seen_through() {
    for text in [
        "/bin/rm -rf x",
        "command rm x",
        "env -i A=1 rm x",
        "exec rm x",
        "nice -n 5 rm x",
        "nohup rm x",
        "timeout -s KILL 5 rm x",
        "stdbuf -oL rm x",
        "xargs -n 1 rm",
        "sudo -u root rm x",
        "doas rm x",
        "busybox rm x",
        "bash -c 'ls; rm x'",
        "sh -ec 'rm x'",
        "env nice command /usr/bin/rm x",
        "find . -name '*.tmp' -delete",
        "find . -exec rm {} ;",
        "find . -execdir /bin/rm -f {} +",
        "eval rm x",
    ] {
        assert!(
            programs(text).contains(&"rm".to_string()),
            "{text:?}: {:?}",
            programs(text)
        );
    }
    assert_eq!(programs("ls -la"), ["ls"]);
    assert_eq!(programs("git rm x"), ["git"]);
}

#[test]
fn options_that_run_write_or_read_elsewhere_are_not_covered_by_a_prefix() {
    for text in [
        "git -c alias.x='!id' x",
        "git log --output=.git/config --format=x",
        "git fetch --upload-pack=id origin",
        "git grep -Oid x",
        "git grep --open-files-in-pager=id x",
        "git -C /etc log",
        "git rebase --exec id",
        "git config core.fsmonitor id",
        "git submodule foreach id",
        "git clone -u id x",
        "find . -exec id ;",
        "find . -delete",
        "rg --pre ./x pattern",
        "tar --to-command=id -xf a.tar",
        "tar -Iid -xf a.tar",
        "latexmk -e '$pdflatex=q/id/' paper.tex",
        "pdflatex -shell-escape paper.tex",
        "sed -n 1e\\ id x",
        "sed 's/a/id/e' x",
        "sed 's/a/b/w /tmp/x' x",
        "sed '1w out' x",
        "python3.12 fit.py",
        "ipython",
        "pytest",
        "cargo run",
        "cargo build",
        "cargo +nightly test",
        "npm run build",
        "npm test",
        "pip install -e .",
        "./script.sh",
        "scripts/run",
        "/tmp/x",
        "make",
        "systemd-run --user id",
        "dbus-send --session x",
        "docker ps",
    ] {
        assert!(prefix_problem(&w(text)).is_some(), "{text:?} was covered");
    }
    for text in [
        "git status --short",
        "git log --oneline -5",
        "git diff HEAD~1",
        "git commit -m 'fix: c'",
        "ls -la",
        "rg -n TRGB notes",
        "grep -rn H0 .",
        "sed -n 1,5p notes.md",
        "sed s/a/b/g x",
        "tar -xzf a.tar.gz",
        "pdflatex paper.tex",
        "/usr/bin/git status",
        "cargo fmt",
        "pip list",
    ] {
        assert_eq!(prefix_problem(&w(text)), None, "{text:?}");
    }
}
