-- alloc_by_thread.sql: allocations by thread, from allocation-tracker reports (alloc2heapdb,
-- hpsg2heapdb).  thread_ids says what the u2 id is (ddm_alloc_report): "vm"
-- ids (Dalvik, ART 5-6) are named from THCR/THNM chunks of the same DDM
-- stream when there are any; "linux-tid-16" ids (ART 7+) are Linux tids mod
-- 65536 and matched with THST's tid.
-- Usage: sqlite3 -header -column out.db < schema/queries/alloc_by_thread.sql
WITH named AS (
  SELECT t.thread, s.data AS name
  FROM ddm_thread t JOIN strings s ON s.stringid = t.name
  WHERE t.name IS NOT NULL
    AND t.chunk = (SELECT max(t2.chunk) FROM ddm_thread t2
                   WHERE t2.thread = t.thread AND t2.name IS NOT NULL)
),
by_tid AS (
  SELECT DISTINCT t.tid % 65536 AS tid16, n.name
  FROM ddm_thread t JOIN named n ON n.thread = t.thread
  WHERE t.event = 'status'
)
SELECT a.thread,
       r.thread_ids,
       CASE r.thread_ids WHEN 'vm' THEN (SELECT name FROM named WHERE thread = a.thread)
                         ELSE (SELECT name FROM by_tid WHERE tid16 = a.thread LIMIT 1) END AS name,
       count(*) AS allocations,
       sum(a.size) AS bytes,
       count(DISTINCT a.class) AS classes
FROM ddm_allocation a
JOIN ddm_alloc_report r ON r.report = a.report
GROUP BY a.thread, r.thread_ids
ORDER BY bytes DESC, allocations DESC;
