//! ARCHITECTURE.md's code map against the tree, and the command line's place in it.
//!
//! The code map is the section of ARCHITECTURE.md under the heading `## Code map`, up to the
//! next `## ` heading. The test fails when:
//!
//! - a direct child of `src/` is not named there as a code span: a folder as `sim/`, a file as
//!   `timeline.rs`;
//! - a file of `shaders/` is not named there as a code span: `fog.wgsl`;
//! - a path the code map names no longer exists. A path is a code span made only of letters,
//!   digits, `_`, `-`, `.` and `/` that ends in `/`, `.rs` or `.wgsl`. It resolves when it
//!   exists relative to the repository root or to `shaders/`, or when it is the tail, in whole
//!   components, of a path under `src/` (`passes/fog.rs` is `src/gpu/passes/fog.rs`).
//!
//! It also checks an invariant ARCHITECTURE.md states: the library does not know the command
//! line. No file of `src/` outside `cli/`, `commands/` and `main.rs` imports `crate::cli` or
//! `crate::commands`.
//!
//! Each check is a plain function, tested below on a small made-up map and tree, both passing
//! and failing. No GPU, no binary: it reads files only.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The heading that opens the code map.
const CODE_MAP_HEADING: &str = "## Code map";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The text of the code map: the lines after [`CODE_MAP_HEADING`] up to the next heading of
/// the same or a higher level. `None` when the heading is missing.
fn code_map_section(markdown: &str) -> Option<String> {
    let mut lines = markdown.lines();
    lines.find(|line| line.trim_end() == CODE_MAP_HEADING)?;
    let section: Vec<&str> = lines
        .take_while(|line| !(line.starts_with("## ") || line.starts_with("# ")))
        .collect();
    Some(section.join("\n"))
}

/// Every inline code span of `markdown` (single backticks), outside fenced code blocks.
fn code_spans(markdown: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    let mut open: Option<String> = None;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for c in line.chars() {
            match (&mut open, c) {
                (None, '`') => open = Some(String::new()),
                (Some(span), '`') => {
                    spans.push(std::mem::take(span));
                    open = None;
                }
                (Some(span), c) => span.push(c),
                (None, _) => {}
            }
        }
        // A span may wrap onto the next line of its paragraph.
        if let Some(span) = &mut open {
            span.push(' ');
        }
    }
    spans
}

/// Whether a code span names a path: only path characters, ending in `/`, `.rs` or `.wgsl`,
/// with a name before the ending (`.wgsl` alone is an extension, not a path).
fn is_path(span: &str) -> bool {
    let path_chars = span
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    let name = span.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let stem = [".rs", ".wgsl"]
        .iter()
        .find_map(|ending| span.strip_suffix(ending))
        .map(|_| name.split('.').next().unwrap_or(""));
    let named = match stem {
        Some(stem) => !stem.is_empty(),
        None => span.ends_with('/') && !name.is_empty(),
    };
    path_chars && named
}

/// The names the code map must hold that it does not: `required` (`sim/`, `timeline.rs`,
/// `fog.wgsl`) missing from `spans`.
fn missing_names(spans: &[String], required: &[String]) -> Vec<String> {
    let named: BTreeSet<&str> = spans.iter().map(String::as_str).collect();
    required
        .iter()
        .filter(|name| !named.contains(name.as_str()))
        .cloned()
        .collect()
}

/// Whether the path `span` resolves: `exists` answers for paths relative to the repository
/// root (folders without their trailing `/`); `src_paths` are the paths under `src/`,
/// relative to it, folders ending in `/`.
fn resolves(span: &str, src_paths: &[String], exists: &dyn Fn(&str) -> bool) -> bool {
    let bare = span.trim_end_matches('/');
    if exists(bare) || exists(&format!("shaders/{bare}")) {
        return true;
    }
    let tail = format!("/{span}");
    src_paths
        .iter()
        .any(|path| path == span || path.ends_with(&tail))
}

/// The paths of `spans` that do not resolve ([`resolves`]).
fn dangling_paths(
    spans: &[String],
    src_paths: &[String],
    exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut dangling: Vec<String> = Vec::new();
    for span in spans {
        if is_path(span) && !resolves(span, src_paths, exists) && !dangling.contains(span) {
            dangling.push(span.clone());
        }
    }
    dangling
}

