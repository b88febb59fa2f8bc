//! Documentation generated from the clap definitions, so it can never drift from the flags:
//! shell completion scripts (`fogbank completions`) and manual pages (`fogbank man`).

use super::Cli;
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// Shells fogbank writes completion scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// Elvish.
    Elvish,
    /// PowerShell.
    Powershell,
}

/// The completion script for `shell`.
pub fn completion_script(shell: Shell) -> Vec<u8> {
    use clap_complete::Shell as S;
    let shell = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Elvish => S::Elvish,
        Shell::Powershell => S::PowerShell,
    };
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "fogbank", &mut script);
    script
}

/// The roff manual page of `command`.
pub fn man_page(command: &clap::Command) -> Result<Vec<u8>, crate::Error> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(|source| crate::Error::Write {
            path: PathBuf::from("<manual page>"),
            source,
        })?;
    Ok(page)
}

/// `fogbank.1` and one `fogbank-COMMAND.1` per subcommand, as (path in `dir`, page) pairs.
pub fn man_pages(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, crate::Error> {
    let command = Cli::command();
    let mut pages = vec![(dir.join("fogbank.1"), man_page(&command)?)];
    for sub in command.get_subcommands() {
        let name = format!("fogbank-{}", sub.get_name());
        let mut page_command = sub.clone().name(name.clone());
        if let Some(version) = command.get_version() {
            page_command = page_command.version(version.to_string());
        }
        pages.push((dir.join(format!("{name}.1")), man_page(&page_command)?));
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_name_every_command() {
        let script = String::from_utf8(completion_script(Shell::Bash)).unwrap();
        for name in ["render", "still", "check", "simulate", "completions", "man"] {
            assert!(script.contains(name), "bash completion lacks {name}");
        }
        let fish = String::from_utf8(completion_script(Shell::Fish)).unwrap();
        assert!(
            fish.lines()
                .any(|line| line.contains("using_subcommand check") && line.contains("-l golden")),
            "fish completion lacks check's --golden"
        );
    }

    #[test]
    fn man_pages_cover_every_command() {
        let pages = man_pages(Path::new("man")).unwrap();
        let top = String::from_utf8(pages[0].1.clone()).unwrap();
        assert!(
            top.starts_with(".ie") || top.contains(".TH fogbank"),
            "{top}"
        );
        let render = pages
            .iter()
            .find(|(path, _)| path.ends_with("fogbank-render.1"))
            .expect("a page for render");
        let text = String::from_utf8(render.1.clone()).unwrap();
        assert!(
            text.contains("\\-\\-video") || text.contains("--video"),
            "{text}"
        );
        assert_eq!(pages.len(), Cli::command().get_subcommands().count() + 1);
    }
}
