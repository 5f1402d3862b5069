-- Seed: the WITH statement's final SELECT (not a CTE) — the position after one requested
-- move: every chessman with movecnt + 1 and its before square, plus the castling-done
-- flags, or no row when the move is not in +stage13. Query `validate_move`, run by
-- `SeedPipeline::validate_move` with the parameters bound.
--
-- Constants: none.
-- Translation notes:
--   * `~` -> `.`; `into table @data(move_table)` dropped (the rows are returned).
--   * ABAP host variables `@uuid, @movecnt, @color, @chessman, @from_x, @from_y, @to_x,
--     @to_y` -> DataFusion named placeholders `$uuid` .. `$to_y`, bound per call with
--     `LogicalPlan::with_param_values` on the cached optimised plan.
--   * `movecnt + 1` is CAST back to INT (DataFusion would widen it to BIGINT).
--   * The castling flags can be NULL (from +stage1's CASEs without ELSE); ABAP turns
--     NULL into the initial value (abap_false) when it reads the rows INTO a table, and
--     `SeedPipeline::play` does the same when it stores the next position.
SELECT gameuuid, CAST(movecnt + 1 AS INT) AS movecnt, chessman, color,
       x, y, before_x, before_y, castling_black_long,
       castling_black_short, castling_white_long,
       castling_white_short
FROM next
WHERE gameuuid = $uuid AND
      movecnt = $movecnt AND
      move_color = $color AND
      move_chessman = $chessman AND
      move_from_x = $from_x AND
      move_from_y = $from_y AND
      move_to_x = $to_x AND
      move_to_y = $to_y
