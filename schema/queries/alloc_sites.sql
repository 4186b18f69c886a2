-- alloc_sites.sql: the top allocation sites of allocation-tracker reports (alloc2heapdb, hpsg2heapdb):
-- first grouped by the allocating (innermost) frame, then by the full stack.
-- Each lists the sites in the top 25 by count or by bytes, with both ranks.
-- A frame reads like Java's StackTraceElement: class.method(File.java:line);
-- "Native Method" for line -2; the file without a line for -1 (no line
-- known); "Unknown Source" in place of an empty file name (see
-- ddm_stack_frame).
-- Usage: sqlite3 -header -column out.db < schema/queries/alloc_sites.sql
WITH frame_text AS (
  SELECT f.frame,
         c.data || '.' || m.data || '(' ||
           CASE WHEN f.native = 1 THEN 'Native Method'
                WHEN f.source_line IS NULL THEN
                  CASE WHEN fl.data = '' THEN 'Unknown Source' ELSE fl.data END
                ELSE CASE WHEN fl.data = '' THEN 'Unknown Source' ELSE fl.data END ||
                     ':' || f.source_line END || ')' AS text
  FROM ddm_stack_frame f
  JOIN strings c ON c.stringid = f.class
  JOIN strings m ON m.stringid = f.method
  JOIN strings fl ON fl.stringid = f.file
),
by_top AS (
  SELECT a.top_frame, count(*) AS allocations, sum(a.size) AS bytes
  FROM ddm_allocation a GROUP BY a.top_frame
),
ranked_top AS (
  SELECT *, rank() OVER (ORDER BY allocations DESC) AS rank_by_count,
            rank() OVER (ORDER BY bytes DESC) AS rank_by_bytes
  FROM by_top
)
SELECT r.allocations, r.bytes, r.rank_by_count, r.rank_by_bytes,
       coalesce(t.text, '(no stack)') AS allocating_frame
FROM ranked_top r LEFT JOIN frame_text t ON t.frame = r.top_frame
WHERE r.rank_by_count <= 25 OR r.rank_by_bytes <= 25
ORDER BY r.allocations DESC, r.bytes DESC;

WITH frame_text AS (
  SELECT f.frame,
         c.data || '.' || m.data || '(' ||
           CASE WHEN f.native = 1 THEN 'Native Method'
                WHEN fl.data = '' THEN 'Unknown Source'
                ELSE fl.data END ||
           CASE WHEN f.source_line IS NULL THEN '' ELSE ':' || f.source_line END || ')' AS text
  FROM ddm_stack_frame f
  JOIN strings c ON c.stringid = f.class
  JOIN strings m ON m.stringid = f.method
  JOIN strings fl ON fl.stringid = f.file
),
by_stack AS (
  SELECT a.stack, count(*) AS allocations, sum(a.size) AS bytes, max(a.depth) AS depth
  FROM ddm_allocation a GROUP BY a.stack
),
ranked AS (
  SELECT *, rank() OVER (ORDER BY allocations DESC) AS rank_by_count,
            rank() OVER (ORDER BY bytes DESC) AS rank_by_bytes
  FROM by_stack
)
SELECT r.allocations, r.bytes, r.rank_by_count, r.rank_by_bytes, r.depth,
       coalesce((SELECT group_concat(text, ' <- ') FROM
                   (SELECT t.text FROM ddm_stack_element e JOIN frame_text t ON t.frame = e.frame
                    WHERE e.stack = r.stack ORDER BY e.depth)), '(no stack)') AS stack
FROM ranked r
WHERE r.rank_by_count <= 25 OR r.rank_by_bytes <= 25
ORDER BY r.allocations DESC, r.bytes DESC;
