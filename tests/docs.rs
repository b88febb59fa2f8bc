//! The documentation's own checks, so that what a newcomer reads stays short and true:
//!
//! - prose: no sentence over 60 words and no table cell over 200 characters in the project's
//!   Markdown (README, ARCHITECTURE, CHANGELOG, the guides, the scene, test and bench READMEs
//!   and the benchmark records' READMEs);
//! - length: `README.md` at most 250 lines, `ARCHITECTURE.md` at most 300;
//! - links: every relative link points at a file or folder that exists;
//! - commands: every `fogbank …` (or `cargo run … -- …`) line in a `sh` block parses against
//!   the real command line, and turns into a command, so a renamed flag fails here first.
//!
//! A sentence ends at `.`, `!` or `?` before whitespace, or where its paragraph, list item,
//! heading or table cell ends. Code blocks are not prose; inline code counts as words.
//! The checkers are plain functions with tests of their own on made-up text, so each check is
//! seen to fail as well as pass.

use std::path::{Path, PathBuf};

use clap::Parser;
use fogbank::cli::Cli;

/// The longest sentence allowed, in words.
const MAX_SENTENCE_WORDS: usize = 60;
/// The longest table cell allowed, in characters.
const MAX_CELL_CHARS: usize = 200;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files held to the prose rules, relative to the project root.
fn prose_files() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> = [
        "README.md",
        "ARCHITECTURE.md",
        "CHANGELOG.md",
        "scenes/README.md",
        "tests/README.md",
        "benches/README.md",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    files.extend(markdown_in(&root, "docs"));
    if let Ok(runs) = std::fs::read_dir(root.join("benches/runs")) {
        let mut records: Vec<PathBuf> = runs
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .map(|p| p.join("README.md"))
            .filter(|p| p.is_file())
            .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
            .collect();
        records.sort();
        files.extend(records);
    }
    files
}

fn markdown_in(root: &Path, folder: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
        .unwrap_or_else(|e| panic!("{folder}/: {e}"))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    found.sort();
    found
}

fn read(relative: &Path) -> String {
    std::fs::read_to_string(root().join(relative))
        .unwrap_or_else(|e| panic!("{}: {e}", relative.display()))
}

/// One piece of a Markdown file: prose, a table row's cells, or a fenced code block.
#[derive(Debug, PartialEq)]
enum Block {
    /// A paragraph, list item or heading, its lines joined; with its first line (1-based).
    Prose(usize, String),
    /// A table row's cells; with its line.
    Row(usize, Vec<String>),
    /// A fenced code block's language and lines (with their line numbers).
    Code(String, Vec<(usize, String)>),
}

/// Splits Markdown into prose units, table rows and code blocks.
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut prose: Option<(usize, String)> = None;
    let mut code: Option<(String, Vec<(usize, String)>)> = None;
    let mut in_comment = false;
    let flush = |prose: &mut Option<(usize, String)>, out: &mut Vec<Block>| {
        if let Some((line, text)) = prose.take() {
            out.push(Block::Prose(line, text));
        }
    };
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let trimmed = line.trim();
        if let Some((language, lines)) = code.as_mut() {
            if trimmed.starts_with("```") {
                out.push(Block::Code(std::mem::take(language), std::mem::take(lines)));
                code = None;
            } else {
                lines.push((number, line.to_string()));
            }
            continue;
        }
        if in_comment {
            in_comment = !trimmed.contains("-->");
            continue;
        }
        if trimmed.starts_with("<!--") {
            in_comment = !trimmed.contains("-->");
            continue;
        }
        if let Some(language) = trimmed.strip_prefix("```") {
            flush(&mut prose, &mut out);
            code = Some((language.trim().to_string(), Vec::new()));
            continue;
        }
        if trimmed.is_empty() {
            flush(&mut prose, &mut out);
            continue;
        }
        if trimmed.starts_with('|') {
            flush(&mut prose, &mut out);
            let cells = table_cells(trimmed);
            let separator = cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')));
            if !separator {
                out.push(Block::Row(number, cells));
            }
            continue;
        }
        let starts_unit = trimmed.starts_with('#')
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with("> ")
            || ordered_item(trimmed);
        if starts_unit {
            flush(&mut prose, &mut out);
        }
        match prose.as_mut() {
            Some((_, text)) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            None => prose = Some((number, trimmed.to_string())),
        }
        if trimmed.starts_with('#') {
            flush(&mut prose, &mut out);
        }
    }
    flush(&mut prose, &mut out);
    if let Some((language, lines)) = code {
        out.push(Block::Code(language, lines));
    }
    out
}

