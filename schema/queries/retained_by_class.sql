-- retained_by_class.sql: how much memory the objects of each class keep
-- alive together, with their count and shallow bytes, largest first.
--
-- retained_bytes adds up the retained sizes (node_analysis) of the class's
-- strongly reachable objects, each object once: an object whose immediate
-- dominator is an object of the same class is already inside that one's
-- retained size and is not added again (the links of a linked list, the
-- entries of a tree count once, from the top).  Nesting through an object of
-- another class (a HashMap inside a HashMap's entry) is counted at both
-- levels, so for such classes the figure is an upper bound of what freeing
-- every object of the class would free.  Grouping is that of
-- class_histogram.sql: arrays under their array class, class objects under
-- java.lang.Class.
--
-- Columns: class, instances, shallow_bytes, retained_bytes, percent (of the
-- dump's strongly reachable bytes), dump.
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/retained_by_class.sql
--   sqlite3 -header -column -cmd ".parameter set @limit 100" out.db < schema/queries/retained_by_class.sql
-- Parameters (optional): @limit, rows shown (default 50; -1 for all); @dump,
-- the heap dump (default: every dump).  Needs the analysis.
WITH per_class(dump, class, kind, instances, shallow_bytes, retained_bytes) AS (
  SELECT n.dump, n.class,
         CASE WHEN n.class = 0 THEN n.nodetypeid ELSE 0 END,
         count(*),
         sum(n.size),
         sum(CASE WHEN a.reachable = 1 AND NOT coalesce(
                       dn.class = n.class AND dn.nodetypeid = n.nodetypeid, 0)
                  THEN a.retained_size ELSE 0 END)
  FROM node AS n
  JOIN node_analysis AS a ON a.identifier = n.identifier AND a.dump = n.dump
  LEFT JOIN node AS dn ON dn.identifier = a.dominator AND dn.dump = a.dump
  WHERE @dump IS NULL OR n.dump = @dump
  GROUP BY n.dump, n.class, 3)
SELECT coalesce(
           cn.data,
           ln.data,
           CASE h.kind WHEN 1 THEN 'java.lang.Class' END,
           printf('<class 0x%x>', h.class)) AS class,
       h.instances AS instances,
       h.shallow_bytes AS shallow_bytes,
       h.retained_bytes AS retained_bytes,
       round(100.0 * h.retained_bytes / max(d.reachable_bytes, 1), 2) AS percent,
       h.dump AS dump
FROM per_class AS h
JOIN dump_analysis AS d ON d.dump = h.dump
LEFT JOIN node_class AS c ON c.node_identifier = h.class AND c.dump = h.dump
LEFT JOIN strings AS cn ON cn.stringid = c.java_name
LEFT JOIN strings AS ln ON ln.stringid =
     (SELECT l.java_name FROM hprof_load_class AS l WHERE l.class = h.class AND h.class <> 0 LIMIT 1)
ORDER BY h.retained_bytes DESC, h.shallow_bytes DESC, class, h.dump
LIMIT coalesce(@limit, 50);
