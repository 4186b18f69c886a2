-- alloc_by_class.sql: allocations by allocated class (display form, as ddmlib shows it), largest
-- byte totals first, from allocation-tracker reports (alloc2heapdb, hpsg2heapdb).
-- Usage: sqlite3 -header -column out.db < schema/queries/alloc_by_class.sql
SELECT s.data AS class,
       count(*) AS allocations,
       sum(a.size) AS bytes,
       round(avg(a.size), 1) AS avg_size,
       min(a.size) AS min_size,
       max(a.size) AS max_size,
       count(DISTINCT a.thread) AS threads,
       count(DISTINCT a.top_frame) AS sites
FROM ddm_allocation a
JOIN strings s ON s.stringid = a.class
GROUP BY a.class
ORDER BY bytes DESC, allocations DESC;
