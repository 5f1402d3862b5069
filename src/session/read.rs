//! Reading batches by column name: typed columns ([`column`], [`primitive`], [`strings`],
//! [`booleans`]) and small row structs declared with [`crate::table_row!`].
//!
//! A column is found by its name, never by its position, and cast to the type asked for
//! when it has another (e.g. `Int64` counts read as `i64`, `Utf8View` as `Utf8`).

use datafusion::arrow::array::{
    Array, ArrayRef, ArrowPrimitiveType, AsArray, BooleanArray, PrimitiveArray, RecordBatch,
    StringArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type, UInt64Type};

use super::{Result, SessionError};

/// The column `name` of a batch, cast to `data_type` if it has another type.
///
/// Errors: [`SessionError::Column`] if there is no such column or it cannot be cast.
pub fn column(batch: &RecordBatch, name: &str, data_type: &DataType) -> Result<ArrayRef> {
    let c = batch
        .column_by_name(name)
        .ok_or_else(|| SessionError::Column {
            column: name.to_string(),
            reason: "missing".to_string(),
        })?;
    if c.data_type() == data_type {
        return Ok(c.clone());
    }
    cast(c, data_type).map_err(|e| SessionError::Column {
        column: name.to_string(),
        reason: format!("cannot be read as {data_type}: {e}"),
    })
}

/// The column `name` as a primitive array of `T`. Errors: as [`column`].
pub fn primitive<T: ArrowPrimitiveType>(
    batch: &RecordBatch,
    name: &str,
) -> Result<PrimitiveArray<T>> {
    Ok(column(batch, name, &T::DATA_TYPE)?
        .as_primitive::<T>()
        .clone())
}

/// The column `name` as Utf8 strings. Errors: as [`column`].
pub fn strings(batch: &RecordBatch, name: &str) -> Result<StringArray> {
    Ok(column(batch, name, &DataType::Utf8)?
        .as_string::<i32>()
        .clone())
}

/// The column `name` as booleans. Errors: as [`column`].
pub fn booleans(batch: &RecordBatch, name: &str) -> Result<BooleanArray> {
    Ok(column(batch, name, &DataType::Boolean)?
        .as_boolean()
        .clone())
}

/// A Rust value read from an Arrow column of [`ColumnValue::data_type`].
pub trait ColumnValue: Sized {
    /// The Arrow type the column is cast to.
    fn data_type() -> DataType;
    /// The value at `row` of an array of [`ColumnValue::data_type`]; `None` if NULL.
    fn value(array: &ArrayRef, row: usize) -> Option<Self>;
}

macro_rules! primitive_value {
    ($($t:ty => $arrow:ty),*) => {$(
        impl ColumnValue for $t {
            fn data_type() -> DataType {
                <$arrow as ArrowPrimitiveType>::DATA_TYPE
            }
            fn value(array: &ArrayRef, row: usize) -> Option<Self> {
                let a = array.as_primitive::<$arrow>();
                a.is_valid(row).then(|| a.value(row))
            }
        }
    )*};
}

primitive_value!(u64 => UInt64Type, i64 => Int64Type, i32 => Int32Type, f64 => Float64Type);

impl ColumnValue for bool {
    fn data_type() -> DataType {
        DataType::Boolean
    }
    fn value(array: &ArrayRef, row: usize) -> Option<Self> {
        let a = array.as_boolean();
        a.is_valid(row).then(|| a.value(row))
    }
}

impl ColumnValue for String {
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn value(array: &ArrayRef, row: usize) -> Option<Self> {
        let a = array.as_string::<i32>();
        a.is_valid(row).then(|| a.value(row).to_string())
    }
}

/// A field of a row struct: a [`ColumnValue`] (NULL is an error) or an `Option` of one.
pub trait FieldValue: Sized {
    /// The Arrow type the column is cast to.
    fn data_type() -> DataType;
    /// The value at `row`. Errors: [`SessionError::Column`] for a NULL in a required field.
    fn get(array: &ArrayRef, row: usize, column: &str) -> Result<Self>;
}

macro_rules! field_value {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            fn data_type() -> DataType {
                <$t as ColumnValue>::data_type()
            }
            fn get(array: &ArrayRef, row: usize, column: &str) -> Result<Self> {
                <$t as ColumnValue>::value(array, row).ok_or_else(|| SessionError::Column {
                    column: column.to_string(),
                    reason: format!("NULL in row {row}"),
                })
            }
        }
        impl FieldValue for Option<$t> {
            fn data_type() -> DataType {
                <$t as ColumnValue>::data_type()
            }
            fn get(array: &ArrayRef, row: usize, _column: &str) -> Result<Self> {
                Ok(<$t as ColumnValue>::value(array, row))
            }
        }
    )*};
}

field_value!(u64, i64, i32, f64, bool, String);

/// A struct read from batches one row at a time, each field from the column of its name.
pub trait Row: Sized {
    /// Every row of the batches. Errors: [`SessionError::Column`].
    fn read_rows(batches: &[RecordBatch]) -> Result<Vec<Self>>;
}

/// Declares a struct whose fields are read from the columns of the same names
/// ([`crate::session::read::Row`]): `u64`, `i64`, `i32`, `f64`, `bool`, `String`, or an
/// `Option` of one for a nullable column.
#[macro_export]
macro_rules! table_row {
    ($(#[$m:meta])* $vis:vis struct $name:ident {
        $($(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name {
            $($(#[$fm])* $fvis $field: $ty),*
        }

        impl $crate::session::read::Row for $name {
            fn read_rows(
                batches: &[datafusion::arrow::array::RecordBatch],
            ) -> $crate::session::Result<Vec<Self>> {
                use $crate::session::read::FieldValue;
                let mut out = Vec::new();
                for batch in batches {
                    $(let $field = $crate::session::read::column(
                        batch,
                        stringify!($field),
                        &<$ty as FieldValue>::data_type(),
                    )?;)*
                    for row in 0..batch.num_rows() {
                        out.push($name {
                            $($field: <$ty as FieldValue>::get(&$field, row, stringify!($field))?),*
                        });
                    }
                }
                Ok(out)
            }
        }
    };
}
