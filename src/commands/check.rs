//! `fogbank check` and `fogbank compare`: golden-image testing for users' CI and fogbank's own.
//!
//! The work is in [`crate::compare::golden`]; this layer builds its options, prints the
//! per-frame table (or `--json`), and turns failures into exit code 3.

use super::{
    CheckSettings, CompareSettings, ProgressMode, ProgressReporter, load_scene, print_json,
    unless_closed_pipe,
};
use crate::Error;
use crate::compare::{
    CheckOptions, CheckReport, CompareFiles, FrameReport, GoldenFormat, GoldenSidecar,
};
use crate::frame::View;
use crate::pipeline::{self, Reporter};
use crate::scene::Scene;
use crate::timeline::FrameSet;

/// Runs the check and prints its report; true when every frame passed.
pub(super) fn run(settings: &CheckSettings) -> Result<bool, Error> {
    let loaded = load_scene(&settings.scene)?;
    let mut reporter = ProgressReporter::new(ProgressMode::detect(settings.quiet));
    let recorded = Recorded::fill_in(settings, &mut reporter);
    let mut scene = settings
        .gpu
        .apply_to(pipeline::sized_scene(&loaded.scene, recorded.size));
    if let Some(samples) = recorded.samples {
        scene.output.samples = Some(samples);
    }
    if let Some(shutter) = recorded.shutter {
        scene.output.shutter = shutter;
    }
    if let Some(edge_samples) = recorded.edge_samples {
        scene.output.edge_samples = Some(edge_samples);
    }
    super::check_shutter(&scene)?;
    if let (GoldenFormat::Png, Some(ev)) = (recorded.format, settings.exposure_ev) {
        return Err(crate::error::FlagError {
            flag: "--exposure",
            value: ev.to_string(),
            reason: "the exposure applies to EXR references only: add --format exr, or drop \
                     --exposure"
                .into(),
        }
        .into());
    }
    let options = CheckOptions {
        golden_dir: settings.golden_dir.clone(),
        frames: recorded.frames,
        view: recorded.view,
        compositor: settings.gpu.compositor,
        bless: settings.bless,
        maps: settings.maps,
        tolerance: settings.tolerance.clone(),
        ci: crate::ci::in_ci(),
        cache_dir: settings.scene.cache.clone(),
        mask: settings.mask.clone(),
        format: recorded.format,
        exposure_ev: recorded.exposure_ev,
    };
    pipeline::frames_in_clip(options.frames.as_ref(), &scene)?;
    if settings.accept {
        return accept(&scene, options, settings);
    }
    let context = settings.gpu.open()?;
    let report = crate::compare::check(&context, &scene, &options, &mut reporter)?;
    // The files first: a reader of standard output that goes away must not stop them.
    if let Some(path) = &settings.junit {
        write_file(path, &crate::compare::junit_xml(&report, &accept_command()))?;
    }
    if let Some(dir) = &settings.report {
        let page = crate::compare::HtmlPage::of_check(&report, &accept_command());
        crate::compare::write_html(&page, dir)?;
    }
    unless_closed_pipe(if settings.json {
        print_json(&report)
    } else {
        print_table(&report)
    })?;
    if crate::ci::in_github_actions() {
        unless_closed_pipe(github_output(&report, settings.json))?;
    }
    Ok(report.failed == 0)
}

/// Under GitHub Actions: the annotations (on stdout, or stderr when stdout carries `--json`)
/// and the job summary, appended to `$GITHUB_STEP_SUMMARY` in one write within what is left of
/// its 1 MiB.
fn github_output(report: &CheckReport, json: bool) -> Result<(), Error> {
    for line in crate::compare::annotations(report) {
        if json {
            eprintln!("{line}");
        } else {
            outln!("{line}");
        }
    }
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let path = std::path::PathBuf::from(path);
    let used = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
    let budget = crate::compare::STEP_SUMMARY_LIMIT_BYTES.saturating_sub(used);
    let summary = crate::compare::step_summary(report, &accept_command(), budget);
    if summary.is_empty() {
        return Ok(());
    }
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(summary.as_bytes()))
        .map_err(|source| Error::Write { path, source })
}

/// Writes a report file whole, creating its folder.
fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    pipeline::create_parent(path)?;
    crate::output::atomic::write_atomic(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The command that accepts this check's failures: the arguments fogbank was run with, less
/// the flags that only choose what is printed or written about the check, plus `--accept`.
pub(super) fn accept_command() -> String {
    accept_command_of(std::env::args().skip(1))
}

fn accept_command_of(args: impl Iterator<Item = String>) -> String {
    const WITH_VALUE: [&str; 2] = ["--junit", "--report"];
    const ALONE: [&str; 3] = ["--json", "--quiet", "-q"];
    let mut kept = vec!["fogbank".to_string()];
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        let name = arg.split('=').next().unwrap_or_default();
        if WITH_VALUE.contains(&name) {
            skip_value = !arg.contains('=');
            continue;
        }
        if ALONE.contains(&arg.as_str()) {
            continue;
        }
        kept.push(shell_quoted(&arg));
    }
    kept.push("--accept".into());
    kept.join(" ")
}

