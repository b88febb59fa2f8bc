//! EXR output on a GPU adapter (lavapipe in CI): `--format exr` writes the linear target with
//! light above 1.0, `--layers` adds a premultiplied fog layer that composites back to the frame
//! and, on a scene with weather, a premultiplied weather layer with the bolt and the rain,
//! and `--layers` without EXR frames is refused before rendering.

mod common;

use common::exr::read_exr;
use common::{assert_exit, fogbank, render_ok, require_gpu, stderr, temp_dir};
use fogbank::color::linear_to_srgb8;
use std::path::Path;

/// `--format exr` writes the renderer's linear half-float target itself: the same picture as
/// the PNG of the frame (encoded to sRGB it is within one level of it: the GPU's sRGB store may
/// round the other way at a level boundary), opaque, and with the light above 1.0 that the
/// PNG clips (the temple's flames at half a second).
#[test]
fn exr_frames_are_the_linear_target_with_values_above_one() {
    require_gpu!();
    let (exr_dir, png_dir) = (temp_dir("exr-linear"), temp_dir("exr-linear-png"));
    let base = ["--frames", "30", "--size", "160x90"];
    render_ok(
        &[
            &base[..],
            &["--format", "exr", "--out", exr_dir.to_str().unwrap()],
        ]
        .concat(),
    );
    render_ok(&[&base[..], &["--out", png_dir.to_str().unwrap()]].concat());
    let (w, h, linear) = read_exr(&exr_dir.join("frame_0030.exr"));
    assert_eq!((w, h), (160, 90));
    let srgb = image::open(png_dir.join("frame_0030.png"))
        .unwrap()
        .to_rgba8();
    for (i, (pixel, png)) in linear.chunks_exact(4).zip(srgb.pixels()).enumerate() {
        assert_eq!(pixel[3], 1.0, "alpha of pixel {i}");
        for c in 0..3 {
            let encoded = linear_to_srgb8(pixel[c]);
            assert!(
                encoded.abs_diff(png[c]) <= 1,
                "pixel {i} channel {c}: linear {} encodes to {encoded}, the PNG has {}",
                pixel[c],
                png[c]
            );
        }
    }
    let brightest = linear
        .chunks_exact(4)
        .flat_map(|p| p[..3].iter().copied())
        .fold(0.0f32, f32::max);
    assert!(
        brightest > 1.0,
        "no value above 1.0 survives in a frame with fires (brightest {brightest})"
    );
    // More than a handful of pixels: the flames' cores, not a stray rounding.
    let hot = linear
        .chunks_exact(4)
        .filter(|p| p[..3].iter().any(|&v| v > 1.0))
        .count();
    eprintln!("brightest linear value {brightest}, {hot} pixels above 1.0");
    assert!(hot >= 4, "only {hot} pixels above 1.0");
}

