//! A check (or a comparison) as one static HTML page, `DIR/index.html` (`--report DIR`).
//!
//! The page needs no network and no other file: its style and script are inline, and every
//! picture is a `data:` URI of its PNG. An EXR picture (an EXR reference, the actual EXR of a
//! failing frame, a file given to `compare`) is shown as a PNG made from it after the page's
//! exposure, as the gates saw it: browsers do not show EXR. Frames come failures first. Each failing frame shows
//! its figures and every limit it was judged by, and expected, actual and heat map side by
//! side. A viewer compares expected and actual in place, with a slider that wipes from one to
//! the other and a button that flips between them. The page ends the summary with the command
//! that accepts the changes. When its pictures have loaded, the script marks the page's
//! `<body>` with how many loaded (`data-images-loaded` of `data-images-total`), so a headless
//! browser test can tell.

use super::{CheckReport, FrameReport};
use crate::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of the page: a frame's report and the PNG files of its pictures, where they exist.
#[derive(Clone, Debug)]
pub struct HtmlCase {
    /// The verdict and figures.
    pub report: FrameReport,
    /// The reference picture.
    pub expected: Option<PathBuf>,
    /// The picture rendered now.
    pub actual: Option<PathBuf>,
    /// The heat map of their differences.
    pub diff: Option<PathBuf>,
    /// The mask whose white pixels were not compared.
    pub mask: Option<PathBuf>,
}

/// What the page shows.
#[derive(Clone, Debug)]
pub struct HtmlPage {
    /// The heading, e.g. `fogbank check golden/temple`.
    pub title: String,
    /// Lines under the heading: adapter, counts.
    pub summary: Vec<String>,
    /// The command that accepts the changes, when some failed.
    pub accept_command: Option<String>,
    /// Every frame and map.
    pub cases: Vec<HtmlCase>,
    /// Stops of exposure that EXR pictures are shown at.
    pub exposure_ev: f32,
}

impl HtmlPage {
    /// The page of a check of the references in `report.golden`: each frame's reference, and
    /// for failures the actual picture and heat map written beside it.
    pub fn of_check(report: &CheckReport, accept_command: &str) -> HtmlPage {
        let picture = |r: &FrameReport, suffix: &str| {
            r.artifacts
                .iter()
                .find(|p| p.to_string_lossy().ends_with(suffix))
                .cloned()
        };
        let cases = report
            .frames
            .iter()
            .map(|r| HtmlCase {
                report: r.clone(),
                expected: Some(
                    report
                        .golden
                        .join(format!("{}.{}", r.name, report.format.name())),
                ),
                actual: picture(r, &format!(".actual.{}", report.format.name())),
                diff: picture(r, ".diff.png"),
                mask: r.mask.clone(),
            })
            .chain(report.maps.iter().map(|r| HtmlCase {
                report: r.clone(),
                expected: None,
                actual: None,
                diff: None,
                mask: None,
            }))
            .collect();
        let total = report.frames.len() + report.maps.len();
        HtmlPage {
            title: format!("fogbank check {}", report.golden.display()),
            summary: vec![
                format!("{} of {total} passed.", total - report.failed),
                format!("Rendered on {}.", report.adapter),
                match &report.blessed_on {
                    Some(adapter) => format!("References blessed on {adapter}."),
                    None => "The references record no adapter.".to_string(),
                },
            ]
            .into_iter()
            .chain((report.format == super::GoldenFormat::Exr).then(|| {
                format!(
                    "EXR references in linear light, shown and gated at {:+} EV; FLIP is HDR-FLIP.",
                    report.exposure_ev
                )
            }))
            .collect(),
            accept_command: (report.failed > 0).then(|| accept_command.to_string()),
            cases,
            exposure_ev: report.exposure_ev,
        }
    }
}