fn ordered_item(line: &str) -> bool {
    let digits = line.chars().take_while(|c| c.is_ascii_digit()).count();
    digits > 0 && line[digits..].starts_with(". ")
}

/// A table row's cells: split on `|` outside inline code, `\|` kept as text.
fn table_cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = vec![String::new()];
    let mut in_code = false;
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '`' => {
                in_code = !in_code;
                cells.last_mut().unwrap().push(c);
            }
            '|' if !in_code => cells.push(String::new()),
            _ => cells.last_mut().unwrap().push(c),
        }
    }
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The sentences of a prose unit.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        let ends = matches!(c, '.' | '!' | '?')
            && chars.get(i + 1).is_none_or(|next| next.is_whitespace());
        if ends {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out.into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn words(sentence: &str) -> usize {
    sentence.split_whitespace().count()
}

/// What breaks the prose rules in one file's text, one line a fault.
fn prose_faults(name: &str, text: &str) -> Vec<String> {
    let mut faults = Vec::new();
    let opening = |s: &str| s.split_whitespace().take(8).collect::<Vec<_>>().join(" ");
    for block in blocks(text) {
        match block {
            Block::Prose(line, unit) => {
                for sentence in sentences(&unit) {
                    let count = words(&sentence);
                    if count > MAX_SENTENCE_WORDS {
                        faults.push(format!(
                            "{name}:{line}: a sentence of {count} words (at most \
                             {MAX_SENTENCE_WORDS}): \"{} …\"",
                            opening(&sentence)
                        ));
                    }
                }
            }
            Block::Row(line, cells) => {
                for cell in cells {
                    let length = cell.chars().count();
                    if length > MAX_CELL_CHARS {
                        faults.push(format!(
                            "{name}:{line}: a table cell of {length} characters (at most \
                             {MAX_CELL_CHARS}): \"{} …\"",
                            opening(&cell)
                        ));
                    }
                    for sentence in sentences(&cell) {
                        let count = words(&sentence);
                        if count > MAX_SENTENCE_WORDS {
                            faults.push(format!(
                                "{name}:{line}: a sentence of {count} words in a table cell"
                            ));
                        }
                    }
                }
            }
            Block::Code(..) => {}
        }
    }
    faults
}

/// The targets of a text's Markdown links and images: `[text](target)`.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for block in blocks(text) {
        let (line, pieces) = match block {
            Block::Prose(line, unit) => (line, vec![unit]),
            Block::Row(line, cells) => (line, cells),
            Block::Code(..) => continue,
        };
        for piece in pieces {
            let mut rest = piece.as_str();
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                let Some(end) = after.find(')') else { break };
                out.push((line, after[..end].trim().to_string()));
                rest = &after[end..];
            }
        }
    }
    out
}