/// The modules of the command line that `source` imports through `crate::` (`cli`,
/// `commands`), comments left out. Grouped imports (`use crate::{cli, …}`) count too.
fn command_line_imports(source: &str) -> Vec<&'static str> {
    const COMMAND_LINE: [&str; 2] = ["cli", "commands"];
    let code: String = source
        .lines()
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let named: Vec<&str> = match rest.strip_prefix('{') {
            Some(group) => group_heads(group),
            None => {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                vec![&rest[..end]]
            }
        };
        for module in COMMAND_LINE {
            if named.contains(&module) && !found.contains(&module) {
                found.push(module);
            }
        }
    }
    found
}

/// The first segment of each path of a `use` group, `group` starting after its `{`:
/// `error` and `cli` in `error::Error, cli::{Args, Flags}}`.
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut expect_head) = (1, true);
    let mut chars = group.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => expect_head = true,
            c if depth == 1 && expect_head && (c.is_alphanumeric() || c == '_') => {
                let mut end = at + c.len_utf8();
                while let Some(&(next, c)) = chars.peek() {
                    if !(c.is_alphanumeric() || c == '_') {
                        break;
                    }
                    end = next + c.len_utf8();
                    chars.next();
                }
                heads.push(&group[at..end]);
                expect_head = false;
            }
            _ => {}
        }
    }
    heads
}

/// Every path under `dir`, relative to `base`, folders ending in `/`, sorted.
fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let relative = path
            .strip_prefix(base)
            .expect("under the base")
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            out.push(format!("{relative}/"));
            walk(&path, base, out);
        } else {
            out.push(relative);
        }
    }
    out.sort();
}

/// The direct children of `src/` as the code map names them (`sim/`, `timeline.rs`), and the
/// files of `shaders/` (`fog.wgsl`).
fn required_names(root: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in fs::read_dir(root.join("src")).expect("reading src/") {
        let path = entry.expect("an entry of src/").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            names.push(format!("{name}/"));
        } else if name.ends_with(".rs") {
            names.push(name);
        }
    }
    for entry in fs::read_dir(root.join("shaders")).expect("reading shaders/") {
        let name = entry.expect("an entry of shaders/").file_name();
        let name = name.to_string_lossy().into_owned();
        if name.ends_with(".wgsl") {
            names.push(name);
        }
    }
    names.sort();
    names
}

#[test]
fn the_code_map_names_every_module_and_shader() {
    let root = repo_root();
    let path = root.join("ARCHITECTURE.md");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let section = code_map_section(&text).unwrap_or_else(|| {
        panic!(
            "{}: no `{CODE_MAP_HEADING}` heading (the code map this test reads)",
            path.display()
        )
    });
    let spans = code_spans(&section);

    let mut problems = Vec::new();
    let missing = missing_names(&spans, &required_names(&root));
    if !missing.is_empty() {
        problems.push(format!(
            "it does not name {} (add a line for each, by its name in code format: `sim/`, \
             `timeline.rs`, `fog.wgsl`)",
            missing.join(", ")
        ));
    }
    let mut src_paths = Vec::new();
    walk(&root.join("src"), &root.join("src"), &mut src_paths);
    let exists = |relative: &str| root.join(relative).exists();
    let dangling = dangling_paths(&spans, &src_paths, &exists);
    if !dangling.is_empty() {
        problems.push(format!(
            "it names {}, which do not exist (a path resolves against the repository root, \
             shaders/, or as the tail of a path under src/)",
            dangling.join(", ")
        ));
    }
    assert!(
        problems.is_empty(),
        "{}, section `{CODE_MAP_HEADING}`: {}",
        path.display(),
        problems.join("; ")
    );
}

