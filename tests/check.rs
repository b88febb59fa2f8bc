//! `fogbank check` and `fogbank compare`, the golden-image commands users run in their own CI:
//! exit codes (0 pass, 3 a difference, 2 an error), the failure artefacts, references never
//! created under CI, re-blessing the fluid maps, and comparing two images (no GPU needed).

mod common;

use common::{assert_exit, fogbank, fogbank_env, require_gpu, stdout, temp_dir};
use std::path::Path;

#[test]
fn check_reports_differences_with_a_distinct_exit_code_and_artifacts() {
    require_gpu!();
    let dir = temp_dir("check");
    let d = dir.to_str().unwrap();
    let check = |frame: &str, extra: &[&str], env: &[(&str, &str)]| {
        let base = ["check", "--golden", d, "--size", "96x54", "--frames", frame];
        fogbank_env(&[&base[..], &["--quiet"], extra].concat(), env)
    };
    assert_exit(&check("10", &["--bless"], &[]), 0);
    assert_exit(&check("10", &[], &[]), 0);
    assert_exit(&check("10", &["--set", "fog.sigma=2.0"], &[]), 3);
    for suffix in ["actual", "diff", "strip"] {
        assert!(
            dir.join(format!("frame_0010.{suffix}.png")).exists(),
            "{suffix}"
        );
    }
    // A missing reference under CI=true is an error (exit 2), never silently created.
    assert_exit(&check("11", &[], &[("CI", "true")]), 2);
    assert!(!dir.join("frame_0011.png").exists());
}

#[test]
fn a_check_without_size_frames_or_view_renders_what_golden_json_recorded() {
    require_gpu!();
    let dir = temp_dir("check-recorded");
    let d = dir.to_str().unwrap();
    let blessed = fogbank(&[
        "check", "--golden", d, "--size", "64x36", "--frames", "3,7", "--view", "fluid", "--bless",
        "--quiet",
    ]);
    assert_exit(&blessed, 0);
    // Only the folder: the size, both frames and the view come from golden.json, so nothing
    // is reported missing and nothing new is written.
    let checked = fogbank(&["check", "--golden", d, "--json"]);
    assert_exit(&checked, 0);
    let report: serde_json::Value = serde_json::from_str(&stdout(&checked)).unwrap();
    let frames: Vec<(u64, String)> = report["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["frame"].as_u64().unwrap(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(frames, [(3, "pass".to_string()), (7, "pass".to_string())]);
    let stderr = String::from_utf8_lossy(&checked.stderr);
    assert!(
        stderr.contains("size 64x36, 2 frames, view fluid"),
        "the check says what it took from golden.json: {stderr}"
    );
    let pngs = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "png")
        })
        .count();
    assert_eq!(pngs, 2, "only the two references");
    // A flag still wins over the record: another view is a different picture.
    let other_view = fogbank(&["check", "--golden", d, "--view", "fog", "--quiet"]);
    assert_eq!(other_view.status.code(), Some(3));
}

#[test]
fn bless_replaces_the_fluid_map_references_too() {
    require_gpu!();
    let dir = temp_dir("bless-maps");
    let d = dir.to_str().unwrap();
    let run = |extra: &[&str]| {
        let args = [
            "check",
            "tests/scenes/tiny.ron",
            "--golden",
            d,
            "--maps",
            "--frames",
            "6",
            "--quiet",
        ];
        fogbank(&[&args[..], extra].concat())
    };
    assert_exit(&run(&["--bless"]), 0);
    let changed = ["--set", "fluid.refill=5"];
    assert_eq!(run(&changed).status.code(), Some(3), "the fluid changed");
    assert_exit(&run(&[&changed[..], &["--bless"]].concat()), 0);
    assert_exit(&run(&changed), 0);
}

fn write_png(path: &Path, width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 4]) {
    let mut image = image::RgbaImage::new(width, height);
    for (x, y, p) in image.enumerate_pixels_mut() {
        *p = image::Rgba(pixel(x, y));
    }
    image.save(path).unwrap();
}

