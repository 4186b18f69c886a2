-- heap_usage.sql: used and free bytes of each heap picture of a DDM stream (hpsg2heapdb):
-- one row per HPST..HPEN (vm) or NHST..NHEN (native) series, then the bytes
-- per kind and solidity, then the VM's own figures from HPIF.
-- Usage: sqlite3 -header -column out.db < schema/queries/heap_usage.sql
SELECT d.dump,
       CASE d.native WHEN 1 THEN 'native' ELSE 'vm' END AS heap_kind,
       d.heap,
       d.segments,
       count(r.rowid) AS runs,
       coalesce(sum(CASE WHEN r.solidity <> 0 THEN r.length END), 0) AS used_bytes,
       coalesce(sum(CASE WHEN r.solidity = 0 THEN r.length END), 0) AS free_bytes,
       coalesce(sum(r.length), 0) AS total_bytes,
       round(100.0 * coalesce(sum(CASE WHEN r.solidity <> 0 THEN r.length END), 0) /
             nullif(sum(r.length), 0), 1) AS used_pct,
       d.complete
FROM ddm_heap_dump d
LEFT JOIN ddm_heap_run r ON r.dump = d.dump
GROUP BY d.dump
ORDER BY d.dump;

SELECT r.dump,
       CASE r.kind WHEN 0 THEN 'object' WHEN 1 THEN 'class object'
                   WHEN 2 THEN 'array of 1-byte' WHEN 3 THEN 'array of 2-byte'
                   WHEN 4 THEN 'array of 4-byte' WHEN 5 THEN 'array of 8-byte'
                   WHEN 6 THEN 'unknown' ELSE 'native' END AS kind,
       CASE r.solidity WHEN 0 THEN 'free' WHEN 1 THEN 'hard' WHEN 2 THEN 'soft'
                       WHEN 3 THEN 'weak' WHEN 4 THEN 'phantom' WHEN 5 THEN 'finalizable'
                       ELSE 'unreachable' END AS solidity,
       count(*) AS runs,
       sum(r.length) AS bytes
FROM ddm_heap_run r
GROUP BY r.dump, r.kind, r.solidity
ORDER BY r.dump, bytes DESC;

SELECT i.chunk, i.heap, i.timestamp, i.max_bytes, i.footprint_bytes,
       i.allocated_bytes, i.allocated_objects,
       round(100.0 * i.allocated_bytes / nullif(i.footprint_bytes, 0), 1) AS allocated_pct
FROM ddm_heap_info i
ORDER BY i.chunk;
