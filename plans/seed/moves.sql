-- Seed CTE: +moves — the "baby monster" that fills DEMO_CHESS_MOVES: every move of one
-- chessman alone on the board (7,620 rows), with its helper CTEs +dummy, +numbers,
-- +coordinates, +chessmen and +colors, transcribed from the seed's WITH statement.
-- Registered as the materialised table `moves` (also reachable as `demo_chess_moves`),
-- built once when the seed pipeline is made.
--
-- Constants of CL_DEMO_SQL_CHESS as literals:
--   c_color_white 'W', c_color_black 'B', c_color_invalid '-'
--   c_chessman_king 'K', _queen 'Q', _rook 'R', _knight 'N', _bishop 'B',
--   c_chessman_pawn 'P' (SAP uses a space; no statement depends on the value), _invalid '-'
--   c_special_flag_none ' ', _pawn 'P', _castling 'C', _empty 'E'
--   c_position_invalid 0
--   @abap_true / @abap_false -> true / false (transform_pawn_flag is BOOLEAN)
-- Translation notes:
--   * `~` -> `.`; ABAP `select from .. fields ..` -> `SELECT .. FROM ..`.
--   * +dummy reads T000 for the logon client (one row) -> a one-row SELECT without FROM.
--   * `cast( n as int1 )` -> plain integer; every coordinate column is CAST to INT (Int32).
--   * Seed defects kept: the black castling rows go from (5,8) to (7,1) / (3,1), i.e. to
--     rank 1 (their "dep" rook move is (8,8)->(6,8) / (1,8)->(4,8)); the knight's CASE
--     has `else 2` (harmless: only rows whose CASE is 1 join).
WITH
  dummy AS ( SELECT 1 AS one ),
  numbers(num) AS (
    SELECT CAST(1 AS INT) FROM dummy UNION ALL
    SELECT CAST(2 AS INT) FROM dummy UNION ALL
    SELECT CAST(3 AS INT) FROM dummy UNION ALL
    SELECT CAST(4 AS INT) FROM dummy UNION ALL
    SELECT CAST(5 AS INT) FROM dummy UNION ALL
    SELECT CAST(6 AS INT) FROM dummy UNION ALL
    SELECT CAST(7 AS INT) FROM dummy UNION ALL
    SELECT CAST(8 AS INT) FROM dummy ),
  coordinates(x_pos, y_pos) AS ( SELECT t1.num, t2.num FROM numbers AS t1
                                   CROSS JOIN numbers AS t2 ),
  chessmen(chessman) AS (
    SELECT 'K' FROM dummy UNION ALL
    SELECT 'Q' FROM dummy UNION ALL
    SELECT 'R' FROM dummy UNION ALL
    SELECT 'N' FROM dummy UNION ALL
    SELECT 'B' FROM dummy UNION ALL
    SELECT 'P' FROM dummy ),
  colors(color) AS (
    SELECT 'W' FROM dummy UNION ALL
    SELECT 'B' FROM dummy ),
  moves(color, chessman, from_x, from_y, to_x, to_y, special_flag, color_dep,
        chessman_dep, from_x_dep, from_y_dep, to_x_dep, to_y_dep,
        transform_pawn_flag) AS (
  SELECT color, chessman, source.x_pos, source.y_pos, target.x_pos, target.y_pos,
    coalesce(
      CASE chessman
        WHEN 'K' THEN CASE WHEN ( color = 'W' AND source.x_pos = 5
                AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 ) OR
               ( color = 'W' AND source.x_pos = 5
                AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 ) OR
               ( color = 'B' AND source.x_pos = 5
                AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 ) OR
               ( color = 'B' AND source.x_pos = 5
                 AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
            THEN 'C'
            END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1
               THEN 'P'
               ELSE 'E'
          END
      END
    , ' ' ),
    coalesce(
      CASE chessman
        WHEN 'K'
          THEN CASE WHEN abs( target.x_pos - source.x_pos ) > 1
                    THEN color
                    END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN 'B'
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN 'W'
          END
      END
      , '-' ),
    coalesce(
      CASE chessman
        WHEN 'K' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) > 1
               THEN 'R'
               END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN 'P'
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN 'P'
          END
      END
      , '-' ),
    CAST(coalesce(
      CASE chessman
        WHEN 'K' THEN
          CASE WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 8
               WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 1
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 8
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 1
          END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN target.x_pos
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN target.x_pos
          END
      END
      , 0 ) AS INT),
    CAST(coalesce(
      CASE chessman
        WHEN 'K' THEN
          CASE WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 1
               WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 1
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 8
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 8
          END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN 7
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN 2
          END
      END
      , 0 ) AS INT),
    CAST(coalesce(
      CASE chessman
        WHEN 'K' THEN
          CASE WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 6
               WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 4
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 6
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 4
          END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN target.x_pos
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN target.x_pos
          END
      END
      , 0 ) AS INT),
    CAST(coalesce(
      CASE chessman
        WHEN 'K' THEN
          CASE WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 1
               WHEN ( color = 'W' AND source.x_pos = 5
                      AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 1
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 )
               THEN 8
               WHEN ( color = 'B' AND source.x_pos = 5
                      AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
               THEN 8
          END
        WHEN 'P' THEN
          CASE WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                    color = 'W' AND
                    source.y_pos = 5 AND
                    target.y_pos = 6 )
               THEN 5
               WHEN abs( target.x_pos - source.x_pos ) = 1 AND (
                 color = 'B' AND
                 source.y_pos = 4 AND
                 target.y_pos = 3 )
               THEN 4
          END
      END
      , 0 ) AS INT),
    CASE chessman
      WHEN 'P' THEN
        CASE WHEN ( target.y_pos = 1 AND color = 'B' ) OR
                  ( target.y_pos = 8 AND color = 'W' )
             THEN true
             ELSE false
        END
      ELSE false
    END
  FROM colors AS colors
    CROSS JOIN chessmen AS chessman
    CROSS JOIN coordinates AS source
    INNER JOIN coordinates AS target ON
    CASE chessman
      WHEN 'K' THEN
         CASE WHEN ( abs( source.x_pos - target.x_pos ) <= 1 AND
                     abs( source.y_pos - target.y_pos ) <= 1 AND NOT
                     ( source.x_pos = target.x_pos AND
                       source.y_pos = target.y_pos ) ) OR
                   ( color = 'W' AND source.x_pos = 5
                     AND source.y_pos = 1 AND target.x_pos = 7 AND target.y_pos = 1 ) OR
                   ( color = 'W' AND source.x_pos = 5
                     AND source.y_pos = 1 AND target.x_pos = 3 AND target.y_pos = 1 ) OR
                   ( color = 'B' AND source.x_pos = 5
                     AND source.y_pos = 8 AND target.x_pos = 7 AND target.y_pos = 1 ) OR
                   ( color = 'B' AND source.x_pos = 5
                     AND source.y_pos = 8 AND target.x_pos = 3 AND target.y_pos = 1 )
         THEN 1 ELSE 0 END
      WHEN 'Q' THEN
         CASE WHEN ( abs( target.y_pos - source.y_pos ) =
                     abs( target.x_pos - source.x_pos ) OR
                     target.x_pos = source.x_pos OR
                     target.y_pos = source.y_pos ) AND NOT
                   ( source.x_pos = target.x_pos AND
                     source.y_pos = target.y_pos )
         THEN 1 ELSE 0 END
      WHEN 'R' THEN
         CASE WHEN ( target.x_pos = source.x_pos OR
                     target.y_pos = source.y_pos ) AND NOT
                   ( source.x_pos = target.x_pos AND
                     source.y_pos = target.y_pos )
         THEN 1 ELSE 0 END
      WHEN 'N' THEN
         CASE WHEN ( abs( target.x_pos - source.x_pos ) = 1 AND
                     abs( target.y_pos - source.y_pos ) = 2 ) OR
                   ( abs( target.x_pos - source.x_pos ) = 2 AND
                     abs( target.y_pos - source.y_pos ) = 1 )
         THEN 1 ELSE 2 END
      WHEN 'B' THEN
         CASE WHEN abs( target.y_pos - source.y_pos ) =
                   abs( target.x_pos - source.x_pos ) AND NOT
                   ( source.x_pos = target.x_pos AND
                     source.y_pos = target.y_pos )
         THEN 1 ELSE 0 END
      WHEN 'P' THEN
         CASE WHEN ( color = 'W' AND
                     target.y_pos = source.y_pos + 1 AND
                     abs( target.x_pos - source.x_pos ) <= 1 AND
                     source.y_pos > 1
                   ) OR
                   ( color = 'W' AND
                     target.y_pos = 4 AND
                     source.y_pos = 2 AND
                     target.x_pos = source.x_pos ) OR
                   ( color = 'B' AND
                     target.y_pos = source.y_pos - 1 AND
                     abs( target.x_pos - source.x_pos ) <= 1 AND
                     source.y_pos < 8 ) OR
                   ( color = 'B' AND
                     target.y_pos = 5 AND
                     source.y_pos = 7 AND
                     target.x_pos = source.x_pos )
         THEN 1 ELSE 0 END
    END = 1
  )
SELECT * FROM moves
