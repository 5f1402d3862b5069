//! The filters on `read_plies`' `ply` column that the scan takes: an upper bound on the
//! ply (`ply <= 20`, `ply < 21`, `ply = 20`, `ply BETWEEN 1 AND 20`, either side of the
//! comparison) lets the scan replay each game only up to that ply
//! ([`crate::validate::ValidateOptions::max_plies`]), so the cost of such a query grows
//! with the bound, not with the games' length. The filter still runs above the scan
//! (pushdown `Inexact`): the rows are the same with or without the cut.

use datafusion::common::ScalarValue;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};

/// The name of the column the bound is on.
const PLY: &str = "ply";

/// The highest ply `filter` lets through, when it is a comparison of the `ply` column with
/// an integer literal that bounds it from above; `None` for any other filter.
#[must_use]
pub(crate) fn ply_bound(filter: &Expr) -> Option<u32> {
    match filter {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
            let (op, value) = if is_ply(left) {
                (*op, integer(right)?)
            } else if is_ply(right) {
                (op.swap()?, integer(left)?)
            } else {
                return None;
            };
            let bound = match op {
                Operator::LtEq | Operator::Eq => value,
                Operator::Lt => value - 1,
                _ => return None,
            };
            Some(clamp(bound))
        }
        Expr::Between(Between {
            expr,
            negated: false,
            high,
            ..
        }) if is_ply(expr) => Some(clamp(integer(high)?)),
        _ => None,
    }
}

/// The lowest of the bounds of `filters` (the scan's filters hold together), if any.
#[must_use]
pub(crate) fn max_ply(filters: &[Expr]) -> Option<u32> {
    filters.iter().filter_map(ply_bound).min()
}

/// A bound as a ply count: below 1, no ply (0).
fn clamp(bound: i128) -> u32 {
    u32::try_from(bound.max(0)).unwrap_or(u32::MAX)
}

/// The `ply` column, possibly cast.
fn is_ply(e: &Expr) -> bool {
    match e {
        Expr::Column(c) => c.name == PLY,
        Expr::Cast(c) => is_ply(&c.expr),
        Expr::TryCast(c) => is_ply(&c.expr),
        _ => false,
    }
}

/// An integer literal (of any integer type, possibly cast) as an `i128`.
fn integer(e: &Expr) -> Option<i128> {
    use ScalarValue::*;
    match e {
        Expr::Literal(v, _) => match v {
            Int8(Some(i)) => Some(i128::from(*i)),
            Int16(Some(i)) => Some(i128::from(*i)),
            Int32(Some(i)) => Some(i128::from(*i)),
            Int64(Some(i)) => Some(i128::from(*i)),
            UInt8(Some(i)) => Some(i128::from(*i)),
            UInt16(Some(i)) => Some(i128::from(*i)),
            UInt32(Some(i)) => Some(i128::from(*i)),
            UInt64(Some(i)) => Some(i128::from(*i)),
            _ => None,
        },
        Expr::Cast(c) => integer(&c.expr),
        Expr::TryCast(c) => integer(&c.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::DataType;
    use datafusion::logical_expr::{col, lit};

    #[test]
    fn upper_bounds_of_the_ply() {
        assert_eq!(ply_bound(&col("ply").lt_eq(lit(20u32))), Some(20));
        assert_eq!(ply_bound(&col("ply").lt(lit(21i64))), Some(20));
        assert_eq!(ply_bound(&col("ply").eq(lit(7i32))), Some(7));
        assert_eq!(ply_bound(&lit(20i64).gt_eq(col("ply"))), Some(20));
        assert_eq!(ply_bound(&lit(20i64).gt(col("ply"))), Some(19));
        assert_eq!(ply_bound(&col("ply").between(lit(3), lit(9))), Some(9));
        assert_eq!(ply_bound(&col("ply").lt(lit(0))), Some(0));
        assert_eq!(ply_bound(&col("ply").lt_eq(lit(-5))), Some(0));
        assert_eq!(
            ply_bound(
                &Expr::Cast(datafusion::logical_expr::Cast::new(
                    Box::new(col("ply")),
                    DataType::Int64
                ))
                .lt_eq(lit(12i64))
            ),
            Some(12)
        );
    }

    #[test]
    fn other_filters_give_none() {
        assert_eq!(ply_bound(&col("ply").gt_eq(lit(20))), None);
        assert_eq!(ply_bound(&col("ply").not_eq(lit(20))), None);
        assert_eq!(ply_bound(&col("game_index").lt_eq(lit(20))), None);
        assert_eq!(ply_bound(&col("ply").lt_eq(col("game_index"))), None);
        assert_eq!(ply_bound(&col("ply").lt_eq(lit("20"))), None);
        assert_eq!(ply_bound(&col("ply").not_between(lit(3), lit(9))), None);
        assert_eq!(
            max_ply(&[col("ply").lt_eq(lit(30)), col("ply").lt(lit(11))]),
            Some(10)
        );
        assert_eq!(max_ply(&[col("san").eq(lit("e4"))]), None);
    }
}
