//! Accepting a failed check's pictures without rendering again (`check --accept`).
//!
//! A failing check writes `frame_NNNN.actual.png` (or `.actual.exr` with `--format exr`)
//! beside each failing reference, and `DIR/actuals.json`, the record of what made them: the
//! scene's hash (file and `--set` overrides), the size, samples, shutter, view, compositor and
//! format, the adapter and the fogbank version, and the frames that failed. [`accept`] is given the same scene and flags. It
//! compares what they would render with that record, refuses with the reason when anything
//! differs, and otherwise moves each failed frame's actual picture over its reference. It
//! updates `golden.json` and opens no GPU. A check that has no failures left removes the
//! record.

use super::golden::CheckOptions;
use super::{CompareError, GoldenFormat, GoldenSidecar, HdrFrame, Tolerance, artifact_paths};
use super::{load_png, reference::remove_stale};
use crate::Error;
use crate::gpu::Compositor;
use crate::output::atomic::write_atomic;
use crate::scene::Scene;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// File name of the record of a failed check's actual pictures, inside the golden folder.
pub const ACTUALS_FILE: &str = "actuals.json";

/// What decides the pictures a check renders; two checks with equal settings render the same
/// frames alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenderSettings {
    /// [`Scene::content_hash`] of the scene as rendered (file, `--set`, size, samples,
    /// shutter and fog resolution applied), in hexadecimal.
    pub scene_hash: String,
    /// Picture size, `[width, height]`.
    pub size: [u32; 2],
    /// Samples a pixel.
    pub samples: u32,
    /// Samples a pixel at an edge (`output.edge_samples`; 1 when a record leaves it out).
    #[serde(default = "one")]
    pub edge_samples: u32,
    /// Open share of the shutter.
    pub shutter: f32,
    /// The view's name.
    pub view: String,
    /// The compositor as chosen (`raymarch:STEPS` for the raymarch).
    pub compositor: String,
    /// The pictures' format (`png` when a record leaves it out).
    #[serde(default, skip_serializing_if = "GoldenFormat::is_png")]
    pub format: GoldenFormat,
}

impl RenderSettings {
    /// The settings a check of `scene` under `options` renders with.
    pub fn of(scene: &Scene, options: &CheckOptions) -> RenderSettings {
        RenderSettings {
            scene_hash: format!("{:016x}", scene.content_hash()),
            size: [scene.output.width, scene.output.height],
            samples: scene.output.samples_everywhere(),
            edge_samples: scene.output.samples_at_edges(),
            shutter: scene.output.shutter,
            view: options.view.name().to_string(),
            compositor: match options.compositor {
                Compositor::Raymarch { steps } => format!("raymarch:{steps}"),
                other => other.name().to_string(),
            },
            format: options.format,
        }
    }

    /// Each setting that differs from `other`'s, as `what: recorded X, now Y`.
    fn differences(&self, now: &RenderSettings) -> Vec<String> {
        let mut out = Vec::new();
        let mut differ = |what: &str, recorded: String, current: String| {
            if recorded != current {
                out.push(format!("{what}: made with {recorded}, now {current}"));
            }
        };
        differ(
            "scene (file or --set overrides)",
            format!("hash {}", self.scene_hash),
            format!("hash {}", now.scene_hash),
        );
        let size = |s: [u32; 2]| format!("{}x{}", s[0], s[1]);
        differ("--size", size(self.size), size(now.size));
        differ(
            "--samples",
            self.samples.to_string(),
            now.samples.to_string(),
        );
        differ(
            "--edge-samples",
            self.edge_samples.to_string(),
            now.edge_samples.to_string(),
        );
        differ(
            "--shutter",
            self.shutter.to_string(),
            now.shutter.to_string(),
        );
        differ("--view", self.view.clone(), now.view.clone());
        differ(
            "--compositor",
            self.compositor.clone(),
            now.compositor.clone(),
        );
        differ(
            "--format",
            self.format.name().to_string(),
            now.format.name().to_string(),
        );
        out
    }
}

fn one() -> u32 {
    1
}

