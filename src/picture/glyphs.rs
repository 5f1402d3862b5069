//! The board's coordinates, `a`–`h` and `1`–`8`, as strokes of our own drawing (not a
//! font), so that a PNG drawn on a machine without fonts is the same as anywhere else.
//! Each glyph is a path of absolute `M`, `L`, `H`, `V` and `Q` commands on a box 4 units
//! wide and 6 high (the baseline at 6; `g` goes below it to 8), drawn with a round stroke.

use super::shapes::round;

/// The width of a glyph's box, in glyph units.
pub const GLYPH_WIDTH: f64 = 4.0;
/// The height of a glyph's box above the baseline, in glyph units.
pub const GLYPH_HEIGHT: f64 = 6.0;
/// The stroke width the glyphs are drawn with, in glyph units.
pub const GLYPH_STROKE: f64 = 0.7;

/// The strokes of `c` (`a`–`h`, `1`–`8`), or `None`.
fn strokes(c: char) -> Option<&'static str> {
    Some(match c {
        'a' => "M0.9 2.4 Q2.1 1.6 3.2 2.4 V6 M3.2 3.8 Q0.7 3.6 0.8 5 Q1.2 6.3 3.2 5.2",
        'b' => "M0.8 0 V6 M0.8 3 Q2 1.7 3.1 2.9 Q3.6 4.5 3.1 5.2 Q2 6.4 0.8 5.3",
        'c' => "M3.2 2.6 Q2.1 1.7 1.1 2.5 Q0.4 4 1.1 5.4 Q2.1 6.3 3.2 5.4",
        'd' => "M3.2 0 V6 M3.2 3 Q2 1.7 0.9 2.9 Q0.4 4.5 0.9 5.2 Q2 6.4 3.2 5.3",
        'e' => "M0.7 4 H3.3 Q3.3 2 2 2 Q0.6 2 0.7 4 Q0.7 6 2 6 Q2.8 6 3.2 5.4",
        'f' => "M3.1 0.4 Q1.7 -0.3 1.6 1.3 V6 M0.5 2.2 H3",
        'g' => {
            "M3.2 2 V6.9 Q3 8 1.9 8 Q1.1 8 0.6 7.4 M3.2 3 Q2 1.6 0.9 2.6 Q0.4 4 0.9 5 \
                Q2 6.1 3.2 4.9"
        }
        'h' => "M0.8 0 V6 M0.8 3 Q2 1.6 3.2 2.8 V6",
        '1' => "M1 1.2 L2.2 0 V6 M1 6 H3.4",
        '2' => "M0.7 1.2 Q1.2 0 2.2 0 Q3.4 0 3.4 1.4 Q3.4 2.6 0.7 6 H3.5",
        '3' => {
            "M0.7 0.5 Q1.5 0 2.2 0 Q3.4 0 3.3 1.5 Q3.2 2.8 1.6 2.9 Q3.5 3 3.4 4.6 \
                Q3.3 6 2 6 Q1.2 6 0.6 5.5"
        }
        '4' => "M2.8 6 V0 L0.5 4.2 H3.6",
        '5' => {
            "M3.3 0 H0.9 L0.7 2.7 Q1.3 2.2 2.1 2.2 Q3.5 2.3 3.5 4.1 Q3.4 6 2 6 \
                Q1.2 6 0.6 5.5"
        }
        '6' => {
            "M3.1 0.3 Q2.6 0 2 0 Q0.7 0.1 0.6 3.2 Q0.6 6 2 6 Q3.4 6 3.4 4.1 \
                Q3.3 2.4 2 2.4 Q1 2.4 0.6 3.4"
        }
        '7' => "M0.6 0 H3.5 L1.5 6",
        '8' => {
            "M2 2.8 Q0.8 2.6 0.8 1.4 Q0.9 0 2 0 Q3.1 0 3.2 1.4 Q3.2 2.6 2 2.8 \
                Q0.6 3 0.6 4.4 Q0.7 6 2 6 Q3.3 6 3.4 4.4 Q3.4 3 2 2.8"
        }
        _ => return None,
    })
}

/// Appends to `path` (SVG path data) the strokes of `c` with its box's top left corner at
/// (`x`, `y`), `scale` board units per glyph unit. A character without strokes adds nothing.
pub fn push_glyph(path: &mut String, c: char, (x, y): (f64, f64), scale: f64) {
    use std::fmt::Write as _;
    let Some(strokes) = strokes(c) else {
        return;
    };
    let mut command = 'M';
    // which coordinate the next number is: the commands here take x y pairs, except H (x)
    // and V (y)
    let mut is_x = true;
    for token in strokes.split_whitespace() {
        let (letter, number) = match token.chars().next() {
            Some(l) if l.is_ascii_alphabetic() => (Some(l), &token[1..]),
            _ => (None, token),
        };
        if let Some(l) = letter {
            command = l;
            is_x = command != 'V';
            path.push(l);
        } else {
            path.push(' ');
        }
        let Ok(v) = number.parse::<f64>() else {
            continue;
        };
        let at = if is_x { x + v * scale } else { y + v * scale };
        let _ = write!(path, "{}", round(at));
        is_x = match command {
            'H' => true,
            'V' => false,
            _ => !is_x,
        };
    }
}

/// A coordinate as the drawings write it: at most two decimals.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_coordinate_has_strokes_inside_its_box() {
        for c in "abcdefgh12345678".chars() {
            let mut d = String::new();
            push_glyph(&mut d, c, (10.0, 20.0), 2.0);
            assert!(d.starts_with('M'), "{c}: {d}");
            let numbers: Vec<f64> = d
                .split(|ch: char| ch.is_ascii_alphabetic() || ch == ' ')
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().unwrap())
                .collect();
            assert!(numbers.len() >= 2, "{c}");
            for v in numbers {
                assert!(
                    (9.0..=10.0 + 2.0 * 8.0 + 20.0).contains(&v),
                    "{c}: {v} in {d}"
                );
            }
        }
        let mut d = String::new();
        push_glyph(&mut d, 'h', (0.0, 0.0), 1.0);
        assert_eq!(d, "M0.8 0V6M0.8 3Q2 1.6 3.2 2.8V6");
        push_glyph(&mut d, 'x', (0.0, 0.0), 1.0);
        assert_eq!(d, "M0.8 0V6M0.8 3Q2 1.6 3.2 2.8V6");
    }
}
