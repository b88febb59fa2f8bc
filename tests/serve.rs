//! `fogbank watch --serve` in a real browser. The test starts `watch` with its preview page,
//! opens the page in Debian's headless Chromium (driven through the DevTools protocol on a
//! pipe), edits the scene, and sees the page show the new picture by itself within a second
//! of the render (the screenshots differ), then the scene's error in place after a broken
//! save. The server answers only its own paths: a path reaching outside the output folder is a
//! 404. For a clip (`--frames`), the page steps through the frames with its buttons, slider
//! and play, each frame one of the files `watch` wrote, and updates itself the same way; a
//! frame the clip does not hold is a 404. Without Chromium the browser tests are skipped
//! locally and fail under CI.

mod common;

use common::{in_ci, report_skip, require_gpu, send_signal, temp_dir};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

fn scene_text(fog_color: &str) -> String {
    format!(
        "(\n    name: \"served\",\n    output: (width: 160, height: 90, fps: 30, frames: 12),\n    \
         camera: Fixed(position: (0.0, 4.0, 9.0), target: (0.0, 0.5, 0.0)),\n    \
         fluid: (grid: 32),\n    fog: (sheets: 12, color: {fog_color}),\n)\n"
    )
}

/// `fogbank watch --serve` and the lines of its stderr.
struct Served {
    child: Child,
    lines: Receiver<String>,
    addr: String,
}

impl Served {
    fn start(scene: &Path, out: &Path) -> Served {
        Served::start_with(scene, out, ["--frame", "20"], "320x180")
    }

    /// Watches `scene` rendering `what` (`--frame N` or `--frames RANGE`) at `size`.
    fn start_with(scene: &Path, out: &Path, what: [&str; 2], size: &str) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fogbank"))
            .args(["watch", scene.to_str().unwrap()])
            .args(what)
            .arg("--out")
            .arg(out)
            .args(["--size", size, "--quiet", "--serve"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting fogbank watch --serve");
        let stderr = child.stderr.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = sender.send(line);
            }
        });
        let mut served = Served {
            child,
            lines,
            addr: String::new(),
        };
        let line = served.line_starting("serving the preview page on http://");
        served.addr = line
            .trim_start_matches("serving the preview page on http://")
            .trim_end_matches('/')
            .to_string();
        served
    }

    fn line_starting(&self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no line `{prefix}…`: {e}"));
            if line.starts_with(prefix) {
                return line;
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        send_signal(self.child.id(), "INT");
        let _ = self.child.wait();
    }
}

/// The status line and body of `GET path` (sent as written, dots and all).
fn get(addr: &str, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).unwrap();
    // HTTP/1.0: the body comes whole, not in chunks.
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&response[..split]).to_string();
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, response[split + 4..].to_vec())
}

#[test]
fn the_server_serves_only_the_page_and_its_pictures() {
    require_gpu!();
    let dir = temp_dir("serve-paths");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("out").join("still.png"));
    std::fs::write(&scene, scene_text("(0.6, 0.65, 0.7)")).unwrap();
    let served = Served::start(&scene, &out);
    served.line_starting("turn 1");
    assert!(served.addr.starts_with("127.0.0.1:"), "{}", served.addr);
    let (status, page) = get(&served.addr, "/");
    assert!(status.contains(" 200 "), "{status}");
    assert!(String::from_utf8_lossy(&page).contains("EventSource"));
    let (status, png) = get(&served.addr, "/still.png");
    assert!(status.contains(" 200 "), "{status}");
    assert!(png == std::fs::read(&out).unwrap(), "the picture on disk");
    for outside in [
        "/../scene.ron",
        "/%2e%2e/scene.ron",
        "/scene.ron",
        "/still.png/../../scene.ron",
        "/etc/passwd",
        "/out/still.png",
    ] {
        let (status, body) = get(&served.addr, outside);
        assert!(status.contains(" 404 "), "{outside}: {status}");
        assert!(
            !String::from_utf8_lossy(&body).contains("fog:"),
            "{outside}"
        );
    }
}