/// The page as HTML, failures first. A picture that cannot be read is shown as missing, with
/// its path, and left out of the count of pictures to load.
pub fn render_html(page: &HtmlPage) -> String {
    let mut cases: Vec<&HtmlCase> = page.cases.iter().collect();
    cases.sort_by_key(|c| c.report.status != "fail");
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n",
        title = escape(&page.title)
    );
    for line in &page.summary {
        let _ = writeln!(html, "<p class=\"summary\">{}</p>", escape(line));
    }
    if let Some(command) = &page.accept_command {
        let _ = writeln!(
            html,
            "<p>To accept the new pictures, run:</p>\n<pre class=\"accept\">{}</pre>",
            escape(command)
        );
    }
    html.push_str("<main id=\"cases\">\n");
    for case in cases {
        case_html(&mut html, case, page.exposure_ev);
    }
    html.push_str("</main>\n");
    let _ = write!(html, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    html
}

/// Writes the page to `DIR/index.html`, whole, creating the folder.
pub fn write_html(page: &HtmlPage, dir: &Path) -> Result<PathBuf, Error> {
    crate::pipeline::create_dir(dir)?;
    let path = dir.join("index.html");
    crate::output::atomic::write_atomic(&path, render_html(page).as_bytes()).map_err(|source| {
        Error::Write {
            path: path.clone(),
            source,
        }
    })?;
    Ok(path)
}

fn case_html(html: &mut String, case: &HtmlCase, exposure_ev: f32) {
    let r = &case.report;
    let status = if r.status == "fail" { "fail" } else { "ok" };
    let _ = writeln!(
        html,
        "<section class=\"case {status}\" id=\"{id}\" data-status=\"{s}\">\n\
         <h2><span class=\"badge\">{S}</span> {id}</h2>\n<p class=\"detail\">{detail}</p>",
        id = escape(&r.name),
        s = escape(r.status),
        S = escape(&r.status.to_uppercase()),
        detail = escape(&r.detail)
    );
    if !r.limits.is_empty() {
        html.push_str(
            "<table class=\"limits\"><tr><th>limit</th><th>value</th><th>source</th>\
             <th>measured</th><th>result</th></tr>\n",
        );
        for limit in &r.limits {
            let value = |v: Option<f64>| v.map_or("–".to_string(), |v| limit.value_text(v));
            let result = match limit.passed {
                Some(true) => "pass",
                Some(false) => "FAIL",
                None if limit.limit.is_none() => "reported only",
                None => "",
            };
            let _ = writeln!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{result}</td></tr>",
                limit.flag,
                value(limit.limit),
                limit.source.label(),
                value(limit.measured)
            );
        }
        html.push_str("</table>\n");
    }
    fn uri(p: &Option<PathBuf>, exposure_ev: f32) -> Option<(&Path, Option<String>)> {
        p.as_deref().map(|p| (p, data_uri(p, exposure_ev)))
    }
    let (expected, actual) = (
        uri(&case.expected, exposure_ev),
        uri(&case.actual, exposure_ev),
    );
    let (diff, mask) = (uri(&case.diff, exposure_ev), uri(&case.mask, exposure_ev));
    html.push_str("<div class=\"pictures\">\n");
    for (label, picture) in [
        ("expected", &expected),
        ("actual", &actual),
        ("diff", &diff),
        ("mask (white: not compared)", &mask),
    ] {
        if let Some((path, uri)) = picture {
            figure(html, label, path, uri.as_deref());
        }
    }
    html.push_str("</div>\n");
    if let (Some((_, Some(e))), Some((_, Some(a)))) = (&expected, &actual) {
        let _ = writeln!(
            html,
            "<div class=\"viewer\"><div class=\"stack\">\
             <img class=\"under\" alt=\"expected\" src=\"{e}\">\
             <img class=\"over\" alt=\"actual\" src=\"{a}\"></div>\
             <label>expected ◀ <input type=\"range\" min=\"0\" max=\"100\" value=\"50\" \
             class=\"wipe\"> ▶ actual</label> <button type=\"button\" class=\"flip\">\
             flip expected / actual</button></div>"
        );
    }
    html.push_str("</section>\n");
}

fn figure(html: &mut String, label: &str, path: &Path, uri: Option<&str>) {
    let path_text = escape(&path.display().to_string());
    match uri {
        Some(uri) => {
            let _ = writeln!(
                html,
                "<figure><img class=\"picture\" alt=\"{label}\" src=\"{uri}\">\
                 <figcaption>{label}<br><code>{path_text}</code></figcaption></figure>"
            );
        }
        None => {
            let _ = writeln!(
                html,
                "<figure class=\"missing\"><figcaption>{label}: cannot read \
                 <code>{path_text}</code></figcaption></figure>"
            );
        }
    }
}

