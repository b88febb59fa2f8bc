//! Golden-image checks: render frames through the frame loop and judge each against its
//! blessed reference, `DIR/frame_NNNN.png` (8-bit sRGB) or `DIR/frame_NNNN.exr` (linear light,
//! `--format exr`, judged as [`super::hdr`] says), or bless new references.
//!
//! A failing frame gets the actual image, a diff heat map and an expected | actual | diff strip
//! written beside its reference ([`super::reference`] names them). Blessing writes the references and a `golden.json` sidecar
//! naming the adapter, driver and fogbank version; checking on another adapter warns and uses
//! looser thresholds. With maps, the fluid's two shader maps are compared as numbers. Missing
//! references are created outside CI and are errors under `CI=true`.

use super::accept::{ActualsRecord, RenderSettings};
use super::judge::{Judge, Rendered};
use super::reference::{remove_stale, unused_references};
use super::{
    AppliedLimit, CompareError, Comparison, GoldenFormat, GoldenSidecar, HdrFrame, Image,
    LimitSource, LimitSources, Tolerance, ToleranceFlags, applied_limits, apply_mask, compare,
    compare_exact_within, compare_hdr, diff_heatmap, is_exr, load_mask, load_picture, load_png,
    save_png,
};
use crate::Error;
use crate::frame::View;
use crate::gpu::{Compositor, GpuContext, GpuError, Readback};
use crate::output::maps::{FLUID_MAP, LIFT_MAP};
use crate::output::png::frame_file_name;
use crate::pipeline::{FrameJob, Reporter, adapter_line, create_dir, run_frames};
use crate::scene::Scene;
use crate::timeline::FrameSet;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Largest channel difference allowed in the fluid maps, which are CPU data and should match
/// exactly; one level leaves room for a different platform's `exp` rounding a value across.
pub const MAP_MAX_CHANNEL_DIFF: u8 = 1;

/// The verdict on one frame.
#[derive(Debug, Clone, Serialize)]
pub struct FrameReport {
    /// What was compared: `frame_NNNN`, or `maps/fluid_NNNN` and `maps/lift_NNNN`.
    pub name: String,
    /// Output frame number.
    pub frame: u32,
    /// "pass", "fail", "missing" or "blessed".
    pub status: &'static str,
    /// Largest channel difference, 8-bit levels.
    pub max_channel_diff: Option<u8>,
    /// Fraction of pixels over the gate.
    pub fraction_over: Option<f64>,
    /// Mean absolute difference, 8-bit levels.
    pub mean_abs_diff: Option<f64>,
    /// Structural similarity, 1 = identical.
    pub ssim: Option<f64>,
    /// Mean FLIP error, 0 = identical (pictures only).
    pub flip_mean: Option<f64>,
    /// 99th percentile of the FLIP error (pictures only).
    pub flip_p99: Option<f64>,
    /// Every limit the frame was judged by, with its source and result.
    pub limits: Vec<AppliedLimit>,
    /// Human-readable summary.
    pub detail: String,
    /// Files written for a failing frame.
    pub artifacts: Vec<PathBuf>,
    /// The mask whose white pixels were not compared, if any.
    pub mask: Option<PathBuf>,
}

impl FrameReport {
    /// The report of a comparison of frame `frame`, whose limits came from `sources`.
    pub fn from_comparison(
        frame: u32,
        comparison: &Comparison,
        sources: &LimitSources,
        artifacts: Vec<PathBuf>,
    ) -> Self {
        FrameReport {
            name: format!("frame_{frame:04}"),
            frame,
            status: if comparison.passed { "pass" } else { "fail" },
            max_channel_diff: Some(comparison.max_channel_diff),
            fraction_over: Some(comparison.fraction_over),
            mean_abs_diff: Some(comparison.mean_abs_diff),
            ssim: Some(comparison.ssim),
            flip_mean: comparison.flip.map(|f| f.mean),
            flip_p99: comparison.flip.map(|f| f.p99),
            limits: applied_limits(comparison, sources),
            detail: comparison.to_string(),
            artifacts,
            mask: None,
        }
    }