#[test]
fn compare_passes_within_tolerance_and_fails_with_exit_three() {
    let dir = temp_dir("compare");
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.png");
    let near = dir.join("near.png");
    let far = dir.join("far.png");
    let gradient = |x: u32, y: u32| [(x * 4) as u8, (y * 4) as u8, 128, 255];
    write_png(&a, 48, 32, gradient);
    write_png(&near, 48, 32, |x, y| {
        let [r, g, b, a] = gradient(x, y);
        [r.saturating_add(3), g, b, a]
    });
    write_png(&far, 48, 32, |x, y| {
        let [r, g, b, a] = gradient(x, y);
        [r.saturating_add(60), g, b, a]
    });
    let (a, near, far) = (
        a.to_str().unwrap(),
        near.to_str().unwrap(),
        far.to_str().unwrap(),
    );
    let diff = dir.join("diff.png");
    let out = fogbank(&["compare", a, near]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("pass"));
    let out = fogbank(&[
        "compare",
        a,
        far,
        "--diff",
        diff.to_str().unwrap(),
        "--json",
    ]);
    assert_exit(&out, 3);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["status"], "fail");
    assert_eq!(report["max_channel_diff"], 60);
    assert!(diff.exists());
    // Exact comparison of data: even 3 levels fail without --max-diff.
    assert_exit(&fogbank(&["compare", a, near, "--exact"]), 3);
    assert_exit(
        &fogbank(&["compare", a, near, "--exact", "--max-diff", "3"]),
        0,
    );
    // A missing file is an error, not a difference.
    let out = fogbank(&["compare", a, "does-not-exist.png"]);
    assert_exit(&out, 2);
    assert!(common::stderr(&out).contains("does-not-exist.png"));
}

#[test]
fn compare_reports_flip_gates_on_max_flip_and_prints_every_limit() {
    let dir = temp_dir("compare-flip");
    std::fs::create_dir_all(&dir).unwrap();
    let sharp = dir.join("sharp.png");
    let soft = dir.join("soft.png");
    let stripes = |x: u32, _y: u32| {
        let v = if (x / 4).is_multiple_of(2) { 220 } else { 30 };
        [v, v, v, 255]
    };
    write_png(&sharp, 64, 32, stripes);
    // The same stripes with every edge softened over two pixels: small per-pixel changes that
    // a viewer sees.
    write_png(&soft, 64, 32, |x, y| {
        let [a, ..] = stripes(x.saturating_sub(1), y);
        let [b, ..] = stripes(x, y);
        let [c, ..] = stripes((x + 1).min(63), y);
        let v = ((u32::from(a) + u32::from(b) * 2 + u32::from(c)) / 4) as u8;
        [v, v, v, 255]
    });
    let (sharp, soft) = (sharp.to_str().unwrap(), soft.to_str().unwrap());
    let loose = ["--max-diff", "255", "--min-ssim=-1"];
    let out = fogbank(&[&["compare", sharp, soft, "--json"], &loose[..]].concat());
    assert_exit(&out, 0);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mean = report["flip_mean"].as_f64().unwrap();
    let p99 = report["flip_p99"].as_f64().unwrap();
    assert!(mean > 0.01 && p99 >= mean, "{report}");
    let limits = report["limits"].as_array().unwrap();
    let flags: Vec<&str> = limits.iter().map(|l| l["flag"].as_str().unwrap()).collect();
    assert_eq!(
        flags,
        ["--max-diff", "--pixel-budget", "--min-ssim", "--max-flip"]
    );
    assert_eq!(limits[0]["source"], "flag");
    assert_eq!(limits[1]["source"], "default");
    assert!(
        limits[3]["limit"].is_null(),
        "FLIP does not gate by default"
    );

    let limit = format!("{:.4}", mean / 2.0);
    let out = fogbank(&[&["compare", sharp, soft, "--max-flip", &limit], &loose[..]].concat());
    assert_exit(&out, 3);
    let text = stdout(&out);
    assert!(text.contains("FLIP") && text.contains("above"), "{text}");
    assert!(
        text.contains(&format!("--max-flip {limit} (flag)")) && text.contains("FAIL"),
        "every limit is printed with its source and result: {text}"
    );
    let out = fogbank(&["compare", sharp, sharp, "--max-flip", "0"]);
    assert_exit(&out, 0);
    let out = fogbank(&["compare", sharp, soft, "--max-flip", "1.5"]);
    assert_exit(&out, 2);
    assert!(
        common::stderr(&out).contains("max_flip"),
        "{}",
        common::stderr(&out)
    );
}