/// Relative link targets of one file that do not exist.
fn broken_links(file: &Path, text: &str, root: &Path) -> Vec<String> {
    let folder = file.parent().unwrap_or(Path::new(""));
    link_targets(text)
        .into_iter()
        .filter(|(_, target)| {
            !(target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:"))
        })
        .filter_map(|(line, target)| {
            let path = target.split('#').next().unwrap_or_default();
            let path = path.split_whitespace().next().unwrap_or_default();
            let exists = if let Some(absolute) = path.strip_prefix('/') {
                root.join(absolute).exists()
            } else {
                root.join(folder).join(path).exists()
            };
            (!exists).then(|| format!("{}:{line}: no such file: {target}", file.display()))
        })
        .collect()
}

/// Splits a shell command line into words as a POSIX shell would for the simple lines the
/// documentation shows: single and double quotes, backslash escapes. Stops at a comment, a
/// pipe, a redirection or a command separator. `None` when a quote is left open or the line
/// uses an expansion (`$`), which a test cannot stand in for.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => w.push(other),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' => return None,
                        '\\' => w.push(chars.next()?),
                        other => w.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            '$' => return None,
            '#' if word.is_none() => break,
            '|' | '>' | '<' | ';' | '&' => break,
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Some(words)
}

/// The fogbank arguments of a documented shell line, with `fogbank` first: a line that runs
/// `fogbank …`, or `cargo run [cargo flags] -- …` (the binary from a checkout), after any
/// `NAME=value` words. `None` for a line that runs something else.
fn fogbank_arguments(line: &str) -> Option<Vec<String>> {
    let line = line.trim().trim_start_matches("$ ");
    let words = shell_words(line)?;
    // Skip `NAME=value` words: the environment given to the command.
    let assignment = |w: &String| w.contains('=') && !w.starts_with('-');
    let start = words.iter().position(|w| !assignment(w))?;
    let words = &words[start..];
    match words.first().map(String::as_str) {
        Some("fogbank") => Some(words.to_vec()),
        Some("cargo") if words.get(1).map(String::as_str) == Some("run") => {
            let dashes = words.iter().position(|w| w == "--")?;
            // `cargo run --example NAME -- …` runs another program.
            if words[..dashes]
                .iter()
                .any(|w| w == "--example" || w == "--bin")
            {
                return None;
            }
            let mut args = vec!["fogbank".to_string()];
            args.extend(words[dashes + 1..].iter().cloned());
            Some(args)
        }
        _ => None,
    }
}

/// Whether the command line takes these arguments: clap parses them, and every value it
/// leaves to fogbank (sizes, ranges, probes, chunks) reads too. `--chunk auto` reads the job
/// array's environment, so for it only clap's parse is checked.
fn command_fault(arguments: &[String]) -> Option<String> {
    let parsed = match Cli::try_parse_from(arguments) {
        Ok(parsed) => parsed,
        Err(error) => return Some(error.render().to_string()),
    };
    let reads_environment = arguments
        .windows(2)
        .any(|w| w[0] == "--chunk" && w[1] == "auto");
    if reads_environment {
        return None;
    }
    parsed.into_command().err().map(|e| e.to_string())
}

