//! SVG drawings to PNG with resvg (its renderer tiny-skia and its PNG encoder), no font
//! needed: our drawings that become PNG (boards) write their text as paths.

use crate::error::{Error, Result};

/// The PNG of an SVG document at the size its `width` and `height` give.
///
/// Errors: [`Error::Picture`] when the SVG does not parse or the size is zero.
pub fn png(svg: &str) -> Result<Vec<u8>> {
    let bad = |what: String| Error::Picture(what);
    let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
        .map_err(|e| bad(format!("the SVG does not parse: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| bad(format!("no pixels for a size of {size:?}")))?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| bad(format!("PNG encoding failed: {e}")))
}
