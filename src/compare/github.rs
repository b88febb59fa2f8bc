//! A check as GitHub Actions shows it: an `::error` annotation for each failing frame, and a
//! Markdown table for the job summary (`$GITHUB_STEP_SUMMARY`).
//!
//! GitHub caps a step's summary at 1 MiB, so [`step_summary`] is given the bytes left and
//! drops table rows (passing frames first, as failures come first) to stay under them, saying
//! how many it dropped. The text is built here; the command layer prints the annotations and
//! appends the summary.

use super::{CheckReport, FrameReport};
use std::fmt::Write as _;

/// The most a step summary may hold, in bytes.
pub const STEP_SUMMARY_LIMIT_BYTES: usize = 1024 * 1024;

/// One `::error` workflow command per failing frame or map, naming its strip.
pub fn annotations(report: &CheckReport) -> Vec<String> {
    failing_first(report)
        .into_iter()
        .filter(|r| r.status == "fail")
        .map(|r| {
            let strip = r
                .artifacts
                .iter()
                .find(|p| p.to_string_lossy().ends_with(".strip.png"));
            let message = match strip {
                Some(strip) => format!("{}; strip: {}", r.detail, strip.display()),
                None => r.detail.clone(),
            };
            format!(
                "::error title={}::{}",
                escape_property(&format!("fogbank check: {} differs", r.name)),
                escape_data(&message)
            )
        })
        .collect()
}

/// The job summary: a heading, the verdict, the command that accepts, and a table of every
/// frame, failures first, in at most `budget_bytes` bytes (nothing when even the heading does
/// not fit).
pub fn step_summary(report: &CheckReport, accept_command: &str, budget_bytes: usize) -> String {
    let cases = failing_first(report);
    let mut head = format!(
        "### fogbank check: {}\n\n{} of {} passed on {}.\n\n",
        report.golden.display(),
        cases.len() - report.failed,
        cases.len(),
        report.adapter
    );
    if report.failed > 0 {
        let _ = write!(
            head,
            "To accept the new pictures:\n\n```sh\n{accept_command}\n```\n\n"
        );
    }
    head.push_str("| frame | status | max Δ | over | SSIM | FLIP mean | FLIP p99 | strip |\n");
    head.push_str("|---|---|---|---|---|---|---|---|\n");
    // Room kept for the line that says how many rows were dropped.
    const TAIL_BYTES: usize = 80;
    if head.len() + TAIL_BYTES > budget_bytes {
        return String::new();
    }
    let mut out = head;
    let mut dropped = 0;
    for case in &cases {
        let row = row(case);
        if dropped > 0 || out.len() + row.len() + TAIL_BYTES > budget_bytes {
            dropped += 1;
            continue;
        }
        out.push_str(&row);
    }
    if dropped > 0 {
        let _ = writeln!(
            out,
            "\n{dropped} more rows left out to keep the summary under 1 MiB; see the report."
        );
    }
    out.push('\n');
    out
}

fn row(case: &FrameReport) -> String {
    let figure =
        |v: Option<f64>, digits: usize| v.map_or("–".to_string(), |v| format!("{v:.digits$}"));
    let strip = case
        .artifacts
        .iter()
        .find(|p| p.to_string_lossy().ends_with(".strip.png"))
        .map_or(String::new(), |p| format!("`{}`", p.display()));
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
        case.name.replace('|', "\\|"),
        if case.status == "fail" {
            "**FAIL**"
        } else {
            case.status
        },
        case.max_channel_diff.map_or("–".into(), |v| v.to_string()),
        case.fraction_over
            .map_or("–".into(), |v| format!("{:.3} %", v * 100.0)),
        figure(case.ssim, 4),
        figure(case.flip_mean, 4),
        figure(case.flip_p99, 4),
        strip.replace('|', "\\|"),
    )
}

/// Frames and maps, failures first, each group in the report's order.
fn failing_first(report: &CheckReport) -> Vec<&FrameReport> {
    let all: Vec<&FrameReport> = report.frames.iter().chain(&report.maps).collect();
    let (mut failing, passing): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|r| r.status == "fail");
    failing.extend(passing);
    failing
}

/// A workflow command's message: `%`, CR and LF escaped.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as data, and `:` and `,` too.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{LimitSource, LimitSources};

    fn report(frames: u32, failing: u32) -> CheckReport {
        let frames = (0..frames)
            .map(|frame| {
                let fail = frame < failing;
                FrameReport {
                    name: format!("frame_{frame:04}"),
                    frame,
                    status: if fail { "fail" } else { "pass" },
                    max_channel_diff: Some(if fail { 90 } else { 0 }),
                    fraction_over: Some(0.0),
                    mean_abs_diff: Some(0.0),
                    ssim: Some(1.0),
                    flip_mean: Some(0.0),
                    flip_p99: Some(0.0),
                    limits: vec![],
                    detail: "max Δ 90 — FAIL: 50% off".into(),
                    artifacts: vec![format!("g/frame_{frame:04}.strip.png").into()],
                    mask: None,
                }
            })
            .collect();
        CheckReport {
            golden: "g".into(),
            adapter: "llvmpipe".into(),
            blessed_on: None,
            format: crate::compare::GoldenFormat::Png,
            exposure_ev: 0.0,
            max_channel_diff: 8,
            pixel_budget: 0.002,
            min_ssim: 0.98,
            max_flip: None,
            limit_sources: LimitSources::all(LimitSource::Default),
            frames,
            maps: vec![],
            failed: failing as usize,
            unused: vec![],
        }
    }

    #[test]
    fn annotations_name_the_strip_and_escape_the_message() {
        let lines = annotations(&report(3, 1));
        assert_eq!(
            lines,
            [
                "::error title=fogbank check%3A frame_0000 differs::max Δ 90 — FAIL: 50%25 off; \
              strip: g/frame_0000.strip.png"
            ]
        );
    }

    #[test]
    fn the_summary_stays_under_its_budget_and_says_what_it_left_out() {
        let full = step_summary(&report(40, 2), "fogbank check --accept", usize::MAX);
        assert!(full.contains("| frame_0039 | pass |"), "{full}");
        assert!(full.find("frame_0001").unwrap() < full.find("frame_0002").unwrap());
        let cut = step_summary(&report(40_000, 2), "fogbank check --accept", 4096);
        assert!(cut.len() <= 4096, "{}", cut.len());
        assert!(cut.contains("| frame_0000 | **FAIL** |"));
        assert!(cut.contains("more rows left out"), "{cut}");
        assert_eq!(step_summary(&report(4, 1), "x", 100), "");
        let big = step_summary(&report(40_000, 2), "x", STEP_SUMMARY_LIMIT_BYTES);
        assert!(big.len() <= STEP_SUMMARY_LIMIT_BYTES);
    }
}