#[test]
fn the_library_does_not_import_the_command_line() {
    let root = repo_root();
    let mut paths = Vec::new();
    walk(&root.join("src"), &root.join("src"), &mut paths);
    let offenders: Vec<String> = paths
        .iter()
        .filter(|path| path.ends_with(".rs"))
        .filter(|path| {
            !(path.starts_with("cli/") || path.starts_with("commands/") || *path == "main.rs")
        })
        .filter_map(|path| {
            let file = root.join("src").join(path);
            let source = fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
            let imports = command_line_imports(&source);
            (!imports.is_empty()).then(|| format!("src/{path} ({})", imports.join(", ")))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "the library imports the command line (ARCHITECTURE.md, Invariants): {}",
        offenders.join("; ")
    );
}

/// A made-up ARCHITECTURE.md for the checks' own tests.
const MADE_UP: &str = "# Architecture

Before the map, `gone.rs` does not count.

## Code map

**`sim/`**: the fluid. `pressure/rows.rs` places the rows; `FluidSim::step` is not a path.

**`timeline.rs`** and **`fog.wgsl`**: a span that wraps, `sim/
grid.rs`, and a placeholder, `scene/<section>.rs`.

```text
`hidden.rs` in a fenced block
```

### A subheading stays inside

`passes/fog.rs`, `benches/`, `scenes/README.md`.

## Invariants

`old.rs` is past the map.
";

fn made_up_tree() -> (Vec<String>, impl Fn(&str) -> bool) {
    let src_paths = [
        "sim/",
        "sim/grid.rs",
        "sim/pressure/",
        "sim/pressure/rows.rs",
        "timeline.rs",
        "gpu/",
        "gpu/passes/",
        "gpu/passes/fog.rs",
    ]
    .map(String::from)
    .to_vec();
    let at_root: BTreeSet<&str> = ["src", "shaders", "shaders/fog.wgsl", "benches"].into();
    (src_paths, move |path: &str| at_root.contains(path))
}

#[test]
fn the_section_runs_from_its_heading_to_the_next() {
    let section = code_map_section(MADE_UP).expect("the made-up map has the heading");
    assert!(section.contains("A subheading stays inside"));
    assert!(!section.contains("gone.rs") && !section.contains("old.rs"));
    assert_eq!(code_map_section("# Architecture\n\n## Modules\n"), None);
}

#[test]
fn spans_skip_fenced_blocks_and_join_wrapped_lines() {
    let spans = code_spans(&code_map_section(MADE_UP).unwrap());
    assert!(spans.contains(&"sim/".to_string()));
    assert!(spans.contains(&"sim/ grid.rs".to_string()));
    assert!(!spans.iter().any(|span| span.contains("hidden")));
    assert!(!is_path("sim/ grid.rs") && !is_path("scene/<section>.rs"));
    assert!(!is_path("FluidSim::step") && !is_path("README.md"));
    assert!(!is_path(".wgsl") && !is_path(".rs") && !is_path("/"));
    assert!(is_path("passes/fog.rs") && is_path("benches/") && is_path("fog.wgsl"));
}

#[test]
fn a_name_left_out_of_the_map_is_reported() {
    let spans = code_spans(&code_map_section(MADE_UP).unwrap());
    let present = ["sim/", "timeline.rs", "fog.wgsl"].map(String::from);
    assert!(missing_names(&spans, &present).is_empty());
    let required = ["sim/", "timeline.rs", "fog.wgsl", "world/", "rain.wgsl"].map(String::from);
    assert_eq!(missing_names(&spans, &required), ["world/", "rain.wgsl"]);
}

#[test]
fn a_path_that_no_longer_exists_is_reported() {
    let (src_paths, exists) = made_up_tree();
    let spans = code_spans(&code_map_section(MADE_UP).unwrap());
    assert!(dangling_paths(&spans, &src_paths, &exists).is_empty());

    // A tail of a path under src/, in whole components only.
    assert!(resolves("pressure/rows.rs", &src_paths, &exists));
    assert!(resolves("passes/", &src_paths, &exists));
    assert!(!resolves("ssure/rows.rs", &src_paths, &exists));
    // The repository root and shaders/.
    assert!(resolves("benches/", &src_paths, &exists));
    assert!(resolves("shaders/fog.wgsl", &src_paths, &exists));
    assert!(resolves("fog.wgsl", &src_paths, &exists));

    let stale = ["sim/", "sim/advect.rs", "rain.wgsl", "people/"].map(String::from);
    assert_eq!(
        dangling_paths(&stale, &src_paths, &exists),
        ["sim/advect.rs", "rain.wgsl", "people/"]
    );
}

#[test]
fn command_line_imports_are_found_outside_comments() {
    assert!(command_line_imports("use crate::scene::Scene;\n").is_empty());
    assert!(command_line_imports("//! See `crate::commands` for the printing.\n").is_empty());
    assert!(command_line_imports("let x = 1; // crate::cli::Args\n").is_empty());
    assert!(command_line_imports("use crate::client::Thing;\n").is_empty());
    assert_eq!(
        command_line_imports("use crate::cli::FlagError;\n"),
        ["cli"]
    );
    assert_eq!(
        command_line_imports("fn f() -> crate::commands::Settings { todo!() }\n"),
        ["commands"]
    );
    assert_eq!(
        command_line_imports("use crate::{\n    error::Error,\n    cli::Args,\n};\n"),
        ["cli"]
    );
    // A `cli` nested under another module is not the command line.
    assert!(command_line_imports("use crate::{gpu::{cli, GpuError}, scene};\n").is_empty());
}
