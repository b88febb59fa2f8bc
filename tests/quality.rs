//! `fogbank quality`: the sheets measured against the raymarch reference — the JSON report's
//! rows, the pictures, heat maps and chart it writes, more sheets coming closer to the
//! reference, and bad `--sheets` and `--steps` refused before any work.

mod common;

use common::{assert_exit, file_names, fogbank, fogbank_ok, require_gpu, stderr, temp_dir};

#[test]
fn quality_reports_every_setting_and_writes_its_pictures() {
    require_gpu!();
    let dir = temp_dir("quality");
    let d = dir.to_str().unwrap();
    let out = fogbank_ok(&[
        "quality",
        "tests/scenes/tiny.ron",
        "--frames",
        "6",
        "--size",
        "64x36",
        "--sheets",
        "48,8",
        "--steps",
        "64",
        "--json",
        "--quiet",
        "--out",
        d,
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["width"], 64);
    assert_eq!(report["steps"], 64);
    assert_eq!(report["frames"], serde_json::json!([6]));
    let rows = report["rows"].as_array().unwrap();
    let settings: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["compositor"].as_str().unwrap().to_string(),
                r["sheets"].as_u64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("raster", 8),
        ("raster", 48),
        ("compute", 8),
        ("compute", 48),
    ];
    assert_eq!(
        settings,
        expected.map(|(c, s)| (c.to_string(), s)).to_vec(),
        "sheet counts are sorted, compositor by compositor"
    );
    let mean = |i: usize| rows[i]["mean_error"].as_f64().unwrap();
    for (few, many) in [(0, 1), (2, 3)] {
        assert!(
            mean(many) < mean(few),
            "48 sheets no closer than 8: {rows:?}"
        );
        assert!(rows[many]["ssim"].as_f64().unwrap() > 0.99);
        assert!(rows[many]["frame_time_ms"].as_f64().unwrap() > 0.0);
    }

    let files = file_names(&dir);
    for name in [
        "chart.png",
        "reference_0006.png",
        "raster_008_0006.png",
        "raster_008_0006.diff.png",
        "compute_048_0006.png",
        "compute_048_0006.diff.png",
    ] {
        assert!(
            files.contains(&name.to_string()),
            "{name} missing: {files:?}"
        );
    }
    assert_eq!(files.len(), 10, "{files:?}");
}

#[test]
fn bad_sheet_counts_and_stray_steps_are_refused() {
    for sheets in ["0", "8,x", "600"] {
        let out = fogbank(&["quality", "--frames", "0", "--sheets", sheets]);
        assert_exit(&out, 2);
        assert!(stderr(&out).contains("--sheets"), "{}", stderr(&out));
    }
    // `--steps` belongs to the raymarch.
    let dir = temp_dir("stray-steps");
    let file = dir.join("x.png");
    let out = fogbank(&[
        "still",
        "--frame",
        "0",
        "--steps",
        "8",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert_exit(&out, 2);
    assert!(
        stderr(&out).contains("--compositor raymarch"),
        "{}",
        stderr(&out)
    );
    assert!(!file.exists());
}

#[test]
fn quality_with_samples_measures_every_row_and_the_reference_with_them() {
    require_gpu!();
    let run = |samples: &str| {
        let out = fogbank_ok(&[
            "quality",
            "tests/scenes/tiny.ron",
            "--frames",
            "6",
            "--size",
            "64x36",
            "--sheets",
            "16,8",
            "--steps",
            "64",
            "--samples",
            samples,
            "--json",
            "--quiet",
        ]);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (single, sampled) = (run("1"), run("8"));
    assert_eq!(single["samples"], 1);
    assert_eq!(sampled["samples"], 8);
    let rows = |report: &serde_json::Value| -> Vec<(String, u64, f64)> {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let compositor = r["compositor"].as_str().unwrap().to_string();
                let sheets = r["sheets"].as_u64().unwrap();
                (compositor, sheets, r["mean_error"].as_f64().unwrap())
            })
            .collect()
    };
    let order = |rows: &[(String, u64, f64)]| -> Vec<(String, u64)> {
        rows.iter().map(|(c, s, _)| (c.clone(), *s)).collect()
    };
    let expected: Vec<(String, u64)> = [
        ("raster", 8),
        ("raster", 16),
        ("compute", 8),
        ("compute", 16),
    ]
    .map(|(c, s)| (c.to_string(), s))
    .to_vec();
    let (single_rows, sampled_rows) = (rows(&single), rows(&sampled));
    assert_eq!(
        order(&sampled_rows),
        expected,
        "rows in order, compositor by compositor"
    );
    // With eight sheets the steps between them dominate the error; eight samples, each with
    // its sheets at another height in their slabs, bring the fog closer to the reference.
    for i in [0, 2] {
        let (one, eight) = (single_rows[i].2, sampled_rows[i].2);
        let compositor = &single_rows[i].0;
        assert!(
            eight < 0.75 * one,
            "{compositor}, 8 sheets: 8 samples {eight} against 1 sample {one}"
        );
    }
}
