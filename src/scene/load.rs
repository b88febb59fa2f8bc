//! Loading a scene: read the file (or the embedded temple), parse, apply `--set`, validate.
//!
//! The result is either a usable [`Scene`] with its rendered warnings, or every problem found,
//! each pointing at its line. Nothing is rendered or written before this succeeds.

use super::diagnostics::{self, SceneError, SourceText, Warning};
use super::{Scene, TEMPLE_RON, overrides, validate};
use std::fmt;
use std::path::Path;

/// A scene ready to use, with where it came from.
#[derive(Debug, Clone)]
pub struct LoadedScene {
    /// The validated scene, overrides applied.
    pub scene: Scene,
    /// The text it was read from.
    pub source: SourceText,
    /// Warnings, already rendered for the terminal.
    pub warnings: Vec<String>,
}

/// Every problem that stopped a scene from loading.
#[derive(Debug)]
pub struct SceneErrors {
    /// The problems, in file order where known.
    pub errors: Vec<SceneError>,
}

impl fmt::Display for SceneErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SceneErrors {}

impl From<SceneError> for SceneErrors {
    fn from(error: SceneError) -> Self {
        SceneErrors {
            errors: vec![error],
        }
    }
}

/// Name shown for the embedded default scene.
pub const EMBEDDED_NAME: &str = "<embedded scenes/temple.ron>";

/// Reads the scene at `path`, or the embedded temple when `path` is `None`.
pub fn read_source(path: Option<&Path>) -> Result<SourceText, SceneError> {
    match path {
        None => Ok(SourceText {
            name: EMBEDDED_NAME.into(),
            text: TEMPLE_RON.into(),
        }),
        Some(path) => std::fs::read_to_string(path)
            .map(|text| SourceText::new(path.display().to_string(), text))
            .map_err(|source| SceneError::Io {
                path: path.display().to_string(),
                source,
            }),
    }
}

/// Loads, overrides and validates a scene.
pub fn load(path: Option<&Path>, sets: &[String]) -> Result<LoadedScene, SceneErrors> {
    let source = read_source(path)?;
    load_source(source, sets)
}

/// Parses, overrides and validates a scene from text.
pub fn load_source(source: SourceText, sets: &[String]) -> Result<LoadedScene, SceneErrors> {
    let parsed: Scene = diagnostics::parse_document(&source)?;
    let scene = overrides::apply_overrides(parsed, sets)?;
    let report = validate::check(&scene);
    let overridden = |field_path: &str| {
        sets.iter()
            .filter_map(|set| set.split_once('=').map(|(p, _)| p.trim().to_string()))
            .find(|p| {
                field_path == p
                    || field_path.starts_with(&format!("{p}."))
                    || field_path.starts_with(&format!("{p}["))
            })
    };
    if !report.errors.is_empty() {
        let errors = report
            .errors
            .iter()
            .map(|problem| match overridden(&problem.field_path) {
                Some(flag_path) => SceneError::Override {
                    flag: sets
                        .iter()
                        .find(|s| s.trim_start().starts_with(&flag_path))
                        .cloned()
                        .unwrap_or(flag_path),
                    message: problem.message.clone(),
                    suggestion: Some(problem.help.clone()),
                },
                None => diagnostics::invalid(
                    &source,
                    &problem.field_path,
                    problem.message.clone(),
                    problem.help.clone(),
                ),
            })
            .collect();
        return Err(SceneErrors { errors });
    }
    let warnings = report
        .warnings
        .iter()
        .map(|problem| {
            diagnostics::render_warning(
                &source,
                &Warning {
                    field_path: problem.field_path.clone(),
                    message: format!("{} ({})", problem.message, problem.help),
                },
            )
        })
        .collect();
    Ok(LoadedScene {
        scene,
        source,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_before_validation() {
        let loaded = load(None, &["fog.sheets=32".into(), "fluid.grid=128".into()]).unwrap();
        assert_eq!(loaded.scene.fog.sheets, 32);
        assert_eq!(loaded.scene.fluid.grid, 128);
        let err = load(None, &["fog.sheets=0".into()])
            .unwrap_err()
            .to_string();
        assert!(err.contains("fog.sheets=0"), "{err}");
        assert!(err.contains("1..=512"), "{err}");
    }
}
