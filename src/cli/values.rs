//! Flag values that need more than clap's parsing: picture sizes and probe points, with an
//! error that names the flag and shows how to write the value.

/// A flag value that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {value}: {reason}")]
pub struct FlagError {
    /// The flag, e.g. `--size`.
    pub flag: &'static str,
    /// The value given.
    pub value: String,
    /// What is wrong and how to write it.
    pub reason: String,
}

/// Parses `WxH` (also `W×H`), each side 1..=16384.
pub fn parse_size(text: &str) -> Result<(u32, u32), FlagError> {
    let fail = |reason: &str| FlagError {
        flag: "--size",
        value: text.to_string(),
        reason: reason.to_string(),
    };
    let (w, h) = text
        .split_once(['x', 'X', '×'])
        .ok_or_else(|| fail("write the size as WIDTHxHEIGHT, e.g. 640x360"))?;
    let side = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=crate::scene::validate::MAX_SIZE_PX).contains(v))
            .ok_or_else(|| fail("each side must be a whole number of pixels in 1..=16384"))
    };
    Ok((side(w)?, side(h)?))
}

/// Parses a probe point `X,Z` in world units.
pub fn parse_probe(text: &str) -> Result<[f32; 2], FlagError> {
    let fail = || FlagError {
        flag: "--probe",
        value: text.to_string(),
        reason: "write the floor point as X,Z in world units, e.g. --probe 2.5,-1".into(),
    };
    let (x, z) = text.split_once(',').ok_or_else(fail)?;
    let x: f32 = x.trim().parse().map_err(|_| fail())?;
    let z: f32 = z.trim().parse().map_err(|_| fail())?;
    if x.is_finite() && z.is_finite() {
        Ok([x, z])
    } else {
        Err(fail())
    }
}