    /// The report of a frame that was written, not compared.
    pub(super) fn written(frame: u32, status: &'static str, detail: String) -> Self {
        FrameReport {
            name: format!("frame_{frame:04}"),
            frame,
            status,
            max_channel_diff: None,
            fraction_over: None,
            mean_abs_diff: None,
            ssim: None,
            flip_mean: None,
            flip_p99: None,
            limits: vec![],
            detail,
            artifacts: vec![],
            mask: None,
        }
    }
}

/// The whole check, for `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    /// The golden folder.
    pub golden: PathBuf,
    /// Adapter that rendered this check.
    pub adapter: String,
    /// Adapter that blessed the references, if known.
    pub blessed_on: Option<String>,
    /// The references' format: `png` or `exr`.
    pub format: GoldenFormat,
    /// Stops of exposure before EXR frames meet the 8-bit gates (0 for PNG).
    pub exposure_ev: f32,
    /// Tolerance applied.
    pub max_channel_diff: u8,
    /// Tolerance applied: fraction of pixels allowed over `max_channel_diff`.
    pub pixel_budget: f64,
    /// Tolerance applied: lowest SSIM.
    pub min_ssim: f64,
    /// Tolerance applied: highest mean FLIP error, when set.
    pub max_flip: Option<f64>,
    /// Where each limit came from.
    pub limit_sources: LimitSources,
    /// Per frame.
    pub frames: Vec<FrameReport>,
    /// Per map file (with maps).
    pub maps: Vec<FrameReport>,
    /// Frames that failed.
    pub failed: usize,
    /// Reference files in the folder (`frame_NNNN.png`, and `maps/` with maps) that no checked
    /// frame used, for housekeeping; empty when blessing.
    pub unused: Vec<PathBuf>,
}

/// What [`check`] compares, and against what.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOptions {
    /// Folder of references.
    pub golden_dir: PathBuf,
    /// Frames to check; the whole clip when `None`.
    pub frames: Option<FrameSet>,
    /// What to show.
    pub view: View,
    /// How the fog sheets are put over the scene.
    pub compositor: Compositor,
    /// Write the references instead of comparing.
    pub bless: bool,
    /// Also compare the fluid's shader maps as numbers.
    pub maps: bool,
    /// Threshold overrides.
    pub tolerance: ToleranceFlags,
    /// Running under CI: references are never created, missing ones are errors.
    pub ci: bool,
    /// Start from this simulation cache (`--cache`).
    pub cache_dir: Option<PathBuf>,
    /// A mask for every frame that has no `DIR/mask_NNNN.png` of its own (`--mask`).
    pub mask: Option<PathBuf>,
    /// The references' format; a folder whose `golden.json` records another is refused.
    pub format: GoldenFormat,
    /// Stops of exposure before EXR frames meet the 8-bit gates (`--exposure`).
    pub exposure_ev: f32,
}

/// A new, empty folder for the maps a check renders before comparing them, made by this process
/// alone: its name joins the process id, the clock's nanoseconds and a counter, and it is
/// created exclusively (a folder of that name already there, left by another process that
/// shares the temporary folder but not the process ids, is skipped, never reused or removed).
/// The name only has to be unique; nothing rendered depends on it.
fn scratch_folder() -> Result<std::path::PathBuf, Error> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let base = std::env::temp_dir();
    let mut last_error = None;
    for attempt in 0..64u32 {
        let path = base.join(format!(
            "fogbank-check-maps-{}-{nanos:09}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last_error = Some(e),
            Err(source) => return Err(Error::Write { path, source }),
        }
    }
    Err(Error::Write {
        path: base,
        source: last_error.unwrap_or_else(|| std::io::Error::other("no free scratch folder name")),
    })
}