#[test]
fn accept_takes_the_failed_pictures_without_rendering_and_refuses_other_settings() {
    require_gpu!();
    let dir = temp_dir("accept");
    let d = dir.to_str().unwrap();
    let base = [
        "check", "--golden", d, "--size", "96x54", "--frames", "10,11",
    ];
    let changed = ["--set", "fog.sigma=2.0"];
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        fogbank_env(&[&base[..], &["--quiet"], extra].concat(), env)
    };
    assert_exit(&run(&["--bless"], &[]), 0);
    let started = std::time::Instant::now();
    let failed = run(&changed, &[]);
    let check_time = started.elapsed();
    assert_exit(&failed, 3);
    assert!(
        stdout(&failed).contains("--set fog.sigma=2.0 --accept"),
        "the check prints the command that accepts: {}",
        stdout(&failed)
    );
    assert!(dir.join("actuals.json").exists());
    let reference_before = std::fs::read(dir.join("frame_0010.png")).unwrap();
    let actual = std::fs::read(dir.join("frame_0010.actual.png")).unwrap();

    // Other settings than the failed check's: refused, naming what differs.
    let other = run(&["--accept"], &[]);
    assert_exit(&other, 2);
    assert!(
        common::stderr(&other).contains("other settings")
            && common::stderr(&other).contains("scene"),
        "{}",
        common::stderr(&other)
    );
    let other = run(
        &[&changed[..], &["--accept", "--view", "sheets"]].concat(),
        &[],
    );
    assert_exit(&other, 2);
    assert!(
        common::stderr(&other).contains("--view"),
        "{}",
        common::stderr(&other)
    );
    assert_eq!(
        std::fs::read(dir.join("frame_0010.png")).unwrap(),
        reference_before
    );

    // A missing actual picture: refused, naming the file.
    std::fs::rename(dir.join("frame_0011.actual.png"), dir.join("kept.png")).unwrap();
    let missing = run(&[&changed[..], &["--accept"]].concat(), &[]);
    assert_exit(&missing, 2);
    assert!(
        common::stderr(&missing).contains("frame_0011.actual.png"),
        "{}",
        common::stderr(&missing)
    );
    std::fs::rename(dir.join("kept.png"), dir.join("frame_0011.actual.png")).unwrap();

    // The accept opens no GPU: an adapter index that does not exist would stop any render.
    let started = std::time::Instant::now();
    let accepted = run(
        &[&changed[..], &["--accept"]].concat(),
        &[("FOGBANK_GPU", "99")],
    );
    let accept_time = started.elapsed();
    assert_exit(&accepted, 0);
    assert!(
        accept_time < check_time,
        "accept took {accept_time:?}, the check {check_time:?}"
    );
    assert_eq!(std::fs::read(dir.join("frame_0010.png")).unwrap(), actual);
    for leftover in [
        "frame_0010.actual.png",
        "frame_0010.diff.png",
        "actuals.json",
    ] {
        assert!(!dir.join(leftover).exists(), "{leftover} is cleaned up");
    }
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("golden.json")).unwrap()).unwrap();
    assert_eq!(sidecar["frames"], serde_json::json!([10, 11]));
    assert_exit(&run(&changed, &[]), 0);
    // Nothing left to accept.
    let again = run(&[&changed[..], &["--accept"]].concat(), &[]);
    assert_exit(&again, 2);
    assert!(
        common::stderr(&again).contains("actuals.json"),
        "{}",
        common::stderr(&again)
    );
}

/// Blesses frames 10 and 11 at 96×54 in a new folder, then spoils frame 11's reference (a
/// bright block over its middle) so that the next check fails that frame alone.
fn golden_with_one_spoilt_frame(name: &str) -> common::TempDir {
    let dir = temp_dir(name);
    let d = dir.to_str().unwrap();
    let bless = [
        "check", "--golden", d, "--size", "96x54", "--frames", "10,11",
    ];
    assert_exit(&fogbank(&[&bless[..], &["--bless", "--quiet"]].concat()), 0);
    let path = dir.join("frame_0011.png");
    let mut image = image::open(&path).unwrap().to_rgba8();
    for y in 15..40 {
        for x in 30..70 {
            image.put_pixel(x, y, image::Rgba([250, 40, 200, 255]));
        }
    }
    image.save(&path).unwrap();
    dir
}