/// `--layers` adds `fog_NNNN.exr`: premultiplied (no colour above its alpha in this scene
/// without fires), transparent black where there is no fog (all of it with `fog.sigma=0`), and
/// over the frame rendered with `fog.sigma=0` it gives back the frame. The frame itself is the
/// same with or without `--layers`. The composite tolerance (1 % of max(1, value)) is
/// explained in src/gpu/tests/layers.rs: both sides round to half floats after every sheet.
#[test]
fn fog_layer_is_premultiplied_transparent_without_fog_and_composites_to_the_frame() {
    require_gpu!();
    let (with, without, clear) = (
        temp_dir("layers"),
        temp_dir("layers-none"),
        temp_dir("layers-clear"),
    );
    let base = ["tests/scenes/tiny.ron", "--frames", "5", "--format", "exr"];
    render_ok(&[&base[..], &["--layers", "--out", with.to_str().unwrap()]].concat());
    // The layers are single-sample pictures, so the frame they leave alone is one sample's.
    let single = ["--samples", "1", "--out", without.to_str().unwrap()];
    render_ok(&[&base[..], &single[..]].concat());
    let fogless = [
        "--set",
        "fog.sigma=0",
        "--layers",
        "--out",
        clear.to_str().unwrap(),
    ];
    render_ok(&[&base[..], &fogless[..]].concat());

    assert_eq!(
        std::fs::read(with.join("frame_0005.exr")).unwrap(),
        std::fs::read(without.join("frame_0005.exr")).unwrap(),
        "--layers changed the frame"
    );
    assert!(!without.join("fog_0005.exr").exists());
    // The tiny scene has no weather: no weather layer.
    assert!(!with.join("weather_0005.exr").exists());

    let (w, h, layer) = read_exr(&with.join("fog_0005.exr"));
    assert_eq!((w, h), (160, 90));
    let covered = layer.chunks_exact(4).filter(|p| p[3] > 0.5).count();
    assert!(covered > 160 * 90 / 10, "only {covered} pixels of fog");
    for (i, p) in layer.chunks_exact(4).enumerate() {
        assert!(
            (0.0..=1.0).contains(&p[3]) && p[..3].iter().all(|&c| c >= 0.0 && c <= p[3] + 2e-3),
            "fog layer pixel {i} is not premultiplied: {p:?}"
        );
    }

    let (_, _, empty) = read_exr(&clear.join("fog_0005.exr"));
    assert!(
        empty.iter().all(|&v| v == 0.0),
        "with fog.sigma=0 the fog layer is not transparent black everywhere"
    );

    let (_, _, beauty) = read_exr(&with.join("frame_0005.exr"));
    let (_, _, hall) = read_exr(&clear.join("frame_0005.exr"));
    for (i, ((l, u), b)) in layer
        .chunks_exact(4)
        .zip(hall.chunks_exact(4))
        .zip(beauty.chunks_exact(4))
        .enumerate()
    {
        for c in 0..3 {
            let composite = l[c] + u[c] * (1.0 - l[3]);
            assert!(
                (composite - b[c]).abs() < 0.01 * b[c].abs().max(1.0),
                "pixel {i} channel {c}: fog layer over the fogless frame gives {composite}, \
                 the frame has {}",
                b[c]
            );
        }
    }
}

