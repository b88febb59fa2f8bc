//! Whether fogbank runs under continuous integration, decided in one place.
//!
//! Under CI, `check` never creates references (a missing one is an error, not a new golden)
//! and the GPU tests fail instead of skipping when no adapter exists. CI services set `CI`
//! (GitHub Actions, GitLab, Buildkite: `true`); a value that is empty, `0` or `false` means
//! "not CI", so `CI=0` turns the behaviour off on a developer's machine.

/// True when the environment variable `CI` is set to anything but empty, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| is_truthy(&value))
}

/// True when running as a GitHub Actions step (`GITHUB_ACTIONS=true`), where `check` prints
/// `::error` annotations and appends a job summary to `$GITHUB_STEP_SUMMARY`.
pub fn in_github_actions() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|value| value.trim() == "true")
}

/// The rule [`in_ci`] applies to the variable's value.
fn is_truthy(value: &str) -> bool {
    let value = value.trim();
    !value.is_empty() && value != "0" && !value.eq_ignore_ascii_case("false")
}

#[cfg(test)]
mod tests {
    use super::is_truthy;

    #[test]
    fn ci_values() {
        for yes in ["true", "1", "yes", "TRUE"] {
            assert!(is_truthy(yes), "{yes}");
        }
        for no in ["", "0", "false", "False", " "] {
            assert!(!is_truthy(no), "{no:?}");
        }
    }
}