#[test]
fn junit_has_a_case_per_frame_and_one_failure_with_attachments() {
    require_gpu!();
    let dir = golden_with_one_spoilt_frame("junit");
    let junit = dir.join("reports/junit.xml");
    let out = fogbank(&[
        "check",
        "--golden",
        dir.to_str().unwrap(),
        "--quiet",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_exit(&out, 3);
    let text = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let cases: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<&str> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(names, ["frame_0010", "frame_0011"]);
    let failures: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .collect();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].parent().unwrap().attribute("name"),
        Some("frame_0011")
    );
    let body = failures[0].text().unwrap();
    for figure in ["SSIM", "FLIP", "--pixel-budget", "--accept"] {
        assert!(body.contains(figure), "{figure} in {body}");
    }
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("failures"), Some("1"));
    let out_text = cases[1]
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .unwrap();
    let attached: Vec<&str> = out_text
        .lines()
        .map(|l| {
            l.strip_prefix("[[ATTACHMENT|")
                .and_then(|l| l.strip_suffix("]]"))
                .unwrap()
        })
        .collect();
    assert_eq!(attached.len(), 2, "{out_text}");
    assert!(attached[0].ends_with("frame_0011.strip.png"), "{out_text}");
    assert!(attached[1].ends_with("frame_0011.diff.png"), "{out_text}");
    for path in attached {
        assert!(Path::new(path).exists(), "{path}");
    }
}

#[test]
fn github_actions_get_an_annotation_per_failing_frame_and_a_summary() {
    require_gpu!();
    let dir = golden_with_one_spoilt_frame("github");
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let out = fogbank_env(
        &["check", "--golden", dir.to_str().unwrap(), "--quiet"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("CI", "true"),
            ("GITHUB_STEP_SUMMARY", summary.to_str().unwrap()),
        ],
    );
    assert_exit(&out, 3);
    let text = stdout(&out);
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(errors.len(), 1, "{text}");
    assert!(
        errors[0].contains("frame_0011") && errors[0].contains("frame_0011.strip.png"),
        "{}",
        errors[0]
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.starts_with("earlier step\n"), "appended: {written}");
    let table_rows: Vec<&str> = written
        .lines()
        .filter(|l| l.starts_with("| frame_"))
        .collect();
    assert_eq!(table_rows.len(), 2, "{written}");
    assert!(
        table_rows[0].starts_with("| frame_0011 | **FAIL** |"),
        "failures first: {written}"
    );
    assert!(written.contains("--accept"), "{written}");
    assert!(written.len() < 1024 * 1024);
    // Outside GitHub Actions nothing of it appears.
    let out = fogbank_env(
        &["check", "--golden", dir.to_str().unwrap(), "--quiet"],
        &[("GITHUB_ACTIONS", "false")],
    );
    assert!(!stdout(&out).contains("::error"));
}

/// Debian's Chromium, or `None` (then the browser test is skipped outside CI).
fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|name| {
        std::process::Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Runs headless Chromium on `page` with `args`, in a profile of its own.
fn headless(browser: &str, profile: &Path, args: &[&str], page: &Path) -> std::process::Output {
    std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            &format!("--user-data-dir={}", profile.display()),
            "--virtual-time-budget=5000",
        ])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium")
}