/// `DIR/actuals.json`: what made the actual pictures of the failed frames.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActualsRecord {
    /// fogbank version that rendered them.
    pub fogbank_version: String,
    /// Adapter that rendered them.
    pub adapter: String,
    /// Its backend.
    pub backend: String,
    /// Its driver.
    pub driver: String,
    /// What decides the pictures.
    pub settings: RenderSettings,
    /// Frames whose actual picture differs from the reference, ascending.
    pub failed: Vec<u32>,
}

impl ActualsRecord {
    /// Path of the record inside `dir`.
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join(ACTUALS_FILE)
    }

    /// Reads `DIR/actuals.json`; `Ok(None)` when there is none.
    pub fn read(dir: &Path) -> Result<Option<ActualsRecord>, CompareError> {
        let path = Self::path_in(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(CompareError::Unreadable { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| CompareError::Sidecar {
                path,
                message: format!("{e}; run the check again to rewrite it"),
            })
    }

    /// Writes the record atomically, or removes it when no frame failed.
    pub fn store(&self, dir: &Path) -> Result<(), CompareError> {
        let path = Self::path_in(dir);
        if self.failed.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(CompareError::Write { path, source: e })
                }
                _ => Ok(()),
            };
        }
        let mut text = serde_json::to_string_pretty(self).map_err(|e| CompareError::Sidecar {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes()).map_err(|source| CompareError::Write { path, source })
    }

    /// The record after a check that failed `failed` of the `checked` frames: frames failed by
    /// an earlier check with the same settings and not checked now are kept.
    pub fn merged(previous: Option<ActualsRecord>, now: ActualsRecord, checked: &[u32]) -> Self {
        let mut failed = now.failed.clone();
        if let Some(previous) = previous.filter(|p| p.settings == now.settings) {
            failed.extend(previous.failed.iter().filter(|f| !checked.contains(f)));
        }
        failed.sort_unstable();
        failed.dedup();
        ActualsRecord { failed, ..now }
    }
}

/// What [`accept`] did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AcceptReport {
    /// The golden folder.
    pub golden: PathBuf,
    /// Frames whose actual picture became the reference.
    pub accepted: Vec<u32>,
    /// Failed frames left as they are (not among the frames asked for).
    pub remaining: Vec<u32>,
}