/// `text` as one shell word: unchanged when it is plain, otherwise in single quotes.
fn shell_quoted(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./=:,+-@%".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// `--accept`: the failed check's actual pictures become the references; no GPU is opened.
/// Only the frames named by `--frames` limit it, not the list in golden.json.
fn accept(scene: &Scene, options: CheckOptions, settings: &CheckSettings) -> Result<bool, Error> {
    let options = CheckOptions {
        frames: settings.frames.clone(),
        ..options
    };
    let report = crate::compare::accept(scene, &options)?;
    if settings.json {
        print_json(&report)?;
        return Ok(true);
    }
    for frame in &report.accepted {
        outln!(
            "frame {frame:04}  accepted  {}",
            report
                .golden
                .join(options.format.reference_name(*frame))
                .display()
        );
    }
    outln!(
        "accepted {} frame{} without rendering; golden.json updated{}",
        report.accepted.len(),
        if report.accepted.len() == 1 { "" } else { "s" },
        match report.remaining.len() {
            0 => String::new(),
            n => format!("; {n} failed frames left: {:?}", report.remaining),
        }
    );
    Ok(true)
}

/// The size, frames, view, samples (everywhere and at edges) and shutter a check renders: those
/// given on the command line, and
/// for the ones left out, what the folder's golden.json recorded when the references were
/// blessed (so `fogbank check --golden DIR` re-renders exactly what DIR holds). Blessing, or a
/// folder without a readable golden.json, leaves them to the scene's defaults (the check
/// itself reports an unreadable golden.json).
struct Recorded {
    size: Option<(u32, u32)>,
    frames: Option<FrameSet>,
    view: View,
    samples: Option<u32>,
    shutter: Option<f32>,
    edge_samples: Option<u32>,
    format: GoldenFormat,
    exposure_ev: f32,
}

impl Recorded {
    fn fill_in(settings: &CheckSettings, reporter: &mut dyn Reporter) -> Recorded {
        let sidecar = (!settings.bless)
            .then(|| GoldenSidecar::read(&settings.golden_dir).ok())
            .flatten();
        let mut taken = Vec::new();
        let size = settings.size.or_else(|| {
            let [width, height] = sidecar.as_ref()?.size;
            taken.push(format!("size {width}x{height}"));
            Some((width, height))
        });
        let frames = settings.frames.clone().or_else(|| {
            let listed = &sidecar.as_ref()?.frames;
            (!listed.is_empty()).then(|| {
                taken.push(format!("{} frames", listed.len()));
                FrameSet::from_list(listed.iter().copied())
            })
        });
        let view = settings.view.unwrap_or_else(|| {
            let recorded = sidecar
                .as_ref()
                .and_then(|s| View::ALL.into_iter().find(|v| v.name() == s.view));
            if let Some(view) = recorded {
                taken.push(format!("view {}", view.name()));
            }
            recorded.unwrap_or_default()
        });
        // Samples a pixel and the shutter: the flags, else what golden.json recorded (one
        // sample where it names none, as golden.json files from before the anti-aliased
        // default were blessed), else the scene's. A flag for either count names the whole
        // sampling, so neither is then taken from golden.json.
        let flagged = settings.gpu.samples.is_some() || settings.gpu.edge_samples.is_some();
        let (samples, edge_samples) = match sidecar.as_ref() {
            Some(recorded) if !flagged => {
                if recorded.samples > 1 {
                    taken.push(format!("{} samples", recorded.samples));
                }
                if recorded.edge_samples > 1 {
                    taken.push(format!("{} samples at edges", recorded.edge_samples));
                }
                (Some(recorded.samples), Some(recorded.edge_samples))
            }
            _ => (None, None),
        };
        let shutter = settings.gpu.shutter.or_else(|| {
            let recorded = sidecar.as_ref()?.shutter;
            (recorded > 0.0).then(|| {
                taken.push(format!("shutter {recorded}"));
                recorded
            })
        });
        let format = settings.format.unwrap_or_else(|| {
            let recorded = sidecar.as_ref().map_or(GoldenFormat::Png, |s| s.format);
            if recorded != GoldenFormat::Png {
                taken.push(format!("format {}", recorded.name()));
            }
            recorded
        });
        let exposure_ev = settings.exposure_ev.unwrap_or_else(|| {
            let recorded = sidecar.as_ref().map_or(0.0, |s| s.exposure_ev);
            if recorded != 0.0 {
                taken.push(format!("exposure {recorded:+} EV"));
            }
            recorded
        });
        if !taken.is_empty() {
            reporter.note(&format!(
                "as recorded in {}: {}",
                GoldenSidecar::path_in(&settings.golden_dir).display(),
                taken.join(", ")
            ));
        }
        Recorded {
            size,
            frames,
            view,
            samples,
            shutter,
            edge_samples,
            format,
            exposure_ev,
        }
    }
}

fn print_table(report: &CheckReport) -> Result<(), Error> {
    if report.format == GoldenFormat::Exr {
        outln!(
            "EXR references in linear light: max-diff, pixel budget and SSIM at {:+} EV, FLIP is \
             HDR-FLIP",
            report.exposure_ev
        );
    }
    for r in report.frames.iter().chain(&report.maps) {
        outln!("frame {:04}  {:<7}  {}", r.frame, r.status, r.detail);
        print_limits(r)?;
        for artifact in &r.artifacts {
            outln!("             wrote {}", artifact.display());
        }
    }
    if !report.unused.is_empty() {
        outln!(
            "{} reference file{} no checked frame used:",
            report.unused.len(),
            if report.unused.len() == 1 { "" } else { "s" }
        );
        for path in &report.unused {
            outln!("             unused {}", path.display());
        }
    }
    let failed = report.failed;
    outln!(
        "{} of {} frames passed{}",
        report.frames.iter().filter(|r| r.status != "fail").count(),
        report.frames.len(),
        if failed > 0 {
            format!(
                "; {failed} failed. To accept the new pictures: {}",
                accept_command()
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Prints every limit a frame was judged by, with its source and result, one line.
fn print_limits(report: &FrameReport) -> Result<(), Error> {
    if report.limits.is_empty() {
        return Ok(());
    }
    let limits: Vec<String> = report.limits.iter().map(|l| l.to_string()).collect();
    outln!("             limits: {}", limits.join(" · "));
    Ok(())
}

/// The verdict of `compare` as text.
fn print_compare(
    settings: &CompareSettings,
    comparison: &crate::compare::Comparison,
    report: &FrameReport,
    method: Option<&str>,
) -> Result<(), Error> {
    if crate::compare::is_exr(&settings.expected) || crate::compare::is_exr(&settings.actual) {
        outln!(
            "EXR in linear light at {:+} EV, encoded to 8-bit sRGB before the gates",
            settings.exposure_ev
        );
    }
    if let Some(method) = method {
        outln!("two EXR files: {method}");
    }
    outln!(
        "{} vs {}: {comparison}",
        settings.expected.display(),
        settings.actual.display()
    );
    print_limits(report)
}

/// Compares two files and prints the verdict; true when they agree within the tolerance.
pub(super) fn run_compare(settings: &CompareSettings) -> Result<bool, Error> {
    // The report shows the heat map: without --diff it is written into the report's folder.
    let diff = match (&settings.diff, &settings.report) {
        (Some(diff), _) => Some(diff.clone()),
        (None, Some(dir)) => {
            pipeline::create_dir(dir)?;
            Some(dir.join("diff.png"))
        }
        (None, None) => None,
    };
    let files = CompareFiles {
        expected: settings.expected.clone(),
        actual: settings.actual.clone(),
        diff: diff.clone(),
        exact: settings.exact,
        mask: settings.mask.clone(),
        exposure_ev: settings.exposure_ev,
    };
    let verdict = crate::compare::compare_files(&files, &settings.tolerance)?;
    let (comparison, sources) = (&verdict.comparison, &verdict.sources);
    let mut report = FrameReport::from_comparison(
        0,
        comparison,
        sources,
        settings.diff.iter().cloned().collect(),
    );
    if let Some(method) = &verdict.method {
        report.detail = format!("{} ({method})", report.detail);
    }
    report.name = settings.actual.display().to_string();
    report.mask = settings.mask.clone();
    if let Some(dir) = &settings.report {
        let page = crate::compare::HtmlPage {
            title: format!(
                "fogbank compare {} {}",
                settings.expected.display(),
                settings.actual.display()
            ),
            summary: vec![if comparison.passed {
                "The pictures agree within the tolerance.".to_string()
            } else {
                "The pictures differ beyond the tolerance.".to_string()
            }],
            accept_command: None,
            cases: vec![crate::compare::HtmlCase {
                report: report.clone(),
                expected: Some(settings.expected.clone()),
                actual: Some(settings.actual.clone()),
                diff,
                mask: settings.mask.clone(),
            }],
            exposure_ev: settings.exposure_ev,
        };
        crate::compare::write_html(&page, dir)?;
    }
    unless_closed_pipe(if settings.json {
        print_json(&report)
    } else {
        print_compare(settings, comparison, &report, verdict.method.as_deref())
    })?;
    Ok(comparison.passed)
}

#[cfg(test)]
mod tests {
    use super::accept_command_of;

    #[test]
    fn the_accept_command_keeps_the_scene_and_flags_and_drops_the_outputs() {
        let args = [
            "check",
            "my scene.ron",
            "--golden",
            "g",
            "--junit",
            "j.xml",
            "--report=r",
            "--json",
            "--set",
            "fog.sigma=2.0",
            "--quiet",
        ];
        assert_eq!(
            accept_command_of(args.iter().map(|a| a.to_string())),
            "fogbank check 'my scene.ron' --golden g --set fog.sigma=2.0 --accept"
        );
    }
}
