-- top_retained.sql: which objects keep the most memory alive: the objects
-- with the largest retained size (node_analysis, see schema/README.md
-- "Analysis"), largest first.
--
-- An object's retained size is its shallow size plus those of every object
-- it dominates: what the collector would free if it were gone.  Retained
-- sets nest (a HashMap retains its table, which retains its entries), so the
-- rows overlap; dominator_path.sql shows what holds one of them,
-- path_from_root.sql its shortest chain of references from a GC root.
--
-- Columns: object, kind (class, instance, object_array, primitive_array),
-- class (Java source form; for a class object, the class it describes),
-- shallow_bytes, retained_bytes, percent (of the dump's strongly reachable
-- bytes, dump_analysis.reachable_bytes), distance (references from the
-- nearest GC root), dominator (its immediate dominator; 0: the virtual
-- super-root above the GC roots), dump.
--
-- Run:
--   sqlite3 -header -column out.db < schema/queries/top_retained.sql
--   sqlite3 -header -column -cmd ".parameter set @limit 100" out.db < schema/queries/top_retained.sql
-- Parameters (optional): @limit, rows shown (default 20); @dump, the heap
-- dump (default: every dump).  Needs the analysis (hprof2heapdb without
-- --no-analysis, or heapdb-analyze).
SELECT a.identifier AS object,
       nt.name AS kind,
       coalesce(
           CASE WHEN n.nodetypeid = 1 THEN own.data END,
           cls.data,
           CASE WHEN n.nodetypeid = 1 THEN 'java.lang.Class' END,
           CASE WHEN n.nodetypeid = 4 THEN pa.element_type || '[]' END,
           printf('<class 0x%x>', n.class)) AS class,
       n.size AS shallow_bytes,
       a.retained_size AS retained_bytes,
       round(100.0 * a.retained_size / max(d.reachable_bytes, 1), 2) AS percent,
       a.distance AS distance,
       a.dominator AS dominator,
       a.dump AS dump
FROM (SELECT * FROM node_analysis
      WHERE retained_size IS NOT NULL AND (@dump IS NULL OR dump = @dump)
      ORDER BY retained_size DESC, identifier
      LIMIT coalesce(@limit, 20)) AS a
JOIN dump_analysis AS d ON d.dump = a.dump
JOIN node AS n ON n.identifier = a.identifier AND n.dump = a.dump
JOIN node_types AS nt ON nt.nodetypeid = n.nodetypeid
LEFT JOIN node_class AS nc ON nc.node_identifier = n.class AND nc.dump = n.dump
LEFT JOIN strings AS cls ON cls.stringid = nc.java_name
LEFT JOIN node_class AS oc ON n.nodetypeid = 1 AND oc.node_identifier = n.identifier AND oc.dump = n.dump
LEFT JOIN strings AS own ON own.stringid = oc.java_name
LEFT JOIN node_primitive_array AS pa ON n.nodetypeid = 4 AND pa.node_identifier = n.identifier AND pa.dump = n.dump
ORDER BY a.retained_size DESC, a.identifier;