/// Headless Chromium driven through the DevTools protocol on a pipe: the browser reads
/// commands on its fd 3 and writes replies on fd 4, which the shell maps from its stdin and
/// stdout.
struct Browser {
    child: Child,
    commands: ChildStdin,
    replies: ChildStdout,
    buffer: Vec<u8>,
    next_id: u64,
    session: String,
}

impl Browser {
    fn open(url: &str) -> Browser {
        let script = format!(
            "exec chromium --headless --no-sandbox --disable-gpu --remote-debugging-pipe \
             --window-size=400,300 '{url}' 3<&0 4>&1 0</dev/null 1>/dev/null 2>/dev/null"
        );
        let mut child = Command::new("bash")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starting chromium");
        let (commands, replies) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        let mut browser = Browser {
            child,
            commands,
            replies,
            buffer: Vec::new(),
            next_id: 0,
            session: String::new(),
        };
        let targets = browser.call("Target.getTargets", json!({}));
        let page = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .unwrap_or_else(|| panic!("no page target: {targets}"))["targetId"]
            .clone();
        let attached = browser.call(
            "Target.attachToTarget",
            json!({"targetId": page, "flatten": true}),
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        browser
    }

    /// Sends a command (in the page's session once attached) and returns its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).unwrap();
        self.commands.flush().unwrap();
        loop {
            while let Some(end) = self.buffer.iter().position(|&b| b == 0) {
                let reply: Value = serde_json::from_slice(&self.buffer[..end]).unwrap();
                self.buffer.drain(..=end);
                if reply["id"] == id {
                    assert!(reply.get("error").is_none(), "{method}: {reply}");
                    return reply["result"].clone();
                }
            }
            let mut chunk = [0u8; 65536];
            let n = self.replies.read(&mut chunk).unwrap();
            assert!(n > 0, "chromium closed its pipe");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        );
        result["result"]["value"].clone()
    }

    /// Waits until the page's `expression` is true, and returns how long that took.
    fn wait_for(&mut self, expression: &str) -> Duration {
        let started = Instant::now();
        while self.eval(expression) != json!(true) {
            let page = self.eval("document.body.innerText");
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the page never showed `{expression}`; it shows: {page}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        started.elapsed()
    }

    /// A screenshot of the page, decoded.
    fn screenshot(&mut self) -> image::RgbaImage {
        self.screenshot_of(json!({"format": "png"}))
    }

    /// A screenshot of the element with the id `id` alone, decoded.
    fn screenshot_of_element(&mut self, id: &str) -> image::RgbaImage {
        let rect = self.eval(&format!(
            "(() => {{ const r = document.getElementById('{id}').getBoundingClientRect(); \
             return {{x: r.x, y: r.y, width: r.width, height: r.height, scale: 1}}; }})()"
        ));
        // The element may lie below the small headless window.
        self.screenshot_of(json!({"format": "png", "clip": rect, "captureBeyondViewport": true}))
    }

    fn screenshot_of(&mut self, params: Value) -> image::RgbaImage {
        let shot = self.call("Page.captureScreenshot", params);
        let png = decode_base64(shot["data"].as_str().unwrap());
        image::load_from_memory(&png).unwrap().to_rgba8()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    digits
        .chunks(4)
        .flat_map(|chunk| {
            let bits = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
            let bytes = bits.to_be_bytes();
            bytes[1..chunk.len()].to_vec()
        })
        .collect()
}

/// Whether `chromium` can be run; under CI it must be.
fn chromium_available(test: &str) -> bool {
    let found = Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            !in_ci(),
            "{test} needs chromium and CI is set: run scripts/setup.sh"
        );
        report_skip(
            test,
            "chromium is not installed (scripts/setup.sh installs it)",
        );
    }
    found
}

