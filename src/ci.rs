//! Whether fogbank runs under continuous integration, asked in one place.
//!
//! Outside CI a machine without a GPU adapter skips what needs one, with a message; under CI
//! the same absence is a failure, so CI cannot silently stop testing the renderer. CI systems
//! set the `CI` environment variable (GitHub Actions, GitLab and most others set `CI=true`).

/// True when the `CI` environment variable is set to a true value: anything non-empty except
/// `0` and `false` (any case, surrounding spaces ignored).
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| is_true(&value.to_string_lossy()))
}

/// Whether `value`, the text of the `CI` variable, means "yes".
fn is_true(value: &str) -> bool {
    let value = value.trim();
    !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false"))
}

#[cfg(test)]
mod tests {
    use super::is_true;

    #[test]
    fn true_values() {
        for value in ["true", "TRUE", "1", "yes", "on", " true "] {
            assert!(is_true(value), "{value:?}");
        }
    }

    #[test]
    fn false_values() {
        for value in ["", " ", "0", "false", "False", "FALSE", " 0 "] {
            assert!(!is_true(value), "{value:?}");
        }
    }
}
