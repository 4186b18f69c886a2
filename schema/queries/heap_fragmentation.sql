-- heap_fragmentation.sql: fragmentation of each heap picture of a DDM stream (hpsg2heapdb): free
-- bytes, number of free runs, the largest free run, and
--   fragmentation = 1 - largest free run / free bytes
-- (0: all free memory in one run; near 1: scattered in small pieces).
-- Usage: sqlite3 -header -column out.db < schema/queries/heap_fragmentation.sql
SELECT d.dump,
       CASE d.native WHEN 1 THEN 'native' ELSE 'vm' END AS heap_kind,
       d.heap,
       coalesce(sum(r.length), 0) AS free_bytes,
       count(r.rowid) AS free_runs,
       coalesce(max(r.length), 0) AS largest_free_run,
       round(coalesce(avg(r.length), 0), 1) AS avg_free_run,
       coalesce(sum(CASE WHEN r.length < 64 THEN 1 ELSE 0 END), 0) AS free_runs_under_64_bytes,
       round(CASE WHEN coalesce(sum(r.length), 0) = 0 THEN 0
                  ELSE 1.0 - 1.0 * max(r.length) / sum(r.length) END, 4) AS fragmentation
FROM ddm_heap_dump d
LEFT JOIN ddm_heap_run r ON r.dump = d.dump AND r.solidity = 0
GROUP BY d.dump
ORDER BY d.dump;
