//! Tests of the ffmpeg sink: its command line, the padding of odd sizes, real encodes checked
//! with ffprobe and decoded back, and stand-in ffmpegs (shell scripts) that fail late, are
//! killed, or die early, to show what the user is told and that nothing is left behind.

use super::*;
#[cfg(unix)]
use crate::output::video::test_support::fake_ffmpeg;
use crate::output::video::test_support::{
    ffmpeg_tools, moving_gradient, names_in, settings, temp_dir,
};
use crate::output::video::{VideoReport, open_video};
use std::fs;

/// `ffprobe -count_frames` as JSON.
fn probe(ffprobe: &Path, file: &Path) -> serde_json::Value {
    let output = Command::new(ffprobe)
        .args([
            "-v",
            "error",
            "-count_frames",
            "-show_streams",
            "-show_format",
        ])
        .args(["-of", "json"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn encode_clip(path: &Path, format: VideoFormat, width: u32, height: u32) -> VideoReport {
    let mut sink = open_video(path, format, width, height, 10, &settings(10)).unwrap();
    for i in 0..10 {
        sink.push(&moving_gradient(i, width, height)).unwrap();
    }
    sink.finish().unwrap()
}

fn check_probe(ffprobe: &Path, path: &Path, codec: &str, width: u32, height: u32) {
    let info = probe(ffprobe, path);
    let stream = &info["streams"][0];
    assert_eq!(info["streams"].as_array().unwrap().len(), 1, "video only");
    assert_eq!(stream["codec_name"], codec);
    assert_eq!(stream["pix_fmt"], "yuv420p");
    assert_eq!(stream["width"], width);
    assert_eq!(stream["height"], height);
    assert_eq!(stream["nb_read_frames"], "10");
    assert_eq!(stream["color_space"], "bt709");
    assert_eq!(stream["color_primaries"], "bt709");
    assert_eq!(stream["color_transfer"], "bt709");
    let duration: f64 = info["format"]["duration"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((duration - 1.0).abs() < 0.15, "duration {duration}");
}

#[test]
fn ffmpeg_arguments_carry_codec_colour_and_quality() {
    let out = Path::new("/tmp/.clip.mp4.1.tmp");
    let text = |args: Vec<OsString>| {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mp4 = text(ffmpeg_args(VideoFormat::Mp4, 66, 38, &settings(24), out));
    for needle in [
        "-f rawvideo -pix_fmt rgba -video_size 66x38 -framerate 24 -i pipe:0",
        "out_color_matrix=bt709:out_range=tv",
        "-c:v libx264 -preset medium -crf 18",
        "-pix_fmt yuv420p",
        "-colorspace bt709 -color_primaries bt709 -color_trc bt709",
        "-movflags +faststart -f mp4 /tmp/.clip.mp4.1.tmp",
    ] {
        assert!(mp4.contains(needle), "{needle:?} missing from {mp4}");
    }
    let custom = VideoSettings {
        fps: 30,
        crf: Some(40),
        preset: Some("1".into()),
    };
    let webm = text(ffmpeg_args(VideoFormat::WebM, 64, 36, &custom, out));
    assert!(webm.contains("-c:v libvpx-vp9 -crf 40 -b:v 0"), "{webm}");
    assert!(webm.contains("-cpu-used 1") && webm.ends_with("-f webm /tmp/.clip.mp4.1.tmp"));
    assert!(!webm.contains("faststart"));
}

#[test]
fn odd_sizes_are_padded_by_repeating_the_edge() {
    assert_eq!(even_size(65, 37), (66, 38));
    assert_eq!(even_size(64, 36), (64, 36));
    // 3×1 frame, pixels 1, 2, 3 (one byte value each) → 4×2.
    let frame: Vec<u8> = [1u8, 2, 3].iter().flat_map(|&v| [v, v, v, 255]).collect();
    let mut out = Vec::new();
    pad_frame(&frame, 3, 1, 4, 2, &mut out);
    let values: Vec<u8> = out.chunks_exact(4).map(|p| p[0]).collect();
    assert_eq!(values, vec![1, 2, 3, 3, 1, 2, 3, 3]);
}

#[cfg(unix)]
#[test]
fn a_failing_encoder_leaves_nothing_and_quotes_it() {
    // Stands in for ffmpeg failing late (disk full): it writes a partial file at its last
    // argument, reads all input, complains and exits 1.
    let dir = temp_dir("fake-fail");
    let tools = dir.join("tools");
    fs::create_dir_all(&tools).unwrap();
    let fake = fake_ffmpeg(
        &tools,
        "for a; do last=$a; done\n\
         echo partial > \"$last\"\n\
         cat > /dev/null\n\
         echo 'av_interleaved_write_frame(): No space left on device' >&2\n\
         exit 1",
    );
    let target = dir.join("clip.mp4");
    let pending = PendingFile::new(&target);
    let mut sink =
        FfmpegSink::spawn(&fake, pending, VideoFormat::Mp4, 9, 5, &settings(10)).unwrap();
    for i in 0..3 {
        sink.push(&moving_gradient(i, 9, 5)).unwrap();
    }
    let err = Box::new(sink).finish().unwrap_err();
    let text = err.to_string();
    assert!(text.contains("exited with code 1"), "{text}");
    assert!(text.contains("No space left on device"), "{text}");
    assert_eq!(names_in(&dir), vec!["tools".to_string()]);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_killed_encoder_is_reported_and_cleaned_up() {
    let dir = temp_dir("fake-killed");
    let tools = dir.join("tools");
    fs::create_dir_all(&tools).unwrap();
    let fake = fake_ffmpeg(
        &tools,
        "for a; do last=$a; done\n\
         echo partial > \"$last\"\n\
         cat > /dev/null\n\
         kill -KILL $$",
    );
    let target = dir.join("clip.mp4");
    let mut sink = FfmpegSink::spawn(
        &fake,
        PendingFile::new(&target),
        VideoFormat::Mp4,
        8,
        8,
        &settings(10),
    )
    .unwrap();
    sink.push(&moving_gradient(0, 8, 8)).unwrap();
    let text = Box::new(sink).finish().unwrap_err().to_string();
    assert!(text.contains("was killed by signal 9"), "{text}");
    assert_eq!(names_in(&dir), vec!["tools".to_string()]);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn an_encoder_that_dies_early_fails_the_next_push() {
    let dir = temp_dir("fake-die");
    let tools = dir.join("tools");
    fs::create_dir_all(&tools).unwrap();
    let fake = fake_ffmpeg(&tools, "echo 'Unknown encoder' >&2\nexit 8");
    let target = dir.join("clip.webm");
    let mut sink = FfmpegSink::spawn(
        &fake,
        PendingFile::new(&target),
        VideoFormat::WebM,
        64,
        64,
        &settings(10),
    )
    .unwrap();
    // The pipe holds some frames before the closed end shows; a few pushes reach it.
    let mut failure = None;
    for i in 0..50 {
        if let Err(err) = sink.push(&moving_gradient(i, 64, 64)) {
            failure = Some(err);
            break;
        }
    }
    let text = failure
        .expect("a push fails once ffmpeg is gone")
        .to_string();
    assert!(
        text.contains("exited with code 8") && text.contains("Unknown encoder"),
        "{text}"
    );
    drop(sink);
    assert_eq!(names_in(&dir), vec!["tools".to_string()]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mp4_and_webm_have_the_right_streams() {
    let Some((_, ffprobe)) = ffmpeg_tools("mp4_and_webm_have_the_right_streams") else {
        return;
    };
    let dir = temp_dir("encode");
    for (format, codec) in [(VideoFormat::Mp4, "h264"), (VideoFormat::WebM, "vp9")] {
        for (width, height) in [(64, 36), (65, 37)] {
            let path = dir.join(format!("clip_{width}.{}", format.extension()));
            let report = encode_clip(&path, format, width, height);
            let (even_w, even_h) = even_size(width, height);
            assert_eq!((report.width, report.height), (even_w, even_h));
            assert_eq!(report.frames_written, 10);
            assert_eq!(report.bytes, fs::metadata(&path).unwrap().len());
            check_probe(&ffprobe, &path, codec, even_w, even_h);
        }
    }
    assert_eq!(
        names_in(&dir),
        vec!["clip_64.mp4", "clip_64.webm", "clip_65.mp4", "clip_65.webm"]
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mp4_colours_survive_the_rec709_round_trip() {
    let Some((ffmpeg, _)) = ffmpeg_tools("mp4_colours_survive_the_rec709_round_trip") else {
        return;
    };
    // A saturated colour: decoding with the wrong matrix (Rec. 601) moves it by > 10.
    let colour = [200u8, 30, 60, 255];
    let (width, height) = (32, 32);
    let dir = temp_dir("colour");
    let path = dir.join("flat.mp4");
    let mut sink = open_video(&path, VideoFormat::Mp4, width, height, 3, &settings(10)).unwrap();
    for i in 0..3 {
        sink.push(&Frame {
            frame_index: i,
            width,
            height,
            rgba8: colour.repeat((width * height) as usize).into(),
            linear_f16: None,
            fog_f16: None,
            weather_f16: None,
        })
        .unwrap();
    }
    sink.finish().unwrap();
    let output = Command::new(&ffmpeg)
        .args(["-v", "error", "-i"])
        .arg(&path)
        .args([
            "-vf",
            "scale=in_color_matrix=bt709:in_range=tv",
            "-frames:v",
            "1",
        ])
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let centre = ((16 * width + 16) * 3) as usize;
    let decoded = &output.stdout[centre..centre + 3];
    for c in 0..3 {
        let diff = (decoded[c] as i32 - colour[c] as i32).abs();
        assert!(diff <= 4, "channel {c}: {decoded:?} vs {colour:?}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_ffmpeg_leaves_no_file_and_says_why() {
    let Some((ffmpeg, _)) = ffmpeg_tools("a_failing_ffmpeg_leaves_no_file_and_says_why") else {
        return;
    };
    let dir = temp_dir("bad-preset");
    let target = dir.join("clip.mp4");
    let bad = VideoSettings {
        fps: 10,
        crf: None,
        preset: Some("bogus".into()),
    };
    // open_video refuses this preset up front; go round it to see ffmpeg's own failure.
    assert!(open_video(&target, VideoFormat::Mp4, 64, 36, 10, &bad).is_err());
    let pending = PendingFile::new(&target);
    let mut sink = FfmpegSink::spawn(&ffmpeg, pending, VideoFormat::Mp4, 64, 36, &bad).unwrap();
    let mut result = Ok(());
    for i in 0..10 {
        result = sink.push(&moving_gradient(i, 64, 36));
        if result.is_err() {
            break;
        }
    }
    let err = match result {
        Err(err) => err,
        Ok(()) => Box::new(sink).finish().unwrap_err(),
    };
    let text = err.to_string();
    assert!(text.contains("ffmpeg exited with code"), "{text}");
    assert!(
        text.contains("bogus"),
        "ffmpeg's own message is quoted: {text}"
    );
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dropping_an_unfinished_video_stops_ffmpeg_and_cleans_up() {
    let Some(_) = ffmpeg_tools("dropping_an_unfinished_video_stops_ffmpeg_and_cleans_up") else {
        return;
    };
    let dir = temp_dir("drop");
    let target = dir.join("clip.mp4");
    let mut sink = open_video(&target, VideoFormat::Mp4, 64, 36, 10, &settings(10)).unwrap();
    for i in 0..3 {
        sink.push(&moving_gradient(i, 64, 36)).unwrap();
    }
    assert_eq!(
        names_in(&dir).len(),
        1,
        "the hidden temporary file exists meanwhile"
    );
    drop(sink);
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tail_keeps_the_last_lines() {
    let text = b"one\n\ntwo\nthree\nfour" as &[u8];
    assert_eq!(tail_lines(text, 2), vec!["three", "four"]);
    assert_eq!(tail_lines(text, 10), vec!["one", "two", "three", "four"]);
}
