//! A check as JUnit XML (`check --junit FILE`), the test report GitLab, Jenkins and most CI
//! services show.
//!
//! One test case per frame, and per map with `--maps`. A frame that differs carries a
//! `<failure>` with its figures and every limit it was judged by. Its strip and heat map are
//! named in `[[ATTACHMENT|path]]` lines in `<system-out>`, which GitLab and Jenkins' JUnit
//! attachments plugin turn into pictures. The text is built here as bytes; the command layer
//! writes it atomically.

use super::{CheckReport, FrameReport};
use std::fmt::Write as _;

/// The report as a JUnit XML document, UTF-8. `accept_command` is the command that accepts the
/// failures, given in each failure.
pub fn junit_xml(report: &CheckReport, accept_command: &str) -> Vec<u8> {
    let cases: Vec<&FrameReport> = report.frames.iter().chain(&report.maps).collect();
    let failures = cases.iter().filter(|c| c.status == "fail").count();
    let suite = format!("fogbank check {}", report.golden.display());
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        xml,
        "<testsuites name=\"fogbank check\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        cases.len()
    );
    let _ = writeln!(
        xml,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        escape(&suite),
        cases.len()
    );
    let _ = writeln!(xml, "    <properties>");
    for (name, value) in [
        ("adapter", report.adapter.as_str()),
        ("blessed_on", report.blessed_on.as_deref().unwrap_or("")),
    ] {
        let _ = writeln!(
            xml,
            "      <property name=\"{name}\" value=\"{}\"/>",
            escape(value)
        );
    }
    let _ = writeln!(xml, "    </properties>");
    let class = format!("fogbank.check.{}", report.golden.display());
    for case in cases {
        let _ = write!(
            xml,
            "    <testcase classname=\"{}\" name=\"{}\"",
            escape(&class),
            escape(&case.name)
        );
        if case.status != "fail" {
            let _ = writeln!(xml, "/>");
            continue;
        }
        let _ = writeln!(xml, ">");
        let mut body = format!("{}\n", case.detail);
        for limit in &case.limits {
            let _ = writeln!(body, "{limit}");
        }
        let _ = writeln!(body, "To accept the new pictures: {accept_command}");
        let _ = writeln!(
            xml,
            "      <failure message=\"{}\" type=\"golden\">{}</failure>",
            escape(&format!("{} differs from its reference", case.name)),
            escape(&body)
        );
        // Strip first, then the heat map: the two pictures a reviewer looks at.
        let mut attachments: Vec<_> = case
            .artifacts
            .iter()
            .filter(|p| !p.to_string_lossy().contains(".actual."))
            .collect();
        attachments.sort_by_key(|p| !p.to_string_lossy().ends_with(".strip.png"));
        if !attachments.is_empty() {
            let lines: Vec<String> = attachments
                .iter()
                .map(|p| format!("[[ATTACHMENT|{}]]", p.display()))
                .collect();
            let _ = writeln!(
                xml,
                "      <system-out>{}</system-out>",
                escape(&lines.join("\n"))
            );
        }
        let _ = writeln!(xml, "    </testcase>");
    }
    let _ = writeln!(xml, "  </testsuite>");
    let _ = writeln!(xml, "</testsuites>");
    xml.into_bytes()
}

/// `text` escaped for XML 1.0 attributes and text; characters XML cannot hold are dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escaping_covers_markup_and_drops_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\n"
        );
    }
}
