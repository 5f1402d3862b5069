//! An optimizer rule: `plies_of` computes only the item fields a query reads.
//!
//! `SELECT p['position_key'] FROM (SELECT unnest(plies_of(movetext)) AS p FROM t)` reads
//! one of the item's eleven fields, yet `plies_of(moves)` writes them all: a FEN and a SAN
//! string per ply among them. DataFusion 55 moves such field reads (`get_field`) down to
//! the projection right above the `Unnest` (its `extract_leaf_expressions` rule), so the
//! logical plan ends as
//!
//! ```text
//! Projection: get_field(__unnest_placeholder(…,depth=1), Utf8("position_key")) …
//!   Unnest: lists[__unnest_placeholder(…)|depth=1]
//!     Projection: plies_of(movetext, …) AS __unnest_placeholder(…)
//! ```
//!
//! When every use of the unnested items in the upper projection is such a field read, this
//! rule gives `plies_of` its fourth argument, the names of the fields read
//! (`plies_of(movetext, NULL, NULL, 'position_key')`, see [`super::move_functions`]), and
//! the plan's schemas are recomputed. Any other use (the whole struct selected, passed on
//! through a column, a field that is not a literal) leaves the plan as it is, and so does
//! any other shape; the rule only chooses what is computed, never what the query returns
//! (it keeps the upper projection's schema or does nothing).

use std::collections::BTreeSet;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::expr::{Alias, ScalarFunction};
use datafusion::logical_expr::{Expr, LogicalPlan, Projection, Unnest};
use datafusion::optimizer::optimizer::ApplyOrder;
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

use super::move_functions::{MoveFunction, PLY_FIELDS};

/// The rule (see the module docs); `EXPLAIN VERBOSE` names it `plies_of_fields`.
#[derive(Debug, Default)]
pub(crate) struct PliesOfFields;

impl OptimizerRule for PliesOfFields {
    fn name(&self) -> &str {
        "plies_of_fields"
    }

    fn apply_order(&self) -> Option<ApplyOrder> {
        Some(ApplyOrder::TopDown)
    }

    fn supports_rewrite(&self) -> bool {
        true
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        _config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        match narrowed(&plan)? {
            Some(new) => Ok(Transformed::yes(new)),
            None => Ok(Transformed::no(plan)),
        }
    }
}

/// `plan` with its `plies_of` calls narrowed, or `None` when it is not the shape above or
/// nothing narrows.
fn narrowed(plan: &LogicalPlan) -> Result<Option<LogicalPlan>> {
    let LogicalPlan::Projection(top) = plan else {
        return Ok(None);
    };
    let LogicalPlan::Unnest(unnest) = top.input.as_ref() else {
        return Ok(None);
    };
    let LogicalPlan::Projection(bottom) = unnest.input.as_ref() else {
        return Ok(None);
    };
    let mut exprs = bottom.expr.clone();
    let mut changed = false;
    for (index, list) in &unnest.list_type_columns {
        if list.depth != 1 || unnest.struct_type_columns.contains(index) {
            continue;
        }
        let Some(fields) = fields_read(&top.expr, &list.output_column.name)? else {
            continue;
        };
        if let Some(expr) = exprs.get_mut(*index)
            && let Some(new) = with_fields(expr, &fields)
        {
            *expr = new;
            changed = true;
        }
    }
    if !changed {
        return Ok(None);
    }
    let bottom = Projection::try_new(exprs, bottom.input.clone())?;
    let unnest = LogicalPlan::Unnest(Unnest {
        input: Arc::new(LogicalPlan::Projection(bottom)),
        ..unnest.clone()
    })
    .recompute_schema()?;
    let new = Projection::try_new(top.expr.clone(), Arc::new(unnest))?;
    Ok((new.schema == top.schema).then_some(LogicalPlan::Projection(new)))
}

/// The item fields `exprs` read from the column `name`, in [`PLY_FIELDS`]' order (at least
/// one: the cheapest, `ply`, when none); `None` when an expression uses the column in
/// another way than `get_field(name, '<field>')`, or reads every field.
fn fields_read(exprs: &[Expr], name: &str) -> Result<Option<Vec<&'static str>>> {
    let mut read = BTreeSet::new();
    let mut other_use = false;
    for expr in exprs {
        expr.apply(|e| {
            if let Expr::ScalarFunction(f) = e
                && f.func.name() == "get_field"
                && let [column, Expr::Literal(field, _), ..] = f.args.as_slice()
                && matches!(unaliased(column), Expr::Column(c) if c.name == name)
            {
                return Ok(match field {
                    ScalarValue::Utf8(Some(s))
                    | ScalarValue::Utf8View(Some(s))
                    | ScalarValue::LargeUtf8(Some(s)) => {
                        read.insert(s.clone());
                        TreeNodeRecursion::Jump
                    }
                    _ => {
                        other_use = true;
                        TreeNodeRecursion::Stop
                    }
                });
            }
            if matches!(e, Expr::Column(c) if c.name == name) {
                other_use = true;
                return Ok(TreeNodeRecursion::Stop);
            }
            Ok(TreeNodeRecursion::Continue)
        })?;
        if other_use {
            return Ok(None);
        }
    }
    let mut fields: Vec<&'static str> = PLY_FIELDS
        .iter()
        .copied()
        .filter(|f| read.contains(*f))
        .collect();
    if fields.len() == PLY_FIELDS.len() {
        return Ok(None);
    }
    if fields.is_empty() {
        fields.push("ply");
    }
    Ok(Some(fields))
}

/// `expr` without its aliases (the unnested column arrives as
/// `__unnest_placeholder(…) AS UNNEST(…)`).
fn unaliased(mut expr: &Expr) -> &Expr {
    while let Expr::Alias(a) = expr {
        expr = &a.expr;
    }
    expr
}

/// `expr`, an aliased call of our `plies_of` without `fields`, with its missing arguments
/// (NULL `start_fen`, NULL `chess960`) and `fields`; `None` for any other expression.
fn with_fields(expr: &Expr, fields: &[&str]) -> Option<Expr> {
    let Expr::Alias(alias) = expr else {
        return None;
    };
    let Expr::ScalarFunction(call) = alias.expr.as_ref() else {
        return None;
    };
    let inner: &dyn std::any::Any = call.func.inner().as_ref();
    let ours = inner.downcast_ref::<MoveFunction>();
    if call.func.name() != "plies_of" || ours.is_none() || call.args.len() > 3 {
        return None;
    }
    let mut args = call.args.clone();
    let missing = [
        ScalarValue::Utf8(None),
        ScalarValue::Boolean(None),
        ScalarValue::Utf8(Some(fields.join(","))),
    ];
    args.extend(
        missing[args.len() - 1..]
            .iter()
            .map(|v| Expr::Literal(v.clone(), None)),
    );
    let call = Expr::ScalarFunction(ScalarFunction::new_udf(call.func.clone(), args));
    Some(Expr::Alias(Alias {
        expr: Box::new(call),
        ..alias.clone()
    }))
}
