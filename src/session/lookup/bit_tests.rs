//! A join filter of bit tests, evaluated pair by pair: a conjunction of `a & b [& …] <> 0`
//! and `a & b [& …] = 0` over UInt64 columns, as the stages test square sets
//! (`r.from_bit & w.kept <> 0 AND r.between_mask & w.occupied = 0`); a NULL fails its test.
//! A [`StaticLookupExec`](super::StaticLookupExec) meets many static rows per probe row
//! (every ray into a square). Read as one expression, the filter takes each column it names
//! at every matched pair into a batch and evaluates a kernel per operator, each into a new
//! buffer; here each pair is tested on the columns' values where they are, as the index
//! finds it, and only the pairs that pass are kept. The same pairs pass: the filter's
//! meaning, evaluated otherwise.

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::buffer::NullBuffer;
use datafusion::arrow::datatypes::{DataType, UInt64Type};
use datafusion::common::{JoinSide, ScalarValue};
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};
use datafusion::physical_plan::joins::utils::JoinFilter;

/// The filter's tests: per test, the columns ANDed (static side or not, index there) and
/// whether the result must be non-zero (`<> 0`) or zero (`= 0`).
#[derive(Debug)]
pub(super) struct BitTests {
    tests: Vec<(Vec<(bool, usize)>, bool)>,
}

impl BitTests {
    /// The filter as bit tests, if it is a conjunction of them over UInt64 columns; `None`
    /// for any other filter (it is then evaluated as an expression).
    pub(super) fn of(filter: &JoinFilter, static_left: bool) -> Option<BitTests> {
        let mut tests = vec![];
        for conjunct in conjuncts(filter.expression().as_ref()) {
            let b = conjunct.downcast_ref::<BinaryExpr>()?;
            let nonzero = match b.op() {
                Operator::NotEq => true,
                Operator::Eq => false,
                _ => return None,
            };
            let operand = match (is_zero(b.left().as_ref()), is_zero(b.right().as_ref())) {
                (false, true) => b.left(),
                (true, false) => b.right(),
                _ => return None,
            };
            let mut columns = vec![];
            for c in and_operands(operand.as_ref())? {
                let i = c.downcast_ref::<Column>()?.index();
                if filter.schema().fields().get(i)?.data_type() != &DataType::UInt64 {
                    return None;
                }
                let at = filter.column_indices().get(i)?;
                columns.push(((at.side == JoinSide::Left) == static_left, at.index));
            }
            tests.push((columns, nonzero));
        }
        (!tests.is_empty()).then_some(BitTests { tests })
    }

    /// The tests over these batches' columns (the static side's rows, a probe batch);
    /// `None` when a column they read is not a UInt64 column there (the caller then
    /// evaluates the filter as an expression).
    pub(super) fn over<'a>(
        &self,
        statics: &'a RecordBatch,
        probes: &'a RecordBatch,
    ) -> Option<BoundTests<'a>> {
        let values = |from_static: bool, index: usize| {
            let batch = if from_static { statics } else { probes };
            let column = batch.column(index).as_primitive_opt::<UInt64Type>()?;
            Some(Bound {
                from_static,
                values: column.values().as_ref(),
                nulls: column.nulls().filter(|n| n.null_count() > 0),
            })
        };
        let tests = self
            .tests
            .iter()
            .map(|(columns, nonzero)| {
                let columns = columns
                    .iter()
                    .map(|&(from_static, i)| values(from_static, i))
                    .collect::<Option<Vec<_>>>()?;
                Some((columns, *nonzero))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(BoundTests { tests })
    }
}

/// A column a test reads: of the static side or the probe batch, its values and nulls.
struct Bound<'a> {
    from_static: bool,
    values: &'a [u64],
    nulls: Option<&'a NullBuffer>,
}

/// [`BitTests`] over the columns of one static side and one probe batch.
pub(super) struct BoundTests<'a> {
    tests: Vec<(Vec<Bound<'a>>, bool)>,
}

impl BoundTests<'_> {
    /// Whether the pair (static row, probe row) passes every test. A NULL makes its test
    /// NULL, and the filter keeps no pair whose filter is NULL.
    pub(super) fn pass(&self, static_row: u64, probe_row: u32) -> bool {
        self.tests.iter().all(|(columns, nonzero)| {
            let mut bits = u64::MAX;
            for c in columns {
                let row = if c.from_static {
                    static_row as usize
                } else {
                    probe_row as usize
                };
                if c.nulls.is_some_and(|n| n.is_null(row)) {
                    return false;
                }
                bits &= c.values[row];
            }
            (bits != 0) == *nonzero
        })
    }
}

/// The operands of a chain of `AND`s (the expression itself when it is not one).
fn conjuncts(e: &dyn PhysicalExpr) -> Vec<&dyn PhysicalExpr> {
    match e.downcast_ref::<BinaryExpr>() {
        Some(b) if *b.op() == Operator::And => {
            let mut out = conjuncts(b.left().as_ref());
            out.extend(conjuncts(b.right().as_ref()));
            out
        }
        _ => vec![e],
    }
}

/// The operands of a chain of bitwise `&`s, if all are columns.
fn and_operands(e: &dyn PhysicalExpr) -> Option<Vec<&dyn PhysicalExpr>> {
    match e.downcast_ref::<BinaryExpr>() {
        Some(b) if *b.op() == Operator::BitwiseAnd => {
            let mut out = and_operands(b.left().as_ref())?;
            out.extend(and_operands(b.right().as_ref())?);
            Some(out)
        }
        _ => e.downcast_ref::<Column>().is_some().then_some(vec![e]),
    }
}

/// Whether an expression is the literal 0 (of any integer type).
fn is_zero(e: &dyn PhysicalExpr) -> bool {
    e.downcast_ref::<Literal>().is_some_and(|l| {
        matches!(
            l.value(),
            ScalarValue::UInt64(Some(0))
                | ScalarValue::Int64(Some(0))
                | ScalarValue::UInt32(Some(0))
                | ScalarValue::Int32(Some(0))
        )
    })
}
