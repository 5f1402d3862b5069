//! The shapes every drawing of `src/picture/` is made of, written with the `svg` crate, their
//! coordinates rounded to two decimals (the same drawing gives the same bytes).

use svg::node::element::{Rectangle, Text};

/// A coordinate as the drawings write it: at most two decimals.
#[must_use]
pub fn round(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// A filled rectangle, its top left corner at (`x`, `y`), `w` wide and `h` high.
#[must_use]
pub fn rect(x: f64, y: f64, w: f64, h: f64, fill: &str) -> Rectangle {
    Rectangle::new()
        .set("x", round(x))
        .set("y", round(y))
        .set("width", round(w))
        .set("height", round(h))
        .set("fill", fill)
}

/// Text with its baseline's start at (`x`, `y`), `size` units high.
#[must_use]
pub fn text(x: f64, y: f64, size: f64, content: impl Into<String>) -> Text {
    Text::new(content)
        .set("x", round(x))
        .set("y", round(y))
        .set("font-size", size)
}
