//! Render farms: `--chunk` slices whose files together equal one full render (with and without
//! a simulation cache, from flags and from a Slurm array's environment), `--skip-existing`
//! resuming a damaged folder, `--threads` and `--gpu`; and `simulate --probe` kept inside the
//! fog area.

mod common;

use common::{assert_exit, fogbank, fogbank_env, fogbank_ok, require_gpu, stderr, temp_dir};
use std::path::Path;

const TINY: &str = "tests/scenes/tiny.ron";

/// `fogbank render --quiet tests/scenes/tiny.ron --size 32x18 --out DIR ARGS…` with `env`.
#[track_caller]
fn render_tiny(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let base = [
        "render",
        "--quiet",
        TINY,
        "--size",
        "32x18",
        "--out",
        dir.to_str().unwrap(),
    ];
    let out = fogbank_env(&[&base[..], args].concat(), env);
    common::assert_success(&out, &format!("render {}", args.join(" ")));
    out
}

#[track_caller]
fn assert_same_files(expected: &Path, actual: &Path) {
    let names = common::file_names(expected);
    assert_eq!(names.len(), 12, "{names:?}");
    assert_eq!(names, common::file_names(actual));
    for name in names {
        assert!(
            std::fs::read(expected.join(&name)).unwrap()
                == std::fs::read(actual.join(&name)).unwrap(),
            "{name} differs"
        );
    }
}

#[test]
fn chunks_together_give_the_full_render_with_and_without_a_cache() {
    require_gpu!();
    let (full, chunked, cached, cache) = (
        temp_dir("farm-full"),
        temp_dir("farm-chunked"),
        temp_dir("farm-cached"),
        temp_dir("farm-cache"),
    );
    render_tiny(&full, &[], &[]);
    for chunk in ["0/3", "1/3", "2/3"] {
        render_tiny(&chunked, &["--chunk", chunk], &[]);
    }
    assert_same_files(&full, &chunked);

    fogbank_ok(&[
        "simulate",
        "--quiet",
        TINY,
        "--cache",
        cache.to_str().unwrap(),
        "--cache-every",
        "2",
    ]);
    for chunk in ["0/3", "1/3", "2/3"] {
        render_tiny(
            &cached,
            &["--chunk", chunk, "--cache", cache.to_str().unwrap()],
            &[],
        );
    }
    assert_same_files(&full, &cached);
}

