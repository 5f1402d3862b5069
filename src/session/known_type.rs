//! Expression types worked out once, when a stage is planned ([`known_types`]).
//!
//! DataFusion 55 works out an expression's result type again each time some expressions are
//! evaluated: `BinaryExpr::evaluate` (bitwise operators, `AND`, `OR`) and
//! `CaseExpr::evaluate` ask for their own `data_type`, which asks their children's, down to
//! the columns, and the type of an arithmetic node is found by running its kernel on empty
//! arrays (`BinaryTypeCoercer::get_result`). Nested, that is a walk of the whole subtree per
//! node per batch: about 3 % of a replay's time, whose stages project long nested `CASE`
//! and bitwise expressions on a few rows per run. [`known_types`] puts each inner node of
//! an expression in a [`KnownType`], which answers its type from the one worked out at
//! planning and evaluates as the node, so that each such walk stops one level down.

use std::fmt;
use std::hash::Hash;
use std::sync::Arc;

use datafusion::arrow::array::{BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, FieldRef, Schema};
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::ColumnarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::BinaryExpr;

/// An expression whose result field (type, nullability) was worked out once, over the
/// input schema it is evaluated on: it evaluates as `inner` and answers `data_type`,
/// `nullable` and `return_field` without walking `inner`. Displayed as `inner`, in
/// parentheses when `inner` is a binary expression (DataFusion writes a binary child in
/// parentheses only when precedence requires it; the parent's precedence is not known
/// here). `EXPLAIN` is unchanged: a stage projection shows the `ProjectionExec` it stands
/// for ([`super::projection`]).
#[derive(Debug, Eq)]
pub struct KnownType {
    inner: Arc<dyn PhysicalExpr>,
    field: FieldRef,
}

// written out, as DataFusion's own expressions do (rust-lang/rust#78808)
impl PartialEq for KnownType {
    fn eq(&self, other: &Self) -> bool {
        self.inner.eq(&other.inner) && self.field.eq(&other.field)
    }
}

impl Hash for KnownType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.inner.hash(state);
        self.field.hash(state);
    }
}

impl KnownType {
    /// `inner` with its result field over `schema`. Errors: DataFusion's, when `inner`
    /// does not fit `schema`.
    fn over(inner: Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Arc<dyn PhysicalExpr>> {
        let field = inner.return_field(schema)?;
        Ok(Arc::new(KnownType { inner, field }))
    }
}

/// `expr` (evaluated over `schema`) with each child that has children of its own in a
/// [`KnownType`]: the same values, each node's type known without walking below it.
///
/// Errors: DataFusion's, when `expr` does not fit `schema` (it always does in a plan
/// DataFusion made).
pub fn known_types(expr: Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Arc<dyn PhysicalExpr>> {
    expr.transform_up(|node| {
        let inner = |c: &Arc<dyn PhysicalExpr>| !c.children().is_empty() && !c.is::<KnownType>();
        if !node.children().into_iter().any(inner) {
            return Ok(Transformed::no(node));
        }
        let children = node
            .children()
            .into_iter()
            .map(|c| {
                if inner(c) {
                    KnownType::over(c.clone(), schema)
                } else {
                    Ok(c.clone())
                }
            })
            .collect::<Result<Vec<_>>>()?;
        node.with_new_children(children).map(Transformed::yes)
    })
    .map(|t| t.data)
}

impl fmt::Display for KnownType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inner.is::<BinaryExpr>() {
            write!(f, "({})", self.inner)
        } else {
            write!(f, "{}", self.inner)
        }
    }
}

impl PhysicalExpr for KnownType {
    fn data_type(&self, _input_schema: &Schema) -> Result<DataType> {
        Ok(self.field.data_type().clone())
    }

    fn nullable(&self, _input_schema: &Schema) -> Result<bool> {
        Ok(self.field.is_nullable())
    }

    fn return_field(&self, _input_schema: &Schema) -> Result<FieldRef> {
        Ok(self.field.clone())
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        self.inner.evaluate(batch)
    }

