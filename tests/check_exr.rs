//! EXR references: `fogbank check --format exr` and `fogbank compare` of two EXR files, both
//! judged in linear light (the 8-bit gates after `--exposure`, and HDR-FLIP). A check passes
//! on the same render and fails after a changed fog colour; `--accept` takes the actual EXR; a
//! format other than golden.json's is refused; the report shows PNG previews. The `compare`
//! cases need no GPU.

mod common;

use common::{assert_exit, fogbank, fogbank_env, require_gpu, stderr, stdout, temp_dir};
use std::path::Path;

/// Writes a linear EXR of `width` × `height` whose pixel (x, y) has `light(x, y)` (alpha 1).
fn write_exr(path: &Path, width: u32, height: u32, light: impl Fn(u32, u32) -> [f32; 3]) {
    let mut floats = Vec::new();
    for y in 0..height {
        for x in 0..width {
            floats.extend_from_slice(&light(x, y));
            floats.push(1.0);
        }
    }
    let bytes = fogbank::output::exr::encode_exr_rgba_f32(width, height, &floats).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// Opens `page` in headless Chromium and reads the report's count of pictures that loaded
/// and of all its pictures, `(loaded, total)`. `None` when Chromium is not installed, which
/// only outside CI is allowed.
fn images_a_browser_loaded(page: &Path) -> Option<(usize, usize)> {
    let Some(browser) = ["chromium", "chromium-browser"].into_iter().find(|name| {
        std::process::Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    }) else {
        assert!(
            !fogbank::ci::in_ci(),
            "under CI the browser check must run: install chromium (scripts/setup.sh)"
        );
        eprintln!(
            "browser check skipped: chromium is not installed (scripts/setup.sh installs it)"
        );
        return None;
    };
    let profile = page.with_file_name("chromium-profile");
    let out = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--virtual-time-budget=5000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    assert!(out.status.success(), "{}", stderr(&out));
    let dom = stdout(&out);
    let attribute = |name: &str| -> usize {
        let start = dom
            .find(&format!("{name}=\""))
            .unwrap_or_else(|| panic!("{name}: {dom}"));
        let rest = &dom[start + name.len() + 2..];
        rest[..rest.find('"').unwrap()].parse().unwrap()
    };
    Some((
        attribute("data-images-loaded"),
        attribute("data-images-total"),
    ))
}

fn json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

#[test]
fn exr_references_pass_fail_accept_and_refuse_another_format() {
    require_gpu!();
    let dir = temp_dir("check-exr");
    let d = dir.to_str().unwrap();
    let base = ["check", "tests/scenes/tiny.ron", "--golden", d];
    let changed = ["--set", "fog.color=(0.9, 0.3, 0.2)"];
    let run = |extra: &[&str], env: &[(&str, &str)]| {
        fogbank_env(&[&base[..], &["--quiet"], extra].concat(), env)
    };
    let bless = ["--format", "exr", "--size", "32x18", "--frames", "3,6"];
    assert_exit(&run(&[&bless[..], &["--bless"]].concat(), &[]), 0);
    assert!(dir.join("frame_0003.exr").exists() && !dir.join("frame_0003.png").exists());
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("golden.json")).unwrap()).unwrap();
    assert_eq!(sidecar["format"], "exr");

    // A reference missing under CI is an error that names the EXR, never created.
    let out = run(&["--frames", "9"], &[("CI", "true")]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("frame_0009.exr"), "{}", stderr(&out));
    assert!(!dir.join("frame_0009.exr").exists());

    // The same render passes, with the format, size and frames taken from golden.json.
    let out = run(&["--json"], &[]);
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["format"], "exr");
    for frame in report["frames"].as_array().unwrap() {
        assert_eq!(frame["status"], "pass", "{frame}");
        assert_eq!(
            frame["flip_mean"], 0.0,
            "HDR-FLIP of identical renders: {frame}"
        );
        assert!(
            frame["detail"].as_str().unwrap().contains("HDR-FLIP over"),
            "{frame}"
        );
    }

    // Another fog colour fails: the actual EXR, and PNG heat map and strip beside it.
    let html = dir.join("html");
    let junit = dir.join("junit.xml");
    let out = run(
        &[
            &changed[..],
            &[
                "--json",
                "--report",
                html.to_str().unwrap(),
                "--junit",
                junit.to_str().unwrap(),
            ],
        ]
        .concat(),
        &[],
    );
    assert_exit(&out, 3);
    let report = json(&out);
    assert_eq!(report["failed"], 2);
    let frame = &report["frames"][0];
    assert!(frame["flip_mean"].as_f64().unwrap() > 0.1, "{frame}");
    for name in [
        "frame_0003.actual.exr",
        "frame_0003.diff.png",
        "frame_0003.strip.png",
    ] {
        assert!(dir.join(name).exists(), "{name}");
    }
    assert!(!dir.join("frame_0003.actual.png").exists());
    let strip = image::open(dir.join("frame_0003.strip.png")).unwrap();
    assert_eq!(
        strip.height(),
        18,
        "the strip is a PNG of the exposed pictures"
    );
    // The report shows every picture as a PNG a browser can display, the EXRs included.
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(!page.contains("cannot read"), "every picture was read");
    let pictures = page.matches("<img class=\"picture\"").count();
    assert_eq!(pictures, 2 * 3, "expected, actual and diff of both frames");
    assert_eq!(
        page.matches("src=\"data:image/png;base64,iVBORw0KGgo")
            .count(),
        pictures + 2 * 2,
        "every picture (and the two viewers' pairs) is a PNG"
    );
    // In a real browser every one of them loads: 6 figures and the 2 viewers' 4.
    if let Some(counts) = images_a_browser_loaded(&html.join("index.html")) {
        assert_eq!(counts, (10, 10), "(loaded, total)");
    }
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let attachments: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("system-out"))
        .flat_map(|n| n.text().unwrap_or_default().lines())
        .collect();
    assert_eq!(attachments.len(), 4, "{attachments:?}");
    assert!(
        attachments.iter().all(|a| a.ends_with(".png]]")),
        "{attachments:?}"
    );

    // Another format than golden.json's is refused, naming the fix; so is its accept.
    for extra in [&["--format", "png"][..], &["--format", "png", "--accept"]] {
        let out = run(&[&changed[..], extra].concat(), &[]);
        assert_exit(&out, 2);
        assert!(
            stderr(&out).contains("records exr references")
                && stderr(&out).contains("--bless --format png"),
            "{}",
            stderr(&out)
        );
    }

    // A stray PNG reference in an EXR folder, and an EXR of an unchecked frame, are unused.
    std::fs::copy(dir.join("frame_0003.diff.png"), dir.join("frame_0006.png")).unwrap();
    std::fs::copy(dir.join("frame_0003.exr"), dir.join("frame_0042.exr")).unwrap();

    // Accept takes the actual EXR without rendering (no adapter 99 exists); the next check of
    // the changed scene passes.
    let actual = std::fs::read(dir.join("frame_0003.actual.exr")).unwrap();
    let out = run(
        &[&changed[..], &["--accept"]].concat(),
        &[("FOGBANK_GPU", "99")],
    );
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("frame_0003.exr"), "{}", stdout(&out));
    assert_eq!(std::fs::read(dir.join("frame_0003.exr")).unwrap(), actual);
    assert!(!dir.join("frame_0003.actual.exr").exists());
    let out = run(&[&changed[..], &["--json"]].concat(), &[]);
    assert_exit(&out, 0);
    let unused: Vec<String> = json(&out)["unused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(unused, ["frame_0006.png", "frame_0042.exr"]);
}