/// Makes the actual pictures of the last failed check in `options.golden_dir` the references,
/// for the failed frames among `options.frames` (all of them when `None`). `scene` must be
/// what the check rendered: its size and output settings applied. Renders nothing.
pub fn accept(scene: &Scene, options: &CheckOptions) -> Result<AcceptReport, Error> {
    let golden = &options.golden_dir;
    let refuse = |reason: String| Error::Accept {
        dir: golden.clone(),
        reason,
    };
    match GoldenSidecar::read(golden) {
        Ok(sidecar) => sidecar.require_format(golden, options.format)?,
        Err(CompareError::Missing { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    let record = ActualsRecord::read(golden)?.ok_or_else(|| {
        refuse(format!(
            "{} does not exist: no failed check is recorded there. Run `fogbank check` with \
             the same scene and flags first",
            ActualsRecord::path_in(golden).display()
        ))
    })?;
    let now = RenderSettings::of(scene, options);
    let differences = record.settings.differences(&now);
    if !differences.is_empty() {
        return Err(refuse(format!(
            "the actual pictures were made with other settings ({}). Give the flags of the \
             failed check, or run the check again",
            differences.join("; ")
        )));
    }
    if record.fogbank_version != env!("CARGO_PKG_VERSION") {
        return Err(refuse(format!(
            "the actual pictures were made by fogbank {}, this is {}. Run the check again",
            record.fogbank_version,
            env!("CARGO_PKG_VERSION")
        )));
    }
    let (accepted, remaining): (Vec<u32>, Vec<u32>) = record.failed.iter().partition(|f| {
        options
            .frames
            .as_ref()
            .is_none_or(|set| set.frames().contains(f))
    });
    if accepted.is_empty() {
        return Err(refuse(format!(
            "none of the frames asked for failed; the failed frames are {:?}",
            record.failed
        )));
    }
    // Every picture is checked before any reference is replaced.
    let format = record.settings.format;
    for &frame in &accepted {
        let [actual, ..] = artifact_paths(golden, frame, format);
        let size = match format {
            GoldenFormat::Png => load_png(&actual).map(|i| [i.width, i.height]),
            GoldenFormat::Exr => HdrFrame::read(&actual).map(|h| [h.width, h.height]),
        };
        let size = size.map_err(|e| match e {
            CompareError::Missing { path } => refuse(format!(
                "{} is missing; run the check again to write it",
                path.display()
            )),
            other => other.into(),
        })?;
        if size != record.settings.size {
            return Err(refuse(format!(
                "{} is {}x{}, but actuals.json records {}x{}; run the check again",
                actual.display(),
                size[0],
                size[1],
                record.settings.size[0],
                record.settings.size[1]
            )));
        }
    }
    for &frame in &accepted {
        let [actual, ..] = artifact_paths(golden, frame, format);
        let bytes = std::fs::read(&actual).map_err(|source| CompareError::Unreadable {
            path: actual.clone(),
            source,
        })?;
        let reference = golden.join(format.reference_name(frame));
        write_atomic(&reference, &bytes).map_err(|source| Error::Write {
            path: reference,
            source,
        })?;
        remove_stale(golden, frame);
    }
    update_sidecar(golden, &record, &accepted)?;
    ActualsRecord {
        failed: remaining.clone(),
        ..record
    }
    .store(golden)?;
    Ok(AcceptReport {
        golden: golden.clone(),
        accepted,
        remaining,
    })
}

/// Records in `golden.json` the adapter and settings that made the accepted references, and
/// adds their frames; the tolerance is kept. A folder without one gets a new one.
fn update_sidecar(golden: &Path, record: &ActualsRecord, accepted: &[u32]) -> Result<(), Error> {
    let previous = match GoldenSidecar::read(golden) {
        Ok(sidecar) => Some(sidecar),
        Err(CompareError::Missing { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let mut frames = previous
        .as_ref()
        .map(|s| s.frames.clone())
        .unwrap_or_default();
    frames.extend_from_slice(accepted);
    frames.sort_unstable();
    frames.dedup();
    GoldenSidecar {
        adapter: record.adapter.clone(),
        backend: record.backend.clone(),
        driver: record.driver.clone(),
        fogbank_version: record.fogbank_version.clone(),
        size: record.settings.size,
        view: record.settings.view.clone(),
        frames,
        samples: record.settings.samples,
        edge_samples: record.settings.edge_samples,
        shutter: record.settings.shutter,
        format: record.settings.format,
        exposure_ev: previous.as_ref().map_or(0.0, |s| s.exposure_ev),
        tolerance: previous.map_or(Tolerance::default(), |s| s.tolerance),
    }
    .write(golden)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> RenderSettings {
        RenderSettings {
            scene_hash: "00000000000000ab".into(),
            size: [160, 90],
            samples: 1,
            edge_samples: 1,
            shutter: 0.0,
            view: "fog".into(),
            compositor: "raster".into(),
            format: GoldenFormat::Png,
        }
    }

    fn record(failed: Vec<u32>) -> ActualsRecord {
        ActualsRecord {
            fogbank_version: "0.1.0".into(),
            adapter: "llvmpipe".into(),
            backend: "vulkan".into(),
            driver: "Mesa".into(),
            settings: settings(),
            failed,
        }
    }

    #[test]
    fn differences_name_each_setting() {
        let now = RenderSettings {
            size: [96, 54],
            view: "sheets".into(),
            ..settings()
        };
        let found = settings().differences(&now);
        assert_eq!(
            found,
            [
                "--size: made with 160x90, now 96x54",
                "--view: made with fog, now sheets"
            ]
        );
        assert!(settings().differences(&settings()).is_empty());
    }

    #[test]
    fn merging_keeps_unchecked_failures_of_the_same_settings_only() {
        let merged = ActualsRecord::merged(Some(record(vec![1, 5])), record(vec![3]), &[1, 3]);
        assert_eq!(merged.failed, [3, 5]);
        let other = ActualsRecord {
            settings: RenderSettings {
                samples: 4,
                ..settings()
            },
            ..record(vec![5])
        };
        let merged = ActualsRecord::merged(Some(other), record(vec![3]), &[3]);
        assert_eq!(merged.failed, [3]);
    }
}
