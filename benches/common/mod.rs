//! Helpers shared by the benches.
#![allow(dead_code)]

use datafusion::arrow::array::RecordBatch;

/// The positions of tests/data/oracle_positions.csv with python-chess's number of legal
/// moves (`legal_move_count`).
pub fn fens() -> Vec<(String, usize)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/oracle_positions.csv"
    );
    let mut rdr = csv::Reader::from_path(path).expect("oracle positions");
    rdr.records()
        .map(|r| {
            let r = r.expect("row");
            (r[0].to_string(), r[1].parse().expect("legal_move_count"))
        })
        .collect()
}

/// Rows of record batches.
pub fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}