#[test]
fn the_html_report_lists_the_failing_frame_first_with_its_pictures_in_a_real_browser() {
    require_gpu!();
    let dir = golden_with_one_spoilt_frame("report");
    let html_dir = dir.join("html");
    let out = fogbank(&[
        "check",
        "--golden",
        dir.to_str().unwrap(),
        "--quiet",
        "--report",
        html_dir.to_str().unwrap(),
    ]);
    assert_exit(&out, 3);
    let page = html_dir.join("index.html");
    let text = std::fs::read_to_string(&page).unwrap();
    // Nothing from the network: every picture is inline.
    assert!(!text.contains("http://") && !text.contains("https://"));
    assert_eq!(
        text.matches("src=\"").count(),
        text.matches("src=\"data:image/png;base64,").count()
    );
    assert!(
        text.contains("--accept"),
        "the page gives the accept command"
    );

    let Some(browser) = chromium() else {
        assert!(
            !fogbank::ci::in_ci(),
            "under CI the browser test must run: install chromium (scripts/setup.sh)"
        );
        eprintln!("skipped: chromium is not installed (scripts/setup.sh installs it)");
        return;
    };
    let profile = dir.join("chromium-profile");
    let dom = headless(browser, &profile, &["--dump-dom"], &page);
    assert!(dom.status.success(), "{}", common::stderr(&dom));
    let dom = stdout(&dom);
    let attribute = |name: &str| -> usize {
        let start = dom
            .find(&format!("{name}=\""))
            .unwrap_or_else(|| panic!("{name}: {dom}"));
        let rest = &dom[start + name.len() + 2..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    };
    let (total, loaded) = (
        attribute("data-images-total"),
        attribute("data-images-loaded"),
    );
    // The failing frame: expected, actual, heat map and the two of the wipe viewer; the
    // passing frame: its reference.
    assert_eq!(total, 6, "{dom}");
    assert_eq!(loaded, total, "every picture loaded");
    let first_case = dom.find("<section class=\"case").unwrap();
    assert!(
        dom[first_case..].starts_with("<section class=\"case fail\" id=\"frame_0011\""),
        "the failing frame comes first: {}",
        &dom[first_case..first_case + 80]
    );

    let shot = dir.join("shot.png");
    let screenshot = format!("--screenshot={}", shot.display());
    let taken = headless(
        browser,
        &profile,
        &[&screenshot, "--window-size=1000,900"],
        &page,
    );
    assert!(taken.status.success(), "{}", common::stderr(&taken));
    let image = image::open(&shot).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (1000, 900));
    // The failing frame's red heading is on the first screen.
    let red = image
        .pixels()
        .filter(|p| p[0] > 200 && p[1] < 30 && p[2] < 30)
        .count();
    assert!(red > 5_000, "{red} red pixels in the screenshot");
    // And its pictures show: many distinct colours (the fog, the heat map), not a blank page.
    let mut colours: Vec<[u8; 3]> = image.pixels().map(|p| [p[0], p[1], p[2]]).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 500, "{} colours", colours.len());
}

#[test]
fn compare_writes_a_report_with_both_pictures_and_the_heat_map() {
    let dir = temp_dir("compare-report");
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.png");
    let b = dir.join("b.png");
    write_png(&a, 32, 16, |x, y| [(x * 8) as u8, (y * 16) as u8, 90, 255]);
    write_png(&b, 32, 16, |x, y| [(x * 8) as u8, (y * 16) as u8, 200, 255]);
    let html = dir.join("html");
    let out = fogbank(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--report",
        html.to_str().unwrap(),
    ]);
    assert_exit(&out, 3);
    let text = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert_eq!(text.matches("<img class=\"picture\"").count(), 3);
    assert!(text.contains("FAIL"));
    assert!(html.join("diff.png").exists());
}

