//! `fogbank check` and `fogbank compare`: golden-image testing for users' CI and fogbank's own.
//!
//! `check` renders frames through the same loop as `render` and compares each with
//! `DIR/frame_NNNN.png` under a [`Tolerance`]: a per-pixel gate plus SSIM. Failing frames get
//! the actual image, a diff heat map and an expected | actual | diff strip written beside the
//! golden. `--bless` writes the references and a `golden.json` sidecar naming the adapter,
//! driver and fogbank version; checking on another adapter warns and uses looser thresholds.
//! With `--maps` the fluid's shader maps are compared as numbers. Missing references are
//! created outside CI and are errors under `CI=true`.

use super::render::{RenderJob, open_gpu, render_frames, sized_scene};
use super::{CheckSettings, CompareSettings, create_dir, frames_in_clip, load_scene};
use crate::Error;
use crate::compare::{
    Comparison, GoldenSidecar, Image, Tolerance, compare, compare_exact_within, diff_heatmap,
    load_png, save_png, strip,
};
use crate::output::maps::{FLUID_MAP, LIFT_MAP};
use crate::output::png::frame_file_name;
use crate::output::progress::ProgressMode;
use crate::output::writer::{ImageFormat, WriteJob};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Largest channel difference allowed in the fluid maps, which are CPU data and should match
/// exactly; one level leaves room for a different platform's `exp` rounding a value across.
pub const MAP_MAX_CHANNEL_DIFF: u8 = 1;

/// The verdict on one frame.
#[derive(Debug, Clone, Serialize)]
pub struct FrameReport {
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
    /// Human-readable summary.
    pub detail: String,
    /// Files written for a failing frame.
    pub artifacts: Vec<PathBuf>,
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
    /// Tolerance applied.
    pub max_channel_diff: u8,
    /// Tolerance applied: fraction of pixels allowed over `max_channel_diff`.
    pub pixel_budget: f64,
    /// Tolerance applied: lowest SSIM.
    pub min_ssim: f64,
    /// Per frame.
    pub frames: Vec<FrameReport>,
    /// Per map file (with `--maps`).
    pub maps: Vec<FrameReport>,
    /// Frames that failed.
    pub failed: usize,
}

