//! `golden.json`: what produced a folder of golden images, so a later check knows whether it
//! runs on the same adapter (strict tolerance) or another one (loose tolerance), and can
//! re-render exactly the same frames at the same size and view.
//!
//! Unknown fields are rejected because the file is edited by hand (to loosen a tolerance) and
//! a misspelt field would otherwise be silently ignored.

use super::{CompareError, GoldenFormat, Tolerance};
use crate::error::RequestError;
use crate::output::atomic::write_atomic;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// File name of the sidecar inside a golden folder.
pub const SIDECAR_FILE: &str = "golden.json";

/// What made the golden images in one folder, and how strictly to compare against them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldenSidecar {
    /// Adapter name as wgpu reports it, e.g. "llvmpipe (LLVM 15.0.7, 256 bits)".
    pub adapter: String,
    /// Backend, e.g. "Vulkan".
    pub backend: String,
    /// Driver name and version as wgpu reports them, e.g. "llvmpipe / Mesa 23.2.1".
    pub driver: String,
    /// fogbank version that blessed the images.
    pub fogbank_version: String,
    /// Frame size in pixels, `[width, height]`.
    pub size: [u32; 2],
    /// Name of the view (camera) rendered.
    pub view: String,
    /// Output frame numbers that have golden images.
    pub frames: Vec<u32>,
    /// Samples a pixel the references were rendered with (`output.samples`); written when
    /// above 1, and 1 when left out.
    #[serde(default = "one_sample", skip_serializing_if = "is_one_sample")]
    pub samples: u32,
    /// Samples a pixel at an edge the references were rendered with (`output.edge_samples`);
    /// written when above 1, and 1 when left out.
    #[serde(default = "one_sample", skip_serializing_if = "is_one_sample")]
    pub edge_samples: u32,
    /// The shutter the references were rendered with (`output.shutter`); written when open,
    /// and 0 when left out.
    #[serde(default, skip_serializing_if = "is_closed")]
    pub shutter: f32,
    /// The references' format: written when `exr`, and `png` when left out.
    #[serde(default, skip_serializing_if = "GoldenFormat::is_png")]
    pub format: GoldenFormat,
    /// Stops of exposure before EXR references meet the 8-bit gates (`--exposure`); written
    /// when not 0.
    #[serde(default, skip_serializing_if = "is_zero_ev")]
    pub exposure_ev: f32,
    /// Tolerance for checks on the same adapter and driver.
    pub tolerance: Tolerance,
}

fn is_zero_ev(ev: &f32) -> bool {
    *ev == 0.0
}

fn one_sample() -> u32 {
    1
}

fn is_one_sample(samples: &u32) -> bool {
    *samples == 1
}

fn is_closed(shutter: &f32) -> bool {
    *shutter == 0.0
}

impl GoldenSidecar {
    /// Path of the sidecar inside `dir`.
    pub fn path_in(dir: &Path) -> PathBuf {
        dir.join(SIDECAR_FILE)
    }

    /// Reads `DIR/golden.json`. A missing file is [`CompareError::Missing`] (nothing blessed
    /// yet); bad JSON, unknown fields and out-of-range tolerances are [`CompareError::Sidecar`].
    pub fn read(dir: &Path) -> Result<GoldenSidecar, CompareError> {
        let path = Self::path_in(dir);
        let text = std::fs::read_to_string(&path).map_err(|source| {
            if source.kind() == io::ErrorKind::NotFound {
                CompareError::Missing { path: path.clone() }
            } else {
                CompareError::Unreadable {
                    path: path.clone(),
                    source,
                }
            }
        })?;
        let sidecar: GoldenSidecar =
            serde_json::from_str(&text).map_err(|e| CompareError::Sidecar {
                path: path.clone(),
                message: e.to_string(),
            })?;
        sidecar
            .tolerance
            .validate()
            .map_err(|message| CompareError::Sidecar { path, message })?;
        Ok(sidecar)
    }

    /// Writes `DIR/golden.json` atomically, pretty-printed with a trailing newline so it diffs
    /// well in review. The folder must exist.
    pub fn write(&self, dir: &Path) -> Result<(), CompareError> {
        let path = Self::path_in(dir);
        self.tolerance
            .validate()
            .map_err(|message| CompareError::Sidecar {
                path: path.clone(),
                message,
            })?;
        let mut text = serde_json::to_string_pretty(self).map_err(|e| CompareError::Sidecar {
            path: path.clone(),
            message: e.to_string(),
        })?;
        text.push('\n');
        write_atomic(&path, text.as_bytes()).map_err(|source| CompareError::Write { path, source })
    }

    /// `Err` naming the fix when `asked` is not the format these references were made in.
    pub fn require_format(&self, dir: &Path, asked: GoldenFormat) -> Result<(), RequestError> {
        if self.format == asked {
            return Ok(());
        }
        Err(RequestError::GoldenFormat {
            sidecar: Self::path_in(dir),
            recorded: self.format.name(),
            asked: asked.name(),
        })
    }

    /// Whether `adapter` and `driver` are the ones that blessed the images (ignoring case and
    /// surrounding spaces). When they are not, compare with [`GoldenSidecar::tolerance_for`].
    pub fn same_adapter(&self, adapter: &str, driver: &str) -> bool {
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        same(&self.adapter, adapter) && same(&self.driver, driver)
    }