#[test]
fn the_page_shows_each_new_picture_by_itself_and_the_error_of_a_broken_save() {
    require_gpu!();
    if !chromium_available("the_page_shows_each_new_picture_by_itself") {
        return;
    }
    let dir = temp_dir("serve-browser");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("still.png"));
    std::fs::write(&scene, scene_text("(0.6, 0.65, 0.7)")).unwrap();
    let served = Served::start(&scene, &out);
    served.line_starting("turn 1");
    let mut browser = Browser::open(&format!("http://{}/", served.addr));
    let shown = |turn: u32| {
        format!(
            "document.body.dataset.turn === '{turn}' && document.getElementById('still').complete \
             && document.getElementById('still').naturalWidth === 320 \
             && document.getElementById('still').dataset.picture === '{turn}'"
        )
    };
    browser.wait_for(&shown(1));
    let first = browser.screenshot();

    std::fs::write(&scene, scene_text("(0.9, 0.3, 0.2)")).unwrap();
    served.line_starting("turn 2");
    let waited = browser.wait_for(&shown(2));
    assert!(waited < Duration::from_secs(1), "the page took {waited:?}");
    let second = browser.screenshot();
    assert_eq!(first.dimensions(), second.dimensions());
    assert_ne!(first.as_raw(), second.as_raw(), "the new picture shows");

    std::fs::write(&scene, "(\n    fog: (sheets: twelve),\n)\n").unwrap();
    served.line_starting("turn 3");
    let waited = browser
        .wait_for("document.body.dataset.turn === '3' && !document.getElementById('error').hidden");
    assert!(waited < Duration::from_secs(1), "the page took {waited:?}");
    let error = browser.eval("document.getElementById('error').textContent");
    assert!(error.as_str().unwrap().contains("scene.ron:2:"), "{error}");
    // The last good picture stays under the error.
    let picture = browser.eval("document.getElementById('still').dataset.picture");
    assert_eq!(picture, json!("2"));
    let third = browser.screenshot();
    assert_ne!(third.as_raw(), second.as_raw(), "the error shows");
}

#[test]
fn the_clip_server_serves_only_the_clips_own_frames() {
    require_gpu!();
    let dir = temp_dir("serve-clip-paths");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("clip"));
    std::fs::write(&scene, scene_text("(0.6, 0.65, 0.7)")).unwrap();
    std::fs::write(dir.join("frame_0000.png"), "not a frame of the clip").unwrap();
    let served = Served::start_with(&scene, &out, ["--frames", "0,20"], "64x36");
    served.line_starting("turn 1");
    let (status, state) = get(&served.addr, "/state");
    assert!(status.contains(" 200 "), "{status}");
    let state: Value = serde_json::from_slice(&state).unwrap();
    assert_eq!(state["clip"]["frames"], json!([0, 20]), "{state}");
    assert_eq!(state["clip"]["fps"], json!(30), "{state}");
    for name in ["frame_0000.png", "frame_0020.png"] {
        let (status, png) = get(&served.addr, &format!("/frames/{name}?turn=1"));
        assert!(status.contains(" 200 "), "{name}: {status}");
        assert!(
            png == std::fs::read(out.join(name)).unwrap(),
            "{name} on disk"
        );
    }
    for outside in [
        "/frames/frame_0001.png",
        "/frames/frame_0020.png/../../scene.ron",
        "/frames/../scene.ron",
        "/frames/%2e%2e/frame_0000.png",
        "/frames/..%2fframe_0000.png",
        "/frames/",
        "/frames/scene.ron",
        "/clip/frame_0000.png",
        "/still.png",
    ] {
        let (status, body) = get(&served.addr, outside);
        assert!(status.contains(" 404 "), "{outside}: {status}");
        assert!(
            !String::from_utf8_lossy(&body).contains("not a frame"),
            "{outside}"
        );
    }
}