/// Files written beside a golden image when it fails.
fn artifact_paths(golden_dir: &Path, frame: u32) -> [PathBuf; 3] {
    let stem = format!("frame_{frame:04}");
    [
        golden_dir.join(format!("{stem}.actual.png")),
        golden_dir.join(format!("{stem}.diff.png")),
        golden_dir.join(format!("{stem}.strip.png")),
    ]
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

fn report_from(frame: u32, comparison: &Comparison, artifacts: Vec<PathBuf>) -> FrameReport {
    FrameReport {
        frame,
        status: if comparison.passed { "pass" } else { "fail" },
        max_channel_diff: Some(comparison.max_channel_diff),
        fraction_over: Some(comparison.fraction_over),
        mean_abs_diff: Some(comparison.mean_abs_diff),
        ssim: Some(comparison.ssim),
        detail: comparison.to_string(),
        artifacts,
    }
}

fn compare_error(e: crate::compare::CompareError) -> Error {
    Error::Usage(e.to_string())
}

/// The tolerance from flags over a base.
fn tolerance_with_flags(base: Tolerance, settings: &ToleranceFlags) -> Result<Tolerance, Error> {
    let tolerance = Tolerance {
        max_channel_diff: settings.max_channel_diff.unwrap_or(base.max_channel_diff),
        pixel_budget: settings.pixel_budget.unwrap_or(base.pixel_budget),
        min_ssim: settings.min_ssim.unwrap_or(base.min_ssim),
    };
    tolerance
        .validate()
        .map_err(|reason| Error::Usage(format!("tolerance flags: {reason}")))?;
    Ok(tolerance)
}

/// Threshold flags shared by `check` and `compare`; `None` keeps the default or the sidecar's.
#[derive(Debug, Clone, Default)]
pub struct ToleranceFlags {
    /// `--max-diff`: largest channel difference that does not count, 8-bit levels.
    pub max_channel_diff: Option<u8>,
    /// `--pixel-budget`: fraction of pixels allowed over `--max-diff`.
    pub pixel_budget: Option<f64>,
    /// `--min-ssim`: lowest structural similarity that passes.
    pub min_ssim: Option<f64>,
}

pub(super) fn run_check(settings: &CheckSettings) -> Result<bool, Error> {
    let loaded = load_scene(&settings.scene)?;
    let scene = sized_scene(&loaded.scene, settings.size);
    let frames = frames_in_clip(&settings.frames, &scene)?;
    let golden = &settings.golden_dir;
    let ci = in_ci();

    if !settings.bless && !golden.is_dir() && ci {
        return Err(Error::Usage(format!(
            "the golden folder {} does not exist, and under CI=true references are never \
             created; bless them locally with `fogbank check … --golden {} --bless` and commit them",
            golden.display(),
            golden.display()
        )));
    }
    let sidecar = match GoldenSidecar::read(golden) {
        Ok(sidecar) => Some(sidecar),
        Err(crate::compare::CompareError::Missing { .. }) => None,
        Err(e) => return Err(compare_error(e)),
    };

    let context = open_gpu(&settings.gpu)?;
    let adapter = context.summary();
    let adapter_line = format!(
        "{} ({}, {})",
        adapter.name, adapter.backend, adapter.driver_info
    );
    let base = match &sidecar {
        Some(s) if !settings.bless => {
            if !s.same_adapter(&adapter.name, &adapter.driver_info) {
                eprintln!(
                    "warning: the references in {} were made on {} ({}); this check runs on {} — \
                     using looser thresholds",
                    golden.display(),
                    s.adapter,
                    s.driver,
                    adapter_line
                );
            }
            s.tolerance_for(&adapter.name, &adapter.driver_info)
        }
        _ => Tolerance::default(),
    };
    let tolerance = tolerance_with_flags(base, &settings.tolerance)?;
    if !settings.bless && sidecar.is_some_and(|s| s.view != settings.view.name()) {
        eprintln!(
            "warning: the references in {} were made with another --view",
            golden.display()
        );
    }

    // Maps are rendered into a scratch folder, then compared (or moved in when blessing).
    let scratch_maps = settings
        .maps
        .then(|| std::env::temp_dir().join(format!("fogbank-check-maps-{}", std::process::id())));
    if settings.bless || !ci {
        create_dir(golden)?;
    }

    let mut reports: Vec<FrameReport> = Vec::new();
    let mut missing: Vec<u32> = Vec::new();
    let job = RenderJob {
        scene: &scene,
        frames: &frames,
        view: settings.view,
        compositor: settings.gpu.compositor,
        readback: crate::gpu::Readback::default(),
        context: &context,
        maps_dir: scratch_maps.as_deref(),
        progress: ProgressMode::detect(settings.quiet),
        cache_dir: settings.scene.cache.as_deref(),
    };
    let stats = render_frames(&job, |frame, pool| {
        let index = frame.frame_index;
        let golden_path = golden.join(frame_file_name("frame", index));
        let actual = Image {
            width: frame.width,
            height: frame.height,
            rgba8: frame.rgba8,
        };
        let bless_this = settings.bless || (!golden_path.exists() && !ci);
        if bless_this {
            let status = if settings.bless { "blessed" } else { "missing" };
            if !settings.bless {
                eprintln!("note: created missing reference {}", golden_path.display());
            }
            reports.push(FrameReport {
                frame: index,
                status,
                max_channel_diff: None,
                fraction_over: None,
                mean_abs_diff: None,
                ssim: None,
                detail: format!("wrote {}", golden_path.display()),
                artifacts: vec![],
            });
            for stale in artifact_paths(golden, index) {
                let _ = std::fs::remove_file(stale);
            }
            return pool.submit(WriteJob {
                path: golden_path,
                width: actual.width,
                height: actual.height,
                rgba8: actual.rgba8,
                srgb: true,
                format: ImageFormat::Png,
            });
        }
        let expected = match load_png(&golden_path) {
            Ok(image) => image,
            Err(crate::compare::CompareError::Missing { .. }) => {
                missing.push(index);
                return Ok(());
            }
            Err(e) => return Err(compare_error(e)),
        };
        let comparison = compare(&expected, &actual, &tolerance);
        let [actual_path, diff_path, strip_path] = artifact_paths(golden, index);
        if comparison.passed {
            for stale in [&actual_path, &diff_path, &strip_path] {
                let _ = std::fs::remove_file(stale);
            }
            reports.push(report_from(index, &comparison, vec![]));
        } else {
            let diff = diff_heatmap(&expected, &actual);
            let side_by_side = strip(&expected, &actual, &diff);
            save_png(&actual, &actual_path).map_err(compare_error)?;
            save_png(&diff, &diff_path).map_err(compare_error)?;
            save_png(&side_by_side, &strip_path).map_err(compare_error)?;
            reports.push(report_from(
                index,
                &comparison,
                vec![actual_path, diff_path, strip_path],
            ));
        }
        Ok(())
    })?;

    let maps = match &scratch_maps {
        Some(scratch) => {
            let result = check_maps(
                scratch,
                &golden.join("maps"),
                &frames,
                MapPolicy {
                    bless: settings.bless,
                    create_missing: !ci,
                },
            );
            let _ = std::fs::remove_dir_all(scratch);
            result?
        }
        None => Vec::new(),
    };

    if settings.bless {
        GoldenSidecar {
            adapter: adapter.name.clone(),
            backend: adapter.backend.clone(),
            driver: adapter.driver_info.clone(),
            fogbank_version: env!("CARGO_PKG_VERSION").to_string(),
            size: [scene.output.width, scene.output.height],
            view: settings.view.name().to_string(),
            frames: frames.frames().to_vec(),
            tolerance,
        }
        .write(golden)
        .map_err(compare_error)?;
    }

    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "{} reference frame{} missing in {} ({}); under CI=true references are never created: \
             bless them locally with --bless and commit them",
            missing.len(),
            if missing.len() == 1 { " is" } else { "s are" },
            golden.display(),
            missing
                .iter()
                .map(|f| frame_file_name("frame", *f))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }

    let failed = reports.iter().filter(|r| r.status == "fail").count()
        + maps.iter().filter(|r| r.status == "fail").count();
    let report = CheckReport {
        golden: golden.clone(),
        adapter: stats.adapter,
        blessed_on: GoldenSidecar::read(golden).ok().map(|s| s.adapter),
        max_channel_diff: tolerance.max_channel_diff,
        pixel_budget: tolerance.pixel_budget,
        min_ssim: tolerance.min_ssim,
        frames: reports,
        maps,
        failed,
    };
    if settings.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        for r in report.frames.iter().chain(&report.maps) {
            println!("frame {:04}  {:<7}  {}", r.frame, r.status, r.detail);
            for artifact in &r.artifacts {
                println!("             wrote {}", artifact.display());
            }
        }
        println!(
            "{} of {} frames passed{}",
            report.frames.iter().filter(|r| r.status != "fail").count(),
            report.frames.len(),
            if failed > 0 {
                format!(
                    "; {failed} failed. To accept the new pictures: fogbank check … --golden {} --bless",
                    golden.display()
                )
            } else {
                String::new()
            }
        );
    }
    Ok(failed == 0)
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
    frames: &crate::timeline::FrameSet,
    policy: MapPolicy,
) -> Result<Vec<FrameReport>, Error> {
    let mut reports = Vec::new();
    for &frame in frames.frames() {
        for prefix in [FLUID_MAP, LIFT_MAP] {
            let name = frame_file_name(prefix, frame);
            let actual_path = scratch.join(&name);
            let golden_path = golden_maps.join(&name);
            let actual = load_png(&actual_path).map_err(compare_error)?;
            if policy.bless || (!golden_path.exists() && policy.create_missing) {
                create_dir(golden_maps)?;
                save_png_data(&actual, &golden_path)?;
                continue;
            }
            let expected = load_png(&golden_path).map_err(compare_error)?;
            let comparison = compare_exact_within(&expected, &actual, MAP_MAX_CHANNEL_DIFF);
            let mut report = report_from(frame, &comparison, vec![]);
            report.detail = format!("{name}: {comparison}");
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
            message: e.to_string(),
        })?;
    crate::output::atomic::write_atomic(path, &bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

pub(super) fn run_compare(settings: &CompareSettings) -> Result<bool, Error> {
    let expected = load_png(&settings.expected).map_err(compare_error)?;
    let actual = load_png(&settings.actual).map_err(compare_error)?;
    let comparison = if settings.exact {
        compare_exact_within(
            &expected,
            &actual,
            settings.tolerance.max_channel_diff.unwrap_or(0),
        )
    } else {
        let tolerance = tolerance_with_flags(Tolerance::default(), &settings.tolerance)?;
        compare(&expected, &actual, &tolerance)
    };
    if let Some(diff_path) = &settings.diff {
        save_png(&diff_heatmap(&expected, &actual), diff_path).map_err(compare_error)?;
    }
    if settings.json {
        let report = report_from(0, &comparison, settings.diff.iter().cloned().collect());
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        println!(
            "{} vs {}: {comparison}",
            settings.expected.display(),
            settings.actual.display()
        );
    }
    Ok(comparison.passed)
}
