-- class_histogram.sql: how many objects of each class the heap holds and how
-- many bytes they take (shallow sizes, see schema/README.md), biggest first.
--
-- Arrays are counted under their array class (byte[], java.lang.Object[]),
-- class objects under java.lang.Class (with the java.lang.Class instances a
-- HotSpot dump writes for int.class and the other primitive mirrors).  A file
-- with several heap dumps gets one row per class and dump.
--
-- Columns: class (Java source form), instances, bytes, dump.
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/class_histogram.sql
--   sqlite3 -header -column -cmd ".parameter set @dump 1" out.db < schema/queries/class_histogram.sql
-- Parameter (optional): @dump, the heap dump to count (default: every dump).
SELECT coalesce(
           cn.data,
           ln.data,
           CASE h.kind WHEN 1 THEN 'java.lang.Class' END,
           printf('<class 0x%x>', h.class)) AS class,
       h.instances AS instances,
       h.bytes AS bytes,
       h.dump AS dump
FROM (SELECT dump, class,
             -- Nodes whose class is unknown (0) are kept apart by kind.
             CASE WHEN class = 0 THEN nodetypeid ELSE 0 END AS kind,
             count(*) AS instances,
             sum(size) AS bytes
      FROM node
      WHERE @dump IS NULL OR dump = @dump
      GROUP BY dump, class, kind) AS h
LEFT JOIN node_class AS c ON c.node_identifier = h.class AND c.dump = h.dump
LEFT JOIN strings AS cn ON cn.stringid = c.java_name
LEFT JOIN strings AS ln ON ln.stringid =
     (SELECT l.java_name FROM hprof_load_class AS l WHERE l.class = h.class AND h.class <> 0 LIMIT 1)
ORDER BY h.bytes DESC, class, h.dump;