/// `--layers` needs EXR (PNG has no room for linear light with alpha) and frames to sit
/// beside; both mistakes are bad input (exit 2) named before anything is rendered.
#[test]
fn layers_without_exr_frames_are_refused() {
    let dir = temp_dir("layers-png");
    let d = dir.to_str().unwrap();
    let out = fogbank(&["render", "--frames", "0", "--layers", "--out", d]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--format exr"), "{}", stderr(&out));
    let out = fogbank(&[
        "render",
        "--frames",
        "0",
        "--format",
        "exr",
        "--layers",
        "--no-frames",
        "--video",
        "clip.gif",
        "--out",
        d,
    ]);
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--no-frames"), "{}", stderr(&out));
    assert!(!dir.exists());
    assert!(!Path::new("clip.gif").exists());
}

/// `--exr-compression` changes how the file is stored, never its pixels: each choice holds
/// the same halves, and each is recorded in the file's header.
#[test]
fn every_exr_compression_holds_the_same_pixels() {
    require_gpu!();
    let mut pictures = Vec::new();
    let mut sizes = Vec::new();
    for kind in ["none", "rle", "zip", "piz"] {
        let dir = temp_dir(&format!("exr-compression-{kind}"));
        render_ok(&[
            "--frames",
            "30",
            "--size",
            "96x54",
            "--format",
            "exr",
            "--exr-compression",
            kind,
            "--out",
            dir.to_str().unwrap(),
        ]);
        let file = dir.join("frame_0030.exr");
        let bytes = std::fs::read(&file).unwrap();
        let meta =
            exr::meta::MetaData::read_from_buffered(std::io::Cursor::new(&bytes), false).unwrap();
        let stored = format!("{:?}", meta.headers[0].compression).to_lowercase();
        let expected = if kind == "none" { "uncompressed" } else { kind };
        assert!(stored.starts_with(expected), "{kind}: header says {stored}");
        sizes.push(bytes.len());
        pictures.push(read_exr(&file));
    }
    for (kind, picture) in ["rle", "zip", "piz"].iter().zip(&pictures[1..]) {
        assert!(
            picture
                .2
                .iter()
                .map(|v| v.to_bits())
                .eq(pictures[0].2.iter().map(|v| v.to_bits())),
            "{kind} changed the pixels"
        );
    }
    assert!(sizes[1..].iter().all(|&size| size < sizes[0]), "{sizes:?}");
}

/// On the storm, `--layers` adds `weather_NNNN.exr`: at frame 392, just after the first strike,
/// it holds the bolt (its white-hot core, where the frame is at least as bright), at 480 the
/// rain; both premultiplied, transparent black where nothing falls, and the frames are the
/// same bytes as without `--layers`. (A coarse fluid grid keeps the 480 steps quick; the
/// weather does not depend on it.)
#[test]
fn storm_weather_layer_holds_the_bolt_and_the_rain() {
    require_gpu!();
    let (with, without) = (temp_dir("weather-layer"), temp_dir("weather-layer-none"));
    let base = [
        "scenes/storm.ron",
        "--frames",
        "392,480",
        "--size",
        "160x90",
        "--set",
        "fluid.grid=32",
        "--format",
        "exr",
    ];
    render_ok(&[&base[..], &["--layers", "--out", with.to_str().unwrap()]].concat());
    // The layers are single-sample pictures, so the frame they leave alone is one sample's.
    let single = ["--samples", "1", "--out", without.to_str().unwrap()];
    render_ok(&[&base[..], &single[..]].concat());
    for frame in ["0392", "0480"] {
        assert_eq!(
            std::fs::read(with.join(format!("frame_{frame}.exr"))).unwrap(),
            std::fs::read(without.join(format!("frame_{frame}.exr"))).unwrap(),
            "--layers changed frame {frame}"
        );
        assert!(with.join(format!("fog_{frame}.exr")).exists());
        assert!(!without.join(format!("weather_{frame}.exr")).exists());
    }
    // The brightest thing the weather draws: the bolt's core, linear (src/gpu/passes/bolt.rs).
    const CORE_LINEAR_MAX: f32 = 7.5;
    let premultiplied = |layer: &[f32], frame: &str| {
        for (i, p) in layer.chunks_exact(4).enumerate() {
            assert!(
                (0.0..=1.0).contains(&p[3])
                    && p[..3]
                        .iter()
                        .all(|&c| c >= 0.0 && c <= p[3] * CORE_LINEAR_MAX * 1.002 + 1e-4),
                "weather layer {frame} pixel {i} is not premultiplied: {p:?}"
            );
        }
    };

    let (w, h, struck) = read_exr(&with.join("weather_0392.exr"));
    assert_eq!((w, h), (160, 90));
    premultiplied(&struck, "0392");
    let (_, _, beauty) = read_exr(&with.join("frame_0392.exr"));
    // The bolt's white-hot core in the layer: green above twice the alpha, which only the core
    // gives (the blue edge's green is at most 1.1 times its alpha, the core's 6 times; the
    // rain's far less). The frame adds the bolt to what is behind it, so there it is at least
    // as bright as the layer: the bolt the layer holds is the one the frame shows.
    let mut core = 0;
    for (i, (l, b)) in struck
        .chunks_exact(4)
        .zip(beauty.chunks_exact(4))
        .enumerate()
    {
        if l[3] > 0.0 && l[1] > 2.0 * l[3] {
            core += 1;
            assert!(
                (0..3).all(|c| b[c] >= l[c] * 0.998),
                "the layer's bolt at pixel {i} ({l:?}) is brighter than the frame ({b:?})"
            );
        }
    }
    eprintln!("bolt core pixels in frame 392: {core}");
    assert!(core > 0, "no bolt in the weather layer of frame 392");
    let empty = struck.chunks_exact(4).filter(|p| *p == [0.0; 4]).count();
    assert!(
        empty > w as usize * h as usize / 2,
        "only {empty} transparent pixels in the weather layer of frame 392"
    );

    let (_, _, rain) = read_exr(&with.join("weather_0480.exr"));
    premultiplied(&rain, "0480");
    let drops = rain.chunks_exact(4).filter(|p| p[3] > 0.0).count();
    eprintln!("rain pixels in frame 480: {drops}");
    assert!(drops > 100, "only {drops} pixels of rain in the storm");
}