/// The file as a `data:image/png;base64,…` URI, an EXR encoded as a PNG after `exposure_ev`
/// stops; `None` when it cannot be read.
fn data_uri(path: &Path, exposure_ev: f32) -> Option<String> {
    let bytes = match super::is_exr(path) {
        true => {
            let image = super::HdrFrame::read(path)
                .ok()?
                .exposed(exposure_ev)
                .ok()?;
            crate::output::png::encode_rgba8(image.width, image.height, &image.rgba8, true).ok()?
        }
        false => std::fs::read(path).ok()?,
    };
    Some(format!("data:image/png;base64,{}", base64(&bytes)))
}

/// Standard base64 (RFC 4648) with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `text` escaped for HTML text and attributes.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

const STYLE: &str = "
body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em; background: #fafafa; color: #111; }
pre.accept { background: #111; color: #eee; padding: .8em; overflow-x: auto; }
.case { border: 1px solid #ccc; border-left: 8px solid #2a2; background: #fff;
        margin: 1em 0; padding: .5em 1em; }
.case.fail { border-left-color: #d00; }
.case.fail h2 { background: #d00; color: #fff; padding: .2em .4em; }
.badge { font-weight: bold; }
.detail { font-family: monospace; }
table.limits { border-collapse: collapse; margin: .5em 0; }
table.limits td, table.limits th { border: 1px solid #ddd; padding: .2em .6em; text-align: left; }
.pictures { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; }
img.picture, .stack img { image-rendering: pixelated; min-width: 192px; }
.missing { color: #d00; }
.viewer { margin: .8em 0; }
.stack { position: relative; display: inline-block; }
.stack img { display: block; }
.stack img.over { position: absolute; left: 0; top: 0; width: 100%; height: 100%;
                  clip-path: inset(0 0 0 50%); }
";

const SCRIPT: &str = "
document.querySelectorAll('.viewer').forEach(function (viewer) {
  var over = viewer.querySelector('img.over');
  var wipe = viewer.querySelector('input.wipe');
  var flip = viewer.querySelector('button.flip');
  wipe.addEventListener('input', function () {
    over.style.clipPath = 'inset(0 0 0 ' + wipe.value + '%)';
  });
  flip.addEventListener('click', function () {
    wipe.value = wipe.value === '0' ? '100' : '0';
    over.style.clipPath = 'inset(0 0 0 ' + wipe.value + '%)';
  });
});
window.addEventListener('load', function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  document.body.setAttribute('data-images-total', String(images.length));
  document.body.setAttribute('data-images-loaded', String(loaded.length));
});
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain}");
        }
    }

    #[test]
    fn failures_come_first_and_text_is_escaped() {
        let report = |name: &str, status: &'static str| FrameReport {
            name: name.into(),
            frame: 0,
            status,
            max_channel_diff: None,
            fraction_over: None,
            mean_abs_diff: None,
            ssim: None,
            flip_mean: None,
            flip_p99: None,
            limits: vec![],
            detail: "a <b> & c".into(),
            artifacts: vec![],
            mask: None,
        };
        let case = |name: &str, status| HtmlCase {
            report: report(name, status),
            expected: Some("does/not/exist.png".into()),
            actual: None,
            diff: None,
            mask: None,
        };
        let page = HtmlPage {
            title: "t".into(),
            summary: vec![],
            accept_command: Some("fogbank check 'a b' --accept".into()),
            cases: vec![case("frame_0001", "pass"), case("frame_0002", "fail")],
            exposure_ev: 0.0,
        };
        let html = render_html(&page);
        assert!(html.find("id=\"frame_0002\"").unwrap() < html.find("id=\"frame_0001\"").unwrap());
        assert!(html.contains("a &lt;b&gt; &amp; c"));
        assert!(html.contains("fogbank check &#39;a b&#39; --accept"));
        assert!(html.contains("cannot read <code>does/not/exist.png</code>"));
        assert!(!html.contains("http://") && !html.contains("https://"));
    }
}