#[test]
fn exposure_without_exr_references_is_refused() {
    let dir = temp_dir("check-exposure-png");
    let out = fogbank(&[
        "check",
        "tests/scenes/tiny.ron",
        "--golden",
        dir.to_str().unwrap(),
        "--exposure",
        "-2",
    ]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--format exr"), "{}", stderr(&out));
    let out = fogbank(&["compare", "a.exr", "b.exr", "--exposure", "inf"]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("stops"), "{}", stderr(&out));
}

#[test]
fn compare_of_two_exr_files_measures_hdr_flip_which_grows_with_a_blur() {
    let dir = temp_dir("compare-hdr-flip");
    std::fs::create_dir_all(&dir).unwrap();
    let (w, h) = (48u32, 32u32);
    // Stripes and a lamp at 16× white.
    let light = |x: u32, y: u32| -> [f32; 3] {
        if (30..38).contains(&x) && (8..16).contains(&y) {
            return [16.0, 14.0, 10.0];
        }
        let v = if (x / 4 + y / 6).is_multiple_of(2) {
            0.7
        } else {
            0.04
        };
        [v, v * 0.9, v * 0.7]
    };
    let blurred = |radius: i32| {
        move |x: u32, y: u32| {
            let mut sum = [0.0f32; 3];
            let mut n = 0.0;
            for dy in -radius..=radius {
                for dx in -radius..=radius {
                    let sx = (x as i32 + dx).clamp(0, w as i32 - 1) as u32;
                    let sy = (y as i32 + dy).clamp(0, h as i32 - 1) as u32;
                    let p = light(sx, sy);
                    for c in 0..3 {
                        sum[c] += p[c];
                    }
                    n += 1.0;
                }
            }
            sum.map(|s| s / n)
        }
    };
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    write_exr(Path::new(&path("ref.exr")), w, h, light);
    write_exr(Path::new(&path("same.exr")), w, h, light);
    write_exr(Path::new(&path("blur1.exr")), w, h, blurred(1));
    write_exr(Path::new(&path("blur2.exr")), w, h, blurred(2));
    // The lamp twice as bright: above white at 0 EV, so only the darker exposures see it.
    write_exr(Path::new(&path("lamp.exr")), w, h, |x, y| {
        light(x, y).map(|v| if v > 8.0 { v * 2.0 } else { v })
    });
    let flip_mean = |other: &str, extra: &[&str]| {
        let out = fogbank(
            &[
                &["compare", &path("ref.exr"), &path(other), "--json"],
                extra,
            ]
            .concat(),
        );
        json(&out)["flip_mean"].as_f64().unwrap()
    };
    assert_eq!(flip_mean("same.exr", &[]), 0.0);
    let (one, two) = (flip_mean("blur1.exr", &[]), flip_mean("blur2.exr", &[]));
    assert!(one > 0.0 && two > one, "blur 1: {one}, blur 2: {two}");

    let out = fogbank(&["compare", &path("ref.exr"), &path("lamp.exr")]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("two EXR files") && stdout(&out).contains("HDR-FLIP over"),
        "{}",
        stdout(&out)
    );
    let lamp = flip_mean("lamp.exr", &[]);
    assert!(lamp > 0.0, "HDR-FLIP sees the lamp above white: {lamp}");
    let limit = format!("{}", lamp / 2.0);
    let out = fogbank(&[
        "compare",
        &path("ref.exr"),
        &path("lamp.exr"),
        "--max-flip",
        &limit,
    ]);
    assert_exit(&out, 3);

    // The report of two EXRs shows them as PNGs.
    let html = dir.join("html");
    let out = fogbank(&[
        "compare",
        &path("ref.exr"),
        &path("blur2.exr"),
        "--report",
        html.to_str().unwrap(),
    ]);
    assert_exit(&out, 3);
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    assert!(!page.contains("cannot read"));
    assert_eq!(
        page.matches(
            "<img class=\"picture\" alt=\"expected\" src=\"data:image/png;base64,iVBORw0KGgo"
        )
        .count(),
        1
    );
}
