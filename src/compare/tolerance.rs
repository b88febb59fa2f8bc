//! How far a picture may stray: the [`Tolerance`] (`--max-diff`, `--pixel-budget`,
//! `--min-ssim`, `--max-flip` and `golden.json`'s `tolerance`), where each of its limits came
//! from, and each limit's result on one frame ([`AppliedLimit`]), so a report can print every
//! limit a frame was judged by beside what was measured.

use super::Comparison;
use crate::Error;
use crate::error::RequestError;
use serde::{Deserialize, Serialize};

/// How far an actual frame may stray from its golden image and still pass.
///
/// The defaults absorb what differs between two correct renderers of the same scene, e.g. a GPU
/// driver and Mesa's lavapipe:
///
/// - Sub-pixel rasterisation: drivers place edge samples and resolve coverage differently, so
///   silhouettes (pillars, the ball, the altar) can gain or lose a pixel along their outline.
///   At the small golden sizes such outlines are a few hundred pixels at most, and only a
///   fraction of them flip, which the 0.2 % `pixel_budget` covers (131 px of a 256×256 frame).
/// - Floating point: drivers differ in fused multiply-add, `exp`/`pow` precision and the order of
///   reductions, which after 8-bit sRGB quantisation moves smooth gradients (fog density, light
///   falloff) by 1–3 levels; `max_channel_diff` 8 leaves headroom above that.
/// - No dithering is used, so there is no per-pixel noise to absorb.
///
/// `min_ssim` 0.98 then catches structural changes that stay under the per-pixel gate, e.g. a
/// fog bank moved by a few pixels or a lost soft shadow. These are starting points chosen from
/// the error sources above; tighten them if measured differences between CI and reference
/// adapters are smaller.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tolerance {
    /// A pixel is "over" when any of its channels differs by more than this many 8-bit levels.
    /// Default 8.
    pub max_channel_diff: u8,
    /// Fraction (0–1) of pixels allowed to be over `max_channel_diff`. Default 0.002 (0.2 %).
    pub pixel_budget: f64,
    /// Lowest acceptable mean SSIM on luma, in [-1, 1]. Default 0.98.
    pub min_ssim: f64,
    /// Highest acceptable mean FLIP error, in [0, 1]. Default: none, FLIP is reported only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_flip: Option<f64>,
}

impl Tolerance {
    /// Same adapter and driver as the golden images (or GPU vs lavapipe on the blessed setup).
    pub const DEFAULT: Tolerance = Tolerance {
        max_channel_diff: 8,
        pixel_budget: 0.002,
        min_ssim: 0.98,
        max_flip: None,
    };

    /// For comparing across different adapters or drivers, whose rasterisation rules and maths
    /// libraries differ more: 24 levels, 2 % of pixels, SSIM 0.93. Enough to catch a missing
    /// pass, a wrong colour or a moved object, not enough to pin down shading details.
    pub fn loose() -> Tolerance {
        Tolerance {
            max_channel_diff: 24,
            pixel_budget: 0.02,
            min_ssim: 0.93,
            max_flip: None,
        }
    }

    /// Field by field the more permissive of `self` and `other`. A FLIP limit that only one
    /// side sets is kept: the adapter rule loosens the gates a reference chose, never drops one.
    pub fn loosest(self, other: Tolerance) -> Tolerance {
        Tolerance {
            max_channel_diff: self.max_channel_diff.max(other.max_channel_diff),
            pixel_budget: self.pixel_budget.max(other.pixel_budget),
            min_ssim: self.min_ssim.min(other.min_ssim),
            max_flip: match (self.max_flip, other.max_flip) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// `Err` with a message naming the field when a value is outside its range.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.pixel_budget) {
            return Err(format!(
                "tolerance.pixel_budget is {}, but must be a fraction from 0 to 1 (0.002 = 0.2 %)",
                self.pixel_budget
            ));
        }
        if !(-1.0..=1.0).contains(&self.min_ssim) {
            return Err(format!(
                "tolerance.min_ssim is {}, but must be from -1 to 1 (e.g. 0.98)",
                self.min_ssim
            ));
        }
        if let Some(max_flip) = self.max_flip
            && !(0.0..=1.0).contains(&max_flip)
        {
            return Err(format!(
                "tolerance.max_flip is {max_flip}, but must be a mean FLIP error from 0 to 1 \
                 (e.g. 0.05)"
            ));
        }
        Ok(())
    }
}

impl Default for Tolerance {
    fn default() -> Tolerance {
        Tolerance::DEFAULT
    }
}

/// Threshold overrides shared by `check` and `compare`; `None` keeps the default or the
/// sidecar's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToleranceFlags {
    /// `--max-diff`: largest channel difference that does not count, 8-bit levels.
    pub max_channel_diff: Option<u8>,
    /// `--pixel-budget`: fraction of pixels allowed over `--max-diff`.
    pub pixel_budget: Option<f64>,
    /// `--min-ssim`: lowest structural similarity that passes.
    pub min_ssim: Option<f64>,
    /// `--max-flip`: highest mean FLIP error that passes.
    pub max_flip: Option<f64>,
}