#[test]
fn check_lists_reference_files_no_checked_frame_used() {
    require_gpu!();
    let dir = temp_dir("unused");
    let d = dir.to_str().unwrap();
    let bless = [
        "check", "--golden", d, "--size", "64x36", "--frames", "10,11",
    ];
    assert_exit(&fogbank(&[&bless[..], &["--bless", "--quiet"]].concat()), 0);
    std::fs::copy(dir.join("frame_0010.png"), dir.join("frame_0042.png")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a reference").unwrap();
    let out = fogbank(&["check", "--golden", d, "--json"]);
    assert_exit(&out, 0);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unused: Vec<&str> = report["unused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(unused.len(), 1, "{unused:?}");
    assert!(unused[0].ends_with("frame_0042.png"), "{unused:?}");
    // Checking one frame leaves the other reference unused too; the table says so.
    let out = fogbank(&["check", "--golden", d, "--frames", "10"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("2 reference files no checked frame used"),
        "{text}"
    );
    assert!(
        text.contains("frame_0011.png") && text.contains("frame_0042.png"),
        "{text}"
    );
}

/// A white mask over the block `golden_with_one_spoilt_frame` spoils, black elsewhere.
fn block_mask(path: &Path) {
    write_png(path, 96, 54, |x, y| {
        if (28..72).contains(&x) && (13..42).contains(&y) {
            [255, 255, 255, 255]
        } else {
            [0, 0, 0, 255]
        }
    });
}

#[test]
fn a_mask_hides_a_changed_region_and_the_report_shows_it() {
    require_gpu!();
    let dir = golden_with_one_spoilt_frame("mask");
    let d = dir.to_str().unwrap();
    assert_exit(&fogbank(&["check", "--golden", d, "--quiet"]), 3);
    // A shared mask of the wrong size is bad input that names it.
    let small = dir.join("small-mask.png");
    write_png(&small, 8, 8, |_, _| [255, 255, 255, 255]);
    let out = fogbank(&["check", "--golden", d, "--mask", small.to_str().unwrap()]);
    assert_exit(&out, 2);
    assert!(common::stderr(&out).contains("small-mask.png"));
    // The frame's own mask hides the spoilt block: the check passes, and says which mask.
    block_mask(&dir.join("frame_0011.png").with_file_name("mask_0011.png"));
    let html = dir.join("html");
    let out = fogbank(&[
        "check",
        "--golden",
        d,
        "--json",
        "--report",
        html.to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["frames"][1]["mask"]
            .as_str()
            .unwrap()
            .ends_with("mask_0011.png")
    );
    assert!(report["frames"][0]["mask"].is_null());
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(
        page.contains("mask (white: not compared)"),
        "the report shows the mask"
    );
}

#[test]
fn compare_leaves_out_the_white_of_a_mask() {
    let dir = temp_dir("compare-mask");
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b, mask) = (dir.join("a.png"), dir.join("b.png"), dir.join("m.png"));
    let base = |x: u32, y: u32| [(x * 5) as u8, (y * 9) as u8, 120, 255];
    write_png(&a, 48, 27, base);
    write_png(&b, 48, 27, |x, y| {
        if x < 10 && y < 10 {
            [255, 0, 0, 255]
        } else {
            base(x, y)
        }
    });
    write_png(&mask, 48, 27, |x, y| {
        if x < 12 && y < 12 {
            [255, 255, 255, 255]
        } else {
            [0, 0, 0, 255]
        }
    });
    let (a, b, mask) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        mask.to_str().unwrap(),
    );
    assert_exit(&fogbank(&["compare", a, b]), 3);
    assert_exit(&fogbank(&["compare", a, b, "--mask", mask]), 0);
}

#[test]
fn compare_judges_exr_files_in_linear_light_after_a_stated_exposure() {
    let dir = temp_dir("compare-exr");
    std::fs::create_dir_all(&dir).unwrap();
    let (w, h) = (40u32, 24u32);
    // Linear light: a gradient, and a lamp at 4× white in the top-left corner.
    let write = |name: &str, light: &dyn Fn(u32, u32) -> f32| {
        let mut floats = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let v = light(x, y);
                floats.extend_from_slice(&[v, v * 0.8, v * 0.6, 1.0]);
            }
        }
        let bytes = fogbank::output::exr::encode_exr_rgba_f32(w, h, &floats).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    let base = |x: u32, y: u32| {
        if x < 8 && y < 8 {
            4.0
        } else {
            (x + y) as f32 / 80.0
        }
    };
    let reference = write("reference.exr", &base);
    let near = write("near.exr", &|x, y| base(x, y) * 1.005);
    let darker = write("darker.exr", &|x, y| base(x, y) * 0.6);
    let brighter_lamp = write("lamp.exr", &|x, y| {
        if x < 8 && y < 8 { 8.0 } else { base(x, y) }
    });
    assert_exit(&fogbank(&["compare", &reference, &near]), 0);
    let out = fogbank(&["compare", &reference, &darker]);
    assert_exit(&out, 3);
    assert!(
        stdout(&out).contains("EXR in linear light at +0 EV"),
        "{}",
        stdout(&out)
    );
    // Above white at 0 EV the lamps look alike; three stops down, one is twice the other.
    assert_exit(&fogbank(&["compare", &reference, &brighter_lamp]), 0);
    assert_exit(
        &fogbank(&["compare", &reference, &brighter_lamp, "--exposure", "-3"]),
        3,
    );
    // A file that is not an EXR is bad input that names it.
    let fake = dir.join("fake.exr");
    std::fs::write(&fake, b"not an exr").unwrap();
    let out = fogbank(&["compare", &reference, fake.to_str().unwrap()]);
    assert_exit(&out, 2);
    assert!(common::stderr(&out).contains("fake.exr"));
}
