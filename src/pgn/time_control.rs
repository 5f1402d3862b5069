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

impl TimeControl {
    /// The estimated duration of one player's clock over a game of 40 moves, in seconds:
    /// `base + 40 × increment` (lichess's estimate, see [`speed`]).
    #[must_use]
    pub fn estimated_s(&self) -> f64 {
        self.base_s + 40.0 * self.increment_s
    }
}

/// A game's speed: lichess's categories of time controls (see [`speed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Speed {
    /// Estimated duration under 30 seconds.
    UltraBullet,
    /// Under 180 seconds (3 minutes).
    Bullet,
    /// Under 480 seconds (8 minutes).
    Blitz,
    /// Under 1500 seconds (25 minutes).
    Rapid,
    /// 1500 seconds or more.
    Classical,
    /// No clock: days per move (lichess writes the tag `-`).
    Correspondence,
}

impl Speed {
    /// Lichess's name of the speed: `ultraBullet`, `bullet`, `blitz`, `rapid`,
    /// `classical`, `correspondence`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    /// The speed of a clock game of this time control, by its estimated duration
    /// ([`TimeControl::estimated_s`], seconds): under 30 ultraBullet, under 180 bullet,
    /// under 480 blitz, under 1500 rapid, else classical.
    #[must_use]
    pub fn of(tc: TimeControl) -> Speed {
        match tc.estimated_s() {
            s if s < 30.0 => Speed::UltraBullet,
            s if s < 180.0 => Speed::Bullet,
            s if s < 480.0 => Speed::Blitz,
            s if s < 1500.0 => Speed::Rapid,
            _ => Speed::Classical,
        }
    }
}

/// The speed of a game by its `TimeControl` tag's value, as lichess classifies games
/// (lila's `chess.Speed`: the estimated duration `base + 40 × increment` seconds, under 30
/// ultraBullet, under 180 bullet, under 480 blitz, under 1500 rapid, else classical;
/// <https://lichess.org/faq#time-controls>): [`Speed::of`] the parsed tag
/// ([`parse_time_control`]), [`Speed::Correspondence`] for `-` (how lichess writes its
/// correspondence games' tag); `None` for `?`, multi-period and sandclock forms and anything
/// that does not parse.
#[must_use]
pub fn speed(value: &str) -> Option<Speed> {
    if value.trim() == "-" {
        return Some(Speed::Correspondence);
    }
    parse_time_control(value).map(Speed::of)
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

    #[test]
    fn speed_boundaries_are_lichess_s() {
        let name = |v: &str| speed(v).map(Speed::as_str);
        for (value, expected) in [
            ("29", "ultraBullet"),
            ("30", "bullet"),
            ("15+0", "ultraBullet"),
            ("0+1", "bullet"),
            ("179", "bullet"),
            ("180", "blitz"),
            ("60+0", "bullet"),
            ("179+0", "bullet"),
            ("180+0", "blitz"),
            ("180+2", "blitz"),
            ("479", "blitz"),
            ("480", "rapid"),
            ("400+2", "rapid"),
            ("1499", "rapid"),
            ("1500", "classical"),
            ("1260+6", "classical"),
            ("10+0.05", "ultraBullet"),
            ("-", "correspondence"),
            (" - ", "correspondence"),
        ] {
            assert_eq!(name(value), Some(expected), "{value:?}");
        }
        assert_eq!(
            TimeControl {
                base_s: 180.0,
                increment_s: 2.0
            }
            .estimated_s(),
            260.0
        );
        for value in ["?", "", "40/7200:3600", "*180", "fast"] {
            assert_eq!(speed(value), None, "{value:?}");
        }
    }
}
