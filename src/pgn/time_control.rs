//! The `TimeControl` tag (PGN standard §9.6.1) as online servers write it for one period:
//! `180+2` (a base of 180 seconds, 2 seconds added per move), `600` (no increment), and
//! with decimals as cutechess writes them (`10+0.05`). The
//! other forms give no time control here: `-` (none), `?` (unknown), `40/7200:3600`
//! (periods of so many moves: the clock gains a period's time after a move count this
//! reader does not follow), `*180` (sandclock) and anything malformed.

/// One period's time control, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeControl {
    /// The time on each clock at the start of the game, in seconds.
    pub base_s: f64,
    /// The time added to the mover's clock after each of their moves (Fischer
    /// increment), in seconds; 0 without one.
    pub increment_s: f64,
}

/// The time control of a `TimeControl` tag's value: `BASE` or `BASE+INCREMENT`, each a
/// number of seconds (ASCII digits, optionally a `.` and more digits; spaces around the
/// value are ignored). `None` for `-`, `?`, the multi-period (`40/7200:3600`) and
/// sandclock (`*180`) forms and anything else.
#[must_use]
pub fn parse_time_control(value: &str) -> Option<TimeControl> {
    let digits = |d: &str| !d.is_empty() && d.len() <= 9 && d.bytes().all(|b| b.is_ascii_digit());
    let seconds = |s: &str| -> Option<f64> {
        let (whole, fraction) = s.split_once('.').unwrap_or((s, "0"));
        (digits(whole) && digits(fraction))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (base, increment) = match value.trim().split_once('+') {
        Some((b, i)) => (seconds(b)?, seconds(i)?),
        None => (seconds(value.trim())?, 0.0),
    };
    Some(TimeControl {
        base_s: base,
        increment_s: increment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(base_s: f64, increment_s: f64) -> Option<TimeControl> {
        Some(TimeControl {
            base_s,
            increment_s,
        })
    }

    #[test]
    fn one_period_with_or_without_increment() {
        assert_eq!(parse_time_control("180+2"), tc(180.0, 2.0));
        assert_eq!(parse_time_control("600"), tc(600.0, 0.0));
        assert_eq!(parse_time_control(" 60+0 "), tc(60.0, 0.0));
        assert_eq!(parse_time_control("0+1"), tc(0.0, 1.0));
        assert_eq!(parse_time_control("10+0.05"), tc(10.0, 0.05));
        assert_eq!(parse_time_control("1.5"), tc(1.5, 0.0));
    }

    #[test]
    fn other_forms_are_none() {
        for value in [
            "",
            "-",
            "?",
            "40/7200:3600",
            "40/7200",
            "*180",
            "180+",
            "+2",
            "180+2+1",
            "1.+0",
            ".5+0",
            "-180",
            "180 + 2",
            "９0",
            "9999999999",
        ] {
            assert_eq!(parse_time_control(value), None, "{value:?}");
        }
    }
}