#[test]
fn chunk_auto_reads_slurm_and_indexed_job_environments() {
    require_gpu!();
    let (slurm, indexed) = (temp_dir("farm-slurm"), temp_dir("farm-indexed"));
    render_tiny(
        &slurm,
        &["--chunk", "auto"],
        &[
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
    );
    assert_eq!(
        common::file_names(&slurm),
        [
            "frame_0004.png",
            "frame_0005.png",
            "frame_0006.png",
            "frame_0007.png"
        ]
    );
    render_tiny(
        &indexed,
        &["--chunk", "auto", "--chunks", "5", "--frames", "2..12"],
        &[("JOB_COMPLETION_INDEX", "4")],
    );
    assert_eq!(
        common::file_names(&indexed),
        ["frame_0010.png", "frame_0011.png"]
    );
}

#[test]
fn bad_chunks_are_refused_naming_the_flag() {
    for (chunk, env) in [
        ("0/0", &[][..]),
        ("5/4", &[]),
        ("x/3", &[]),
        ("3", &[]),
        ("auto", &[]),
        ("auto", &[("JOB_COMPLETION_INDEX", "1")]),
        ("auto", &[("SLURM_ARRAY_TASK_ID", "one")]),
    ] {
        let dir = temp_dir("farm-bad");
        let out = fogbank_env(
            &[
                "render",
                TINY,
                "--chunk",
                chunk,
                "--out",
                dir.to_str().unwrap(),
            ],
            env,
        );
        assert_exit(&out, 2);
        assert!(stderr(&out).contains("--chunk"), "{}", stderr(&out));
        assert!(!dir.exists(), "{chunk} wrote something");
    }
}

#[test]
fn an_empty_chunk_renders_nothing_and_says_so() {
    let dir = temp_dir("farm-empty");
    let out = fogbank(&[
        "render",
        TINY,
        "--chunk",
        "12/20",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    assert!(stderr(&out).contains("no frames"), "{}", stderr(&out));
    assert!(!dir.exists());
}

#[test]
fn skip_existing_renders_only_missing_and_damaged_frames() {
    require_gpu!();
    let (full, resumed) = (temp_dir("farm-resume-full"), temp_dir("farm-resumed"));
    render_tiny(&full, &[], &[]);
    render_tiny(&resumed, &[], &[]);
    let five = resumed.join("frame_0005.png");
    let bytes = std::fs::read(&five).unwrap();
    std::fs::write(&five, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(resumed.join("frame_0007.png")).unwrap();
    let mtime = |name: &str| {
        std::fs::metadata(resumed.join(name))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before: Vec<_> = common::file_names(&resumed)
        .iter()
        .map(|name| (name.clone(), mtime(name)))
        .collect();
    let out = render_tiny(&resumed, &["--skip-existing", "--json"], &[]);
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["skipped"], 10, "{summary}");
    assert_eq!(summary["frames"], 2, "{summary}");
    assert_eq!(summary["hashes"].as_array().unwrap().len(), 12);
    assert_same_files(&full, &resumed);
    for (name, time) in before {
        if name != "frame_0005.png" {
            assert_eq!(mtime(&name), time, "{name} was written again");
        }
    }
}

#[test]
fn one_thread_gives_the_same_bytes_and_hashes() {
    require_gpu!();
    let (default, single) = (temp_dir("farm-threads-n"), temp_dir("farm-threads-1"));
    let hashes = |out: std::process::Output| {
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        summary["hashes"].clone()
    };
    let a = hashes(render_tiny(&default, &["--json"], &[]));
    let b = hashes(render_tiny(&single, &["--json", "--threads", "1"], &[]));
    assert_eq!(a, b);
    assert_same_files(&default, &single);
}

#[test]
fn gpu_index_picks_an_adapter_or_names_the_flag() {
    require_gpu!();
    let dir = temp_dir("farm-gpu");
    render_tiny(&dir, &["--gpu", "0", "--frames", "0"], &[]);
    assert_eq!(common::file_names(&dir), ["frame_0000.png"]);
    let out = fogbank(&[
        "render",
        TINY,
        "--gpu",
        "99",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--gpu 99"), "{}", stderr(&out));
    let out = fogbank_env(
        &["render", TINY, "--out", dir.to_str().unwrap()],
        &[("FOGBANK_GPU", "99")],
    );
    assert_exit(&out, 2);
}

#[test]
fn a_probe_outside_the_fog_area_names_the_flag_and_the_bounds() {
    // tiny.ron keeps the default fog area, 22 units: x and z in -11..=11.
    let out = fogbank(&["simulate", TINY, "--frames", "0", "--probe", "30,0"]);
    assert_exit(&out, 2);
    let text = stderr(&out);
    assert!(
        text.contains("--probe 30,0") && text.contains("-11..=11"),
        "{text}"
    );
    assert!(text.contains("--set fog.area="), "{text}");
    fogbank_ok(&[
        "simulate", "--quiet", TINY, "--frames", "0", "--probe", "11,-11",
    ]);
}

#[test]
fn skip_existing_checks_exr_frames_and_fog_layers() {
    require_gpu!();
    let dir = temp_dir("farm-resume-exr");
    let exr = ["--format", "exr", "--layers", "--frames", "0..4"];
    render_tiny(&dir, &exr, &[]);
    let fog = dir.join("fog_0002.exr");
    let intact = std::fs::read(&fog).unwrap();
    std::fs::write(&fog, &intact[..intact.len() - 16]).unwrap();
    let out = render_tiny(
        &dir,
        &[&exr[..], &["--skip-existing", "--json"]].concat(),
        &[],
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (&summary["frames"], &summary["skipped"]),
        (&1.into(), &3.into())
    );
    assert_eq!(std::fs::read(&fog).unwrap(), intact);
}

#[test]
fn simulate_gives_the_same_hashes_on_one_thread() {
    let run = |extra: &[&str]| {
        common::stdout(&fogbank_ok(
            &[&["simulate", "--quiet", "--json", TINY][..], extra].concat(),
        ))
    };
    assert_eq!(run(&[]), run(&["--threads", "1"]));
}
