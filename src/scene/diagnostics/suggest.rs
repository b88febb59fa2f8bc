//! Did-you-mean: the closest known name to a misspelt one, for unknown fields, variants and
//! `--set` paths. The edit distance is `strsim`'s optimal string alignment; what counts as
//! close enough, and the unit-suffix rule, are fogbank's.

/// The candidate closest to `name` (case-insensitive optimal-string-alignment distance, which
/// counts a swap of two neighbours as one edit), if it is within `max(2, len / 3)` edits.
/// Failing that, a name that differs only by a `_`-separated suffix, as field names carry
/// units (`lag` → `lag_rate`, `radius_m` → `radius`). Ties go to the earlier candidate.
pub fn did_you_mean<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let name_lower = name.to_lowercase();
    let name_len = name_lower.chars().count();
    let limit = (name_len / 3).max(2);
    let closest = candidates
        .iter()
        .map(|&c| (strsim::osa_distance(&name_lower, &c.to_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c);
    if closest.is_some() || name_len < 3 {
        return closest;
    }
    let extends = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.starts_with('_'))
    };
    candidates
        .iter()
        .copied()
        .filter(|c| {
            let c_lower = c.to_lowercase();
            extends(&c_lower, &name_lower) || (c_lower.len() >= 3 && extends(&name_lower, &c_lower))
        })
        .min_by_key(|c| c.len().abs_diff(name.len()))
}
