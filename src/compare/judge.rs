//! One rendered frame judged against its reference, PNG or EXR, for `fogbank check`: the
//! verdict, the failure pictures written beside the reference, and the report line.
//!
//! A PNG frame is judged by [`super::compare()`]. An EXR frame is judged in linear light by
//! [`super::compare_hdr`]: the 8-bit gates after the stated exposure, and HDR-FLIP. A mask
//! hides the same pixels in either. A failing frame gets its actual picture in the references'
//! format (what `--accept` takes), and a PNG heat map and strip of the (exposed) pictures.

use super::golden::{CheckOptions, FrameReport};
use super::reference::{artifact_paths, remove_stale};
use super::{
    CompareError, HdrFrame, Image, LimitSources, Tolerance, apply_mask, compare, compare_hdr,
    diff_heatmap, load_mask, load_png, mask_for, save_png, strip,
};
use crate::Error;
use crate::output::exr::{ExrCompression, encode_exr_rgba_f16};
use crate::output::writer::{ImageFormat, WriteJob};
use std::path::{Path, PathBuf};

/// A frame as rendered, in the references' format.
pub(super) enum Rendered {
    /// 8-bit sRGB.
    Png(Image),
    /// Linear half floats.
    Exr(HdrFrame),
}

impl Rendered {
    /// The job that writes it to `path` as a reference.
    pub(super) fn into_job(self, path: PathBuf) -> WriteJob {
        match self {
            Rendered::Png(image) => WriteJob {
                path,
                width: image.width,
                height: image.height,
                rgba8: image.rgba8.into(),
                srgb: true,
                format: ImageFormat::Png,
            },
            Rendered::Exr(hdr) => WriteJob {
                path,
                width: hdr.width,
                height: hdr.height,
                rgba8: Vec::new().into(),
                srgb: false,
                format: ImageFormat::ExrF16 {
                    bits: hdr.halves,
                    compression: ExrCompression::default(),
                },
            },
        }
    }
}

/// What every frame of one check is judged by.
pub(super) struct Judge<'a> {
    pub(super) options: &'a CheckOptions,
    pub(super) tolerance: &'a Tolerance,
    pub(super) sources: &'a LimitSources,
}

impl Judge<'_> {
    /// Judges frame `index` against the reference at `golden_path` and writes its failure
    /// pictures; `None` when the reference is missing.
    pub(super) fn frame(
        &self,
        index: u32,
        golden_path: &Path,
        rendered: Rendered,
    ) -> Result<Option<FrameReport>, Error> {
        let golden = &self.options.golden_dir;
        let mask_path = mask_for(golden, index, self.options.mask.as_deref());
        let (width, height) = match &rendered {
            Rendered::Png(image) => (image.width, image.height),
            Rendered::Exr(hdr) => (hdr.width, hdr.height),
        };
        let mask = match &mask_path {
            Some(path) => Some(load_mask(path, width, height)?),
            None => None,
        };
        let paths = artifact_paths(golden, index, self.options.format);
        let missing = |e: CompareError| match e {
            CompareError::Missing { .. } => Ok(None),
            e => Err(Error::from(e)),
        };
        // The verdict, the pictures judged (exposed, for EXR; the actual masked) and the actual
        // picture the strip shows (not masked).
        let (comparison, expected, judged, shown, method) = match rendered {
            Rendered::Png(actual) => {
                let expected = match load_png(golden_path) {
                    Ok(image) => image,
                    Err(e) => return missing(e),
                };
                let mut judged = actual.clone();
                if let Some(mask) = &mask {
                    apply_mask(mask, &expected, &mut judged);
                }
                let comparison = compare(&expected, &judged, self.tolerance);
                if !comparison.passed {
                    save_png(&actual, &paths[0])?;
                }
                (comparison, expected, judged, actual, None)
            }
            Rendered::Exr(actual) => {
                let expected = match HdrFrame::read(golden_path) {
                    Ok(hdr) => hdr,
                    Err(e) => return missing(e),
                };
                let mut judged = actual.clone();
                if let Some(mask) = &mask {
                    judged.hide(mask, &expected);
                }
                let ev = self.options.exposure_ev;
                let hdr = compare_hdr(&expected, &judged, ev, self.tolerance)?;
                let shown = match hdr.comparison.passed {
                    true => hdr.actual.clone(),
                    false => {
                        save_exr(&actual, &paths[0])?;
                        actual.exposed(ev)?
                    }
                };
                let method = hdr.method(ev);
                (
                    hdr.comparison,
                    hdr.expected,
                    hdr.actual,
                    shown,
                    Some(method),
                )
            }
        };
        let artifacts = match comparison.passed {
            true => {
                remove_stale(golden, index);
                vec![]
            }
            false => {
                let diff = diff_heatmap(&expected, &judged);
                save_png(&diff, &paths[1])?;
                save_png(&strip(&expected, &shown, &diff), &paths[2])?;
                paths.to_vec()
            }
        };
        let mut report = FrameReport::from_comparison(index, &comparison, self.sources, artifacts);
        if let Some(method) = method {
            report.detail = format!("{} ({method})", report.detail);
        }
        report.mask = mask_path;
        Ok(Some(report))
    }
}

/// Writes a linear picture as a half-float EXR, atomically.
fn save_exr(hdr: &HdrFrame, path: &Path) -> Result<(), Error> {
    let bytes =
        encode_exr_rgba_f16(hdr.width, hdr.height, &hdr.halves).map_err(|e| Error::Encode {
            path: path.to_path_buf(),
            source: Box::new(e),
        })?;
    crate::output::atomic::write_atomic(path, &bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}