#[test]
fn no_sentence_over_60_words_and_no_table_cell_over_200_characters() {
    let mut faults = Vec::new();
    for file in prose_files() {
        let text = read(&file);
        faults.extend(prose_faults(&file.display().to_string(), &text));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn the_readme_and_the_architecture_stay_short() {
    for (file, limit) in [("README.md", 250), ("ARCHITECTURE.md", 300)] {
        let lines = read(Path::new(file)).lines().count();
        assert!(lines <= limit, "{file} has {lines} lines, at most {limit}");
    }
}

#[test]
fn every_relative_link_points_at_a_file_that_exists() {
    let root = root();
    let mut faults = Vec::new();
    for file in prose_files() {
        faults.extend(broken_links(&file, &read(&file), &root));
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn every_documented_fogbank_command_parses() {
    let mut checked = 0;
    let mut faults = Vec::new();
    for file in prose_files() {
        for block in blocks(&read(&file)) {
            let Block::Code(language, lines) = block else {
                continue;
            };
            if !matches!(language.as_str(), "sh" | "bash" | "shell" | "console") {
                continue;
            }
            for (line, text) in lines {
                let Some(arguments) = fogbank_arguments(&text) else {
                    continue;
                };
                checked += 1;
                if let Some(fault) = command_fault(&arguments) {
                    faults.push(format!(
                        "{}:{line}: `{}`\n{fault}",
                        file.display(),
                        text.trim()
                    ));
                }
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
    assert!(checked >= 20, "only {checked} documented commands found");
}

#[test]
fn the_prose_checker_finds_long_sentences_and_long_cells() {
    let short = "One idea. Another idea, with `code` in it!\n\n- A list item.\n";
    assert!(prose_faults("short.md", short).is_empty());
    let long = format!("{}.\n", vec!["word"; 61].join(" "));
    let faults = prose_faults("long.md", &long);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].starts_with("long.md:1: a sentence of 61 words"));
    // Sixty words split over lines still make one sentence; a full stop ends it.
    let wrapped = format!(
        "{}\n{}.\n",
        vec!["a"; 30].join(" "),
        vec!["b"; 31].join(" ")
    );
    assert_eq!(prose_faults("wrapped.md", &wrapped).len(), 1);
    let two = format!(
        "{}. {}.\n",
        vec!["a"; 30].join(" "),
        vec!["b"; 31].join(" ")
    );
    assert!(prose_faults("two.md", &two).is_empty());
    // A list item or heading ends a sentence without a full stop.
    let items = format!(
        "- {}\n- {}\n",
        vec!["a"; 40].join(" "),
        vec!["b"; 40].join(" ")
    );
    assert!(prose_faults("items.md", &items).is_empty());
    // Code blocks are not prose.
    let code = format!("```sh\n{}\n```\n", vec!["x"; 100].join(" "));
    assert!(prose_faults("code.md", &code).is_empty());
    let table = format!(
        "| a | b |\n|---|---|\n| `x \\| y` | {} |\n",
        "c".repeat(201)
    );
    let faults = prose_faults("table.md", &table);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].contains("a table cell of 201 characters"));
    assert_eq!(table_cells("| `a | b` | c \\| d |"), ["`a | b`", "c | d"]);
}

#[test]
fn the_link_checker_finds_missing_files() {
    let root = root();
    let text = "See [the guide](rendering.md#views), [web](https://example.com), \
                [here](#top) and [gone](missing.md).\n\n| [table](../README.md) |\n";
    let faults = broken_links(Path::new("docs/x.md"), text, &root);
    assert_eq!(faults, ["docs/x.md:1: no such file: missing.md"]);
}

#[test]
fn the_command_checker_reads_shell_lines_and_rejects_unknown_flags() {
    assert_eq!(
        shell_words(r#"fogbank still --set 'camera=Fixed(a: 1)' "x y" a\ b # note"#).unwrap(),
        [
            "fogbank",
            "still",
            "--set",
            "camera=Fixed(a: 1)",
            "x y",
            "a b"
        ]
    );
    assert_eq!(shell_words("echo $HOME"), None);
    assert_eq!(
        fogbank_arguments("FOGBANK_GPU=1 fogbank info | less").unwrap(),
        ["fogbank", "info"]
    );
    assert_eq!(
        fogbank_arguments("cargo run --release -- render --frames 0..3").unwrap(),
        ["fogbank", "render", "--frames", "0..3"]
    );
    assert_eq!(fogbank_arguments("bash scripts/setup.sh"), None);
    assert_eq!(
        fogbank_arguments("cargo run --release --example render_clip -- a.ron out"),
        None
    );
    let args = |line: &str| fogbank_arguments(line).unwrap();
    assert_eq!(
        command_fault(&args("fogbank still --frame 300 --out a.png")),
        None
    );
    assert!(command_fault(&args("fogbank still --frmae 300 --out a.png")).is_some());
    assert!(command_fault(&args("fogbank render --size 12x")).is_some());
    assert!(command_fault(&args("fogbank render --frames 9..2")).is_some());
}
