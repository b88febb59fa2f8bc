//! Flag values that need more than clap's parsing: picture sizes and probe points, with an
//! error that names the flag and shows how to write the value.

use crate::error::{FlagError, RequestError};
use crate::timeline::Chunk;

/// Parses `--sheets`: a comma list of sheet counts, each 1..=512 (the range of `fog.sheets`),
/// returned ascending without repeats.
pub fn parse_sheet_counts(text: &str) -> Result<Vec<u32>, FlagError> {
    let fail = |reason: String| FlagError {
        flag: "--sheets",
        value: text.to_string(),
        reason,
    };
    let mut counts = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let count: u32 = part.parse().map_err(|_| {
            fail(format!(
                "`{part}` is not a whole number: write sheet counts separated by commas, e.g. \
                 16,32,48"
            ))
        })?;
        if !(1..=512).contains(&count) {
            return Err(fail(format!(
                "{count} sheets is outside 1..=512, the range of fog.sheets"
            )));
        }
        counts.push(count);
    }
    counts.sort_unstable();
    counts.dedup();
    Ok(counts)
}

/// Parses `--exposure EV`: stops of exposure, a finite number from -64 to 64.
pub fn parse_exposure(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(ev) if (-64.0..=64.0).contains(&ev) => Ok(ev),
        _ => Err(format!(
            "the exposure is in stops, a number from -64 to 64 (-2 is a quarter of the light), \
             not `{text}`"
        )),
    }
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

/// Parses `--chunk I/N` or `--chunk auto`. `auto` reads the job array's environment through
/// `env`: `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT` (less `SLURM_ARRAY_TASK_MIN`, so
/// `--array=1-8` works too), or `JOB_COMPLETION_INDEX` with `chunks` (`--chunks N`). `chunks`,
/// when given, also sets the count under Slurm.
pub fn parse_chunk(
    text: &str,
    chunks: Option<u32>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Chunk, RequestError> {
    let checked = |index: u64, count: u64| {
        u32::try_from(index)
            .ok()
            .zip(u32::try_from(count).ok())
            .and_then(|(i, n)| Chunk::new(i, n))
            .ok_or(RequestError::ChunkOutOfRange { index, count })
    };
    if text.trim() != "auto" {
        let syntax = || RequestError::ChunkSyntax {
            text: text.to_string(),
        };
        let (i, n) = text.split_once('/').ok_or_else(syntax)?;
        let i: u64 = i.trim().parse().map_err(|_| syntax())?;
        let n: u64 = n.trim().parse().map_err(|_| syntax())?;
        return checked(i, n);
    }
    let number = |variable: &'static str| -> Result<Option<u64>, RequestError> {
        env(variable)
            .map(|value| {
                value
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| RequestError::ChunkAutoBadVariable { variable, value })
            })
            .transpose()
    };
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let first = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let count = match chunks {
            Some(n) => Some(u64::from(n)),
            None => number("SLURM_ARRAY_TASK_COUNT")?,
        };
        if let Some(count) = count {
            return checked(id.saturating_sub(first), count);
        }
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = chunks.ok_or(RequestError::ChunkAutoNeedsCount)?;
        return checked(index, u64::from(count));
    }
    Err(RequestError::ChunkAutoOutsideArray)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheet_counts() {
        assert_eq!(parse_sheet_counts("48, 8,16,8").unwrap(), vec![8, 16, 48]);
        for bad in ["", "8,,16", "0", "513", "ten", "-4"] {
            let error = parse_sheet_counts(bad).unwrap_err();
            assert_eq!(error.flag, "--sheets", "{bad}");
        }
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn chunks_parse_from_flags_and_job_arrays() {
        let none = env(&[]);
        assert_eq!(
            parse_chunk("1/3", None, &none),
            Ok(Chunk::new(1, 3).unwrap())
        );
        for bad in ["0/0", "5/4", "4/4", "a/3", "3", "-1/3", ""] {
            assert!(parse_chunk(bad, None, &none).is_err(), "{bad}");
        }
        assert_eq!(
            parse_chunk("auto", None, &none),
            Err(RequestError::ChunkAutoOutsideArray)
        );
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(
            parse_chunk("auto", None, &slurm),
            Ok(Chunk::new(2, 3).unwrap())
        );
        let from_one = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(
            parse_chunk("auto", None, &from_one),
            Ok(Chunk::new(2, 3).unwrap())
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "4")]);
        assert_eq!(
            parse_chunk("auto", Some(5), &k8s),
            Ok(Chunk::new(4, 5).unwrap())
        );
        assert_eq!(
            parse_chunk("auto", None, &k8s),
            Err(RequestError::ChunkAutoNeedsCount)
        );
        assert!(parse_chunk("auto", Some(4), &k8s).is_err());
        let junk = env(&[("JOB_COMPLETION_INDEX", "x")]);
        assert!(matches!(
            parse_chunk("auto", Some(4), &junk),
            Err(RequestError::ChunkAutoBadVariable { .. })
        ));
    }
}