impl ToleranceFlags {
    /// The tolerance these flags make of `base`, validated.
    pub fn over(&self, base: Tolerance) -> Result<Tolerance, Error> {
        Ok(self
            .over_sourced(base, LimitSources::all(LimitSource::Default))?
            .0)
    }

    /// The tolerance these flags make of `base`, validated, with the source of each limit:
    /// `base_sources` for those no flag names.
    pub fn over_sourced(
        &self,
        base: Tolerance,
        base_sources: LimitSources,
    ) -> Result<(Tolerance, LimitSources), Error> {
        let pick = |flag: bool, base: LimitSource| if flag { LimitSource::Flag } else { base };
        let tolerance = Tolerance {
            max_channel_diff: self.max_channel_diff.unwrap_or(base.max_channel_diff),
            pixel_budget: self.pixel_budget.unwrap_or(base.pixel_budget),
            min_ssim: self.min_ssim.unwrap_or(base.min_ssim),
            max_flip: self.max_flip.or(base.max_flip),
        };
        tolerance
            .validate()
            .map_err(|reason| RequestError::Tolerance(reason.to_string()))?;
        let sources = LimitSources {
            max_channel_diff: pick(
                self.max_channel_diff.is_some(),
                base_sources.max_channel_diff,
            ),
            pixel_budget: pick(self.pixel_budget.is_some(), base_sources.pixel_budget),
            min_ssim: pick(self.min_ssim.is_some(), base_sources.min_ssim),
            max_flip: pick(self.max_flip.is_some(), base_sources.max_flip),
        };
        Ok((tolerance, sources))
    }
}

/// Where one limit's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitSource {
    /// fogbank's default.
    Default,
    /// The `tolerance` in the references' `golden.json`.
    GoldenJson,
    /// The looser limit for a check on another adapter than the one that blessed.
    AdapterRule,
    /// A flag on the command line.
    Flag,
    /// The fixed rule for fluid maps: within one level, every pixel.
    MapRule,
}

impl LimitSource {
    /// How a report names it.
    pub fn label(self) -> &'static str {
        match self {
            LimitSource::Default => "default",
            LimitSource::GoldenJson => "golden.json",
            LimitSource::AdapterRule => "other-adapter rule",
            LimitSource::Flag => "flag",
            LimitSource::MapRule => "map rule",
        }
    }
}

/// The source of each limit of a [`Tolerance`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LimitSources {
    /// Of `max_channel_diff`.
    pub max_channel_diff: LimitSource,
    /// Of `pixel_budget`.
    pub pixel_budget: LimitSource,
    /// Of `min_ssim`.
    pub min_ssim: LimitSource,
    /// Of `max_flip`.
    pub max_flip: LimitSource,
}

impl LimitSources {
    /// Every limit from `source`.
    pub fn all(source: LimitSource) -> LimitSources {
        LimitSources {
            max_channel_diff: source,
            pixel_budget: source,
            min_ssim: source,
            max_flip: source,
        }
    }

    /// The sources of `recorded.loosest(Tolerance::loose())`: the adapter rule for each limit
    /// it loosened, `golden.json` for the others.
    pub fn adapter_rule(recorded: &Tolerance) -> LimitSources {
        let loosened = recorded.loosest(Tolerance::loose());
        let pick = |changed: bool| {
            if changed {
                LimitSource::AdapterRule
            } else {
                LimitSource::GoldenJson
            }
        };
        LimitSources {
            max_channel_diff: pick(loosened.max_channel_diff != recorded.max_channel_diff),
            pixel_budget: pick(loosened.pixel_budget != recorded.pixel_budget),
            min_ssim: pick(loosened.min_ssim != recorded.min_ssim),
            max_flip: pick(loosened.max_flip != recorded.max_flip),
        }
    }
}

/// One limit a frame was judged by, its source and what the frame measured against it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AppliedLimit {
    /// The flag that sets it, e.g. `--min-ssim`.
    pub flag: &'static str,
    /// The limit; `None` when the limit is not set and the figure is reported only.
    pub limit: Option<f64>,
    /// Where the limit came from.
    pub source: LimitSource,
    /// The figure measured against it; `None` when the pictures could not be measured.
    pub measured: Option<f64>,
    /// Whether the frame kept the limit; `None` for `--max-diff`, which only decides which
    /// pixels count against `--pixel-budget`, and for a limit that is not set.
    pub passed: Option<bool>,
}

impl AppliedLimit {
    /// A limit or figure of this kind as a report writes it: levels, a percentage or a ratio.
    pub fn value_text(&self, v: f64) -> String {
        match self.flag {
            "--max-diff" => format!("{v:.0}"),
            "--pixel-budget" => format!("{:.3} %", v * 100.0),
            _ => format!("{v:.4}"),
        }
    }
}

