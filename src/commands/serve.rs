//! `fogbank watch --serve`: a small live preview page over HTTP (`tiny_http`).
//!
//! The server answers a few paths and nothing else: `/` (the page), `/still.png` (the latest
//! good still, from memory), `/frames/frame_NNNN.png` (a frame of the latest good clip),
//! `/state` (the latest turn as JSON) and `/events` (the same JSON pushed as server-sent
//! events at each turn). A clip's frame is read from the file `watch` wrote, and only for a
//! name of that clip's frames, which `watch` itself made; any other path is a 404, so no other
//! file on disk is ever served. It binds to loopback unless an address is given. The page
//! shows the still or the clip (with previous, next, a slider and play at the scene's frame
//! rate), the turn's line with its timings, and the scene's error in place when the last save
//! did not load; it updates itself as each event arrives.

use crate::Error;
use serde::Serialize;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;
use tiny_http::{Header, Method, Request, Response, Server};

/// The page itself: a picture, a line and an error, kept up to date by `/events`.
const PAGE_HTML: &str = r#"<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>fogbank watch</title>
<style>
body { background: #15171c; color: #dde; font: 14px/1.4 monospace; margin: 1em; }
#still { max-width: 100%; display: block; margin-top: 0.5em; }
#error { color: #ff9a8a; background: #2a1416; padding: 0.5em; white-space: pre-wrap; }
#controls { margin-top: 0.5em; }
#slider { vertical-align: middle; width: 40%; }
</style>
<div id="line">waiting for the first turn…</div>
<pre id="error" hidden></pre>
<div id="controls" hidden>
<button id="prev" title="previous frame (←)">◀</button>
<button id="play" title="play or pause (space)">play</button>
<button id="next" title="next frame (→)">▶</button>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="frame">
<span id="frame"></span>
</div>
<img id="still" alt="the latest picture">
<script>
const $ = (id) => document.getElementById(id);
const line = $("line"), error = $("error"), still = $("still"), controls = $("controls");
const slider = $("slider"), play = $("play"), label = $("frame");
let clip = null, index = 0, timer = null, preloaded = [];
const frameUrl = (i) => "/frames/" + clip.files[i] + "?turn=" + clip.turn;
function showFrame(i) {
  const count = clip.frames.length;
  index = ((i % count) + count) % count;
  slider.value = index;
  label.textContent = "frame " + clip.frames[index] + " (" + (index + 1) + " of " + count + ")";
  still.dataset.frame = clip.frames[index];
  still.src = frameUrl(index);
}
function pause() {
  clearInterval(timer);
  timer = null;
  play.textContent = "play";
}
function start() {
  clearInterval(timer);
  timer = setInterval(() => showFrame(index + 1), 1000 / clip.fps);
  play.textContent = "pause";
}
$("prev").onclick = () => { pause(); showFrame(index - 1); };
$("next").onclick = () => { pause(); showFrame(index + 1); };
play.onclick = () => (timer === null ? start() : pause());
slider.oninput = () => { pause(); showFrame(Number(slider.value)); };
document.onkeydown = (event) => {
  if (clip === null || event.target === slider) return;
  const keys = { ArrowLeft: "prev", ArrowRight: "next", " ": "play" };
  if (keys[event.key]) { event.preventDefault(); $(keys[event.key]).click(); }
};
function show(state) {
  document.body.dataset.turn = state.turn;
  line.textContent = state.line;
  error.hidden = state.error === null;
  error.textContent = state.error || "";
  if (state.picture === null || still.dataset.picture === String(state.picture)) return;
  still.dataset.picture = state.picture;
  if (state.clip === null) {
    pause();
    clip = null;
    controls.hidden = true;
    still.src = "/still.png?turn=" + state.picture;
    return;
  }
  const shown = clip === null ? null : clip.frames[index];
  const playing = timer !== null;
  clip = { ...state.clip, turn: state.picture };
  controls.hidden = false;
  slider.max = clip.frames.length - 1;
  preloaded = clip.files.map((_, i) => Object.assign(new Image(), { src: frameUrl(i) }));
  showFrame(Math.max(0, clip.frames.indexOf(shown)));
  if (playing) start();
}
new EventSource("/events").onmessage = (event) => show(JSON.parse(event.data));
</script>
</html>
"#;

/// What the page shows: the latest turn.
#[derive(Debug, Clone, Default, Serialize)]
struct PageState {
    /// The latest turn's number (0 before the first).
    turn: u64,
    /// The turn whose picture `/still.png` serves; `None` before the first good one.
    picture: Option<u64>,
    /// The latest turn's line, with its timings.
    line: String,
    /// The scene's error when the latest turn failed.
    error: Option<String>,
    /// The frames of the clip `picture` names; `None` for a still.
    clip: Option<ClipPage>,
}

/// A clip as the page steps through it.
#[derive(Debug, Clone, Serialize)]
struct ClipPage {
    /// The frame numbers, in order.
    frames: Vec<u32>,
    /// Their file names, served under `/frames/`.
    files: Vec<String>,
    /// Frames per second, for play.
    fps: u32,
}

#[derive(Default)]
struct Shared {
    state: PageState,
    /// The latest good still's PNG.
    png: Option<Arc<Vec<u8>>>,
    /// The folder of the latest good clip's files.
    clip_dir: Option<PathBuf>,
}

/// What a good turn wrote, for the page.
pub(super) enum Picture {
    /// A still's PNG bytes.
    Still(Vec<u8>),
    /// A clip's frames, written as `frame_NNNN.png` in `dir`.
    Clip {
        /// The folder of the frame files.
        dir: PathBuf,
        /// The frame numbers, in order.
        frames: Vec<u32>,
        /// The scene's frames per second.
        fps: u32,
    },
}

type Board = Arc<(Mutex<Shared>, Condvar)>;

fn lock(board: &Board) -> MutexGuard<'_, Shared> {
    board
        .0
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The running server. It lives as long as the process: `watch` ends by exiting.
pub(super) struct Preview {
    board: Board,
    addr: SocketAddr,
}

impl Preview {
    /// Serves the page on `addr` (port 0: a free port) from threads of its own.
    pub(super) fn start(addr: SocketAddr) -> Result<Preview, Error> {
        let server = Server::http(addr).map_err(|source| Error::Serve {
            addr: addr.to_string(),
            source: std::io::Error::other(source.to_string()),
        })?;
        let addr = server.server_addr().to_ip().ok_or_else(|| Error::Serve {
            addr: addr.to_string(),
            source: std::io::Error::other("not an IP address"),
        })?;
        let board: Board = Arc::default();
        let serving = Arc::clone(&board);
        std::thread::spawn(move || {
            for request in server.incoming_requests() {
                let board = Arc::clone(&serving);
                std::thread::spawn(move || answer(request, &board));
            }
        });
        Ok(Preview { board, addr })
    }

    /// The address it listens on.
    pub(super) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// A turn that wrote `picture`.
    pub(super) fn picture(&self, turn: u64, picture: Picture, line: String) {
        self.publish(turn, line, None, Some(picture));
    }

    /// A turn that failed with `report`; the last good picture or clip stays.
    pub(super) fn error(&self, turn: u64, report: String, line: String) {
        self.publish(turn, line, Some(report), None);
    }

    fn publish(&self, turn: u64, line: String, error: Option<String>, picture: Option<Picture>) {
        let mut shared = lock(&self.board);
        match picture {
            Some(Picture::Still(png)) => {
                shared.png = Some(Arc::new(png));
                shared.clip_dir = None;
                shared.state.clip = None;
                shared.state.picture = Some(turn);
            }
            Some(Picture::Clip { dir, frames, fps }) => {
                let files = frames
                    .iter()
                    .map(|&frame| crate::output::png::frame_file_name("frame", frame))
                    .collect();
                shared.png = None;
                shared.clip_dir = Some(dir);
                shared.state.clip = Some(ClipPage { frames, files, fps });
                shared.state.picture = Some(turn);
            }
            None => {}
        }
        shared.state.turn = turn;
        shared.state.line = line;
        shared.state.error = error;
        drop(shared);
        self.board.1.notify_all();
    }
}

/// Answers one request: the page, the picture, the state, the events, or a 404.
fn answer(request: Request, board: &Board) {
    let path = request
        .url()
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_string();
    if request.method() != &Method::Get {
        let _ = request.respond(Response::from_string("only GET").with_status_code(405));
        return;
    }
    let header = |value: &str| {
        Header::from_bytes("Content-Type", value).expect("a valid content-type header")
    };
    let _ = match path.as_str() {
        "/" | "/index.html" => request.respond(
            Response::from_string(PAGE_HTML).with_header(header("text/html; charset=utf-8")),
        ),
        "/still.png" => match lock(board).png.clone() {
            Some(png) => request.respond(
                Response::from_data(png.as_slice().to_vec()).with_header(header("image/png")),
            ),
            None => request.respond(not_found()),
        },
        frame if frame.starts_with("/frames/") => match clip_file(board, &frame[8..]) {
            Some(png) => request.respond(Response::from_data(png).with_header(header("image/png"))),
            None => request.respond(not_found()),
        },
        "/state" => {
            let json = serde_json::to_string(&lock(board).state).unwrap_or_default();
            request.respond(Response::from_string(json).with_header(header("application/json")))
        }
        "/events" => {
            stream_events(request, board);
            Ok(())
        }
        _ => request.respond(not_found()),
    };
}

/// The bytes of the latest clip's file `name`, when `name` is one of that clip's frame file
/// names (which `watch` made, so it never leaves the clip's folder) and the file reads.
fn clip_file(board: &Board, name: &str) -> Option<Vec<u8>> {
    let path = {
        let shared = lock(board);
        let clip = shared.state.clip.as_ref()?;
        clip.files.iter().any(|file| file == name).then_some(())?;
        shared.clip_dir.as_ref()?.join(name)
    };
    std::fs::read(path).ok()
}

fn not_found() -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_string("not found: this server serves only the preview page and its pictures")
        .with_status_code(404)
}

/// How long an idle event stream waits before a keep-alive comment (which also notices a
/// page that was closed).
const KEEP_ALIVE: Duration = Duration::from_secs(5);

/// `/events`: the state now as one `data:` message, then one at each new turn, written
/// straight to the connection and flushed, until the page goes away.
fn stream_events(request: Request, board: &Board) {
    let mut writer = request.into_writer();
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                Connection: close\r\n\r\n";
    if writer.write_all(head.as_bytes()).is_err() {
        return;
    }
    let mut sent = None;
    loop {
        let message = {
            let shared = lock(board);
            let (shared, _) = board
                .1
                .wait_timeout_while(shared, KEEP_ALIVE, |s| {
                    sent.is_some() && Some(s.state.turn) == sent
                })
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if sent.is_some() && Some(shared.state.turn) == sent {
                ": still here\n\n".to_string()
            } else {
                sent = Some(shared.state.turn);
                let json = serde_json::to_string(&shared.state).unwrap_or_default();
                format!("data: {json}\n\n")
            }
        };
        if writer.write_all(message.as_bytes()).is_err() || writer.flush().is_err() {
            return;
        }
    }
}