    /// The tolerance for a check on `adapter` and `driver`: the sidecar's own on the blessing
    /// adapter, otherwise the looser of it and [`Tolerance::loose`].
    pub fn tolerance_for(&self, adapter: &str, driver: &str) -> Tolerance {
        if self.same_adapter(adapter, driver) {
            self.tolerance
        } else {
            self.tolerance.loosest(Tolerance::loose())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("fogbank-sidecar-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn sample() -> GoldenSidecar {
        GoldenSidecar {
            adapter: "llvmpipe (LLVM 15.0.7, 256 bits)".into(),
            backend: "Vulkan".into(),
            driver: "llvmpipe / Mesa 23.2.1".into(),
            fogbank_version: "0.1.0".into(),
            size: [160, 90],
            view: "default".into(),
            frames: vec![0, 30, 90],
            samples: 1,
            edge_samples: 1,
            shutter: 0.0,
            format: GoldenFormat::Png,
            exposure_ev: 0.0,
            tolerance: Tolerance::default(),
        }
    }

    #[test]
    fn the_format_is_written_for_exr_and_a_mismatch_names_the_fix() {
        let json = serde_json::to_string(&sample()).unwrap();
        assert!(
            !json.contains("format") && !json.contains("exposure"),
            "{json}"
        );
        let exr = GoldenSidecar {
            format: GoldenFormat::Exr,
            exposure_ev: -2.0,
            ..sample()
        };
        let json = serde_json::to_string(&exr).unwrap();
        assert!(
            json.contains("\"format\":\"exr\"") && json.contains("\"exposure_ev\":-2.0"),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<GoldenSidecar>(&json).unwrap(), exr);
        let dir = Path::new("g");
        assert!(exr.require_format(dir, GoldenFormat::Exr).is_ok());
        let message = sample()
            .require_format(dir, GoldenFormat::Exr)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("records png references")
                && message.contains("--format png")
                && message.contains("--bless --format exr"),
            "{message}"
        );
    }

    #[test]
    fn samples_are_written_above_one_and_read_as_one_when_left_out() {
        let single = sample();
        let json = serde_json::to_string(&single).unwrap();
        assert!(!json.contains("samples"), "{json}");
        let read: GoldenSidecar = serde_json::from_str(&json).unwrap();
        assert_eq!(read.samples, 1);
        let sampled = GoldenSidecar {
            samples: 16,
            ..sample()
        };
        let json = serde_json::to_string(&sampled).unwrap();
        assert!(json.contains("\"samples\":16"), "{json}");
        let read: GoldenSidecar = serde_json::from_str(&json).unwrap();
        assert_eq!(read, sampled);
        let at_edges = GoldenSidecar {
            edge_samples: 8,
            ..sample()
        };
        let json = serde_json::to_string(&at_edges).unwrap();
        assert!(json.contains("\"edge_samples\":8"), "{json}");
        let read: GoldenSidecar = serde_json::from_str(&json).unwrap();
        assert_eq!(read, at_edges);
    }

    #[test]
    fn round_trips_through_json_and_disk() {
        let sidecar = sample();
        let json = serde_json::to_string(&sidecar).unwrap();
        assert!(json.contains("\"max_channel_diff\":8"));
        assert_eq!(
            serde_json::from_str::<GoldenSidecar>(&json).unwrap(),
            sidecar
        );

        let dir = scratch_dir("round-trip");
        sidecar.write(&dir).unwrap();
        assert_eq!(GoldenSidecar::read(&dir).unwrap(), sidecar);
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec![SIDECAR_FILE.to_string()]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reading_reports_missing_misspelt_and_out_of_range() {
        let dir = scratch_dir("errors");
        assert!(matches!(
            GoldenSidecar::read(&dir),
            Err(CompareError::Missing { .. })
        ));

        let mut value = serde_json::to_value(sample()).unwrap();
        value["tolerance"] = serde_json::json!({ "min_ssm": 0.9 });
        fs::write(GoldenSidecar::path_in(&dir), value.to_string()).unwrap();
        let err = GoldenSidecar::read(&dir).unwrap_err();
        assert!(
            err.to_string().contains("min_ssm") && err.to_string().contains("golden.json"),
            "{err}"
        );

        // A partial tolerance takes defaults for the rest.
        value["tolerance"] = serde_json::json!({ "min_ssim": 0.9 });
        fs::write(GoldenSidecar::path_in(&dir), value.to_string()).unwrap();
        let read = GoldenSidecar::read(&dir).unwrap();
        assert_eq!(
            read.tolerance,
            Tolerance {
                min_ssim: 0.9,
                ..Tolerance::default()
            }
        );

        value["tolerance"] = serde_json::json!({ "pixel_budget": 5.0 });
        fs::write(GoldenSidecar::path_in(&dir), value.to_string()).unwrap();
        let err = GoldenSidecar::read(&dir).unwrap_err();
        assert!(err.to_string().contains("pixel_budget"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn same_adapter_matches_adapter_and_driver() {
        let sidecar = sample();
        assert!(sidecar.same_adapter(
            " LLVMPIPE (LLVM 15.0.7, 256 bits)",
            "llvmpipe / Mesa 23.2.1"
        ));
        assert!(
            !sidecar.same_adapter("llvmpipe (LLVM 15.0.7, 256 bits)", "llvmpipe / Mesa 24.0.0")
        );
        assert!(!sidecar.same_adapter("NVIDIA H200", "llvmpipe / Mesa 23.2.1"));
        assert_eq!(
            sidecar.tolerance_for("NVIDIA H200", "550.54"),
            Tolerance::loose()
        );
        assert_eq!(
            sidecar.tolerance_for("llvmpipe (LLVM 15.0.7, 256 bits)", "llvmpipe / Mesa 23.2.1"),
            Tolerance::default()
        );
    }
}