impl std::fmt::Display for AppliedLimit {
    /// e.g. `--min-ssim 0.9800 (golden.json): 0.9931 pass`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = |v: f64| self.value_text(v);
        match self.limit {
            Some(limit) => write!(
                f,
                "{} {} ({})",
                self.flag,
                value(limit),
                self.source.label()
            )?,
            None => write!(f, "{} not set", self.flag)?,
        }
        match self.measured {
            Some(measured) if self.flag == "--max-diff" => {
                write!(f, ": largest {}", value(measured))?
            }
            Some(measured) => write!(f, ": {}", value(measured))?,
            None => write!(f, ": not measured")?,
        }
        match self.passed {
            Some(true) => write!(f, " pass"),
            Some(false) => write!(f, " FAIL"),
            None if self.limit.is_none() => write!(f, " (reported only)"),
            None => Ok(()),
        }
    }
}

/// Every limit `comparison` was judged by, in the order `--max-diff`, `--pixel-budget`,
/// `--min-ssim`, `--max-flip`, each with its source and result. Limits the comparison does not
/// gate on (SSIM of a data map, an unset FLIP limit) are listed as reported only.
pub fn applied_limits(comparison: &Comparison, sources: &LimitSources) -> Vec<AppliedLimit> {
    let measured = comparison.measured();
    let gate = &comparison.gate;
    vec![
        AppliedLimit {
            flag: "--max-diff",
            limit: Some(f64::from(gate.max_channel_diff)),
            source: sources.max_channel_diff,
            measured: measured.then_some(f64::from(comparison.max_channel_diff)),
            passed: None,
        },
        AppliedLimit {
            flag: "--pixel-budget",
            limit: Some(gate.pixel_budget),
            source: sources.pixel_budget,
            measured: measured.then_some(comparison.fraction_over),
            passed: Some(measured && comparison.fraction_over <= gate.pixel_budget),
        },
        AppliedLimit {
            flag: "--min-ssim",
            limit: gate.min_ssim,
            source: sources.min_ssim,
            measured: measured.then_some(comparison.ssim),
            passed: gate.min_ssim.map(|min| measured && comparison.ssim >= min),
        },
        AppliedLimit {
            flag: "--max-flip",
            limit: gate.max_flip,
            source: sources.max_flip,
            measured: comparison.flip.map(|f| f.mean),
            passed: gate
                .max_flip
                .map(|max| comparison.flip.is_some_and(|f| f.mean <= max)),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_ranges_are_checked_and_loosest_combines() {
        assert!(Tolerance::default().validate().is_ok());
        assert!(Tolerance::loose().validate().is_ok());
        let bad = Tolerance {
            pixel_budget: 2.0,
            ..Tolerance::default()
        };
        assert!(bad.validate().unwrap_err().contains("pixel_budget"));
        let nan = Tolerance {
            min_ssim: f64::NAN,
            ..Tolerance::default()
        };
        assert!(nan.validate().unwrap_err().contains("min_ssim"));
        let flip = Tolerance {
            max_flip: Some(1.5),
            ..Tolerance::default()
        };
        assert!(flip.validate().unwrap_err().contains("max_flip"));
        let mixed = Tolerance {
            max_channel_diff: 30,
            pixel_budget: 0.001,
            min_ssim: 0.99,
            max_flip: Some(0.05),
        };
        assert_eq!(
            mixed.loosest(Tolerance::loose()),
            Tolerance {
                max_channel_diff: 30,
                pixel_budget: 0.02,
                min_ssim: 0.93,
                max_flip: Some(0.05),
            }
        );
    }

    #[test]
    fn flags_name_their_source_and_the_adapter_rule_names_what_it_loosened() {
        let recorded = Tolerance {
            max_channel_diff: 30,
            ..Tolerance::default()
        };
        let base = LimitSources::adapter_rule(&recorded);
        assert_eq!(base.max_channel_diff, LimitSource::GoldenJson);
        assert_eq!(base.pixel_budget, LimitSource::AdapterRule);
        assert_eq!(base.max_flip, LimitSource::GoldenJson);
        let flags = ToleranceFlags {
            min_ssim: Some(0.5),
            max_flip: Some(0.1),
            ..ToleranceFlags::default()
        };
        let (tolerance, sources) = flags
            .over_sourced(recorded.loosest(Tolerance::loose()), base)
            .unwrap();
        assert_eq!((tolerance.min_ssim, tolerance.max_flip), (0.5, Some(0.1)));
        assert_eq!(sources.min_ssim, LimitSource::Flag);
        assert_eq!(sources.max_flip, LimitSource::Flag);
        assert_eq!(sources.pixel_budget, LimitSource::AdapterRule);
        let bad = ToleranceFlags {
            max_flip: Some(2.0),
            ..ToleranceFlags::default()
        };
        assert!(bad.over(Tolerance::default()).is_err());
    }
}