/// Renders the chosen frames of `scene` (size already applied) and compares each with its
/// reference, or blesses them. Differences are in the report (`failed > 0`), not an error.
pub fn check(
    context: &GpuContext,
    scene: &Scene,
    options: &CheckOptions,
    reporter: &mut dyn Reporter,
) -> Result<CheckReport, Error> {
    let frames = crate::pipeline::frames_in_clip(options.frames.as_ref(), scene)?;
    let golden = &options.golden_dir;
    let ci = options.ci;
    if !options.bless && !golden.is_dir() && ci {
        return Err(Error::GoldenFolderMissing {
            dir: golden.clone(),
        });
    }
    let sidecar = match GoldenSidecar::read(golden) {
        Ok(sidecar) => Some(sidecar),
        Err(CompareError::Missing { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    if let Some(s) = sidecar.as_ref().filter(|_| !options.bless) {
        s.require_format(golden, options.format)?;
    }
    let adapter = context.summary();
    let (base, base_sources) = match &sidecar {
        Some(s) if !options.bless => {
            if !s.same_adapter(&adapter.name, &adapter.driver_info) {
                reporter.warning(&format!(
                    "the references in {} were made on {} ({}); this check runs on {} — using \
                     looser thresholds",
                    golden.display(),
                    s.adapter,
                    s.driver,
                    adapter_line(context)
                ));
            }
            let sources = match s.same_adapter(&adapter.name, &adapter.driver_info) {
                true => LimitSources::all(LimitSource::GoldenJson),
                false => LimitSources::adapter_rule(&s.tolerance),
            };
            (
                s.tolerance_for(&adapter.name, &adapter.driver_info),
                sources,
            )
        }
        _ => (
            Tolerance::default(),
            LimitSources::all(LimitSource::Default),
        ),
    };
    let (tolerance, limit_sources) = options.tolerance.over_sourced(base, base_sources)?;
    if !options.bless && sidecar.is_some_and(|s| s.view != options.view.name()) {
        reporter.warning(&format!(
            "the references in {} were made with another --view",
            golden.display()
        ));
    }

    // Maps are rendered into a scratch folder, then compared (or moved in when blessing).
    let scratch_maps = match options.maps {
        true => Some(scratch_folder()?),
        false => None,
    };
    if options.bless || !ci {
        create_dir(golden)?;
    }

    let mut reports: Vec<FrameReport> = Vec::new();
    let mut missing: Vec<u32> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let job = FrameJob {
        scene,
        frames: &frames,
        view: options.view,
        compositor: options.compositor,
        readback: Readback {
            linear_f16: options.format == GoldenFormat::Exr,
            ..Readback::default()
        },
        maps_dir: scratch_maps.as_deref(),
        cache_dir: options.cache_dir.as_deref(),
    };
    let judge = Judge {
        options,
        tolerance: &tolerance,
        sources: &limit_sources,
    };
    let stats = run_frames(context, &job, reporter, |mut frame, pool| {
        let index = frame.frame_index;
        let golden_path = golden.join(options.format.reference_name(index));
        let rendered = match options.format {
            GoldenFormat::Png => Rendered::Png(Image {
                width: frame.width,
                height: frame.height,
                rgba8: std::mem::take(&mut frame.rgba8).into_vec(),
            }),
            GoldenFormat::Exr => Rendered::Exr(HdrFrame {
                width: frame.width,
                height: frame.height,
                halves: frame.linear_f16.take().ok_or_else(|| GpuError::Readback {
                    frame_index: index,
                    message: "the renderer did not read back the linear picture".into(),
                })?,
            }),
        };
        if options.bless || (!golden_path.exists() && !ci) {
            if !options.bless {
                notes.push(format!(
                    "created missing reference {}",
                    golden_path.display()
                ));
            }
            reports.push(FrameReport::written(
                index,
                if options.bless { "blessed" } else { "missing" },
                format!("wrote {}", golden_path.display()),
            ));
            remove_stale(golden, index);
            return pool.submit(rendered.into_job(golden_path));
        }
        match judge.frame(index, &golden_path, rendered)? {
            Some(report) => reports.push(report),
            None => missing.push(index),
        }
        Ok(())
    });
    for note in &notes {
        reporter.note(note);
    }
    let stats = match stats {
        Ok(stats) => stats,
        Err(e) => {
            if let Some(scratch) = &scratch_maps {
                let _ = std::fs::remove_dir_all(scratch);
            }
            return Err(e);
        }
    };

    let maps = match &scratch_maps {
        Some(scratch) => {
            let result = check_maps(
                scratch,
                &golden.join("maps"),
                &frames,
                MapPolicy {
                    bless: options.bless,
                    create_missing: !ci,
                },
            );
            let _ = std::fs::remove_dir_all(scratch);
            result?
        }
        None => Vec::new(),
    };

    if options.bless {
        GoldenSidecar {
            adapter: adapter.name.clone(),
            backend: adapter.backend.clone(),
            driver: adapter.driver_info.clone(),
            fogbank_version: env!("CARGO_PKG_VERSION").to_string(),
            size: [scene.output.width, scene.output.height],
            view: options.view.name().to_string(),
            frames: frames.frames().to_vec(),
            samples: scene.output.samples_everywhere(),
            edge_samples: scene.output.samples_at_edges(),
            shutter: scene.output.shutter,
            format: options.format,
            exposure_ev: options.exposure_ev,
            tolerance,
        }
        .write(golden)?;
    }

    // The record of the actual pictures a later `--accept` takes. Blessing fails no frame, so
    // it keeps only the failures of frames it did not render.
    {
        let now = ActualsRecord {
            fogbank_version: env!("CARGO_PKG_VERSION").to_string(),
            adapter: adapter.name.clone(),
            backend: adapter.backend.clone(),
            driver: adapter.driver_info.clone(),
            settings: RenderSettings::of(scene, options),
            failed: reports
                .iter()
                .filter(|r| r.status == "fail")
                .map(|r| r.frame)
                .collect(),
        };
        if golden.is_dir() {
            let previous = ActualsRecord::read(golden).ok().flatten();
            ActualsRecord::merged(previous, now, frames.frames()).store(golden)?;
        }
    }

    if !missing.is_empty() {
        return Err(Error::MissingReferences {
            dir: golden.clone(),
            files: missing
                .iter()
                .map(|f| options.format.reference_name(*f))
                .collect(),
        });
    }

    let failed = reports.iter().filter(|r| r.status == "fail").count()
        + maps.iter().filter(|r| r.status == "fail").count();
    Ok(CheckReport {
        golden: golden.clone(),
        adapter: stats.adapter,
        blessed_on: GoldenSidecar::read(golden).ok().map(|s| s.adapter),
        format: options.format,
        exposure_ev: options.exposure_ev,
        max_channel_diff: tolerance.max_channel_diff,
        pixel_budget: tolerance.pixel_budget,
        min_ssim: tolerance.min_ssim,
        max_flip: tolerance.max_flip,
        limit_sources,
        frames: reports,
        unused: match options.bless {
            true => vec![],
            false => unused_references(golden, &frames, options.maps, options.format),
        },
        maps,
        failed,
    })
}

/// What `check_maps` may write.
struct MapPolicy {
    /// Replace every reference map (`--bless`).
    bless: bool,
    /// Create references that are missing (outside CI).
    create_missing: bool,
}

/// Compares (or blesses) the two shader maps of each frame as numbers.
fn check_maps(
    scratch: &Path,
    golden_maps: &Path,
    frames: &FrameSet,
    policy: MapPolicy,
) -> Result<Vec<FrameReport>, Error> {
    let mut reports = Vec::new();
    for &frame in frames.frames() {
        for prefix in [FLUID_MAP, LIFT_MAP] {
            let name = frame_file_name(prefix, frame);
            let actual_path = scratch.join(&name);
            let golden_path = golden_maps.join(&name);
            let actual = load_png(&actual_path)?;
            if policy.bless || (!golden_path.exists() && policy.create_missing) {
                create_dir(golden_maps)?;
                save_png_data(&actual, &golden_path)?;
                continue;
            }
            let expected = load_png(&golden_path)?;
            let comparison = compare_exact_within(&expected, &actual, MAP_MAX_CHANNEL_DIFF);
            let sources = LimitSources::all(LimitSource::MapRule);
            let mut report = FrameReport::from_comparison(frame, &comparison, &sources, vec![]);
            report.detail = format!("{name}: {comparison}");
            report.name = format!("maps/{}", name.trim_end_matches(".png"));
            reports.push(report);
        }
    }
    Ok(reports)
}

/// Writes a data map as an untagged PNG, atomically.
fn save_png_data(image: &Image, path: &Path) -> Result<(), Error> {
    let bytes = crate::output::png::encode_rgba8(image.width, image.height, &image.rgba8, false)
        .map_err(|e| Error::Encode {
            path: path.to_path_buf(),
            source: Box::new(e),
        })?;
    crate::output::atomic::write_atomic(path, &bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The verdict of `compare`: two image files judged by the same rules as a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareFiles {
    /// The reference image.
    pub expected: PathBuf,
    /// The image to judge.
    pub actual: PathBuf,
    /// Where to write the difference picture, if anywhere.
    pub diff: Option<PathBuf>,
    /// Compare as data: only `max_channel_diff` counts (default 0), no SSIM gate.
    pub exact: bool,
    /// Leave the white pixels of this mask out.
    pub mask: Option<PathBuf>,
    /// Stops of exposure applied to EXR files before they are encoded to 8-bit sRGB.
    pub exposure_ev: f32,
}

/// What [`compare_files`] found.
#[derive(Debug, Clone)]
pub struct FilesVerdict {
    /// The figures and verdict.
    pub comparison: Comparison,
    /// Where each limit came from.
    pub sources: LimitSources,
    /// For two EXR files: how they were judged (the exposure of the gates, HDR-FLIP's bracket).
    pub method: Option<String>,
}

/// Compares two picture files and writes the diff picture when asked. Two EXR files are
/// judged in linear light ([`compare_hdr`]); a PNG, or an EXR beside a PNG, after the exposure.
pub fn compare_files(
    files: &CompareFiles,
    tolerance: &ToleranceFlags,
) -> Result<FilesVerdict, Error> {
    let (applied, sources) = tolerance.over_sourced(
        Tolerance::default(),
        LimitSources::all(LimitSource::Default),
    )?;
    let ev = files.exposure_ev;
    let mask = |width, height| match &files.mask {
        Some(path) => load_mask(path, width, height).map(Some),
        None => Ok(None),
    };
    let (comparison, expected, actual, method) = if is_exr(&files.expected)
        && is_exr(&files.actual)
        && !files.exact
    {
        let expected = HdrFrame::read(&files.expected)?;
        let mut actual = HdrFrame::read(&files.actual)?;
        if let Some(mask) = mask(actual.width, actual.height)? {
            actual.hide(&mask, &expected);
        }
        let hdr = compare_hdr(&expected, &actual, ev, &applied)?;
        let method = hdr.method(ev);
        (hdr.comparison, hdr.expected, hdr.actual, Some(method))
    } else {
        let expected = load_picture(&files.expected, ev)?;
        let mut actual = load_picture(&files.actual, ev)?;
        if let Some(mask) = mask(actual.width, actual.height)? {
            apply_mask(&mask, &expected, &mut actual);
        }
        let comparison = match files.exact {
            true => {
                compare_exact_within(&expected, &actual, tolerance.max_channel_diff.unwrap_or(0))
            }
            false => compare(&expected, &actual, &applied),
        };
        (comparison, expected, actual, None)
    };
    if let Some(diff_path) = &files.diff {
        save_png(&diff_heatmap(&expected, &actual), diff_path)?;
    }
    Ok(FilesVerdict {
        comparison,
        sources,
        method,
    })
}