    fn evaluate_selection(
        &self,
        batch: &RecordBatch,
        selection: &BooleanArray,
    ) -> Result<ColumnarValue> {
        self.inner.evaluate_selection(batch, selection)
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.inner]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        let [inner]: [Arc<dyn PhysicalExpr>; 1] = children
            .try_into()
            .map_err(|_| DataFusionError::Internal("KnownType: one child expected".into()))?;
        Ok(Arc::new(KnownType {
            inner,
            field: self.field.clone(),
        }))
    }

    fn is_volatile_node(&self) -> bool {
        self.inner.is_volatile_node()
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.inner.is::<BinaryExpr>() {
            write!(f, "(")?;
            self.inner.fmt_sql(f)?;
            write!(f, ")")
        } else {
            self.inner.fmt_sql(f)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Int64Array};
    use datafusion::arrow::datatypes::Field;
    use datafusion::logical_expr::Operator;
    use datafusion::physical_expr::expressions::{CaseExpr, col, lit};

    fn binary(
        l: Arc<dyn PhysicalExpr>,
        op: Operator,
        r: Arc<dyn PhysicalExpr>,
    ) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(l, op, r))
    }

    /// A nested bitwise, arithmetic and `CASE` expression gives the same values, type and
    /// nullability with its inner nodes' types known, each inner node is wrapped once, and
    /// it is written out the same (with the parentheses its precedence needs).
    #[test]
    fn known_types_keep_values_type_and_text() -> Result<()> {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Int64, true),
        ]);
        let a = col("a", &schema)?;
        let b = col("b", &schema)?;
        // ((a + 1) & (b | 6)) << 2, and CASE WHEN a > 2 AND b < 9 THEN that ELSE a - b END
        let bits = binary(
            binary(
                binary(a.clone(), Operator::Plus, lit(1i64)),
                Operator::BitwiseAnd,
                binary(b.clone(), Operator::BitwiseOr, lit(6i64)),
            ),
            Operator::BitwiseShiftLeft,
            lit(2i64),
        );
        let when = binary(
            binary(a.clone(), Operator::Gt, lit(2i64)),
            Operator::And,
            binary(b.clone(), Operator::Lt, lit(9i64)),
        );
        let case: Arc<dyn PhysicalExpr> = Arc::new(CaseExpr::try_new(
            None,
            vec![(when, bits.clone())],
            Some(binary(a, Operator::Minus, b)),
        )?);
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![1, 3, 5, 8])),
            Arc::new(Int64Array::from(vec![Some(2), None, Some(8), Some(11)])),
        ];
        let batch = RecordBatch::try_new(Arc::new(schema.clone()), columns)?;
        let shown = "((a@0 + 1) & (b@1 | 6)) << 2";
        for (expr, text) in [
            (bits, shown.to_string()),
            (case, format!("THEN ({shown}) ELSE")),
        ] {
            let known = known_types(expr.clone(), &schema)?;
            let wrapped = known.children();
            assert!(wrapped.iter().any(|c| c.is::<KnownType>()), "{known}");
            assert!(
                wrapped
                    .iter()
                    .filter(|c| c.is::<KnownType>())
                    .all(|c| c.children().iter().all(|g| !g.is::<KnownType>())),
                "{known}"
            );
            let values = |e: &Arc<dyn PhysicalExpr>| e.evaluate(&batch)?.into_array(4);
            assert_eq!(values(&known)?.as_ref(), values(&expr)?.as_ref());
            let (k, e) = (known.return_field(&schema)?, expr.return_field(&schema)?);
            assert_eq!(
                (k.data_type(), k.is_nullable()),
                (e.data_type(), e.is_nullable())
            );
            // the same text, each binary inner node in parentheses
            let bare = |t: String| t.replace(['(', ')'], "");
            assert_eq!(bare(known.to_string()), bare(expr.to_string()));
            assert!(known.to_string().contains(&text), "{known}");
        }
        Ok(())
    }
}