#[test]
fn the_clip_page_steps_through_the_frames_and_shows_each_new_clip_by_itself() {
    require_gpu!();
    if !chromium_available("the_clip_page_steps_through_the_frames") {
        return;
    }
    let dir = temp_dir("serve-clip-browser");
    std::fs::create_dir_all(&*dir).unwrap();
    let (scene, out) = (dir.join("scene.ron"), dir.join("clip"));
    std::fs::write(&scene, scene_text("(0.6, 0.65, 0.7)")).unwrap();
    let served = Served::start_with(&scene, &out, ["--frames", "0,20"], "160x90");
    served.line_starting("turn 1");
    let mut browser = Browser::open(&format!("http://{}/", served.addr));
    let shown = |turn: u32, frame: u32| {
        format!(
            "document.body.dataset.turn === '{turn}' && !document.getElementById('controls').hidden \
             && document.getElementById('still').dataset.picture === '{turn}' \
             && document.getElementById('still').dataset.frame === '{frame}' \
             && document.getElementById('still').complete \
             && document.getElementById('still').naturalWidth === 160"
        )
    };
    let src = "document.getElementById('still').getAttribute('src')";
    browser.wait_for(&shown(1, 0));
    assert_eq!(browser.eval(src), json!("/frames/frame_0000.png?turn=1"));
    let frame_0 = browser.screenshot_of_element("still");

    // Next: frame 20, another file and another picture.
    browser.eval("document.getElementById('next').click()");
    browser.wait_for(&shown(1, 20));
    assert_eq!(browser.eval(src), json!("/frames/frame_0020.png?turn=1"));
    let frame_20 = browser.screenshot_of_element("still");
    assert_eq!(frame_0.dimensions(), frame_20.dimensions());
    assert_ne!(frame_0.as_raw(), frame_20.as_raw(), "frame 20 shows");
    let label = browser.eval("document.getElementById('frame').textContent");
    assert_eq!(label, json!("frame 20 (2 of 2)"));
    // The slider goes back; play runs on by itself, wrapping round, until paused.
    browser.eval(
        "(() => { const s = document.getElementById('slider'); s.value = 0; \
         s.dispatchEvent(new Event('input')); })()",
    );
    browser.wait_for(&shown(1, 0));
    browser.eval("document.getElementById('play').click()");
    browser.wait_for(&shown(1, 20));
    browser.wait_for(&shown(1, 0));
    browser.eval("document.getElementById('play').click()");
    assert_eq!(
        browser.eval("document.getElementById('play').textContent"),
        json!("play")
    );
    browser.eval("document.getElementById('next').click()");
    browser.wait_for(&shown(1, 20));
    let before = browser.screenshot_of_element("still");

    // A new fog colour: the page shows the new clip by itself, at the frame it was on.
    std::fs::write(&scene, scene_text("(0.9, 0.3, 0.2)")).unwrap();
    served.line_starting("turn 2");
    let waited = browser.wait_for(&shown(2, 20));
    assert!(waited < Duration::from_secs(1), "the page took {waited:?}");
    assert_eq!(browser.eval(src), json!("/frames/frame_0020.png?turn=2"));
    let after = browser.screenshot_of_element("still");
    assert_ne!(before.as_raw(), after.as_raw(), "the new clip shows");

    // A broken save: the error in place, the last good clip under it.
    std::fs::write(&scene, "(\n    fog: (sheets: twelve),\n)\n").unwrap();
    served.line_starting("turn 3");
    let waited = browser
        .wait_for("document.body.dataset.turn === '3' && !document.getElementById('error').hidden");
    assert!(waited < Duration::from_secs(1), "the page took {waited:?}");
    let error = browser.eval("document.getElementById('error').textContent");
    assert!(error.as_str().unwrap().contains("scene.ron:2:"), "{error}");
    assert_eq!(
        browser.eval("document.getElementById('still').dataset.picture"),
        json!("2")
    );
    browser.eval("document.getElementById('prev').click()");
    browser.wait_for("document.getElementById('still').dataset.frame === '0'");
}
